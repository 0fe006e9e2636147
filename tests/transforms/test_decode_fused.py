"""The decode fused with the first crop or resize (tv_tensors.EncodedImage): the same draws as on the decoded image
for the same seed, the same output bit for bit where the region is decoded at full scale, within the documented
tolerance where libjpeg's DCT scaling is used, boxes and masks following the same region; everything else decodes
whole first; refused under torch.compile with a message saying to decode first."""

import pickle

import pytest
import torch

import jitvision.transforms as T
from jitvision import io, tv_tensors
from jitvision.transforms import _decode_fused
from tests.io.images import kinds_of_jpeg, kinds_of_png, photo_jpegs

# The documented tolerance of the reduced DCT scales (docs/io.md), per output pixel against decode-then-transform, in
# uint8 levels: the mean absolute difference over every image and seed, the worst single image's mean, and the
# largest single difference (measured on these photographs: at most 2.8, 9.1 and 135, bicubic).
MEAN_TOLERANCE = 3.5
IMAGE_MEAN_TOLERANCE = 12.0
MAX_TOLERANCE = 160

LEADING = {
    "RandomResizedCrop": lambda: T.RandomResizedCrop(224),
    "RandomResizedCrop_bicubic": lambda: T.RandomResizedCrop(96, interpolation=T.InterpolationMode.BICUBIC),
    "RandomResizedCrop_nearest": lambda: T.RandomResizedCrop(64, interpolation=T.InterpolationMode.NEAREST),
    "Resize": lambda: T.Resize(160),
    "Resize_hw": lambda: T.Resize([90, 120]),
    "Resize_max": lambda: T.Resize(100, max_size=120),
    "RandomShortestSize": lambda: T.RandomShortestSize([60, 90, 130], max_size=200),
    "CenterCrop": lambda: T.CenterCrop([200, 150]),
    "RandomCrop": lambda: T.RandomCrop(128),
}
EXACT = {"CenterCrop", "RandomCrop", "RandomResizedCrop_nearest"}


def _both(make, encoded_sample, decoded_sample, seed):
    transform = make()
    torch.manual_seed(seed)
    fused = transform(encoded_sample)
    torch.manual_seed(seed)
    reference = transform(decoded_sample)
    return fused, reference


@pytest.mark.parametrize("name", sorted(LEADING))
def test_fused_matches_decode_then_transform(name):
    total, count = 0.0, 0
    for index, data in enumerate(photo_jpegs()):
        encoded = tv_tensors.EncodedImage(data)
        decoded = encoded.decode()
        for seed in range(3):
            fused, reference = _both(LEADING[name], encoded, decoded, seed + 10 * index)
            assert type(fused) is tv_tensors.Image and fused.shape == reference.shape and fused.dtype == torch.uint8
            if name in EXACT:
                torch.testing.assert_close(fused, reference, rtol=0, atol=0)
                continue
            diff = (fused.to(torch.int16) - reference.to(torch.int16)).abs()
            total, count = total + diff.double().sum().item(), count + diff.numel()
            mean, largest = diff.double().mean().item(), int(diff.max())
            assert mean <= IMAGE_MEAN_TOLERANCE and largest <= MAX_TOLERANCE, (name, index, seed, mean, largest)
    assert count == 0 or total / count <= MEAN_TOLERANCE, (name, total / count)
    # exact everywhere when the scale is limited to 1
    encoded = tv_tensors.EncodedImage(photo_jpegs()[0], max_dct_scale=1)
    fused, reference = _both(LEADING[name], encoded, encoded.decode(), 0)
    torch.testing.assert_close(fused, reference, rtol=0, atol=0)


def test_full_scale_regions_are_bit_identical_so_the_draws_are_the_same():
    # An output as large as the region keeps the decode at full scale: the fused output then equals the unfused one
    # exactly, which holds only if the crop drawn from the header's size is the crop drawn from the image.
    for data in photo_jpegs():
        encoded = tv_tensors.EncodedImage(data)
        decoded = encoded.decode()
        for seed in range(8):
            fused, reference = _both(lambda: T.RandomResizedCrop(400, scale=(0.5, 1.0)), encoded, decoded, seed)
            torch.testing.assert_close(fused, reference, rtol=0, atol=0)


def test_scaled_decodes_are_used_and_the_generator_draws_the_same():
    data = photo_jpegs()[0]
    encoded = tv_tensors.EncodedImage(data)
    transform = T.RandomResizedCrop(32, generator=torch.Generator().manual_seed(5))
    params = transform.make_params([_decode_fused._placeholder(encoded)])
    other = T.RandomResizedCrop(32, generator=torch.Generator().manual_seed(5))
    assert params == other.make_params([encoded.decode()])  # torchvision's keys: top, left, height, width
    assert _decode_fused._scale_for((params["height"], params["width"]), [32, 32], transform) > 1


