"""Ragged batch tv_tensors under torch.export: their sample_index is a live graph input (tv_tensors._batch_pytree)."""

import pytest
import torch
from torch.utils import _pytree as pytree

from jitvision import transforms as T
from jitvision import tv_tensors
from jitvision.tv_tensors._batch_pytree import sample_leaf


def _detection_batch(objects, height=24, width=30):
    samples = []
    for count in objects:
        x1 = torch.rand(count) * (width / 2)
        y1 = torch.rand(count) * (height / 2)
        boxes = torch.stack([x1, y1, x1 + 2 + torch.rand(count) * 10, y1 + 2 + torch.rand(count) * 8], dim=-1)
        samples.append(
            {
                "image": tv_tensors.Image(torch.randint(0, 256, (3, height, width), dtype=torch.uint8)),
                "boxes": tv_tensors.BoundingBoxes(boxes, format="XYXY", canvas_size=(height, width)),
                "masks": tv_tensors.Mask(torch.randint(0, 2, (count, height, width), dtype=torch.uint8)),
            }
        )
    return tv_tensors.batch_samples(samples)


def _assert_same(actual, expected):
    assert set(actual) == set(expected)
    for key in expected:
        a, e = actual[key], expected[key]
        assert isinstance(a, torch.Tensor) and type(a.as_subclass(torch.Tensor)) is torch.Tensor  # real, not fake
        torch.testing.assert_close(a.as_subclass(torch.Tensor), e.as_subclass(torch.Tensor), rtol=0, atol=1e-4)
        if isinstance(e, (tv_tensors.BatchedBoundingBoxes, tv_tensors.BatchedMasks)):
            assert type(a) is type(e)
            assert torch.equal(a.sample_index, e.sample_index) and a.batch_size == e.batch_size


@pytest.mark.parametrize(
    "transform",
    [T.RandomHorizontalFlip(p=0.5), T.RandomAffine(degrees=30, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)],
    ids=["RandomHorizontalFlip", "RandomAffine"],
)
def test_export_detection_batch_matches_eager_and_stays_random(transform):
    torch.manual_seed(1)
    batch = _detection_batch([3, 1])
    program = torch.export.export(transform, (batch,), strict=True)
    exported = program.module()
    for seed in (0, 7):
        torch.manual_seed(seed)
        actual = exported(batch)
        torch.manual_seed(seed)
        expected = transform(batch)
        _assert_same(actual, expected)
    # The index is an input, not a constant: another batch with as many rows, split differently.
    other = _detection_batch([2, 2])
    torch.manual_seed(3)
    actual = exported(other)
    torch.manual_seed(3)
    _assert_same(actual, transform(other))
    # Per-sample draws stay live across calls.
    outputs = {exported(batch)["boxes"].as_subclass(torch.Tensor).numpy().tobytes() for _ in range(10)}
    assert len(outputs) > 1


def test_ragged_batch_pytree_round_trip():
    batch = _detection_batch([2, 3])
    leaves, spec = pytree.tree_flatten(batch)
    # boxes and masks each give their data and their sample_index
    assert sum(1 for leaf in leaves if isinstance(leaf, torch.Tensor)) == 5
    rebuilt = pytree.tree_unflatten(leaves, spec)
    for key in ("boxes", "masks"):
        assert type(rebuilt[key]) is type(batch[key])
        assert torch.equal(rebuilt[key].sample_index, batch[key].sample_index)
        assert torch.equal(rebuilt[key].as_subclass(torch.Tensor), batch[key].as_subclass(torch.Tensor))
    assert rebuilt["boxes"].format == batch["boxes"].format
    assert rebuilt["boxes"].canvas_size == batch["boxes"].canvas_size
    # Inside jitvision a sample's tv_tensors stay leaves.
    assert pytree.tree_leaves(batch, is_leaf=sample_leaf) == [batch["image"], batch["boxes"], batch["masks"]]
