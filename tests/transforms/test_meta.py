"""get_size, convert_bounding_box_format, clamp_bounding_boxes, clamp_keypoints: vs torchvision, in the modes.

Also the format argument of every box kernel: torchvision takes a string (any case) or the enum; both must give
the enum's result, and an unknown format must raise naming the operation (compared as a plain string it would
silently select the wrong formula).
"""

import itertools

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional
from torchvision import tv_tensors as tv_tv_tensors

import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    compile_counted,
    make_boxes,
    make_image,
    make_keypoints,
    make_mask,
    to_torchvision,
)

FORMATS = ("XYXY", "XYWH", "CXCYWH")
CANVAS = (17, 23)


def _boxes_outside(format: str, dtype: torch.dtype = torch.float32) -> tv_tensors.BoundingBoxes:
    """Boxes that reach past every edge of the canvas (so clamping has work to do)."""
    xyxy = torch.tensor([[-3.0, -2.0, 10.0, 30.0], [5.0, 4.0, 40.0, 12.0], [1.0, 1.0, 6.0, 7.0]])
    boxes = tv_tensors.BoundingBoxes(xyxy, format="XYXY", canvas_size=CANVAS)
    out = F.convert_bounding_box_format(boxes, new_format=format)
    return tv_tensors.wrap(out.round().to(dtype) if not dtype.is_floating_point else out, like=out)


# ---- get_size --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: make_image(),
        lambda: tv_tensors.Image(make_image(dtype=torch.float32)),
        lambda: tv_tensors.Video(make_image(batch=(2,))),
        lambda: make_mask(),
        lambda: make_boxes(),
        lambda: make_keypoints(),
    ],
)
def test_get_size_matches_torchvision_eager_and_compiled(make):
    inpt = make()
    assert F.get_size(inpt) == tv_functional.get_size(to_torchvision(inpt)) == [17, 23]
    compiled, counter = compile_counted(F.get_size)  # fullgraph: a break raises; no tensor op, no graph
    assert compiled(inpt) == [17, 23] and counter.frame_count <= 1


def test_get_size_scripts_and_rejects_bad_input():
    scripted = torch.jit.script(F.get_size)
    assert scripted(make_image(9, 11)) == [9, 11]
    with pytest.raises(ValueError, match="get_size"):
        F.get_size(torch.zeros(5))
    with pytest.raises(TypeError, match="get_size"):
        F.get_size([1, 2])


# ---- convert_bounding_box_format -------------------------------------------------------------------------------


@pytest.mark.parametrize("old, new", list(itertools.product(FORMATS, FORMATS)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_convert_bounding_box_format_matches_torchvision(old, new, dtype):
    boxes = make_boxes(CANVAS, format=old, dtype=dtype)
    expected = tv_functional.convert_bounding_box_format(to_torchvision(boxes), new_format=new)
    assert_matches_oracle(F.convert_bounding_box_format(boxes, new_format=new), expected)
    plain = boxes.as_subclass(torch.Tensor)
    expected_plain = tv_functional.convert_bounding_box_format(plain, old_format=old, new_format=new)
    for old_spelling, new_spelling in [(old, new), (old.lower(), new.lower())]:
        out = F.convert_bounding_box_format(plain, old_format=old_spelling, new_format=new_spelling)
        assert_matches_oracle(out, expected_plain)
    enum = tv_tensors.BoundingBoxFormat
    assert_matches_oracle(F.convert_bounding_box_format(plain, enum[old], enum[new]), expected_plain)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_integer_center_boxes_round_as_torchvision(dtype):
    # Odd widths put the corners on half pixels; negative centres tell truncation from flooring.
    grid = torch.tensor([[cx, cy, w, h] for cx in range(-6, 7) for cy in (-3, 4) for w in range(6) for h in (1, 2)])
    plain = grid.to(dtype)
    for new in ("XYXY", "XYWH"):
        expected = tv_functional.convert_bounding_box_format(plain, old_format="CXCYWH", new_format=new)
        assert_matches_oracle(F.convert_bounding_box_format(plain, old_format="CXCYWH", new_format=new), expected)


def test_convert_bounding_box_format_compiles_and_scripts():
    boxes = make_boxes(CANVAS, format="XYWH")
    out = assert_one_graph(lambda b: F.convert_bounding_box_format(b, new_format="CXCYWH"), boxes)
    assert type(out) is tv_tensors.BoundingBoxes and out.format == tv_tensors.BoundingBoxFormat.CXCYWH
    expected = F.convert_bounding_box_format(boxes, new_format="CXCYWH")
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor))

    enum = tv_tensors.BoundingBoxFormat

    def convert(plain: torch.Tensor) -> torch.Tensor:
        return F.convert_bounding_box_format(plain, enum.XYWH, enum.CXCYWH)

    plain = boxes.as_subclass(torch.Tensor)
    torch.testing.assert_close(torch.jit.script(convert)(plain), expected.as_subclass(torch.Tensor))


