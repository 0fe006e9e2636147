"""to_dtype / normalize and ToDtype / Normalize / Identity / Lambda in the four modes."""

import itertools
import warnings

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
import torchvision.tv_tensors as tvt
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    compile_counted,
    make_boxes,
    make_detection_sample,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
)

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.uint16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def _values(dtype: torch.dtype, shape=(3, 9, 11)) -> torch.Tensor:
    """Values in torchvision's range for ``dtype``, both ends included."""
    generator = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        return torch.rand(shape, generator=generator) > 0.5
    if dtype.is_floating_point:
        # below 0.99 so that float16/bfloat16 never round up to 1.0 (torchvision overflows there, see below)
        values = torch.rand(shape, generator=generator, dtype=torch.float64) * 0.99
        values.view(-1)[:2] = torch.tensor([0.0, 0.5], dtype=torch.float64)
        return values.to(dtype)
    high = int(torch.iinfo(dtype).max)
    values = (torch.rand(shape, generator=generator, dtype=torch.float64) * high).to(torch.int64)
    values.view(-1)[:2] = torch.tensor([0, high])
    return values.to(dtype)


def _outcome(fn):
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 - the exception class is what we compare
        return error


# ---- to_dtype -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("in_dtype, out_dtype", list(itertools.product(DTYPES, DTYPES)))
def test_to_dtype_matches_torchvision_for_every_dtype_pair(in_dtype, out_dtype, scale):
    image = _values(in_dtype)
    expected = _outcome(lambda: tv_functional.to_dtype(image, out_dtype, scale=scale))
    if scale and in_dtype == torch.float16 and out_dtype in (torch.int32, torch.int64):
        # torchvision overflows to inf (INT_MIN out); we refuse it like float32 -> int32
        expected = RuntimeError()
    if isinstance(expected, Exception):
        with pytest.raises(type(expected), match="to_dtype"):
            F.to_dtype(image, out_dtype, scale=scale)
        return
    actual = F.to_dtype(image, out_dtype, scale=scale)
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)


def test_float_to_int_saturates_where_torchvision_overflows():
    # torchvision: float16 1.0 * 255.999 rounds to 256 and wraps to 0; out-of-range floats are undefined.
    half = torch.tensor([0.0, 1.0], dtype=torch.float16)
    assert F.to_dtype(half, torch.uint8, scale=True).tolist() == [0, 255]
    wide = torch.tensor([-0.5, 0.5, 3.0])
    assert F.to_dtype(wide, torch.uint8, scale=True).tolist() == [0, 127, 255]
    assert F.to_dtype(wide, torch.int8, scale=True).tolist() == [-63, 63, 127]
    assert F.to_dtype(torch.tensor([1.0], dtype=torch.bfloat16), torch.int16, scale=True).item() == 32640


@pytest.mark.parametrize("dtype", [torch.uint32, torch.uint64])
def test_scaling_to_or_from_unsupported_integers_is_an_error(dtype):
    with pytest.raises(TypeError, match="to_dtype"):
        F.to_dtype(torch.rand(3, 4, 4), dtype, scale=True)
    with pytest.raises(TypeError, match="to_dtype"):
        F.to_dtype(torch.ones(3, 4, 4, dtype=dtype), torch.float32, scale=True)


def _kinds():
    yield "Image", tv_tensors.Image(make_image())
    yield "float-Image", tv_tensors.Image(make_image(dtype=torch.float32))
    yield "Video", tv_tensors.Video(make_image(batch=(2,)))
    yield "Mask", make_mask()
    yield "boxes", make_boxes(format="CXCYWH")
    yield "KeyPoints", make_keypoints()


