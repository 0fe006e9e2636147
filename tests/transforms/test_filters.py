"""gaussian_blur / GaussianBlur and gaussian_noise / GaussianNoise: vs torchvision, in the modes, on batches."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from jitvision.transforms.functional import _blur
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


@pytest.mark.parametrize("opencv", [True, False])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64, torch.int16])
@pytest.mark.parametrize("h, w, kernel_size, sigma", list(_blur_cases()))
def test_gaussian_blur_matches_torchvision(h, w, kernel_size, sigma, dtype, opencv, monkeypatch):
    if not opencv:
        monkeypatch.setattr(_blur, "_cv2", None)
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
    with pytest.raises(TypeError, match="gaussian_noise"):
        F.gaussian_noise(PILImage.new("RGB", (4, 4)))
    with pytest.raises(ValueError, match="GaussianNoise"):
        T.GaussianNoise(sigma=-0.1)
    with pytest.raises(TypeError, match="GaussianNoise"):
        T.GaussianNoise()(PILImage.new("RGB", (4, 4)))


def test_script_roundtrip_of_blur_matches_eager(tmp_path):
    image = make_image(dtype=torch.float32)
    loaded = script_roundtrip(T.GaussianBlur(5, sigma=1.7), tmp_path)
    torch.testing.assert_close(loaded(image), tv_functional.gaussian_blur(image, [5, 5], [1.7, 1.7]))
