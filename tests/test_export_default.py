"""torch.export, default (non-strict) and strict, of the presets and of random crops: only C++ operators in the
graph (a Python-defined operator cannot run in AOTInductor or TorchScript in C++), the same fused native path as
eager, outputs equal to eager, random draws live, dynamic height and width where the pipeline is deterministic.
The C++ runtimes themselves are tested in tests/test_deploy_cpp.py.
"""

import pytest
import torch

import jitvision.transforms as T
from jitvision import _native, tv_tensors
from tests.helpers import make_boxes

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def _train():
    return T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
                      T.Normalize(MEAN, STD)])


def _infer():
    return T.Compose([T.Resize(256), T.CenterCrop(224), T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])


def _image(h: int, w: int, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=torch.Generator().manual_seed(seed))


def _targets(program: torch.export.ExportedProgram) -> list:
    return [str(node.target) for node in program.graph.nodes if node.op == "call_function"]


def _python_ops(program: torch.export.ExportedProgram) -> list:
    # C++ operators are jitvision_native::*; jitvision::* are the Python-defined fallbacks
    return [t for t in _targets(program) if t.startswith("jitvision.")]


@pytest.fixture(autouse=True)
def _native_loaded():
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_training_preset_exports_as_one_native_node(strict):
    pipe, x = _train(), _image(256, 256)
    program = torch.export.export(pipe, (x,), strict=strict)
    assert _targets(program) == ["jitvision_native.random_resized_crop.default"] or (
        "jitvision_native.random_resized_crop.default" in _targets(program) and not _python_ops(program)
    ), _targets(program)
    module = program.module()
    for seed in (0, 1):
        torch.manual_seed(seed)
        expected = [pipe(x), pipe(x)]
        torch.manual_seed(seed)
        actual = [module(x), module(x)]
        for a, e in zip(actual, expected):
            torch.testing.assert_close(a, e, rtol=0, atol=0)
        assert not torch.equal(actual[0], actual[1])  # the draws stay live


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_inference_preset_exports_with_dynamic_size(strict):
    pipe = _infer()
    dims = {1: torch.export.Dim("h", min=224, max=2048), 2: torch.export.Dim("w", min=224, max=2048)}
    program = torch.export.export(pipe, (_image(480, 640),), dynamic_shapes=(dims,), strict=strict)
    assert "jitvision_native.resize_center_crop.default" in _targets(program) and not _python_ops(program)
    module = program.module()
    for h, w in [(480, 640), (300, 257), (611, 400)]:
        x = _image(h, w, seed=h)
        torch.testing.assert_close(module(x), pipe(x), rtol=0, atol=0)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_random_crops_export_with_cpp_operators_only(strict):
    # Not fused (float input, a non-fusable order): RandomResizedCrop's resized_crop_box and RandomCrop's crop_at.
    pipe = T.Compose([T.RandomCrop(20), T.RandomResizedCrop(16, antialias=True)])
    for x in (torch.rand(3, 32, 30), _image(32, 30)):
        program = torch.export.export(pipe, (x,), strict=strict)
        targets = _targets(program)
        assert "jitvision_native.crop_at.default" in targets and "jitvision_native.resized_crop_box.default" in targets
        assert not _python_ops(program), targets
        module = program.module()
        torch.manual_seed(3)
        expected = pipe(x)
        torch.manual_seed(3)
        torch.testing.assert_close(module(x), expected, rtol=0, atol=0)
        outs = [module(x) for _ in range(8)]
        assert any(not torch.equal(outs[0], o) for o in outs[1:])


def test_tv_tensor_sample_exports_strict_with_cpp_operators_only():
    # tv_tensor samples keep their types only under strict export (non-strict sees plain tensors).
    pipe = T.Compose([T.RandomResizedCrop(24), T.RandomHorizontalFlip()])
    sample = {"image": tv_tensors.Image(_image(40, 36)), "boxes": make_boxes(canvas_size=(40, 36), num_boxes=3)}
    program = torch.export.export(pipe, (sample,), strict=True)
    assert "jitvision_native.resized_crop_box.default" in _targets(program)
    assert not _python_ops(program), _targets(program)
    module = program.module()
    torch.manual_seed(5)
    expected = pipe(sample)
    torch.manual_seed(5)
    actual = module(sample)
    torch.testing.assert_close(actual["image"].as_subclass(torch.Tensor), expected["image"].as_subclass(torch.Tensor))
    torch.testing.assert_close(actual["boxes"].as_subclass(torch.Tensor), expected["boxes"].as_subclass(torch.Tensor))


def _drawn_size_classes():
    return [T.RandomResize(20, 40), T.RandomShortestSize([20, 30, 40], max_size=60), T.ScaleJitter((32, 32)),
            T.RandomZoomOut(fill=0)]


@pytest.mark.parametrize("strict", [False, True])
def test_drawn_size_classes_export_with_cpp_operators_only(strict):
    # The drawn output size reaches the kernels through jitvision_native::drawn_sizes (unbacked sizes), the draw is
    # aten.randint without a generator argument: nothing an AOTInductor package or a C++ program cannot run.
    image = _image(32, 40)
    for transform in _drawn_size_classes():
        program = torch.export.export(transform, (image,), strict=strict)
        name = type(transform).__name__
        assert _python_ops(program) == [], name
        assert "jitvision_native.drawn_sizes.default" in _targets(program), name
        assert "aten.randint.low_generator" not in _targets(program), name
        shapes = {tuple(program.module()(image).shape) for _ in range(12)}
        assert len(shapes) > 1, f"{name}: the drawn size is frozen in the exported program"


def test_drawn_size_package_runs_in_aotinductor_with_sizes_live(tmp_path):
    image = _image(32, 40)
    program = torch.export.export(T.RandomResize(20, 40), (image,))
    path = torch._inductor.aoti_compile_and_package(program, package_path=str(tmp_path / "resize.pt2"))
    runner = torch._inductor.aoti_load_package(path)
    shapes = {tuple(runner(image).shape) for _ in range(12)}
    assert len(shapes) > 1 and all(s[0] == 3 and 20 <= min(s[1:]) <= 40 for s in shapes), shapes
