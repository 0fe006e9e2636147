"""The machinery behind ``python -m jitvision audit`` (see ``jitvision.audit``)."""
