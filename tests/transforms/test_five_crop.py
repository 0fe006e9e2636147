"""five_crop / ten_crop and FiveCrop / TenCrop against torchvision, in the four modes."""

import PIL.Image
import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    make_boxes,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
)


def _inputs(height: int, width: int):
    yield "float", make_image(height, width, torch.float32)
    yield "uint8-batched", make_image(height, width, batch=(2,))
    yield "Image", tv_tensors.Image(make_image(height, width))
    yield "Video", tv_tensors.Video(make_image(height, width, batch=(3,)))
    yield "PIL", PIL.Image.fromarray(make_image(height, width).permute(1, 2, 0).numpy())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("vertical_flip", [None, False, True])
def test_functionals_match_torchvision(seed, vertical_flip):
    g = torch.Generator().manual_seed(seed)
    height, width = (int(v) for v in torch.randint(4, 30, (2,), generator=g))
    size = [int(torch.randint(1, height + 1, (), generator=g)), int(torch.randint(1, width + 1, (), generator=g))]
    sizes = [size, size[:1] if size[0] <= width else [height]] + ([min(height, width)] if seed % 2 else [])
    for name, inpt in _inputs(height, width):
        for s in sizes:
            if vertical_flip is None:
                ours, theirs = F.five_crop(inpt, s), tv_functional.five_crop(to_torchvision(inpt), s)
            else:
                ours = F.ten_crop(inpt, s, vertical_flip=vertical_flip)
                theirs = tv_functional.ten_crop(to_torchvision(inpt), s, vertical_flip=vertical_flip)
            assert_matches_oracle(ours, theirs, what=f"{name} {s} {vertical_flip}")


@pytest.mark.parametrize("cls, kwargs", [(T.FiveCrop, {}), (T.TenCrop, {}), (T.TenCrop, {"vertical_flip": True})])
def test_classes_match_torchvision(cls, kwargs):
    ours = cls(5, **kwargs)
    theirs = getattr(tv_transforms, cls.__name__)(5, **kwargs)
    for name, inpt in _inputs(11, 13):
        assert_matches_oracle(ours(inpt), theirs(to_torchvision(inpt)), what=name)
    sample = (tv_tensors.Image(make_image(11, 13)), torch.tensor(3))
    assert_matches_oracle(ours(sample), theirs(to_torchvision(sample)))
    labelled = {"image": sample[0], "label": 3}
    assert_matches_oracle(ours(labelled), theirs(to_torchvision(labelled)))


@pytest.mark.parametrize("cls", [T.FiveCrop, T.TenCrop])
@pytest.mark.parametrize("other", [make_boxes((11, 13)), make_mask(11, 13)])
def test_classes_refuse_boxes_and_masks(cls, other):
    with pytest.raises(TypeError, match=cls.__name__):
        cls(5)({"image": tv_tensors.Image(make_image(11, 13)), "other": other})


@pytest.mark.parametrize("cls", [T.FiveCrop, T.TenCrop])
def test_keypoints_pass_through_with_a_warning_as_in_torchvision(cls):
    sample = {"image": tv_tensors.Image(make_image(11, 13)), "points": make_keypoints((11, 13))}
    with pytest.warns(UserWarning, match=cls.__name__):
        ours = cls(5)(sample)
    with pytest.warns(UserWarning):
        theirs = getattr(tv_transforms, cls.__name__)(5)(to_torchvision(sample))
    assert_matches_oracle(ours, theirs)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: F.five_crop(torch.rand(3, 8, 8), [9, 4]), ValueError, "five_crop: the crop size"),
        (lambda: F.ten_crop(torch.rand(3, 8, 8), [0, 4]), ValueError, "ten_crop: size must be a positive int"),
        (lambda: F.five_crop(torch.rand(8), [2, 2]), ValueError, "five_crop: expected"),
        (lambda: F.five_crop(torch.rand(3, 8, 8), "a"), TypeError, "five_crop: size"),
        (lambda: T.FiveCrop(0), ValueError, "FiveCrop"),
        (lambda: F.five_crop(make_boxes(), [2, 2]), TypeError, "five_crop: unsupported input type"),
    ],
)
def test_bad_input_is_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("name, inpt", [(n, i) for n, i in _inputs(11, 13) if n != "PIL"])
def test_compile_to_one_graph(name, inpt):
    for fn in (lambda x: F.five_crop(x, [4, 5]), lambda x: F.ten_crop(x, [4, 5], True), T.FiveCrop(4), T.TenCrop(3)):
        assert_matches_oracle(assert_one_graph(fn, inpt), fn(inpt), what=name)


def test_script_functionals_and_classes(tmp_path):
    x = make_image(11, 13, torch.float32)
    assert_matches_oracle(torch.jit.script(F.five_crop)(x, [4, 5]), F.five_crop(x, [4, 5]))
    assert_matches_oracle(torch.jit.script(F.ten_crop)(x, [4, 5], True), F.ten_crop(x, [4, 5], True))
    for transform in (T.FiveCrop([4, 6]), T.TenCrop(5, vertical_flip=True)):
        scripted = script_roundtrip(transform, tmp_path)
        assert_matches_oracle(scripted(x), transform(x))
        batch = make_image(11, 13, batch=(2,))
        assert_matches_oracle(scripted.forward_batch(batch), transform.forward_batch(batch))


@pytest.mark.parametrize("cls", [T.FiveCrop, T.TenCrop])
def test_classes_export_with_dynamic_height_and_width(cls):
    transform = cls(6)
    height, width = torch.export.Dim("height", min=8, max=64), torch.export.Dim("width", min=8, max=64)
    program = torch.export.export(transform, (make_image(20, 24),), dynamic_shapes=({1: height, 2: width},))
    for size in ((9, 31), (40, 12)):
        x = make_image(*size)
        assert_matches_oracle(program.module()(x), transform(x))
