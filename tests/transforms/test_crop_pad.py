"""crop / center_crop / pad and CenterCrop / Pad / RandomCrop in the four modes."""

import random

import numpy as np
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from jitvision.transforms.functional._geometry._crop import crop_at
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    assert_random_under_compile,
    compile_counted,
    make_boxes,
    make_detection_sample,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
)

MODES = ["constant", "edge", "reflect", "symmetric"]


def _kinds(height, width):
    """Every input kind at one size (name, input, whether it takes non-constant padding modes)."""
    yield "float", make_image(height, width, dtype=torch.float32), True
    yield "uint8", make_image(height, width), True
    yield "batched", make_image(height, width, batch=(2, 3)), True
    yield "Image", tv_tensors.Image(make_image(height, width)), True
    yield "Video", tv_tensors.Video(make_image(height, width, batch=(4,))), True
    yield "Mask", make_mask(height, width), True
    yield "Mask2d", tv_tensors.Mask(make_mask(height, width)[0]), True
    for fmt in ("XYXY", "XYWH", "CXCYWH"):
        yield f"boxes-{fmt}", make_boxes((height, width), format=fmt), False
        yield f"int-boxes-{fmt}", make_boxes((height, width), format=fmt, dtype=torch.int64), False
    yield "KeyPoints", make_keypoints((height, width)), False


def _pil(height=17, width=23, mode="RGB"):
    channels = {"RGB": 3, "L": 1, "RGBA": 4}[mode]
    array = make_image(height, width, channels=channels).permute(1, 2, 0).numpy()
    return PILImage.fromarray(array[..., 0] if channels == 1 else array, mode=mode)


