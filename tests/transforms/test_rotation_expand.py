"""RandomRotation(expand=True) under torch.compile and torch.export: the output size follows the drawn angle in one
graph (drawn sizes), with eager's result for the same seed, on plain tensors, Image and detection samples."""

import random

import pytest
import torch

import jitvision.transforms as T
from jitvision import tv_tensors
from jitvision.transforms._geometry._rotate_expand import expanded_canvas, expanded_image_size
from jitvision.transforms.functional._geometry._rotate import _points_expanded_canvas, rotation_inverse_list
from jitvision.transforms.functional._geometry._warp_matrix import expanded_size
from tests.helpers import (
    assert_matches_oracle,
    compile_counted,
    make_boxes,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
)

H, W = 30, 40


def _input(kind):
    if kind == "uint8":
        return make_image(H, W)
    if kind == "float":
        return make_image(H, W, torch.float32)
    if kind == "Image":
        return tv_tensors.Image(make_image(H, W))
    return {
        "image": tv_tensors.Image(make_image(H, W)),
        "boxes": make_boxes((H, W), format="CXCYWH"),
        "masks": make_mask(H, W, num_objects=3),
        "points": make_keypoints((H, W)),
        "labels": torch.arange(5),
    }


def _plain(leaf):
    return leaf.as_subclass(torch.Tensor) if isinstance(leaf, torch.Tensor) else leaf


def _sizes(out):
    leaves = torch.utils._pytree.tree_leaves(out)
    return tuple(tuple(leaf.shape[-2:]) for leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.ndim >= 3)


def test_traced_sizes_are_eager_sizes():
    # The tensor arithmetic the traced path uses against the Python arithmetic F.rotate uses, over random angles
    # (float32 draws, as RandomRotation draws them), image sizes and centres.
    rng = random.Random(0)
    for _ in range(1500):
        height, width = rng.randint(1, 300), rng.randint(1, 300)
        angle = float(torch.tensor(rng.uniform(-400.0, 400.0), dtype=torch.float32))
        center = None if rng.random() < 0.5 else [rng.uniform(0, width), rng.uniform(0, height)]
        centred = [0.0, 0.0] if center is None else [center[0] - 0.5 * width, center[1] - 0.5 * height]
        turned = angle % 360.0
        eager_w, eager_h = expanded_size(rotation_inverse_list(turned, centred), width, height)
        traced = expanded_image_size(torch.tensor(angle, dtype=torch.float64) % 360.0, centred, height, width)
        assert traced.tolist() == [eager_h, eager_w], (height, width, angle, center)
        absolute = center if center is not None else [width * 0.5, height * 0.5]
        eager_canvas = list(_points_expanded_canvas(angle, absolute, [height, width]))
        assert expanded_canvas(torch.tensor(angle), absolute, [height, width]).tolist() == eager_canvas


@pytest.mark.parametrize("kind", ["uint8", "float", "Image", "detection"])
@pytest.mark.parametrize("center", [None, [5.0, 7.5]])
def test_one_graph_with_the_size_live_and_eager_results(kind, center):
    transform = T.RandomRotation(45, expand=True, center=center)
    sample = _input(kind)
    compiled, counter = compile_counted(transform)
    sizes = set()
    for seed in range(8):
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        assert_matches_oracle(out, expected, float_atol=1e-5, what=f"seed {seed}")
        sizes.add(_sizes(out))
    assert counter.frame_count == 1  # one graph, no recompiles across angles and sizes
    assert len(sizes) > 1  # the angle is drawn on every call


def test_compiles_once_across_input_sizes_with_dynamic_shapes():
    transform = T.RandomRotation(30, expand=True)
    compiled, counter = compile_counted(transform, dynamic=True)
    for height, width in ((24, 28), (30, 26), (26, 34)):
        image = make_image(height, width)
        torch.manual_seed(height)
        expected = transform(image)
        torch.manual_seed(height)
        assert torch.equal(compiled(image), expected)
    assert counter.frame_count == 1


@pytest.mark.parametrize("kind", ["uint8", "Image", "detection"])
def test_exported_program_gives_eager_output_for_other_seeds(kind):
    transform = T.RandomRotation(45, expand=True)
    sample = _input(kind)
    torch.manual_seed(100)
    program = torch.export.export(transform, (sample,), strict=kind != "uint8").module()
    sizes = set()
    for seed in range(5):
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = program(sample)
        # Exported programs return plain tensors: values and shapes are compared (no canvas_size to compare).
        plain = torch.utils._pytree.tree_map(_plain, expected)
        assert_matches_oracle(out, plain, float_atol=1e-5, what=f"seed {seed}")
        sizes.add(_sizes(out))
    assert len(sizes) > 1


def test_scripted_expand_still_follows_the_angle(tmp_path):
    transform = T.RandomRotation(45, expand=True)
    image = make_image(H, W)
    loaded = script_roundtrip(transform, tmp_path)
    torch.manual_seed(4)
    expected = transform(image)
    torch.manual_seed(4)
    assert torch.equal(loaded(image), expected)


def test_batches_are_still_refused_naming_the_class():
    with pytest.raises(ValueError, match="RandomRotation: expand=True"):
        T.RandomRotation(45, expand=True)(tv_tensors.BatchedImages(make_image(H, W, batch=(2,))))


def test_compiled_pipeline_resizes_the_expanded_image():
    pipeline = T.Compose([T.RandomRotation(30, expand=True), T.Resize((24, 24)), T.RandomHorizontalFlip()])
    image = make_image(48, 64)
    compiled, counter = compile_counted(pipeline)
    for seed in range(4):
        torch.manual_seed(seed)
        expected = pipeline(image)
        torch.manual_seed(seed)
        assert torch.equal(compiled(image), expected)
    assert counter.frame_count == 1
