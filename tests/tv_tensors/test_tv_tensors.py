"""The tv_tensor classes: construction, torchvision's op semantics, metadata, pickling, bad input."""

import copy
import pickle

import PIL.Image
import pytest
import torch
import torchvision.tv_tensors as tv_tv_tensors

from jitvision import tv_tensors
from tests.helpers import make_boxes, make_image, make_keypoints


def test_image_from_tensor_pil_and_2d():
    image = tv_tensors.Image(make_image())
    assert type(image) is tv_tensors.Image and image.shape == (3, 17, 23)
    assert tv_tensors.Image(torch.zeros(4, 5)).shape == (1, 4, 5)
    pil = PIL.Image.fromarray(make_image().permute(1, 2, 0).numpy())
    from_pil = tv_tensors.Image(pil)
    assert from_pil.shape == (3, 17, 23) and from_pil.dtype == torch.uint8
    assert torch.equal(from_pil.as_subclass(torch.Tensor), tv_tv_tensors.Image(pil).as_subclass(torch.Tensor))


@pytest.mark.parametrize(
    "make",
    [
        lambda: tv_tensors.Image(make_image()),
        lambda: tv_tensors.Video(make_image(batch=(2,))),
        lambda: tv_tensors.Mask(torch.zeros(2, 5, 5)),
        lambda: make_boxes(),
        lambda: make_keypoints(),
    ],
)
def test_ops_return_plain_tensors_and_storage_ops_keep_the_type(make):
    inpt = make()
    assert type(inpt + 1) is torch.Tensor
    assert type(inpt.flip(-1)) is torch.Tensor
    assert type(inpt.sum()) is torch.Tensor
    for kept in (inpt.clone(), inpt.to(torch.float64), inpt.detach(), copy.deepcopy(inpt)):
        assert type(kept) is type(inpt)
        assert getattr(kept, "canvas_size", None) == getattr(inpt, "canvas_size", None)
        assert getattr(kept, "format", None) == getattr(inpt, "format", None)
    restored = pickle.loads(pickle.dumps(inpt))
    assert type(restored) is type(inpt) and torch.equal(
        restored.as_subclass(torch.Tensor), inpt.as_subclass(torch.Tensor)
    )
    assert getattr(restored, "canvas_size", None) == getattr(inpt, "canvas_size", None)


def test_bounding_boxes_metadata_and_formats():
    boxes = tv_tensors.BoundingBoxes([1, 2, 3, 4], format="xywh", canvas_size=(10, 20))
    assert boxes.shape == (1, 4)
    assert boxes.format is tv_tensors.BoundingBoxFormat.XYWH
    assert boxes.canvas_size == (10, 20) and boxes.clamping_mode == "soft"
    assert "canvas_size=(10, 20)" in repr(boxes)
    from_torchvision_enum = tv_tensors.BoundingBoxes(
        [1, 2, 3, 4], format=tv_tv_tensors.BoundingBoxFormat.CXCYWH, canvas_size=(10, 20)
    )
    assert from_torchvision_enum.format is tv_tensors.BoundingBoxFormat.CXCYWH


def test_wrap_keeps_and_overrides_metadata_for_ours_and_torchvision():
    boxes = make_boxes(format="XYWH")
    wrapped = tv_tensors.wrap(torch.zeros(2, 4), like=boxes, canvas_size=(3, 4))
    assert type(wrapped) is tv_tensors.BoundingBoxes
    assert wrapped.format is tv_tensors.BoundingBoxFormat.XYWH and wrapped.canvas_size == (3, 4)
    theirs = tv_tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="XYXY", canvas_size=(5, 6))
    wrapped_theirs = tv_tensors.wrap(torch.zeros(1, 4), like=theirs, format=tv_tensors.BoundingBoxFormat.XYWH)
    assert type(wrapped_theirs) is tv_tv_tensors.BoundingBoxes
    assert wrapped_theirs.format is tv_tv_tensors.BoundingBoxFormat.XYWH and wrapped_theirs.canvas_size == (5, 6)


def test_kind_of_maps_torchvision_types_to_ours():
    assert tv_tensors.kind_of(tv_tv_tensors.Image) is tv_tensors.Image
    assert tv_tensors.kind_of(tv_tv_tensors.BoundingBoxes) is tv_tensors.BoundingBoxes
    assert tv_tensors.kind_of(tv_tensors.Mask) is tv_tensors.Mask
    assert tv_tensors.kind_of(torch.Tensor) is None


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="XYXY"), "BoundingBoxes: format and canvas_size"),
        (lambda: tv_tensors.BoundingBoxes([[1, 2, 3, 4]], canvas_size=(4, 4)), "BoundingBoxes: format and canvas_size"),
        (lambda: tv_tensors.BoundingBoxes([[1, 2, 3]], format="XYXY", canvas_size=(4, 4)), "BoundingBoxes: expected"),
        (lambda: tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="XYZ", canvas_size=(4, 4)), "BoundingBoxes: format"),
        (lambda: tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="XYXY", canvas_size=(0, 4)), "canvas_size"),
        (lambda: tv_tensors.KeyPoints([[1, 2]]), "KeyPoints: canvas_size"),
        (lambda: tv_tensors.KeyPoints([[1, 2, 3]], canvas_size=(4, 4)), "KeyPoints: expected"),
        (lambda: tv_tensors.Image(torch.zeros(5)), "Image: expected"),
        (lambda: tv_tensors.Video(torch.zeros(3, 5, 5)), "Video: expected"),
    ],
)
def test_bad_construction_raises_a_value_error_naming_the_class(make, match):
    with pytest.raises(ValueError, match=match):
        make()
