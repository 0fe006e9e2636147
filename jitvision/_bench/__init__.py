"""Benchmark jobs of ``python -m jitvision bench`` (see ``jitvision.bench``)."""
