"""A standalone scripted Resize / RandomResizedCrop runs the native kernel on uint8 CPU images (the default with the
library loaded) or only torch ops (``script_native_ops(False)``: the portable form a plain libtorch loads), the choice
made at scripting time; outputs equal eager either way, and the eager module is not changed."""

import random

import pytest
import torch

import jitvision.transforms as T
from jitvision import _native


def _cases(seed: int):
    rng = random.Random(seed)
    side = rng.randint(20, 90)
    return {
        "resize-int": T.Resize(side),
        "resize-hw": T.Resize([rng.randint(10, 80), rng.randint(10, 80)]),
        "resize-max": T.Resize(side, max_size=side + rng.randint(1, 30)),
        "resize-none": T.Resize(None, max_size=rng.randint(30, 90)),
        "rrc": T.RandomResizedCrop(
            [rng.randint(10, 70), rng.randint(10, 70)], scale=(rng.uniform(0.05, 0.5), 1.0), ratio=(0.6, 1.8)
        ),
    }


def _script(module: torch.nn.Module, native: bool, tmp_path) -> torch.jit.ScriptModule:
    with T.script_native_ops(native):
        scripted = torch.jit.script(module)
    path = str(tmp_path / f"m-{native}.pt")
    torch.jit.save(scripted, path)
    return torch.jit.load(path)


def _uses_native(scripted: torch.jit.ScriptModule) -> bool:
    return "jitvision_native" in str(scripted.forward.inlined_graph)


@pytest.mark.parametrize("name", ["resize-int", "resize-hw", "resize-max", "resize-none", "rrc"])
@pytest.mark.parametrize("native", [True, False], ids=["native", "portable"])
def test_standalone_scripted_equals_eager(name, native, tmp_path):
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
    seed = random.randrange(1 << 30)
    transform = _cases(seed)[name]
    loaded = _script(transform, native, tmp_path)
    assert _uses_native(loaded) is native, (seed, str(loaded.forward.inlined_graph))
    assert dict(transform.named_children()) == {}  # the eager module is unchanged
    gen = torch.Generator().manual_seed(seed)
    for shape in [(3, 97, 131), (1, 64, 50), (2, 3, 45, 77)]:
        x = torch.randint(0, 256, shape, dtype=torch.uint8, generator=gen)
        for inpt in (x, x.float()):  # float: the transform's torch path either way
            torch.manual_seed(seed)
            expected = [transform(inpt) for _ in range(2)]
            torch.manual_seed(seed)
            actual = [loaded(inpt) for _ in range(2)]
            for a, e in zip(actual, expected):
                torch.testing.assert_close(a, e, rtol=0, atol=1e-4 if inpt.is_floating_point() else 0)


def test_standalone_scripted_not_native_when_it_does_not_fuse(tmp_path):
    for transform in (T.Resize(30, interpolation=T.InterpolationMode.NEAREST), T.Resize(30, antialias=False),
                      T.RandomResizedCrop(20, interpolation=T.InterpolationMode.BICUBIC)):
        loaded = _script(transform, True, tmp_path)
        assert not _uses_native(loaded), transform
        x = torch.randint(0, 256, (3, 50, 61), dtype=torch.uint8)
        torch.manual_seed(0)
        expected = transform(x)
        torch.manual_seed(0)
        torch.testing.assert_close(loaded(x), expected, rtol=0, atol=0)


def test_scripting_a_compose_leaves_its_transforms_alone():
    steps = [T.Resize(40), T.RandomHorizontalFlip(), T.RandomResizedCrop(24)]
    pipe = T.Compose(steps)
    scripted = torch.jit.script(pipe)
    assert list(pipe.transforms) == steps and all(dict(s.named_children()) == {} for s in steps)
    assert _uses_native(scripted)
    x = torch.randint(0, 256, (3, 70, 90), dtype=torch.uint8)
    torch.manual_seed(5)
    expected = pipe(x)
    torch.manual_seed(5)
    torch.testing.assert_close(scripted(x), expected, rtol=0, atol=0)
    assert scripted.forward_batch(x[None].expand(2, -1, -1, -1).contiguous()).shape[1:] == expected.shape
