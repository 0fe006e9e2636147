"""RandomApply, RandomChoice, RandomOrder: torchvision's semantics and distributions, one graph with the choice live,
TorchScript, export, per-sample batches."""

import itertools
import math

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted, make_detection_sample, make_image, script_roundtrip

H, W = 21, 27


def _steps(module):
    """Three deterministic transforms with different effects (a choice among them shows in the output)."""
    return [module.RandomInvert(p=1.0), module.RandomVerticalFlip(p=1.0), module.RandomPosterize(2, p=1.0)]


def _identify(out, image):
    """Which of the candidate results (``_steps``) ``out`` is, by comparing with each applied alone."""
    for index, step in enumerate(_steps(T)):
        if torch.equal(out, step(image)):
            return index
    return None


def _factories():
    return {
        "RandomApply": lambda: T.RandomApply(_steps(T)[:2], p=0.3),
        "RandomChoice": lambda: T.RandomChoice(_steps(T), p=[1, 2, 3]),
        "RandomOrder": lambda: T.RandomOrder(_steps(T)),
    }


@pytest.mark.parametrize("sample", ["uint8", "detection"])
def test_forced_outcomes_match_torchvision(sample):
    x = make_image(H, W) if sample == "uint8" else make_detection_sample(H, W)
    from tests.helpers import to_torchvision

    tv_x = to_torchvision(x)
    # RandomApply with p=1 / p=0, RandomChoice with one possible transform, RandomOrder of commuting-free steps.
    pairs = [
        (T.RandomApply(_steps(T), p=1.0), tv_transforms.RandomApply(_steps(tv_transforms), p=1.0)),
        (T.RandomApply(_steps(T), p=0.0), tv_transforms.RandomApply(_steps(tv_transforms), p=0.0)),
        (T.RandomChoice(_steps(T), p=[0, 1, 0]), tv_transforms.RandomChoice(_steps(tv_transforms), p=[0, 1, 0])),
        (T.RandomOrder(_steps(T)[1:2]), tv_transforms.RandomOrder(_steps(tv_transforms)[1:2])),
    ]
    for ours, theirs in pairs:
        assert_matches_oracle(ours(x), theirs(tv_x), what=type(ours).__name__)


N = 10_000


def _bound(cells):
    k = cells - 1
    return k * (1 - 2 / (9 * k) + 3.09 * math.sqrt(2 / (9 * k))) ** 3


def _chi_square(counts, expected):
    return sum((c - e) ** 2 / e for c, e in zip(counts, expected))


def test_draw_distributions_match_torchvision_s():
    torch.manual_seed(0)
    probe = [torch.empty(3, H, W)]
    apply = T.RandomApply([T.Identity()], p=0.3).make_batch_params(probe, N)["apply"]
    assert abs(int(apply.sum()) - 0.3 * N) < 4 * math.sqrt(N * 0.21)
    choice = T.RandomChoice(_steps(T), p=[1, 2, 3])
    assert choice.p == tv_transforms.RandomChoice(_steps(tv_transforms), p=[1, 2, 3]).p
    index = choice.make_batch_params(probe, N)["index"]
    counts = torch.bincount(index, minlength=3).tolist()
    assert _chi_square(counts, [N * p for p in choice.p]) < _bound(3)
    order = T.RandomOrder(_steps(T)).make_batch_params(probe, N)["order"]
    permutations = list(itertools.permutations(range(3)))
    counts = [sum(1 for row in order.tolist() if tuple(row) == perm) for perm in permutations]
    assert _chi_square(counts, [N / 6] * 6) < _bound(6)


def test_eager_choices_follow_the_draws():
    torch.manual_seed(1)
    image = make_image(H, W)
    chosen = [_identify(T.RandomChoice(_steps(T))(image), image) for _ in range(60)]
    assert set(chosen) == {0, 1, 2}


@pytest.mark.parametrize("name", ["RandomApply", "RandomChoice", "RandomOrder"])
def test_one_graph_with_the_choice_live_script_and_export(name, tmp_path):
    transform = _factories()[name]()
    image = make_image(H, W)
    compiled, counter = compile_counted(transform)
    torch.manual_seed(0)
    outputs = [compiled(image) for _ in range(50)]
    assert counter.frame_count == 1
    assert len({o.sum().item() for o in outputs}) > 1
    torch.manual_seed(3)  # compiled and eager draw the same values from the same seed
    expected = transform(image)
    torch.manual_seed(3)
    torch.testing.assert_close(compiled(image), expected, rtol=0, atol=0)
    # A tv_tensor sample: the per-leaf select formulation.
    compiled, counter = compile_counted(transform)
    out = [compiled({"image": tv_tensors.Image(image), "label": 1}) for _ in range(12)]
    assert counter.frame_count == 1 and type(out[0]["image"]) is tv_tensors.Image
    assert len({o["image"].sum().item() for o in out}) > 1
    # dynamic sizes
    compiled, counter = compile_counted(transform, dynamic=True)
    for size in [(H, W), (H + 5, W - 2), (33, 40)]:
        assert compiled(make_image(*size)).shape[-2:] == size
    assert counter.frame_count == 1
    loaded = script_roundtrip(transform, tmp_path)
    assert len({loaded(image).sum().item() for _ in range(20)}) > 1
    assert len({o.sum().item() for o in loaded.forward_batch(image.expand(8, 3, H, W).contiguous())}) > 1
    module = torch.export.export(transform, (image,)).module()
    assert len({module(image).sum().item() for _ in range(20)}) > 1


