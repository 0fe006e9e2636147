"""The native fused kernel (jitvision/lib/libjitvision_native.so) vs its pure-PyTorch reference vs torch and
torchvision, in every mode.

Tolerances: on CPUs where torch takes its AVX2/AVX512 uint8 path (the one torchvision uses), the native uint8
resize is bit-identical to ``interpolate(uint8, antialias=True)``, so uint8 outputs must be equal and float
outputs (scaled + normalised) within 1e-5. Elsewhere torch's uint8 kernel rounds differently: uint8 within 1
level, float within one level after scaling (1 / 255 / min(std)) + 1e-5.
"""

import random

import pytest
import torch
import torch.nn.functional as nnf
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as TF

import jitvision.transforms as T
from jitvision import _native, tv_tensors
from jitvision.transforms._fusion import run_fused
from tests.helpers import assert_one_graph, assert_random_under_compile

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
EXACT = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
U8_ATOL = 0 if EXACT else 1
F32_ATOL = 1e-5 if EXACT else 1 / 255 / min(STD) + 1e-5


def test_the_native_extension_is_built():
    # `make test` builds it (pip install -e . compiles jitvision/csrc); without it the fast path is off.
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON


def _random_case(rng: random.Random):
    height, width = rng.randint(4, 160), rng.randint(4, 160)
    crop_h, crop_w = rng.randint(1, height), rng.randint(1, width)
    top, left = rng.randint(0, height - crop_h), rng.randint(0, width - crop_w)
    size = [rng.randint(1, 160), rng.randint(1, 160)]
    return (height, width), [top, left, crop_h, crop_w], size, rng.random() < 0.5


def _torch_resized_crop(image, box, size, flip):
    top, left, height, width = box
    crop = image[..., top : top + height, left : left + width].reshape(-1, *image.shape[-3:-2], height, width)
    out = nnf.interpolate(crop, size=size, mode="bilinear", antialias=True, align_corners=False)
    out = out.reshape(*image.shape[:-2], *size)
    return out.flip(-1) if flip else out


def _assert_u8(actual, expected):
    assert actual.dtype == expected.dtype == torch.uint8 and actual.shape == expected.shape
    assert (actual.int() - expected.int()).abs().max().item() <= U8_ATOL


# ---- the reference (runs without the extension) ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_reference_matches_torch_interpolate(seed):
    rng = random.Random(seed)
    for _ in range(8):
        (height, width), box, size, flip = _random_case(rng)
        image = torch.randint(0, 256, (3, height, width), dtype=torch.uint8)
        actual = _native.resized_crop_reference(image, torch.tensor(box), torch.tensor(flip), size)
        _assert_u8(actual, _torch_resized_crop(image, box, size, flip))


# ---- native vs reference vs torch ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_native_resized_crop_matches_reference_and_torch(seed):
    rng = random.Random(100 + seed)
    for _ in range(25):
        (height, width), box, size, flip = _random_case(rng)
        channels = rng.choice([1, 3, 4])
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8)
        args = (image, torch.tensor(box), torch.tensor(flip), size)
        native = torch.ops.jitvision_native.resized_crop(*args)
        assert torch.equal(native, _native.resized_crop_reference(*args)), (box, size, flip)
        _assert_u8(native, _torch_resized_crop(image, box, size, flip))


