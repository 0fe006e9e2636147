"""Compose's PIL path: a PIL image that the pipeline converts later runs on the tensor kernels from the first step.

The converted pipeline gives what the same pipeline gives on the image as a tensor (same draws, same kernels), its
output has the type torchvision's pipeline returns, and a transform alone on a PIL image still returns PIL.
"""

import gc

import numpy as np
import PIL.Image
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import tv_tensors
from jitvision.transforms import _pil_path

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def _photo(height=150, width=203, mode="RGB", seed=0):
    """A smooth random colour image with some grain, as a PIL image of ``mode``."""
    gen = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 3, height // 16 + 2, width // 16 + 2, generator=gen)
    smooth = torch.nn.functional.interpolate(coarse, size=(height, width), mode="bilinear", align_corners=False)
    noisy = (smooth * 0.85 + torch.rand(1, 3, height, width, generator=gen) * 0.15).clamp(0, 1)
    array = (noisy[0] * 255).round().to(torch.uint8).permute(1, 2, 0).numpy()
    return PIL.Image.fromarray(array).convert(mode)


def _as_tensor(image):
    return torch.from_numpy(np.array(image)).reshape(image.height, image.width, -1).permute(2, 0, 1).contiguous()


def _pipelines(ns, converter):
    """(name, steps before the converter, steps after it)."""
    tail = [ns.ToDtype(torch.float32, scale=True), ns.Normalize(MEAN if converter != "gray" else MEAN[:1], STD[:1])]
    return {
        "rrc+flip (fused)": [ns.RandomResizedCrop(64, antialias=True), ns.RandomHorizontalFlip()],
        "resize+centercrop (fused)": [ns.Resize(80, antialias=True), ns.CenterCrop(64)],
        "rrc+flip+RandAugment": [ns.RandomResizedCrop(64, antialias=True), ns.RandomHorizontalFlip(), ns.RandAugment()],
        "rrc+TrivialAugmentWide": [ns.RandomResizedCrop(64, antialias=True), ns.TrivialAugmentWide()],
        "jitter+rotation+blur": [ns.ColorJitter(0.4, 0.4, 0.4, 0.1), ns.RandomRotation(20), ns.GaussianBlur(5)],
        "crop only": [ns.RandomCrop(48), ns.RandomVerticalFlip(1.0)],
        "nothing before": [],
    }, tail


def _compose(ns, before, converter, tail):
    return ns.Compose([*before, getattr(ns, converter)(), *tail])


# Gray (L) images: the pipelines without the colour steps (hue needs 3 channels, in torchvision too).
_GRAY = ("rrc+flip (fused)", "resize+centercrop (fused)", "crop only", "nothing before")
_CASES = [(name, "RGB") for name in _pipelines(T, "rgb")[0]] + [(name, "L") for name in _GRAY]


@pytest.mark.parametrize("converter", ["PILToTensor", "ToImage"])
@pytest.mark.parametrize("name, mode", _CASES)
def test_converted_pipeline_equals_the_tensor_pipeline(name, mode, converter):
    image = _photo(mode=mode)
    befores, tail = _pipelines(T, "gray" if mode == "L" else "rgb")
    pipeline = _compose(T, befores[name], converter, tail)
    assert _pil_path.plan(tuple(pipeline.transforms), image) is not None, "the PIL path must apply"
    tensor = _as_tensor(image)
    if converter == "ToImage":
        tensor = tv_tensors.Image(tensor)
    for seed in range(3):
        torch.manual_seed(seed)
        got = pipeline(image)
        torch.manual_seed(seed)
        expected = pipeline(tensor)
        assert type(got) is type(expected)
        torch.testing.assert_close(got.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor), rtol=0, atol=1e-6)


@pytest.mark.parametrize("converter", ["PILToTensor", "ToImage"])
@pytest.mark.parametrize("end", ["", "ToPureTensor"])
def test_output_types_equal_torchvisions(converter, end):
    image = _photo()

    def build(ns):
        steps = [ns.RandomResizedCrop(64, antialias=True), ns.RandomHorizontalFlip(), getattr(ns, converter)()]
        steps += [ns.ToDtype(torch.float32, scale=True), ns.Normalize(MEAN, STD)]
        return ns.Compose(steps + ([getattr(ns, end)()] if end else []))

    ours, theirs = build(T)(image), build(tv_transforms)(image)
    assert type(ours).__name__ == type(theirs).__name__
    assert isinstance(ours, tv_tensors.Image) == (type(theirs).__name__ == "Image")
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    # Same crop and flip are not promised across libraries; the values are an ImageNet-normalised 64x64 crop.
    assert ours.abs().max() < 3


