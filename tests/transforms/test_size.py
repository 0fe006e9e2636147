"""Dimension queries, legacy conversions (to_tensor, get_image_size, ToTensor, ConvertImageDtype), is_pure_tensor,
the public sample helpers and tv_tensors.set_return_type: vs torchvision, in the modes."""

import warnings

import numpy as np
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage
from torchvision import tv_tensors as tv_tv_tensors

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    compile_counted,
    make_boxes,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
)


def _inputs():
    h, w = torch.randint(5, 30, (2,)).tolist()
    yield "float", make_image(h, w, torch.float32)
    yield "2d", torch.rand(h, w)
    yield "batched", make_image(h, w, batch=(2, 3))
    yield "Image", tv_tensors.Image(make_image(h, w, channels=1))
    yield "Video", tv_tensors.Video(make_image(h, w, batch=(4,)))
    yield "Mask", make_mask(h, w)
    yield "BoundingBoxes", make_boxes((h, w))
    yield "KeyPoints", make_keypoints((h, w))
    yield "PIL", PILImage.fromarray(make_image(h, w).permute(1, 2, 0).numpy())


QUERIES = ["get_dimensions", "get_num_channels", "get_image_num_channels", "get_num_frames", "get_size"]


@pytest.mark.parametrize("name", QUERIES)
@pytest.mark.parametrize("kind, inpt", list(_inputs()))
def test_queries_match_torchvision(name, kind, inpt):
    theirs = to_torchvision(inpt)
    try:
        expected = getattr(tv_functional, name)(theirs)
    except (TypeError, ValueError, IndexError):  # torchvision: an IndexError for a video query on an image
        with pytest.raises((TypeError, ValueError), match=name.replace("get_image_num_channels", "get_num_channels")):
            getattr(F, name)(inpt)
        return
    assert getattr(F, name)(inpt) == expected


@pytest.mark.parametrize(
    "kernel, inpt",
    [
        ("get_dimensions_image", make_image()),
        ("get_dimensions_video", make_image(batch=(2,))),
        ("get_num_channels_image", torch.rand(5, 6)),
        ("get_num_channels_video", make_image(batch=(2,))),
        ("get_num_frames_video", make_image(batch=(3,))),
        ("get_size_image", make_image()),
        ("get_size_video", make_image(batch=(3,))),
        ("get_size_mask", make_mask()),
        ("get_size_bounding_boxes", make_boxes()),
        ("get_size_keypoints", make_keypoints()),
    ],
)
def test_kernels_match_torchvision(kernel, inpt):
    assert getattr(F, kernel)(inpt) == getattr(tv_functional, kernel)(to_torchvision(inpt))


