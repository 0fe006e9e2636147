"""The six box formats: is_rotated_bounding_format, convert_bounding_box_format between all of them, clamping of
rotated boxes ("soft", "hard", None), sanitizing them, and the classes ConvertBoundingBoxFormat,
ClampBoundingBoxes, ClampKeyPoints, SetClampingMode: vs torchvision 0.29.1, scripted, compiled, exported."""

import itertools

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from torchvision import tv_tensors as tv_tv_tensors

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    ROTATED_FORMATS,
    assert_matches_oracle,
    assert_one_graph,
    make_boxes,
    make_image,
    make_keypoints,
    make_rotated_boxes,
    script_roundtrip,
    to_torchvision,
)

AXIS_ALIGNED = ("XYXY", "XYWH", "CXCYWH")
ALL_FORMATS = AXIS_ALIGNED + ROTATED_FORMATS
CANVAS = (29, 33)


def test_the_enum_and_is_rotated_bounding_format_match_torchvision():
    assert [f.name for f in tv_tensors.BoundingBoxFormat] == [f.name for f in tv_tv_tensors.BoundingBoxFormat]
    for name in ALL_FORMATS + ("xywhr", "XYWHR ", "nope"):
        assert tv_tensors.is_rotated_bounding_format(name) == tv_tv_tensors.is_rotated_bounding_format(name), name
    for ours, theirs in zip(tv_tensors.BoundingBoxFormat, tv_tv_tensors.BoundingBoxFormat):
        assert tv_tensors.is_rotated_bounding_format(ours) == tv_tv_tensors.is_rotated_bounding_format(theirs)
        assert tv_tensors.is_rotated_bounding_format(theirs) == tv_tv_tensors.is_rotated_bounding_format(theirs)
    with pytest.raises(ValueError, match="^is_rotated_bounding_format"):
        tv_tensors.is_rotated_bounding_format(3)


def test_bounding_boxes_check_the_last_dimension_against_the_format():
    for format, width in itertools.product(ALL_FORMATS, (4, 5, 8)):
        data = torch.rand(3, width)
        if width == tv_tensors.box_width(tv_tensors.BoundingBoxFormat[format]):
            assert tv_tensors.BoundingBoxes(data, format=format, canvas_size=CANVAS).shape == (3, width)
        else:
            with pytest.raises(ValueError, match=f"^BoundingBoxes: expected a \\[N, .\\] tensor for format {format}"):
                tv_tensors.BoundingBoxes(data, format=format, canvas_size=CANVAS)
    with pytest.raises(ValueError, match="^BoundingBoxes: format must be one of"):
        tv_tensors.BoundingBoxes(torch.rand(3, 5), format="XYWHRR", canvas_size=CANVAS)


def test_clamping_mode_attribute_like_torchvision():
    for mode in ("soft", "hard", None):
        boxes = tv_tensors.BoundingBoxes(torch.rand(2, 5), format="XYWHR", canvas_size=CANVAS, clamping_mode=mode)
        theirs = tv_tv_tensors.BoundingBoxes(torch.rand(2, 5), format="XYWHR", canvas_size=CANVAS, clamping_mode=mode)
        assert boxes.clamping_mode == theirs.clamping_mode == mode
        assert F.horizontal_flip(boxes).clamping_mode == mode  # kept through the kernels
    assert tv_tensors.BoundingBoxes(torch.rand(2, 4), format="XYXY", canvas_size=CANVAS).clamping_mode == "soft"
    with pytest.raises(ValueError, match="^BoundingBoxes: clamping_mode"):
        tv_tensors.BoundingBoxes(torch.rand(2, 4), format="XYXY", canvas_size=CANVAS, clamping_mode="auto")


# ---- convert_bounding_box_format -------------------------------------------------------------------------


