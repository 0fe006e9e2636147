"""Build hook: the package is pure Python unless a native kernel is added (see jitvision/csrc)."""

from setuptools import setup

setup()
