"""resize / resized_crop and Resize / RandomResizedCrop in the four modes, against torchvision."""

import random

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from jitvision.transforms.functional._geometry._resized_crop import resized_crop_at
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    assert_random_under_compile,
    hits_torch_width_one_bug,
    make_boxes,
    make_detection_sample,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
    torchvision_resize_transposed,
)

MODES = ["nearest", "nearest-exact", "bilinear", "bicubic"]
KINDS = ["tensor", "Image", "Video", "Mask", "Mask2d", "XYXY", "XYWH", "CXCYWH", "int-XYXY", "int-CXCYWH", "KeyPoints"]


def _make(kind, height, width, dtype=torch.uint8):
    if kind == "tensor":
        return make_image(height, width, dtype, batch=(2,))
    if kind == "Image":
        return tv_tensors.Image(make_image(height, width, dtype))
    if kind == "Video":
        return tv_tensors.Video(make_image(height, width, dtype, batch=(2,)))
    if kind == "Mask":
        return make_mask(height, width)
    if kind == "Mask2d":
        return tv_tensors.Mask(make_mask(height, width)[0])
    if kind == "KeyPoints":
        return make_keypoints((height, width))
    if kind.startswith("int-"):
        return make_boxes((height, width), format=kind[4:], dtype=torch.int64)
    return make_boxes((height, width), format=kind)


def _tv_mode(mode):
    return tv_functional.InterpolationMode(mode)


def _resize_cases(count=60):
    rng = random.Random(0)
    for index in range(count):
        height, width = rng.randint(5, 60), rng.randint(5, 60)
        choice = rng.randrange(5)
        if choice == 0:
            size, max_size = [rng.randint(3, 70), rng.randint(3, 70)], None
        elif choice == 1:
            size, max_size = rng.randint(3, 70), None
        elif choice == 2:
            size = [rng.randint(3, 40)]
            max_size = size[0] + rng.randint(1, 40)
        elif choice == 3:
            size, max_size = None, rng.randint(3, 70)
        else:
            size, max_size = [height, width], None  # no-op resize
        yield pytest.param(
            KINDS[index % len(KINDS)],
            (height, width),
            size,
            max_size,
            rng.choice(MODES),
            rng.random() < 0.5,
            rng.choice([torch.uint8, torch.float32]),
            id=f"case{index}",
        )


@pytest.mark.parametrize("kind, shape, size, max_size, mode, antialias, dtype", list(_resize_cases()))
def test_resize_matches_torchvision(kind, shape, size, max_size, mode, antialias, dtype):
    torch.manual_seed(0)
    inpt = _make(kind, *shape, dtype)
    ours = F.resize(inpt, size, interpolation=mode, max_size=max_size, antialias=antialias)
    theirs = tv_functional.resize(
        to_torchvision(inpt), size, interpolation=_tv_mode(mode), max_size=max_size, antialias=antialias
    )
    if hits_torch_width_one_bug(inpt, theirs, mode, antialias):
        theirs = torchvision_resize_transposed(
            tv_functional, to_torchvision(inpt), theirs.shape[-2:], interpolation=_tv_mode(mode), antialias=antialias
        )
    assert_matches_oracle(ours, theirs, what=f"resize({kind})")


def _crop_cases(count=60):
    rng = random.Random(1)
    for index in range(count):
        height, width = rng.randint(8, 50), rng.randint(8, 50)
        crop_h, crop_w = rng.randint(1, int(height * 1.4)), rng.randint(1, int(width * 1.4))
        # Regions partly outside the image on any side (torchvision pads them with zeros).
        top, left = rng.randint(1 - crop_h, height - 1), rng.randint(1 - crop_w, width - 1)
        size = [rng.randint(3, 40), rng.randint(3, 40)] if rng.random() < 0.8 else [rng.randint(3, 40)]
        yield pytest.param(
            KINDS[index % len(KINDS)],
            (height, width),
            (top, left, crop_h, crop_w),
            size,
            rng.choice(MODES),
            rng.random() < 0.5,
            rng.choice([torch.uint8, torch.float32]),
            id=f"case{index}",
        )


