"""What code written against torchvision's v2 API reads besides the outputs: error texts it matches on, the keys and
value types of ``make_params``, the containers' calling convention, in-place box conversion, and the torchvision
internals user code calls (docs/tvsuite.md). Each is checked against torchvision 0.29.1 where it has the same."""

import functools
import re
import warnings

import PIL.Image
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_F
from torch import nn

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from jitvision.transforms._utils import _find_labels_default_heuristic
from jitvision.transforms.functional import _meta
from tests.helpers import make_boxes, make_image

# ---- error texts: (call, exception type, torchvision's text) ---------------------------------------------------

_ERRORS = [
    (lambda: F.horizontal_flip(object()), TypeError, re.escape(str(object))),
    (lambda: F.resize(object(), [4]), TypeError, "supports inputs of type"),
    (lambda: T.Pad([1, 2, 3]), ValueError, "Padding must be an int or a 1, 2, or 4"),
    (lambda: T.Pad(1, padding_mode="abc"), ValueError, "Padding mode should be either"),
    (lambda: T.Pad(1, fill="abc"), TypeError, "Got inappropriate fill arg"),
    (lambda: F.adjust_contrast(torch.zeros(4, 5, 5), 0.5), TypeError, "permitted channel values are 1 or 3"),
    (lambda: T.RandomCrop([10, 12, 14]), ValueError, "Please provide only two dimensions"),
    (lambda: T.RandomCrop(30)(torch.zeros(3, 10, 10)), ValueError, "larger than (padded )?input image size"),
    (lambda: T.Compose(lambda x: x), TypeError, "Argument transforms should be a sequence of callables"),
    (lambda: T.RandomOrder(lambda x: x), TypeError, "Argument transforms should be a sequence of callables"),
    (lambda: T.RandomApply([lambda x: x], p=2), ValueError, re.escape("value in the interval [0.0, 1.0]")),
    (lambda: T.RandomChoice([lambda x: x], p=[1, 2]), ValueError, "Length of p doesn't match the number"),
    (lambda: T.RandomAffine(degrees=-1), ValueError, "If degrees is a single number, it must be positive"),
    (lambda: T.RandomAffine(0, translate=0), TypeError, "translate should be a sequence of length 2"),
    (lambda: T.RandomAffine(0, translate=[0]), ValueError, "translate should be a sequence of length 2"),
    (lambda: T.RandomAffine(0, translate=[2, 0]), ValueError, "translation values should be between 0 and 1"),
    (lambda: T.RandomAffine(0, scale=[-1, 1]), ValueError, "scale values should be positive"),
    (lambda: T.RandomAffine(0, shear=-1), ValueError, "If shear is a single number, it must be positive"),
    (lambda: T.GaussianBlur([10, 12, 14]), ValueError, "Kernel size should be a tuple/list of two integers"),
    (lambda: T.GaussianBlur(4), ValueError, "Kernel size value should be an odd and positive number"),
    (lambda: T.GaussianBlur(3, sigma=[1, 2, 3]), ValueError, "If sigma is a sequence its length should be 1 or 2"),
    (lambda: T.GaussianBlur(3, sigma=[2.0, 1.0]), ValueError, "sigma values should be positive and of the form"),
    (lambda: T.GaussianBlur(3, sigma={}), TypeError, "sigma should be a number or a sequence of numbers"),
    (lambda: F.gaussian_blur_image(torch.zeros(3, 5, 5), [3, 3], [1, 2, 3]), ValueError, "sigma is a sequence"),
    (lambda: F.gaussian_blur(torch.zeros(3, 5, 5), 3, object()), TypeError, "sigma should be either float or"),
    (lambda: T.RandomErasing(value="abc"), ValueError, "If value is str, it should be 'random'"),
    (lambda: T.RandomErasing(scale=123), TypeError, "Scale should be a sequence"),
    (lambda: T.RandomErasing(scale=[-1, 2]), ValueError, "Scale should be between 0 and 1"),
    (lambda: T.RandomErasing(value=[1, 2, 3, 4]).make_params([make_image()]), ValueError, "If value is a sequence"),
    (lambda: T.RandomResizedCrop(10, scale=123), TypeError, "Scale should be a sequence of two floats."),
    (lambda: T.RandomZoomOut(side_range=[0.5, 1.5]), ValueError, "Invalid side range"),
    (lambda: T.RandomZoomOut(side_range=1), TypeError, "should be a sequence of length 2"),
    (lambda: T.JPEG(quality=0), ValueError, "quality must be an integer from 1 to 100"),
    (lambda: T.SanitizeBoundingBoxes(labels_getter=12), ValueError, "labels_getter should either be 'default'"),
    (lambda: T.SanitizeBoundingBoxes()({"b": make_boxes(), "x": 1}), ValueError, "Could not infer where the labels"),
    (lambda: T.Resize([1, 2, 3]), ValueError, "size can be an integer, a sequence of one or two integers, or None"),
    (lambda: F.resize(torch.zeros(3, 5, 5), [4, 4], max_size=9), ValueError, "max_size should only be passed if"),
    (lambda: F.normalize_image(torch.zeros(3, 4, 4), [0.0] * 3, [0.0] * 3), ValueError, "std evaluated to zero"),
    (lambda: F.normalize_image(torch.zeros(3, 4, 4, dtype=torch.uint8), [0.0], [1.0]), TypeError, "float tensor"),
    (lambda: F.elastic(torch.zeros(3, 4, 4), displacement=None), TypeError, "displacement should be a Tensor"),
    (lambda: F.gaussian_noise(PIL.Image.new("RGB", (4, 4))), ValueError, "Gaussian Noise is not implemented for PIL"),
    (lambda: F.posterize(torch.zeros(3, 4, 4, dtype=torch.uint8), 9), TypeError, "bits must be a positive integer"),
    (lambda: F.to_pil_image(torch.empty(5, 1, 1)), ValueError, "pic should not have > 4 channels"),
    (lambda: F.to_image(object()), TypeError, "Input can either be a pure Tensor, a numpy array, or a PIL image"),
    (lambda: F.convert_bounding_box_format(make_boxes()), TypeError, "missing 1 required argument: 'new_format'"),
    (lambda: F.convert_bounding_box_format(torch.zeros(1, 4), new_format="XYXY"), ValueError, "`old_format` has to"),
    (lambda: F.sanitize_bounding_boxes(torch.zeros(1, 4), format="XYXY"), ValueError, "canvas_size cannot be None"),
    (lambda: F.sanitize_bounding_boxes([[0, 0, 1, 1]]), ValueError, "bounding_boxes must be a tv_tensors"),
]


