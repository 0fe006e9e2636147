"""AutoAugment, RandAugment, TrivialAugmentWide, AugMix: every operation against torchvision, the draws' distributions,
per-sample batches, and the four modes (one graph with the choice and the magnitude live)."""

import math

import numpy as np
import PIL.Image
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
from torchvision.transforms.v2 import _utils as tv_utils

import jitvision.transforms as T
from jitvision import _native, tv_tensors
from jitvision.transforms._augment_ops import OP_INDEX, OP_NAMES, apply_op, apply_op_pil
from tests.helpers import assert_matches_oracle, compile_counted, make_boxes, make_image, script_roundtrip
from tests.transforms.random_checks import assert_batch_rows_match_single

H, W = 29, 37
CLASSES = {
    "AutoAugment": (T.AutoAugment, tv_transforms.AutoAugment),
    "RandAugment": (T.RandAugment, tv_transforms.RandAugment),
    "TrivialAugmentWide": (T.TrivialAugmentWide, tv_transforms.TrivialAugmentWide),
    "AugMix": (T.AugMix, tv_transforms.AugMix),
}
# Small configurations for the traced checks (each step traces every operation once).
SMALL = {
    "AutoAugment": lambda: T.AutoAugment(T.AutoAugmentPolicy.SVHN),
    "RandAugment": lambda: T.RandAugment(num_ops=1),
    "TrivialAugmentWide": lambda: T.TrivialAugmentWide(),
    "AugMix": lambda: T.AugMix(mixture_width=1, chain_depth=1),
}


def _magnitudes_for(name, op):
    """A few magnitudes of ``op`` as the policies draw them (torchvision's tables), both signs."""
    if op in ("Identity", "AutoContrast", "Equalize", "Invert"):
        return [0.0]
    space = tv_transforms.TrivialAugmentWide._AUGMENTATION_SPACE
    values = space[op][0](31, H, W)
    picks = [float(values[i]) for i in (0, 7, 19, 30)]
    if op in ("Posterize", "Solarize"):
        return picks
    return picks + [-v for v in picks[1:]]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("op", OP_NAMES)
def test_each_operation_matches_torchvision(op, dtype):
    tv = tv_transforms.AugMix()
    image = make_image(H, W, dtype)
    fill_values = [10.0, 200.0, 30.0] if dtype == torch.uint8 else [0.1, 0.8, 0.3]
    for mode, fill in [("nearest", None), ("nearest", fill_values), ("bilinear", fill_values)]:
        tv_fill = tv_utils._setup_fill_arg(fill)
        for magnitude in _magnitudes_for(tv, op):
            expected = tv._apply_image_or_video_transform(image, op, magnitude, interpolation=mode, fill=tv_fill)
            m = torch.tensor(magnitude, dtype=torch.float64)
            what = f"{op} {magnitude} {mode} {dtype}"
            # The eager path (a Python magnitude read from the tensor) and the tensor path (a magnitude per row).
            assert_matches_oracle(apply_op(image, OP_INDEX[op], m, mode, fill), expected, what=what)
            rows = apply_op(image[None], OP_INDEX[op], m[None], mode, fill)[0]
            assert_matches_oracle(rows, expected, what=what + " (per row)")


@pytest.mark.parametrize("op", OP_NAMES)
def test_each_operation_on_pil_matches_torchvision(op):
    tv = tv_transforms.AugMix()
    image = PIL.Image.fromarray(make_image(H, W).permute(1, 2, 0).numpy())
    for mode, fill in [("nearest", None), ("bilinear", 7)]:
        for magnitude in _magnitudes_for(tv, op):
            expected = tv._apply_image_or_video_transform(
                image, op, magnitude, interpolation=mode, fill=tv_utils._setup_fill_arg(fill)
            )
            got = apply_op_pil(image, OP_INDEX[op], magnitude, mode, fill)
            assert np.array_equal(np.asarray(got), np.asarray(expected)), f"{op} {magnitude} {mode}"


@pytest.mark.parametrize("name", list(CLASSES))
def test_magnitude_bins_are_torchvision_s(name):
    ours_cls, tv_cls = CLASSES[name]
    ours, tv = ours_cls(), tv_cls()
    bins = 10 if name in ("AutoAugment", "AugMix") else 31
    space = tv._AUGMENTATION_SPACE
    for op_name, (fn, signed) in space.items():
        values = fn(bins, H, W)
        if values is None:
            continue
        ops = torch.full([bins], OP_INDEX[op_name])
        index = torch.arange(bins)
        positive = ours._magnitudes(ops, index, torch.ones(bins), H, W)
        assert positive.tolist() == [float(v) for v in values], op_name
        negative = ours._magnitudes(ops, index, torch.zeros(bins), H, W)
        assert negative.tolist() == [-float(v) if signed else float(v) for v in values], op_name