@pytest.mark.parametrize(
    "name, inpt, dtype, scale",
    [
        (name, inpt, dtype, scale)
        for name, inpt in _kinds()
        for dtype in (torch.float32, torch.uint8, torch.int64)
        for scale in (False, True)
        # float32 -> int64 cannot be scaled: that error is tested with the dtype pairs
        if not (name == "float-Image" and dtype == torch.int64 and scale)
    ],
)
def test_to_dtype_matches_torchvision_on_every_kind(name, inpt, dtype, scale):
    expected = tv_functional.to_dtype(to_torchvision(inpt), dtype, scale=scale)
    assert_matches_oracle(F.to_dtype(inpt, dtype, scale=scale), expected, what=f"to_dtype({name})")
    # torchvision's tv_tensors come back as their own type
    assert_matches_oracle(F.to_dtype(to_torchvision(inpt), dtype, scale=scale), expected)


def test_convert_image_dtype_is_scaled_to_dtype():
    image = make_image()
    assert_matches_oracle(F.convert_image_dtype(image), tv_functional.convert_image_dtype(image))
    assert_matches_oracle(
        F.convert_image_dtype(image, torch.int16), tv_functional.convert_image_dtype(image, torch.int16)
    )


@pytest.mark.parametrize("bad", ["float", 3, None])
def test_to_dtype_rejects_a_non_dtype(bad):
    with pytest.raises(TypeError, match="to_dtype"):
        F.to_dtype(make_image(), bad)


def test_to_dtype_rejects_unknown_input_types():
    with pytest.raises(TypeError, match="to_dtype"):
        F.to_dtype("not an image", torch.float32)


# ---- normalize ------------------------------------------------------------------------------------------


def _normalize_inputs():
    yield "float32", make_image(dtype=torch.float32), MEAN, STD
    yield "float64-batched", make_image(dtype=torch.float64, batch=(2,)), MEAN, STD
    yield "one-value", make_image(dtype=torch.float32), [0.5], [0.25]
    yield "tuple", make_image(dtype=torch.float32), tuple(MEAN), tuple(STD)
    yield "Image", tv_tensors.Image(make_image(dtype=torch.float32)), MEAN, STD
    yield "Video", tv_tensors.Video(make_image(dtype=torch.float32, batch=(3,))), MEAN, STD
    yield "gray", make_image(dtype=torch.float32, channels=1), [0.5], [0.5]


@pytest.mark.parametrize("name, inpt, mean, std", list(_normalize_inputs()))
def test_normalize_matches_torchvision(name, inpt, mean, std):
    expected = tv_functional.normalize(to_torchvision(inpt), mean, std)
    assert_matches_oracle(F.normalize(inpt, mean, std), expected, what=f"normalize({name})")
    assert_matches_oracle(F.normalize(to_torchvision(inpt), mean, std), expected)


def test_normalize_inplace_writes_into_the_input_as_torchvision():
    ours = make_image(dtype=torch.float32)
    theirs = ours.clone()
    out = F.normalize(ours, MEAN, STD, inplace=True)
    tv_functional.normalize(theirs, MEAN, STD, inplace=True)
    assert out.data_ptr() == ours.data_ptr()
    torch.testing.assert_close(ours, theirs)
    image = tv_tensors.Image(make_image(dtype=torch.float32))
    before = image.clone()
    F.normalize(image, MEAN, STD, inplace=False)
    torch.testing.assert_close(image, before)


@pytest.mark.parametrize(
    "inpt, mean, std, error",
    [
        (make_image(dtype=torch.uint8), MEAN, STD, TypeError),
        (make_image(dtype=torch.float32), MEAN[:2], STD[:2], ValueError),
        (make_image(dtype=torch.float32), MEAN, [0.5, 0.0, 0.5], ValueError),
        (make_image(dtype=torch.float32), MEAN, 0.0, ValueError),
        (torch.rand(5, 5), [0.5], [0.5], ValueError),
        (make_image(dtype=torch.float32), ["a", 1, 2], STD, TypeError),
        ("not an image", MEAN, STD, TypeError),
    ],
)
def test_normalize_rejects_bad_input(inpt, mean, std, error):
    with pytest.raises(error, match="normalize"):
        F.normalize(inpt, mean, std)


def test_normalize_on_a_mask_is_rejected_like_torchvision():
    with pytest.raises(TypeError, match="normalize"):
        F.normalize(tv_tensors.Mask(torch.rand(1, 4, 4)), [0.5], [0.5])


# ---- classes --------------------------------------------------------------------------------------------


