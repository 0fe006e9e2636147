"""ScaleJitter, RandomShortestSize, RandomResize: torchvision's draw and result on every kind, and the compilers."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    compile_counted,
    make_boxes,
    make_image,
    make_keypoints,
    script_roundtrip,
    to_torchvision,
)

CASES = [
    ("ScaleJitter", {"target_size": (30, 20)}),
    ("ScaleJitter", {"target_size": (64, 48), "scale_range": (0.5, 1.5), "interpolation": "nearest"}),
    ("RandomShortestSize", {"min_size": [10, 15, 40], "max_size": 50}),
    ("RandomShortestSize", {"min_size": 24, "antialias": False}),
    ("RandomResize", {"min_size": 8, "max_size": 40}),
    ("RandomResize", {"min_size": 20, "max_size": 21, "interpolation": "bicubic"}),
]


def _sample(seed: int, height: int, width: int, format: str, dtype: torch.dtype) -> dict:
    torch.manual_seed(1000 + seed)
    return {
        "image": tv_tensors.Image(make_image(height, width, dtype)),
        "video": tv_tensors.Video(make_image(height, width, dtype, batch=(2,))),
        "boxes": make_boxes((height, width), format=format, num_boxes=4),
        "masks": tv_tensors.Mask(torch.randint(0, 2, (4, height, width), dtype=torch.uint8)),
        "points": make_keypoints((height, width)),
        "labels": torch.arange(4),
    }


@pytest.mark.parametrize("name, kwargs", CASES)
@pytest.mark.parametrize("format, dtype", [("XYXY", torch.uint8), ("XYWH", torch.float32), ("CXCYWH", torch.uint8)])
def test_matches_torchvision_under_the_same_seed(name, kwargs, format, dtype):
    ours, theirs = getattr(T, name)(**kwargs), getattr(tv_transforms, name)(**kwargs)
    for seed in range(3):
        height, width = [(17, 23), (40, 31), (64, 64)][seed]
        sample = _sample(seed, height, width, format, dtype)
        torch.manual_seed(seed)
        expected = theirs(to_torchvision(sample))
        torch.manual_seed(seed)
        assert_matches_oracle(ours(sample), expected, what=f"{name} seed {seed}")
        torch.manual_seed(seed)
        expected = theirs(sample["image"].as_subclass(torch.Tensor))
        torch.manual_seed(seed)
        assert_matches_oracle(ours(sample["image"].as_subclass(torch.Tensor)), expected, what=f"{name} plain")


@pytest.mark.parametrize("name, kwargs", CASES[::2])
def test_compiles_to_one_graph_with_no_recompiles_across_draws(name, kwargs):
    transform = getattr(T, name)(**kwargs)
    compiled, counter = compile_counted(transform)
    sizes = set()
    for seed in range(6):
        sample = _sample(seed, 40, 31, "XYXY", torch.uint8)
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        # the compiled draw is the eager one (same stream), so the outputs are equal
        assert_matches_oracle(out, expected, what=f"{name} compiled")
        assert tuple(out["boxes"].canvas_size) == tuple(out["image"].shape[-2:])
        sizes.add(tuple(out["image"].shape))
    assert counter.frame_count == 1
    assert len(sizes) >= 2


@pytest.mark.parametrize("name, kwargs", CASES[::2])
def test_scripts_and_exports(name, kwargs, tmp_path):
    transform = getattr(T, name)(**kwargs)
    image = make_image(40, 31)
    loaded = script_roundtrip(transform, tmp_path)
    torch.manual_seed(3)
    expected = transform(image)
    torch.manual_seed(3)
    assert torch.equal(loaded(image), expected)
    module = torch.export.export(transform, (image,)).module()
    assert len({tuple(module(image).shape) for _ in range(12)}) >= 2


@pytest.mark.parametrize("name, kwargs", CASES[::2])
def test_batches_are_refused_naming_the_transform(name, kwargs):
    images = torch.stack([make_image(20, 20) for _ in range(2)])
    with pytest.raises(ValueError, match=f"{name}: its output size is drawn per sample"):
        getattr(T, name)(**kwargs)(tv_tensors.BatchedImages(images))
    with pytest.raises(ValueError, match=name):
        getattr(T, name)(**kwargs).forward_batch(images)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: T.ScaleJitter((0, 20)), ValueError, "ScaleJitter: target_size must be positive"),
        (lambda: T.ScaleJitter(20), TypeError, "ScaleJitter: target_size"),
        (lambda: T.ScaleJitter((20, 20), scale_range=(2.0, 1.0)), ValueError, "ScaleJitter: scale_range"),
        (lambda: T.ScaleJitter((20, 20), scale_range=(0.0, 1.0)), ValueError, "ScaleJitter: scale_range"),
        (lambda: T.ScaleJitter((20, 20), antialias="yes"), TypeError, "ScaleJitter: antialias"),
        (lambda: T.RandomShortestSize([10, -1]), ValueError, "RandomShortestSize: min_size must be positive"),
        (lambda: T.RandomShortestSize([]), TypeError, "RandomShortestSize: min_size"),
        (lambda: T.RandomShortestSize(10, max_size=0), ValueError, "RandomShortestSize: max_size"),
        (lambda: T.RandomResize(0, 10), ValueError, "RandomResize: min_size must be positive"),
        (lambda: T.RandomResize(10, 10), ValueError, "RandomResize: min_size must be smaller"),
        (lambda: T.RandomResize(10, 20, interpolation="nope"), ValueError, "RandomResize"),
    ],
)
def test_bad_arguments_are_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()
