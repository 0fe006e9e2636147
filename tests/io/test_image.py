"""jitvision.io against torchvision.io 0.29.1 on the same bytes: JPEG and PNG decodes are bit-identical in every read
mode (photographs, subsamplings, gray, CMYK, progressive, odd sizes; every PNG colour type and bit depth), other
formats go through Pillow, EXIF orientations 1-8 turn the image as torchvision turns it, and bad bytes raise a
ValueError naming the function."""

import io as pyio
import threading
import time
import warnings

import numpy as np
import PIL.Image
import pytest
import torch
import torchvision.io as tv_io

import jitvision.io as io
from jitvision import _native
from tests.io.images import (
    corruptions,
    encode,
    exif_jpeg,
    exif_png,
    kinds_of_jpeg,
    kinds_of_png,
    other_formats,
    photo_jpegs,
    photographs,
)

warnings.filterwarnings("ignore", message=".*TorchCodec.*")  # torchvision 0.29's deprecation of its decoders

MODES = [mode.name for mode in io.ImageReadMode]  # the aliases (RGBA) are the same members


def _tv(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _same_or_same_error(ours, theirs, op: str) -> None:
    """Both decode to equal tensors (values, dtype, shape, strides), or both refuse (ours with a ValueError naming
    ``op``)."""
    try:
        expected = theirs()
    except RuntimeError:
        with pytest.raises(ValueError, match=op):
            ours()
        return
    got = ours()
    assert type(got) is torch.Tensor and got.dtype == expected.dtype and got.shape == expected.shape
    assert got.stride() == expected.stride()
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_the_native_decoders_are_built():
    # A library built without libjpeg or libpng falls back to Pillow silently: the parity below would not hold.
    assert _native.DECODE_JPEG and _native.DECODE_PNG


@pytest.mark.parametrize("index", range(len(photo_jpegs())))
def test_photographs_decode_bit_identical(index):
    data = photo_jpegs()[index]
    for mode in ("UNCHANGED", "RGB", "GRAY"):
        _same_or_same_error(lambda m=mode: io.decode_jpeg(data, mode=m),
                            lambda m=mode: _tv(tv_io.decode_jpeg, data, mode=m), "decode_jpeg")


@pytest.mark.parametrize("kind", sorted(kinds_of_jpeg()))
@pytest.mark.parametrize("mode", MODES)
def test_jpeg_kinds_and_modes(kind, mode):
    data = kinds_of_jpeg()[kind]
    _same_or_same_error(lambda: io.decode_jpeg(data, mode=io.ImageReadMode[mode]),
                        lambda: _tv(tv_io.decode_jpeg, data, mode=tv_io.ImageReadMode[mode]), "decode_jpeg")
    _same_or_same_error(lambda: io.decode_image(data, mode=mode),
                        lambda: _tv(tv_io.decode_image, data, mode=mode), "decode_image")


# Where torchvision's decode_png returns memory it never wrote: a palette without transparency read with an alpha mode
# (it assumes the expansion brings an alpha channel: each row fills half or three quarters of its row of the output)
# and a palette packed in fewer than 8 bits read UNCHANGED (the packed bytes, not the indices). jitvision adds an
# opaque alpha and unpacks the indices.
TORCHVISION_UNDEFINED = {("palette", "GRAY_ALPHA"), ("palette", "RGB_ALPHA"), ("palette4", "GRAY_ALPHA"),
                         ("palette4", "RGB_ALPHA"), ("palette4", "UNCHANGED")}


@pytest.mark.parametrize("kind, mode", sorted(TORCHVISION_UNDEFINED))
def test_png_where_torchvision_is_undefined(kind, mode):
    data = kinds_of_png()[kind]
    got = io.decode_png(data, mode=mode)
    if mode == "UNCHANGED":
        indices = np.asarray(PIL.Image.open(pyio.BytesIO(data.numpy().tobytes())))
        torch.testing.assert_close(got[0], torch.from_numpy(indices.copy()), rtol=0, atol=0)
        return
    color = _tv(tv_io.decode_png, data, mode=mode.replace("_ALPHA", ""))
    torch.testing.assert_close(got[:-1], color, rtol=0, atol=0)
    assert bool((got[-1] == 255).all())


@pytest.mark.parametrize(
    "kind, mode", [(k, m) for k in sorted(kinds_of_png()) for m in MODES if (k, m) not in TORCHVISION_UNDEFINED]
)
def test_png_kinds_and_modes(kind, mode):
    data = kinds_of_png()[kind]
    _same_or_same_error(lambda: io.decode_png(data, mode=mode), lambda: _tv(tv_io.decode_png, data, mode=mode),
                        "decode_png")
    _same_or_same_error(lambda: io.decode_image(data, mode=mode),
                        lambda: _tv(tv_io.decode_image, data, mode=mode), "decode_image")


@pytest.mark.parametrize("kind", ["gif", "webp_lossless"])
@pytest.mark.parametrize("mode", ["UNCHANGED", "RGB"])
def test_other_formats_through_pillow(kind, mode):
    data = other_formats()[kind]
    expected = _tv(tv_io.decode_image, data, mode=mode)
    got = io.decode_image(data, mode=mode)
    torch.testing.assert_close(got.contiguous(), expected.contiguous(), rtol=0, atol=0)


def test_formats_torchvision_does_not_read_decode_through_pillow():
    got = io.decode_image(other_formats()["bmp"], mode="RGB")
    assert got.shape == (3, 30, 41) and got.dtype == torch.uint8


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation(orientation):
    for data, decode, tv_decode in (
        (exif_jpeg(orientation), io.decode_jpeg, tv_io.decode_jpeg),
        (exif_png(orientation), io.decode_png, tv_io.decode_png),
    ):
        assert io.read_exif_orientation(data) == orientation
        expected = _tv(tv_decode, data, apply_exif_orientation=True)
        torch.testing.assert_close(decode(data, apply_exif_orientation=True), expected, rtol=0, atol=0)
        torch.testing.assert_close(io.decode_image(data, apply_exif_orientation=True), expected, rtol=0, atol=0)
        # without the flag, the pixels as stored
        torch.testing.assert_close(decode(data), _tv(tv_decode, data), rtol=0, atol=0)


def test_a_list_of_jpegs():
    datas = list(photo_jpegs()[:3])
    got = io.decode_jpeg(datas, mode=io.ImageReadMode.RGB)
    assert isinstance(got, list) and len(got) == 3
    for data, image in zip(datas, got):
        torch.testing.assert_close(image, _tv(tv_io.decode_jpeg, data, mode=tv_io.ImageReadMode.RGB), rtol=0, atol=0)
    with pytest.raises(ValueError, match="decode_jpeg"):
        io.decode_jpeg([])


def test_read_file_and_read_image(tmp_path):
    data = photo_jpegs()[0]
    path = tmp_path / "photo.jpg"
    path.write_bytes(data.numpy().tobytes())
    torch.testing.assert_close(io.read_file(path), _tv(tv_io.read_file, str(path)), rtol=0, atol=0)
    torch.testing.assert_close(io.read_image(str(path), io.ImageReadMode.GRAY),
                               _tv(tv_io.read_image, str(path), tv_io.ImageReadMode.GRAY), rtol=0, atol=0)
    torch.testing.assert_close(io.decode_image(path), _tv(tv_io.decode_image, str(path)), rtol=0, atol=0)


def test_modes_accept_names_and_torchvision_enum():
    data = photo_jpegs()[0]
    expected = io.decode_jpeg(data, mode=io.ImageReadMode.GRAY)
    for mode in ("gray", "GRAY", tv_io.ImageReadMode.GRAY):
        torch.testing.assert_close(io.decode_jpeg(data, mode=mode), expected, rtol=0, atol=0)
    assert io.ImageReadMode.RGBA is io.ImageReadMode.RGB_ALPHA
    with pytest.raises(ValueError, match="decode_jpeg: mode"):
        io.decode_jpeg(data, mode="CMYK")


@pytest.mark.parametrize(
    "fn, op", [(io.decode_jpeg, "decode_jpeg"), (io.decode_png, "decode_png"), (io.decode_image, "decode_image")]
)
def test_bad_inputs_name_the_function(fn, op):
    with pytest.raises(ValueError, match=op):
        fn(torch.empty(0, dtype=torch.uint8))
    with pytest.raises(ValueError, match=op):
        fn(torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=torch.uint8))
    with pytest.raises(TypeError, match=op):
        fn(torch.zeros(10, dtype=torch.float32))
    with pytest.raises(ValueError, match=op):
        fn(torch.zeros(2, 10, dtype=torch.uint8))
    with pytest.raises(TypeError, match=op):
        fn(b"\xff\xd8\xff")


