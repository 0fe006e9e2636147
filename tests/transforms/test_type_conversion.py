"""pil_to_tensor / to_image / to_pil_image / to_pure_tensor and their classes."""

import numpy as np
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
import torchvision.tv_tensors as tvt
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    make_boxes,
    make_detection_sample,
    make_image,
    make_keypoints,
    script_roundtrip,
    to_torchvision,
)


def _pil(mode: str) -> PILImage.Image:
    rgb = PILImage.fromarray(make_image(13, 9).permute(1, 2, 0).numpy())
    return rgb.convert(mode)


MODES = ["RGB", "L", "RGBA", "LA", "1", "I", "I;16", "F", "P", "CMYK", "YCbCr"]


@pytest.mark.parametrize("mode", MODES)
def test_pil_to_tensor_matches_torchvision(mode):
    pil = _pil(mode)
    ours, theirs = F.pil_to_tensor(pil), tv_functional.pil_to_tensor(pil)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert torch.equal(ours, theirs)
    image = tv_tensors.Image(pil)  # the tv_tensor constructor goes through pil_to_tensor
    assert torch.equal(image.as_subclass(torch.Tensor), theirs)


def _to_image_inputs():
    yield "tensor", make_image()
    yield "tensor-2d", make_image()[0]
    yield "ndarray-hwc", make_image().permute(1, 2, 0).numpy()
    yield "ndarray-hw", make_image()[0].numpy()
    yield "PIL", _pil("RGB")
    yield "Mask", tv_tensors.Mask(make_image())


@pytest.mark.parametrize("name, inpt", list(_to_image_inputs()))
def test_to_image_matches_torchvision(name, inpt):
    expected = tv_functional.to_image(to_torchvision(inpt))
    assert_matches_oracle(F.to_image(inpt), expected, what=f"to_image({name})")


@pytest.mark.parametrize(
    "inpt, mode",
    [
        (make_image(), None),
        (make_image(channels=1), None),
        (make_image(channels=4), None),
        (make_image(channels=4), "CMYK"),
        (make_image(channels=3), "HSV"),
        (make_image(channels=2), None),
        (make_image(dtype=torch.float32), None),
        (make_image(dtype=torch.float32, channels=1), "F"),
        (make_image()[0].to(torch.int16), None),
        (make_image()[0].to(torch.int32), None),
        (tv_tensors.Image(make_image()), None),
        (make_image().permute(1, 2, 0).numpy(), None),
    ],
)
def test_to_pil_image_matches_torchvision(inpt, mode):
    ours, theirs = F.to_pil_image(inpt, mode), tv_functional.to_pil_image(to_torchvision(inpt), mode)
    assert ours.mode == theirs.mode and ours.size == theirs.size
    assert np.array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize(
    "inpt, mode, error",
    [
        ("not an image", None, TypeError),
        (torch.zeros(2, 3, 4, 5, dtype=torch.uint8), None, ValueError),
        (torch.zeros(5, 4, 4, dtype=torch.uint8), None, ValueError),
        (torch.zeros(3, 4, 4, dtype=torch.uint8), "RGBA", ValueError),
        (torch.zeros(1, 4, 4, dtype=torch.uint8), "F", ValueError),
        (torch.zeros(3, 4, 4, dtype=torch.int64), None, TypeError),
    ],
)
def test_to_pil_image_rejects_what_torchvision_rejects(inpt, mode, error):
    with pytest.raises(error):
        tv_functional.to_pil_image(inpt, mode)
    with pytest.raises(error, match="to_pil_image"):
        F.to_pil_image(inpt, mode)


def test_to_pure_tensor_unwraps_every_kind_and_shares_storage():
    for inpt in [tv_tensors.Image(make_image()), make_boxes(), make_keypoints(), to_torchvision(make_boxes())]:
        plain = F.to_pure_tensor(inpt)
        assert type(plain) is torch.Tensor and plain.data_ptr() == inpt.data_ptr()
        assert torch.equal(plain, inpt.as_subclass(torch.Tensor))
    image = make_image()
    assert F.to_pure_tensor(image) is image
    with pytest.raises(TypeError, match="to_pure_tensor"):
        F.to_pure_tensor([1, 2])


def test_bad_inputs_name_the_op():
    with pytest.raises(TypeError, match="pil_to_tensor"):
        F.pil_to_tensor(make_image())
    with pytest.raises(TypeError, match="to_image"):
        F.to_image("not an image")
    with pytest.raises(ValueError, match="to_image"):
        F.to_image(torch.zeros(3))


# ---- classes --------------------------------------------------------------------------------------------


