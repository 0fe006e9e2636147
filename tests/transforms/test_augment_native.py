"""``jitvision_native::augment_step_u8`` (csrc/augment.cpp): every operation of the policies on uint8 CPU images
against torchvision and the Python step, per-row parameters, one C++ node under compile/export, AugMix's mixing
weights under dynamic shapes."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
from torchvision.transforms.v2 import _utils as tv_utils

import jitvision.transforms as T
from jitvision import _native
from jitvision.transforms._augment_ops import OP_INDEX, OP_NAMES, apply_op
from tests.helpers import assert_matches_oracle, compile_counted, make_image

pytestmark = pytest.mark.skipif(not _native.AUGMENT, reason="native library without augment_step_u8")

MODES = {"nearest": 0, "bilinear": 1}


def _step(image, ops, magnitudes, mode, fill):
    ops = torch.tensor(ops, dtype=torch.int64)
    magnitudes = torch.tensor(magnitudes, dtype=torch.float64)
    return torch.ops.jitvision_native.augment_step_u8(image, ops, magnitudes, MODES[mode], fill)


def _magnitudes(op, height, width, generator):
    """Random magnitudes of ``op`` in the policies' ranges (TrivialAugmentWide's, the widest), both signs, and the
    bins' exact special values (0, a quarter turn)."""
    if op in ("Identity", "AutoContrast", "Equalize", "Invert"):
        return [0.0]
    u = torch.rand(4, generator=generator, dtype=torch.float64).tolist()
    if op == "Posterize":
        return [float(int(2 + 6 * v)) for v in u] + [8.0]
    if op == "Solarize":
        return u + [0.0, 1.0]
    high = {"ShearX": 0.99, "ShearY": 0.99, "TranslateX": 32.0, "TranslateY": 32.0, "Rotate": 135.0}.get(op, 0.99)
    values = [high * v for v in u] + [0.0]
    if op == "Rotate":
        values += [90.0, 180.0, 270.0]
    if op in ("TranslateX", "TranslateY"):
        values += [float(max(height, width) + 3)]
    return values + [-v for v in values]


@pytest.mark.parametrize("op", OP_NAMES)
def test_each_operation_matches_torchvision_and_the_python_step(op):
    generator = torch.Generator().manual_seed(OP_INDEX[op])
    tv = tv_transforms.AugMix()
    for channels, (height, width) in [(3, (29, 37)), (1, (24, 24)), (3, (3, 5))]:
        image = make_image(height, width, channels=channels)
        fills = [None, [10.0, 200.0, 30.0] if channels == 3 else [77.0], [120.6]]
        cases = [("nearest", fills[0]), ("nearest", fills[1]), ("bilinear", fills[1]), ("bilinear", fills[2])]
        for mode, fill in cases:
            for magnitude in _magnitudes(op, height, width, generator):
                what = f"{op} {magnitude} {mode} fill={fill} {channels}x{height}x{width}"
                got = _step(image, [OP_INDEX[op]], [magnitude], mode, fill)
                expected = tv._apply_image_or_video_transform(
                    image, op, magnitude, interpolation=mode, fill=tv_utils._setup_fill_arg(fill)
                )
                assert_matches_oracle(got, expected, what=what)
                # The same values as the Python step (its kernels on the eager path), bit for bit.
                python = apply_op(image, OP_INDEX[op], torch.tensor(magnitude, dtype=torch.float64), mode, fill)
                torch.testing.assert_close(got, python, rtol=0, atol=0, msg=what)
                assert got.data_ptr() != image.data_ptr()


def test_steps_apply_in_order_and_rows_get_their_own():
    generator = torch.Generator().manual_seed(5)
    images = torch.randint(0, 256, (5, 3, 21, 26), dtype=torch.uint8, generator=generator)
    ops = torch.randint(0, len(OP_NAMES), (5, 3), generator=generator)
    magnitudes = torch.rand(5, 3, generator=generator, dtype=torch.float64) * 0.9
    magnitudes[:, 0] = torch.where(ops[:, 0] == OP_INDEX["Posterize"], 4.0, magnitudes[:, 0])
    magnitudes = torch.where(ops == OP_INDEX["Posterize"], 4.0, magnitudes)
    out = torch.ops.jitvision_native.augment_step_u8(images, ops, magnitudes, 1, [5.0])
    for r in range(5):
        expected = images[r]
        for k in range(3):
            expected = apply_op(expected, int(ops[r, k]), magnitudes[r, k], "bilinear", [5.0])
        torch.testing.assert_close(out[r], expected, rtol=0, atol=0)
        alone = torch.ops.jitvision_native.augment_step_u8(images[r], ops[r], magnitudes[r], 1, [5.0])
        torch.testing.assert_close(alone, out[r], rtol=0, atol=0)
    # A video per row: its frames share the row's operations.
    videos = images[:2, None].expand(2, 2, 3, 21, 26)
    out = torch.ops.jitvision_native.augment_step_u8(videos, ops[:2], magnitudes[:2], 0, None)
    assert out.shape == videos.shape and out.is_contiguous()
    torch.testing.assert_close(out[:, 0], out[:, 1], rtol=0, atol=0)