@pytest.mark.parametrize("which", ["jpeg", "png"])
def test_truncated_and_corrupt_bytes_raise_or_decode_never_crash(which):
    data = photo_jpegs()[2] if which == "jpeg" else kinds_of_png()["rgb"]
    decode = io.decode_jpeg if which == "jpeg" else io.decode_png
    op = "decode_jpeg" if which == "jpeg" else "decode_png"
    for index, broken in enumerate(corruptions(data)):
        try:
            out = decode(broken)
        except ValueError as error:
            assert op in str(error)
            continue
        assert out.dtype in (torch.uint8, torch.uint16) and out.ndim == 3, index
    # a file cut short fails, as torchvision's decoder fails (no grey rows filling in for the missing data)
    with pytest.raises(ValueError, match=f"{op}: .*(truncated|ends)"):
        decode(data[: data.numel() // 2])


def test_decoding_releases_the_gil():
    # One long decode in a thread while this thread keeps running Python: with the GIL held for the call, this
    # thread would stall for the whole decode (one gap as long as the decode); released, it keeps ticking.
    # large enough that one decode (~60 ms) dwarfs the scheduler's gaps on a busy 2-core machine (~10 ms)
    big = encode(photographs()[0].resize((6000, 4800)), "JPEG", quality=95)
    start = time.perf_counter()
    torch.ops.jitvision_native.decode_jpeg.default(big, 3, [], 1)
    one_decode = time.perf_counter() - start
    done = threading.Event()

    def work():
        for _ in range(3):
            torch.ops.jitvision_native.decode_jpeg.default(big, 3, [], 1)
        done.set()

    thread = threading.Thread(target=work)
    longest_gap, last = 0.0, time.perf_counter()
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_gap, last = max(longest_gap, now - last), now
    thread.join()
    assert longest_gap < 0.5 * one_decode, (longest_gap, one_decode)
