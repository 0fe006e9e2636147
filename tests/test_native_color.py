"""The native uint8 photometric ops (csrc/color.cpp) vs the PyTorch path beside them vs torchvision.

Each kernel is run twice on the same randomized uint8 input: with the extension (the native op) and with
``_native.AVAILABLE`` patched off (the PyTorch path), and both are compared with torchvision's functional.
Tolerance: ``assert_matches_oracle``'s integer rule (within 1 level, fewer than 1% of the values off by one); the
native ops keep torchvision's float32 arithmetic per value, so almost every value is equal.
`make sanitize` runs this file against the ASan/UBSan build too.
"""

import random

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as TF

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import _native, tv_tensors
from jitvision.transforms._color._jitter import _jitter_loop
from jitvision.transforms.functional._color import _native_u8
from tests.helpers import assert_matches_oracle, assert_one_graph

pytestmark = pytest.mark.skipif(not _native.AVAILABLE, reason="needs the native extension (see test_native.py)")

OPS = {
    "adjust_brightness": lambda rng: {"brightness_factor": rng.uniform(0.0, 2.5)},
    "adjust_contrast": lambda rng: {"contrast_factor": rng.uniform(0.0, 2.5)},
    "adjust_saturation": lambda rng: {"saturation_factor": rng.uniform(0.0, 2.5)},
    "adjust_hue": lambda rng: {"hue_factor": rng.uniform(-0.5, 0.5)},
    "adjust_sharpness": lambda rng: {"sharpness_factor": rng.uniform(0.0, 3.0)},
    "equalize": lambda rng: {},
    "autocontrast": lambda rng: {},
    "rgb_to_grayscale": lambda rng: {"num_output_channels": rng.choice([1, 3])},
}


def _image(rng: random.Random, channels: int = 3) -> torch.Tensor:
    gen = torch.Generator().manual_seed(rng.randrange(2**31))
    height, width = rng.randint(1, 70), rng.randint(1, 70)
    layout = rng.choice(["contiguous", "channels_last", "batched", "strided", "narrow_range"])
    if layout == "channels_last":  # a [C, H, W] view of [H, W, C] memory
        return torch.randint(0, 256, (height, width, channels), dtype=torch.uint8, generator=gen).permute(2, 0, 1)
    if layout == "batched":
        return torch.randint(0, 256, (2, 2, channels, height, width), dtype=torch.uint8, generator=gen)
    if layout == "strided":
        return torch.randint(0, 256, (channels, 2 * height, 2 * width), dtype=torch.uint8, generator=gen)[..., ::2, ::2]
    low = rng.randint(0, 250)
    if layout == "narrow_range":  # flat or almost flat planes (equalize's and autocontrast's special cases)
        return torch.randint(low, low + rng.randint(1, 3), (channels, height, width), dtype=torch.uint8, generator=gen)
    return torch.randint(0, 256, (channels, height, width), dtype=torch.uint8, generator=gen)


def _without_native(monkeypatch: pytest.MonkeyPatch, fn, *args, **kwargs):
    with monkeypatch.context() as patch:
        patch.setattr(_native, "AVAILABLE", False)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("seed", range(12))
def test_native_kernel_matches_pytorch_path_and_torchvision(name, seed, monkeypatch):
    rng = random.Random(f"{name}-{seed}")
    channels = 1 if name not in ("adjust_hue", "rgb_to_grayscale") and rng.random() < 0.25 else 3
    image = _image(rng, channels)
    kwargs = OPS[name](rng)
    ours = getattr(F, name)(image, **kwargs)
    pure = _without_native(monkeypatch, getattr(F, name), image, **kwargs)
    theirs = getattr(TF, name)(image, **kwargs)
    assert_matches_oracle(ours, pure, what=f"{name} native vs pytorch")
    assert_matches_oracle(ours, theirs, what=f"{name} native vs torchvision")


