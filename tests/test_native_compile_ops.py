"""The native ops that keep compiled uint8 code on ATen's kernels (csrc/pad.cpp): ``constant_pad`` and
``select_rows``, and the compiled transforms that use them (Pad, the probability gate of Random* transforms, the
table-driven invert/posterize/solarize). `make sanitize` runs this file against the ASan/UBSan build too."""

import random

import pytest
import torch
import torch.nn.functional as nnf

import jitvision.transforms as T
from jitvision import _native
from tests.helpers import assert_one_graph

pytestmark = pytest.mark.skipif(not _native.AVAILABLE, reason="needs the native extension (see test_native.py)")
ops = torch.ops.jitvision_native


@pytest.mark.parametrize("seed", range(10))
def test_constant_pad_is_atens_pad(seed):
    rng = random.Random(seed)
    dtype = rng.choice([torch.uint8, torch.float32, torch.int16])
    image = (torch.rand(rng.randint(1, 3), rng.randint(1, 9), rng.randint(1, 9)) * 200).to(dtype)
    pad = [rng.randint(-1, 4) for _ in range(4)]
    if image.shape[-1] + pad[0] + pad[1] < 1 or image.shape[-2] + pad[2] + pad[3] < 1:
        pad = [abs(v) for v in pad]
    value = rng.choice([0, 7])
    out = ops.constant_pad(image, pad, value)
    assert torch.equal(out, nnf.pad(image, pad, value=value))
    assert not out.is_set_to(image) and (out.numel() == 0 or out.data_ptr() != image.data_ptr())


def test_select_rows():
    a = torch.randint(0, 256, (4, 3, 5, 6), dtype=torch.uint8)
    b = torch.randint(0, 256, (4, 3, 5, 6), dtype=torch.uint8)
    for flag in (True, False):
        out = ops.select_rows(torch.tensor(flag), a, b)
        assert torch.equal(out, a if flag else b) and out.data_ptr() not in (a.data_ptr(), b.data_ptr())
    coins = torch.tensor([True, False, False, True])
    expected = torch.where(coins.view(4, 1, 1, 1), a, b)
    assert torch.equal(ops.select_rows(coins, a, b), expected)
    assert torch.equal(ops.select_rows(coins, a.unsqueeze(0), b.unsqueeze(0)).squeeze(0), expected)
    assert torch.equal(ops.select_rows(coins, a.transpose(-1, -2), b.transpose(-1, -2)), expected.transpose(-1, -2))
    with pytest.raises(ValueError, match="differ"):
        ops.select_rows(coins, a, b[:2])
    with pytest.raises(ValueError, match="rows"):
        ops.select_rows(torch.ones(7, dtype=torch.bool), a, b)
    for name, args in (("constant_pad", (a, [1, 2, 0, 1], 3)), ("select_rows", (coins, a, b))):
        torch.library.opcheck(getattr(ops, name), args, test_utils=("test_schema", "test_faketensor"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: T.Pad(3),
        lambda: T.RandomInvert(0.5),
        lambda: T.RandomPosterize(3, p=0.5),
        lambda: T.RandomSolarize(100, p=0.5),
        lambda: T.RandomAutocontrast(0.5),
    ],
)
def test_compiled_uint8_transforms_are_one_graph_and_match_eager(make):
    transform = make()
    image = torch.randint(0, 256, (3, 20, 24), dtype=torch.uint8)
    assert_one_graph(transform, image)
    compiled = torch.compile(transform, fullgraph=True, backend="eager")
    for seed in range(6):
        torch.manual_seed(seed)
        expected = transform(image)
        torch.manual_seed(seed)
        assert torch.equal(compiled(image), expected), seed
    batch = torch.randint(0, 256, (5, 3, 8, 9), dtype=torch.uint8)
    params = transform.make_batch_params([batch], 5)
    out = transform.transform_batch(batch, params)
    if "apply" in params:
        for row in range(5):
            expected = transform._apply(batch[row], params) if params["apply"][row] else batch[row]
            assert torch.equal(out[row], expected)


def test_inductor_compiled_pad_and_gate():
    # inductor draws from its own random stream, so the coin is checked by its effect, not against eager's draw
    pipeline = T.Compose([T.Pad(2), T.RandomInvert(0.5)])
    image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
    compiled = torch.compile(pipeline, fullgraph=True)
    padded = nnf.pad(image, [2, 2, 2, 2])
    seen = set()
    for _ in range(12):
        out = compiled(image)
        assert torch.equal(out, padded) or torch.equal(out, 255 - padded)
        seen.add(torch.equal(out, padded))
    assert seen == {True, False}