def _chi_square(counts, expected):
    return sum((c - e) ** 2 / e for c, e in zip(counts, expected) if e > 0)


def _bound(cells):
    # ~ the 0.999 quantile of chi-square with cells - 1 degrees of freedom (Wilson-Hilferty).
    k = cells - 1
    return k * (1 - 2 / (9 * k) + 3.09 * math.sqrt(2 / (9 * k))) ** 3


N = 10_000


def _draws(ours, source):
    """N draws of ``ours``: its tensor draw (``make_batch_params``), or the native op's (one per row of N tiny
    images)."""
    if source == "python":
        return ours.make_batch_params([torch.empty(1, H, W)], N)
    images = torch.zeros(N, 1, 3, 3, dtype=torch.uint8)
    mode = 0 if ours._grid == "nearest" else 1
    _, ops, magnitudes = torch.ops.jitvision_native.augment_random_u8(
        images, *ours._native_spec, mode, None, True, None
    )
    return {"ops": ops, "magnitudes": magnitudes}


SOURCES = ["python", "native"] if _native.AUGMENT_RANDOM else ["python"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", ["RandAugment", "TrivialAugmentWide"])
def test_operations_are_uniform_like_torchvision(name, source):
    torch.manual_seed(0)
    ours, tv = CLASSES[name][0](), CLASSES[name][1]()
    params = _draws(ours, source)
    ops = params["ops"].reshape(-1)
    names = list(tv._AUGMENTATION_SPACE)
    counts = [int((ops == OP_INDEX[n]).sum()) for n in names]
    assert sum(counts) == ops.numel()  # nothing outside torchvision's space
    expected = [ops.numel() / len(names)] * len(names)
    assert _chi_square(counts, expected) < _bound(len(names))
    signed = params["magnitudes"].reshape(-1)[(ops >= 1) & (ops <= 9)]
    signed = signed[signed != 0]  # bin 0 of TrivialAugmentWide has no sign
    negative = int((signed < 0).sum())
    assert abs(negative - signed.numel() / 2) < 4 * math.sqrt(signed.numel() / 4)


@pytest.mark.parametrize("source", SOURCES)
def test_trivial_augment_bins_are_uniform(source):
    torch.manual_seed(1)
    ours = T.TrivialAugmentWide()
    params = _draws(ours, source)
    rotations = params["magnitudes"][params["ops"] == OP_INDEX["Rotate"]].abs()
    values = torch.linspace(0.0, 135.0, 31).double()
    bins = (rotations.unsqueeze(-1) == values).to(torch.int64).argmax(-1)
    counts = torch.bincount(bins, minlength=31).tolist()
    assert _chi_square(counts, [len(bins) / 31] * 31) < _bound(31)


_EAGER_DRAWS = {
    "AutoAugment-imagenet": lambda g: T.AutoAugment(T.AutoAugmentPolicy.IMAGENET, generator=g),
    "AutoAugment-cifar10": lambda g: T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, generator=g),
    "AutoAugment-svhn": lambda g: T.AutoAugment(T.AutoAugmentPolicy.SVHN, generator=g),
    "RandAugment": lambda g: T.RandAugment(num_ops=3, magnitude=9, generator=g),
    "RandAugment-11": lambda g: T.RandAugment(num_ops=2, magnitude=5, num_magnitude_bins=11, generator=g),
    "TrivialAugmentWide": lambda g: T.TrivialAugmentWide(generator=g),
    "TrivialAugmentWide-7": lambda g: T.TrivialAugmentWide(num_magnitude_bins=7, generator=g),
}


@pytest.mark.parametrize("name", list(_EAGER_DRAWS))
def test_eager_draw_equals_the_tensor_draw(name):
    # One eager sample draws on the host (Python numbers); the parameters must be the tensor draw's, bit for bit.
    seed = int(torch.randint(0, 2**31, ()).item())
    ours, reference = _EAGER_DRAWS[name](torch.Generator().manual_seed(seed)), _EAGER_DRAWS[name](
        torch.Generator().manual_seed(seed)
    )
    for k in range(200):
        height, width = int(torch.randint(8, 400, ())), int(torch.randint(8, 400, ()))
        image = torch.empty(1, height, width)
        got = ours.make_params([image])
        expected = {key: value[0] for key, value in reference.make_batch_params([image], 1).items()}
        assert got.keys() == expected.keys()
        for key in got:
            assert got[key].dtype == expected[key].dtype and got[key].shape == expected[key].shape
            assert torch.equal(got[key], expected[key]), (name, k, key, got, expected)