@pytest.mark.parametrize("seed", range(16))
def test_native_lut_and_solarize(seed, monkeypatch):
    rng = random.Random(seed)
    image = _image(rng, rng.choice([1, 3]))
    table = torch.randint(0, 256, (256,), dtype=torch.uint8)
    expected = table[image.long()]
    torch.testing.assert_close(torch.ops.jitvision_native.lut_u8(image, table.view(1, 256)), expected, atol=0, rtol=0)
    threshold = rng.choice([rng.uniform(-5, 255), float(rng.randint(0, 255)), 0.0, 255.0])
    for name, kwargs in (("solarize", {"threshold": threshold}), ("posterize", {"bits": rng.randint(0, 8)}),
                         ("invert", {})):
        ours = getattr(F, name)(image, **kwargs)
        assert_matches_oracle(ours, getattr(TF, name)(image, **kwargs), what=name)
        assert torch.equal(ours, _without_native(monkeypatch, getattr(F, name), image, **kwargs))


@pytest.mark.parametrize("seed", range(8))
def test_native_brightness_is_bit_exact(seed, monkeypatch):
    # The vectorised brightness pass (32 values a step, a table for the rest) keeps the float32 product and the
    # truncation: equal to the PyTorch path (torchvision's arithmetic) on every value, for any factor.
    rng = random.Random(seed)
    image = torch.randint(0, 256, (rng.choice([1, 3]), rng.randint(1, 90), rng.randint(1, 130)), dtype=torch.uint8)
    factor = rng.choice([rng.uniform(0.0, 3.0), rng.uniform(0.9, 1.1), 255.0 / rng.randint(1, 255), 1e9])
    ours = F.adjust_brightness(image, factor)
    assert torch.equal(ours, _without_native(monkeypatch, F.adjust_brightness, image, factor))


@pytest.mark.parametrize("seed", range(8))
def test_native_gamma_is_a_table_look_up_and_bit_exact(seed, monkeypatch):
    # uint8 gamma: a table of the 256 per-level float results (built once per gamma and gain) looked up natively;
    # equal on every value to the PyTorch path and to torchvision's per-pixel float computation.
    rng = random.Random(seed)
    shape = (*rng.choice([(), (2,)]), rng.choice([1, 3, 4]), rng.randint(1, 90), rng.randint(1, 130))
    image = torch.randint(0, 256, shape, dtype=torch.uint8)
    gamma = rng.choice([1.2, rng.uniform(0.0, 3.0), 0.0, 1.0, 1e-3])
    gain = rng.choice([1.0, rng.uniform(0.3, 2.0)])
    looked_up = []
    real = _native_u8.lookup
    monkeypatch.setattr(_native_u8, "lookup", lambda *a: looked_up.append(1) or real(*a))
    ours = F.adjust_gamma(image, gamma, gain)
    assert looked_up, "the uint8 gamma goes through the native look-up"
    monkeypatch.undo()
    assert torch.equal(ours, TF.adjust_gamma(image, gamma, gain))
    assert torch.equal(ours, _without_native(monkeypatch, F.adjust_gamma, image, gamma, gain))
    channels_last = image.reshape(-1, *image.shape[-3:]).contiguous(memory_format=torch.channels_last)
    assert torch.equal(F.adjust_gamma(channels_last, gamma, gain), TF.adjust_gamma(channels_last, gamma, gain))


