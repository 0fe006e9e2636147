"""jitvision_native::random_erase (csrc/erase_fast.cpp): RandomErasing's eager draws and erase in one call, against
the Python path (the same draws on the same generator, the same box, the same values)."""

import pytest
import torch

import jitvision.transforms as T
from jitvision.transforms import _erasing

OP = torch.ops.jitvision_native.random_erase


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"p": 0.6, "value": 7},
        {"scale": (0.5, 0.9), "ratio": (0.2, 5.0), "value": 255},
        {"scale": (0.9, 1.0), "ratio": (5.0, 6.0)},  # often nothing fits
        {"scale": (0.0, 0.01), "ratio": (1.0, 1.0)},  # tiny boxes, some of size 0
    ],
)
@pytest.mark.parametrize("shape", [(3, 37, 51), (1, 9, 8), (2, 3, 20, 30)])
def test_native_call_equals_the_python_path(kwargs, shape, monkeypatch):
    kwargs = {"p": 1.0, **kwargs}
    image = torch.randint(0, 256, shape, dtype=torch.uint8, generator=torch.Generator().manual_seed(1))
    transform = T.RandomErasing(**kwargs)
    fast = []
    for seed in range(20):
        torch.manual_seed(seed)
        fast.append((transform(image), torch.rand(2)))
    monkeypatch.setattr(_erasing, "_RANDOM_ERASE", None)
    for seed, (out, after) in enumerate(fast):
        torch.manual_seed(seed)
        expected = transform(image)
        assert torch.equal(out, expected), seed
        assert torch.equal(after, torch.rand(2)), f"{seed}: the native call drew differently"
        assert out is image or out.data_ptr() != image.data_ptr()  # never an alias when erased


def test_generator_and_errors():
    image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
    a = OP(image, 1.0, [0.1, 0.3], [0.5, 2.0], 0, torch.Generator().manual_seed(3))
    b = OP(image, 1.0, [0.1, 0.3], [0.5, 2.0], 0, torch.Generator().manual_seed(3))
    assert len(a) == len(b) == 1 and torch.equal(a[0], b[0])
    with pytest.raises(ValueError, match="1-byte dtype"):
        OP(image.float(), 1.0, [0.1, 0.3], [0.5, 2.0], 0)
    with pytest.raises(ValueError, match="1-byte dtype"):
        OP(image.transpose(-1, -2), 1.0, [0.1, 0.3], [0.5, 2.0], 0)
    with pytest.raises(ValueError, match="fill must be"):
        OP(image, 1.0, [0.1, 0.3], [0.5, 2.0], -1)
    with pytest.raises(ValueError, match="ratio positive"):
        OP(image, 1.0, [0.1, 0.3], [0.0, 2.0], 0)
