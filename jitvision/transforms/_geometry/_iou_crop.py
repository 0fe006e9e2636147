"""RandomIoUCrop: the SSD crop, with torchvision's rejection loop drawn as one batch of candidates.

torchvision loops: pick a minimum IoU among ``sampler_options`` (1.0 or more: leave the sample as it is), then try
up to ``trials`` crops (scale in ``[min_scale, max_scale]`` per side, aspect ratio in range, not empty, at least
one box centre inside, some such box with IoU >= the minimum); the first crop that passes wins, else pick another
option. Here ``rounds`` options and ``rounds x trials`` candidates are drawn at once (one ``rand``), evaluated
together (``[rounds, trials, boxes]`` tensor ops) and the first passing one is selected with cumulative sums, never
a host read. With independent uniforms this is the loop's distribution, except that the loop is unbounded: when
none of the ``rounds`` options decides (probability <= (1 - 1/7)^16 ~ 8% in the worst case of the default options
where no crop ever passes, in which case the loop's answer is "as it is" too) the sample is left as it is.

The chosen box reaches the kernels through ``_drawn.ints_of``: plain ints in eager/TorchScript, unbacked symbolic
sizes under torch.compile/export (one graph, no recompiles across draws or data). As in torchvision, the boxes whose
centre is outside the crop are set to 0 (``SanitizeBoundingBoxes`` removes them afterwards).
"""

import math
from typing import Any, Dict, List, Optional

import torch

from ...tv_tensors import BoundingBoxes, BoundingBoxFormat, box_format_from, kind_of, wrap
from .. import functional as F
from .._drawn import check_crop, ints_of, refuse_batch
from .._random import python_choice, uniform
from .._transform import Transform
from .._utils import is_image_like
from ..functional._dispatch import is_pure_tensor, is_tracing, unwrap
from ..functional._geometry._crop import crop_at
from ..functional._meta import convert_bounding_box_format_kernel, is_rotated_format