def test_steps_after_a_warp_see_the_channels_of_a_video():
    # warp_u8 returns [G, planes, H, W]; the next step (a colour op) must still see [T, C, H, W] (it saw 2 * C
    # channels and failed, or mixed frames, before).
    video = make_image(19, 23, batch=(2,))
    ops = torch.tensor([OP_INDEX["Rotate"], OP_INDEX["Color"], OP_INDEX["ShearX"], OP_INDEX["Contrast"]])
    magnitudes = torch.tensor([12.5, 0.4, -0.2, 0.3], dtype=torch.float64)
    out = torch.ops.jitvision_native.augment_step_u8(video, ops, magnitudes, 0, None)
    for t in range(2):
        frame = video[t]
        for op, magnitude in zip(ops.tolist(), magnitudes.tolist()):
            frame = apply_op(frame, op, torch.tensor(magnitude, dtype=torch.float64), "nearest", None)
        torch.testing.assert_close(out[t], frame, rtol=0, atol=0)


def test_bad_input_raises_naming_the_policy():
    image = make_image(9, 11)
    ops, magnitudes = torch.tensor([1]), torch.tensor([0.3], dtype=torch.float64)
    with pytest.raises(TypeError, match="AutoAugment"):
        torch.ops.jitvision_native.augment_step_u8(image.float(), ops, magnitudes, 0, None)
    with pytest.raises(ValueError, match="AutoAugment"):
        torch.ops.jitvision_native.augment_step_u8(image, ops, magnitudes[None], 0, None)
    with pytest.raises(ValueError, match="AutoAugment: fill has 2 values"):
        torch.ops.jitvision_native.augment_step_u8(image, ops, magnitudes, 0, [1.0, 2.0])
    with pytest.raises(ValueError, match="AutoAugment"):
        torch.ops.jitvision_native.augment_step_u8(image, torch.tensor([15]), magnitudes, 0, None)
    params = {"ops": torch.tensor([OP_INDEX["Rotate"]]), "magnitudes": torch.tensor([4.0], dtype=torch.float64)}
    with pytest.raises(ValueError, match="fill has 2 values"):
        T.TrivialAugmentWide(fill=[1, 2]).transform(image, params)
    params["ops"] = torch.tensor([OP_INDEX["Equalize"]])  # a fill only matters to the geometric operations
    assert T.TrivialAugmentWide(fill=[1, 2]).transform(image, params).shape == image.shape


def _targets(graph_module):
    return {str(node.target) for node in graph_module.graph.nodes if node.op == "call_function"}


@pytest.mark.parametrize("name", ["RandAugment", "TrivialAugmentWide"])
def test_export_holds_only_cpp_operators_and_stays_random(name):
    transform = T.RandAugment(num_ops=2) if name == "RandAugment" else T.TrivialAugmentWide()
    image = make_image(40, 48)
    program = torch.export.export(transform, (image,))
    targets = _targets(program.graph_module)
    assert any("jitvision_native.augment_step_u8" in t for t in targets), targets
    assert not any(t.startswith("jitvision.") for t in targets), targets
    module = program.module()
    outputs = [module(image) for _ in range(12)]
    assert len({o.sum().item() for o in outputs}) > 1
    assert all(o.shape == image.shape and o.dtype == torch.uint8 for o in outputs)


