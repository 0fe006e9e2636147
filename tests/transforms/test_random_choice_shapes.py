"""RandomChoice and RandomApply with steps that change the shape, in every mode: where every choice ends in the same
shapes there is one graph (compile and export keep the draw live); where the shape depends on the draw, one plain
tensor still traces (a ``torch.cond`` whose output size is a symbol of the graph) and a sample of tv_tensors or a
batch, whose traced form computes every choice and selects one, is refused with a ValueError naming the class."""

import pytest
import torch

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import compile_counted, make_detection_sample, make_image, script_roundtrip

H, W = 48, 64
KINDS = ["tensor", "Image", "Video", "detection", "keypoints"]


def _sample(kind):
    points = torch.tensor([[1.0, 2.0], [30.5, 40.0], [63.0, 47.0]])
    return {
        "tensor": lambda: make_image(H, W),
        "Image": lambda: tv_tensors.Image(make_image(H, W)),
        "Video": lambda: tv_tensors.Video(make_image(H, W, batch=(2,))),
        "detection": lambda: make_detection_sample(H, W),
        "keypoints": lambda: tv_tensors.KeyPoints(points, canvas_size=(H, W)),
    }[kind]()


def _leaves(out):
    return [leaf.as_subclass(torch.Tensor) for leaf in torch.utils._pytree.tree_leaves(out)
            if isinstance(leaf, torch.Tensor)]


def _which(out, sample, candidates):
    """The index of the candidate transform whose output ``out`` is (every tensor leaf equal), else None."""
    for index, candidate in enumerate(candidates):
        expected = _leaves(candidate(sample))
        got = _leaves(out)
        if len(got) == len(expected) and all(a.shape == b.shape and torch.equal(a, b) for a, b in zip(got, expected)):
            return index
    return None


# ---- one graph: every choice ends in the same shapes ------------------------------------------------------------


def _same_shape_choice():
    return T.RandomChoice([T.Pad([4, 0, 0, 0]), T.Pad([0, 0, 4, 0])])  # 48 x 68 either way, padded left or right


CHOICES = [T.Pad([4, 0, 0, 0]), T.Pad([0, 0, 4, 0])]


@pytest.mark.parametrize("kind", KINDS)
def test_choice_of_same_shape_pads_compiles_to_one_live_graph(kind):
    transform = _same_shape_choice()
    sample = _sample(kind)
    for step in transform.transforms:  # each step's first eager call sets its state, which the graph guards on
        step(sample)
    compiled, counter = compile_counted(transform)
    seen = set()
    for seed in range(12):
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        chosen = _which(expected, sample, CHOICES)
        assert chosen is not None and _which(out, sample, CHOICES) == chosen, seed
        seen.add(chosen)
        if kind != "tensor":
            leaf = out["boxes"] if kind == "detection" else out
            assert type(leaf) is type(sample["boxes"] if kind == "detection" else sample)
            if kind in ("detection", "keypoints"):
                assert tuple(leaf.canvas_size) == (H, W + 4)
    assert seen == {0, 1}
    assert counter.frame_count == 1


@pytest.mark.parametrize("kind", ["tensor", "Image", "detection"])
def test_choice_of_same_shape_pads_exports(kind):
    transform = _same_shape_choice()
    sample = _sample(kind)
    program = torch.export.export(transform, (sample,), strict=kind != "tensor").module()
    seen = set()
    for seed in range(12):
        torch.manual_seed(seed)
        chosen = _which(transform(sample), sample, CHOICES)
        torch.manual_seed(seed)
        assert _which(program(sample), sample, CHOICES) == chosen, seed
        seen.add(chosen)
    assert seen == {0, 1}


def test_choice_of_same_shape_pads_scripts_and_batches(tmp_path):
    transform = _same_shape_choice()
    image = make_image(H, W)
    loaded = script_roundtrip(transform, tmp_path)
    assert {_which(loaded(image), image, CHOICES) for _ in range(30)} == {0, 1}
    images = make_image(H, W, batch=(6,))
    compiled, counter = compile_counted(lambda x: transform.forward_batch(x))
    for run in (transform.forward_batch, loaded.forward_batch, compiled):
        out = run(images)
        assert out.shape == (6, 3, H, W + 4)
        assert all(_which(out[i], images[i], CHOICES) is not None for i in range(6))
    assert counter.frame_count == 1