@torch.jit.unused
def _number(value: Any, what: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(f"{owner}: {what} must be a finite number, got {value!r}")
    return float(value)


def _box_iou_with_crops(xyxy: torch.Tensor, crops: torch.Tensor) -> torch.Tensor:
    """IoU of every box ``[N, 4]`` with every crop ``[..., 4]`` (xyxy, the boxes' dtype): ``[..., N]``, computed as
    torchvision's ``box_iou`` does (int64 boxes stay integer until the division)."""
    if not xyxy.is_floating_point() and xyxy.dtype not in (torch.int32, torch.int64):
        xyxy = xyxy.int()
    elif xyxy.is_floating_point() and xyxy.dtype not in (torch.float32, torch.float64):
        xyxy = xyxy.float()
    crops = crops.to(xyxy.dtype).unsqueeze(-2)  # [..., 1, 4]
    box_area = (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1])
    crop_area = (crops[..., 2] - crops[..., 0]) * (crops[..., 3] - crops[..., 1])
    lt = torch.maximum(xyxy[:, :2], crops[..., :2])
    rb = torch.minimum(xyxy[:, 2:], crops[..., 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (box_area + crop_area - inter)


class RandomIoUCrop(Transform):
    """Crop the sample so that the boxes kept overlap the crop enough (SSD). Needs an image (or video) and
    ``BoundingBoxes`` in the sample; follow it with ``SanitizeBoundingBoxes`` to drop the boxes it zeroes.

    ``rounds`` (keyword-only, jitvision's) is the number of IoU options drawn at once (see the module docstring).
    ``min_scale <= max_scale <= 1``, ``0 < min_aspect_ratio <= max_aspect_ratio``, ``trials >= 1`` and a non-empty
    ``sampler_options`` are required (torchvision does not check, and loops forever or crops outside the image)."""

    # Compose runs it sample by sample up to a later fixed-size Resize on batches (see Compose).
    _drawn_output_size = True
    _functional = staticmethod(F.crop)

    def __init__(
        self,
        min_scale: float = 0.3,
        max_scale: float = 1.0,
        min_aspect_ratio: float = 0.5,
        max_aspect_ratio: float = 2.0,
        sampler_options: Optional[List[float]] = None,
        trials: int = 40,
        *,
        rounds: int = 16,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        self.min_scale = _number(min_scale, "min_scale", owner)
        self.max_scale = _number(max_scale, "max_scale", owner)
        self.min_aspect_ratio = _number(min_aspect_ratio, "min_aspect_ratio", owner)
        self.max_aspect_ratio = _number(max_aspect_ratio, "max_aspect_ratio", owner)
        if not 0.0 < self.min_scale <= self.max_scale <= 1.0:
            raise ValueError(
                f"{owner}: the scale range must satisfy 0 < min_scale <= max_scale <= 1, got "
                f"min_scale={min_scale}, max_scale={max_scale}"
            )
        if not 0.0 < self.min_aspect_ratio <= self.max_aspect_ratio:
            raise ValueError(
                f"{owner}: the aspect ratio range must satisfy 0 < min_aspect_ratio <= max_aspect_ratio, got "
                f"min_aspect_ratio={min_aspect_ratio}, max_aspect_ratio={max_aspect_ratio}"
            )
        if sampler_options is None:
            sampler_options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]
        if not isinstance(sampler_options, (list, tuple)) or len(sampler_options) == 0:
            raise ValueError(f"{owner}: sampler_options must be a non-empty list of floats, got {sampler_options!r}")
        self.options = [_number(v, "sampler_options", owner) for v in sampler_options]
        for name, value in (("trials", trials), ("rounds", rounds)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")
        self.trials = int(trials)
        self.rounds = int(rounds)

    # ---- the draw ----------------------------------------------------------------------------------------------

    def __prepare_scriptable__(self) -> None:
        raise TypeError(
            "RandomIoUCrop needs BoundingBoxes in the sample, which TorchScript cannot represent; it cannot be scripted"
        )

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        has_boxes = any(isinstance(x, torch.Tensor) and kind_of(type(x)) is BoundingBoxes for x in flat_inputs)
        has_image = any(
            is_image_like(x) or (isinstance(x, torch.Tensor) and is_pure_tensor(x)) for x in flat_inputs
        )
        if not (has_boxes and has_image):
            raise TypeError(
                f"{type(self).__name__}: requires input sample to contain tensor or PIL images and bounding boxes: the "
                "sample must hold an image (or video, or a plain tensor) and "
                "BoundingBoxes (masks are optional)"
            )

    @torch.jit.unused
    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        boxes = next(x for x in flat_inputs if isinstance(x, torch.Tensor) and kind_of(type(x)) is BoundingBoxes)
        height, width = F.get_size(boxes)
        if is_rotated_format(box_format_from(boxes.format)):
            # torchvision converts to XYXY, which it refuses for rotated boxes (except when its first draw leaves the
            # sample alone): refused here every time, naming this transform.
            name = type(self).__name__
            raise ValueError(f"{name}: rotated boxes ({boxes.format}) are not supported, as in torchvision")
        xyxy = convert_bounding_box_format_kernel(unwrap(boxes), box_format_from(boxes.format), BoundingBoxFormat.XYXY)
        return self._choose(xyxy, height, width)

    def _choose(self, xyxy: torch.Tensor, height: int, width: int) -> Dict[str, torch.Tensor]:
        """``apply`` (bool), ``box`` (int64 [top, left, height, width], the whole image when not applied) and
        ``keep`` (bool, one per box: its centre is inside the crop) from the boxes ``[..., 4]`` in xyxy."""
        device = xyxy.device
        u = uniform([self.rounds, 1 + 4 * self.trials], self._rng(), device)
        # The option of each round, as torchvision's randint(len(options)) would pick it.
        n = len(self.options)
        option = (u[:, 0] * n).to(torch.int64).clamp(max=n - 1)
        thresholds = torch.tensor(self.options, dtype=torch.float32, device=device).index_select(0, option)
        leave = torch.tensor([o >= 1.0 for o in self.options], device=device).index_select(0, option)
        if torch.jit.is_scripting() or is_tracing():
            return self._first_passing(u, thresholds, leave, xyxy, height, width)
        # Eager: the same selection one round at a time, stopping at the first round that decides (most calls
        # decide in the first): the same uniforms and the same result as evaluating every round at once.
        for k, leaves in enumerate(leave.tolist()):
            if leaves:
                break
            params = self._first_passing(u[k : k + 1], thresholds[k : k + 1], leave[k : k + 1], xyxy, height, width)
            if bool(params["apply"]):
                return params
        whole = torch.tensor([0, 0, height, width], dtype=torch.int64, device=device)
        keep = torch.ones(xyxy.shape[:-1], dtype=torch.bool, device=device)
        return {"apply": torch.tensor(False, device=device), "box": whole, "keep": keep}

    def _first_passing(
        self,
        u: torch.Tensor,
        thresholds: torch.Tensor,
        leave: torch.Tensor,
        xyxy: torch.Tensor,
        height: int,
        width: int,
    ) -> Dict[str, torch.Tensor]:
        """The first passing candidate of the first deciding round among ``u``'s rounds, with tensor ops only."""
        device = xyxy.device
        rounds, trials = u.shape[0], self.trials
        draws = u[:, 1:].reshape(rounds, trials, 4)
        # torchvision's float32 arithmetic: new side = int(side * (min + (max - min) * r)), offset = int(room * r).
        scale = self.min_scale + (self.max_scale - self.min_scale) * draws[..., 0:2]
        new_w = (width * scale[..., 0]).to(torch.int64)
        new_h = (height * scale[..., 1]).to(torch.int64)
        aspect = new_w.double() / new_h.double()  # Python's int / int (a 0 height: inf or nan, never valid)
        valid = (aspect >= self.min_aspect_ratio) & (aspect <= self.max_aspect_ratio) & (new_w > 0) & (new_h > 0)
        left = ((width - new_w) * draws[..., 2]).to(torch.int64)
        top = ((height - new_h) * draws[..., 3]).to(torch.int64)
        right, bottom = left + new_w, top + new_h
        flat = xyxy.reshape(-1, 4)
        cx = 0.5 * (flat[:, 0] + flat[:, 2])
        cy = 0.5 * (flat[:, 1] + flat[:, 3])
        left_, right_, top_, bottom_ = left.unsqueeze(-1), right.unsqueeze(-1), top.unsqueeze(-1), bottom.unsqueeze(-1)
        within = (left_ < cx) & (cx < right_) & (top_ < cy) & (cy < bottom_)  # [rounds, trials, boxes]
        iou = _box_iou_with_crops(flat, torch.stack([left, top, right, bottom], -1))
        # The best IoU among the boxes whose centre is inside (a -inf column: no box at all is no failure to reduce).
        masked = torch.where(within, iou, torch.full_like(iou, -math.inf))
        best = torch.cat([masked, masked.new_full((rounds, trials, 1), -math.inf)], -1).amax(-1)
        passes = valid & within.any(-1) & (best >= thresholds.unsqueeze(-1))  # [rounds, trials]
        decides = leave | passes.any(-1)  # [rounds]
        first_round = decides & (torch.cumsum(decides.to(torch.int64), 0) == 1)
        crop = (~leave) & first_round  # the deciding round crops
        trial = passes & (torch.cumsum(passes.to(torch.int64), -1) == 1) & crop.unsqueeze(-1)  # one-hot [r, t]
        apply = trial.any()
        picked = (torch.stack([top, left, new_h, new_w], -1) * trial.unsqueeze(-1)).sum([0, 1])
        whole = torch.tensor([0, 0, height, width], dtype=torch.int64, device=device)
        box = torch.where(apply, picked, whole)
        keep = (within & trial.unsqueeze(-1)).any(0).any(0) | ~apply
        return {"apply": apply, "box": box, "keep": keep.reshape(xyxy.shape[:-1])}

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        # One sample's draw needs the boxes (make_params); a batch is refused: each sample has its own output size.
        if len(batch_shape) == 0:
            return torch.jit.annotate(Dict[str, torch.Tensor], {})
        if not torch.jit.is_scripting():
            refuse_batch(type(self).__name__)
        raise ValueError("RandomIoUCrop: per-sample output sizes cannot be stacked in a batch")

    # ---- the crop ------------------------------------------------------------------------------------------------

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        choice = python_choice(params["apply"])
        if choice is not None and not choice:
            return inpt
        box = ints_of(params, "box")
        top, left, height, width = box[0], box[1], box[2], box[3]
        if torch.jit.is_scripting():
            return F.crop(inpt, top, left, height, width)
        return self._crop(inpt, top, left, height, width, params["box"][:2], params["keep"])

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise ValueError("RandomIoUCrop: per-sample output sizes cannot be stacked in a batch")

    @torch.jit.unused
    def _crop(
        self, inpt: Any, top: int, left: int, height: int, width: int, top_left: torch.Tensor, keep: torch.Tensor
    ) -> Any:
        if is_tracing():
            image_height, image_width = F.get_size(inpt)
            check_crop(top, left, height, width, image_height, image_width)
            # crop_at (one custom op node for dense kinds, whose output size is exactly (height, width), the symbols
            # the boxes' canvas gets); a slice or narrow gives max(0, min(top + height, H) - top), which later size
            # comparisons between leaves cannot match.
            out = crop_at(inpt, top_left, height, width)
        else:
            out = F.crop(inpt, top, left, height, width)
        if isinstance(out, torch.Tensor) and kind_of(type(out)) is BoundingBoxes:
            # As torchvision: the boxes whose centre is outside the crop become all zeros.
            plain = unwrap(out)
            out = wrap(torch.where(keep.unsqueeze(-1), plain, torch.zeros_like(plain)), like=out)
        return out

    def extra_repr(self) -> str:
        return (
            f"min_scale={self.min_scale}, max_scale={self.max_scale}, min_aspect_ratio={self.min_aspect_ratio}, "
            f"max_aspect_ratio={self.max_aspect_ratio}, sampler_options={self.options}, trials={self.trials}, "
            f"rounds={self.rounds}"
        )