def test_host_randint_rounds_as_float32():
    from jitvision.transforms._auto_augment_policies import _randint, _randint_host

    for n in (7, 10, 13, 14, 25, 31):
        k = torch.arange(n, dtype=torch.float32)
        # uniforms at and around every boundary k / n, where a float64 product would floor differently
        u = torch.cat([k / n, torch.nextafter(k / n, torch.zeros(())), torch.nextafter(k / n, torch.ones(()))])
        u = torch.cat([u, torch.rand(2000)]).clamp(0.0, 1.0 - 2**-24)
        assert [_randint_host(x, n) for x in u.tolist()] == _randint(u, n).tolist()


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("policy", ["IMAGENET", "CIFAR10", "SVHN"])
def test_auto_augment_operations_follow_the_policy(policy, source):
    torch.manual_seed(2)
    ours = T.AutoAugment(T.AutoAugmentPolicy[policy])
    tv = tv_transforms.AutoAugment(tv_transforms.AutoAugmentPolicy[policy])
    ops = _draws(ours, source)["ops"]
    for step in range(2):
        expected = [0.0] * len(OP_NAMES)
        for sub_policy in tv._policies:
            op_name, probability, _ = sub_policy[step]
            expected[OP_INDEX[op_name]] += N * probability / len(tv._policies)
            expected[0] += N * (1 - probability) / len(tv._policies)
        counts = [int((ops[:, step] == k).sum()) for k in range(len(OP_NAMES))]
        assert all(c == 0 for c, e in zip(counts, expected) if e == 0)
        assert _chi_square(counts, expected) < _bound(sum(e > 0 for e in expected))


@pytest.mark.parametrize("all_ops", [True, False])
def test_aug_mix_draws(all_ops):
    torch.manual_seed(3)
    ours, tv = T.AugMix(all_ops=all_ops), tv_transforms.AugMix(all_ops=all_ops)
    params = ours.make_batch_params([torch.empty(1, H, W)], N)
    ops = params["ops"].reshape(N, 3, 3)
    space = tv._AUGMENTATION_SPACE if all_ops else tv._PARTIAL_AUGMENTATION_SPACE
    first = ops[:, :, 0].reshape(-1)
    counts = [int((first == OP_INDEX[n]).sum()) for n in space]
    assert sum(counts) == first.numel()
    assert _chi_square(counts, [first.numel() / len(space)] * len(space)) < _bound(len(space))
    depth = (ops != 0).sum(-1).reshape(-1)  # chain depth 1..3, uniform
    assert _chi_square(torch.bincount(depth, minlength=4)[1:].tolist(), [depth.numel() / 3] * 3) < _bound(3)
    mix = params["mix"]
    torch.testing.assert_close(mix.sum(-1), torch.ones(N))
    assert abs(float(mix[:, 0].mean()) - 0.5) < 0.02  # Beta(1, 1)


# ---- the classes on samples ----------------------------------------------------------------------------------------


def _force(name, op, magnitude):
    ops = torch.tensor([OP_INDEX[op]])
    params = {"ops": ops, "magnitudes": torch.tensor([magnitude], dtype=torch.float64)}
    if name == "AugMix":
        params = {"ops": ops, "magnitudes": params["magnitudes"], "mix": torch.tensor([0.25, 0.75])}
    return params


@pytest.mark.parametrize("name", ["AutoAugment", "RandAugment", "TrivialAugmentWide"])
@pytest.mark.parametrize("kind", ["uint8", "float", "Image", "Video", "PIL"])
def test_forced_operation_through_the_class_matches_torchvision(name, kind):
    ours, tv = CLASSES[name][0](fill=[3, 4, 5]), CLASSES[name][1](fill=[3, 4, 5])
    image = make_image(H, W, torch.float32 if kind == "float" else torch.uint8)
    sample = image
    if kind == "Image":
        sample = tv_tensors.Image(image)
    elif kind == "Video":
        sample = tv_tensors.Video(image[None].repeat(2, 1, 1, 1))
    elif kind == "PIL":
        sample = PIL.Image.fromarray(image.permute(1, 2, 0).numpy())
    for op, magnitude in [("Rotate", -13.5), ("ShearY", 0.2), ("TranslateX", 7.6), ("Solarize", 0.4), ("Color", 0.5)]:
        got = ours.transform(sample, _force(name, op, magnitude))
        plain = sample.as_subclass(torch.Tensor) if isinstance(sample, torch.Tensor) else sample
        expected = tv._apply_image_or_video_transform(plain, op, magnitude, interpolation="nearest", fill=tv._fill)
        if isinstance(sample, torch.Tensor) and type(sample) is not torch.Tensor:
            assert type(got) is type(sample)
            got = got.as_subclass(torch.Tensor)
        assert_matches_oracle(got, expected, what=f"{name} {op} {kind}")


