"""gaussian_blur / GaussianBlur and gaussian_noise / GaussianNoise: vs torchvision, in the modes, on batches."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import _native, tv_tensors
from jitvision.transforms.functional import _blur, _erase
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    make_boxes,
    make_image,
    make_mask,
    script_roundtrip,
    to_torchvision,
)
from tests.transforms.random_checks import assert_batch_rows_match_single, assert_modes


def _blur_cases():
    torch.manual_seed(0)
    for _ in range(6):
        h, w = torch.randint(9, 40, (2,)).tolist()
        kx, ky = (2 * torch.randint(0, 4, (2,)) + 1).tolist()
        sigma = None if torch.rand(()) < 0.3 else (torch.rand(2) * 3 + 0.1).tolist()
        yield h, w, [kx, ky], sigma


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64, torch.int16])
@pytest.mark.parametrize("h, w, kernel_size, sigma", list(_blur_cases()))
def test_gaussian_blur_matches_torchvision(h, w, kernel_size, sigma, dtype, native, monkeypatch):
    if not native:  # the tensor formulation (TorchScript's, and everyone's without the extension)
        monkeypatch.setattr(_native, "FILTERS", False)
    image = make_image(h, w, dtype if dtype != torch.int16 else torch.uint8).to(dtype)
    for inpt in (image, tv_tensors.Image(image), tv_tensors.Video(image[None].expand(2, -1, -1, -1))):
        assert_matches_oracle(
            F.gaussian_blur(inpt, kernel_size, sigma),
            tv_functional.gaussian_blur(to_torchvision(inpt), kernel_size, sigma),
            float_atol=1e-5,
        )


def test_gaussian_blur_pil_int_and_number_arguments():
    pil = PILImage.fromarray(make_image(20, 30).permute(1, 2, 0).numpy())
    assert_matches_oracle(
        F.gaussian_blur(pil, [5, 3], [1.5, 0.7]), tv_functional.gaussian_blur(pil, [5, 3], [1.5, 0.7])
    )
    image = make_image()
    assert_matches_oracle(F.gaussian_blur(image, 5, 2.0), tv_functional.gaussian_blur(image, 5, 2.0))


def test_gaussian_blur_class_matches_torchvision_with_a_fixed_sigma():
    sample = {"image": tv_tensors.Image(make_image()), "boxes": make_boxes(), "mask": make_mask()}
    assert_matches_oracle(
        T.GaussianBlur(5, sigma=1.3)(sample), tv_transforms.GaussianBlur(5, sigma=1.3)(to_torchvision(sample))
    )


def test_gaussian_blur_functional_modes(tmp_path):
    image = make_image(dtype=torch.float32)
    out = assert_one_graph(lambda x: F.gaussian_blur(x, [5, 3], [1.0, 2.0]), tv_tensors.Image(image))
    torch.testing.assert_close(out.as_subclass(torch.Tensor), F.gaussian_blur(image, [5, 3], [1.0, 2.0]))
    scripted = torch.jit.script(F.gaussian_blur)
    torch.testing.assert_close(scripted(image, [5, 3], [1.0, 2.0]), F.gaussian_blur(image, [5, 3], [1.0, 2.0]))


def test_gaussian_blur_class_modes_and_batches(tmp_path):
    assert_modes(T.GaussianBlur(5, sigma=(0.1, 3.0)), make_image(), tmp_path)
    params = assert_batch_rows_match_single(
        lambda g: T.GaussianBlur((3, 7), sigma=(0.2, 4.0), generator=g), make_image(batch=(6,))
    )
    assert params["sigma"].unique().numel() == 6


def test_gaussian_blur_traced_path_matches_eager_with_inductor():
    # the tensor formulation, compiled by inductor, against eager (OpenCV or not) on a batch with per-row sigma
    images = make_image(24, 31, batch=(3,))
    sigma = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)
    torch._dynamo.reset()
    compiled = torch.compile(lambda x, s: _blur.gaussian_blur_with_tensor_sigma(x, [5, 5], s), fullgraph=True)
    expected = torch.stack([F.gaussian_blur(images[i], [5, 5], [float(s)] * 2) for i, s in enumerate(sigma)])
    assert_matches_oracle(compiled(images, sigma), expected)


def test_gaussian_blur_bad_arguments():
    image = make_image()
    for kernel_size in ([4, 3], [0, 3], [-1, 3], [3, 3, 3]):
        with pytest.raises(ValueError, match="gaussian_blur"):
            F.gaussian_blur(image, kernel_size)
        with pytest.raises(ValueError, match="GaussianBlur"):
            T.GaussianBlur(kernel_size)
    for sigma in ([0.0, 1.0], [-1.0]):
        with pytest.raises(ValueError, match="gaussian_blur"):
            F.gaussian_blur(image, [3, 3], sigma)
    for sigma in (0.0, (2.0, 1.0), (-1.0, 1.0)):
        with pytest.raises(ValueError, match="GaussianBlur"):
            T.GaussianBlur(3, sigma)


# ---- gaussian noise ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("clip", [True, False])
def test_gaussian_noise_matches_torchvision_under_a_seed(dtype, clip):
    image = make_image(dtype=dtype, batch=(2,))
    mean, sigma = torch.rand(2).tolist()
    for inpt in (image, tv_tensors.Image(image), tv_tensors.Video(image)):
        torch.manual_seed(3)
        ours = F.gaussian_noise(inpt, mean, sigma, clip)
        torch.manual_seed(3)
        theirs = tv_functional.gaussian_noise(to_torchvision(inpt), mean=mean, sigma=sigma, clip=clip)
        assert_matches_oracle(ours, theirs, float_atol=1e-6)
        torch.manual_seed(3)
        assert_matches_oracle(T.GaussianNoise(mean, sigma, clip)(inpt), theirs, float_atol=1e-6)


def test_gaussian_noise_modes_and_batches(tmp_path):
    image = make_image(dtype=torch.float32)
    assert_modes(T.GaussianNoise(sigma=0.2), image, tmp_path)
    out = T.GaussianNoise(sigma=0.3)(tv_tensors.BatchedImages(image.expand(4, -1, -1, -1).contiguous()))
    assert len({tuple(o.flatten().tolist()) for o in out}) == 4
    assert torch.jit.script(F.gaussian_noise)(image).shape == image.shape
    a = T.GaussianNoise(generator=torch.Generator().manual_seed(1))(image)
    b = T.GaussianNoise(generator=torch.Generator().manual_seed(1))(image)
    assert torch.equal(a, b)


def test_gaussian_noise_bad_input():
    with pytest.raises(ValueError, match="gaussian_noise"):
        F.gaussian_noise(make_image(), sigma=-1.0)
    with pytest.raises(ValueError, match="gaussian_noise"):
        F.gaussian_noise(make_image().to(torch.int16))
    with pytest.raises(ValueError, match="gaussian_noise"):  # torchvision's error type for a PIL image
        F.gaussian_noise(PILImage.new("RGB", (4, 4)))
    with pytest.raises(ValueError, match="GaussianNoise"):
        T.GaussianNoise(sigma=-0.1)
    with pytest.raises(TypeError, match="GaussianNoise"):
        T.GaussianNoise()(PILImage.new("RGB", (4, 4)))


def test_script_roundtrip_of_blur_matches_eager(tmp_path):
    image = make_image(dtype=torch.float32)
    loaded = script_roundtrip(T.GaussianBlur(5, sigma=1.7), tmp_path)
    torch.testing.assert_close(loaded(image), tv_functional.gaussian_blur(image, [5, 5], [1.7, 1.7]))


# ---- the native ops (csrc/filters.cpp) against the tensor formulations ------------------------------------------


def _layouts(image):
    yield image
    yield image.contiguous(memory_format=torch.channels_last)
    yield image[..., 1:, :-1]  # a strided view


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64])
def test_native_blur_matches_the_tensor_formulation(dtype):
    torch.manual_seed(11)
    for _ in range(6):
        h, w = torch.randint(3, 40, (2,)).tolist()
        kx = 2 * torch.randint(0, min(w - 1, 6), ()).item() + 1  # kx // 2 < the width after the view's cut
        ky = 2 * torch.randint(0, min(h - 1, 6), ()).item() + 1
        per_row = bool(torch.rand(()) < 0.5)
        sigma_x = torch.rand(3 if per_row else (), dtype=torch.float64) * 3 + 0.05
        sigma_y = sigma_x if torch.rand(()) < 0.5 else torch.rand(sigma_x.shape, dtype=torch.float64) * 3 + 0.05
        for image in _layouts(make_image(h + 1, w + 1, dtype, batch=(3,))):
            native = torch.ops.jitvision_native.gaussian_blur(image, [kx, ky], sigma_x, sigma_y)
            wdtype = torch.float32 if dtype == torch.uint8 else dtype
            weights_x = _blur.gaussian_weights(kx, sigma_x, wdtype)
            weights_y = _blur.gaussian_weights(ky, sigma_y, wdtype)
            expected = _blur.blur_separable(image, [kx, ky], weights_x, weights_y)
            assert native.is_contiguous() and native.dtype == dtype
            assert_matches_oracle(native, expected, float_atol=1e-5 if dtype == torch.float32 else 1e-9)


def test_native_blur_refuses_bad_arguments():
    image = make_image(8, 8)
    sigma = torch.tensor(1.0, dtype=torch.float64)
    op = torch.ops.jitvision_native.gaussian_blur
    for kernel_size, match in (([4, 3], "odd positive"), ([0, 3], "odd positive"), ([17, 3], "larger than half")):
        with pytest.raises(ValueError, match=f"gaussian_blur: kernel_size.*{match}"):
            op(image, kernel_size, sigma, sigma)
    with pytest.raises(ValueError, match="gaussian_blur: sigma must be positive"):
        op(image, [3, 3], -sigma, sigma)
    with pytest.raises(ValueError, match="gaussian_blur: 2 sigmas"):
        op(image, [3, 3], torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64))
    with pytest.raises(TypeError, match="gaussian_blur: the native blur takes"):
        op(image.to(torch.int16), [3, 3], sigma, sigma)
    with pytest.raises(ValueError, match="GaussianBlur|gaussian_blur"):  # too small for the kernel, from the class
        T.GaussianBlur(9)(make_image(3, 3))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_native_noise_is_the_python_kernel_under_a_seed(dtype, monkeypatch):
    # the op draws randn_like from the global generator as the Python kernel does: same values for a seed, for
    # every layout (channels-last noise is drawn in memory order, as torchvision's randn_like)
    for image in _layouts(make_image(17, 23, dtype, batch=(2,))):
        mean, sigma = torch.rand(2).tolist()
        for clip in (True, False):
            torch.manual_seed(5)
            native = F.gaussian_noise(image, mean, sigma, clip)
            torch.manual_seed(5)
            theirs = tv_functional.gaussian_noise(image, mean=mean, sigma=sigma, clip=clip)
            with monkeypatch.context() as patch:
                patch.setattr(_native, "FILTERS", False)
                torch.manual_seed(5)
                python = F.gaussian_noise(image, mean, sigma, clip)
            assert torch.equal(native, python)
            assert_matches_oracle(native, theirs, float_atol=1e-6)


def test_native_erase_matches_the_mask_formulation(monkeypatch):
    torch.manual_seed(12)
    for dtype in (torch.uint8, torch.float32):
        for image in _layouts(make_image(21, 26, dtype, batch=(4,))):
            h, w = image.shape[-2:]
            # boxes inside, reaching past the edges, empty; one for all rows, or one per row
            boxes = torch.stack([torch.randint(-3, h, (4,)), torch.randint(-3, w, (4,)),
                                 torch.randint(0, h + 4, (4,)), torch.randint(0, w + 4, (4,))], dim=-1)
            boxes[0, 2] = 0
            boxes = boxes.clamp(min=0)
            for box in (boxes, boxes[1]):
                for value in (torch.tensor(7.0), torch.rand(3, 1, 1) * 200, torch.randn(image.shape)):
                    native = _erase.erase_where(image, box, value)
                    with monkeypatch.context() as patch:
                        patch.setattr(_native, "FILTERS", False)
                        expected = _erase.erase_where(image, box, value)
                    assert torch.equal(native, expected)


def _graph_targets(fn, *args):
    targets = []

    def backend(gm, example_inputs):
        targets.extend(str(node.target) for node in gm.graph.nodes if node.op == "call_function")
        return gm.forward

    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    return targets


def test_compiled_effects_are_one_native_node():
    image = make_image(20, 24)
    blur = _graph_targets(T.GaussianBlur(5, sigma=(0.5, 2.0)), image)
    noise = _graph_targets(T.GaussianNoise(), image)
    erase = _graph_targets(T.RandomErasing(p=1.0), image)
    # with the native library: the C++ op; without it but with OpenCV: eager's OpenCV filter as one node
    assert sum("jitvision_native.gaussian_blur" in t for t in blur) == 1 and not any("pad" in t for t in blur)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native, "FILTERS", False)
        without_native = _graph_targets(T.GaussianBlur(5, sigma=(0.5, 2.0)), image)
    assert sum("jitvision.gaussian_blur_opencv" in t for t in without_native) == 1
    assert sum("jitvision_native.gaussian_noise" in t for t in noise) == 1 and not any("randn" in t for t in noise)
    assert sum("jitvision_native.erase_box" in t for t in erase) == 1 and not any("arange" in t for t in erase)


def test_compiled_noise_with_inductor_matches_eager_under_a_seed():
    # the native op draws from the global generator in the compiled graph too, so a seed gives eager's result
    # (inductor's own rand/randn, which RandomErasing's box draw compiles to, draw from another stream)
    image = make_image(30, 40)
    transform = T.GaussianNoise(sigma=0.2)
    torch._dynamo.reset()
    compiled = torch.compile(transform, fullgraph=True)
    for seed in (0, 1):
        torch.manual_seed(seed)
        expected = transform(image)
        torch.manual_seed(seed)
        assert torch.equal(compiled(image), expected)


def test_exported_blur_is_the_cpp_op_and_compiled_blur_matches_eager():
    images = make_image(26, 31, batch=(3,))
    program = torch.export.export(T.GaussianBlur(5, sigma=1.5), (images[0],))
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert sum("jitvision_native.gaussian_blur" in t for t in targets) == 1
    assert not any("gaussian_blur_opencv" in t for t in targets)  # a Python operator has no place in a program
    torch.testing.assert_close(program.module()(images[0]), F.gaussian_blur(images[0], [5, 5], [1.5, 1.5]), atol=1,
                               rtol=0)
    # per-row sigmas on a batch, through the C++ op under inductor, equal eager exactly
    sigma = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)
    torch._dynamo.reset()
    compiled = torch.compile(lambda x, s: _blur.gaussian_blur_with_tensor_sigma(x, [5, 3], s), fullgraph=True)
    assert torch.equal(compiled(images, sigma), _blur.gaussian_blur_with_tensor_sigma(images, [5, 3], sigma))