@pytest.mark.parametrize("seed", range(10))
def test_native_color_jitter_matches_the_loop_and_torchvision(seed, monkeypatch):
    rng = random.Random(seed)
    image = _image(rng, rng.choice([1, 3, 3]))
    if image.ndim > 3:
        image = image[0, 0]
    transform = T.ColorJitter(
        brightness=rng.choice([None, 0.5]), contrast=rng.choice([None, 0.5]), saturation=rng.choice([None, 0.9]),
        hue=rng.choice([None, 0.4]),
    )
    # the internal parameters (make_params gives torchvision's keys): row 0 of a batch of one, the same draw
    rows = transform.make_batch_params([tv_tensors.BatchedImages(image.unsqueeze(0))], 1)
    params = {key: value[0] for key, value in rows.items()}
    ours = transform.transform(image, params)
    loop = _without_native(monkeypatch, _jitter_loop, image, params["order"].tolist(), params["factors"],
                           transform._present)
    assert_matches_oracle(ours, loop, what="native vs loop")
    expected = image
    factors = params["factors"].tolist()
    functionals = (TF.adjust_brightness, TF.adjust_contrast, TF.adjust_saturation, TF.adjust_hue)
    for op in params["order"].tolist():
        if transform._present[op]:
            expected = functionals[op](expected, factors[op])
    assert_matches_oracle(ours, expected, what="native vs torchvision")


def test_native_color_jitter_per_row_parameters(monkeypatch):
    rng = random.Random(0)
    batch = torch.randint(0, 256, (5, 3, 23, 31), dtype=torch.uint8)
    transform = T.ColorJitter(0.5, 0.5, 0.5, 0.2)
    params = transform.make_batch_params([batch], 5)
    out = transform.transform_batch(batch, params)
    selected = _without_native(monkeypatch, transform.transform_batch, batch, params)
    assert_matches_oracle(out, selected, what="batch native vs select")
    for row in range(5):
        loop = _jitter_loop(batch[row], params["order"][row].tolist(), params["factors"][row], transform._present)
        assert_matches_oracle(out[row], loop, what=f"row {row}")
    # a batch of videos: each sample's parameters for all of its frames
    videos = torch.randint(0, 256, (2, 3, 3, 9, 11), dtype=torch.uint8)
    params = transform.make_batch_params([videos], 2)
    out = transform.transform_batch(videos, params)
    for row in range(2):
        for frame in range(3):
            loop = _jitter_loop(videos[row, frame], params["order"][row].tolist(), params["factors"][row],
                                transform._present)
            assert_matches_oracle(out[row, frame], loop, what=f"video {row} frame {frame}")
    assert rng is not None


def test_native_per_row_factors_match_single_rows():
    batch = torch.randint(0, 256, (4, 3, 17, 19), dtype=torch.uint8)
    factors = torch.rand(4) * 2
    for op in range(4):
        f = factors - 0.5 * (factors > 1.0) if op == 3 else factors
        f = f.clamp(-0.5, 0.5) if op == 3 else f
        out = torch.ops.jitvision_native.adjust_u8(batch, f, op)
        for row in range(4):
            assert torch.equal(out[row], torch.ops.jitvision_native.adjust_u8(batch[row], f[row], op))
    out = torch.ops.jitvision_native.sharpness_u8(batch, factors)
    for row in range(4):
        assert torch.equal(out[row], torch.ops.jitvision_native.sharpness_u8(batch[row], factors[row]))


def test_native_color_ops_refuse_bad_input():
    ops = torch.ops.jitvision_native
    with pytest.raises(RuntimeError, match="uint8"):
        ops.adjust_u8(torch.rand(3, 4, 4), torch.tensor(1.0), 0)
    with pytest.raises(ValueError, match="one factor"):
        ops.adjust_u8(torch.zeros(2, 3, 4, 4, dtype=torch.uint8), torch.ones(3), 0)
    with pytest.raises(ValueError, match="op must be"):
        ops.adjust_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), torch.tensor(1.0), 7)
    with pytest.raises(ValueError, match="tables"):
        ops.lut_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), torch.zeros(2, 256, dtype=torch.uint8))
    with pytest.raises(ValueError, match="3 channels"):
        ops.grayscale_u8(torch.zeros(2, 4, 4, dtype=torch.uint8))
    with pytest.raises(ValueError, match="solarize cut"):
        ops.point_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), 1, 300)
    with pytest.raises(ValueError, match="op must be"):
        ops.random_point_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), 0.5, 5, 0)
    with pytest.raises(ValueError, match="1 or 3 channels"):
        ops.color_jitter_random_u8(torch.zeros(2, 4, 4, dtype=torch.uint8), [1.0] * 4, [1.0] * 4, 1)
    with pytest.raises(ValueError, match="order holds"):
        ops.color_jitter_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), torch.tensor([0, 1, 2, 9]), torch.ones(4), 15)


