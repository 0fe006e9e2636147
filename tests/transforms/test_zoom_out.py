"""RandomZoomOut: torchvision's draw and result on every kind, and the compilers."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.tv_tensors as tvt

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted, make_image, script_roundtrip, to_torchvision
from tests.transforms.test_scale import _sample

CASES = [
    ({}, {}),
    ({"fill": 127, "side_range": (1.5, 2.0), "p": 1.0}, None),
    ({"fill": {tv_tensors.Image: [1, 2, 3], tv_tensors.Mask: 7}, "p": 0.8},
     {"fill": {tvt.Image: [1, 2, 3], tvt.Mask: 7}, "p": 0.8}),
    ({"side_range": (1.0, 1.0), "p": 1.0}, None),
]


@pytest.mark.parametrize("kwargs, tv_kwargs", CASES)
@pytest.mark.parametrize("format, dtype", [("XYXY", torch.uint8), ("XYWH", torch.float32), ("CXCYWH", torch.uint8)])
def test_matches_torchvision_under_the_same_seed(kwargs, tv_kwargs, format, dtype):
    ours = T.RandomZoomOut(**kwargs)
    theirs = tv_transforms.RandomZoomOut(**(kwargs if tv_kwargs is None else tv_kwargs))
    for seed in range(4):
        height, width = [(17, 23), (40, 31), (64, 64), (9, 50)][seed]
        sample = _sample(seed, height, width, format, dtype)
        torch.manual_seed(seed)
        expected = theirs(to_torchvision(sample))
        torch.manual_seed(seed)
        assert_matches_oracle(ours(sample), expected, what=f"seed {seed}")
        plain = sample["image"].as_subclass(torch.Tensor)
        torch.manual_seed(seed)
        expected = theirs(plain)
        torch.manual_seed(seed)
        assert_matches_oracle(ours(plain), expected, what=f"plain, seed {seed}")


def test_compiles_to_one_graph_with_no_recompiles_across_draws():
    transform = T.RandomZoomOut(fill={tv_tensors.Image: [1, 2, 3], tv_tensors.Mask: 0})
    compiled, counter = compile_counted(transform)
    sizes = set()
    for seed in range(8):
        sample = _sample(seed, 20, 26, "CXCYWH", torch.uint8)
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        assert_matches_oracle(out, expected, what=f"compiled, seed {seed}")
        sizes.add(tuple(out["image"].shape))
    assert counter.frame_count == 1
    assert len(sizes) >= 3  # the unapplied draws (the input size) and several zooms


def test_scripts_and_exports(tmp_path):
    transform = T.RandomZoomOut(fill=[1, 2, 3])
    image = make_image(20, 26)
    loaded = script_roundtrip(transform, tmp_path)
    for seed in range(4):
        torch.manual_seed(seed)
        expected = transform(image)
        torch.manual_seed(seed)
        assert torch.equal(loaded(image), expected)
    module = torch.export.export(transform, (image,)).module()
    assert len({tuple(module(image).shape) for _ in range(12)}) >= 2


def test_batches_are_refused_and_bad_arguments_rejected():
    images = torch.stack([make_image(20, 20) for _ in range(2)])
    with pytest.raises(ValueError, match="RandomZoomOut: its output size is drawn per sample"):
        T.RandomZoomOut()(tv_tensors.BatchedImages(images))
    for kwargs, error, match in [
        ({"side_range": (0.5, 2.0)}, ValueError, "RandomZoomOut: Invalid side range"),
        ({"side_range": (3.0, 2.0)}, ValueError, "RandomZoomOut: Invalid side range"),
        ({"side_range": 2.0}, TypeError, "RandomZoomOut: side_range"),
        ({"p": 1.5}, ValueError, "RandomZoomOut: p"),
        ({"fill": "red"}, TypeError, "RandomZoomOut: Got inappropriate fill arg"),
    ]:
        with pytest.raises(error, match=match):
            T.RandomZoomOut(**kwargs)


def test_eager_draw_equals_the_tensor_draw():
    # The eager draw of make_params (numpy float32 scalars) and the tensor draw of make_batch_params (float32 tensors,
    # what traced and scripted code draw) agree bit for bit.
    for side_range, p in [((1.0, 4.0), 0.5), ((1.3, 1.7), 0.9), ((2.0, 2.0), 1.0)]:
        transform = T.RandomZoomOut(side_range=side_range, p=p)
        for i in range(400):
            height, width = 1 + (i * 37) % 700, 1 + (i * 53) % 900
            image = torch.empty(1, height, width)
            torch.manual_seed(i)
            eager = transform.make_params([image])
            torch.manual_seed(i)
            traced = transform.make_batch_params([image], 1)
            # make_params' torchvision form: the padding as ints, the coin folded in (all 0 where not applied)
            assert eager["padding"] == traced["padding"][0].tolist(), (side_range, p, height, width, i)
            assert any(eager["padding"]) <= bool(traced["apply"][0])