def test_aug_mix_mixes_as_torchvision():
    image = make_image(H, W)
    ours, tv = T.AugMix(mixture_width=2, chain_depth=2), tv_transforms.AugMix()
    chains = [[("Equalize", 0.0), ("Rotate", 12.0)], [("Posterize", 3.0), ("Identity", 0.0)]]
    ops = torch.tensor([OP_INDEX[op] for chain in chains for op, _ in chain])
    magnitudes = torch.tensor([m for chain in chains for _, m in chain], dtype=torch.float64)
    mix = torch.tensor([0.2, 0.5, 0.3])
    got = ours.transform(image, {"ops": ops, "magnitudes": magnitudes, "mix": mix})
    expected = mix[0] * image
    for weight, chain in zip(mix[1:], chains):
        aug = image
        for op, magnitude in chain:
            if op != "Identity":
                aug = tv._apply_image_or_video_transform(aug, op, magnitude, interpolation="bilinear", fill=tv._fill)
        expected = expected + weight * aug
    assert_matches_oracle(got, expected.to(torch.uint8))


def test_aug_mix_on_pil_returns_pil():
    image = PIL.Image.fromarray(make_image(H, W).permute(1, 2, 0).numpy())
    assert isinstance(T.AugMix()(image), PIL.Image.Image)


@pytest.mark.parametrize("name", list(CLASSES))
def test_samples_follow_torchvision_s_rules(name):
    transform = CLASSES[name][0]()
    image, label = tv_tensors.Image(make_image(H, W)), torch.tensor(3)
    out = transform({"image": image, "label": label})
    assert type(out["image"]) is tv_tensors.Image and out["label"] is label
    with pytest.raises(TypeError, match=f"{name}.*BoundingBoxes"):
        transform({"image": image, "boxes": make_boxes((H, W))})
    with pytest.raises(TypeError, match=name):
        transform({"a": image, "b": tv_tensors.Image(make_image(H, W))})


# ---- per-sample batches ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CLASSES))
def test_batch_rows_get_their_own_operations(name):
    images = torch.stack([make_image(H, W) for _ in range(6)])
    params = assert_batch_rows_match_single(lambda g: CLASSES[name][0](generator=g), images)
    assert len({tuple(row.tolist()) for row in params["ops"]}) > 1


# ---- the four modes ------------------------------------------------------------------------------------------------


def _drawn(transform):
    def run(x):
        params = transform.make_params([x])
        return transform.transform(x, params), params["ops"], params["magnitudes"]

    return run


@pytest.mark.parametrize("name", list(CLASSES))
def test_compiles_to_one_graph_with_the_choice_and_magnitude_live(name):
    transform = CLASSES[name][0]()
    image = make_image(H, W)
    compiled, counter = compile_counted(_drawn(transform))
    torch.manual_seed(0)
    results = [compiled(image) for _ in range(50)]
    assert counter.frame_count == 1
    assert len({tuple(ops.tolist()) for _, ops, _ in results}) > 1
    assert len({tuple(m.tolist()) for _, _, m in results if (m != 0).any()}) > 1
    for out, ops, magnitudes in results[:10]:  # the compiled result is the drawn operations' result
        params = {"ops": ops, "magnitudes": magnitudes}
        if name == "AugMix":
            continue  # its mixing weights are not returned; the whole transform is checked below
        torch.testing.assert_close(out, transform.transform(image, params), rtol=0, atol=0)
    compiled, counter = compile_counted(transform)
    outputs = [compiled(image) for _ in range(12)]
    assert counter.frame_count == 1 and len({o.sum().item() for o in outputs}) > 1
    compiled, counter = compile_counted(lambda x: transform.forward_batch(x))
    assert len({o.sum().item() for o in compiled(image.expand(8, 3, H, W).contiguous())}) > 1


