"""Scripted Compose with the fused native prefix (the default with the library loaded) or torch ops only
(``script_native_ops(False)``): a choice made at scripting time, same outputs as eager either way."""

import pytest
import torch

import jitvision.transforms as T
from jitvision import _native

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def _presets():
    tail = [T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)]
    return {
        "train": T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), *tail]),
        "infer": T.Compose([T.Resize(256), T.CenterCrop(224), *tail]),
        "resize-only": T.Compose([T.Resize(40)]),
        "crop-u8": T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(0.3)]),
    }


def _roundtrip(module: torch.nn.Module, tmp_path, native: bool) -> torch.jit.ScriptModule:
    with T.script_native_ops(native):
        scripted = torch.jit.script(module)
    torch.jit.save(scripted, str(tmp_path / "m.pt"))
    return torch.jit.load(str(tmp_path / "m.pt"))


@pytest.mark.parametrize("name", ["train", "infer", "resize-only", "crop-u8"])
@pytest.mark.parametrize("native", [True, False], ids=["native", "portable"])
def test_scripted_compose_equals_eager(name, native, tmp_path):
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
    pipe = _presets()[name]
    loaded = _roundtrip(pipe, tmp_path, native)
    code = loaded.code + loaded._script_prefix.code
    assert ("jitvision_native" in code) is native, code
    assert "_script_prefix" not in dict(pipe.named_children())  # the eager module is unchanged
    for h, w in [(256, 256), (181, 240)]:
        x = torch.randint(0, 256, (3, h, w), dtype=torch.uint8)
        torch.manual_seed(7)
        expected = [pipe(x) for _ in range(3)]
        torch.manual_seed(7)
        actual = [loaded(x) for _ in range(3)]
        for a, e in zip(actual, expected):
            # The portable path converts to float in torch ops: float rounding; native is the eager op itself.
            torch.testing.assert_close(a, e, rtol=0, atol=0 if native or e.dtype == torch.uint8 else 1e-5)
        if name in ("train", "crop-u8"):
            assert not torch.equal(actual[0], actual[1]) or not torch.equal(actual[1], actual[2])


def test_scripted_native_prefix_falls_back_to_the_transforms(tmp_path):
    pipe = _presets()["train"]
    loaded = _roundtrip(pipe, tmp_path, True)
    x = torch.rand(3, 64, 64)  # float: not fusable, the transforms run one by one (as in eager)
    torch.manual_seed(3)
    expected = pipe(x)
    torch.manual_seed(3)
    torch.testing.assert_close(loaded(x), expected)
    gray = torch.randint(0, 256, (2, 64, 64), dtype=torch.uint8)  # 3 means for 2 channels: Normalize's own error
    with pytest.raises(Exception, match="(?i)normalize: mean and std"):
        pipe(gray)
    with pytest.raises(Exception, match="(?i)normalize: mean and std"):
        loaded(gray)