def _random_cases(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        yield rng.randint(5, 30), rng.randint(5, 30), rng


# ---- functionals vs torchvision -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", range(6))
def test_crop_matches_torchvision(case):
    torch.manual_seed(case)
    ((height, width, rng),) = _random_cases(1, case)
    for name, inpt, _ in _kinds(height, width):
        # inside, partly outside on every side, wholly below/right of the image
        for top, left in [(rng.randint(0, height - 1), rng.randint(0, width - 1)), (-3, -2), (height + 2, width)]:
            # (torchvision mis-sizes crops that end above/left of the image, see the test below: not drawn here)
            crop_height, crop_width = rng.randint(max(1, 1 - top), height + 4), rng.randint(max(1, 1 - left), width + 4)
            args = (top, left, crop_height, crop_width)
            expected = tv_functional.crop(to_torchvision(inpt), *args)
            assert_matches_oracle(F.crop(inpt, *args), expected, what=f"crop({name}, {args})")


def test_crop_wholly_above_the_image_is_all_zeros():
    # torchvision slices with a negative end here and returns a wrongly sized output; we return zeros.
    image = make_image(10, 12)
    out = F.crop(image, -20, -30, 5, 6)
    assert out.shape == (3, 5, 6) and not out.any()
    assert F.crop_image_pil(_pil(10, 12), -20, -30, 5, 6).size == (6, 5)


@pytest.mark.parametrize("case", range(6))
def test_center_crop_matches_torchvision(case):
    torch.manual_seed(case)
    ((height, width, rng),) = _random_cases(1, case)
    sizes = [
        [rng.randint(1, height), rng.randint(1, width)],
        [height + rng.randint(1, 4), width - 1],
        rng.randint(1, 40),
    ]
    for name, inpt, _ in _kinds(height, width):
        for size in sizes:
            expected = tv_functional.center_crop(to_torchvision(inpt), size)
            assert_matches_oracle(F.center_crop(inpt, size), expected, what=f"center_crop({name}, {size})")


@pytest.mark.parametrize("difference", range(-5, 6))
def test_center_crop_rounds_the_anchor_like_torchvision(difference):
    image = torch.arange(20 * 21).reshape(1, 20, 21)
    size = [20 - difference, 21 - difference]
    torch.testing.assert_close(F.center_crop(image, size), tv_functional.center_crop(image, size))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", range(3))
def test_pad_matches_torchvision(mode, case):
    torch.manual_seed(case)
    ((height, width, rng),) = _random_cases(1, 10 + case)
    paddings = [
        rng.randint(0, 4),
        [rng.randint(0, 4)],
        [rng.randint(0, 4), rng.randint(0, 4)],
        [rng.randint(-2, 4) for _ in range(4)],
    ]
    for name, inpt, any_mode in _kinds(height, width):
        if not any_mode and mode != "constant":
            continue
        for padding in paddings:
            fill = 3 if inpt.dtype == torch.uint8 else 0.25
            ours = F.pad(inpt, padding, fill=fill, padding_mode=mode)
            theirs = tv_functional.pad(to_torchvision(inpt), padding, fill=fill, padding_mode=mode)
            assert_matches_oracle(ours, theirs, what=f"pad({name}, {padding}, {mode})")


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("padding", [[1, 2, 3, 4], [2, -1, 0, 3], [1]])
def test_pad_per_channel_fill_matches_torchvision(dtype, padding):
    image = make_image(dtype=dtype, batch=(2,))
    for fill in ([10.0, 20.0, 30.7], [5], 7.5):
        expected = tv_functional.pad(image, padding, fill=fill)
        assert_matches_oracle(F.pad(image, padding, fill=fill), expected, what=f"fill={fill}")


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA"])
def test_pil_matches_torchvision(mode):
    pil = _pil(mode=mode)
    assert_matches_oracle(F.crop(pil, -2, 3, 12, 25), tv_functional.crop(pil, -2, 3, 12, 25))
    for size in ([9, 9], [20, 30], [18, 4]):
        assert_matches_oracle(F.center_crop(pil, size), tv_functional.center_crop(pil, size))
    for padding_mode in MODES:
        for padding in ([1, 2, 3, 4], [2, -1, 0, 3], 3):
            ours = F.pad(pil, padding, fill=7, padding_mode=padding_mode)
            assert_matches_oracle(ours, tv_functional.pad(pil, padding, fill=7, padding_mode=padding_mode))
    if mode == "RGB":
        assert_matches_oracle(F.pad(pil, [2], fill=[1, 2, 3]), tv_functional.pad(pil, [2], fill=[1, 2, 3]))


def test_torchvision_tv_tensors_come_back_as_their_type():
    for inpt in (to_torchvision(make_boxes(format="XYWH")), to_torchvision(make_keypoints())):
        assert_matches_oracle(F.crop(inpt, 1, 2, 8, 9), tv_functional.crop(inpt, 1, 2, 8, 9))
        assert_matches_oracle(F.center_crop(inpt, [8, 9]), tv_functional.center_crop(inpt, [8, 9]))
        assert_matches_oracle(F.pad(inpt, [1, 2]), tv_functional.pad(inpt, [1, 2]))


def test_boxes_without_clamping_are_not_clamped():
    boxes = tv_tensors.BoundingBoxes([[0, 0, 20, 15]], format="XYXY", canvas_size=(17, 23), clamping_mode=None)
    expected = tv_functional.crop(to_torchvision(boxes), 2, 3, 5, 5)
    assert_matches_oracle(F.crop(boxes, 2, 3, 5, 5), expected)


# ---- classes ------------------------------------------------------------------------------------------------


def test_center_crop_and_pad_classes_match_torchvision():
    import torchvision.tv_tensors as tvt

    sample = make_detection_sample()
    for ours, theirs in [
        (T.CenterCrop(10), tv_transforms.CenterCrop(10)),
        (T.CenterCrop([20, 30]), tv_transforms.CenterCrop([20, 30])),
        (T.Pad([1, 2, 3, 4], fill=5), tv_transforms.Pad([1, 2, 3, 4], fill=5)),
        # fill per type, keyed by our types or by torchvision's
        (
            T.Pad(2, fill={tv_tensors.Image: 9, tv_tensors.Mask: 1}),
            tv_transforms.Pad(2, fill={tvt.Image: 9, tvt.Mask: 1}),
        ),
        (T.Pad([1, 2], fill={tvt.Image: [1, 2, 3]}), tv_transforms.Pad([1, 2], fill={tvt.Image: [1, 2, 3]})),
    ]:
        assert_matches_oracle(ours(sample), theirs(to_torchvision(sample)), what=repr(ours))
    image = make_image(dtype=torch.float32)
    assert_matches_oracle(T.Pad(3, padding_mode="reflect")(image), tv_transforms.Pad(3, padding_mode="reflect")(image))


PAD_CLASS_CASES = [
    dict(padding=10),  # the bench row (fill 0, constant)
    dict(padding=[1, 2, 3, 4], fill=7),
    dict(padding=[2, 0], fill=2.5),
    dict(padding=[3], fill=[4]),
    dict(padding=2, fill=[1, 2, 3]),
    dict(padding=[2, -1, 0, 3], fill=5),
    dict(padding=[0, 0]),
    dict(padding=1, fill=None),
    dict(padding=2, fill={torch.Tensor: 9, "others": 1}),
    *[dict(padding=[1, 2, 3, 1], padding_mode=mode) for mode in ("edge", "reflect", "symmetric")],
]


def _plain_layouts(dtype):
    """Plain tensors of ``dtype`` as the eager fast path meets them (name, tensor, whether it is empty)."""
    base = make_image(9, 13, dtype=torch.float32 if dtype.is_floating_point else torch.uint8, batch=(2,))
    base = (base > 127) if dtype == torch.bool else base.to(dtype)
    yield "contiguous", base[0], False
    yield "batched", base, False
    yield "channels-last", base[0].permute(1, 2, 0).contiguous().permute(2, 0, 1), False
    yield "crop view", base[0][:, 1:8, 2:11], False
    yield "empty", base[0][:, :, :0], True


@pytest.mark.parametrize("kwargs", PAD_CLASS_CASES, ids=repr)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.int16, torch.bool], ids=str)
def test_pad_class_on_plain_tensors_matches_torchvision(kwargs, dtype):
    # Pad's eager fast path (one plain tensor: the native pad op with the padding worked out once) against
    # torchvision's class, on every layout and dtype it may meet; the non-constant modes and per-channel fills
    # take the generic path there.
    mode = kwargs.get("padding_mode", "constant")
    if dtype == torch.bool and (mode != "constant" or isinstance(kwargs.get("fill"), list)):
        return  # torchvision has no bool kernel for these (torch's replicate/reflect pad; a float fill tensor)
    ours, theirs = T.Pad(**kwargs), tv_transforms.Pad(**kwargs)
    for name, image, empty in _plain_layouts(dtype):
        if empty and (mode != "constant" or min(ours._padding) < 0):
            continue  # an empty image only pads with a constant and non-negative amounts (both raise otherwise)
        for _ in range(2):  # the first call works the plan out, the second reuses it
            assert_matches_oracle(ours(image), theirs(image), what=f"{kwargs} {dtype} {name}")


