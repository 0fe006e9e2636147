"""jitvision_native::jpeg_u8 (csrc/jpeg.cpp, libjpeg) against torchvision's jpeg (encode_jpeg + decode_jpeg) at
the tolerance torchvision's own JPEG tests use (``assert_close(rtol=0, atol=1)``), on randomized shapes, channel
counts and qualities; what ``jpeg``/``JPEG`` put into traced, scripted and exported graphs (the native op, never the
Python ``jitvision::jpeg``); the errors, libjpeg's own included (its longjmp path, which the sanitizer run covers);
a scripted JPEG loaded in a process that loaded only the native library."""

import random
import subprocess
import sys

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import _native, tv_tensors
from tests.helpers import assert_random_under_compile, compile_counted, to_torchvision

pytestmark = pytest.mark.skipif(not _native.JPEG, reason="the native library was built without libjpeg")
_op = torch.ops.jitvision_native.jpeg_u8 if _native.JPEG else None


def _photo(gen, channels, h, w, batch=()):
    """A smooth picture with noise (JPEG's subject: flat noise makes every codec difference show)."""
    count = 1
    for b in batch:
        count *= b
    coarse = torch.rand(count, channels, 5, 7, generator=gen) * 255
    smooth = torch.nn.functional.interpolate(coarse, size=(h, w), mode="bilinear")
    noisy = (smooth + torch.randn(smooth.shape, generator=gen) * 8).clamp(0, 255).to(torch.uint8)
    return noisy.reshape(*batch, channels, h, w)


def _tv(image, quality):
    return tv_functional.jpeg(image, quality)


def _close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=0, atol=1)  # torchvision's TestJPEG tolerance


@pytest.mark.parametrize("seed", range(6))
def test_op_matches_torchvision(seed):
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(4):
        channels = rng.choice([1, 3])
        h, w = rng.randint(1, 90), rng.randint(1, 90)
        quality = rng.randint(1, 100)
        image = _photo(gen, channels, h, w)
        out = _op(image, torch.tensor(quality))
        assert out.shape == image.shape and out.dtype == torch.uint8 and out.is_contiguous()
        _close(out, _tv(image, quality))
        # the functional, on every kind torchvision's jpeg takes
        _close(F.jpeg(image, quality), _tv(image, quality))
        for inpt in (tv_tensors.Image(image), tv_tensors.Video(_photo(gen, channels, h, w, (2,)))):
            out = F.jpeg(inpt, quality)
            assert type(out) is type(inpt)
            _close(out.as_subclass(torch.Tensor), _tv(to_torchvision(inpt), quality).as_subclass(torch.Tensor))


@pytest.mark.parametrize("path", ["planes", "interleaved"])
@pytest.mark.parametrize("seed", range(3))
def test_rgb_raw_path_is_bit_identical_to_torchvision(seed, path, monkeypatch):
    # RGB goes through libjpeg's raw-data interface with the colour conversion and the 4:2:0 resampling done on
    # the planes (csrc/jpeg_ycc.cpp) where those loops are SIMD, else (and with JITVISION_JPEG_INTERLEAVED=1, read
    # on each call) through interleaved rows and libjpeg's own conversion. Both: the same pixels as torchvision's
    # encode_jpeg + decode_jpeg, exactly. The
    # sizes cover the edges: odd and even heights and widths (bottom/right replication, the last MCU), widths of
    # 1-4 (libjpeg's plain chroma replication instead of the fancy filter), widths around and past the 16-pixel
    # SIMD steps (their scalar tails), and several MCU rows; noise next to smooth content and saturated colours.
    if path == "interleaved":
        monkeypatch.setenv("JITVISION_JPEG_INTERLEAVED", "1")
    rng = random.Random(100 + seed)
    gen = torch.Generator().manual_seed(100 + seed)
    sizes = [(rng.randint(1, 3), rng.randint(1, 6)), (rng.randint(1, 40), rng.randint(1, 4)),
             (rng.randint(17, 70), rng.randint(15, 49)), (rng.randint(31, 97), rng.randint(60, 190))]
    for h, w in sizes:
        quality = rng.randint(1, 100)
        kind = rng.randrange(3)
        if kind == 0:
            image = _photo(gen, 3, h, w)
        elif kind == 1:
            image = torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=gen)
        else:
            image = (torch.randint(0, 2, (3, h, w), generator=gen) * 255).to(torch.uint8)
        out = _op(image, torch.tensor(quality))
        expected = _tv(image, quality)
        assert torch.equal(out, expected), (h, w, quality, kind, (out.int() - expected.int()).abs().max())
    batch = _photo(gen, 3, 45, 77, (3,))
    qualities = torch.tensor([rng.randint(1, 100) for _ in range(3)])
    out = _op(batch, qualities)
    for m in range(3):
        assert torch.equal(out[m], _tv(batch[m], int(qualities[m])))


