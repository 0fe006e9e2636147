"""The worked example of the random-transform contract (docs/design/batches.md) runs as written: on a detection
sample it changes the image only and keeps the leaves' types, per sample on a batch, compiled and scripted."""

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from jitvision import tv_tensors
from tests.helpers import make_detection_sample, make_keypoints

PAGE = Path(__file__).resolve().parents[2] / "docs" / "design" / "batches.md"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The page's block that defines RandomBrightness, imported from a file (TorchScript reads the source)."""
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)
    (block,) = [b for b in blocks if "class RandomBrightness" in b]
    path = tmp_path_factory.mktemp("contract") / "contract_example.py"
    path.write_text(block)
    spec = importlib.util.spec_from_file_location("contract_example", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["contract_example"] = module
    spec.loader.exec_module(module)
    return module


def _sample() -> dict:
    sample = make_detection_sample(20, 24)
    sample["keypoints"] = make_keypoints((20, 24))
    return sample


def _assert_only_the_image_changed(out: dict, sample: dict) -> None:
    for key in ("boxes", "masks", "keypoints", "labels"):
        assert type(out[key]) is type(sample[key]), key
        assert torch.equal(out[key].as_subclass(torch.Tensor), sample[key].as_subclass(torch.Tensor)), key
    assert out["boxes"].canvas_size == sample["boxes"].canvas_size
    assert type(out["image"]) is tv_tensors.Image


def test_random_brightness_example_on_a_detection_sample(example):
    sample = _sample()
    transform = example.RandomBrightness()
    torch.manual_seed(0)
    out = transform(sample)
    _assert_only_the_image_changed(out, sample)
    torch.manual_seed(0)
    factor = transform._draw([], 20, 24, torch.device("cpu"))["factor"]
    expected = example.brighten(sample["image"].as_subclass(torch.Tensor), factor)
    assert torch.equal(out["image"].as_subclass(torch.Tensor), expected)
    assert not torch.equal(out["image"], sample["image"])
    # compiled in one graph: the same result for the seed
    compiled = torch.compile(transform, fullgraph=True, backend="eager")
    torch.manual_seed(0)
    traced = compiled(sample)
    _assert_only_the_image_changed(traced, sample)
    assert torch.equal(traced["image"].as_subclass(torch.Tensor), expected)


def test_random_brightness_example_per_sample_batches_and_script(example):
    transform = example.RandomBrightness()
    images = torch.full((4, 3, 8, 8), 100, dtype=torch.uint8)
    torch.manual_seed(1)
    batch = transform(tv_tensors.BatchedImages(images))
    assert type(batch) is tv_tensors.BatchedImages
    assert len({int(row[0, 0, 0]) for row in batch}) > 1  # one factor per sample
    scripted = torch.jit.script(transform)
    torch.manual_seed(2)
    expected = transform(images[0])
    torch.manual_seed(2)
    assert torch.equal(scripted(images[0]), expected)


def test_random_invert_example_on_a_detection_sample(example):
    sample = _sample()
    out = example.RandomInvert(p=1.0)(sample)
    _assert_only_the_image_changed(out, sample)
    assert torch.equal(out["image"].as_subclass(torch.Tensor), 255 - sample["image"].as_subclass(torch.Tensor))