@pytest.mark.parametrize("seed", range(3))
def test_native_float_output_matches_torchvision_pipeline(seed):
    rng = random.Random(200 + seed)
    for _ in range(10):
        (height, width), box, size, flip = _random_case(rng)
        image = torch.randint(0, 256, (3, height, width), dtype=torch.uint8)
        native = torch.ops.jitvision_native.resized_crop(
            image, torch.tensor(box), torch.tensor(flip), size, MEAN, STD, True
        )
        expected = TF.resized_crop(image, *box, size=size, antialias=True)
        expected = TF.horizontal_flip(expected) if flip else expected
        expected = TF.normalize(TF.to_dtype(expected, torch.float32, scale=True), MEAN, STD)
        torch.testing.assert_close(native, expected, atol=F32_ATOL, rtol=0)
        reference = _native.resized_crop_reference(image, torch.tensor(box), torch.tensor(flip), size, MEAN, STD, True)
        torch.testing.assert_close(native, reference, atol=1e-5, rtol=0)
        scaled = torch.ops.jitvision_native.resized_crop(image, torch.tensor(box), None, size, None, None, True)
        unflipped = TF.to_dtype(TF.resized_crop(image, *box, size=size, antialias=True), torch.float32, scale=True)
        torch.testing.assert_close(scaled, unflipped, atol=1e-6 if EXACT else 1 / 255 + 1e-6, rtol=0)


@pytest.mark.parametrize(
    "shape, size, max_size, crop",
    [
        ((3, 480, 640), [256], None, [224, 224]),
        ((3, 640, 480), [256], None, [224, 224]),
        ((3, 300, 400), [256], None, None),
        ((1, 97, 203), [50], 80, [40, 60]),
        ((3, 120, 90), [60, 70], None, [80, 50]),  # the crop pads rows
        ((3, 33, 47), [33, 47], None, [33, 47]),  # identity size
        ((4, 50, 40), [], 30, [35, 20]),  # size None: longer side at max_size, crop pads
    ],
)
def test_native_resize_center_crop_matches_torchvision(shape, size, max_size, crop):
    image = torch.randint(0, 256, shape, dtype=torch.uint8)
    tv_size = None if not size else size
    expected = TF.resize(image, tv_size, max_size=max_size, antialias=True)
    if crop is not None:
        expected = TF.center_crop(expected, crop)
    native = torch.ops.jitvision_native.resize_center_crop(image, size, max_size, crop)
    _assert_u8(native, expected)
    assert torch.equal(native, _native.resize_center_crop_reference(image, size, max_size, crop))
    mean, std = MEAN[:1] * shape[0], STD[:1] * shape[0]
    native_f = torch.ops.jitvision_native.resize_center_crop(image, size, max_size, crop, mean, std, True)
    expected_f = TF.normalize(TF.to_dtype(expected, torch.float32, scale=True), mean, std)
    torch.testing.assert_close(native_f, expected_f, atol=F32_ATOL, rtol=0)


def test_native_batched_and_strided_inputs():
    image = torch.randint(0, 256, (2, 3, 64, 80), dtype=torch.uint8)
    box, size = torch.tensor([5, 7, 40, 50]), [30, 33]
    batched = torch.ops.jitvision_native.resized_crop(image, box, torch.tensor(True), size)
    for n in range(2):
        single = torch.ops.jitvision_native.resized_crop(image[n], box, torch.tensor(True), size)
        assert torch.equal(batched[n], single)
    channels_last = image.contiguous(memory_format=torch.channels_last)
    assert torch.equal(torch.ops.jitvision_native.resized_crop(channels_last, box, torch.tensor(True), size), batched)
    transposed = image.transpose(-1, -2).contiguous().transpose(-1, -2)  # stride 1 along H, not W
    assert torch.equal(torch.ops.jitvision_native.resized_crop(transposed, box, torch.tensor(True), size), batched)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_native_channels_last_views_equal_contiguous_input(seed, channels):
    # What pil_to_tensor / ToImage give: a [C, H, W] view of [H, W, C] memory. The window is split into planes
    # first (a 16-pixel shuffle loop for RGB plus a scalar tail); widths around 16 exercise both.
    rng = random.Random(seed)
    for _ in range(20):
        (height, width), box, size, flip = _random_case(rng)
        width = rng.choice([width, 15, 16, 17, 33, 47])
        box[1], box[3] = 0, rng.randint(1, width)
        hwc = torch.randint(0, 256, (2, height, width, channels), dtype=torch.uint8)
        view = hwc.permute(0, 3, 1, 2)
        box_t, flip_t = torch.tensor(box), torch.tensor(flip)
        expected = torch.ops.jitvision_native.resized_crop(view.contiguous(), box_t, flip_t, size)
        assert torch.equal(torch.ops.jitvision_native.resized_crop(view, box_t, flip_t, size), expected)
        assert torch.equal(torch.ops.jitvision_native.resized_crop(view[1], box_t, flip_t, size), expected[1])
        mean, std = [0.4] * channels, [0.3] * channels
        resize_center_crop = torch.ops.jitvision_native.resize_center_crop
        expected_f = resize_center_crop(view.contiguous(), [9], None, [8, 7], mean, std, True)
        assert torch.equal(resize_center_crop(view, [9], None, [8, 7], mean, std, True), expected_f)


