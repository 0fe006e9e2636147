"""Shared test machinery: oracle tolerances, sample builders, and the four-mode checks."""

from typing import Any, Callable, Optional, Sequence

import torch
import torch._dynamo
import torch._dynamo.testing
from torch.utils import _pytree as pytree

from jitvision import tv_tensors
from jitvision.transforms.functional import convert_bounding_box_format

# ---- oracle comparison --------------------------------------------------------------------------------


def assert_matches_oracle(actual: Any, expected: Any, *, float_atol: float = 1e-4, what: str = "") -> None:
    """Our output vs torchvision's: same structure, leaf types (by class name) and metadata; float within
    ``float_atol``; integer images within 1 level with < 1% of elements off by one."""
    actual_leaves, actual_spec = pytree.tree_flatten(actual)
    expected_leaves, expected_spec = pytree.tree_flatten(expected)
    assert actual_spec == expected_spec, f"{what}: structure {actual_spec} != {expected_spec}"
    for a, e in zip(actual_leaves, expected_leaves):
        assert type(a).__name__ == type(e).__name__, f"{what}: type {type(a).__name__} != {type(e).__name__}"
        if not isinstance(e, torch.Tensor):
            if hasattr(e, "tobytes"):  # PIL image: compare pixels
                import numpy as np

                a_arr, e_arr = np.asarray(a).astype("int64"), np.asarray(e).astype("int64")
                assert a_arr.shape == e_arr.shape, f"{what}: PIL size {a_arr.shape} != {e_arr.shape}"
                diff = abs(a_arr - e_arr)
                if diff.size:
                    assert diff.max() <= 1 and (diff > 0).mean() < 0.01, f"{what}: PIL pixels differ"
            else:
                assert a == e, f"{what}: {a!r} != {e!r}"
            continue
        for name in ("canvas_size",):
            if hasattr(e, name):
                assert tuple(getattr(a, name)) == tuple(getattr(e, name)), f"{what}: {name} differs"
        if hasattr(e, "format"):
            assert a.format.name == e.format.name, f"{what}: box format {a.format} != {e.format}"
        a_plain, e_plain = a.as_subclass(torch.Tensor), e.as_subclass(torch.Tensor)
        assert a_plain.shape == e_plain.shape, f"{what}: shape {tuple(a_plain.shape)} != {tuple(e_plain.shape)}"
        assert a_plain.dtype == e_plain.dtype, f"{what}: dtype {a_plain.dtype} != {e_plain.dtype}"
        if e_plain.is_floating_point():
            # NaN where the oracle has NaN agrees (perspective past its horizon divides by zero in both)
            torch.testing.assert_close(
                a_plain, e_plain, atol=float_atol, rtol=0, equal_nan=True, msg=lambda m: f"{what}: {m}"
            )
        elif e_plain.dtype == torch.bool:
            assert torch.equal(a_plain, e_plain), f"{what}: bool tensors differ"
        else:
            diff = (a_plain.long() - e_plain.long()).abs()
            if diff.numel():
                assert diff.max() <= 1, f"{what}: integer values differ by up to {diff.max().item()}"
                assert (diff > 0).float().mean() < 0.01, f"{what}: {(diff > 0).float().mean():.2%} differ by 1"


def hits_torch_width_one_bug(inpt: Any, out: Any, interpolation: Any, antialias: Any) -> bool:
    """Whether torchvision's result for resizing ``inpt`` to ``out``'s size is wrong because of torch 2.14's
    antialiased interpolate: a constant column for an output 1 pixel wide and taller, on float images and on uint8
    ones with 5+ channels (jitvision resizes the transposed image there)."""
    mode = getattr(interpolation, "value", interpolation)
    if not isinstance(inpt, torch.Tensor) or not isinstance(out, torch.Tensor) or out.ndim < 3 or inpt.ndim < 3:
        return False
    if type(inpt).__name__ in ("Mask", "BoundingBoxes", "KeyPoints") or antialias is False:
        return False
    if mode not in ("bilinear", "bicubic", "lanczos") or out.shape[-1] != 1 or out.shape[-2] <= 1:
        return False
    return inpt.dtype != torch.uint8 or inpt.shape[-3] >= 5


