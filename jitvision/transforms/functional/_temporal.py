"""uniform_temporal_subsample: ``num_samples`` frames evenly spaced over a video (torchvision's indices:
``linspace(0, T - 1, num_samples)`` truncated to integers)."""

import torch

from ...tv_tensors import Video
from ._dispatch import get_kernel, is_pure_tensor, register_kernel


def uniform_temporal_subsample_video(video: torch.Tensor, num_samples: int) -> torch.Tensor:
    if video.ndim < 4:
        raise ValueError(
            f"uniform_temporal_subsample: expected a video [..., T, C, H, W], got {video.ndim} dimensions"
        )
    if num_samples <= 0:
        raise ValueError(f"uniform_temporal_subsample: num_samples must be positive, got {num_samples}")
    t_max = video.shape[-4] - 1
    indices = torch.linspace(0, t_max, num_samples, device=video.device).long()
    return torch.index_select(video, -4, indices)


def uniform_temporal_subsample(inpt: torch.Tensor, num_samples: int) -> torch.Tensor:
    """Keep ``num_samples`` evenly spaced frames of a video. Plain tensors are treated as videos."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return uniform_temporal_subsample_video(inpt, num_samples)
    return get_kernel(uniform_temporal_subsample, type(inpt))(inpt, num_samples)


register_kernel(uniform_temporal_subsample, Video)(uniform_temporal_subsample_video)