def test_pad_with_a_huge_integral_fill_on_float_images_matches_torchvision():
    image = make_image(dtype=torch.float32)
    for fill in (1e30, 2**70, -(2.0**63), 2.0**63):
        assert_matches_oracle(T.Pad(2, fill=fill)(image), tv_transforms.Pad(2, fill=fill)(image), what=str(fill))
        assert_matches_oracle(F.pad(image, [1, 2], fill=fill), tv_functional.pad(image, [1, 2], fill=fill))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(size=10),
        dict(size=[8, 20], padding=[1, 2]),
        dict(size=[25, 30], pad_if_needed=True, fill=3),
        dict(size=[20, 12], padding=[1, 0, 2, 1], pad_if_needed=True),
        dict(size=[17, 23]),
        dict(size=[17, 9]),
    ],
)
def test_random_crop_equals_torchvision_functionals_at_the_drawn_offset_and_covers_every_offset(kwargs):
    sample = make_detection_sample()
    transform = T.RandomCrop(**kwargs)
    plan = transform._plan(17, 23)
    left, top, right, bottom, padded_height, padded_width = plan
    crop_height, crop_width = transform.size
    seen = set()
    for seed in range(60):
        torch.manual_seed(seed)
        params = transform.make_params([sample["image"]])
        offset = [params["top"], params["left"]]
        seen.add(tuple(offset))
        torch.manual_seed(seed)  # the call draws what make_params drew
        got = transform(sample)["image"]
        expected_image = tv_functional.crop(
            tv_functional.pad(to_torchvision(sample["image"]), [left, top, right, bottom], fill=kwargs.get("fill", 0)),
            offset[0],
            offset[1],
            crop_height,
            crop_width,
        )
        assert_matches_oracle(got, expected_image, what=f"{kwargs} {offset}")
    rooms = (padded_height - crop_height + 1) * (padded_width - crop_width + 1)
    assert all(0 <= t <= padded_height - crop_height and 0 <= s <= padded_width - crop_width for t, s in seen)
    assert len(seen) >= min(rooms, 20)


