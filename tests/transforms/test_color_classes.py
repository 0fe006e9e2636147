"""The photometric transform classes: against their functionals and torchvision, in the four modes, on batches."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from jitvision.transforms._color._jitter import _jitter_loop
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    assert_random_under_compile,
    compile_counted,
    make_detection_sample,
    make_image,
    script_roundtrip,
    to_torchvision,
)


def _narrow(dtype=torch.uint8, batch=(), height=17, width=23):
    """An image whose channels do not span the full range (so autocontrast and equalize change it)."""
    image = make_image(height, width, dtype=torch.float32, batch=batch) * 0.5 + 0.2
    return (image * 255).to(torch.uint8) if dtype == torch.uint8 else image.to(dtype)


# name, constructor, the functional call it makes when applied (None for the multi-step ones)
RANDOM_APPLY = [
    ("RandomInvert", lambda p: T.RandomInvert(p=p), lambda x: F.invert(x)),
    ("RandomPosterize", lambda p: T.RandomPosterize(bits=3, p=p), lambda x: F.posterize(x, 3)),
    ("RandomSolarize", lambda p: T.RandomSolarize(threshold=100.0, p=p), lambda x: F.solarize(x, 100.0)),
    ("RandomAutocontrast", lambda p: T.RandomAutocontrast(p=p), lambda x: F.autocontrast(x)),
    ("RandomEqualize", lambda p: T.RandomEqualize(p=p), lambda x: F.equalize(x)),
    (
        "RandomAdjustSharpness",
        lambda p: T.RandomAdjustSharpness(sharpness_factor=1.7, p=p),
        lambda x: F.adjust_sharpness(x, 1.7),
    ),
    ("RandomGrayscale", lambda p: T.RandomGrayscale(p=p), lambda x: F.rgb_to_grayscale(x, 3)),
]
RANDOM_APPLY_IDS = [case[0] for case in RANDOM_APPLY]

RANDOM_CLASSES = [
    T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    T.ColorJitter(brightness=(0.5, 1.5), saturation=0.7),
    T.RandomPhotometricDistort(),
    T.RandomChannelPermutation(),
    # thresholds valid for float images too
    *[T.RandomSolarize(0.5) if name == "RandomSolarize" else make(0.5) for name, make, _ in RANDOM_APPLY],
]
RANDOM_IDS = [
    "ColorJitter",
    "ColorJitter-bs",
    "RandomPhotometricDistort",
    "RandomChannelPermutation",
    *RANDOM_APPLY_IDS,
]
ALL_CLASSES = [*RANDOM_CLASSES, T.Grayscale(), T.Grayscale(3), T.RGB()]
ALL_IDS = [*RANDOM_IDS, "Grayscale", "Grayscale3", "RGB"]
# The slow compiles (ColorJitter's cond chains) once per class in the compile and export tests.
ONE_PER_CLASS = [(t, i) for t, i in zip(ALL_CLASSES, ALL_IDS) if i not in ("ColorJitter-bs", "Grayscale3")]


# ---- against the functionals and torchvision ------------------------------------------------------------------


@pytest.mark.parametrize("_name, make, functional", RANDOM_APPLY, ids=RANDOM_APPLY_IDS)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32], ids=str)
def test_random_apply_class_is_its_functional_or_identity(_name, make, functional, dtype):
    image = _narrow(dtype, batch=(2,))
    if dtype.is_floating_point and _name == "RandomSolarize":
        make, functional = (lambda p: T.RandomSolarize(0.5, p=p)), (lambda x: F.solarize(x, 0.5))
    assert_matches_oracle(make(1.0)(image), functional(image), float_atol=0)
    assert torch.equal(make(0.0)(image), image)


@pytest.mark.parametrize("_name, make, _functional", RANDOM_APPLY, ids=RANDOM_APPLY_IDS)
def test_random_apply_class_matches_torchvision_on_a_detection_sample(_name, make, _functional):
    sample = make_detection_sample()
    sample["image"] = tv_tensors.Image(_narrow())
    theirs = getattr(tv_transforms, _name)
    kwargs = {"RandomPosterize": {"bits": 3}, "RandomSolarize": {"threshold": 100.0}}.get(_name, {})
    if _name == "RandomAdjustSharpness":
        kwargs = {"sharpness_factor": 1.7}
    assert_matches_oracle(make(1.0)(sample), theirs(p=1.0, **kwargs)(to_torchvision(sample)), what=_name)


@pytest.mark.parametrize("cls, kwargs", [(T.Grayscale, {}), (T.Grayscale, {"num_output_channels": 3}), (T.RGB, {})])
def test_deterministic_classes_match_torchvision(cls, kwargs):
    sample = make_detection_sample()
    sample["video"] = tv_tensors.Video(make_image(batch=(2,)))  # passes through, as in torchvision
    theirs = getattr(tv_transforms, cls.__name__)(**kwargs)
    assert_matches_oracle(cls(**kwargs)(sample), theirs(to_torchvision(sample)), what=cls.__name__)
    gray = make_image(channels=1)
    assert_matches_oracle(cls(**kwargs)(gray), theirs(gray))
    pil = PILImage.fromarray(make_image().permute(1, 2, 0).numpy())
    assert_matches_oracle(cls(**kwargs)(pil), theirs(pil))


# make_params' torchvision keys of the four factors
FACTOR_KEYS = ("brightness_factor", "contrast_factor", "saturation_factor", "hue_factor")


def test_color_jitter_is_its_functionals_in_the_drawn_order():
    transform = T.ColorJitter(0.5, 0.5, 0.5, 0.2)
    for dtype in (torch.uint8, torch.float32):
        for _ in range(6):
            image = make_image(dtype=dtype)
            params = transform.make_params([image])  # torchvision's keys: fn_idx and the four factors
            factors = [params[key] for key in FACTOR_KEYS]
            expected = image
            for op in params["fn_idx"].tolist():
                functional = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)[op]
                expected = functional(expected, factors[op])
            assert_matches_oracle(transform.transform(image, params), expected, float_atol=0)
            pil = PILImage.fromarray(make_image(dtype=torch.uint8).permute(1, 2, 0).numpy())
            expected_pil = pil
            for op in params["fn_idx"].tolist():
                functional = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)[op]
                expected_pil = functional(expected_pil, factors[op])
            assert_matches_oracle(transform.transform(pil, params), expected_pil)


def test_color_jitter_draws_ranges_like_torchvision():
    transform = T.ColorJitter(brightness=0.3, contrast=(0.2, 0.4), saturation=0, hue=0.1)
    theirs = tv_transforms.ColorJitter(brightness=0.3, contrast=(0.2, 0.4), saturation=0, hue=0.1)
    assert transform.brightness == theirs.brightness and transform.contrast == theirs.contrast
    assert transform.saturation is None and theirs.saturation is None and transform.hue == theirs.hue
    probe = [torch.empty(3, 8, 8)]
    factors = transform.make_batch_params(probe, 2000)["factors"]
    assert 0.7 <= factors[:, 0].min() and factors[:, 0].max() <= 1.3
    assert 0.2 <= factors[:, 1].min() and factors[:, 1].max() <= 0.4
    assert -0.1 <= factors[:, 3].min() and factors[:, 3].max() <= 0.1
    orders = transform.make_batch_params(probe, 2000)["order"]
    assert len({tuple(row) for row in orders.tolist()}) == 24  # every order is drawn


def test_photometric_distort_is_its_functionals_under_forced_parameters():
    transform = T.RandomPhotometricDistort(p=0.5)
    for dtype in (torch.uint8, torch.float32):
        for _ in range(8):
            image = make_image(dtype=dtype)
            params = transform.make_params([image])  # torchvision's keys: a factor is None where not applied
            factors = [params[key] for key in FACTOR_KEYS]
            before = params["contrast_before"]
            expected = image
            if factors[0] is not None:
                expected = F.adjust_brightness(expected, factors[0])
            if factors[1] is not None and before:
                expected = F.adjust_contrast(expected, factors[1])
            if factors[2] is not None:
                expected = F.adjust_saturation(expected, factors[2])
            if factors[3] is not None:
                expected = F.adjust_hue(expected, factors[3])
            if factors[1] is not None and not before:
                expected = F.adjust_contrast(expected, factors[1])
            if params["channel_permutation"] is not None:
                expected = F.permute_channels(expected, params["channel_permutation"].tolist())
            assert_matches_oracle(transform.transform(image, params), expected, float_atol=0)


def test_photometric_distort_matches_torchvision_when_everything_applies():
    # With p=1 and a fixed contrast position the only randomness left is the factors and the permutation: force
    # narrow ranges so torchvision's draw and ours give the same image within the tolerance.
    kwargs = {"brightness": (1.2, 1.2), "contrast": (0.7, 0.7), "saturation": (1.3, 1.3), "hue": (0.05, 0.05)}
    sample = make_detection_sample()
    ours = T.RandomPhotometricDistort(p=1.0, **kwargs)
    theirs = tv_transforms.RandomPhotometricDistort(p=1.0, **kwargs)
    torch.manual_seed(0)
    out = ours(sample)
    for key in ("boxes", "masks", "labels"):
        assert out[key] is sample[key] or torch.equal(out[key], sample[key])
    torch.manual_seed(1)  # a fixed stream: 100 draws among torchvision's 12 outcomes (contrast position x permutation)
    for _ in range(100):  # find the draw we made
        expected = theirs(to_torchvision(sample))
        try:
            assert_matches_oracle(out, expected)
            return
        except AssertionError:
            continue
    raise AssertionError("no torchvision draw reproduced the distortion")


def test_channel_permutation_is_permute_channels_with_the_drawn_permutation():
    transform = T.RandomChannelPermutation()
    for channels in (1, 3, 4):
        image = make_image(channels=channels)
        params = transform.make_params([image])  # torchvision's key: the permutation itself
        perm = params["permutation"].tolist()
        assert sorted(perm) == list(range(channels))
        assert torch.equal(transform.transform(image, params), F.permute_channels(image, perm))
    seen = {tuple(transform(torch.arange(3.0).view(3, 1, 1)).flatten().tolist()) for _ in range(200)}
    assert len(seen) == 6


@pytest.mark.parametrize("transform", RANDOM_CLASSES, ids=RANDOM_IDS)
def test_boxes_masks_and_keypoints_pass_through(transform):
    sample = make_detection_sample()
    sample["points"] = tv_tensors.KeyPoints(torch.rand(4, 2) * 10, canvas_size=(17, 23))
    out = transform(sample)
    for key in ("boxes", "masks", "labels", "points"):
        assert type(out[key]) is type(sample[key]) and torch.equal(out[key], sample[key])


# ---- torch.compile ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "transform",
    [t for t, i in ONE_PER_CLASS if t in RANDOM_CLASSES],
    ids=[i for t, i in ONE_PER_CLASS if t in RANDOM_CLASSES],
)
def test_random_class_compiles_once_and_stays_random(transform):
    assert_random_under_compile(transform, _narrow(torch.float32))
    sample = make_detection_sample()
    sample["image"] = tv_tensors.Image(_narrow())
    assert_random_under_compile(transform, sample)


@pytest.mark.parametrize("transform", [T.Grayscale(), T.RGB()], ids=["Grayscale", "RGB"])
def test_deterministic_class_compiles_to_one_graph(transform):
    sample = make_detection_sample()
    assert_matches_oracle(assert_one_graph(transform, sample), transform(sample), float_atol=0)


def test_compiled_color_jitter_keeps_the_order_live():
    transform = T.ColorJitter(0.5, 0.5, 0.5, 0.2)
    image = make_image(dtype=torch.uint8)

    def jitter(x, order, factors):
        return transform.transform(x, {"order": order, "factors": factors})

    compiled, counter = compile_counted(jitter)
    factors = torch.tensor([1.3, 0.6, 1.4, 0.15])
    outputs = set()
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [3, 0, 1, 2]):
        order_t = torch.tensor(order)
        out = compiled(image, order_t, factors)
        assert_matches_oracle(out, _jitter_loop(image, order, factors, transform._present), float_atol=0)
        outputs.add(tuple(out.flatten().tolist()))
    assert counter.frame_count == 1 and len(outputs) == 5


def test_compiled_random_class_equals_eager_under_the_same_seed():
    for transform in (T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomPhotometricDistort()):
        image = make_image(dtype=torch.uint8)
        compiled, _ = compile_counted(transform)
        for seed in range(4):
            torch.manual_seed(seed)
            expected = transform(image)
            torch.manual_seed(seed)
            assert_matches_oracle(compiled(image), expected, float_atol=0)


def test_inductor_color_jitter_matches_eager_on_a_batch():
    transform = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    batch = make_image(20, 24, batch=(3,))
    params = transform.make_batch_params([batch], 3)
    torch._dynamo.reset()
    compiled = torch.compile(transform.transform_batch, fullgraph=True)
    assert_matches_oracle(compiled(batch, params), transform.transform_batch(batch, params))


# ---- TorchScript and export ------------------------------------------------------------------------------------


@pytest.mark.parametrize("transform", ALL_CLASSES, ids=ALL_IDS)
def test_class_scripts_saves_and_stays_random(transform, tmp_path):
    image = _narrow(torch.uint8)
    loaded = script_roundtrip(transform, tmp_path)
    torch.manual_seed(3)
    expected = transform(image)
    torch.manual_seed(3)
    assert_matches_oracle(loaded(image), expected, float_atol=0)
    if transform in RANDOM_CLASSES:
        assert len({tuple(loaded(image).flatten().tolist()) for _ in range(12)}) >= 2
        batch = _narrow(torch.uint8, batch=(3,))
        torch.manual_seed(4)
        expected = transform.forward_batch(batch) if hasattr(transform, "forward_batch") else None
        if expected is not None:
            torch.manual_seed(4)
            assert_matches_oracle(loaded.forward_batch(batch), expected, float_atol=0)


@pytest.mark.parametrize("transform", [t for t, _ in ONE_PER_CLASS], ids=[i for _, i in ONE_PER_CLASS])
def test_class_exports(transform):
    image = _narrow(torch.float32)
    program = torch.export.export(transform, (image,))
    torch.manual_seed(5)
    expected = transform(image)
    torch.manual_seed(5)
    assert_matches_oracle(program.module()(image), expected)


@pytest.mark.parametrize("transform", [T.Grayscale(3), T.RGB()], ids=["Grayscale", "RGB"])
def test_deterministic_class_exports_with_dynamic_height_and_width(transform):
    height, width = torch.export.Dim("height", min=8, max=256), torch.export.Dim("width", min=8, max=256)
    program = torch.export.export(transform, (make_image(20, 24),), dynamic_shapes=({1: height, 2: width},))
    for size in ((20, 24), (31, 9)):
        image = make_image(*size)
        assert_matches_oracle(program.module()(image), transform(image))


# ---- batches: per-sample parameters ----------------------------------------------------------------------------


def _row(params, index):
    return {key: value[index] for key, value in params.items()}


@pytest.mark.parametrize("transform", RANDOM_CLASSES, ids=RANDOM_IDS)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32], ids=str)
def test_transform_batch_is_the_transform_of_each_row_with_its_parameters(transform, dtype):
    for batch in (_narrow(dtype, batch=(5,)), _narrow(dtype, batch=(3, 2))):  # images, then videos [B, T, C, H, W]
        params = transform.make_batch_params([batch], batch.shape[0])
        assert all(value.shape[0] == batch.shape[0] for value in params.values())
        out = transform.transform_batch(batch, params)
        for index in range(batch.shape[0]):
            expected = transform.transform(batch[index], _row(params, index))
            # uint8 exactly; floats within a few ulps (the batch blends with addcmul, eager with mul + add_(alpha))
            assert_matches_oracle(out[index], expected, float_atol=1e-6, what=f"row {index}")


@pytest.mark.parametrize("transform", RANDOM_CLASSES, ids=RANDOM_IDS)
def test_batch_params_differ_per_row_and_match_make_params(transform):
    probe = [torch.empty(3, 17, 23)]
    params = transform.make_batch_params(probe, 64)
    assert any(len({tuple(row) for row in value.reshape(64, -1).tolist()}) > 1 for value in params.values())
    if type(transform).__name__ in ("ColorJitter", "RandomPhotometricDistort", "RandomChannelPermutation"):
        return  # make_params gives torchvision's keys (tests/transforms/test_make_params_torchvision.py)
    one = transform.make_params(probe)
    if isinstance(transform, T.RandomApplyTransform) and set(params) == {"apply"}:
        assert one == {}  # torchvision's: the coin of a coin-only class is drawn before make_params
        return
    assert set(one) == set(params) and all(one[k].shape == params[k].shape[1:] for k in one)


def test_color_jitter_orders_differ_per_sample_in_a_batch():
    transform = T.ColorJitter(0.5, 0.5, 0.5, 0.2)
    params = transform.make_batch_params([torch.empty(3, 8, 8)], 16)
    assert len({tuple(row) for row in params["order"].tolist()}) > 1


# ---- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, error, name",
    [
        (lambda: T.ColorJitter(brightness=-0.1), ValueError, "ColorJitter"),
        (lambda: T.ColorJitter(hue=0.6), ValueError, "ColorJitter"),
        (lambda: T.ColorJitter(contrast=(1.5, 0.5)), ValueError, "ColorJitter"),
        (lambda: T.ColorJitter(saturation=[1, 2, 3]), TypeError, "ColorJitter"),
        (lambda: T.RandomPhotometricDistort(hue=(-0.6, 0.1)), ValueError, "RandomPhotometricDistort"),
        (lambda: T.RandomPhotometricDistort(p=2.0), ValueError, "RandomPhotometricDistort"),
        (lambda: T.Grayscale(2), ValueError, "Grayscale"),
        (lambda: T.RandomPosterize(bits=9), TypeError, "RandomPosterize"),
        (lambda: T.RandomSolarize(threshold="high"), TypeError, "RandomSolarize"),
        (lambda: T.RandomAdjustSharpness(sharpness_factor=-1.0), ValueError, "RandomAdjustSharpness"),
        (lambda: T.RandomInvert(p=1.5), ValueError, "RandomInvert"),
    ],
)
def test_bad_arguments_raise_errors_naming_the_class(build, error, name):
    with pytest.raises(error, match=f"^{name}"):
        build()


def test_wrong_channel_counts_are_rejected():
    with pytest.raises(TypeError, match="^ColorJitter"):
        T.ColorJitter(0.5)(make_image(channels=2))
    with pytest.raises(TypeError, match="^RandomPhotometricDistort"):
        T.RandomPhotometricDistort(p=1.0)(make_image(channels=4))
    with pytest.raises(TypeError, match="^rgb_to_grayscale"):
        T.Grayscale()(make_image(channels=2))