def torchvision_resize_transposed(tv_functional: Any, inpt: Any, out_size: Sequence[int], **kwargs: Any) -> Any:
    """torchvision's resize of the transposed image, transposed back: right where torch's width-1 bug hits."""
    plain = inpt.as_subclass(torch.Tensor) if isinstance(inpt, torch.Tensor) else inpt
    out = tv_functional.resize(plain.transpose(-1, -2), [out_size[1], out_size[0]], **kwargs).transpose(-1, -2)
    return out if type(inpt) is torch.Tensor else type(inpt)(out)


def to_torchvision(obj: Any) -> Any:
    """The same sample with jitvision tv_tensors replaced by torchvision's (for the oracle)."""
    import torchvision.tv_tensors as tvt

    def convert(leaf: Any) -> Any:
        if not isinstance(leaf, tv_tensors.TVTensor):
            return leaf
        plain = leaf.as_subclass(torch.Tensor)
        if isinstance(leaf, tv_tensors.BoundingBoxes):
            return tvt.BoundingBoxes(
                plain, format=leaf.format.name, canvas_size=leaf.canvas_size, clamping_mode=leaf.clamping_mode
            )
        if isinstance(leaf, tv_tensors.KeyPoints):
            return tvt.KeyPoints(plain, canvas_size=leaf.canvas_size)
        return getattr(tvt, type(leaf).__name__)(plain)

    return pytree.tree_map(convert, obj)


# ---- samples ------------------------------------------------------------------------------------------


def make_image(
    height: int = 17,
    width: int = 23,
    dtype: torch.dtype = torch.uint8,
    channels: int = 3,
    batch: Sequence[int] = (),
) -> torch.Tensor:
    shape = (*batch, channels, height, width)
    if dtype == torch.uint8:
        return torch.randint(0, 256, shape, dtype=dtype)
    return torch.rand(shape, dtype=dtype)


def make_boxes(
    canvas_size: tuple[int, int] = (17, 23),
    format: str = "XYXY",
    num_boxes: int = 5,
    dtype: torch.dtype = torch.float32,
) -> tv_tensors.BoundingBoxes:
    height, width = canvas_size
    if format in ROTATED_FORMATS:
        return make_rotated_boxes(canvas_size, format, num_boxes, dtype)
    x1 = torch.rand(num_boxes) * (width - 2)
    y1 = torch.rand(num_boxes) * (height - 2)
    x2 = x1 + 1 + torch.rand(num_boxes) * (width - 1 - x1)
    y2 = y1 + 1 + torch.rand(num_boxes) * (height - 1 - y1)
    xyxy = torch.stack([x1, y1, x2, y2], -1)
    if format == "XYWH":
        data = torch.stack([x1, y1, x2 - x1, y2 - y1], -1)
    elif format == "CXCYWH":
        data = torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], -1)
    else:
        data = xyxy
    if not dtype.is_floating_point:
        data = data.round()
    return tv_tensors.BoundingBoxes(data.to(dtype), format=format, canvas_size=canvas_size)


ROTATED_FORMATS = ("XYWHR", "CXCYWHR", "XYXYXYXY")


def make_rotated_boxes(
    canvas_size: tuple[int, int] = (17, 23),
    format: str = "XYWHR",
    num_boxes: int = 5,
    dtype: torch.dtype = torch.float32,
    clamping_mode: Optional[str] = "soft",
) -> tv_tensors.BoundingBoxes:
    """Random rotated boxes: first corners around the canvas (some outside), sides 1 to ~3/4 of the canvas, angles
    in [-180, 180) with a third of them on multiples of 45 degrees (where the clamping takes its special cases)."""
    height, width = canvas_size
    corner = torch.rand(num_boxes, 2) * torch.tensor([width * 1.2, height * 1.2]) - torch.tensor([width, height]) * 0.1
    sides = 1 + torch.rand(num_boxes, 2) * torch.tensor([width, height]) * 0.75
    angle = torch.rand(num_boxes) * 360 - 180
    angle = torch.where(torch.rand(num_boxes) < 1 / 3, (angle / 45).round() * 45, angle)
    xywhr = torch.cat([corner, sides, angle[:, None]], dim=-1)
    boxes = tv_tensors.BoundingBoxes(xywhr, format="XYWHR", canvas_size=canvas_size, clamping_mode=clamping_mode)
    data = convert_bounding_box_format(boxes, new_format=format)
    data = data if dtype.is_floating_point else data.round()
    return tv_tensors.wrap(data.to(dtype), like=data)