@pytest.mark.parametrize("kind, shape, region, size, mode, antialias, dtype", list(_crop_cases()))
def test_resized_crop_matches_torchvision(kind, shape, region, size, mode, antialias, dtype):
    torch.manual_seed(0)
    inpt = _make(kind, *shape, dtype)
    ours = F.resized_crop(inpt, *region, size, interpolation=mode, antialias=antialias)
    theirs = tv_functional.resized_crop(
        to_torchvision(inpt), *region, size, interpolation=_tv_mode(mode), antialias=antialias
    )
    assert_matches_oracle(ours, theirs, what=f"resized_crop({kind}, {region})")


@pytest.mark.parametrize("kind, shape, region, size, mode, antialias, dtype", list(_crop_cases(24)))
def test_tensor_box_path_matches_int_path(kind, shape, region, size, mode, antialias, dtype):
    torch.manual_seed(0)
    inpt = _make(kind, *shape, dtype)
    size = size * 2 if len(size) == 1 else size
    box = torch.tensor(region)
    expected = F.resized_crop(inpt, *region, size, interpolation=mode, antialias=antialias)
    assert_matches_oracle(resized_crop_at(inpt, box, size, mode, antialias), expected, what="eager")
    compiled = assert_one_graph(lambda x, b: resized_crop_at(x, b, size, mode, antialias), inpt, box)
    assert_matches_oracle(compiled, expected, what="compiled")


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "box", "lanczos"])
def test_pil_matches_torchvision(mode):
    pil = PILImage.fromarray(make_image(23, 31).permute(1, 2, 0).numpy())
    tv_mode = _tv_mode(mode)
    assert_matches_oracle(F.resize(pil, [17, 40], interpolation=mode), tv_functional.resize(pil, [17, 40], tv_mode))
    assert_matches_oracle(F.resize(pil, 12, mode), tv_functional.resize(pil, 12, tv_mode))
    for region in [(3, 4, 15, 20), (-5, -2, 30, 40)]:
        ours = F.resized_crop(pil, *region, [16, 16], interpolation=mode)
        assert_matches_oracle(ours, tv_functional.resized_crop(pil, *region, [16, 16], interpolation=tv_mode))
    box = torch.tensor([-5, -2, 30, 40])
    assert_matches_oracle(
        resized_crop_at(pil, box, [16, 16], mode), F.resized_crop(pil, -5, -2, 30, 40, [16, 16], mode)
    )


def test_region_wholly_outside_is_zeros_of_the_requested_size():
    image = make_image(10, 10, torch.float32) + 1
    out = F.resized_crop(image, -20, -20, 5, 6, [5, 6], interpolation="nearest")
    assert out.shape == (3, 5, 6) and out.abs().sum() == 0


def test_torchvision_tv_tensors_come_back_as_their_type():
    sample = to_torchvision(make_detection_sample())
    theirs = tv_functional.resized_crop
    sample.pop("labels")
    for key, inpt in sample.items():
        assert_matches_oracle(F.resize(inpt, [9, 30]), tv_functional.resize(inpt, [9, 30]), what=key)
        ours = F.resized_crop(inpt, 2, 3, 10, 12, [8, 8])
        assert_matches_oracle(ours, theirs(inpt, 2, 3, 10, 12, [8, 8]), what=key)
        assert_matches_oracle(resized_crop_at(inpt, torch.tensor([2, 3, 10, 12]), [8, 8]), ours, what=key)


def test_other_dtypes_and_layouts_match_torchvision():
    image = make_image(20, 30, torch.float32)
    for dtype in (torch.float64, torch.float16, torch.int16, torch.bool):
        inpt = (image * 100).to(dtype)
        assert_matches_oracle(F.resize(inpt, [13, 7]), tv_functional.resize(inpt, [13, 7]), what=str(dtype))
    channels_last = make_image(20, 30).unsqueeze(0).contiguous(memory_format=torch.channels_last)[0]
    ours = F.resize(channels_last, [11, 17])
    assert_matches_oracle(ours, tv_functional.resize(channels_last, [11, 17]))
    # Deliberate difference (see _native_bilinear_u8): uint8 bilinear output is contiguous CHW, other paths keep
    # torchvision's (channels-last) layout.
    assert ours.is_contiguous()
    nearest = F.resize(channels_last, [11, 17], interpolation=F.InterpolationMode.NEAREST)
    tv_nearest = tv_functional.resize(channels_last, [11, 17], interpolation=tv_functional.InterpolationMode.NEAREST)
    assert nearest.stride() == tv_nearest.stride()