def test_queries_script_and_compile():
    image = make_image(batch=(2,))
    for name in ("get_dimensions", "get_num_channels", "get_num_frames", "get_image_size"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert torch.jit.script(getattr(F, name))(image) == getattr(F, name)(image)
    compiled, counter = compile_counted(lambda x: x.new_zeros(F.get_dimensions(x)))
    assert compiled(tv_tensors.Image(image)).shape == image.shape[-3:]
    assert counter.frame_count == 1


def test_get_image_size_and_to_tensor_match_torchvision():
    image = make_image(9, 13)
    with pytest.warns(UserWarning):
        assert F.get_image_size(image) == tv_functional.get_image_size(image) == [13, 9]
    arrays = [
        np.random.randint(0, 256, (7, 9, 3), dtype=np.uint8),
        np.random.rand(7, 9).astype(np.float32),
        np.random.randint(0, 256, (7, 9), dtype=np.uint8),
    ]
    pils = [
        PILImage.fromarray(arrays[0]),
        PILImage.fromarray(arrays[2]),
        PILImage.fromarray(arrays[2]).convert("1"),
        PILImage.fromarray(arrays[1]),
    ]
    for inpt in arrays + pils:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = F.to_tensor(inpt), tv_functional.to_tensor(inpt)
        assert ours.dtype == theirs.dtype
        torch.testing.assert_close(ours, theirs)
    with pytest.raises(TypeError, match="to_tensor"):
        F.to_tensor(torch.rand(3, 4, 4))


def test_to_tensor_class_and_convert_image_dtype():
    pil = PILImage.fromarray(make_image().permute(1, 2, 0).numpy())
    with pytest.warns(UserWarning, match="ToTensor"):
        ours = T.ToTensor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = tv_transforms.ToTensor()
    torch.testing.assert_close(ours(pil), theirs(pil))
    with pytest.raises(TypeError, match="ToTensor"):
        torch.jit.script(ours)
    sample = {"image": tv_tensors.Image(make_image()), "mask": make_mask(), "boxes": make_boxes()}
    for dtype in (torch.float32, torch.float64, torch.int16):
        assert_matches_oracle(
            T.ConvertImageDtype(dtype)(sample), tv_transforms.ConvertImageDtype(dtype)(to_torchvision(sample))
        )


def test_convert_image_dtype_scripts(tmp_path):
    image = make_image()
    loaded = script_roundtrip(T.ConvertImageDtype(torch.float32), tmp_path)
    torch.testing.assert_close(loaded(image), tv_transforms.ConvertImageDtype(torch.float32)(image))
    with pytest.raises(TypeError, match="ConvertImageDtype"):
        T.ConvertImageDtype("float")


def test_is_pure_tensor():
    assert F.is_pure_tensor(torch.rand(2))
    for leaf in (tv_tensors.Image(make_image()), to_torchvision(make_mask()), "x", np.zeros(2)):
        assert not F.is_pure_tensor(leaf)


# ---- the public sample helpers -------------------------------------------------------------------------------


def test_helpers_match_torchvision():
    for sample in (
        [tv_tensors.Image(make_image(8, 9)), make_boxes((8, 9)), make_keypoints((8, 9)), "label"],
        [make_image(8, 9, channels=1), "label"],
        [tv_tensors.Video(make_image(8, 9, batch=(2,))), make_mask(8, 9)],
    ):
        theirs = to_torchvision(sample)
        assert T.query_size(sample) == tv_transforms.query_size(theirs)
        assert T.query_chw(sample) == tv_transforms.query_chw(theirs)
        for types in ((tv_tensors.Image,), (tv_tensors.BoundingBoxes, tv_tensors.Mask), (F.is_pure_tensor,)):
            tv_types = tuple(getattr(tv_tv_tensors, t.__name__) if isinstance(t, type) else t for t in types)
            assert T.has_any(sample, *types) == tv_transforms.has_any(theirs, *tv_types)
            assert T.has_all(sample, *types) == tv_transforms.has_all(theirs, *tv_types)
            # our kinds and torchvision's are interchangeable in the checks
            assert T.has_any(theirs, *types) == T.has_any(sample, *tv_types) == T.has_any(sample, *types)
        assert T.check_type(sample[0], (str, tv_tensors.Image)) == tv_transforms.check_type(
            theirs[0], (str, tv_tv_tensors.Image)
        )
    sample = [tv_tensors.Image(make_image(8, 9)), make_boxes((8, 9)), make_keypoints((8, 9))]
    assert T.get_bounding_boxes(sample) is sample[1]
    assert T.get_keypoints(sample) is sample[2]
    with pytest.raises(ValueError, match="get_bounding_boxes"):
        T.get_bounding_boxes(sample[:1])
    with pytest.raises(ValueError, match="get_keypoints"):
        T.get_keypoints(sample[:1])
    with pytest.raises(ValueError, match="query_chw"):
        T.query_chw([make_image(8, 9), tv_tensors.Image(make_image(8, 10))])
    with pytest.raises(TypeError, match="query_chw"):
        T.query_chw([make_mask()])
    assert not T.check_type(tv_tensors.BatchedImages(make_image(batch=(2,))), (tv_tensors.Video,))


# ---- set_return_type ------------------------------------------------------------------------------------------


def test_set_return_type_matches_torchvision():
    ours, theirs = make_boxes(), None
    theirs = to_torchvision(ours)
    assert type(ours + 1) is torch.Tensor
    with tv_tensors.set_return_type("TVTensor"), tv_tv_tensors.set_return_type("TVTensor"):
        for op in (lambda b: b + 1, lambda b: b * 2, lambda b: b.unbind(0)[0], lambda b: torch.cat([b, b])):
            a, e = op(ours), op(theirs)
            assert type(a).__name__ == type(e).__name__
            assert a.canvas_size == e.canvas_size and a.format.name == e.format.name
        image = tv_tensors.Image(make_image())
        assert type(image.float()) is tv_tensors.Image
        assert type(F.horizontal_flip(image)) is tv_tensors.Image
    assert type(ours + 1) is torch.Tensor
    tv_tensors.set_return_type("tvtensor")
    try:
        assert type(ours * 1) is tv_tensors.BoundingBoxes
    finally:
        tv_tensors.set_return_type("Tensor")
    assert type(ours * 1) is torch.Tensor
    with pytest.raises(ValueError, match="set_return_type"):
        tv_tensors.set_return_type("numpy")


@pytest.mark.parametrize("return_type", ["Tensor", "TVTensor"])
def test_set_return_type_traces_in_one_graph(return_type):
    image = tv_tensors.Image(make_image())
    with tv_tensors.set_return_type(return_type):
        compiled, counter = compile_counted(lambda x: (F.horizontal_flip(x), x + 1))
        flipped, plus = compiled(image)
        assert counter.frame_count == 1
        assert type(flipped) is tv_tensors.Image
        assert type(plus) is (tv_tensors.Image if return_type == "TVTensor" else torch.Tensor)
        torch.testing.assert_close(flipped.as_subclass(torch.Tensor), image.flip(-1).as_subclass(torch.Tensor))