@pytest.mark.parametrize("call, error, text", _ERRORS)
def test_errors_carry_torchvision_wording(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_unsupported_type_error_still_names_the_op():
    with pytest.raises(TypeError, match=r"^horizontal_flip: unsupported input type <class 'object'>"):
        F.horizontal_flip(object())


def test_deprecation_warnings_in_torchvision_words():
    with pytest.warns(UserWarning, match="deprecated and will be removed"):
        T.ToTensor()
    with pytest.warns(UserWarning, match="deprecated and will be removed"):
        F.to_tensor(PIL.Image.new("RGB", (4, 4)))


# ---- make_params ------------------------------------------------------------------------------------------------


def test_random_crop_make_params_has_torchvision_keys_and_transform_reads_them():
    image = tv_tensors.Image(make_image(20, 24))
    transform = T.RandomCrop(16, padding=2)
    params = transform.make_params([image])
    assert set(params) == set(tv_transforms.RandomCrop(16, padding=2).make_params([image.as_subclass(torch.Tensor)]))
    assert params["needs_pad"] is True and params["padding"] == [2, 2, 2, 2] and params["needs_crop"] is True
    assert isinstance(params["top"], int) and isinstance(params["left"], int)

    class TopLeft(T.RandomCrop):  # a subclass that edits the parameters, as one written for torchvision would
        def make_params(self, flat_inputs):
            params = super().make_params(flat_inputs)
            params["top"] = params["left"] = 0
            return params

    out = TopLeft(16)({"image": image, "boxes": make_boxes((20, 24))})
    assert torch.equal(out["image"], image[..., :16, :16])


def test_random_erasing_make_params_has_torchvision_keys_and_transform_reads_them():
    image = tv_tensors.Image(make_image(20, 24))
    transform = T.RandomErasing(p=1.0, value=[1, 2, 3])
    torch.manual_seed(3)
    params = transform.make_params([image])
    torch.manual_seed(3)
    out = transform(image)
    assert set(params) == {"i", "j", "h", "w", "v"} and params["v"].shape == (3, 1, 1)
    box = params["i"], params["j"], params["h"], params["w"]
    expected = tv_F.erase(image.as_subclass(torch.Tensor), *box, params["v"])
    assert torch.equal(out.as_subclass(torch.Tensor), expected)
    nothing = T.RandomErasing(p=0.0).make_params([image])
    assert nothing["v"] is None and (nothing["h"], nothing["w"]) == (20, 24)


def test_random_affine_make_params_are_torchvision_numbers_and_transform_reads_them():
    image = tv_tensors.Image(make_image(30, 40))
    transform = T.RandomAffine(10, translate=(0.1, 0.2), scale=(0.9, 1.1), shear=5)
    torch.manual_seed(0)
    params = transform.make_params([image])
    torch.manual_seed(0)
    out = transform(image)
    assert T.RandomAffine(0).make_params([image]) == {"angle": 0.0, "translate": (0, 0), "scale": 1.0, "shear": (0, 0)}
    assert all(isinstance(v, int) for v in params["translate"]) and isinstance(params["angle"], float)
    assert torch.equal(out, F.affine(image, **params))


def test_size_free_draws_take_an_empty_sample_and_sizes_are_torchvision_types():
    sigma = T.GaussianBlur(3, sigma=(0.1, 2.0)).make_params([])["sigma"]
    assert isinstance(sigma, list) and len(sigma) == 2 and sigma[0] == sigma[1]
    assert -10 <= T.RandomRotation(10).make_params([])["angle"] <= 10
    assert 50 <= T.JPEG((50, 90)).make_params([])["quality"] <= 90
    image = tv_tensors.Image(make_image(30, 40))
    size = T.ScaleJitter((20, 20)).make_params([image])["size"]
    assert isinstance(size, tuple) and len(size) == 2 and all(isinstance(s, int) for s in size)
    assert isinstance(T.RandomResize(3, 6).make_params([image])["size"], list)


def test_make_params_forms_compile_and_script():
    image = tv_tensors.Image(make_image(20, 24))
    for transform in (T.RandomCrop(16, padding=2), T.RandomErasing(p=1.0), T.GaussianBlur(3)):
        compiled = torch.compile(transform, fullgraph=True)
        assert compiled({"image": image})["image"].shape == transform(image).shape
        assert torch.jit.script(transform)(image.as_subclass(torch.Tensor)).shape == transform(image).shape


def test_int_probability_scripts():
    for transform in (T.RandomHorizontalFlip(p=1), T.RandomErasing(p=1)):
        assert torch.jit.script(transform)(make_image()).shape == make_image().shape


# ---- containers, in-place conversion, internals -----------------------------------------------------------------


class _Packed(nn.Module):
    def forward(self, sample):
        return sample


class _Unpacked(nn.Module):
    def forward(self, image, label):
        return image, label


@pytest.mark.parametrize(
    "container", [T.Compose, functools.partial(T.RandomApply, p=1.0), T.RandomOrder, T.RandomChoice]
)
def test_containers_pack_and_unpack_as_torchvision(container):
    image, label = tv_tensors.Image(make_image()), 3
    out = container([_Unpacked()])(image, label)
    assert type(out) is tuple and out[0] is image and out[1] is label
    assert container([_Packed()])((image, label)) == (image, label)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        container([_Unpacked()])((image, label))
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        container([_Packed()])(image, label)


_AXIS_ALIGNED = [("XYXY", "CXCYWH"), ("CXCYWH", "XYWH"), ("XYWH", "XYXY")]


@pytest.mark.parametrize(
    "old, new, dtype",
    [(old, new, dtype) for old, new in _AXIS_ALIGNED for dtype in (torch.float32, torch.int64)]
    + [("XYWHR", "CXCYWHR", torch.float32)],  # rotated boxes are floating point
)
def test_convert_bounding_box_format_inplace(old, new, dtype):
    boxes = torch.tensor([[10, 20, 30, 44, 0][: 5 if old.endswith("R") else 4]], dtype=dtype)
    expected = tv_F.convert_bounding_box_format(boxes.clone(), old_format=old, new_format=new)
    version = boxes._version
    out = F.convert_bounding_box_format(boxes, old_format=old, new_format=new, inplace=True)
    assert out is boxes and boxes._version > version
    torch.testing.assert_close(out, expected)


def test_private_box_helpers_match_torchvision():
    from torchvision.transforms.v2.functional import _meta as tv_meta

    boxes = make_boxes(format="XYWH").as_subclass(torch.Tensor)
    for name in ("_xywh_to_xyxy", "_xyxy_to_xywh", "_cxcywh_to_xyxy", "_xyxy_to_cxcywh", "_xywh_to_cxcywh"):
        for inplace in (False, True):
            ours, theirs = boxes.clone(), boxes.clone()
            out = getattr(_meta, name)(ours, inplace=inplace)
            torch.testing.assert_close(out, getattr(tv_meta, name)(theirs, inplace=inplace))
            assert (out is ours) == inplace


def test_labels_heuristic_and_autoaugment_hook_and_v1_attribute():
    labels = torch.arange(3)
    assert _find_labels_default_heuristic((None, {"LaBeL": labels, "x": 1})) is labels
    assert _find_labels_default_heuristic_is_torchvisions(labels)
    image = tv_tensors.Image(make_image())
    for name, magnitude in (("ShearX", 0.3), ("TranslateY", 4.0), ("Rotate", 30.0), ("Posterize", 4.0)):
        ours = T.AutoAugment()._apply_image_or_video_transform(
            image, transform_id=name, magnitude=magnitude, interpolation=T.InterpolationMode.NEAREST, fill={}
        )
        theirs = tv_transforms.AutoAugment()._apply_image_or_video_transform(
            image.as_subclass(torch.Tensor),
            transform_id=name,
            magnitude=magnitude,
            interpolation=tv_transforms.InterpolationMode.NEAREST,
            fill={},
        )
        assert type(ours) is tv_tensors.Image
        assert torch.equal(ours.as_subclass(torch.Tensor), theirs)
    assert T.RandomHorizontalFlip._v1_transform_cls is None


def _find_labels_default_heuristic_is_torchvisions(labels):
    from torchvision.transforms.v2._utils import _find_labels_default_heuristic as theirs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample = {"labels": labels, "some_label": torch.zeros(1)}
        return _find_labels_default_heuristic(sample) is theirs(sample)