def test_native_color_ops_are_one_graph_node_and_script():
    image = torch.randint(0, 256, (3, 32, 40), dtype=torch.uint8)
    transform = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    out = assert_one_graph(transform, image)
    assert out.shape == image.shape and out.dtype == torch.uint8
    for name in ("lut_u8", "adjust_u8", "color_jitter_u8", "grayscale_u8", "equalize_u8", "autocontrast_u8",
                 "sharpness_u8", "point_u8"):
        assert hasattr(torch.ops.jitvision_native, name)
    args = {
        "lut_u8": (image, torch.randint(0, 256, (3, 256), dtype=torch.uint8)),
        "adjust_u8": (image, torch.tensor(1.3), 2),
        "color_jitter_u8": (image, torch.tensor([3, 1, 0, 2]), torch.tensor([1.2, 0.8, 1.1, 0.05]), 15),
        "grayscale_u8": (image,),
        "equalize_u8": (image,),
        "autocontrast_u8": (image,),
        "sharpness_u8": (image, torch.tensor(2.0)),
        "point_u8": (image, 1, 129),
    }
    for name, op_args in args.items():
        torch.library.opcheck(getattr(torch.ops.jitvision_native, name), op_args,
                              test_utils=("test_schema", "test_faketensor"))

    @torch.jit.script
    def scripted(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.jitvision_native.adjust_u8(x, torch.tensor(0.5), 1)

    assert torch.equal(scripted(image), torch.ops.jitvision_native.adjust_u8(image, torch.tensor(0.5), 1))


def test_compiled_color_jitter_on_uint8_is_random_and_matches_eager():
    image = torch.randint(0, 256, (3, 24, 24), dtype=torch.uint8)
    transform = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    compiled = torch.compile(transform, fullgraph=True, backend="eager")
    outputs = {tuple(compiled(image).flatten().tolist()) for _ in range(6)}
    assert len(outputs) > 1
    torch.manual_seed(3)
    a = compiled(image)
    torch.manual_seed(3)
    b = transform(image)
    assert torch.equal(a, b)
    assert tv_transforms is not None


def test_native_random_ops_draw_as_torch_rand():
    # random_point_u8 / color_jitter_random_u8 draw without tensors (csrc/color_draw.h): the same values as
    # torch.rand on an equal generator, and the same effect as the ops given those draws.
    ops = torch.ops.jitvision_native
    image = torch.randint(0, 256, (2, 3, 19, 45), dtype=torch.uint8)
    low, high = [0.5, 0.6, 0.0, -0.3], [1.5, 1.4, 2.0, 0.3]
    for seed in range(8):
        out = ops.random_point_u8(image, 0.5, 1, 100, torch.Generator().manual_seed(seed))
        reference = torch.Generator().manual_seed(seed)
        applied = torch.rand([], generator=reference).item() < 0.5
        assert len(out) == int(applied)
        if applied:
            assert torch.equal(out[0], ops.point_u8(image, 1, 100))
        out = ops.color_jitter_random_u8(image, low, high, 15, torch.Generator().manual_seed(seed))
        reference = torch.Generator().manual_seed(seed)
        order = torch.rand([1, 4], generator=reference).argsort(dim=-1)[0]
        low_t, high_t = torch.tensor(low), torch.tensor(high)
        factors = (low_t + (high_t - low_t) * torch.rand([1, 4], generator=reference))[0]
        assert torch.equal(out, ops.color_jitter_u8(image, order, factors, 15))