# ---- InterpolationMode ------------------------------------------------------------------------------------


def test_interpolation_mode_accepts_ours_torchvision_strings_and_pil_codes():
    from jitvision.transforms.functional._geometry._interpolation import check_interpolation

    assert T.InterpolationMode is F.InterpolationMode
    for member in tv_functional.InterpolationMode:
        ours = F.InterpolationMode[member.name]
        assert ours.value == member.value
        assert check_interpolation(member) is ours
        assert check_interpolation(member.value) is ours
        assert check_interpolation(ours) is ours
    assert check_interpolation(2) is F.InterpolationMode.BILINEAR
    assert check_interpolation(PILImage.Resampling.BICUBIC) is F.InterpolationMode.BICUBIC
    for bad in ("cubic", 9, 1.5, None, True):
        with pytest.raises(ValueError, match="resize"):
            F.resize(make_image(), [5, 5], interpolation=bad)


def test_interpolation_mode_works_in_torchscript():
    scripted = torch.jit.script(F.resize_image)
    image = make_image(20, 30, torch.float32)
    for mode in (F.InterpolationMode.BICUBIC, "nearest-exact", 2):
        torch.testing.assert_close(scripted(image, [9, 11], mode), F.resize_image(image, [9, 11], mode))


# ---- classes ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [dict(size=12), dict(size=[9, 20]), dict(size=None, max_size=15), dict(size=8, max_size=11)]
)
def test_resize_class_matches_torchvision(kwargs):
    sample = make_detection_sample(30, 20)
    sample["keypoints"] = make_keypoints((30, 20))
    ours = T.Resize(**kwargs, interpolation=T.InterpolationMode.BICUBIC)(sample)
    theirs = tv_transforms.Resize(**kwargs, interpolation=tv_transforms.InterpolationMode.BICUBIC)
    assert_matches_oracle(ours, theirs(to_torchvision(sample)))


def test_random_resized_crop_given_a_box_matches_torchvision():
    rng = random.Random(2)
    transform = T.RandomResizedCrop([14, 10], interpolation="bicubic")
    sample = make_detection_sample(30, 40, dtype=torch.float32)
    sample["keypoints"] = make_keypoints((30, 40))
    for _ in range(8):
        box = [rng.randint(-3, 25), rng.randint(-3, 35), rng.randint(1, 30), rng.randint(1, 40)]
        params = {"box": torch.tensor(box)}
        for key, inpt in sample.items():
            if key == "labels":
                continue
            expected = tv_functional.resized_crop(
                to_torchvision(inpt), *box, [14, 10], interpolation=_tv_mode("bicubic")
            )
            assert_matches_oracle(transform.transform(inpt, params), expected, what=f"{key} {box}")
            traced = transform._transform_traced(inpt, params["box"])  # the compiled path, run eagerly
            assert_matches_oracle(traced, expected, what=f"traced {key} {box}")


def _region(params):
    """make_params' torchvision keys as [top, left, height, width]."""
    return [params["top"], params["left"], params["height"], params["width"]]