def test_output_larger_than_the_first_buffer():
    # uniform noise at quality 100 compresses to more than the buffer the op starts with (a quarter of the raw
    # size + 4 KiB): the destination grows by realloc while libjpeg writes
    noise = torch.randint(0, 256, (2, 3, 150, 170), dtype=torch.uint8, generator=torch.Generator().manual_seed(11))
    out = _op(noise, torch.tensor([100, 97]))
    for m, quality in enumerate((100, 97)):
        _close(out[m], _tv(noise[m], quality))


def test_batches_with_per_sample_quality():
    gen = torch.Generator().manual_seed(3)
    for channels in (1, 3):
        images = _photo(gen, channels, 33, 41, (2, 3))
        flat = images.reshape(6, channels, 33, 41)
        qualities = torch.randint(1, 101, (6,), generator=gen)
        out = _op(images, qualities).reshape(6, channels, 33, 41)
        for m in range(6):
            _close(out[m], _tv(flat[m], int(qualities[m])))
        blocks = torch.tensor([7, 93])  # one quality per block of 3 consecutive images
        out = _op(images, blocks).reshape(6, channels, 33, 41)
        for m in range(6):
            _close(out[m], _tv(flat[m], int(blocks[m // 3])))
        # one quality for all: the same as image by image, whatever the thread split of the batch
        assert torch.equal(_op(images, torch.tensor(50)).reshape(6, channels, 33, 41),
                           torch.stack([_op(flat[m], torch.tensor(50)) for m in range(6)]))


def test_layouts_and_quality_dtypes():
    gen = torch.Generator().manual_seed(4)
    image = _photo(gen, 3, 40, 52)
    expected = _op(image, torch.tensor(60))
    hwc = image.permute(1, 2, 0).contiguous().permute(2, 0, 1)  # channels last
    for variant in (hwc, image.permute(0, 2, 1).contiguous().permute(0, 2, 1)):
        assert torch.equal(_op(variant, torch.tensor(60)), expected)
    for quality in (torch.tensor(60, dtype=torch.int32), torch.tensor([60]), torch.tensor(60, dtype=torch.uint8)):
        assert torch.equal(_op(image, quality), expected)
    crop = _photo(gen, 3, 50, 60)[:, 5:45, 3:55]  # a strided view
    _close(_op(crop, torch.tensor(60)), _tv(crop.contiguous(), 60))
    empty = torch.zeros(0, 3, 8, 8, dtype=torch.uint8)
    assert _op(empty, torch.tensor(50)).shape == empty.shape


def test_transform_matches_torchvision_draws():
    gen = torch.Generator().manual_seed(5)
    image = tv_tensors.Image(_photo(gen, 3, 37, 45))
    for seed in range(4):
        torch.manual_seed(seed)
        ours = T.JPEG((5, 95))(image)
        torch.manual_seed(seed)
        theirs = tv_transforms.JPEG((5, 95))(to_torchvision(image))
        # both draw an integer in [5, 95] from the global RNG, not necessarily the same one: compare against
        # torchvision's kernel at every quality of the range and require one within tolerance
        plain = image.as_subclass(torch.Tensor)
        assert type(ours) is tv_tensors.Image and type(theirs).__name__ == "Image"
        assert any(
            (ours.as_subclass(torch.Tensor).long() - _tv(plain, q).long()).abs().max() <= 1 for q in range(5, 96)
        )


def _graph_code(fn, *args):
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm.code)
        return gm.forward

    torch._dynamo.reset()
    out = torch.compile(fn, backend=capture, fullgraph=True)(*args)
    assert len(graphs) == 1
    return graphs[0], out


def test_compiled_is_one_native_node_and_stays_random():
    gen = torch.Generator().manual_seed(6)
    image = _photo(gen, 3, 24, 32)
    code, out = _graph_code(lambda x: F.jpeg(x, 30), tv_tensors.Image(image))
    assert code.count("jitvision_native.jpeg_u8") == 1 and "jitvision.jpeg" not in code, code
    assert torch.equal(out.as_subclass(torch.Tensor), _op(image, torch.tensor(30)))
    code, _ = _graph_code(T.JPEG((1, 100)), image)
    assert code.count("jitvision_native.jpeg_u8") == 1 and "jitvision.jpeg" not in code, code
    assert_random_under_compile(T.JPEG((1, 100)), image)
    batch = _photo(gen, 3, 24, 32, (4,))
    compiled, counter = compile_counted(lambda x: T.JPEG((1, 100)).forward_batch(x))
    out = compiled(batch)
    assert counter.frame_count == 1 and out.shape == batch.shape
    # inductor: the fake's contiguous output agrees with the real one
    torch._dynamo.reset()
    inductor = torch.compile(T.JPEG(40), fullgraph=True)
    assert torch.equal(inductor(tv_tensors.Image(image)).as_subclass(torch.Tensor), _op(image, torch.tensor(40)))


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_export_has_the_native_op(strict):
    gen = torch.Generator().manual_seed(7)
    image = _photo(gen, 3, 24, 32)
    exported = torch.export.export(T.JPEG((10, 90)), (image,), strict=strict)
    code = exported.graph_module.code
    assert code.count("jitvision_native.jpeg_u8") == 1 and "jitvision.jpeg" not in code, code
    outs = {tuple(exported.module()(image).flatten().tolist()) for _ in range(8)}
    assert len(outs) >= 2  # the quality is drawn per call
    fixed = torch.export.export(T.JPEG(50), (image,), strict=strict)
    assert torch.equal(fixed.module()(image), _op(image, torch.tensor(50)))


def test_scripted_calls_the_native_op(tmp_path):
    gen = torch.Generator().manual_seed(8)
    image = _photo(gen, 3, 24, 32)
    scripted = torch.jit.script(T.JPEG((10, 90)))
    graph = str(scripted.forward.inlined_graph)
    assert "jitvision_native::jpeg_u8" in graph and "jitvision::jpeg" not in graph
    path = str(tmp_path / "jpeg.pt")
    torch.jit.save(scripted, path)
    loaded = torch.jit.load(path)
    assert len({tuple(loaded(image).flatten().tolist()) for _ in range(8)}) >= 2
    functional = torch.jit.script(F.jpeg)
    _close(functional(image, 35), _tv(image, 35))
    assert "jitvision::jpeg" not in str(functional.inlined_graph)


_STANDALONE = """
import sys, torch
torch.ops.load_library(sys.argv[1])  # the native library only: no jitvision, no torchvision
module = torch.jit.load(sys.argv[2])
image = torch.load(sys.argv[3])
out = module(image)
assert "jitvision" not in sys.modules and "torchvision" not in sys.modules, sorted(sys.modules)
torch.save(out, sys.argv[4])
"""


def test_scripted_jpeg_runs_with_only_the_native_library(tmp_path):
    gen = torch.Generator().manual_seed(9)
    image = _photo(gen, 3, 30, 26)
    torch.jit.save(torch.jit.script(T.Compose([T.JPEG(45), T.RandomHorizontalFlip(0.0)])), str(tmp_path / "m.pt"))
    torch.save(image, str(tmp_path / "in.pt"))
    run = subprocess.run(
        [sys.executable, "-c", _STANDALONE, _native.native_library_path(), str(tmp_path / "m.pt"),
         str(tmp_path / "in.pt"), str(tmp_path / "out.pt")],
        capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    _close(torch.load(str(tmp_path / "out.pt")), _tv(image, 45))


def test_bad_input():
    image = torch.zeros(3, 8, 8, dtype=torch.uint8)
    for quality in (0, 101, -3):
        with pytest.raises(ValueError, match="^jpeg: quality must be an integer from 1 to 100"):
            _op(image, torch.tensor(quality))
        with pytest.raises(ValueError, match="jpeg"):
            F.jpeg(image, quality)
    with pytest.raises(ValueError, match="^jpeg: 4 qualities for 6 images"):
        _op(torch.zeros(6, 3, 8, 8, dtype=torch.uint8), torch.tensor([50, 50, 50, 50]))
    with pytest.raises(ValueError, match="^jpeg: 0 qualities"):
        _op(image, torch.tensor([], dtype=torch.int64))
    with pytest.raises(TypeError, match="^jpeg: quality must be an integer tensor"):
        _op(image, torch.tensor(50.0))
    with pytest.raises(TypeError, match="^jpeg: expected a uint8 image"):
        _op(image.float(), torch.tensor(50))
    with pytest.raises(ValueError, match="^jpeg: expected an image"):
        _op(torch.zeros(2, 8, 8, dtype=torch.uint8), torch.tensor(50))
    with pytest.raises(ValueError, match="^jpeg: expected an image"):
        _op(torch.zeros(8, 8, dtype=torch.uint8), torch.tensor(50))
    with pytest.raises(ValueError, match="^jpeg: cannot encode an empty image"):
        _op(torch.zeros(3, 0, 8, dtype=torch.uint8), torch.tensor(50))
    # libjpeg's own error (its error_exit longjmp): reported, the structs freed, the next call fine
    for shape in ((1, 1, 65501), (2, 3, 65501, 1)):
        with pytest.raises(RuntimeError, match="^jpeg: libjpeg failed: .*65500"):
            _op(torch.zeros(shape, dtype=torch.uint8), torch.tensor(50))
    assert _op(image, torch.tensor(50)).shape == image.shape


def test_fallback_without_the_native_op(monkeypatch):
    # a library built without libjpeg: eager OpenCV/Pillow, the Python operator under compile
    gen = torch.Generator().manual_seed(10)
    image = _photo(gen, 3, 24, 32)
    monkeypatch.setattr(_native, "JPEG", False)
    _close(F.jpeg(image, 30), _tv(image, 30))
    code, out = _graph_code(lambda x: F.jpeg(x, 30), image)
    assert "jitvision.jpeg" in code and "jitvision_native" not in code, code
    _close(out, _tv(image, 30))