@pytest.mark.parametrize("name", list(CLASSES))
def test_no_recompiles_across_sizes_with_dynamic_shapes(name):
    transform = CLASSES[name][0]()
    compiled, counter = compile_counted(transform, dynamic=True)
    for size in [(H, W), (H + 4, W - 3), (40, 52)]:
        assert compiled(make_image(*size)).shape[-2:] == size
    assert counter.frame_count == 1


def test_inductor_equals_eager_under_forced_choices():
    transform = T.TrivialAugmentWide()
    compiled = torch.compile(
        lambda x, ops, magnitudes: transform.transform(x, {"ops": ops, "magnitudes": magnitudes}), fullgraph=True
    )
    image = make_image(H, W)
    for op in OP_NAMES[:14]:
        params = {"ops": torch.tensor([OP_INDEX[op]]), "magnitudes": torch.tensor([-0.4 if op != "Posterize" else 5.0],
                                                                                   dtype=torch.float64)}
        expected = transform.transform(image, params)
        torch.testing.assert_close(compiled(image, params["ops"], params["magnitudes"]), expected, rtol=0, atol=0)


@pytest.mark.parametrize("name", list(CLASSES))
def test_scripts_round_trips_and_stays_random(name, tmp_path):
    transform = CLASSES[name][0]()
    loaded = script_roundtrip(transform, tmp_path)
    image = make_image(H, W)
    assert len({loaded(image).sum().item() for _ in range(12)}) > 1
    torch.manual_seed(4)
    expected = transform(image)
    torch.manual_seed(4)
    torch.testing.assert_close(loaded(image), expected, rtol=0, atol=0)
    batch = loaded.forward_batch(image.expand(6, 3, H, W).contiguous())
    assert len({o.sum().item() for o in batch}) > 1


def test_export_runs_and_stays_random():
    # One class (an export traces every operation of each step: ~30 s per step on the loaded CI machine); the
    # forced-choice export below checks the operations' numerics.
    transform = SMALL["AugMix"]()
    image = make_image(H, W)
    module = torch.export.export(transform, (image,)).module()
    assert len({module(image).sum().item() for _ in range(12)}) > 1


def test_exported_cond_tree_equals_eager_under_forced_choices():
    # A float image: uint8 CPU images export as one jitvision_native::augment_step_u8 node instead of the tree
    # (tests/transforms/test_augment_native.py).
    transform = T.TrivialAugmentWide()

    class Forced(torch.nn.Module):
        def forward(self, x, ops, magnitudes):
            return transform.transform(x, {"ops": ops, "magnitudes": magnitudes})

    image = make_image(H, W, torch.float32)
    ops, magnitudes = torch.tensor([5]), torch.tensor([-7.5], dtype=torch.float64)
    module = torch.export.export(Forced(), (image, ops, magnitudes)).module()
    for op in OP_NAMES[:14]:
        ops = torch.tensor([OP_INDEX[op]])
        magnitudes = torch.tensor([0.3 if op != "Posterize" else 4.0], dtype=torch.float64)
        expected = transform.transform(image, {"ops": ops, "magnitudes": magnitudes})
        assert_matches_oracle(module(image, ops, magnitudes), expected, what=op)


# ---- bad input -----------------------------------------------------------------------------------------------------


def test_bad_arguments_raise_naming_the_class():
    with pytest.raises(ValueError, match="RandAugment"):
        T.RandAugment(num_ops=-1)
    with pytest.raises(ValueError, match="RandAugment"):
        T.RandAugment(magnitude=31)
    with pytest.raises(ValueError, match="TrivialAugmentWide"):
        T.TrivialAugmentWide(num_magnitude_bins=1)
    with pytest.raises(ValueError, match="AutoAugment"):
        T.AutoAugment("imagenet-v2")
    with pytest.raises(ValueError, match="AugMix"):
        T.AugMix(severity=11)
    with pytest.raises(ValueError, match="AugMix"):
        T.AugMix(severity=0)
    with pytest.raises(ValueError, match="AugMix"):
        T.AugMix(alpha=0.0)
    with pytest.raises(ValueError, match="AutoAugment"):
        T.AutoAugment(interpolation="bicubic")(make_image(H, W))
    with pytest.raises(TypeError, match="TrivialAugmentWide"):
        T.TrivialAugmentWide()(make_image(H, W, channels=4))
    assert T.AutoAugment(tv_transforms.AutoAugmentPolicy.CIFAR10).policy is T.AutoAugmentPolicy.CIFAR10