@pytest.mark.parametrize("height, width", [(30, 40), (100, 20), (20, 100), (7, 7)])
def test_random_resized_crop_draws_like_torchvision(height, width):
    transform = T.RandomResizedCrop(10, generator=torch.Generator().manual_seed(0))
    area = height * width
    probe = [torch.empty(1, height, width)]
    for _ in range(200):
        top, left, crop_h, crop_w = _region(transform.make_params(probe))
        assert 0 <= top <= height - crop_h and 0 <= left <= width - crop_w
        assert 0 < crop_h <= height and 0 < crop_w <= width
        if (crop_h, crop_w) != (height, width):
            assert 0.08 * area * 0.8 <= crop_h * crop_w
    # Scales that never fit fall back to torchvision's (deterministic) center crop of clamped ratio.
    never_fits = T.RandomResizedCrop(10, scale=(5.0, 6.0))
    theirs = tv_transforms.RandomResizedCrop(10, scale=(5.0, 6.0))
    expected = theirs.make_params([make_image(height, width)])
    drawn = _region(never_fits.make_params(probe))
    assert drawn == [expected["top"], expected["left"], expected["height"], expected["width"]]


@pytest.mark.parametrize("kwargs", [dict(), dict(scale=(0.5, 3.0), ratio=(0.2, 5.0)), dict(scale=(5.0, 6.0))])
def test_eager_draw_equals_the_tensor_draw(kwargs):
    eager = T.RandomResizedCrop(10, **kwargs, generator=torch.Generator().manual_seed(5))
    traced = T.RandomResizedCrop(10, **kwargs, generator=torch.Generator().manual_seed(5))
    for height, width in [(30, 40), (100, 20), (20, 100), (7, 7), (480, 640)] * 40:
        # make_params draws on the host with Python floats; make_batch_params draws the same uniforms as tensors
        probe = [torch.empty(1, height, width)]
        expected = _region(eager.make_params(probe))
        assert traced.make_batch_params(probe, 1)["box"][0].tolist() == expected, (height, width)


def test_batch_draw_equals_consecutive_single_draws():
    # rand([B, 3, 10]) consumes the generator as B consecutive rand([3, 10]) calls, so row i of a batch draw is
    # the i-th single-sample draw of the same stream.
    single = T.RandomResizedCrop(10, scale=(0.5, 3.0), ratio=(0.2, 5.0), generator=torch.Generator().manual_seed(1))
    batch = T.RandomResizedCrop(10, scale=(0.5, 3.0), ratio=(0.2, 5.0), generator=torch.Generator().manual_seed(1))
    for height, width in [(30, 40), (100, 20), (7, 7)]:
        probe = [torch.empty(1, height, width)]
        expected = [_region(single.make_params(probe)) for _ in range(16)]
        assert batch.make_batch_params(probe, 16)["box"].tolist() == expected


def test_random_resized_crop_uses_the_generator():
    image = make_image(40, 50, torch.float32)
    outputs = [T.RandomResizedCrop(16, generator=torch.Generator().manual_seed(3))(image) for _ in range(2)]
    torch.testing.assert_close(outputs[0], outputs[1])


# ---- the four modes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tensor", "Image", "Video", "Mask", "XYWH", "KeyPoints"])
def test_resize_compiles_to_one_graph(kind):
    inpt = _make(kind, 17, 23, torch.float32)
    out = assert_one_graph(lambda x: F.resize(x, [10, 31], antialias=True), inpt)
    assert_matches_oracle(out, F.resize(inpt, [10, 31]))


def test_random_resized_crop_compiles_once_and_stays_random():
    transform = T.RandomResizedCrop(12)
    assert_random_under_compile(transform, make_image(dtype=torch.float32))
    assert_random_under_compile(transform, make_image(dtype=torch.uint8))
    assert_random_under_compile(transform, tv_tensors.Image(make_image()))
    assert_random_under_compile(transform, tv_tensors.Video(make_image(batch=(2,))))
    assert_random_under_compile(transform, make_detection_sample())
    assert_random_under_compile(transform, (tv_tensors.Image(make_image()), make_keypoints()))


def test_resize_class_compiles_to_one_graph():
    sample = make_detection_sample()
    out = assert_one_graph(T.Resize(12), sample)
    assert_matches_oracle(out, T.Resize(12)(sample))