@pytest.mark.parametrize("kind", ["cmyk", "gray", "progressive", "444", "thin"])
def test_kinds_of_jpeg_through_the_fused_crop(kind):
    encoded = tv_tensors.EncodedImage(kinds_of_jpeg()[kind])
    decoded = encoded.decode()
    height, width = encoded.canvas_size
    fused, reference = _both(lambda: T.RandomCrop([max(height // 2, 1), max(width // 3, 1)]), encoded, decoded, 0)
    torch.testing.assert_close(fused, reference, rtol=0, atol=0)


def test_boxes_and_masks_follow_the_region():
    encoded = tv_tensors.EncodedImage(photo_jpegs()[0])
    decoded = encoded.decode()
    height, width = encoded.canvas_size
    boxes = tv_tensors.BoundingBoxes(
        torch.tensor([[10.0, 20.0, 200.0, 300.0], [100.0, 50.0, 400.0, 350.0]]), format="XYXY",
        canvas_size=(height, width),
    )
    mask = tv_tensors.Mask((torch.arange(height * width) % 7).reshape(1, height, width).to(torch.uint8))
    for name in sorted(LEADING):
        sample = {"image": encoded, "boxes": boxes, "mask": mask, "label": 3}
        reference_sample = {"image": decoded, "boxes": boxes, "mask": mask, "label": 3}
        fused, reference = _both(LEADING[name], sample, reference_sample, 1)
        assert fused["label"] == 3
        torch.testing.assert_close(fused["boxes"], reference["boxes"], rtol=0, atol=0)
        assert fused["boxes"].canvas_size == reference["boxes"].canvas_size
        torch.testing.assert_close(fused["mask"], reference["mask"], rtol=0, atol=0)
        assert fused["image"].shape == reference["image"].shape


def test_compose_led_by_a_fusable_step():
    pipeline = lambda: T.Compose(  # noqa: E731
        [T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
         T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]
    )
    for data in photo_jpegs():
        encoded = tv_tensors.EncodedImage(data)
        fused, reference = _both(pipeline, encoded, encoded.decode(), 3)
        assert fused.dtype == torch.float32 and fused.shape == reference.shape
        # the tolerance in uint8 levels, through Normalize's largest scale (1 / (255 * 0.224))
        assert (fused - reference).abs().mean().item() <= MEAN_TOLERANCE / (255 * 0.224)


@pytest.mark.parametrize(
    "make", [lambda: T.RandomHorizontalFlip(1.0), lambda: T.ColorJitter(0.3), lambda: T.Pad(3),
             lambda: T.RandomCrop(600, pad_if_needed=True), lambda: T.CenterCrop(700)]
)
def test_other_first_steps_decode_whole_first(make):
    encoded = tv_tensors.EncodedImage(photo_jpegs()[0])
    fused, reference = _both(make, encoded, encoded.decode(), 0)
    assert type(fused) is tv_tensors.Image
    torch.testing.assert_close(fused, reference, rtol=0, atol=0)


def test_png_and_exif_decode_whole_first():
    png = tv_tensors.EncodedImage(kinds_of_png()["rgb"])
    fused, reference = _both(lambda: T.RandomResizedCrop(16), png, png.decode(), 0)
    torch.testing.assert_close(fused, reference, rtol=0, atol=0)
    from tests.io.images import exif_jpeg

    turned = tv_tensors.EncodedImage(exif_jpeg(6), apply_exif_orientation=True)
    assert turned.canvas_size == (80, 48)
    fused, reference = _both(lambda: T.RandomCrop(20), turned, turned.decode(), 0)
    torch.testing.assert_close(fused, reference, rtol=0, atol=0)


def test_encoded_image_pickles_and_reads_its_header():
    data = photo_jpegs()[1]
    encoded = tv_tensors.EncodedImage(data, mode="GRAY")
    assert encoded.canvas_size == tuple(io.decode_jpeg(data).shape[-2:])
    again = pickle.loads(pickle.dumps(encoded))
    assert again.canvas_size == encoded.canvas_size and again.mode is io.ImageReadMode.GRAY
    torch.testing.assert_close(again.decode(), encoded.decode(), rtol=0, atol=0)
    assert encoded.decode().shape[0] == 1


def test_bad_bytes_name_the_transform_and_the_file(tmp_path):
    data = photo_jpegs()[0]
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: data.numel() // 2].numpy().tobytes())
    encoded = tv_tensors.EncodedImage.from_file(path)  # the header is intact
    with pytest.raises(ValueError, match=r"RandomResizedCrop: .*cut\.jpg"):
        T.RandomResizedCrop(224)(encoded)
    with pytest.raises(ValueError, match=r"ColorJitter: .*cut\.jpg"):
        T.ColorJitter(0.2)(encoded)
    garbage = tmp_path / "garbage.jpg"
    garbage.write_bytes(b"\xff\xd8\xff\x00 not a jpeg at all")
    with pytest.raises(ValueError, match=r"EncodedImage: .*garbage\.jpg"):
        tv_tensors.EncodedImage.from_file(garbage)


def test_compile_refuses_with_a_message():
    encoded = tv_tensors.EncodedImage(photo_jpegs()[0])
    compiled = torch.compile(T.RandomResizedCrop(224), fullgraph=True, backend="eager")
    with pytest.raises(Exception, match="decode it first"):
        compiled(encoded)