def test_convert_bounding_box_format_bad_input():
    boxes = make_boxes(CANVAS)
    plain = boxes.as_subclass(torch.Tensor)
    with pytest.raises(TypeError, match="convert_bounding_box_format.. missing 1 required argument: .new_format."):
        F.convert_bounding_box_format(boxes)
    with pytest.raises(ValueError, match="convert_bounding_box_format: plain tensors need old_format"):
        F.convert_bounding_box_format(plain, new_format="XYWH")
    with pytest.raises(ValueError, match="convert_bounding_box_format: `old_format` must not"):
        F.convert_bounding_box_format(boxes, old_format="XYXY", new_format="XYWH")
    with pytest.raises(ValueError, match="convert_bounding_box_format: format must be one of"):
        F.convert_bounding_box_format(plain, old_format="XYXY", new_format="XYZW")
    with pytest.raises(ValueError, match="convert_bounding_box_format: format must be one of"):
        F.convert_bounding_box_format(boxes, new_format="corners")
    with pytest.raises(TypeError, match="convert_bounding_box_format: expected BoundingBoxes"):
        F.convert_bounding_box_format(tv_tensors.Image(make_image()), new_format="XYWH")


# ---- clamp_bounding_boxes / clamp_keypoints -------------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("mode", ["soft", "hard", None])
def test_clamp_bounding_boxes_matches_torchvision(format, dtype, mode):
    outside = _boxes_outside(format, dtype)
    boxes = tv_tensors.wrap(outside, like=outside, clamping_mode=mode)
    expected = tv_functional.clamp_bounding_boxes(to_torchvision(boxes))
    assert_matches_oracle(F.clamp_bounding_boxes(boxes), expected)
    plain = boxes.as_subclass(torch.Tensor)
    if mode is not None:
        expected_plain = tv_functional.clamp_bounding_boxes(
            plain, format=tv_tv_tensors.BoundingBoxFormat[format], canvas_size=CANVAS, clamping_mode=mode
        )
        for spelling in (format, format.lower(), tv_tensors.BoundingBoxFormat[format]):
            out = F.clamp_bounding_boxes(plain, format=spelling, canvas_size=list(CANVAS), clamping_mode=mode)
            assert_matches_oracle(out, expected_plain)


def test_clamp_bounding_boxes_compiles_scripts_and_rejects_bad_input():
    boxes = _boxes_outside("XYWH")
    out = assert_one_graph(F.clamp_bounding_boxes, boxes)
    torch.testing.assert_close(out.as_subclass(torch.Tensor), F.clamp_bounding_boxes(boxes).as_subclass(torch.Tensor))

    def clamp(plain: torch.Tensor) -> torch.Tensor:
        return F.clamp_bounding_boxes(plain, tv_tensors.BoundingBoxFormat.XYWH, [17, 23], "soft")

    plain = boxes.as_subclass(torch.Tensor)
    torch.testing.assert_close(torch.jit.script(clamp)(plain), out.as_subclass(torch.Tensor))
    with pytest.raises(ValueError, match="clamp_bounding_boxes: plain tensors need"):
        F.clamp_bounding_boxes(plain, format="XYWH")
    with pytest.raises(ValueError, match="clamp_bounding_boxes: format must be one of"):
        F.clamp_bounding_boxes(plain, format="XY", canvas_size=[17, 23], clamping_mode="soft")


def test_clamp_keypoints_matches_torchvision_in_the_modes():
    points = tv_tensors.KeyPoints(
        torch.tensor([[-2.0, 3.0], [30.0, 20.0], [5.5, -1.0], [22.0, 16.0]]), canvas_size=CANVAS
    )
    expected = tv_functional.clamp_keypoints(to_torchvision(points))
    assert_matches_oracle(F.clamp_keypoints(points), expected)
    plain = points.as_subclass(torch.Tensor)
    expected_plain = tv_functional.clamp_keypoints(plain, canvas_size=CANVAS)
    assert_matches_oracle(F.clamp_keypoints(plain, canvas_size=list(CANVAS)), expected_plain)
    out = assert_one_graph(F.clamp_keypoints, points)
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor))

    def clamp(plain: torch.Tensor) -> torch.Tensor:
        return F.clamp_keypoints(plain, [17, 23])

    torch.testing.assert_close(torch.jit.script(clamp)(plain), expected_plain)
    with pytest.raises(ValueError, match="clamp_keypoints: plain tensors need canvas_size"):
        F.clamp_keypoints(plain)


# ---- the format argument of the box kernels --------------------------------------------------------------------

BOX_KERNELS = [
    ("horizontal_flip", {"canvas_size": CANVAS}),
    ("vertical_flip", {"canvas_size": CANVAS}),
    ("crop", {"top": 2, "left": 3, "height": 10, "width": 12}),
    ("center_crop", {"canvas_size": CANVAS, "output_size": [10, 12]}),
    ("resize", {"canvas_size": CANVAS, "size": [30, 20]}),
    ("resized_crop", {"top": 2, "left": 3, "height": 10, "width": 12, "size": [20, 24]}),
    ("pad", {"canvas_size": CANVAS, "padding": [1, 2, 3, 4]}),
]