def test_converted_values_are_close_to_torchvisions_pil_pipeline():
    """A deterministic pipeline (no draws): the difference is PIL's resampling against torch's, below a level."""
    image = _photo(300, 407)

    def build(ns):
        return ns.Compose([ns.Resize(128, antialias=True), ns.CenterCrop(112), ns.PILToTensor()])

    ours, theirs = build(T)(image), build(tv_transforms)(image)
    delta = (ours.to(torch.int16) - theirs.to(torch.int16)).abs()
    assert delta.max() <= 1 and delta.to(torch.float32).mean() < 0.05


@pytest.mark.parametrize(
    "transform",
    [T.RandomResizedCrop(32), T.Resize(40), T.RandomHorizontalFlip(1.0), T.ColorJitter(0.3), T.RandAugment()],
    ids=lambda t: type(t).__name__,
)
def test_a_lone_transform_returns_pil(transform):
    assert isinstance(transform(_photo()), PIL.Image.Image)


def test_a_compose_without_a_converter_returns_pil():
    out = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip()])(_photo())
    assert isinstance(out, PIL.Image.Image)


@pytest.mark.parametrize(
    "step",
    [
        lambda: T.Lambda(lambda image: image),
        lambda: (lambda image: image),
        lambda: T.ToDtype(torch.float32, scale=True),
        lambda: T.RandomApply([T.Lambda(lambda image: image)], p=1.0),
        lambda: T.Compose([T.CenterCrop(30), T.PILToTensor(), T.ToPILImage()]),
    ],
    ids=["Lambda", "callable", "ToDtype", "RandomApply(Lambda)", "nested converters"],
)
def test_a_step_that_may_need_pil_keeps_pil(step):
    seen = []

    def spy(image):
        seen.append(type(image))
        return image

    pipeline = T.Compose([T.Resize(40), step(), T.Lambda(spy), T.PILToTensor()])
    assert _pil_path.plan(tuple(pipeline.transforms), _photo()) is None
    out = pipeline(_photo())
    assert seen == [PIL.Image.Image] and type(out) is torch.Tensor


def test_other_modes_keep_pil():
    image = _photo().convert("P")
    pipeline = T.Compose([T.CenterCrop(32), T.PILToTensor()])
    assert _pil_path.plan(tuple(pipeline.transforms), image) is None
    theirs = tv_transforms.Compose([tv_transforms.CenterCrop(32), tv_transforms.PILToTensor()])
    torch.testing.assert_close(pipeline(image), theirs(image))


def test_a_crop_of_the_view_is_a_copy_not_the_pil_memory():
    image = _photo()
    before = np.array(image)
    out = T.Compose([T.CenterCrop(32), T.PILToTensor()])(image)
    assert out.is_contiguous()
    out.fill_(0)  # the caller owns its output
    np.testing.assert_array_equal(np.array(image), before)


@pytest.mark.parametrize("mode, channels", [("RGB", 3), ("RGBA", 4), ("L", 1)])
def test_pil_view_is_the_pixels_without_a_copy(mode, channels):
    image = _photo(mode=mode)
    view = _pil_path.pil_view(image)
    assert view.shape == (channels, image.height, image.width) and view.dtype == torch.uint8
    assert torch.equal(view, _as_tensor(image))
    again = _pil_path.pil_view(image)
    assert view.data_ptr() == again.data_ptr(), "two views of one image share Pillow's memory"


def test_pil_view_outlives_the_image():
    image = _photo()
    expected = _as_tensor(image)
    view = _pil_path.pil_view(image)
    del image
    gc.collect()
    _photo(seed=1)  # new allocations that would reuse freed memory
    assert torch.equal(view, expected)


def test_pil_view_copies_where_pillow_cannot_export(monkeypatch):
    image = _photo()

    def refuse(self, requested_schema=None):
        raise ValueError("Image rows are not contiguous in memory.")

    monkeypatch.setattr(PIL.Image.Image, "__arrow_c_array__", refuse)
    view = _pil_path.pil_view(image)
    assert torch.equal(view, _as_tensor(image))


def test_pil_view_refuses_other_modes():
    with pytest.raises(ValueError, match="pil_view"):
        _pil_path.pil_view(_photo().convert("P"))
