"""UniformTemporalSubsample and LinearTransformation."""

from typing import Any, Dict, List

import PIL.Image
import torch

from ..tv_tensors import Image, Video, wrap
from . import functional as F
from ._misc import _Deterministic
from .functional._dispatch import is_pure_tensor, unwrap


class UniformTemporalSubsample(_Deterministic):
    """Keep ``num_samples`` evenly spaced frames of videos (the pure tensor standing for the video included)."""

    _functional = staticmethod(F.uniform_temporal_subsample)
    _transformed_types = (torch.Tensor,)  # as torchvision's class: a PIL image (never a video) passes through

    def __init__(self, num_samples: int) -> None:
        super().__init__()
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"UniformTemporalSubsample: num_samples must be a positive int, got {num_samples!r}")
        self.num_samples = num_samples

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.uniform_temporal_subsample(inpt, self.num_samples)

    def extra_repr(self) -> str:
        return f"num_samples={self.num_samples}"


class LinearTransformation(_Deterministic):
    """``(x.flatten() - mean_vector) @ transformation_matrix`` reshaped back, for images and videos ``[..., C, H,
    W]`` with ``C * H * W = D`` (a whitening computed offline). PIL images are rejected; masks, boxes and keypoints
    pass through."""

    _transformed_types = (torch.Tensor,)  # a PIL image is refused by check_inputs
    _transformed_kinds = (Image, Video)

    def __init__(self, transformation_matrix: torch.Tensor, mean_vector: torch.Tensor) -> None:
        super().__init__()
        owner = type(self).__name__
        if not isinstance(transformation_matrix, torch.Tensor) or not isinstance(mean_vector, torch.Tensor):
            raise TypeError(f"{owner}: transformation_matrix and mean_vector must be tensors")
        if transformation_matrix.ndim != 2 or transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(
                f"{owner}: transformation_matrix should be square, got shape {tuple(transformation_matrix.shape)}"
            )
        if mean_vector.ndim != 1 or mean_vector.shape[0] != transformation_matrix.shape[0]:
            raise ValueError(
                f"{owner}: mean_vector should have the same length {transformation_matrix.shape[0]} (one per row of "
                f"the matrix), got shape {tuple(mean_vector.shape)}"
            )
        if transformation_matrix.device != mean_vector.device:
            raise ValueError(
                f"{owner}: Input tensors should be on the same device, got {transformation_matrix.device} and "
                f"{mean_vector.device}"
            )
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError(
                f"{owner}: Input tensors should have the same dtype, got {transformation_matrix.dtype} and "
                f"{mean_vector.dtype}"
            )
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        if any(isinstance(inpt, PIL.Image.Image) for inpt in flat_inputs):
            raise TypeError("LinearTransformation does not support PIL images")

    def _linear(self, inpt: torch.Tensor) -> torch.Tensor:
        shape = inpt.shape
        if inpt.ndim < 3:
            raise ValueError(f"LinearTransformation: expected an image [..., C, H, W], got {inpt.ndim} dimensions")
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError(
                f"LinearTransformation: Input tensor and transformation matrix have incompatible shape: {shape[-3]} x "
                f"{shape[-2]} x {shape[-1]} = {n} values per "
                f"image, the matrix is {self.transformation_matrix.shape[0]} x {self.transformation_matrix.shape[0]}"
            )
        if inpt.device.type != self.mean_vector.device.type:
            raise ValueError(
                f"LinearTransformation: Input tensor should be on the same device as transformation matrix and mean "
                f"vector: the input is on {inpt.device}, the matrix on {self.mean_vector.device}"
            )
        flat = inpt.reshape(-1, n) - self.mean_vector
        return torch.mm(flat, self.transformation_matrix.to(flat.dtype)).reshape(shape)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return self._linear(inpt)
        return wrap(self._linear(unwrap(inpt)), like=inpt)