@pytest.mark.parametrize("name, kwargs", BOX_KERNELS, ids=[name for name, _ in BOX_KERNELS])
@pytest.mark.parametrize("format", FORMATS)
def test_box_kernels_take_the_format_as_torchvision_does(name, kwargs, format):
    ours = getattr(F, f"{name}_bounding_boxes")
    theirs = getattr(tv_functional, f"{name}_bounding_boxes")
    plain = make_boxes(CANVAS, format=format).as_subclass(torch.Tensor)
    expected = ours(plain, format=tv_tensors.BoundingBoxFormat[format], **kwargs)
    for spelling in (format, format.lower()):
        assert_matches_oracle(ours(plain, format=spelling, **kwargs), expected)
    tv_format = tv_tv_tensors.BoundingBoxFormat[format]
    assert_matches_oracle(expected, theirs(plain, format=tv_format, **kwargs))
    assert_matches_oracle(ours(plain, format=tv_format, **kwargs), expected)
    op = name.replace("center_crop", "crop")  # center_crop is a crop of the boxes
    with pytest.raises(ValueError, match=f"{op}: format must be one of"):
        ours(plain, format="XYZW", **kwargs)


# ---- edge cases of the box functionals -------------------------------------------------------------------------------


def test_clamp_functionals_reject_what_torchvision_rejects():
    boxes = tv_tensors.BoundingBoxes(torch.tensor([[1.0, 2, 30, 4]]), format="XYXY", canvas_size=(10, 10))
    points = tv_tensors.KeyPoints(torch.tensor([[1.0, 20]]), canvas_size=(10, 10))
    calls = [
        lambda: F.clamp_bounding_boxes(boxes, clamping_mode="bogus"),
        lambda: F.clamp_bounding_boxes(boxes.as_subclass(torch.Tensor), "XYXY", (10, 10), clamping_mode="bogus"),
        lambda: F.clamp_bounding_boxes(boxes, canvas_size=(5, 5)),
        lambda: F.clamp_bounding_boxes(boxes, format="XYXY"),
        lambda: F.clamp_keypoints(points, canvas_size=(5, 5)),
    ]
    theirs = [
        lambda: tv_functional.clamp_bounding_boxes(_tv(boxes), clamping_mode="bogus"),
        lambda: tv_functional.clamp_bounding_boxes(boxes.as_subclass(torch.Tensor), "XYXY", (10, 10), "bogus"),
        lambda: tv_functional.clamp_bounding_boxes(_tv(boxes), canvas_size=(5, 5)),
        lambda: tv_functional.clamp_bounding_boxes(_tv(boxes), format="XYXY"),
        lambda: tv_functional.clamp_keypoints(
            tv_tv_tensors.KeyPoints(points, canvas_size=(10, 10)), canvas_size=(5, 5)
        ),
    ]
    for ours, oracle in zip(calls, theirs):
        with pytest.raises(ValueError):
            oracle()
        with pytest.raises(ValueError, match="clamp_(bounding_boxes|keypoints)"):
            ours()
    for mode in ("soft", "hard", None):
        assert_matches_oracle(
            F.clamp_bounding_boxes(boxes, clamping_mode=mode),
            tv_functional.clamp_bounding_boxes(_tv(boxes), clamping_mode=mode),
        )


def _tv(boxes):
    return tv_tv_tensors.BoundingBoxes(
        boxes.as_subclass(torch.Tensor), format=boxes.format.name, canvas_size=boxes.canvas_size
    )


def test_convert_bounding_box_format_to_the_same_format_returns_the_input():
    boxes = tv_tensors.BoundingBoxes(torch.tensor([[1.0, 2, 3, 4]]), format="XYWH", canvas_size=(10, 10))
    assert F.convert_bounding_box_format(boxes, new_format="XYWH") is boxes
    plain = boxes.as_subclass(torch.Tensor)
    assert F.convert_bounding_box_format(plain, old_format="XYWH", new_format="XYWH") is plain
    assert tv_functional.convert_bounding_box_format(plain, old_format="XYWH", new_format="XYWH") is plain


@pytest.mark.parametrize(
    "name, args",
    [("ClampBoundingBoxes", ()), ("ClampKeyPoints", ()), ("ConvertBoundingBoxFormat", ("CXCYWH",)),
     ("SetClampingMode", ("hard",))],
)
def test_metadata_classes_pass_plain_tensors_through_as_torchvision(name, args):
    # A plain tensor has no box format or canvas: torchvision's classes return it unchanged (its functionals raise);
    # ours too, in a sample and through forward_batch (which used to hand the plain batch to the box kernel).
    import torchvision.transforms.v2 as tv_transforms

    import jitvision.transforms as T

    images = torch.randint(0, 256, (2, 3, 9, 7), dtype=torch.uint8)
    ours, theirs = getattr(T, name)(*args), getattr(tv_transforms, name)(*args)
    expected = theirs(images)
    assert type(expected) is torch.Tensor and torch.equal(expected, images)
    for out in (ours(images), ours.forward_batch(images), torch.jit.script(ours).forward_batch(images)):
        assert type(out) is torch.Tensor and torch.equal(out, images)