def make_keypoints(canvas_size: tuple[int, int] = (17, 23), num_points: int = 6) -> tv_tensors.KeyPoints:
    height, width = canvas_size
    points = torch.rand(num_points, 2) * torch.tensor([width - 1, height - 1])
    return tv_tensors.KeyPoints(points, canvas_size=canvas_size)


def make_mask(height: int = 17, width: int = 23, num_objects: int = 2) -> tv_tensors.Mask:
    return tv_tensors.Mask(torch.randint(0, 2, (num_objects, height, width), dtype=torch.uint8))


def make_detection_sample(height: int = 17, width: int = 23, dtype: torch.dtype = torch.uint8) -> dict:
    return {
        "image": tv_tensors.Image(make_image(height, width, dtype)),
        "boxes": make_boxes((height, width)),
        "masks": make_mask(height, width, num_objects=5),
        "labels": torch.arange(5),
    }



IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


def make_training_pipeline(size: int = 16) -> Any:
    """The timm-style training pipeline (RandomResizedCrop, flip, TrivialAugmentWide, ToDtype, Normalize): on uint8
    CPU input, Compose runs it as the three native calls of the fused path."""
    import jitvision.transforms as T

    return T.Compose(
        [
            T.RandomResizedCrop(size, antialias=True),
            T.RandomHorizontalFlip(),
            T.TrivialAugmentWide(),
            T.ToDtype(torch.float32, scale=True),
            T.Normalize(IMAGENET_MEAN, IMAGENET_STD),
        ]
    )

# ---- the four modes -----------------------------------------------------------------------------------


def compile_counted(fn: Callable[..., Any], *, dynamic: Optional[bool] = False) -> tuple[Callable[..., Any], Any]:
    """``fn`` compiled with fullgraph=True on the eager backend, and the counter of frames it compiled."""
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounter()
    return torch.compile(fn, backend=counter, fullgraph=True, dynamic=dynamic), counter


def assert_one_graph(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` compiles to exactly one graph with no break and agrees with eager when deterministic."""
    compiled, counter = compile_counted(fn)
    out = compiled(*args)
    assert counter.frame_count == 1, f"expected one graph, got {counter.frame_count}"
    return out


def assert_random_under_compile(fn: Callable[..., Any], *args: Any, calls: int = 12) -> None:
    """12 calls at a fixed shape compile once and give at least two different outputs."""
    compiled, counter = compile_counted(fn)
    torch.manual_seed(0)  # a fixed stream: "all 12 draws equal" must mean baked in, never bad luck (2^-11 for a coin)
    outputs = [compiled(*args) for _ in range(calls)]
    assert counter.frame_count == 1, f"expected one compile, got {counter.frame_count}"
    distinct = {
        tuple(
            torch.cat(
                [
                    leaf.as_subclass(torch.Tensor).flatten().double()
                    for leaf in pytree.tree_leaves(out)
                    if isinstance(leaf, torch.Tensor)
                ]
            ).tolist()
        )
        for out in outputs
    }
    assert len(distinct) >= 2, "compiled random transform gave the same output 12 times: the draw is baked in"


def script_roundtrip(module: torch.nn.Module, tmp_path: Any) -> torch.jit.ScriptModule:
    """``torch.jit.script`` of the module itself, saved and loaded back."""
    scripted = torch.jit.script(module)
    # A fresh file per call: overwriting a file that an earlier loaded module came from failed once (OSError).
    path = tmp_path / f"scripted-{len(list(tmp_path.iterdir()))}.pt"
    torch.jit.save(scripted, str(path))
    return torch.jit.load(str(path))