def _class_samples():
    yield "PIL+boxes", {"image": _pil("RGB"), "boxes": make_boxes((13, 9)), "label": 3}
    yield "tensor+label", (make_image(), torch.tensor(1))
    yield "ndarray", make_image().permute(1, 2, 0).numpy()
    yield "detection", make_detection_sample()


@pytest.mark.parametrize("cls_name", ["ToImage", "ToPureTensor", "PILToTensor"])
@pytest.mark.parametrize("name, sample", list(_class_samples()))
def test_classes_match_torchvision(cls_name, name, sample):
    expected = getattr(tv_transforms, cls_name)()(to_torchvision(sample))
    assert_matches_oracle(getattr(T, cls_name)()(sample), expected, what=f"{cls_name}({name})")


@pytest.mark.parametrize("mode", [None, "RGB"])
def test_to_pil_image_class_matches_torchvision(mode):
    sample = {"image": tv_tensors.Image(make_image()), "boxes": make_boxes(), "extra": make_image()}
    expected = tv_transforms.ToPILImage(mode)(to_torchvision(sample))
    assert_matches_oracle(T.ToPILImage(mode)(sample), expected)
    image = make_image()
    assert_matches_oracle(T.ToPILImage(mode)(image), tv_transforms.ToPILImage(mode)(image))


def test_to_pure_tensor_class_on_torchvision_tv_tensors():
    sample = to_torchvision(make_detection_sample())
    out = T.ToPureTensor()(sample)
    assert all(type(leaf) is torch.Tensor for leaf in out.values())


def _compile_samples():
    return [
        make_image(),
        tv_tensors.Image(make_image()),
        make_detection_sample(),
        (tv_tensors.Image(make_image()), make_keypoints()),
    ]


@pytest.mark.parametrize(
    "transform, sample",
    [(T.ToPureTensor(), sample) for sample in _compile_samples()]
    # ToImage leaves tv_tensors alone, so only a plain tensor gives it something to compile
    + [(T.ToImage(), make_image())],
)
def test_classes_compile(transform, sample):
    out = assert_one_graph(transform, sample)
    assert_matches_oracle(out, transform(sample))


def test_functionals_compile():
    image = make_image()
    assert type(assert_one_graph(F.to_image, image)) is tv_tensors.Image
    assert type(assert_one_graph(F.to_image, image[0])) is tv_tensors.Image
    assert type(assert_one_graph(F.to_pure_tensor, make_boxes())) is torch.Tensor


@pytest.mark.parametrize("transform", [T.ToImage(), T.ToPureTensor()])
def test_tensor_classes_script(transform, tmp_path):
    loaded = script_roundtrip(transform, tmp_path)
    image = make_image()
    assert torch.equal(loaded(image), image)
    if isinstance(transform, T.ToImage):
        assert loaded(image[0]).shape == (1, *image.shape[1:])
    scripted = torch.jit.script(F.to_pure_tensor)
    assert torch.equal(scripted(image), image)


def test_to_image_functional_scripts():
    scripted = torch.jit.script(F.to_image)
    image = make_image()
    assert torch.equal(scripted(image), image)
    assert torch.equal(scripted(image[0]), image[:1])
    with pytest.raises(torch.jit.Error, match="to_image: expected at least 2 dimensions"):
        scripted(image[0, 0])


@pytest.mark.parametrize("transform", [T.PILToTensor(), T.ToPILImage()])
def test_pil_classes_refuse_to_script_with_their_name(transform):
    with pytest.raises(TypeError, match=type(transform).__name__):
        torch.jit.script(transform)


def test_torchvision_image_is_converted_by_to_pil_image():
    image = tvt.Image(make_image())
    assert_matches_oracle(F.to_pil_image(image), tv_functional.to_pil_image(image))


def test_to_image_exports_as_a_plain_tensor():
    # Exported programs compute on plain tensors: under export ToImage keeps the pixels and drops the type.
    image = make_image()
    program = torch.export.export(T.ToImage(), (image,)).module()
    out = program(make_image(17, 23))
    assert type(out) is torch.Tensor and out.shape == (3, 17, 23)
    torch.testing.assert_close(program(image), image)


# ---- edge cases of the conversions -----------------------------------------------------------------------------------


def test_pil_to_tensor_passes_plain_tensors_through_like_torchvision():
    image = make_image()
    assert T.PILToTensor()(image) is image
    assert tv_transforms.PILToTensor()(image) is image
    out = T.PILToTensor()({"image": image, "label": 3})
    assert out["image"] is image


def test_to_pil_image_of_an_empty_image_names_the_op():
    for shape in [(0, 4, 4), (3, 0, 4), (4, 0)]:
        with pytest.raises(ValueError, match="to_pil_image"):
            F.to_pil_image(torch.zeros(shape, dtype=torch.uint8))
