"""tv_tensors.BatchedEncodedImages through a transform or a Compose: one parallel native call decodes the batch.

Each row must be what the single-image path gives that image for the same draws (bit for bit for uint8 outputs),
for every kind of file in one batch (photographs, gray, CMYK, progressive, EXIF-turned JPEGs, PNGs, GIF), whatever
the thread count."""

import pytest
import torch

from jitvision import _native, tv_tensors
from jitvision.io import ImageReadMode
from jitvision.transforms import (
    CenterCrop,
    Compose,
    Normalize,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomShortestSize,
    Resize,
    ToDtype,
)
from jitvision.transforms import functional as F
from jitvision.transforms._decode_fused import _finish, _scaled_region, lead_params
from tests.io.images import exif_jpeg, exif_png, kinds_of_jpeg, kinds_of_png, other_formats, photo_jpegs

pytestmark = pytest.mark.skipif(not _native.DECODE_BATCH, reason="the native library lacks the batch decode")

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def mixed_files():
    """Every kind of file a batch may hold, RGB-decodable."""
    jpegs = kinds_of_jpeg()
    pngs = kinds_of_png()
    return [
        *photo_jpegs(),
        jpegs["420"], jpegs["444"], jpegs["gray"], jpegs["cmyk"], jpegs["progressive"], jpegs["opencv"],
        exif_jpeg(6), exif_jpeg(3), exif_png(8),
        pngs["rgb"], pngs["palette"], pngs["gray"],
        other_formats()["gif"], other_formats()["bmp"],
    ]


def encoded(files, mode=ImageReadMode.RGB, apply_exif_orientation=True):
    return [tv_tensors.EncodedImage(data, mode, apply_exif_orientation) for data in files]


def singles_then_batch(pipeline, images, seed=0):
    torch.manual_seed(seed)
    singles = [pipeline(image) for image in images]
    torch.manual_seed(seed)
    batch = pipeline(tv_tensors.BatchedEncodedImages(images))
    return singles, batch


@pytest.mark.parametrize(
    "lead",
    [
        RandomResizedCrop(24),
        RandomResizedCrop([20, 28], scale=(0.5, 1.0)),
        Resize([30, 22]),
        CenterCrop(12),
        CenterCrop(40),  # larger than the smallest images: those rows pad
        RandomCrop(16),
        RandomCrop(16, padding=3),
        RandomResizedCrop(24, interpolation=F.InterpolationMode.BICUBIC),
        RandomResizedCrop(24, interpolation=F.InterpolationMode.NEAREST),
    ],
    ids=repr,
)
@pytest.mark.parametrize("composed", [False, True])
def test_each_row_is_the_single_image_result_for_the_same_draws(lead, composed):
    images = encoded(mixed_files())
    pipeline = Compose([lead]) if composed else lead
    singles, batch = singles_then_batch(pipeline, images)
    assert type(batch) is tv_tensors.BatchedImages and batch.dtype == torch.uint8
    for row, single in zip(batch, singles):
        torch.testing.assert_close(row.as_subclass(torch.Tensor), single.as_subclass(torch.Tensor), rtol=0, atol=0)


def test_same_size_leads_and_no_lead():
    square = encoded([data for data in photo_jpegs()][:1] * 3 + [kinds_of_jpeg()["420"]] * 0)
    for pipeline in (RandomShortestSize([48]), Compose([RandomHorizontalFlip(), ToDtype(torch.float32)])):
        singles, batch = singles_then_batch(pipeline, square, seed=3)
        if isinstance(pipeline, Compose):
            # the flip's coins are drawn for the batch at once: compare with the images decoded whole
            whole = [image.decode() for image in square]
            assert batch.shape == (3, *whole[0].shape)
            for row, image in zip(batch, whole):
                plain = image.as_subclass(torch.Tensor).float()
                assert torch.equal(row, plain) or torch.equal(row, plain.flip(-1))
        else:
            for row, single in zip(batch, singles):
                assert torch.equal(row.as_subclass(torch.Tensor), single.as_subclass(torch.Tensor))


def _replayed_rows(images, crop, flip, seed, to_float):
    """The single-image steps with the batch's draws (the crops' own, then the flips' for the batch at once)."""
    torch.manual_seed(seed)
    params = [lead_params(crop, image) for image in images]
    coins = flip._draw([len(images)], 0, 0, torch.device("cpu"))["apply"]
    rows = []
    for image, drawn, coin in zip(images, params, coins):
        if image.format == "jpeg" and image.orientation == 1:  # the single-image fused path: a region decode
            box, size = drawn["box"].tolist(), list(crop.size)
            region = _scaled_region(image, box, size, crop, "RandomResizedCrop")
            mean, std = (MEAN, STD) if to_float else (None, None)
            rows.append(_finish(region, size, crop, coin.reshape(1), mean, std, to_float))
            continue
        out = crop.transform(image.decode(), drawn)
        if bool(coin):
            out = F.horizontal_flip(out)
        if to_float:
            out = Normalize(MEAN, STD)(ToDtype(torch.float32, scale=True)(out))
        rows.append(out.as_subclass(torch.Tensor))
    return rows