@pytest.mark.parametrize("old, new", list(itertools.product(ROTATED_FORMATS, ROTATED_FORMATS)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_convert_between_rotated_formats_matches_torchvision(old, new, dtype):
    torch.manual_seed(len(old) * 7 + len(new))
    boxes = make_rotated_boxes(CANVAS, old, num_boxes=30, dtype=dtype)
    expected = tv_functional.convert_bounding_box_format(to_torchvision(boxes), new_format=new)
    assert_matches_oracle(F.convert_bounding_box_format(boxes, new_format=new), expected, float_atol=1e-5)
    plain = boxes.as_subclass(torch.Tensor)
    expected_plain = tv_functional.convert_bounding_box_format(plain.clone(), old_format=old, new_format=new)
    actual_plain = F.convert_bounding_box_format(plain, old_format=old, new_format=new)
    assert_matches_oracle(actual_plain, expected_plain, float_atol=1e-5)
    assert torch.equal(plain, boxes.as_subclass(torch.Tensor))  # not modified in place


def test_rotated_round_trips_are_close_to_identity():
    boxes = make_rotated_boxes(CANVAS, "XYWHR", num_boxes=50, dtype=torch.float64)
    for via in ROTATED_FORMATS:
        back = F.convert_bounding_box_format(F.convert_bounding_box_format(boxes, new_format=via), new_format="XYWHR")
        torch.testing.assert_close(back[:, :4].as_subclass(torch.Tensor), boxes[:, :4].as_subclass(torch.Tensor))
        angle_diff = (back[:, 4] - boxes[:, 4]).as_subclass(torch.Tensor).remainder(360)
        assert torch.minimum(angle_diff, 360 - angle_diff).max() < 1e-6


@pytest.mark.parametrize("old, new", [(a, r) for a in AXIS_ALIGNED for r in ROTATED_FORMATS])
def test_converting_between_axis_aligned_and_rotated_raises_naming_the_op(old, new):
    for src, dst in ((old, new), (new, old)):
        boxes = make_boxes(CANVAS, format=src) if src in AXIS_ALIGNED else make_rotated_boxes(CANVAS, src)
        with pytest.raises(ValueError):
            tv_functional.convert_bounding_box_format(to_torchvision(boxes), new_format=dst)
        with pytest.raises(ValueError, match="^convert_bounding_box_format: cannot convert between rotated"):
            F.convert_bounding_box_format(boxes, new_format=dst)


def test_integer_rotated_boxes():
    """BoundingBoxes refuse integer rotated boxes, as torchvision's do. Plain integer tensors: a deliberate
    difference, torchvision raises a RuntimeError for most of their conversions; we convert in float32 and truncate
    back to the boxes' dtype once."""
    ints = torch.randint(0, 50, (20, 5))
    for cls in (tv_tensors.BoundingBoxes, tv_tv_tensors.BoundingBoxes):
        with pytest.raises(ValueError, match="oating point"):
            cls(ints, format="XYWHR", canvas_size=CANVAS)
    for new in ("CXCYWHR", "XYXYXYXY"):
        out = F.convert_bounding_box_format(ints, old_format="XYWHR", new_format=new)
        assert out.dtype == torch.int64
        reference = F.convert_bounding_box_format(ints.float(), old_format="XYWHR", new_format=new)
        assert torch.equal(out, reference.to(torch.int64))


def test_convert_scripts_and_compiles_on_rotated_boxes():
    scripted = torch.jit.script(F.convert_bounding_box_format)
    plain = make_rotated_boxes(CANVAS, "CXCYWHR").as_subclass(torch.Tensor)
    cxcywhr, corners = tv_tensors.BoundingBoxFormat.CXCYWHR, tv_tensors.BoundingBoxFormat.XYXYXYXY
    torch.testing.assert_close(
        scripted(plain, cxcywhr, corners), F.convert_bounding_box_format(plain, cxcywhr, corners), rtol=0, atol=0
    )
    boxes = make_rotated_boxes(CANVAS, "XYXYXYXY")
    out = assert_one_graph(lambda b: F.convert_bounding_box_format(b, new_format="CXCYWHR"), boxes)
    assert out.format is tv_tensors.BoundingBoxFormat.CXCYWHR


# ---- clamp_bounding_boxes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ROTATED_FORMATS)
@pytest.mark.parametrize("mode", ["soft", "hard", None, "auto"])
def test_clamp_rotated_boxes_matches_torchvision(format, mode):
    torch.manual_seed(ROTATED_FORMATS.index(format))
    for dtype, box_mode in ((torch.float32, "hard"), (torch.float64, "soft")):
        # Boxes reaching past the edges, a third of them on multiples of 45 degrees (the special cases).
        boxes = make_rotated_boxes(CANVAS, format, num_boxes=40, dtype=dtype, clamping_mode=box_mode)
        expected = tv_functional.clamp_bounding_boxes(to_torchvision(boxes), clamping_mode=mode)
        assert_matches_oracle(F.clamp_bounding_boxes(boxes, clamping_mode=mode), expected, float_atol=1e-4)
        if mode != "auto":
            plain = boxes.as_subclass(torch.Tensor)
            expected_plain = tv_functional.clamp_bounding_boxes(
                plain.clone(), format=format, canvas_size=CANVAS, clamping_mode=mode
            )
            actual_plain = F.clamp_bounding_boxes(plain, format=format, canvas_size=list(CANVAS), clamping_mode=mode)
            assert_matches_oracle(actual_plain, expected_plain, float_atol=1e-4)


def test_hard_clamp_keeps_every_corner_on_the_canvas_and_soft_keeps_the_angle():
    boxes = make_rotated_boxes(CANVAS, "XYWHR", num_boxes=60, dtype=torch.float64, clamping_mode="hard")
    hard = F.clamp_bounding_boxes(boxes)
    corners = F.convert_bounding_box_format(hard, new_format="XYXYXYXY").as_subclass(torch.Tensor)
    assert corners[:, 0::2].min() >= -1e-6 and corners[:, 0::2].max() <= CANVAS[1] + 1e-6
    assert corners[:, 1::2].min() >= -1e-6 and corners[:, 1::2].max() <= CANVAS[0] + 1e-6
    soft = F.clamp_bounding_boxes(boxes, clamping_mode="soft").as_subclass(torch.Tensor)
    kept = soft[:, 2] > 0  # boxes not collapsed to a point
    diff = (soft[kept, 4] - boxes.as_subclass(torch.Tensor)[kept, 4]).remainder(90)
    assert torch.minimum(diff, 90 - diff).max() < 1e-6


def test_clamp_scripts_and_errors():
    scripted = torch.jit.script(F.clamp_bounding_boxes)
    plain = make_rotated_boxes(CANVAS, "XYWHR").as_subclass(torch.Tensor)
    xywhr = tv_tensors.BoundingBoxFormat.XYWHR
    for mode in ("soft", "hard"):
        torch.testing.assert_close(
            scripted(plain, xywhr, list(CANVAS), mode), F.clamp_bounding_boxes(plain, xywhr, list(CANVAS), mode)
        )
    with pytest.raises(ValueError, match="^clamp_bounding_boxes: boxes in format XYWHR must be"):
        F.clamp_bounding_boxes(torch.rand(3, 4), format="XYWHR", canvas_size=list(CANVAS), clamping_mode="soft")
    with pytest.raises(ValueError, match="^clamp_bounding_boxes: format must be one of"):
        F.clamp_bounding_boxes(torch.rand(3, 5), format="XYWHRR", canvas_size=list(CANVAS), clamping_mode="soft")
    with pytest.raises(ValueError, match="^clamp_bounding_boxes: clamping_mode"):
        F.clamp_bounding_boxes(make_rotated_boxes(CANVAS, "XYWHR"), clamping_mode="medium")


# ---- sanitize ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ROTATED_FORMATS)
def test_sanitize_rotated_boxes_matches_torchvision(format):
    torch.manual_seed(11)
    boxes = make_rotated_boxes(CANVAS, format, num_boxes=60)
    for min_size, min_area in ((1.0, 1.0), (3.0, 20.0)):
        expected, expected_valid = tv_functional.sanitize_bounding_boxes(
            to_torchvision(boxes), min_size=min_size, min_area=min_area
        )
        actual, valid = F.sanitize_bounding_boxes(boxes, min_size=min_size, min_area=min_area)
        assert torch.equal(valid, expected_valid)
        assert_matches_oracle(actual, expected, float_atol=0)
    labels = torch.arange(60)
    sample = {"boxes": boxes, "labels": labels}
    out = T.SanitizeBoundingBoxes()(sample)
    expected = tv_transforms.SanitizeBoundingBoxes()({"boxes": to_torchvision(boxes), "labels": labels})
    assert torch.equal(out["labels"], expected["labels"])
    assert_matches_oracle(out["boxes"], expected["boxes"], float_atol=0)


# ---- the classes ------------------------------------------------------------------------------------------


def _sample(format: str) -> dict:
    return {
        "image": tv_tensors.Image(make_image(*CANVAS)),
        "boxes": make_rotated_boxes(CANVAS, format, num_boxes=9, clamping_mode="hard")
        if format in ROTATED_FORMATS
        else make_boxes(CANVAS, format=format),
        "points": tv_tensors.KeyPoints(torch.rand(7, 2) * 50 - 10, canvas_size=CANVAS),
        "labels": torch.arange(9),
        "plain": torch.rand(3, 4),
    }


CLASSES = [
    ("ConvertBoundingBoxFormat", ("XYXYXYXY",), "XYWHR"),
    ("ConvertBoundingBoxFormat", ("cxcywhr",), "XYXYXYXY"),
    ("ConvertBoundingBoxFormat", ("XYWH",), "CXCYWH"),
    ("ClampBoundingBoxes", (), "XYWHR"),
    ("ClampBoundingBoxes", ("soft",), "XYXYXYXY"),
    ("ClampBoundingBoxes", (None,), "CXCYWHR"),
    ("ClampBoundingBoxes", ("hard",), "XYXY"),
    ("ClampKeyPoints", (), "XYWHR"),
    ("SetClampingMode", (None,), "XYWHR"),
    ("SetClampingMode", ("soft",), "XYXY"),
]


@pytest.mark.parametrize("name, args, format", CLASSES)
def test_class_matches_torchvision_on_a_sample(name, args, format):
    sample = _sample(format)
    out = getattr(T, name)(*args)(sample)
    expected = getattr(tv_transforms, name)(*args)(to_torchvision(sample))
    assert_matches_oracle(out, expected, float_atol=1e-4, what=name)
    assert out["boxes"].clamping_mode == expected["boxes"].clamping_mode
    assert out["image"] is sample["image"] and out["plain"] is sample["plain"]  # pass through untouched
    # torchvision's own tv_tensors come back as torchvision's types.
    theirs = getattr(T, name)(*args)(to_torchvision(sample))
    assert type(theirs["boxes"]) is tv_tv_tensors.BoundingBoxes
    assert_matches_oracle(theirs, expected, float_atol=1e-4, what=name)


# The rotated clamp's graph is checked in test_rotated_geometry (tracing it costs ~10 s): ClampBoundingBoxes is
# compiled here on axis-aligned boxes.
@pytest.mark.parametrize("name, args, format", [CLASSES[i] for i in (0, 6, 7, 8)])
def test_class_compiles_to_one_graph_scripts_and_exports(name, args, format, tmp_path):
    transform = getattr(T, name)(*args)
    sample = _sample(format)
    del sample["plain"], sample["labels"]
    out = assert_one_graph(transform, sample)
    assert_matches_oracle(out, transform(sample), float_atol=0)
    # Scripted (and exported) on a plain tensor: passed through, like the eager class does.
    image = make_image(*CANVAS, dtype=torch.float32)
    assert torch.equal(script_roundtrip(transform, tmp_path)(image), image)
    height, width = torch.export.Dim("height", min=4, max=64), torch.export.Dim("width", min=4, max=64)
    program = torch.export.export(transform, (image,), dynamic_shapes=({1: height, 2: width},))
    other = make_image(20, 41, dtype=torch.float32)
    assert torch.equal(program.module()(other), other)


def test_classes_reject_bad_arguments_naming_the_class():
    with pytest.raises(ValueError, match="^ConvertBoundingBoxFormat: format must be one of"):
        T.ConvertBoundingBoxFormat("XYWHRR")
    with pytest.raises(ValueError, match="^ClampBoundingBoxes: clamping_mode"):
        T.ClampBoundingBoxes("medium")
    with pytest.raises(ValueError, match="^SetClampingMode: clamping_mode"):
        T.SetClampingMode("auto")
    with pytest.raises(ValueError, match="^ConvertBoundingBoxFormat: cannot convert"):
        T.ConvertBoundingBoxFormat("XYXY")({"boxes": make_rotated_boxes(CANVAS, "XYWHR")})


def test_set_clamping_mode_then_a_geometric_op_clamps_per_the_new_mode():
    boxes = make_rotated_boxes(CANVAS, "XYWHR", num_boxes=20, clamping_mode="soft")
    pipeline = T.Compose([T.SetClampingMode("hard"), T.RandomHorizontalFlip(p=1.0)])
    out = pipeline(boxes)
    expected = tv_transforms.Compose([tv_transforms.SetClampingMode("hard"), tv_transforms.RandomHorizontalFlip(1.0)])(
        to_torchvision(boxes)
    )
    assert out.clamping_mode == "hard" and boxes.clamping_mode == "soft"
    assert_matches_oracle(out, expected, float_atol=1e-4)
    clamped = T.ClampBoundingBoxes()(out)
    assert_matches_oracle(clamped, tv_transforms.ClampBoundingBoxes()(expected), float_atol=1e-4)


def test_clamp_keypoints_class_on_a_batch_and_plain():
    points = make_keypoints(CANVAS, num_points=5)
    moved = tv_tensors.wrap(points.as_subclass(torch.Tensor) * 3 - 10, like=points)
    assert_matches_oracle(T.ClampKeyPoints()(moved), tv_transforms.ClampKeyPoints()(to_torchvision(moved)))
    plain = torch.rand(4, 2) * 100
    assert T.ClampKeyPoints()(plain) is plain
