"""Photometric functionals and kernels (torchvision's ``_color`` family), one file per small family."""