@pytest.mark.parametrize("to_float", [False, True])
def test_fused_flip_and_float_tail(to_float):
    images = encoded(mixed_files())
    crop, flip = RandomResizedCrop(32, scale=(0.3, 1.0)), RandomHorizontalFlip()
    steps = [crop, flip] + ([ToDtype(torch.float32, scale=True), Normalize(MEAN, STD)] if to_float else [])
    torch.manual_seed(7)
    batch = Compose(steps)(tv_tensors.BatchedEncodedImages(images)).as_subclass(torch.Tensor)
    expected = _replayed_rows(images, crop, flip, 7, to_float)
    assert batch.dtype == (torch.float32 if to_float else torch.uint8)
    for index, (row, want) in enumerate(zip(batch, expected)):
        if to_float and not (images[index].format == "jpeg" and images[index].orientation == 1):
            # decoded whole, then the steps one by one: the float tail's rounding differs from the fused pass
            torch.testing.assert_close(row, want, rtol=0, atol=2e-5, msg=f"row {index}")
        else:
            assert torch.equal(row, want), f"row {index}"


def test_fused_rows_equal_the_single_image_fused_path():
    # Compose([RRC, flip]) on one EncodedImage is the fused single-image path. The crop draws from a generator of
    # its own (the same crops in the same order either way); with p=1 every row is flipped in both.
    images = encoded(photo_jpegs() + (kinds_of_jpeg()["gray"], kinds_of_jpeg()["cmyk"]))

    def steps():
        return [RandomResizedCrop(48, generator=torch.Generator().manual_seed(11)), RandomHorizontalFlip(p=1.0),
                ToDtype(torch.float32, scale=True), Normalize(MEAN, STD)]

    pipeline = Compose(steps())
    singles = [pipeline(image) for image in images]
    batch = Compose(steps())(tv_tensors.BatchedEncodedImages(images))
    for row, single in zip(batch, singles):
        torch.testing.assert_close(row.as_subclass(torch.Tensor), single.as_subclass(torch.Tensor), rtol=0, atol=0)


def test_resize_then_center_crop_window():
    images = encoded(mixed_files())
    pipeline = Compose([Resize(36), CenterCrop(32)])
    singles, batch = singles_then_batch(pipeline, images)
    for row, single in zip(batch, singles):
        assert torch.equal(row.as_subclass(torch.Tensor), single.as_subclass(torch.Tensor))


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_the_same_output_for_any_thread_count(threads):
    images = encoded(mixed_files() * 2)
    pipeline = Compose([RandomResizedCrop(40), RandomHorizontalFlip(), ToDtype(torch.float32, scale=True),
                        Normalize(MEAN, STD)])
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        torch.manual_seed(5)
        reference = pipeline(tv_tensors.BatchedEncodedImages(images))
        torch.set_num_threads(threads)
        torch.manual_seed(5)
        out = pipeline(tv_tensors.BatchedEncodedImages(images))
    finally:
        torch.set_num_threads(saved)
    assert torch.equal(out, reference)


def test_gray_batch():
    images = encoded([kinds_of_jpeg()["420"], kinds_of_jpeg()["gray"], kinds_of_png()["rgb"]], ImageReadMode.GRAY)
    singles, batch = singles_then_batch(RandomResizedCrop(20), images)
    assert batch.shape == (3, 1, 20, 20)
    for row, single in zip(batch, singles):
        assert torch.equal(row.as_subclass(torch.Tensor), single.as_subclass(torch.Tensor))


def test_unchanged_mode_stacks_or_says_why():
    same = encoded([kinds_of_jpeg()["420"], kinds_of_jpeg()["444"]], ImageReadMode.UNCHANGED)
    singles, batch = singles_then_batch(RandomResizedCrop(16), same)
    assert all(torch.equal(row, single.as_subclass(torch.Tensor)) for row, single in zip(batch, singles))
    mixed = encoded([kinds_of_jpeg()["420"], kinds_of_jpeg()["gray"]], ImageReadMode.UNCHANGED)
    with pytest.raises(ValueError, match="different shapes"):
        RandomResizedCrop(16)(tv_tensors.BatchedEncodedImages(mixed))


def test_rows_of_different_sizes_are_refused_with_the_sizes():
    images = encoded(photo_jpegs()[:2])  # 500x375 and 375x500
    with pytest.raises(ValueError, match=r"Resize: the images of the batch end in different sizes"):
        Compose([Resize(32), ToDtype(torch.float32, scale=True)])(tv_tensors.BatchedEncodedImages(images))


def test_a_bad_file_is_named_with_its_place_in_the_batch(tmp_path):
    good = photo_jpegs()[0]
    path = tmp_path / "cut.jpg"
    path.write_bytes(good[: good.numel() // 2].numpy().tobytes())
    images = encoded([good, good]) + [tv_tensors.EncodedImage.from_file(path)]
    with pytest.raises(ValueError, match=r"cut\.jpg.*image 2 of the batch"):
        Compose([RandomResizedCrop(16), ToDtype(torch.float32, scale=True)])(tv_tensors.BatchedEncodedImages(images))


def test_a_batch_is_transformed_alone():
    images = tv_tensors.BatchedEncodedImages(encoded(photo_jpegs()[:2]))
    with pytest.raises(TypeError, match="BatchedEncodedImages is transformed alone"):
        RandomResizedCrop(16)((images, torch.tensor([0, 1])))
    with pytest.raises(TypeError, match="expected EncodedImage items"):
        tv_tensors.BatchedEncodedImages([torch.zeros(3)])
    with pytest.raises(ValueError, match="at least one"):
        tv_tensors.BatchedEncodedImages([])


def test_a_batch_is_refused_under_compile():
    images = tv_tensors.BatchedEncodedImages(encoded(photo_jpegs()[:2]))
    compiled = torch.compile(RandomResizedCrop(16), fullgraph=True, backend="eager")
    with pytest.raises(Exception, match="BatchedEncodedImages cannot be decoded under torch.compile"):
        compiled(images)