def test_functionals_script():
    image = make_image(20, 30, torch.float32)
    scripted_resize = torch.jit.script(F.resize)
    torch.testing.assert_close(scripted_resize(image, [9], "bicubic", 12, True), F.resize(image, [9], "bicubic", 12))
    scripted_crop = torch.jit.script(F.resized_crop)
    expected = F.resized_crop(image, -2, 3, 15, 40, [8, 9])
    torch.testing.assert_close(scripted_crop(image, -2, 3, 15, 40, [8, 9]), expected)
    for kernel in (F.resize_mask, F.resize_bounding_boxes, F.resize_keypoints, F.resized_crop_bounding_boxes):
        torch.jit.script(kernel)


def test_classes_script_with_save_and_load(tmp_path):
    image = make_image(40, 50, torch.float32)
    loaded = script_roundtrip(T.Resize(16, interpolation="bicubic"), tmp_path)
    torch.testing.assert_close(loaded(image), T.Resize(16, interpolation="bicubic")(image))
    random_loaded = script_roundtrip(T.RandomResizedCrop(12), tmp_path)
    outputs = [random_loaded(image) for _ in range(5)]
    assert all(out.shape == (3, 12, 12) for out in outputs)
    assert len({out.sum().item() for out in outputs}) >= 2


def test_random_resized_crop_exports():
    image = make_image(64, 80)
    program = torch.export.export(T.RandomResizedCrop(24), (image,))
    outputs = [program.module()(image) for _ in range(6)]
    assert all(out.shape == (3, 24, 24) and out.dtype == torch.uint8 for out in outputs)
    assert len({out.float().sum().item() for out in outputs}) >= 2


def test_resize_shorter_side_exports_with_dynamic_height_and_width():
    height, width = torch.export.Dim("height", min=16, max=4096), torch.export.Dim("width", min=16, max=4096)
    resize = T.Resize(256)
    program = torch.export.export(resize, (make_image(300, 400),), dynamic_shapes=({1: height, 2: width},))
    for size in [(300, 400), (480, 640), (257, 999), (1000, 260), (256, 256), (100, 50)]:
        image = make_image(*size)
        out = program.module()(image)
        assert_matches_oracle(out, tv_transforms.Resize(256)(image), what=str(size))
    capped = T.Resize(100, max_size=150)
    program = torch.export.export(capped, (make_image(300, 400),), dynamic_shapes=({1: height, 2: width},))
    for size in [(300, 400), (100, 900), (700, 120)]:
        image = make_image(*size)
        assert_matches_oracle(program.module()(image), tv_transforms.Resize(100, max_size=150)(image))


# ---- bad input --------------------------------------------------------------------------------------------


def test_bad_input_is_rejected_with_the_operation_named():
    image = make_image()
    for size in ([0, 3], [-1], [2, 3, 4]):
        with pytest.raises(ValueError, match="resize: size"):
            F.resize(image, size)
    with pytest.raises(ValueError, match="resize: max_size"):
        F.resize(image, [5, 5], max_size=10)
    with pytest.raises(ValueError, match="resize: max_size"):
        F.resize(image, [5], max_size=5)
    with pytest.raises(ValueError, match="resize: expected an image"):
        F.resize(torch.zeros(5, 5), [3, 3])
    with pytest.raises(TypeError, match="resize: complex"):
        F.resize(torch.zeros(3, 5, 5, dtype=torch.complex64), [3, 3])
    with pytest.raises(ValueError, match="resize: interpolation lanczos needs antialias"):
        F.resize(image, [3, 3], interpolation="lanczos", antialias=False)
    for mode in ("box", "hamming"):  # NotImplementedError as in torchvision, and a ValueError
        with pytest.raises(NotImplementedError, match=f"resize: interpolation {mode}"):
            F.resize(image, [3, 3], interpolation=mode)
        with pytest.raises(ValueError, match=f"resize: interpolation {mode}"):
            F.resize(image, [3, 3], interpolation=mode)
        assert F.resize(image, list(image.shape[-2:]), interpolation=mode) is image  # same size: returned as is
    with pytest.raises(TypeError, match="resize"):
        F.resize("not an image", [3, 3])
    with pytest.raises(TypeError, match="resize: size"):
        F.resize(image, 2.5)
    with pytest.raises(TypeError, match="resized_crop"):
        F.resized_crop("not an image", 0, 0, 3, 3, [3, 3])
    with pytest.raises(ValueError, match="resized_crop"):
        F.resized_crop(image, 0, 0, 0, 3, [3, 3])
    with pytest.raises(ValueError, match="resized_crop_at: size"):
        resized_crop_at(image, torch.tensor([0, 0, 3, 3]), [3])