def test_random_crop_compiles_once_across_input_sizes():
    compiled, counter = compile_counted(T.RandomCrop(16), dynamic=True)
    for size in [(20, 24), (31, 40), (48, 33), (64, 64)]:
        assert compiled(make_image(*size)).shape == (3, 16, 16)
    assert counter.frame_count == 1


class _RandomCropAt(T.RandomCrop):
    """A RandomCrop whose ``make_params`` gives the crop a fixed offset (torchvision's way of editing the drawn
    parameters in a subclass)."""

    def __init__(self, top_left, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.top_left = list(top_left)

    def make_params(self, flat_inputs):
        params = super().make_params(flat_inputs)
        params["top"], params["left"] = self.top_left
        return params


@pytest.mark.parametrize("padding_mode", MODES)
def test_random_crop_with_given_offset_matches_torchvision_functionals(padding_mode):
    image = tv_tensors.Image(make_image(dtype=torch.float32))
    transform = _RandomCropAt([4, 1], [15, 20], padding=[2, 3], pad_if_needed=True, padding_mode=padding_mode)
    padded = tv_functional.pad(to_torchvision(image), [2, 3], padding_mode=padding_mode)
    assert_matches_oracle(transform(image), tv_functional.crop(padded, 4, 1, 15, 20))


@pytest.mark.parametrize(
    "kwargs", [dict(size=5), dict(size=(9, 3), padding=[1, 2, 3, 4]), dict(size=40, pad_if_needed=True)]
)
def test_random_crop_eager_draw_equals_the_tensor_draw(kwargs):
    eager = T.RandomCrop(**kwargs, generator=torch.Generator().manual_seed(2))
    traced = T.RandomCrop(**kwargs, generator=torch.Generator().manual_seed(2))
    for height, width in [(30, 40), (9, 9), (13, 300)] * 30:
        # make_params draws on the host with Python floats; make_batch_params draws the same uniforms as tensors
        image = torch.empty(1, height, width)
        params = eager.make_params([image])
        assert traced.make_batch_params([image], 1)["top_left"][0].tolist() == [params["top"], params["left"]]


def test_random_crop_generator_is_reproducible():
    image = make_image(dtype=torch.float32)
    first = T.RandomCrop(9, generator=torch.Generator().manual_seed(3))(image)
    second = T.RandomCrop(9, generator=torch.Generator().manual_seed(3))(image)
    torch.testing.assert_close(first, second)


# ---- compile ------------------------------------------------------------------------------------------------


def _compile_inputs():
    for name, inpt, _ in _kinds(17, 23):
        if name in ("float", "uint8", "Image", "Video", "Mask", "boxes-XYWH", "KeyPoints"):
            yield name, inpt


FUNCTIONAL_CALLS = [
    ("crop", lambda x: F.crop(x, -2, 3, 12, 25)),
    ("center_crop", lambda x: F.center_crop(x, [10, 30])),
    ("pad", lambda x: F.pad(x, [1, 2, 3, 4])),
]


@pytest.mark.parametrize("op, call", FUNCTIONAL_CALLS)
@pytest.mark.parametrize("name, inpt", list(_compile_inputs()))
def test_functional_compiles_to_one_graph(op, call, name, inpt):
    assert_matches_oracle(assert_one_graph(call, inpt), call(inpt), what=f"{op}({name})")


@pytest.mark.parametrize("name, inpt", list(_compile_inputs()))
def test_crop_at_traces_to_one_graph_and_matches_crop(name, inpt):
    top_left = torch.tensor([3, 5])
    out = assert_one_graph(lambda x, offset: crop_at(x, offset, 9, 11), inpt, top_left)
    assert_matches_oracle(out, F.crop(inpt, 3, 5, 9, 11), what=name)


def test_classes_compile_once_and_random_crop_stays_random():
    sample = make_detection_sample()
    for transform in (T.CenterCrop(10), T.Pad(2)):
        assert_matches_oracle(assert_one_graph(transform, sample), transform(sample), what=repr(transform))
    dense_sample = (tv_tensors.Image(make_image()), make_mask())
    for transform in (T.Pad([1, 2], padding_mode="edge"), T.Pad([1, 2], fill={tv_tensors.Image: [1, 2, 3]})):
        assert_matches_oracle(assert_one_graph(transform, dense_sample), transform(dense_sample))
    transform = T.RandomCrop(11, padding=1)
    for inpt in (
        make_image(dtype=torch.float32),
        make_image(),
        tv_tensors.Image(make_image()),
        tv_tensors.Video(make_image(batch=(3,))),
        sample,
        (tv_tensors.Image(make_image()), make_keypoints()),
    ):
        assert_random_under_compile(transform, inpt)


# ---- script ----------------------------------------------------------------------------------------------------


def test_functionals_script():
    image = make_image(dtype=torch.float32)
    for functional, args in [
        (F.crop, (-2, 3, 12, 25)),
        (F.center_crop, ([10, 30],)),
        (F.pad, ([1, 2, 3, 4], [1.0, 2.0, 3.0])),
        (F.pad, ([2], 1.5, "symmetric")),
        (F.pad, ([1, -2], None, "reflect")),
    ]:
        torch.testing.assert_close(torch.jit.script(functional)(image, *args), functional(image, *args))


def test_classes_script(tmp_path):
    image = make_image(dtype=torch.float32)
    for transform in (
        T.CenterCrop([10, 30]),
        T.Pad([1, 2, 3, 4], fill=[1, 2, 3]),
        T.Pad(2, fill=4, padding_mode="edge"),
        T.RandomCrop(23, pad_if_needed=True, fill=2.0),
    ):
        loaded = script_roundtrip(transform, tmp_path)
        torch.manual_seed(0)
        scripted_out = loaded(image)
        torch.manual_seed(0)  # the scripted RandomCrop draws from the global RNG like the eager one
        torch.testing.assert_close(scripted_out, transform(image))
    loaded = script_roundtrip(T.RandomCrop(9, padding=2), tmp_path)
    outputs = [loaded(image) for _ in range(10)]
    assert all(out.shape == (3, 9, 9) for out in outputs)
    assert len({tuple(out.flatten().tolist()) for out in outputs}) >= 2


# ---- export ------------------------------------------------------------------------------------------------------


def test_classes_export():
    image = make_image(dtype=torch.float32)
    for transform in (T.CenterCrop(10), T.Pad([1, 2], padding_mode="symmetric"), T.RandomCrop(15, padding=1)):
        program = torch.export.export(transform, (image,))
        out = program.module()(image)
        assert out.shape == transform(image).shape
        if isinstance(transform, T.RandomCrop):
            assert len({tuple(program.module()(image).flatten().tolist()) for _ in range(10)}) >= 2
        else:
            torch.testing.assert_close(out, transform(image))


@pytest.mark.parametrize(
    "dtype, wrap_as_image, strict",
    [(torch.uint8, False, False), (torch.float32, False, False), (torch.uint8, False, True), (torch.uint8, True, True)],
)
def test_center_crop_exports_with_dynamic_height_and_width(dtype, wrap_as_image, strict):
    # tv_tensor inputs need strict (dynamo) export: non-strict export sees them as plain tensors.
    height, width = torch.export.Dim("height", min=224, max=1024), torch.export.Dim("width", min=224, max=1024)
    transform = T.CenterCrop(224)
    wrap = tv_tensors.Image if wrap_as_image else (lambda x: x)
    program = torch.export.export(
        transform, (wrap(make_image(256, 300, dtype=dtype)),), dynamic_shapes=({1: height, 2: width},), strict=strict
    )
    for size in [(224, 225), (301, 257), (480, 640)]:
        image = make_image(*size, dtype=dtype)
        out = program.module()(wrap(image)).as_subclass(torch.Tensor)
        torch.testing.assert_close(out, tv_functional.center_crop(image, [224, 224]))


def test_inference_preset_exports_with_dynamic_height_and_width():
    height, width = torch.export.Dim("height", min=256, max=1024), torch.export.Dim("width", min=256, max=1024)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    ours, theirs = (
        module.Compose(
            [module.Resize(256), module.CenterCrop(224), module.ToDtype(torch.float32, scale=True)]
            + [module.Normalize(mean, std)]
        )
        for module in (T, tv_transforms)
    )
    program = torch.export.export(ours, (make_image(300, 400),), dynamic_shapes=({1: height, 2: width},))
    for size in [(256, 256), (333, 500), (640, 480)]:
        image = make_image(*size)
        torch.testing.assert_close(program.module()(image), theirs(image), atol=1e-5, rtol=0)


def test_center_crop_exports_when_the_image_may_be_smaller():
    height, width = torch.export.Dim("height", min=2, max=64), torch.export.Dim("width", min=2, max=64)
    transform = T.CenterCrop([20, 21])
    program = torch.export.export(transform, (make_image(30, 30),), dynamic_shapes=({1: height, 2: width},))
    for size in [(5, 40), (21, 20), (33, 64)]:
        image = make_image(*size)
        torch.testing.assert_close(program.module()(image), tv_functional.center_crop(image, [20, 21]))


# ---- bad input -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: F.crop(make_image(), 0, 0, -1, 5), ValueError, "crop"),
        (lambda: F.crop(torch.zeros(5), 0, 0, 2, 2), ValueError, "crop"),
        (lambda: F.center_crop(make_image(), [-1, 3]), ValueError, "center_crop"),
        (lambda: F.center_crop(make_image(), [1, 2, 3]), ValueError, "center_crop"),
        (lambda: F.pad(make_image(), [1, 2, 3]), ValueError, "pad"),
        (lambda: F.pad(make_image(), "1"), TypeError, "pad"),
        (lambda: F.pad(make_image(), [1], padding_mode="wrap"), ValueError, "pad"),
        (lambda: F.pad(make_image(), [1], fill=[1, 2]), ValueError, "pad"),
        (lambda: F.pad(torch.zeros(4, 4), [1]), ValueError, "pad"),
        (lambda: F.pad(make_boxes(), [1], padding_mode="edge"), ValueError, "pad"),
        (lambda: F.pad(make_mask(), [1], fill=[1, 2]), ValueError, "pad"),
        (lambda: F.crop("not an image", 0, 0, 2, 2), TypeError, "crop"),
        (lambda: F.center_crop(3, [2, 2]), TypeError, "center_crop"),
        (lambda: F.pad(np.zeros((3, 4, 4)), [1]), TypeError, "pad"),
        (lambda: T.CenterCrop(0), ValueError, "CenterCrop"),
        (lambda: T.CenterCrop([1, 2, 3]), ValueError, "CenterCrop"),
        (lambda: T.Pad([1, 2, 3]), ValueError, "Pad"),
        (lambda: T.Pad(1, padding_mode="wrap"), ValueError, "Pad"),
        (lambda: T.Pad(1, fill="red"), TypeError, "Pad"),
        (lambda: T.RandomCrop(-1), ValueError, "RandomCrop"),
        (lambda: T.RandomCrop(5, padding=[1, 2, 3]), ValueError, "RandomCrop"),
        (lambda: T.RandomCrop(30)(make_image()), ValueError, "RandomCrop"),
    ],
)
def test_bad_input_is_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- edge cases: empty crops, bool masks, padding modes --------------------------------------------------------------


