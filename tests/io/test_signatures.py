"""jitvision.io's image functions take torchvision.io's parameters: the same names, order, kinds and defaults."""

import inspect

import pytest
import torchvision.io as tv_io

import jitvision.io as io

NAMES = ["read_file", "decode_jpeg", "decode_png", "decode_image", "read_image"]


@pytest.mark.parametrize("name", NAMES)
def test_same_parameters(name):
    ours = inspect.signature(getattr(io, name)).parameters
    theirs = inspect.signature(getattr(tv_io, name)).parameters
    assert list(ours) == list(theirs)
    for key, parameter in theirs.items():
        assert ours[key].kind == parameter.kind, key
        default = parameter.default
        if isinstance(default, tv_io.ImageReadMode):
            assert ours[key].default.name == default.name and ours[key].default.value == default.value
        else:
            assert ours[key].default == default, key


def test_image_read_mode_members():
    assert {m.name: m.value for m in io.ImageReadMode} == {m.name: m.value for m in tv_io.ImageReadMode}
    assert io.ImageReadMode.RGBA is io.ImageReadMode.RGB_ALPHA
