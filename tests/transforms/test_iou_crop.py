"""RandomIoUCrop: the batched candidate draw is torchvision's rejection loop; forced parameters give torchvision's
result on every kind; one graph under the compiler."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
from torchvision.ops import box_iou

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted, make_image, to_torchvision
from tests.transforms.test_scale import _sample


def _loop(t, xyxy, height, width, u):
    """torchvision 0.29's make_params loop, written out, drawing from the uniforms ``u`` ([rounds, 1 + 4 * trials])
    instead of the global RNG: (box, within) of the first passing crop, or None to leave the sample as it is."""
    for k in range(t.rounds):
        threshold = t.options[min(int(u[k, 0] * len(t.options)), len(t.options) - 1)]
        if threshold >= 1.0:
            return None
        draws = u[k, 1:].reshape(t.trials, 4)
        for d in draws:
            r = t.min_scale + (t.max_scale - t.min_scale) * d[0:2]
            new_w, new_h = int(width * r[0]), int(height * r[1])
            if new_h == 0 or not (t.min_aspect_ratio <= new_w / new_h <= t.max_aspect_ratio):
                continue
            left, top = int((width - new_w) * d[2]), int((height - new_h) * d[3])
            right, bottom = left + new_w, top + new_h
            if left == right or top == bottom:
                continue
            cx, cy = 0.5 * (xyxy[..., 0] + xyxy[..., 2]), 0.5 * (xyxy[..., 1] + xyxy[..., 3])
            within = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
            if not within.any():
                continue
            crop = torch.tensor([[left, top, right, bottom]], dtype=xyxy.dtype)
            if box_iou(xyxy[within], crop).max() < threshold:
                continue
            return [top, left, new_h, new_w], within
    return None


CONFIGS = [
    {},
    {"min_scale": 0.1, "max_scale": 0.6, "min_aspect_ratio": 0.3, "max_aspect_ratio": 3.0, "trials": 10},
    {"sampler_options": [0.3, 0.9], "trials": 5, "rounds": 4},
]


@pytest.mark.parametrize("kwargs", CONFIGS)
@pytest.mark.parametrize("format, dtype", [("XYXY", torch.float32), ("XYWH", torch.int64), ("CXCYWH", torch.float32)])
def test_draw_is_torchvisions_loop_and_forced_parameters_give_torchvisions_result(kwargs, format, dtype):
    ours = T.RandomIoUCrop(**kwargs)
    applied = 0
    for seed in range(12):
        height, width = [(40, 50), (17, 23), (64, 31)][seed % 3]
        sample = _sample(seed, height, width, format, torch.uint8)
        boxes = sample["boxes"]
        sample["boxes"] = tv_tensors.BoundingBoxes(
            boxes.as_subclass(torch.Tensor).to(dtype), format=format, canvas_size=boxes.canvas_size
        )
        torch.manual_seed(seed)
        params = ours.make_params(list(sample.values()))
        torch.manual_seed(seed)
        uniforms = torch.rand(ours.rounds, 1 + 4 * ours.trials)
        xyxy = F.convert_bounding_box_format(sample["boxes"], new_format="XYXY").as_subclass(torch.Tensor)
        expected = _loop(ours, xyxy, height, width, uniforms)
        if expected is None:
            assert params == {}, f"seed {seed}: torchvision's loop leaves the sample as it is"
            assert ours.transform(sample["image"], params) is sample["image"]
            continue
        applied += 1
        box, within = expected
        drawn = [params["top"], params["left"], params["height"], params["width"]]  # torchvision's keys
        assert drawn == box, f"seed {seed}: {drawn} != {box}"
        assert torch.equal(params["is_within_crop_area"], within)
        forced = {"top": box[0], "left": box[1], "height": box[2], "width": box[3], "is_within_crop_area": within}
        theirs = tv_transforms.RandomIoUCrop()
        tv_sample = to_torchvision(sample)
        expected_out = {k: theirs.transform(v, forced) if k != "labels" else v for k, v in tv_sample.items()}
        out = {k: ours.transform(v, dict(params)) if k != "labels" else v for k, v in sample.items()}
        assert_matches_oracle(out, expected_out, what=f"seed {seed}")
    assert applied >= 3


def test_whole_sample_through_the_class():
    # The class on a sample: every leaf cropped alike, boxes outside zeroed, labels untouched.
    transform = T.RandomIoUCrop()
    for seed in range(6):
        sample = _sample(seed, 40, 50, "XYXY", torch.uint8)
        torch.manual_seed(seed)
        params = transform.make_params(list(sample.values()))
        torch.manual_seed(seed)
        out = transform(sample)
        if params == {}:  # torchvision's form of "left as it is"
            assert out["image"] is sample["image"] and out["boxes"] is sample["boxes"]
            continue
        top, left, height, width = params["top"], params["left"], params["height"], params["width"]
        assert out["image"].shape[-2:] == (height, width) == out["masks"].shape[-2:] == out["video"].shape[-2:]
        assert tuple(out["boxes"].canvas_size) == (height, width) == tuple(out["points"].canvas_size)
        torch.testing.assert_close(out["image"], sample["image"][..., top : top + height, left : left + width])
        assert (out["boxes"][~params["is_within_crop_area"]] == 0).all()
        assert out["labels"] is sample["labels"]


def test_option_frequencies_follow_the_loop():
    # With boxes covering the image every crop passes: the sample is left as it is exactly when the first option
    # drawn is 1.0 (probability 1/7 with the default options).
    transform = T.RandomIoUCrop()
    boxes = tv_tensors.BoundingBoxes(torch.tensor([[0.0, 0, 50, 40]]), format="XYXY", canvas_size=(40, 50))
    image = tv_tensors.Image(make_image(40, 50))
    torch.manual_seed(0)
    left_alone = sum(transform.make_params([image, boxes]) == {} for _ in range(700))
    assert abs(left_alone - 100) <= 4 * (700 * (1 / 7) * (6 / 7)) ** 0.5, left_alone


def test_compiles_to_one_graph_with_no_recompiles_across_draws_and_boxes():
    # The boxes differ in every call (their number is the input's shape: a new number is a new input shape).
    transform = T.RandomIoUCrop()
    compiled, counter = compile_counted(transform)
    sizes = set()
    for seed in range(6):
        sample = _sample(seed, 40, 50, "CXCYWH", torch.uint8)
        del sample["video"]
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        assert_matches_oracle(out, expected, what=f"seed {seed}")
        sizes.add(tuple(out["image"].shape))
    assert counter.frame_count == 1
    assert len(sizes) >= 3


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"min_scale": 0.8, "max_scale": 0.5}, "RandomIoUCrop: the scale range"),
        ({"min_scale": 0.0}, "RandomIoUCrop: the scale range"),
        ({"max_scale": 1.5}, "RandomIoUCrop: the scale range"),
        ({"min_aspect_ratio": 2.0, "max_aspect_ratio": 1.0}, "RandomIoUCrop: the aspect ratio range"),
        ({"min_aspect_ratio": -1.0}, "RandomIoUCrop: the aspect ratio range"),
        ({"sampler_options": []}, "RandomIoUCrop: sampler_options"),
        ({"trials": 0}, "RandomIoUCrop: trials"),
        ({"rounds": 0}, "RandomIoUCrop: rounds"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        T.RandomIoUCrop(**kwargs)


def test_bad_samples_are_rejected():
    image = tv_tensors.Image(make_image(20, 20))
    with pytest.raises(TypeError, match="RandomIoUCrop: requires input sample to contain tensor or PIL images"):
        T.RandomIoUCrop()(image)
    with pytest.raises(TypeError, match="RandomIoUCrop.*cannot be scripted"):
        torch.jit.script(T.RandomIoUCrop())
    with pytest.raises(TypeError, match="RandomIoUCrop: requires input sample to contain"):
        T.RandomIoUCrop()({"boxes": tv_tensors.BoundingBoxes(torch.zeros(1, 4), format="XYXY", canvas_size=(4, 4))})
    batch = tv_tensors.BatchedImages(torch.stack([make_image(20, 20)] * 2))
    boxes = tv_tensors.BatchedBoundingBoxes(
        torch.tensor([[0.0, 0, 4, 4]]), format="XYXY", canvas_size=(20, 20), sample_index=[0], batch_size=2
    )
    with pytest.raises(ValueError, match="RandomIoUCrop: its output size is drawn per sample"):
        T.RandomIoUCrop()({"image": batch, "boxes": boxes})


@pytest.mark.parametrize("size", [1, 20])
def test_no_boxes_and_rotated_boxes(size):
    # No boxes: nothing can pass (no centre inside a crop), so the sample comes back whole, as torchvision's loop
    # ends on a "leave" option; rotated boxes are refused naming the transform (torchvision's XYXY step refuses them).
    image = tv_tensors.Image(torch.randint(0, 256, (3, size, size), dtype=torch.uint8))
    empty = tv_tensors.BoundingBoxes(torch.zeros(0, 4), format="XYXY", canvas_size=(size, size))
    for seed in range(10):
        torch.manual_seed(seed)
        out = T.RandomIoUCrop()({"image": image, "boxes": empty})
        assert out["image"].shape == image.shape and out["boxes"].shape == (0, 4)
    rotated = tv_tensors.BoundingBoxes(torch.tensor([[2.0, 2, 5, 5, 30]]), format="XYWHR", canvas_size=(size, size))
    with pytest.raises(ValueError, match="RandomIoUCrop"):
        T.RandomIoUCrop()({"image": image, "boxes": rotated})
