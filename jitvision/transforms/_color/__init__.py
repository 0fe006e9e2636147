"""Photometric transform classes (torchvision's ``_color`` family)."""
