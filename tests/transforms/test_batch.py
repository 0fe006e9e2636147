"""Per-sample randomness on batches: batch tv_tensors, ``forward_batch``, and the random transforms on them."""

import pytest
import torch

import jitvision.transforms as T
from jitvision import tv_tensors
from jitvision.transforms import _batch
from jitvision.tv_tensors._batch_pytree import sample_leaf
from tests.helpers import compile_counted, make_boxes, make_image, make_keypoints, script_roundtrip

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
H, W = 20, 26


def _random_transforms():
    """(name, factory taking a generator): every random transform we have, in the configurations that matter."""
    return [
        ("RandomResizedCrop", lambda g: T.RandomResizedCrop((12, 14), generator=g)),
        ("RandomResizedCrop-wide", lambda g: T.RandomResizedCrop(9, scale=(0.5, 3.0), ratio=(0.2, 5.0), generator=g)),
        ("RandomCrop", lambda g: T.RandomCrop((11, 13), generator=g)),
        ("RandomCrop-padding", lambda g: T.RandomCrop(16, padding=[1, 2, 3, 4], fill=7, generator=g)),
        ("RandomCrop-pad_if_needed", lambda g: T.RandomCrop((24, 30), pad_if_needed=True, generator=g)),
        ("RandomHorizontalFlip", lambda g: T.RandomHorizontalFlip(generator=g)),
        ("RandomVerticalFlip", lambda g: T.RandomVerticalFlip(p=0.3, generator=g)),
        ("RandomAffine", lambda g: T.RandomAffine(30, (0.1, 0.2), (0.8, 1.2), 10, fill=3, generator=g)),
        ("RandomRotation", lambda g: T.RandomRotation(40, interpolation="bilinear", generator=g)),
        ("RandomPerspective", lambda g: T.RandomPerspective(0.6, p=0.7, generator=g)),
        ("ElasticTransform", lambda g: T.ElasticTransform(alpha=20.0, sigma=2.0, generator=g)),
    ]


def _samples(num: int, kinds: str, dtype: torch.dtype = torch.uint8) -> list:
    samples = []
    for i in range(num):
        if kinds == "image":
            samples.append(tv_tensors.Image(make_image(H, W, dtype)))
        elif kinds == "video":
            samples.append(tv_tensors.Video(make_image(H, W, dtype, batch=(3,))))
        elif kinds == "mask":
            samples.append(tv_tensors.Mask(torch.randint(0, 5, (H, W), dtype=torch.uint8)))
        else:  # a detection sample with a different number of objects per sample, one of them with none
            objects = [3, 0, 1, 4, 2][i % 5]
            samples.append(
                {
                    "image": tv_tensors.Image(make_image(H, W, dtype)),
                    "boxes": make_boxes((H, W), format=kinds.split("-")[1], num_boxes=objects),
                    "masks": tv_tensors.Mask(torch.randint(0, 2, (objects, H, W), dtype=torch.uint8)),
                    "points": make_keypoints((H, W), num_points=objects),
                    "labels": torch.arange(objects),
                }
            )
    return samples


def _row(params: dict, i: int) -> dict:
    return {name: value[i] for name, value in params.items()}


def _assert_same(actual, expected, what):
    a_leaves = torch.utils._pytree.tree_leaves(actual, is_leaf=sample_leaf)
    e_leaves = torch.utils._pytree.tree_leaves(expected, is_leaf=sample_leaf)
    assert len(a_leaves) == len(e_leaves), what
    for a, e in zip(a_leaves, e_leaves):
        assert type(a) is type(e), f"{what}: {type(a).__name__} != {type(e).__name__}"
        assert getattr(a, "canvas_size", None) == getattr(e, "canvas_size", None), what
        torch.testing.assert_close(a.as_subclass(torch.Tensor), e.as_subclass(torch.Tensor), rtol=0, atol=0, msg=what)


@pytest.mark.parametrize("name, factory", _random_transforms())
@pytest.mark.parametrize(
    "kinds",
    [
        "image",
        "video",
        "mask",
        "detection-XYXY",
        "detection-XYWH",
        "detection-CXCYWH",
        "detection-XYWHR",
        "detection-XYXYXYXY",
    ],
)
def test_batch_equals_each_sample_with_its_own_parameters(name, factory, kinds):
    samples = _samples(5, kinds)
    batch = tv_tensors.batch_samples(samples)
    out = factory(torch.Generator().manual_seed(3))(batch)
    # The same draw again, then each sample through the single-sample transform with its row of the parameters.
    reference = factory(torch.Generator().manual_seed(3))
    flat = torch.utils._pytree.tree_leaves(batch, is_leaf=sample_leaf)
    params = reference.make_batch_params([leaf for leaf in flat if isinstance(leaf, torch.Tensor)], len(samples))
    for i, (sample, got) in enumerate(zip(samples, tv_tensors.unbatch_samples(out))):
        row = _row(params, i)

        def single(leaf, row=row):
            return leaf if _is_label(leaf) else reference.transform(leaf, row)

        expected = torch.utils._pytree.tree_map_only(torch.Tensor, single, sample, is_leaf=sample_leaf)
        _assert_same(got, expected, f"{name} on {kinds}, sample {i}")


