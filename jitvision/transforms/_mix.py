"""MixUp and CutMix: batch transforms that mix each sample with the previous one (``roll(1, 0)``) and mix the
labels alike.

As torchvision: called on ``(images, labels)`` (or a sample whose labels ``labels_getter`` finds), images
``[B, C, H, W]`` (videos ``[B, T, C, H, W]``), labels ``[B]`` class indices (one-hot encoded with
``num_classes``) or ``[B, num_classes]`` probabilities; one lambda ~ Beta(alpha, alpha) (and for CutMix one box)
for the whole batch. Given a ``BatchedImages``/``BatchedVideos``, each sample draws its own lambda (and box).

The lambda and the box are tensors (the box mixes through a mask), so a compiled MixUp/CutMix is one graph and
stays random. TorchScript: the scripted class takes the plain batch and the labels as two arguments or as one
tuple, as torchvision's, and returns both, ``images, labels = torch.jit.script(MixUp(num_classes=10))(images,
labels)`` or ``(...)((images, labels))`` (its exported
``mix(images, labels)`` is the same), with the draw eager code makes for a plain ``(images, labels)`` tuple, so a
seed gives the same result in both.
"""

import functools
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import PIL.Image
import torch
from torch.utils import _pytree as pytree

from ..tv_tensors import BoundingBoxes, Image, KeyPoints, Mask, Video, kind_of, wrap
from ..tv_tensors._batch_pytree import sample_leaf
from ._batch import is_batch_leaf
from ._random import rows_view, uniform
from ._transform import Transform
from ._utils import find_labels
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap
from .functional._erase import box_mask