# ---- the shape depends on the draw ------------------------------------------------------------------------------


def _pad_or_not():
    return T.RandomApply([T.Pad(4)], p=0.5)  # 48 x 64 or 56 x 72


def test_random_apply_of_a_pad_gives_both_shapes_eagerly_scripted_and_on_one_plain_tensor_traced(tmp_path):
    transform = _pad_or_not()
    image = make_image(H, W)
    shapes = {(3, H, W), (3, H + 8, W + 8)}
    assert {tuple(transform(image).shape) for _ in range(30)} == shapes
    assert {tuple(script_roundtrip(transform, tmp_path)(image).shape) for _ in range(30)} == shapes
    # one plain tensor: a torch.cond whose output size is a symbol, so one graph gives either shape
    compiled, counter = compile_counted(transform)
    outs = [compiled(image) for _ in range(30)]
    assert {tuple(out.shape) for out in outs} == shapes
    assert all(torch.equal(out, image) or torch.equal(out, T.Pad(4)(image)) for out in outs)
    assert counter.frame_count == 1
    program = torch.export.export(transform, (image,)).module()
    assert {tuple(program(image).shape) for _ in range(30)} == shapes


@pytest.mark.parametrize("kind", ["Image", "Video", "detection", "keypoints"])
def test_random_apply_of_a_pad_refuses_compile_and_export_of_tv_tensors_naming_the_class(kind):
    transform = _pad_or_not()
    sample = _sample(kind)
    compiled, _ = compile_counted(transform)
    with pytest.raises(Exception, match="RandomApply: under torch.compile/torch.export every choice"):
        compiled(sample)
    # strict export (non-strict export sees plain tensors); dynamo reports the ValueError as it traced it
    with pytest.raises(Exception, match="ValueError..RandomApply: under torch.compile/torch.export every choice"):
        torch.export.export(transform, (sample,), strict=True)


def test_random_choice_of_different_shapes_refuses_tv_tensors_and_traced_batches_naming_the_class():
    transform = T.RandomChoice([T.Pad(4), T.RandomHorizontalFlip(p=1.0)])
    image = tv_tensors.Image(make_image(H, W))
    compiled, _ = compile_counted(transform)
    with pytest.raises(Exception, match="RandomChoice: under torch.compile/torch.export every choice"):
        compiled(image)
    with pytest.raises(Exception, match="ValueError..RandomChoice: under torch.compile/torch.export every choice"):
        torch.export.export(transform, (image,), strict=True)
    images = make_image(H, W, batch=(4,))
    for container in (transform, _pad_or_not()):
        compiled_batch, _ = compile_counted(lambda x, c=container: c.forward_batch(x))
        with pytest.raises(Exception, match=type(container).__name__ + ": under torch.compile/torch.export"):
            compiled_batch(images)


@pytest.mark.parametrize("make, name", [
    (lambda: T.RandomApply([T.Pad(4)], p=0.5), "RandomApply"),
    (lambda: T.RandomChoice([T.Pad(4), T.Identity()]), "RandomChoice"),
    (lambda: T.RandomOrder([T.RandomApply([T.Pad(2)], p=0.5), T.Identity()]), "RandomApply"),  # the inner class
])
def test_eager_batch_with_rows_of_different_shapes_is_refused_naming_the_class(make, name):
    # Some rows drawn to pad and some not cannot be written back into one batch tensor: a ValueError naming the class
    # whose choice differs between rows (every row drawing the same choice is one shape, and passes).
    torch.manual_seed(0)
    transform = make()
    images = tv_tensors.BatchedImages(make_image(H, W, batch=(16,)))
    with pytest.raises(ValueError, match=f"{name}: .*rows of different shapes"):
        for _ in range(8):
            transform(images)
    with pytest.raises(ValueError, match=f"{name}: .*rows of different shapes"):
        for _ in range(8):
            transform.forward_batch(images.as_subclass(torch.Tensor))
