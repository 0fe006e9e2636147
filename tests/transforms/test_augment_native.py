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
    assert sum("augment_step_u8" in t for t in targets) == 1, targets
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
