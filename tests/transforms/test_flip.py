"""horizontal_flip / vertical_flip and RandomHorizontalFlip / RandomVerticalFlip in the four modes."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    assert_random_under_compile,
    make_boxes,
    make_detection_sample,
    make_image,
    make_keypoints,
    make_mask,
    script_roundtrip,
    to_torchvision,
)

FLIPS = [
    (F.horizontal_flip, tv_functional.horizontal_flip, T.RandomHorizontalFlip),
    (F.vertical_flip, tv_functional.vertical_flip, T.RandomVerticalFlip),
]


def _inputs():
    yield "float", make_image(dtype=torch.float32)
    yield "uint8", make_image(dtype=torch.uint8)
    yield "batched", make_image(batch=(2,))
    yield "Image", tv_tensors.Image(make_image())
    yield "Video", tv_tensors.Video(make_image(batch=(4,)))
    yield "Mask", make_mask()
    for fmt in ("XYXY", "XYWH", "CXCYWH"):
        yield f"boxes-{fmt}", make_boxes(format=fmt)
        yield f"int-boxes-{fmt}", make_boxes(format=fmt, dtype=torch.int64)
    yield "KeyPoints", make_keypoints()


@pytest.mark.parametrize("ours, theirs, _cls", FLIPS)
@pytest.mark.parametrize("name, inpt", list(_inputs()))
def test_functional_matches_torchvision(ours, theirs, _cls, name, inpt):
    assert_matches_oracle(ours(inpt), theirs(to_torchvision(inpt)), what=f"{ours.__name__}({name})")


@pytest.mark.parametrize("ours, theirs, _cls", FLIPS)
def test_pil_matches_torchvision(ours, theirs, _cls):
    pil = PILImage.fromarray(make_image().permute(1, 2, 0).numpy())
    assert_matches_oracle(ours(pil), theirs(pil))


@pytest.mark.parametrize("ours, theirs, _cls", FLIPS)
def test_torchvision_tv_tensors_come_back_as_their_type(ours, theirs, _cls):
    boxes = to_torchvision(make_boxes(format="XYWH"))
    assert_matches_oracle(ours(boxes), theirs(boxes))


@pytest.mark.parametrize("_ours, _theirs, cls", FLIPS)
def test_class_matches_torchvision_when_always_applied(_ours, _theirs, cls):
    sample = make_detection_sample()
    theirs = getattr(tv_transforms, cls.__name__)(p=1.0)
    assert_matches_oracle(cls(p=1.0)(sample), theirs(to_torchvision(sample)))
    assert_matches_oracle(cls(p=0.0)(sample), to_torchvision(sample))


@pytest.mark.parametrize("ours, _theirs, _cls", FLIPS)
@pytest.mark.parametrize(
    "name, inpt",
    [(n, i) for n, i in _inputs() if n in ("float", "uint8", "Image", "Video", "boxes-XYWH", "KeyPoints", "Mask")],
)
def test_functional_compiles_to_one_graph(ours, _theirs, _cls, name, inpt):
    out = assert_one_graph(ours, inpt)
    assert_matches_oracle(out, ours(inpt))


@pytest.mark.parametrize("_ours, _theirs, cls", FLIPS)
def test_class_compiles_once_and_stays_random(_ours, _theirs, cls):
    transform = cls()
    assert_random_under_compile(transform, make_image(dtype=torch.float32))
    assert_random_under_compile(transform, make_detection_sample())
    assert_random_under_compile(transform, (tv_tensors.Image(make_image()), make_keypoints()))


@pytest.mark.parametrize("_ours, _theirs, cls", FLIPS)
def test_compiled_class_flips_what_eager_flips_with_one_native_op(_ours, _theirs, cls):
    # Dense leaves go through jitvision_native::flip_if (torch's flip) instead of where(coin, x.flip(d), x);
    # inductor (not the eager backend) so the op's fake strides are checked against the real ones.
    # (inductor draws the coin from its own stream: each output must be the whole sample flipped or untouched.)
    transform = cls()
    sample = make_detection_sample()
    sample["view"] = tv_tensors.Image(make_image(20, 30)[:, 2:19, 3:26])  # a non-contiguous crop of an image
    torch._dynamo.reset()
    compiled = torch.compile(transform, fullgraph=True)
    flipped, untouched = cls(p=1.0)(sample), cls(p=0.0)(sample)
    seen = set()
    torch.manual_seed(0)
    for _ in range(12):
        out = compiled(sample)
        was_flipped = torch.equal(out["image"], flipped["image"])
        assert_matches_oracle(out, flipped if was_flipped else untouched, float_atol=0)
        seen.add(was_flipped)
    assert seen == {True, False}
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm.code)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(transform, backend=capture, fullgraph=True)(sample)
    (code,) = graphs
    assert code.count("jitvision_native.flip_if") == 3  # image, masks, the view; the boxes keep a where
    assert code.count("torch.where") == 1


@pytest.mark.parametrize("ours, _theirs, cls", FLIPS)
def test_scripts(ours, _theirs, cls, tmp_path):
    image = make_image(dtype=torch.float32)
    scripted_functional = torch.jit.script(ours)
    torch.testing.assert_close(scripted_functional(image), ours(image))
    loaded = script_roundtrip(cls(p=1.0), tmp_path)
    torch.testing.assert_close(loaded(image), ours(image))
    random_loaded = script_roundtrip(cls(p=0.5), tmp_path)
    assert len({random_loaded(image)[0, 0, 0].item() for _ in range(30)}) == 2


@pytest.mark.parametrize("ours, _theirs, cls", FLIPS)
def test_exports(ours, _theirs, cls):
    image = make_image(dtype=torch.float32)
    program = torch.export.export(cls(p=1.0), (image,))
    torch.testing.assert_close(program.module()(image), ours(image))


def test_unknown_input_type_is_rejected():
    with pytest.raises(TypeError, match="horizontal_flip"):
        F.horizontal_flip("not an image")


@pytest.mark.parametrize("ours, _theirs, _cls", FLIPS)
def test_wrong_rank_is_rejected(ours, _theirs, _cls):
    with pytest.raises(ValueError, match=ours.__name__):
        ours(torch.zeros(5))


def test_invalid_probability_is_rejected():
    with pytest.raises(ValueError, match="RandomHorizontalFlip"):
        T.RandomHorizontalFlip(p=1.5)


def _boxes_and_labels():
    boxes = tv_tensors.BoundingBoxes(
        torch.tensor([[1.0, 2.0, 5.0, 6.0], [0.0, 0.0, 1.0, 1.0]]), format="XYXY", canvas_size=(10, 20)
    )
    return {"boxes": boxes, "labels": torch.tensor([1, 2])}


@pytest.mark.parametrize("cls_name", ["RandomHorizontalFlip", "RandomVerticalFlip"])
@pytest.mark.parametrize("p", [1.0, 0.5])
def test_flip_of_boxes_without_an_image_uses_their_canvas(cls_name, p):
    # A detection sample with no image: the boxes flip on their canvas_size, as torchvision's, in eager and compiled
    # alike; the 1-D labels are no image and stay in their boxes' order.
    transform = getattr(T, cls_name)(p=p)
    flip = tv_functional.horizontal_flip if cls_name == "RandomHorizontalFlip" else tv_functional.vertical_flip
    expected = flip(to_torchvision(_boxes_and_labels()["boxes"]))
    compiled = torch.compile(transform, fullgraph=True, backend="eager")
    for call in (transform, compiled):
        for seed in range(4):
            sample = _boxes_and_labels()
            torch.manual_seed(seed)
            out = call(sample)
            flipped = not torch.equal(out["boxes"].as_subclass(torch.Tensor), sample["boxes"].as_subclass(torch.Tensor))
            assert flipped or p < 1
            if flipped:
                torch.testing.assert_close(out["boxes"].as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor))
            assert isinstance(out["boxes"], tv_tensors.BoundingBoxes) and out["boxes"].canvas_size == (10, 20)
            assert torch.equal(out["labels"], torch.tensor([1, 2]))
    # A lone 1-D tensor is still taken as the image, and refused with the rank the kernel expects.
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        transform.__class__(p=1.0)([torch.tensor([1, 2])])