def test_bad_constructor_arguments_name_the_class():
    with pytest.raises(ValueError, match="Resize"):
        T.Resize(0)
    with pytest.raises(ValueError, match="Resize"):
        T.Resize([1, 2, 3])
    with pytest.raises(ValueError, match="Resize"):
        T.Resize(None)
    with pytest.raises(ValueError, match="Resize"):
        T.Resize([4, 5], max_size=10)
    with pytest.raises(ValueError, match="RandomResizedCrop"):
        T.RandomResizedCrop(-3)
    with pytest.raises(TypeError, match="RandomResizedCrop"):
        T.RandomResizedCrop(3, scale=0.5)
    with pytest.raises(ValueError, match="RandomResizedCrop"):
        T.RandomResizedCrop(3, ratio=(2.0, 1.0))
    with pytest.raises(ValueError, match="RandomResizedCrop"):
        T.RandomResizedCrop(3, interpolation="cubic")


def test_random_resized_crop_runs_under_inductor_on_tv_tensors():
    # Inductor hands graph inputs (tv_tensor subclasses here) to custom ops; its first-call aliasing check
    # rejects subclasses, which the op call must avoid.
    torch._dynamo.reset()
    transform = T.RandomResizedCrop(16)
    compiled = torch.compile(transform, fullgraph=True)
    sample = make_detection_sample(40, 50)
    out = compiled(sample)
    assert out["image"].shape == (3, 16, 16) and out["masks"].shape == (5, 16, 16)
    assert type(out["image"]) is tv_tensors.Image and out["boxes"].canvas_size == (16, 16)


# ---- edge cases: int sizes, one-column outputs -----------------------------------------------------------------------


def test_an_int_size_works_in_every_resize_and_resized_crop_kernel():
    image, mask = make_image(16, 20, torch.float32), make_mask(16, 20)
    boxes = make_boxes((10, 12))
    plain_boxes = boxes.as_subclass(torch.Tensor)
    pairs = [
        (F.resized_crop(image, 0, 0, 8, 8, 5), tv_functional.resized_crop(image, 0, 0, 8, 8, 5)),
        (F.resize_image(image, 5), tv_functional.resize_image(image, 5)),
        (
            F.resize_mask(mask.as_subclass(torch.Tensor), 5),
            tv_functional.resize_mask(mask.as_subclass(torch.Tensor), 5),
        ),
        (
            F.resize_bounding_boxes(plain_boxes, (10, 12), 5),
            tv_functional.resize_bounding_boxes(plain_boxes, (10, 12), 5),
        ),
        (F.resized_crop_image(image, 1, 2, 9, 7, 4), tv_functional.resized_crop_image(image, 1, 2, 9, 7, 4)),
        (
            F.resized_crop_mask(mask.as_subclass(torch.Tensor), 1, 2, 9, 7, 4),
            tv_functional.resized_crop_mask(mask.as_subclass(torch.Tensor), 1, 2, 9, 7, 4),
        ),
    ]
    for ours, theirs in pairs:
        assert_matches_oracle(ours, theirs)