class _MixTransform(Transform):
    num_classes: Optional[int]
    __jit_ignored_attributes__ = ["generator", "_labels_getter", "_scripted_pair"]
    _scripted_pair = True  # scripted, forward takes and returns (images, labels): a scripted Compose refuses it
    _transformed_types = (torch.Tensor,)
    _transformed_kinds = (Image, Video)

    def __init__(
        self,
        *,
        alpha: float = 1.0,
        num_classes: Optional[int] = None,
        labels_getter: Union[str, Callable[[Any], Any], None] = "default",
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not alpha > 0:
            raise ValueError(f"{owner}: alpha must be a positive number, got {alpha!r}")
        if num_classes is not None and (not isinstance(num_classes, int) or num_classes <= 0):
            raise ValueError(f"{owner}: num_classes must be a positive int or None, got {num_classes!r}")
        if labels_getter == "default":
            self._labels_getter: Callable[[Any], Any] = functools.partial(find_labels, owner=owner)
        elif callable(labels_getter):
            self._labels_getter = labels_getter
        elif labels_getter is None:
            self._labels_getter = _no_labels
        else:
            raise ValueError(f"{owner}: labels_getter must be 'default', a callable or None, got {labels_getter!r}")
        self.alpha = float(alpha)
        self.num_classes = num_classes

    # ---- parameters ------------------------------------------------------------------------------------------

    def _lambdas(self, shape: List[int], device: torch.device) -> torch.Tensor:
        """Beta(alpha, alpha) draws of ``shape`` (float64), from a Dirichlet of two equal concentrations."""
        concentration = torch.full(shape + [2], self.alpha, dtype=torch.float64, device=device)
        generator = self._rng()
        if len(shape) > 0:
            # A batch: two Gamma(alpha) draws per sample, normalised. _sample_dirichlet (torchvision's draw, kept for
            # one sample so a seed gives its lambda) has no fake-tensor kernel for a symbolic batch size, so it
            # broke compiles with a dynamic batch dimension.
            if generator is None:
                gammas = torch._standard_gamma(concentration)
            else:
                gammas = torch._standard_gamma(concentration, generator=generator)
            total = gammas.sum(-1)
            return torch.where(total > 0, gammas[..., 0] / total.clamp_min(1e-300), 0.5)
        if generator is None:
            return torch._sample_dirichlet(concentration)[..., 0]
        return torch._sample_dirichlet(concentration, generator=generator)[..., 0]

    # ---- labels ----------------------------------------------------------------------------------------------

    def _check_labels(self, labels: torch.Tensor) -> None:
        owner = self._owner()
        if labels.ndim != 1 and labels.ndim != 2:
            raise ValueError(
                f"{owner}: labels must be class indices [batch_size] or probabilities [batch_size, num_classes], "
                f"got shape {list(labels.shape)}"
            )
        num_classes = self.num_classes
        if labels.ndim == 2 and num_classes is not None and labels.shape[-1] != num_classes:
            raise ValueError(
                f"{owner}: 2D labels must have num_classes={num_classes} columns, got {labels.shape[-1]}"
            )
        if labels.ndim == 1 and num_classes is None:
            raise ValueError(f"{owner}: num_classes must be given for class-index (1D) labels")
        if labels.ndim == 1 and (labels.is_floating_point() or labels.dtype == torch.bool):
            raise ValueError(f"{owner}: class-index (1D) labels must be an integer tensor, got {labels.dtype}")
        if labels.ndim == 1 and num_classes is not None and not torch.jit.is_scripting():
            if not is_tracing() and labels.numel() > 0:  # eager: one host read, a clear message instead of one_hot's
                low, high = int(labels.min()), int(labels.max())
                if low < 0 or high >= num_classes:
                    raise ValueError(
                        f"{owner}: class indices must lie in [0, {num_classes - 1}] (num_classes={num_classes}), "
                        f"got values from {low} to {high}"
                    )

    def _mix_labels(self, labels: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
        if labels.ndim == 1:
            num_classes = self.num_classes
            assert num_classes is not None
            labels = torch.nn.functional.one_hot(labels, num_classes)
        if not labels.is_floating_point():
            labels = labels.float()
        lam = rows_view(lam, labels).to(labels.dtype)
        return labels.roll(1, 0) * (1.0 - lam) + labels * lam

    def _check_images(self, images: torch.Tensor, batch_size: int, video: bool) -> None:
        expected = 5 if video else 4
        if images.ndim != expected:
            raise ValueError(
                f"{self._owner()}: expected a batch with {expected} dimensions, got {images.ndim} dimensions"
            )
        if images.shape[0] != batch_size:
            raise ValueError(
                f"{self._owner()}: the batch holds {images.shape[0]} images but {batch_size} labels"
            )

    def _owner(self) -> str:
        return "MixUp"

    # ---- what subclasses implement ---------------------------------------------------------------------------

    def _mix_images(self, images: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError("_mix_images")

    # ---- the Transform contract --------------------------------------------------------------------------------

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._mix_images(inpt, params)

    def forward(
        self,
        inpt: Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]],
        labels: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """``(images, labels)`` mixed. In Python ``inpt`` is any sample (``t(images, labels)`` packs the two into a
        tuple, as torchvision's); scripted, the module takes a plain batch and its labels as two arguments or as one
        ``(images, labels)`` tuple, as torchvision's calls do, and returns the mixed pair (``t.mix(images, labels)``).
        The ``Union`` is what lets the script compiler accept both calls on the one ``forward``."""
        if torch.jit.is_scripting():
            if isinstance(inpt, torch.Tensor):
                if labels is None:
                    raise ValueError(
                        self._owner() + ": a scripted " + self._owner() + " is called with (images, labels) and "
                        "returns both; it got no labels"
                    )
                return self.mix(inpt, labels)
            if labels is not None:
                raise ValueError(
                    self._owner() + ": a scripted " + self._owner() + " takes (images, labels) as one tuple or as "
                    "two arguments, not a tuple and labels"
                )
            return self.mix(inpt[0], inpt[1])
        return self._mix_sample(inpt if labels is None else (inpt, labels))

    @torch.jit.export
    def mix(self, images: torch.Tensor, labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """Mix a plain batch ``[B, C, H, W]`` and its labels (one draw for the batch, as torchvision)."""
        self._check_labels(labels)
        self._check_images(images, labels.shape[0], images.ndim == 5)
        params = self._draw([], images.shape[-2], images.shape[-1], images.device)
        return self._mix_images(images, params), self._mix_labels(labels, params["lam"])

    @torch.jit.unused
    def _mix_sample(self, sample: Any) -> Any:
        owner = self._owner()
        flat_inputs, spec = pytree.tree_flatten(sample, is_leaf=sample_leaf)
        for inpt in flat_inputs:
            if isinstance(inpt, PIL.Image.Image) or (
                isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) in (BoundingBoxes, Mask, KeyPoints)
            ):
                raise ValueError(f"{owner}: PIL images, bounding boxes, keypoints and masks are not supported")
        labels = self._labels_getter(sample)
        if not isinstance(labels, torch.Tensor):
            raise ValueError(f"{owner}: the labels must be a tensor, got {type(labels).__name__}")
        self._check_labels(labels)
        needs = [
            needs and inpt is not labels for inpt, needs in zip(flat_inputs, self._needs_transform_list(flat_inputs))
        ]
        images = [inpt for inpt, n in zip(flat_inputs, needs) if n]
        for inpt in images:
            self._check_images(inpt, labels.shape[0], kind_of(type(inpt)) is Video)
        if not images:
            raise ValueError(f"{owner}: no images or videos in the sample")
        height, width = images[0].shape[-2], images[0].shape[-1]
        if any(is_batch_leaf(inpt) for inpt in images):
            params = self._draw([labels.shape[0]], height, width, labels.device)
        else:
            params = self._draw([], height, width, labels.device)
        outputs = []
        for inpt, n in zip(flat_inputs, needs):
            if inpt is labels:
                outputs.append(self._mix_labels(labels, params["lam"]))
            elif n:
                mixed = self._mix_images(unwrap(inpt) if not is_pure_tensor(inpt) else inpt, params)
                outputs.append(mixed if is_pure_tensor(inpt) else wrap(mixed, like=inpt))
            else:
                outputs.append(inpt)
        return pytree.tree_unflatten(outputs, spec)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}, num_classes={self.num_classes}"


@torch.jit.unused
def _no_labels(inputs: Any) -> None:
    return None


class MixUp(_MixTransform):
    """MixUp (Zhang et al.): ``lam * x + (1 - lam) * x.roll(1, 0)`` for images and labels, ``lam`` ~
    Beta(alpha, alpha). See the module docstring for inputs, batches and the compilers.

    Called as torchvision's: ``images, labels = mixup(images, labels)`` (``[B, C, H, W]`` and ``[B]`` class
    indices, or ``[B, num_classes]``). Scripted, the same call: ``scripted = torch.jit.script(mixup)``, then
    ``images, labels = scripted(images, labels)`` on plain tensors; it saves and loads with ``torch.jit.save``."""

    def _owner(self) -> str:
        return "MixUp"

    def _draw(
        self, shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"lam": self._lambdas(shape, device)}

    def _mix_images(self, images: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not images.is_floating_point():
            lam = rows_view(params["lam"], images).to(torch.float32)
            return (images.roll(1, 0) * (1.0 - lam) + images * lam).to(images.dtype)
        if is_tracing() or images.requires_grad:
            # Traced, the compiler fuses the roll into the blend's one loop; autograd does not take out= writes.
            return torch.lerp(images.roll(1, 0), images, rows_view(params["lam"], images).to(images.dtype))
        return _blend_with_previous(images, params["lam"])


def _blend_with_previous(images: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """``lam * images + (1 - lam) * images.roll(1, 0)`` (float images) in one pass that reads the two images and writes
    the output: a ``lerp`` from each row's predecessor into a preallocated output, no rolled copy and no
    temporaries (each fresh full-size buffer costs its page faults as well as its pass). A one-sample lambda on the CPU
    is passed as a number: ``lerp`` with a scalar weight runs the vectorised loop."""
    out = torch.empty_like(images)
    if images.shape[0] == 0:
        return out
    if lam.ndim == 0 and images.device.type == "cpu":
        weight = float(lam.item())
        torch.lerp(images[:-1], images[1:], weight, out=out[1:])
        torch.lerp(images[-1:], images[:1], weight, out=out[:1])
        return out
    weights = rows_view(lam, images).to(images.dtype)
    if weights.ndim == 0:
        torch.lerp(images[:-1], images[1:], weights, out=out[1:])
        torch.lerp(images[-1:], images[:1], weights, out=out[:1])
    else:
        torch.lerp(images[:-1], images[1:], weights[1:], out=out[1:])
        torch.lerp(images[-1:], images[:1], weights[:1], out=out[:1])
    return out


class CutMix(_MixTransform):
    """CutMix (Yun et al.): a box of area ``(1 - lam)`` (clipped to the image) is pasted from ``x.roll(1, 0)``;
    the labels mix with the area actually pasted. See the module docstring for inputs, batches and the compilers.

    Called as torchvision's: ``images, labels = cutmix(images, labels)``. Scripted, the same call:
    ``scripted = torch.jit.script(cutmix)``, then ``images, labels = scripted(images, labels)`` on plain tensors;
    it saves and loads with ``torch.jit.save``."""

    def _owner(self) -> str:
        return "CutMix"

    def _draw(
        self, shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        lam = self._lambdas(shape, device)
        centre = uniform(shape + [2], self._rng(), device, torch.float64)
        r_x = (centre[..., 0] * width).floor().clamp(max=width - 1)
        r_y = (centre[..., 1] * height).floor().clamp(max=height - 1)
        r = 0.5 * torch.sqrt(1.0 - lam)
        half_w, half_h = (r * width).floor(), (r * height).floor()
        x1, y1 = (r_x - half_w).clamp(min=0), (r_y - half_h).clamp(min=0)
        x2, y2 = (r_x + half_w).clamp(max=width), (r_y + half_h).clamp(max=height)
        box = torch.stack([y1, x1, y2 - y1, x2 - x1], dim=-1).to(torch.int64)  # i, j, h, w
        lam_adjusted = 1.0 - (x2 - x1) * (y2 - y1) / (width * height)
        return {"lam": lam_adjusted, "box": box}

    def _mix_images(self, images: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        box = params["box"]
        if box.ndim == 1 and not is_tracing():
            # One box for the batch (eager, scripted): a copy of the batch and the box pasted from each row's
            # predecessor, where the mask and select would read both images over the whole canvas.
            i, j, h, w = int(box[0]), int(box[1]), int(box[2]), int(box[3])
            out = images.clone()
            if images.shape[0] > 0 and h > 0 and w > 0:
                region = out.narrow(-2, i, h).narrow(-1, j, w)
                source = images.narrow(-2, i, h).narrow(-1, j, w)
                region[1:].copy_(source[:-1])
                region[:1].copy_(source[-1:])
            return out
        mask = box_mask(box, images.shape[-2], images.shape[-1], images.ndim)
        return torch.where(mask, images.roll(1, 0), images)