def _class_cases():
    yield "plain-dtype", lambda m: m.ToDtype(torch.float32, scale=True)
    yield "plain-dtype-unscaled", lambda m: m.ToDtype(torch.float64)
    yield (
        "dict",
        lambda m: m.ToDtype({m_tv(m).Image: torch.float32, m_tv(m).Mask: torch.int64, "others": None}, scale=True),
    )
    yield (
        "dict-boxes",
        lambda m: m.ToDtype(
            {m_tv(m).Image: torch.float16, m_tv(m).BoundingBoxes: torch.float64, "others": torch.int32}
        ),
    )
    yield "dict-none", lambda m: m.ToDtype({"others": None}, scale=False)


def m_tv(module):
    """The tv_tensors module that goes with a transforms module."""
    return tv_tensors if module is T else tvt


@pytest.mark.parametrize("name, build", list(_class_cases()))
def test_to_dtype_class_matches_torchvision(name, build):
    for sample in (make_detection_sample(), (tv_tensors.Image(make_image()), make_keypoints()), make_image()):
        expected = build(tv_transforms)(to_torchvision(sample))
        assert_matches_oracle(build(T)(sample), expected, what=name)
        # torchvision's tv_tensors in, torchvision's dtype keys: same answer
        assert_matches_oracle(build(T)(to_torchvision(sample)), expected, what=f"{name} (torchvision in)")


def test_to_dtype_class_with_torchvision_keys_and_jitvision_inputs():
    transform = T.ToDtype({tvt.Image: torch.float32, "others": None}, scale=True)
    sample = make_detection_sample()
    expected = tv_transforms.ToDtype({tvt.Image: torch.float32, "others": None}, scale=True)(to_torchvision(sample))
    assert_matches_oracle(transform(sample), expected)


def test_to_dtype_class_errors_and_warnings_as_torchvision():
    with pytest.raises(ValueError, match="ToDtype"):
        T.ToDtype("float32")
    with pytest.raises(ValueError, match="ToDtype"):
        T.ToDtype({tv_tensors.Image: "float32"})
    with pytest.raises(ValueError, match="ToDtype: No dtype was specified for"):
        T.ToDtype({tv_tensors.Image: torch.float32})(make_detection_sample())
    with pytest.warns(UserWarning, match="torch.Tensor"):
        T.ToDtype({torch.Tensor: torch.float32, tv_tensors.Image: torch.float32})
    with pytest.warns(UserWarning, match="scale"):
        T.ToDtype({tv_tensors.Image: None, "others": None}, scale=True)(make_detection_sample())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T.ToDtype({tv_tensors.Image: None, "others": None}, scale=False)(make_detection_sample())


def test_normalize_class_matches_torchvision():
    ours, theirs = T.Normalize(MEAN, STD), tv_transforms.Normalize(MEAN, STD)
    for sample in (
        make_detection_sample(dtype=torch.float32),
        (tv_tensors.Image(make_image(dtype=torch.float32)), make_keypoints()),
        make_image(dtype=torch.float32, batch=(2,)),
        tv_tensors.Video(make_image(dtype=torch.float32, batch=(2,))),
    ):
        assert_matches_oracle(ours(sample), theirs(to_torchvision(sample)))


def test_normalize_class_rejects_bad_arguments_and_pil():
    with pytest.raises(ValueError, match="Normalize"):
        T.Normalize(MEAN, [0.2, 0.0, 0.2])
    with pytest.raises(TypeError, match="Normalize"):
        T.Normalize("abc", STD)
    with pytest.raises(TypeError, match="Normalize"):
        T.Normalize([], STD)
    pil = PILImage.fromarray(make_image().permute(1, 2, 0).numpy())
    with pytest.raises(TypeError, match="Normalize"):
        T.Normalize(MEAN, STD)(pil)
    with pytest.raises(TypeError, match="normalize"):
        T.Normalize(MEAN, STD)(make_image())