def test_antialiased_resize_to_one_column_is_right_where_torch_is_not():
    # torch 2.14 returns a constant column here (float always, uint8 with 5+ channels); the transposed resize is right
    column = torch.arange(74.0).view(1, 74, 1)
    out = F.resize(column, [24, 1])
    expected = torch.nn.functional.interpolate(
        column.transpose(-1, -2)[None], size=[1, 24], mode="bilinear", antialias=True
    ).transpose(-1, -2)[0]
    torch.testing.assert_close(out, expected)
    assert out[0, :, 0].diff().gt(0).all()
    for channels, dtype, mode in [
        (5, torch.uint8, "bicubic"),
        (3, torch.float64, "lanczos"),
        (6, torch.uint8, "bilinear"),
    ]:
        image = make_image(40, 9, dtype, channels=channels)
        out = F.resize(image, [13, 1], interpolation=mode)
        theirs = torchvision_resize_transposed(tv_functional, image, [13, 1], interpolation=_tv_mode(mode))
        if dtype == torch.uint8:  # the transposed uint8 resize rounds its two passes in the other order
            assert out.shape == theirs.shape and (out.int() - theirs.int()).abs().max() <= 1
        else:
            assert_matches_oracle(out, theirs, what=f"{channels}x{dtype}x{mode}")


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64])
@pytest.mark.parametrize("size", [[9, 13], [40, 31], 12])
def test_lanczos_on_tensors_matches_torchvision(dtype, size):
    image = make_image(23, 29, dtype)
    ours = F.resize(image, size, interpolation="lanczos")
    assert_matches_oracle(ours, tv_functional.resize(image, size, interpolation=_tv_mode("lanczos")))
    ours = F.resized_crop(image, 2, 3, 15, 20, size, interpolation="lanczos")
    theirs = tv_functional.resized_crop(image, 2, 3, 15, 20, size, interpolation=_tv_mode("lanczos"))
    assert_matches_oracle(ours, theirs)


def test_random_resized_crop_rejects_non_finite_scale_and_ratio_at_construction():
    nan, inf = float("nan"), float("inf")
    for scale, ratio in [
        ((nan, 1.0), (0.5, 2.0)),
        ((0.1, inf), (0.5, 2.0)),
        ((0.1, 1.0), (-inf, 2.0)),
        ((0.1, 1.0), (1, nan)),
    ]:
        with pytest.raises(ValueError, match="RandomResizedCrop: (scale|ratio) must be finite"):
            T.RandomResizedCrop(8, scale=scale, ratio=ratio)
    # deliberate difference: an unordered pair fails at construction (torchvision warns, then fails when called)
    with pytest.raises(ValueError, match="RandomResizedCrop: scale must be"):
        T.RandomResizedCrop(5, scale=[1, 0])


@pytest.mark.parametrize("scale, ratio", [((0.0, 1e308), (5e-324, 1e308)), ((1e300, 1e300), (1e-300, 1e-300))])
def test_random_resized_crop_with_extreme_finite_scale_and_ratio_draws_the_same_on_both_paths(scale, ratio):
    transform = T.RandomResizedCrop(6, scale=scale, ratio=ratio)
    for height, width in [(10, 12), (1, 30), (30, 1)]:
        torch.manual_seed(0)
        eager = transform._draw_eager(height, width, torch.device("cpu"))["box"]
        torch.manual_seed(0)
        traced = transform._boxes([], height, width, torch.device("cpu"))
        assert torch.equal(eager, traced) and eager[2:].min() >= 1
        assert transform(make_image(height, width)).shape == (3, 6, 6)


def test_resize_of_an_empty_canvas_by_its_shorter_side_names_the_op():
    with pytest.raises(ValueError, match="resize: cannot scale an empty"):
        F.resize(torch.zeros(3, 0, 5), [4])
    with pytest.raises(ValueError, match="resize: cannot scale coordinates on an empty canvas"):
        F.resize_bounding_boxes(torch.zeros(1, 4), (0, 5), [4, 4])
    with pytest.raises(ValueError, match="RandomResizedCrop"):
        T.RandomResizedCrop(4)(torch.zeros(3, 0, 5))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_uint8_three_channel_resize_to_one_pixel_works_where_torch_asserts(mode):
    # torch 2.14's uint8 antialiased kernel fails an internal assert here (found by the fuzz suite)
    image = make_image(5, 2, torch.uint8)
    for antialias in (True, False) if mode != "lanczos" else (True,):
        out = F.resize(image, [1, 1], interpolation=mode, antialias=antialias)
        expected = F.resize(image.float(), [1, 1], interpolation=mode, antialias=antialias).round().clamp(0, 255)
        assert out.dtype == torch.uint8 and (out.float() - expected).abs().max() <= 1