def test_compiled_policy_is_one_cpp_node_and_equals_eager_under_forced_choices():
    transform = T.RandAugment(num_ops=2)
    compiled = torch.compile(
        lambda x, ops, magnitudes: transform.transform(x, {"ops": ops, "magnitudes": magnitudes}), fullgraph=True
    )
    image = make_image(29, 37)
    generator = torch.Generator().manual_seed(2)
    for _ in range(6):
        ops = torch.randint(1, 15, (2,), generator=generator)
        magnitudes = torch.where(ops == OP_INDEX["Posterize"], 5.0, torch.rand(2, generator=generator) - 0.5).double()
        expected = transform.transform(image, {"ops": ops, "magnitudes": magnitudes})
        torch.testing.assert_close(compiled(image, ops, magnitudes), expected, rtol=0, atol=0)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm

    torch._dynamo.reset()
    torch.compile(transform, backend=backend, fullgraph=True)(image)
    assert len(graphs) == 1
    targets = [str(node.target) for node in graphs[0].graph.nodes if node.op == "call_function"]
    node = "augment_random_u8" if _native.AUGMENT_RANDOM else "augment_step_u8"  # the draw inside, when built
    assert sum(node in t for t in targets) == 1, targets
    assert not any(t.startswith("jitvision.") for t in targets), targets


def test_aug_mix_batches_compile_with_dynamic_shapes():
    transform = T.AugMix(mixture_width=2, chain_depth=1)
    compiled, counter = compile_counted(lambda x: transform.forward_batch(x), dynamic=True)
    for batch in (4, 5, 7):  # (not 3: duck sizing would tie the batch to the channels)
        images = make_image(21, 26, batch=(batch,))
        out = compiled(images)
        assert out.shape == images.shape and out.dtype == torch.uint8
    assert counter.frame_count == 1
    out = compiled(make_image(21, 26, batch=(8,)))
    assert len({o.sum().item() for o in out}) > 1


def test_opcheck_schema_and_fake():
    image = make_image(12, 15)
    ops, magnitudes = torch.tensor([5, 13]), torch.tensor([7.5, 0.0], dtype=torch.float64)
    for args in [(image, ops, magnitudes, 0, None), (image[None].expand(2, 3, 12, 15), ops[None].expand(2, 2),
                                                     magnitudes[None].expand(2, 2), 1, [4.0])]:
        torch.library.opcheck(
            torch.ops.jitvision_native.augment_step_u8, args, test_utils=("test_schema", "test_faketensor")
        )


# ---- augment_random_u8: the draw inside the op ---------------------------------------------------------------------

_POLICIES = {
    "AutoAugment-imagenet": lambda g=None: T.AutoAugment(T.AutoAugmentPolicy.IMAGENET, generator=g),
    "AutoAugment-cifar10": lambda g=None: T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, generator=g),
    "AutoAugment-svhn": lambda g=None: T.AutoAugment(T.AutoAugmentPolicy.SVHN, fill=[9.0], generator=g),
    "RandAugment": lambda g=None: T.RandAugment(num_ops=3, magnitude=9, generator=g),
    "RandAugment-11": lambda g=None: T.RandAugment(num_ops=2, magnitude=5, num_magnitude_bins=11, generator=g),
    "RandAugment-0": lambda g=None: T.RandAugment(num_ops=0, generator=g),
    "TrivialAugmentWide": lambda g=None: T.TrivialAugmentWide(interpolation="bilinear", generator=g),
    "TrivialAugmentWide-7": lambda g=None: T.TrivialAugmentWide(num_magnitude_bins=7, generator=g),
}
needs_random = pytest.mark.skipif(not _native.AUGMENT_RANDOM, reason="native library without augment_random_u8")


def _random_op(transform, image, rows, generator):
    mode = 0 if transform._grid == "nearest" else 1
    return torch.ops.jitvision_native.augment_random_u8(
        image, *transform._native_spec, mode, transform._script_fill, rows, generator
    )


@needs_random
@pytest.mark.parametrize("name", list(_POLICIES))
def test_native_draw_is_the_python_draw_and_its_steps(name):
    # The op's draw must be make_batch_params' (same uniforms, same float32 arithmetic), bit for bit, row by row, and
    # its output the steps of that draw (augment_step_u8): then the distribution tests of make_batch_params cover it.
    transform = _POLICIES[name]()
    seed = int(torch.randint(0, 2**31, ()).item())
    shapes = torch.Generator().manual_seed(seed)
    for k in range(12):
        height, width = int(torch.randint(3, 70, (), generator=shapes)), int(torch.randint(3, 70, (), generator=shapes))
        rows = int(torch.randint(1, 40, (), generator=shapes))
        images = make_image(height, width, channels=3 if k % 3 else 1, batch=(rows,))
        out, ops, magnitudes = _random_op(transform, images, True, torch.Generator().manual_seed(seed + k))
        expected = _POLICIES[name](torch.Generator().manual_seed(seed + k)).make_batch_params([images], rows)
        assert torch.equal(ops, expected["ops"]), (name, k)
        assert torch.equal(magnitudes, expected["magnitudes"]), (name, k)
        assert magnitudes.dtype == torch.float64 and ops.dtype == torch.int64
        steps = transform._native_steps(images, ops, magnitudes, transform._script_fill)
        torch.testing.assert_close(out, steps, rtol=0, atol=0)
        # One draw for a whole image (a video's frames share it): the first row's draw.
        one, ops1, magnitudes1 = _random_op(transform, images, False, torch.Generator().manual_seed(seed + k))
        assert torch.equal(ops1, expected["ops"][0]) and torch.equal(magnitudes1, expected["magnitudes"][0])
        torch.testing.assert_close(one, transform._native_steps(images, ops1, magnitudes1, transform._script_fill),
                                   rtol=0, atol=0)