def _is_label(leaf) -> bool:
    return type(leaf) is torch.Tensor


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("api", ["BatchedImages", "forward_batch"])
def test_compose_batch_equals_each_sample(fused, api):
    # Fused: Compose runs the prefix as one native call per batch; unfused (a float image): step by step.
    dtype = torch.uint8 if fused else torch.float32
    images = torch.stack([make_image(H, W, dtype) for _ in range(6)])

    def pipeline(seed):
        g = torch.Generator().manual_seed(seed)
        steps = [T.RandomResizedCrop(12, generator=g), T.RandomHorizontalFlip(generator=g)]
        if fused:
            steps += [T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)]
        return T.Compose(steps)

    out = pipeline(7)(tv_tensors.BatchedImages(images)) if api == "BatchedImages" else pipeline(7).forward_batch(images)
    assert type(out) is (tv_tensors.BatchedImages if api == "BatchedImages" else torch.Tensor)
    reference = pipeline(7)
    crop, flip = reference.transforms[0], reference.transforms[1]
    boxes = crop.make_batch_params([images], 6)
    coins = flip.make_batch_params([images], 6)
    for i in range(6):
        expected = flip.transform(crop.transform(images[i], _row(boxes, i)), _row(coins, i))
        for step in reference.transforms[2:]:
            expected = step(expected)
        torch.testing.assert_close(out[i].as_subclass(torch.Tensor), expected, rtol=0, atol=1e-5)


def test_a_plain_batch_tensor_keeps_one_draw_for_all_samples():
    images = make_image(H, W).expand(64, 3, H, W).contiguous()
    out = T.RandomResizedCrop(8)(images)
    assert all(torch.equal(out[0], out[i]) for i in range(64))
    out = T.RandomResizedCrop(8)(tv_tensors.Image(images))
    assert all(torch.equal(out[0], out[i]) for i in range(64))


def test_batch_of_256_draws_independently():
    torch.manual_seed(0)
    ramp = torch.arange(32, dtype=torch.uint8).expand(3, 32, 32).contiguous()
    images = tv_tensors.BatchedImages(ramp.expand(256, 3, 32, 32).contiguous())
    distinct = torch.arange(32 * 32, dtype=torch.float32).view(1, 1, 32, 32).expand(256, 3, 32, 32)
    crops = T.RandomResizedCrop(16, antialias=False)(tv_tensors.BatchedImages(distinct.contiguous()))
    assert len({tuple(c.flatten().tolist()) for c in crops}) > 240
    p = 0.3
    flipped = T.RandomHorizontalFlip(p=p)(images)
    count = int((flipped[:, 0, 0, 0] == 31).sum())
    assert torch.equal(flipped[flipped[:, 0, 0, 0] == 31], images[flipped[:, 0, 0, 0] == 31].flip(-1))
    sigma = (256 * p * (1 - p)) ** 0.5
    assert abs(count - 256 * p) <= 4 * sigma, count


def test_same_generator_seed_gives_the_same_batch():
    batch = tv_tensors.batch_samples(_samples(4, "detection-XYXY"))

    def run(seed):
        g = torch.Generator().manual_seed(seed)
        return T.Compose([T.RandomResizedCrop(12, generator=g), T.RandomHorizontalFlip(generator=g)])(batch)

    _assert_same(run(11), run(11), "same seed")
    assert not torch.equal(run(11)["image"], run(12)["image"])


# ---- compilers ------------------------------------------------------------------------------------------------


def _train_pipeline():
    steps = [T.RandomResizedCrop(12), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)]
    return T.Compose([*steps, T.Normalize(MEAN, STD)])


@pytest.mark.parametrize(
    "make_input, call",
    [
        (lambda b: tv_tensors.BatchedImages(torch.stack([make_image(H, W) for _ in range(b)])), lambda t, x: t(x)),
        (lambda b: torch.stack([make_image(H, W) for _ in range(b)]), lambda t, x: t.forward_batch(x)),
        (lambda b: tv_tensors.batch_samples(_samples(b, "detection-CXCYWH")), lambda t, x: t(x)),
    ],
    ids=["BatchedImages", "forward_batch", "detection"],
)
@pytest.mark.parametrize("pipeline", ["train", "crop", "flip"])
def test_batches_compile_to_one_graph_and_stay_random(make_input, call, pipeline):
    transform = {
        "train": _train_pipeline(),
        "crop": T.Compose([T.RandomCrop(12, padding=2), T.RandomVerticalFlip()]),
        "flip": T.RandomHorizontalFlip(),
    }[pipeline]
    compiled, counter = compile_counted(lambda x: call(transform, x))
    x = make_input(4)
    torch.manual_seed(0)
    outputs = [compiled(x) for _ in range(12)]
    assert counter.frame_count == 1
    first = torch.utils._pytree.tree_leaves(outputs[0])[0]
    assert any(not torch.equal(torch.utils._pytree.tree_leaves(o)[0], first) for o in outputs[1:])