@pytest.mark.parametrize("height, width", [(0, 4), (3, 0), (0, 0)])
def test_crops_of_zero_height_or_width_are_empty_as_in_torchvision(height, width):
    image = make_image(8, 9)
    for top, left in [(0, 0), (2, 3), (8, 9)]:
        assert_matches_oracle(
            F.crop(image, top, left, height, width), tv_functional.crop(image, top, left, height, width)
        )
    # outside the image: empty too (torchvision's pad turns -3 rows into 5 here: the documented difference)
    assert F.crop(image, -3, 20, height, width).shape == (3, height, width)
    assert_matches_oracle(F.center_crop(image, [height, width]), tv_functional.center_crop(image, [height, width]))
    boxes = make_boxes((8, 9))
    ours = F.crop(boxes, 1, 1, height, width)
    theirs = tv_functional.crop(to_torchvision(boxes), 1, 1, height, width)
    assert_matches_oracle(ours, theirs)
    # negative sizes stay errors (torchvision returns a tensor of some other size for them)
    with pytest.raises(ValueError, match="crop: the crop height and width must not be negative"):
        F.crop(image, 0, 0, -height - 1, width)


@pytest.mark.parametrize("padding_mode", ["edge", "reflect", "symmetric"])
def test_bool_masks_pad_in_every_mode(padding_mode):
    mask = tv_tensors.Mask(torch.rand(2, 6, 7) > 0.5)
    ours = F.pad(mask, [2, 1, 3, 1], padding_mode=padding_mode)
    theirs = tv_functional.pad(to_torchvision(mask), [2, 1, 3, 1], padding_mode=padding_mode)
    assert ours.dtype == torch.bool
    assert_matches_oracle(ours, theirs)
    wide = torch.randint(0, 60000, (1, 5, 5), dtype=torch.int32).to(torch.uint16)
    assert torch.equal(
        F.pad(wide, [2], padding_mode=padding_mode).to(torch.int32),
        F.pad(wide.to(torch.int32), [2], padding_mode=padding_mode),
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: F.pad(torch.rand(3, 45, 1), [7, -3, -2, -3], fill=0.5), "pad: padding .* removes more"),
        (lambda: F.pad(torch.rand(3, 4, 4), [-3, 0, -2, 0]), "pad: padding .* removes more"),
        (lambda: F.pad_mask(torch.zeros(1, 10, 37, dtype=torch.uint8), 3, fill=300), "pad: fill 300"),
        (lambda: F.pad(torch.zeros(3, 4, 4, dtype=torch.uint8), 1, fill=-1), "pad: fill -1"),
        (lambda: F.pad(torch.zeros(3, 4, 4, dtype=torch.int16), 1, fill=float("nan")), "pad: fill nan"),
        (lambda: F.pad(torch.rand(3, 4, 4), [4], padding_mode="reflect"), "pad: reflect padding"),
        (lambda: F.pad(torch.rand(3, 0, 4), [1], padding_mode="edge"), "pad: edge padding"),
        (lambda: F.pad(PILImage.new("L", (1, 1)), [0, -1, 0, 1], padding_mode="edge"), "pad: edge padding"),
        (lambda: F.pad(PILImage.new("L", (2, 2)), -2), "pad: padding .* removes more"),
    ],
)
def test_pad_errors_are_value_errors_naming_pad(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pad_classes_raise_value_error_for_a_padding_of_the_wrong_type():
    for make in (lambda: T.Pad(0.5), lambda: T.RandomCrop(5, padding=0.5), lambda: T.Pad([1.5])):
        with pytest.raises(ValueError, match="(Pad|RandomCrop): Padding must be"):
            make()
    with pytest.raises(TypeError, match="pad: Padding must be"):  # the functional raises TypeError, as torchvision's
        F.pad(make_image(), 0.5)
