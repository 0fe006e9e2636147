"""The SSD-style detection pipeline: PhotometricDistort, ZoomOut, IoUCrop, flip, fixed-size Resize, Sanitize, on an
(image, boxes, masks, labels) sample: eager, compiled (one graph) and exported, with every kept box inside the image
and still paired with its label and its mask."""

import torch

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted

SIZE = 64


def detection_sample(seed: int, height: int = 60, width: int = 80, num: int = 8) -> dict:
    """Boxes with integer corners; mask i is exactly box i's pixels; label i is i + 1."""
    g = torch.Generator().manual_seed(seed)
    image = tv_tensors.Image(torch.randint(0, 256, (3, height, width), dtype=torch.uint8, generator=g))
    top_left = (torch.rand(num, 2, generator=g) * torch.tensor([width - 12.0, height - 12.0])).floor()
    extent = (torch.rand(num, 2, generator=g) * 10 + 2).floor()
    xyxy = torch.cat([top_left, top_left + extent], 1)
    masks = torch.zeros(num, height, width, dtype=torch.uint8)
    for i, (x1, y1, x2, y2) in enumerate(xyxy.long().tolist()):
        masks[i, y1:y2, x1:x2] = 1
    return {
        "image": image,
        "boxes": tv_tensors.BoundingBoxes(xyxy, format="XYXY", canvas_size=(height, width)),
        "masks": tv_tensors.Mask(masks),
        "labels": torch.arange(num) + 1,
    }


def pipeline() -> T.Compose:
    return T.Compose(
        [
            T.RandomPhotometricDistort(),
            T.RandomZoomOut(),
            T.RandomIoUCrop(),
            T.RandomHorizontalFlip(),
            T.Resize((SIZE, SIZE)),
            T.SanitizeBoundingBoxes(),
        ]
    )


def assert_consistent(out: dict, sample: dict, typed: bool = True) -> None:
    image, boxes, masks, labels = out["image"], out["boxes"], out["masks"], out["labels"]
    assert image.shape == (3, SIZE, SIZE) and masks.shape[-2:] == (SIZE, SIZE)
    if typed:  # an exported program returns plain tensors
        assert type(image) is tv_tensors.Image and type(masks) is tv_tensors.Mask
        assert tuple(boxes.canvas_size) == (SIZE, SIZE)
    n = boxes.shape[0]
    assert masks.shape[0] == n and labels.shape[0] == n
    # labels: a subset of the input's, in order (each box keeps its own label)
    assert set(labels.tolist()) <= set(sample["labels"].tolist()) and labels.tolist() == sorted(labels.tolist())
    plain = boxes.as_subclass(torch.Tensor)
    assert (plain[:, 0] >= 0).all() and (plain[:, 1] >= 0).all()
    assert (plain[:, 2] <= SIZE).all() and (plain[:, 3] <= SIZE).all()
    assert ((plain[:, 2] - plain[:, 0]) >= 1).all() and ((plain[:, 3] - plain[:, 1]) >= 1).all()
    for box, mask in zip(plain.tolist(), masks.as_subclass(torch.Tensor)):
        ys, xs = torch.nonzero(mask, as_tuple=True)
        if ys.numel():  # the mask's pixels lie in its box (nearest resize: within a pixel of the edge)
            assert xs.min() >= box[0] - 1.5 and xs.max() + 1 <= box[2] + 1.5, (box, xs.min(), xs.max())
            assert ys.min() >= box[1] - 1.5 and ys.max() + 1 <= box[3] + 1.5, (box, ys.min(), ys.max())


def test_eager_keeps_boxes_masks_and_labels_together():
    transform = pipeline()
    counts = set()
    for seed in range(12):
        sample = detection_sample(seed)
        torch.manual_seed(seed)
        out = transform(sample)
        assert_consistent(out, sample)
        counts.add(out["boxes"].shape[0])
    assert len(counts) >= 2  # boxes were dropped in some samples


def test_compiled_is_one_graph_with_no_recompiles_and_equals_eager():
    transform = pipeline()
    compiled, counter = compile_counted(transform)
    for seed in range(5):
        sample = detection_sample(seed)
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        assert_consistent(out, sample)
        assert_matches_oracle(out, expected, what=f"seed {seed}")
    assert counter.frame_count == 1


class _Module(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pipeline = pipeline()

    def forward(self, sample: dict) -> dict:
        return self.pipeline(sample)


def test_exports_and_stays_random_and_consistent():
    program = torch.export.export(_Module(), (detection_sample(0),), strict=True)
    module = program.module()
    sample = detection_sample(1)
    outputs = [module(sample) for _ in range(4)]
    for out in outputs:
        assert_consistent(out, sample, typed=False)
    assert any(not torch.equal(outputs[0]["image"], o["image"]) for o in outputs[1:])


def test_bad_samples_name_the_transform():
    import pytest

    sample = detection_sample(0)
    del sample["labels"]
    torch.manual_seed(0)
    with pytest.raises(ValueError, match="SanitizeBoundingBoxes: Could not infer where the labels are"):
        pipeline()(sample)
    no_boxes = {"image": detection_sample(0)["image"], "labels": torch.arange(3)}
    with pytest.raises(TypeError, match="RandomIoUCrop: requires input sample to contain"):
        pipeline()(no_boxes)


def test_a_batch_runs_the_drawn_size_steps_sample_by_sample_up_to_the_fixed_resize():
    steps = [T.RandomZoomOut(), T.RandomIoUCrop(), T.RandomHorizontalFlip(), T.Resize((SIZE, SIZE))]
    samples = [detection_sample(seed) for seed in range(4)]
    torch.manual_seed(7)
    batch = T.Compose([*steps, T.SanitizeBoundingBoxes()])(tv_tensors.batch_samples(samples))
    assert type(batch["image"]) is tv_tensors.BatchedImages and batch["image"].shape == (4, 3, SIZE, SIZE)
    torch.manual_seed(7)
    expected = [T.Compose(steps)(sample) for sample in samples]  # the same draws, one sample after the other
    outputs = tv_tensors.unbatch_samples(batch)
    for out, want, sample in zip(outputs, expected, samples):
        assert_consistent(out, sample)
        kept = T.SanitizeBoundingBoxes()(want)
        assert_matches_oracle(out, kept)
    assert len({tuple(o["boxes"].shape) for o in outputs} | {o["image"].sum().item() for o in outputs}) > 2
    images = torch.stack([s["image"].as_subclass(torch.Tensor) for s in samples])
    torch.manual_seed(3)
    rows = T.Compose([T.RandomZoomOut(p=1.0), T.Resize((SIZE, SIZE))]).forward_batch(images)
    torch.manual_seed(3)
    one_by_one = [T.Compose([T.RandomZoomOut(p=1.0), T.Resize((SIZE, SIZE))])(image) for image in images]
    torch.testing.assert_close(rows, torch.stack(one_by_one), rtol=0, atol=0)