@pytest.mark.parametrize("api", ["BatchedImages", "forward_batch"])
def test_no_recompile_across_batch_sizes_with_dynamic_shapes(api):
    pipe = _train_pipeline()
    if api == "BatchedImages":
        compiled, counter = compile_counted(lambda x: pipe(x), dynamic=True)
        wrap = tv_tensors.BatchedImages
    else:
        compiled, counter = compile_counted(lambda x: pipe.forward_batch(x), dynamic=True)
        wrap = lambda x: x  # noqa: E731
    for b in (2, 3, 5, 8):
        assert compiled(wrap(torch.stack([make_image(H, W) for _ in range(b)]))).shape[0] == b
    assert counter.frame_count == 1


def test_identical_samples_get_different_draws_compiled_and_scripted(tmp_path):
    images = make_image(H, W).expand(16, 3, H, W).contiguous()
    pipe = _train_pipeline()
    compiled, _ = compile_counted(lambda x: pipe.forward_batch(x))
    scripted = script_roundtrip(pipe, tmp_path)
    for out in (compiled(images), scripted.forward_batch(images), pipe(tv_tensors.BatchedImages(images))):
        assert len({tuple(o.flatten().tolist()) for o in out}) > 8


class _BatchModule(torch.nn.Module):
    def __init__(self, pipe):
        super().__init__()
        self.pipe = pipe

    def forward(self, x):
        return self.pipe.forward_batch(x)


def test_export_with_a_dynamic_batch_dimension_runs_and_stays_random():
    images = torch.stack([make_image(H, W) for _ in range(4)])
    batch = torch.export.Dim("batch", min=2, max=64)
    program = torch.export.export(_BatchModule(_train_pipeline()), (images,), dynamic_shapes={"x": {0: batch}})
    module = program.module()
    other = torch.stack([make_image(H, W) for _ in range(7)])
    first, second = module(other), module(other)
    assert first.shape == (7, 3, 12, 12)
    assert not torch.equal(first, second)
    same = make_image(H, W).expand(6, 3, H, W).contiguous()
    assert len({tuple(o.flatten().tolist()) for o in module(same)}) > 1


def test_scripted_forward_batch_matches_eager_under_a_seed(tmp_path):
    images = torch.stack([make_image(H, W, torch.float32) for _ in range(5)])
    pipe = T.Compose([T.RandomCrop(14, padding=1), T.RandomHorizontalFlip(), T.RandomResizedCrop(9)])
    scripted = script_roundtrip(pipe, tmp_path)
    torch.manual_seed(5)
    expected = pipe.forward_batch(images)
    torch.manual_seed(5)
    torch.testing.assert_close(scripted.forward_batch(images), expected)


# ---- the contract and bad input ----------------------------------------------------------------------------------


def test_every_random_transform_follows_the_contract():
    # One draw: _draw(batch_shape, ...) gives one sample's parameters for [] and one row per sample for [B]. One
    # effect: transform (or _apply, behind the one probability gate). Checked on the parameters a batch sample gets
    # (make_batch_params) and on forward_batch, for every public class that draws.
    image = torch.randint(0, 256, (3, H, W), dtype=torch.uint8)
    checked = 0
    for name in dir(T):
        cls = getattr(T, name)
        bases = (T.Transform, T.RandomApplyTransform)
        if not isinstance(cls, type) or not issubclass(cls, T.Transform) or cls in bases:
            continue
        if cls._draw is T.Transform._draw:
            continue  # deterministic: no draw
        if issubclass(cls, T.RandomApplyTransform):
            assert cls._apply is not T.RandomApplyTransform._apply, f"{name} does not implement _apply"
        else:
            assert cls.transform is not T.Transform.transform, f"{name} does not implement transform"
        checked += 1
    assert checked >= 25  # the public random classes
    for transform in (T.RandomResizedCrop(8), T.ColorJitter(0.4, 0.4), T.RandomAffine(20), T.RandomInvert()):
        params = transform.make_batch_params([tv_tensors.BatchedImages(image.expand(5, -1, -1, -1))], 5)
        assert params and all(value.shape[0] == 5 for value in params.values()), type(transform).__name__