def test_native_bad_input():
    image = torch.randint(0, 256, (3, 20, 20), dtype=torch.uint8)
    with pytest.raises(TypeError, match="uint8"):
        torch.ops.jitvision_native.resized_crop(image.float(), torch.tensor([0, 0, 5, 5]), None, [4, 4])
    with pytest.raises(ValueError, match="outside"):
        torch.ops.jitvision_native.resized_crop(image, torch.tensor([18, 0, 5, 5]), None, [4, 4])
    with pytest.raises(ValueError, match="mean and std"):
        torch.ops.jitvision_native.resized_crop(image, torch.tensor([0, 0, 5, 5]), None, [4, 4], [0.5], [0.5], True)


def _python_draw(crop: T.RandomResizedCrop, flip: T.RandomHorizontalFlip, height: int, width: int):
    params = crop.make_params([torch.empty(1, height, width)])  # torchvision's keys
    box = torch.tensor([params["top"], params["left"], params["height"], params["width"]])
    # the coin of a coin-only class is drawn before make_params (torchvision's order): the one-leaf sample's draw
    apply = flip.make_batch_params([tv_tensors.BatchedImages(torch.empty(1, 1, crop.size[0], crop.size[1]))], 1)
    return box, apply["apply"][0]


@pytest.mark.parametrize("seed", range(4))
def test_native_random_resized_crop_draws_as_the_transforms(seed):
    # Same generator calls, same double arithmetic: the crop and flip of the Python transforms, bit for bit, and
    # the RNG left in the same state. Wide scale/ratio ranges reach torchvision's fallback (no candidate fits).
    rng = random.Random(seed)
    for _ in range(150):
        height, width = rng.randint(1, 300), rng.randint(1, 300)
        low, high = sorted([rng.uniform(0.01, 1.5), rng.uniform(0.01, 1.5)])
        ratio = sorted([rng.uniform(0.2, 1.0), rng.uniform(1.0, 5.0)])
        crop = T.RandomResizedCrop([rng.randint(1, 40), rng.randint(1, 40)], scale=(low, high), ratio=ratio)
        flip = T.RandomHorizontalFlip(p=rng.random())
        image = torch.randint(0, 256, (2, height, width), dtype=torch.uint8)
        torch.manual_seed(rng.randrange(2**31))
        state = torch.get_rng_state()
        box, apply = _python_draw(crop, flip, height, width)
        expected = torch.ops.jitvision_native.resized_crop(image, box, apply, crop.size)
        after_python = torch.get_rng_state()
        torch.set_rng_state(state)
        actual = torch.ops.jitvision_native.random_resized_crop(image, crop.size, crop.scale, crop.ratio, flip.p)
        assert torch.equal(actual, expected), (height, width, crop, flip, box, apply)
        assert torch.equal(torch.get_rng_state(), after_python)


def test_native_random_resized_crop_uses_each_transforms_generator():
    image = torch.randint(0, 256, (3, 90, 120), dtype=torch.uint8)
    crop = T.RandomResizedCrop(32, generator=torch.Generator().manual_seed(1))
    flip = T.RandomHorizontalFlip(generator=torch.Generator().manual_seed(2))
    global_state = torch.get_rng_state()
    actual = [
        torch.ops.jitvision_native.random_resized_crop(
            image, crop.size, crop.scale, crop.ratio, flip.p, None, None, False, crop.generator, flip.generator
        )
        for _ in range(6)
    ]
    assert torch.equal(torch.get_rng_state(), global_state), "the global RNG must not be touched"
    crop.generator.manual_seed(1)
    flip.generator.manual_seed(2)
    for out in actual:
        box, apply = _python_draw(crop, flip, 90, 120)
        assert torch.equal(out, torch.ops.jitvision_native.resized_crop(image, box, apply, crop.size))
    assert len({out.sum().item() for out in actual}) > 1


