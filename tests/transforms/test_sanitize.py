"""sanitize_bounding_boxes / sanitize_keypoints and SanitizeBoundingBoxes / SanitizeKeyPoints against torchvision."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted, make_image, to_torchvision

H, W = 20, 30


def _boxes(seed: int, num: int = 12, format: str = "XYXY", dtype=torch.float32) -> tv_tensors.BoundingBoxes:
    # Boxes of every kind: inside, degenerate, tiny, crossing each border.
    g = torch.Generator().manual_seed(seed)
    x1 = torch.rand(num, generator=g) * (W + 6) - 3
    y1 = torch.rand(num, generator=g) * (H + 6) - 3
    w = torch.rand(num, generator=g) * 8 - 0.5
    h = torch.rand(num, generator=g) * 8 - 0.5
    xyxy = torch.stack([x1, y1, x1 + w, y1 + h], -1)
    if not dtype.is_floating_point:
        xyxy = xyxy.round()
    boxes = tv_tensors.BoundingBoxes(xyxy.to(dtype), format="XYXY", canvas_size=(H, W))
    return F.convert_bounding_box_format(boxes, new_format=format)


def _keypoints(seed: int, shape=(10,)) -> tv_tensors.KeyPoints:
    g = torch.Generator().manual_seed(seed)
    points = torch.rand(*shape, 2, generator=g) * torch.tensor([W + 4.0, H + 4.0]) - 2
    return tv_tensors.KeyPoints(points, canvas_size=(H, W))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("format", ["XYXY", "XYWH", "CXCYWH"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("kwargs", [{}, {"min_size": 2.0}, {"min_size": 0.3, "min_area": 4.0}])
def test_sanitize_bounding_boxes_matches_torchvision(seed, format, dtype, kwargs):
    boxes = _boxes(seed, format=format, dtype=dtype)
    assert_matches_oracle(F.sanitize_bounding_boxes(boxes, **kwargs), tv_functional.sanitize_bounding_boxes(
        to_torchvision(boxes), **kwargs))
    plain = boxes.as_subclass(torch.Tensor)
    meta = {"format": format, "canvas_size": (H, W)}
    expected = tv_functional.sanitize_bounding_boxes(plain, **meta, **kwargs)
    assert_matches_oracle(F.sanitize_bounding_boxes(plain, **meta, **kwargs), expected)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", [(10,), (6, 3)])
def test_sanitize_keypoints_matches_torchvision(seed, shape):
    points = _keypoints(seed, shape)
    assert_matches_oracle(F.sanitize_keypoints(points), tv_functional.sanitize_keypoints(to_torchvision(points)))
    plain = points.as_subclass(torch.Tensor)
    assert_matches_oracle(
        F.sanitize_keypoints(plain, canvas_size=(H, W)), tv_functional.sanitize_keypoints(plain, canvas_size=(H, W))
    )


def _detection(seed: int, label_key: str = "labels") -> dict:
    boxes = _boxes(seed)
    n = boxes.shape[0]
    return {
        "image": tv_tensors.Image(make_image(H, W)),
        "boxes": boxes,
        "masks": tv_tensors.Mask(torch.randint(0, 2, (n, H, W), dtype=torch.uint8)),
        label_key: torch.arange(n),
        "other": torch.arange(n) * 2,
        "points": _keypoints(seed, (n,)),
    }


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "make_sample, kwargs",
    [
        (lambda s: _detection(s), {}),
        (lambda s: _detection(s, "Labels"), {"min_size": 2.0}),
        (lambda s: _detection(s, "my_label_ids"), {"min_area": 3.0}),
        (lambda s: (_detection(s)["image"], _detection(s)), {}),
        (lambda s: (_detection(s)["image"], _detection(s)["boxes"]), {"labels_getter": None}),
        (lambda s: _detection(s), {"labels_getter": lambda sample: (sample["labels"], sample["other"])}),
        (lambda s: _detection(s), {"labels_getter": None}),
    ],
)
def test_sanitize_bounding_boxes_class_matches_torchvision(seed, make_sample, kwargs):
    sample = make_sample(seed)
    ours = T.SanitizeBoundingBoxes(**kwargs)(sample)
    theirs = tv_transforms.SanitizeBoundingBoxes(**kwargs)(to_torchvision(sample))
    assert_matches_oracle(ours, theirs)


@pytest.mark.parametrize("kwargs", [{}, {"labels_getter": "default"}])
def test_sanitize_keypoints_class_matches_torchvision(kwargs):
    sample = {"points": _keypoints(1, (8,)), "labels": torch.arange(8), "masks": tv_tensors.Mask(torch.zeros(8, 4, 4))}
    assert_matches_oracle(T.SanitizeKeyPoints(**kwargs)(sample), tv_transforms.SanitizeKeyPoints(**kwargs)(
        to_torchvision(sample)))


def test_sanitize_on_a_batch_keeps_each_sample_with_its_labels():
    samples = [_detection(seed) for seed in range(3)]
    for sample in samples:
        del sample["other"], sample["points"]
    out = tv_tensors.unbatch_samples(T.SanitizeBoundingBoxes()(tv_tensors.batch_samples(samples)))
    for got, sample in zip(out, samples):
        assert_matches_oracle(got, T.SanitizeBoundingBoxes()(sample))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: F.sanitize_bounding_boxes(torch.rand(3, 4)), ValueError, "canvas_size cannot"),
        (lambda: F.sanitize_bounding_boxes(_boxes(0), format="XYXY"), ValueError, "canvas_size must be"),
        (lambda: F.sanitize_bounding_boxes(tv_tensors.Mask(torch.zeros(2, 3))), ValueError, "sanitize_bounding_boxes"),
        (lambda: F.sanitize_keypoints(torch.rand(3, 2)), ValueError, "sanitize_keypoints: canvas_size cannot be None"),
        (lambda: T.SanitizeBoundingBoxes(min_size=0.5), ValueError, "SanitizeBoundingBoxes: min_size"),
        (lambda: T.SanitizeBoundingBoxes(min_area=0), ValueError, "SanitizeBoundingBoxes: min_area"),
        (lambda: T.SanitizeBoundingBoxes(labels_getter=3), ValueError, "SanitizeBoundingBoxes: labels_getter"),
        (lambda: T.SanitizeBoundingBoxes()({"boxes": _boxes(0)}), ValueError, "SanitizeBoundingBoxes: Could not infer"),
        (lambda: T.SanitizeBoundingBoxes()({"labels": torch.arange(3)}), ValueError, "no BoundingBoxes"),
        (lambda: T.SanitizeBoundingBoxes()(_boxes(0)), ValueError, "SanitizeBoundingBoxes: When using the default"),
        (lambda: T.SanitizeBoundingBoxes()({"boxes": _boxes(0), "labels": [1, 2]}), ValueError, "labels must be"),
        (lambda: T.SanitizeBoundingBoxes()({"boxes": _boxes(0), "labels": torch.arange(3)}), ValueError, "one row"),
        (lambda: torch.jit.script(T.SanitizeBoundingBoxes()), TypeError, "SanitizeBoundingBoxes.*cannot be scripted"),
    ],
)
def test_bad_input_is_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("position", ["last", "middle"])
def test_compiled_sanitize_is_one_graph_with_no_recompiles_across_data(position):
    # The number of boxes kept depends on the data; dynamo gives it an unbacked size: one graph, no recompiles.
    steps = [T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)]
    steps.insert(2 if position == "last" else 1, T.SanitizeBoundingBoxes())
    pipeline = T.Compose(steps)
    compiled, counter = compile_counted(pipeline)
    for seed in range(6):
        sample = _detection(seed)
        torch.manual_seed(seed)
        expected = pipeline(sample)
        torch.manual_seed(seed)
        assert_matches_oracle(compiled(sample), expected)
    assert counter.frame_count == 1


def _boxes_beside(mask_shape: tuple) -> dict:
    # Two boxes, the second below min_size: one row is kept, one dropped.
    boxes = tv_tensors.BoundingBoxes(torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 5.5, 5.5]]), format="XYXY",
                                     canvas_size=(H, W))
    mask = tv_tensors.Mask(torch.randint(0, 3, mask_shape, generator=torch.Generator().manual_seed(0)))
    return {"boxes": boxes, "masks": mask, "labels": torch.tensor([1, 2])}


@pytest.mark.parametrize("mask_shape", [(H, W), (1, H, W), (3, H, W), (2, H, W), (2, W), ()])
def test_masks_without_one_row_per_box_pass_through_as_in_torchvision(mask_shape):
    # A semantic Mask[H, W] (or any mask whose leading dimension is not the number of boxes) is passed through;
    # a leading dimension equal to it is filtered by rows, whatever the mask means: torchvision's rule.
    sample = _boxes_beside(mask_shape)
    assert_matches_oracle(T.SanitizeBoundingBoxes()(sample),
                          tv_transforms.SanitizeBoundingBoxes()(to_torchvision(sample)))


def test_other_boxes_of_another_length_pass_through_and_labels_still_must_match():
    sample = _boxes_beside((H, W))
    sample["more_boxes"] = tv_tensors.BoundingBoxes(torch.rand(3, 4) * 5, format="XYWH", canvas_size=(H, W))
    assert_matches_oracle(T.SanitizeBoundingBoxes()(sample),
                          tv_transforms.SanitizeBoundingBoxes()(to_torchvision(sample)))
    sample["labels"] = torch.arange(3)
    with pytest.raises(ValueError, match="SanitizeBoundingBoxes"):
        T.SanitizeBoundingBoxes()(sample)


def test_compiled_sanitize_passes_a_semantic_mask_through():
    pipeline = T.Compose([T.RandomHorizontalFlip(p=1.0), T.SanitizeBoundingBoxes()])
    compiled, counter = compile_counted(pipeline)
    for seed in range(3):
        sample = _boxes_beside((H, W))
        sample["image"] = tv_tensors.Image(make_image(H, W))
        sample["masks"] = tv_tensors.Mask(torch.randint(0, 3, (H, W), generator=torch.Generator().manual_seed(seed)))
        out = compiled(sample)
        assert out["masks"].shape == (H, W)
        assert_matches_oracle(out, pipeline(sample))
    assert counter.frame_count == 1