def test_identity_and_lambda_match_torchvision():
    sample = make_detection_sample()
    assert_matches_oracle(T.Identity()(sample), tv_transforms.Identity()(to_torchvision(sample)))

    def double(x):
        return x * 2 if isinstance(x, torch.Tensor) else x

    for types in [(), (torch.Tensor,), (tv_tensors.Mask,)]:
        tv_types = tuple(getattr(tvt, t.__name__) if t is not torch.Tensor else t for t in types)
        expected = tv_transforms.Lambda(double, *tv_types)(to_torchvision(sample))
        actual = T.Lambda(double, *types)(sample)
        for key in sample:  # a Lambda returns what the function returns: compare values
            torch.testing.assert_close(
                actual[key].as_subclass(torch.Tensor), expected[key].as_subclass(torch.Tensor), msg=key
            )
    assert T.Lambda(str.upper, str)(["a", 1]) == tv_transforms.Lambda(str.upper, str)(["a", 1])
    with pytest.raises(TypeError, match="Lambda"):
        T.Lambda("not callable")


# ---- compile / script / export ------------------------------------------------------------------------


def _compile_samples():
    yield "float", make_image(dtype=torch.float32)
    yield "uint8", make_image()
    yield "Image", tv_tensors.Image(make_image())
    yield "Video", tv_tensors.Video(make_image(batch=(2,)))
    yield "detection", make_detection_sample()
    yield "Image+KeyPoints", (tv_tensors.Image(make_image()), make_keypoints())


def _as_float(sample):
    return T.ToDtype(torch.float32, scale=True)(sample)


CLASSES = {
    "ToDtype": lambda: T.ToDtype(torch.float32, scale=True),
    "ToDtype-dict": lambda: T.ToDtype({tv_tensors.Image: torch.float64, "others": torch.float16}, scale=True),
    "Normalize": lambda: T.Normalize(MEAN, STD),
    "Lambda": lambda: T.Lambda(lambda x: x + 1, tv_tensors.Image),
}


@pytest.mark.parametrize(
    "cls_name, name, sample",
    [
        (cls_name, name, sample)
        for cls_name in CLASSES
        for name, sample in _compile_samples()
        # the Lambda only touches Images: on the other samples there is nothing to compile
        if not (cls_name == "Lambda" and name in ("float", "uint8", "Video"))
    ],
)
def test_class_compiles_to_one_graph(cls_name, name, sample):
    transform = CLASSES[cls_name]()
    if cls_name == "Normalize":
        sample = _as_float(sample)
    out = assert_one_graph(transform, sample)
    assert_matches_oracle(out, transform(sample), what=f"{cls_name}({name})")


@pytest.mark.parametrize("name, sample", list(_compile_samples()))
def test_identity_compiles_without_a_break(name, sample):
    compiled, counter = compile_counted(T.Identity())
    assert_matches_oracle(compiled(sample), sample)
    assert counter.frame_count <= 1  # nothing to compute: dynamo may not even build a graph


@pytest.mark.parametrize("name, inpt", [(n, i) for n, i in _kinds()])
def test_functionals_compile_to_one_graph(name, inpt):
    out = assert_one_graph(lambda x: F.to_dtype(x, torch.float32, scale=True), inpt)
    assert_matches_oracle(out, F.to_dtype(inpt, torch.float32, scale=True))
    if name in ("Image", "Video", "float-Image"):
        floats = F.to_dtype(inpt, torch.float32, scale=True)
        out = assert_one_graph(lambda x: F.normalize(x, MEAN, STD), floats)
        assert_matches_oracle(out, F.normalize(floats, MEAN, STD))


def test_functionals_script():
    to_dtype, normalize = torch.jit.script(F.to_dtype), torch.jit.script(F.normalize)
    for in_dtype, out_dtype in [(torch.uint8, torch.float32), (torch.float32, torch.uint8), (torch.uint16, torch.int8)]:
        image = _values(in_dtype)
        for scale in (False, True):
            torch.testing.assert_close(to_dtype(image, out_dtype, scale), F.to_dtype(image, out_dtype, scale=scale))
    image = make_image(dtype=torch.float32)
    torch.testing.assert_close(normalize(image, MEAN, STD, False), F.normalize(image, MEAN, STD))
    with pytest.raises(torch.jit.Error, match="normalize"):
        normalize(make_image(), MEAN, STD, False)