def test_native_random_resized_crop_bad_input():
    image = torch.randint(0, 256, (3, 20, 20), dtype=torch.uint8)
    with pytest.raises(ValueError, match="random_resized_crop: size"):
        torch.ops.jitvision_native.random_resized_crop(image, [4], [0.5, 1.0], [0.75, 1.33])
    for scale, ratio in (([0.5, 1.0], [0.0, 1.33]), ([float("nan"), 1.0], [0.75, 1.33]), ([0.5, 1.0], [0.75, 1e400])):
        with pytest.raises(ValueError, match="random_resized_crop: scale and ratio"):
            torch.ops.jitvision_native.random_resized_crop(image, [4, 4], scale, ratio)
    with pytest.raises(TypeError, match="uint8"):
        torch.ops.jitvision_native.random_resized_crop(image.float(), [4, 4], [0.5, 1.0], [0.75, 1.33])


# ---- compile, export, script ---------------------------------------------------------------------------------------


def test_native_op_is_one_graph_and_stays_random_under_compile():
    image = torch.randint(0, 256, (3, 64, 64), dtype=torch.uint8)
    pipeline = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)])

    def fused(x):
        return run_fused(pipeline.transforms, x)[0]

    out = assert_one_graph(fused, image)
    assert out.shape == (3, 32, 32) and out.dtype == torch.float32
    assert_random_under_compile(fused, image)


def test_compiled_fused_pipeline_draws_what_eager_draws():
    # The draw is inside the op, on torch's generator: a seed gives the same output compiled (inductor) or not.
    image = torch.randint(0, 256, (3, 96, 128), dtype=torch.uint8)
    pipeline = _train(T)
    compiled = torch.compile(pipeline, fullgraph=True)
    for seed in range(3):
        torch.manual_seed(seed)
        expected = pipeline(image)
        torch.manual_seed(seed)
        assert torch.equal(compiled(image), expected)


def test_random_resized_crop_op_exports_and_stays_random():
    class Train(torch.nn.Module):
        def forward(self, image):
            return torch.ops.jitvision_native.random_resized_crop(image, [32, 32], [0.08, 1.0], [0.75, 1.33], 0.5)

    image = torch.randint(0, 256, (3, 80, 90), dtype=torch.uint8)
    dims = {1: torch.export.Dim("height", min=8, max=2048), 2: torch.export.Dim("width", min=8, max=2048)}
    program = torch.export.export(Train(), (image,), dynamic_shapes=(dims,)).module()
    for shape in [(3, 80, 90), (3, 300, 200)]:
        other = torch.randint(0, 256, shape, dtype=torch.uint8)
        torch.manual_seed(0)
        expected = Train()(other)
        torch.manual_seed(0)
        assert torch.equal(program(other), expected)
        assert len({program(other).sum().item() for _ in range(5)}) > 1


