"""Property-based fuzzing of the decoders (jitvision.io and the fused decode of tv_tensors.EncodedImage): bytes
drawn at random, real files truncated anywhere and with bits flipped or bytes overwritten anywhere. Every call either
decodes (uint8/uint16 [C, H, W]) or raises a ValueError naming the function; never another exception, a crash or a
hang (each example has a deadline). A valid decode of a mutated file agrees between decode_image and the format's own
decoder. Budget: JITVISION_FUZZ_EXAMPLES examples per test (see test_fuzz.py)."""

from datetime import timedelta

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitvision.transforms as T
from jitvision import io, tv_tensors
from tests.fuzz.test_fuzz import EXAMPLES
from tests.io.images import kinds_of_jpeg, kinds_of_png, photo_jpegs

DECODE = settings(
    max_examples=max(EXAMPLES * 8, 32),
    deadline=timedelta(seconds=10),  # a hang fails the example (the machine may be shared: generous)
    derandomize=EXAMPLES <= 8,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SOURCES = {
    **{f"jpeg_{k}": v for k, v in kinds_of_jpeg().items() if k in ("420", "gray", "cmyk", "progressive", "444")},
    **{f"png_{k}": v for k, v in kinds_of_png().items() if k in ("rgb", "rgba", "palette", "gray16")},
    "photo": photo_jpegs()[0],
}


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SOURCES)))
    data = SOURCES[name].clone()
    n = data.numel()
    for _ in range(draw(st.integers(0, 4))):
        # positions biased to the headers, where a change alters sizes, tables and markers
        position = draw(st.one_of(st.integers(0, min(n - 1, 700)), st.integers(0, n - 1)))
        if draw(st.booleans()):
            data[position] = data[position] ^ (1 << draw(st.integers(0, 7)))
        else:
            data[position] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        data = data[: draw(st.integers(1, n))].clone()
    return name, data


def _decodes_or_names(fn, op, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except ValueError as error:
        assert op in str(error), error
        return None
    assert out.dtype in (torch.uint8, torch.uint16) and out.ndim in (3, 4)
    return out


@DECODE
@given(mutated(), st.sampled_from(["UNCHANGED", "GRAY", "RGB"]))
def test_mutated_files(case, mode):
    name, data = case
    fn, op = (io.decode_jpeg, "decode_jpeg") if name.startswith(("jpeg", "photo")) else (io.decode_png, "decode_png")
    own = _decodes_or_names(fn, op, data, mode=mode)
    any_format = _decodes_or_names(io.decode_image, "decode_image", data, mode=mode)
    if own is not None and any_format is not None and io._image.image_format(data) != "other":
        torch.testing.assert_close(own, any_format, rtol=0, atol=0)


@DECODE
@given(st.binary(min_size=1, max_size=300), st.sampled_from([b"", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n"]))
def test_random_bytes(body, head):
    data = torch.frombuffer(bytearray(head + body), dtype=torch.uint8)
    _decodes_or_names(io.decode_jpeg, "decode_jpeg", data)
    _decodes_or_names(io.decode_png, "decode_png", data)
    _decodes_or_names(io.decode_image, "decode_image", data)


@DECODE
@given(mutated(), st.integers(0, 3))
def test_mutated_files_through_the_fused_crop(case, which):
    _, data = case
    try:
        encoded = tv_tensors.EncodedImage(data)
    except ValueError as error:
        assert "EncodedImage" in str(error)
        return
    transform = [T.RandomResizedCrop(32), T.Resize(24), T.CenterCrop(8), T.RandomCrop(4, pad_if_needed=True)][which]
    try:
        out = transform(encoded)
    except ValueError as error:
        assert type(transform).__name__ in str(error)
        return
    assert out.dtype in (torch.uint8, torch.uint16)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_truncation_of_the_headers(name):
    data = SOURCES[name]
    op = "decode_png" if name.startswith("png") else "decode_jpeg"
    fn = io.decode_png if op == "decode_png" else io.decode_jpeg
    for cut in range(1, min(data.numel(), 800), 7):
        _decodes_or_names(fn, op, data[:cut].clone())