@pytest.mark.parametrize(
    "build",
    [
        lambda: T.ToDtype(torch.float32, scale=True),
        lambda: T.ToDtype(torch.float16),
        lambda: T.ToDtype({torch.Tensor: torch.float64, "others": None}, scale=True),
        lambda: T.ToDtype({"others": None}, scale=True),
        lambda: T.Normalize(MEAN, STD),
        lambda: T.Normalize([0, 1, 2], [1, 2, 3], inplace=True),
        lambda: T.Identity(),
    ],
)
def test_classes_script_and_round_trip(build, tmp_path):
    transform = build()
    image = make_image(dtype=torch.float32) if isinstance(transform, T.Normalize) else make_image()
    loaded = script_roundtrip(transform, tmp_path)
    expected = transform(image.clone())
    actual = loaded(image.clone())
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual, expected)


def test_scripted_to_dtype_without_a_tensor_entry_raises():
    scripted = torch.jit.script(T.ToDtype({tv_tensors.Image: torch.float32}))
    with pytest.raises(torch.jit.Error, match="ToDtype"):
        scripted(make_image())


def test_lambda_does_not_script_and_says_why():
    def brighten(x):
        return x + 1

    with pytest.raises(TypeError, match=r"Lambda\(.*brighten\)"):
        torch.jit.script(T.Lambda(brighten))


@pytest.mark.parametrize(
    "transform, dtype",
    [
        (T.ToDtype(torch.float32, scale=True), torch.uint8),
        (T.Normalize(MEAN, STD), torch.float32),
    ],
)
def test_exports_with_dynamic_height_and_width(transform, dtype):
    height, width = torch.export.Dim("height", min=2, max=512), torch.export.Dim("width", min=2, max=512)
    program = torch.export.export(
        transform, (make_image(20, 30, dtype=dtype),), dynamic_shapes=({1: height, 2: width},)
    )
    for size in [(20, 30), (33, 17)]:
        image = make_image(*size, dtype=dtype)
        torch.testing.assert_close(program.module()(image), transform(image))


# ---- edge cases: convert_image_dtype, scalar mean and std ------------------------------------------------------------


def test_convert_image_dtype_scales_every_kind_and_returns_a_plain_tensor_like_torchvision():
    samples = [
        tv_tensors.Mask(torch.tensor([[[0, 1, 2]]], dtype=torch.uint8)),
        tv_tensors.Image(torch.randint(0, 256, (3, 4, 5), dtype=torch.uint8)),
        tv_tensors.BoundingBoxes(torch.tensor([[1, 2, 3, 4]]), format="XYXY", canvas_size=(10, 10)),
        tv_tensors.KeyPoints(torch.tensor([[0.25, 0.5]]), canvas_size=(10, 10)),  # in [0, 1]: no saturation
        torch.rand(3, 4, 5),
    ]
    for sample in samples:
        for dtype in (torch.float32, torch.float64, torch.uint8, torch.int16):
            try:
                theirs = tv_functional.convert_image_dtype(to_torchvision(sample), dtype)
            except RuntimeError:
                with pytest.raises(ValueError, match="to_dtype"):
                    F.convert_image_dtype(sample, dtype)
                continue
            ours = F.convert_image_dtype(sample, dtype)
            if sample.dtype == dtype:
                assert ours is sample
            assert_matches_oracle(ours, theirs, what=f"{type(sample).__name__} -> {dtype}")


@pytest.mark.parametrize("kernel", ["normalize_image", "normalize_video"])
def test_normalize_kernels_take_scalar_mean_and_std(kernel):
    image = torch.rand(2, 3, 5, 6)
    ours = getattr(F, kernel)(image, 0.5, 0.25)
    theirs = getattr(tv_functional, kernel)(image, 0.5, 0.25)
    assert_matches_oracle(ours, theirs)
    assert_matches_oracle(getattr(F, kernel)(image, [0.5], (0.25,)), theirs)