def test_native_ops_export():
    class Train(torch.nn.Module):
        def forward(self, image, box, flip):
            return torch.ops.jitvision_native.resized_crop(image, box, flip, [32, 32], MEAN, STD, True)

    class Infer(torch.nn.Module):
        def forward(self, image):
            return torch.ops.jitvision_native.resize_center_crop(image, [64], None, [56, 56], MEAN, STD, True)

    image = torch.randint(0, 256, (3, 80, 90), dtype=torch.uint8)
    box, flip = torch.tensor([3, 4, 50, 60]), torch.tensor(True)
    program = torch.export.export(Train(), (image, box, flip)).module()
    torch.testing.assert_close(program(image, box, flip), Train()(image, box, flip), atol=0, rtol=0)
    other_box = torch.tensor([10, 0, 70, 40])
    torch.testing.assert_close(program(image, other_box, flip), Train()(image, other_box, flip), atol=0, rtol=0)

    dims = {1: torch.export.Dim("height", min=64, max=2048), 2: torch.export.Dim("width", min=64, max=2048)}
    program = torch.export.export(Infer(), (image,), dynamic_shapes=(dims,)).module()
    for shape in [(3, 80, 90), (3, 300, 200), (3, 64, 500)]:
        other = torch.randint(0, 256, shape, dtype=torch.uint8)
        torch.testing.assert_close(program(other), Infer()(other), atol=0, rtol=0)


def test_native_ops_script(tmp_path):
    def pipeline(image: torch.Tensor, box: torch.Tensor, flip: torch.Tensor) -> torch.Tensor:
        return torch.ops.jitvision_native.resized_crop(
            image, box, flip, [24, 24], [0.5, 0.5, 0.5], [0.2, 0.2, 0.2], True
        )

    scripted = torch.jit.script(pipeline)
    image = torch.randint(0, 256, (3, 40, 40), dtype=torch.uint8)
    box, flip = torch.tensor([1, 2, 30, 35]), torch.tensor(False)
    torch.testing.assert_close(scripted(image, box, flip), pipeline(image, box, flip), atol=0, rtol=0)


# ---- the fusion helper ---------------------------------------------------------------------------------------------


def _train(ns):
    return ns.Compose(
        [
            ns.RandomResizedCrop(224),
            ns.RandomHorizontalFlip(),
            ns.ToDtype(torch.float32, scale=True),
            ns.Normalize(MEAN, STD),
        ]
    )


def _infer(ns):
    return ns.Compose(
        [ns.Resize(256), ns.CenterCrop(224), ns.ToDtype(torch.float32, scale=True), ns.Normalize(MEAN, STD)]
    )


@pytest.mark.parametrize("make, shape", [(_train, (3, 256, 256)), (_infer, (3, 480, 640)), (_infer, (3, 200, 150))])
def test_fused_prefix_equals_the_unfused_pipeline_with_the_same_draws(make, shape):
    image = torch.randint(0, 256, shape, dtype=torch.uint8)
    pipeline = make(T)
    for seed in range(4):
        torch.manual_seed(seed)
        fused, consumed = run_fused(pipeline.transforms, image)
        torch.manual_seed(seed)
        unfused = image
        for transform in pipeline.transforms:
            unfused = transform(unfused)
        assert consumed == 4
        torch.testing.assert_close(fused, unfused, atol=F32_ATOL, rtol=0)
    if make is _infer:
        torch.testing.assert_close(fused, make(tv_transforms)(image), atol=F32_ATOL, rtol=0)


def test_fused_partial_prefixes_and_refusals():
    image = torch.randint(0, 256, (3, 60, 70), dtype=torch.uint8)
    out, consumed = run_fused([T.Resize(32), T.CenterCrop(30), T.RandomHorizontalFlip()], image)
    assert consumed == 2 and out.dtype == torch.uint8
    _assert_u8(out, TF.center_crop(TF.resize(image, [32], antialias=True), [30, 30]))
    out, consumed = run_fused([T.Resize(32), T.ToDtype(torch.float32, scale=True)], tv_tensors.Image(image))
    assert consumed == 2 and type(out) is tv_tensors.Image
    assert run_fused([T.Resize(32, antialias=False)], image) is None
    assert run_fused([T.Resize(32)], image.float()) is None
    assert run_fused([T.CenterCrop(30)], image) is None
    state = torch.get_rng_state()
    assert (
        run_fused(
            [T.RandomResizedCrop(20), T.ToDtype(torch.float32, scale=True), T.Normalize([0.5] * 2, [0.5] * 2)], image
        )
        is None
    )
    assert torch.equal(state, torch.get_rng_state()), "a refused fusion must not draw"