# The methods of the base classes that the library's own classes override: the contract (docs/design/batches.md).
# Which leaves a class transforms is class data (_transformed_types, _transformed_kinds, _pure_tensors_pass), not a
# method; a user's subclass may still override torchvision's _needs_transform_list (see the test below).
_OVERRIDE_POINTS = {
    "transform", "make_params", "check_inputs",  # torchvision's
    "forward", "extra_repr",  # nn.Module's
    "_draw", "_apply", "_apply_where", "transform_batch", "forward_batch",  # the draw, the effect, the gate
    "_public_params", "_eager_plain", "native_stage",  # torchvision's keys, the eager hook, the fused stage
}


def test_library_classes_override_only_the_contract():
    base_methods = {
        name
        for base in (T.Transform, T.RandomApplyTransform)
        for name, value in vars(base).items()
        if callable(value) and not name.startswith("__")
    }
    overridden = {}
    for name in dir(T):
        cls = getattr(T, name)
        if not isinstance(cls, type) or not issubclass(cls, T.Transform):
            continue
        for klass in cls.__mro__:
            if klass in (T.Transform, T.RandomApplyTransform) or not klass.__module__.startswith("jitvision."):
                continue
            for method in base_methods & set(vars(klass)):
                overridden.setdefault(method, set()).add(klass.__name__)
    unexpected = {method: sorted(classes) for method, classes in overridden.items() if method not in _OVERRIDE_POINTS}
    assert not unexpected, f"library classes override methods outside the contract: {unexpected}"
    assert len(_OVERRIDE_POINTS) == 13


def test_a_user_subclass_keeps_torchvision_leaf_rule_hook():
    # torchvision's _needs_transform_list, overridden by a user's subclass: every pure tensor is transformed.
    class InvertEveryTensor(T.RandomInvert):
        def _needs_transform_list(self, flat_inputs):
            return [isinstance(inpt, torch.Tensor) for inpt in flat_inputs]

    image = tv_tensors.Image(torch.zeros(3, 4, 4, dtype=torch.uint8))
    extra = torch.zeros(3, 4, 4, dtype=torch.uint8)
    out_image, out_extra = InvertEveryTensor(p=1.0)(image, extra)
    assert int(out_image.min()) == 255 and int(out_extra.min()) == 255
    out_image, out_extra = T.RandomInvert(p=1.0)(image, extra)
    assert int(out_image.min()) == 255 and int(out_extra.max()) == 0  # torchvision's rule: the pure tensor passes


def test_bad_batches_raise_naming_the_transform():
    images = torch.rand(2, 3, H, W)
    with pytest.raises(ValueError, match="BatchedImages"):
        tv_tensors.BatchedImages(torch.rand(3, H, W))
    wrong_rank = torch.rand(2, 2, 3, H, W).as_subclass(tv_tensors.BatchedImages)
    with pytest.raises(ValueError, match="RandomHorizontalFlip.*BatchedImages"):
        T.RandomHorizontalFlip()(wrong_rank)
    boxes = tv_tensors.BatchedBoundingBoxes(
        torch.tensor([[0.0, 0, 4, 4], [1, 1, 5, 5]]), format="XYXY", canvas_size=(H, W), sample_index=[0, 2]
    )
    with pytest.raises(ValueError, match="RandomResizedCrop.*disagree"):
        T.RandomResizedCrop(8)({"image": tv_tensors.BatchedImages(images), "boxes": boxes})
    with pytest.raises(ValueError, match="sample_index"):
        tv_tensors.BatchedBoundingBoxes(
            torch.zeros(2, 4), format="XYXY", canvas_size=(H, W), sample_index=[0, 3], batch_size=2
        )
    boxes.sample_index = torch.tensor([0, 5])
    boxes.batch_size = 2
    with pytest.raises(ValueError, match="RandomCrop.*sample_index"):
        T.RandomCrop(8)({"image": tv_tensors.BatchedImages(images), "boxes": boxes})
    with pytest.raises(TypeError, match="RandomCrop.*mix"):
        T.RandomCrop(8)({"image": tv_tensors.BatchedImages(images), "mask": tv_tensors.Mask(torch.zeros(H, W))})
    with pytest.raises(ValueError, match="forward_batch"):
        T.RandomCrop(8).forward_batch(torch.rand(3, H, W))


def test_batch_samples_round_trip():
    samples = _samples(5, "detection-XYWH")
    back = tv_tensors.unbatch_samples(tv_tensors.batch_samples(samples))
    for a, b in zip(back, samples):
        _assert_same(a, b, "round trip")
    leaves = torch.utils._pytree.tree_leaves(tv_tensors.batch_samples(samples), is_leaf=sample_leaf)
    assert _batch.query_batch_size([leaf for leaf in leaves if not _is_label(leaf)], "x") == 5