@pytest.mark.parametrize("name", ["RandomApply", "RandomChoice", "RandomOrder"])
def test_batches_draw_per_sample(name):
    images = make_image(H, W).expand(8, 3, H, W).contiguous()
    transform = _factories()[name]()
    torch.manual_seed(5)
    out = transform(tv_tensors.BatchedImages(images))
    assert type(out) is tv_tensors.BatchedImages
    torch.manual_seed(5)
    params = transform.make_batch_params([images], 8)
    for i in range(8):
        row = {key: value[i] for key, value in params.items()}
        torch.testing.assert_close(out[i].as_subclass(torch.Tensor), transform.transform(images[i], row))
    assert len({o.sum().item() for o in out}) > 1
    compiled, counter = compile_counted(lambda x: transform.forward_batch(x))
    torch.manual_seed(5)
    torch.testing.assert_close(compiled(images), out.as_subclass(torch.Tensor))
    # A detection batch: each sample on its own (eager).
    batch = tv_tensors.batch_samples([make_detection_sample(H, W) for _ in range(3)])
    assert len(tv_tensors.unbatch_samples(transform(batch))) == 3


def test_nested_random_transforms_inside():
    image = make_image(H, W)
    pipeline = T.RandomChoice([T.TrivialAugmentWide(), T.RandomApply([T.RandomHorizontalFlip()], p=0.5)])
    compiled, counter = compile_counted(pipeline)
    outputs = [compiled(image) for _ in range(12)]
    assert counter.frame_count == 1 and len({o.sum().item() for o in outputs}) > 1


def test_bad_arguments_raise_naming_the_class():
    for cls in (T.RandomApply, T.RandomChoice, T.RandomOrder):
        with pytest.raises(ValueError, match=cls.__name__):
            cls([])
        with pytest.raises(TypeError, match=cls.__name__):
            cls(T.Identity())
        with pytest.raises(TypeError, match=cls.__name__):
            cls([T.Identity(), 3])
    with pytest.raises(ValueError, match="RandomApply"):
        T.RandomApply([T.Identity()], p=1.5)
    with pytest.raises(ValueError, match="RandomChoice"):
        T.RandomChoice([T.Identity()], p=[1, 2])
    with pytest.raises(ValueError, match="RandomChoice"):
        T.RandomChoice([T.Identity(), T.Identity()], p=[-1, 2])


@pytest.mark.parametrize("name", ["RandomChoice", "RandomOrder", "RandomApply"])
def test_scripted_batch_equals_eager_batch(name, tmp_path):
    # Deterministic steps that do not commute, so a row's result shows which choice or order it got; the scripted
    # per-row grouping must give each row what the eager switch gives it under the same seed.
    steps = [T.Normalize([0.2, 0.3, 0.4], [0.5, 0.6, 0.7]), T.Grayscale(3), T.Normalize([0.1] * 3, [2.0] * 3)]
    transform = getattr(T, name)(steps)
    loaded = script_roundtrip(transform, tmp_path)
    images = torch.rand(16, 3, 8, 8)
    for seed in range(3):
        torch.manual_seed(seed)
        expected = transform.forward_batch(images)
        torch.manual_seed(seed)
        actual = loaded.forward_batch(images)
        torch.testing.assert_close(actual, expected)
    assert len({round(o.sum().item(), 4) for o in expected}) > 1  # rows did differ


# ---- RandomOrder with steps that change the shape ---------------------------------------------------------------

ORDER_H, ORDER_W = 48, 64


def _shape_changing_steps():
    """A Pad and a flip: each order gives 48 x 68, and the two orders give different pixels (the padding ends on
    the left or on the right), so an output shows which order ran."""
    return [T.Pad([4, 0, 0, 0]), T.RandomHorizontalFlip(p=1.0)]


def _order_sample(kind):
    image = make_image(ORDER_H, ORDER_W)
    points = torch.tensor([[1.0, 2.0], [30.5, 40.0], [63.0, 47.0]])
    return {
        "tensor": image,
        "Image": tv_tensors.Image(image),
        "Video": tv_tensors.Video(make_image(ORDER_H, ORDER_W, batch=(2,))),
        "detection": make_detection_sample(ORDER_H, ORDER_W),
        "keypoints": tv_tensors.KeyPoints(points, canvas_size=(ORDER_H, ORDER_W)),
    }[kind]


def _leaves(out):
    return [leaf for leaf in torch.utils._pytree.tree_leaves(out) if isinstance(leaf, torch.Tensor)]