@needs_random
@pytest.mark.parametrize("name", ["AutoAugment-svhn", "RandAugment", "TrivialAugmentWide"])
def test_eager_call_is_one_native_draw_equal_to_the_params_path(name):
    image = make_image(31, 44)
    for seed in range(30):
        torch.manual_seed(seed)
        got = _POLICIES[name]()(image)
        torch.manual_seed(seed)
        transform = _POLICIES[name]()
        expected = transform.transform(image, transform.make_params([image]))
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
    # A generator of its own: the op draws on it.
    a, b = _POLICIES[name](torch.Generator().manual_seed(3)), _POLICIES[name](torch.Generator().manual_seed(3))
    params = b.make_params([image])
    torch.testing.assert_close(a(image), b.transform(image, params), rtol=0, atol=0)


@needs_random
@pytest.mark.parametrize("name", ["AutoAugment-imagenet", "RandAugment", "TrivialAugmentWide"])
def test_compiled_call_is_one_node_drawing_live_and_equal_to_eager(name):
    transform = _POLICIES[name]()
    image = make_image(29, 37)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm

    torch._dynamo.reset()
    compiled = torch.compile(transform, backend=backend, fullgraph=True)
    torch.manual_seed(11)
    outputs = [compiled(image) for _ in range(16)]
    assert len(graphs) == 1
    targets = [str(node.target) for node in graphs[0].graph.nodes if node.op == "call_function"]
    assert [t for t in targets if "jitvision" in t or "rand" in t] == ["jitvision_native.augment_random_u8.default"]
    assert len({o.sum().item() for o in outputs}) > 1
    torch.manual_seed(11)
    for out in outputs:  # the same seed, the same draws as eager
        torch.testing.assert_close(out, transform(image), rtol=0, atol=0)


@needs_random
def test_inductor_call_draws_live_and_equals_eager():
    transform = T.RandAugment()
    image = make_image(29, 37)
    torch._dynamo.reset()
    compiled = torch.compile(transform, fullgraph=True)
    torch.manual_seed(5)
    outputs = [compiled(image) for _ in range(10)]
    assert len({o.sum().item() for o in outputs}) > 1
    torch.manual_seed(5)
    for out in outputs:
        torch.testing.assert_close(out, transform(image), rtol=0, atol=0)


@needs_random
def test_opcheck_augment_random():
    transform = T.AutoAugment()
    for image, rows in [(make_image(12, 15), False), (make_image(12, 15, batch=(3,)), True)]:
        args = (image, *transform._native_spec, 0, [4.0], rows, None)
        torch.library.opcheck(
            torch.ops.jitvision_native.augment_random_u8, args, test_utils=("test_schema", "test_faketensor")
        )


@needs_random
@pytest.mark.parametrize("name", ["AutoAugment-cifar10", "RandAugment", "TrivialAugmentWide"])
def test_forward_batch_draws_per_row_in_one_call(name):
    images = make_image(21, 26, batch=(6,))
    torch.manual_seed(7)
    got = _POLICIES[name]().forward_batch(images)
    torch.manual_seed(7)
    transform = _POLICIES[name]()
    expected = transform.transform_batch(images, transform.make_batch_params([images], 6))
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    assert len({o.sum().item() for o in got}) > 1
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm

    torch._dynamo.reset()
    compiled = torch.compile(lambda x: transform.forward_batch(x), backend=backend, fullgraph=True)
    torch.manual_seed(8)
    out = compiled(images)
    targets = [str(node.target) for node in graphs[0].graph.nodes if node.op == "call_function"]
    assert [t for t in targets if "jitvision" in t or "rand" in t] == ["jitvision_native.augment_random_u8.default"]
    torch.manual_seed(8)
    torch.testing.assert_close(out, transform.forward_batch(images), rtol=0, atol=0)