def _which_order(out, sample):
    """0 for Pad then flip, 1 for flip then Pad, by comparing every tensor leaf (and canvas size)."""
    for index, order in enumerate([(0, 1), (1, 0)]):
        steps = _shape_changing_steps()
        expected = T.Compose([steps[i] for i in order])(sample)
        same = all(
            torch.equal(a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor))
            for a, b in zip(_leaves(out), _leaves(expected))
        )
        if same and len(_leaves(out)) == len(_leaves(expected)):
            return index
    return None


ORDER_KINDS = ["tensor", "Image", "Video", "detection", "keypoints"]


@pytest.mark.parametrize("kind", ORDER_KINDS)
def test_order_of_shape_changing_steps_eager_and_compiled(kind):
    transform = T.RandomOrder(_shape_changing_steps())
    sample = _order_sample(kind)
    compiled, counter = compile_counted(transform)
    seen = set()
    for seed in range(10):
        torch.manual_seed(seed)
        expected = transform(sample)
        torch.manual_seed(seed)
        out = compiled(sample)
        order = _which_order(expected, sample)
        assert order is not None and _which_order(out, sample) == order, seed
        seen.add(order)
        if kind in ("Image", "Video", "keypoints"):
            assert type(out) is type(sample)
        if kind == "keypoints":
            assert tuple(out.canvas_size) == (ORDER_H, ORDER_W + 4)
        if kind == "detection":
            assert type(out["boxes"]) is tv_tensors.BoundingBoxes
            assert tuple(out["boxes"].canvas_size) == (ORDER_H, ORDER_W + 4)
    assert seen == {0, 1}  # the draw stays live: both orders over the seeds
    assert counter.frame_count == 1  # one graph, no recompiles


@pytest.mark.parametrize("kind", ORDER_KINDS)
def test_order_of_shape_changing_steps_exports(kind):
    transform = T.RandomOrder(_shape_changing_steps())
    sample = _order_sample(kind)
    # tv_tensor inputs export with dynamo (strict): non-strict export sees them as plain tensors.
    program = torch.export.export(transform, (sample,), strict=kind != "tensor").module()
    seen = set()
    for seed in range(10):
        torch.manual_seed(seed)
        order = _which_order(transform(sample), sample)
        torch.manual_seed(seed)
        assert _which_order(program(sample), sample) == order, seed
        seen.add(order)
    assert seen == {0, 1}


def test_order_of_shape_changing_steps_scripts(tmp_path):
    transform = T.RandomOrder(_shape_changing_steps())
    image = _order_sample("tensor")
    loaded = script_roundtrip(transform, tmp_path)
    seen = set()
    for seed in range(10):
        torch.manual_seed(seed)
        expected = transform(image)
        torch.manual_seed(seed)
        torch.testing.assert_close(loaded(image), expected, rtol=0, atol=0)
        seen.add(_which_order(expected, image))
    assert seen == {0, 1}


def test_orders_of_different_shapes_refuse_compile_and_export_naming_random_order(tmp_path):
    transform = T.RandomOrder([T.Pad([4, 0, 0, 0]), T.Resize(30)])  # 30 x 44 or 30 x 42
    image = _order_sample("tensor")
    shapes = {tuple(transform(image).shape) for _ in range(30)}
    assert shapes == {(3, 30, 44), (3, 30, 42)}  # eager runs the drawn order
    assert {tuple(script_roundtrip(transform, tmp_path)(image).shape) for _ in range(30)} == shapes
    compiled, _ = compile_counted(transform)
    with pytest.raises(Exception, match="RandomOrder: under torch.compile/torch.export every order"):
        compiled(image)
    with pytest.raises(ValueError, match="RandomOrder: under torch.compile/torch.export every order"):
        torch.export.export(transform, (image,))


def test_order_of_shape_changing_steps_on_batches(tmp_path):
    # Each row draws its own order: eager (BatchedImages, forward_batch), scripted and compiled forward_batch agree,
    # and every row is what its drawn order gives it alone.
    transform = T.RandomOrder(_shape_changing_steps())
    images = make_image(8, 10, batch=(8,))
    torch.manual_seed(2)
    out = transform(tv_tensors.BatchedImages(images))
    assert type(out) is tv_tensors.BatchedImages and out.shape == (8, 3, 8, 14)
    torch.manual_seed(2)
    params = transform.make_batch_params([images], 8)
    assert len({tuple(row) for row in params["order"].tolist()}) == 2
    for i in range(8):
        row = {key: value[i] for key, value in params.items()}
        assert torch.equal(out[i].as_subclass(torch.Tensor), transform.transform(images[i], row))
    loaded = script_roundtrip(transform, tmp_path)
    compiled, counter = compile_counted(lambda x: transform.forward_batch(x))
    for run in (loaded.forward_batch, compiled):
        torch.manual_seed(2)
        assert torch.equal(run(images), out.as_subclass(torch.Tensor))
    assert counter.frame_count == 1
    ragged = T.RandomOrder([T.Pad([4, 0, 0, 0]), T.Resize(6)])
    with pytest.raises(ValueError, match="RandomOrder: the orders drawn for the rows of a batch"):
        for _ in range(10):  # until two rows draw different orders
            ragged.forward_batch(images)
