"""Decoding through Pillow: the formats the native library does not decode (GIF, WebP, BMP, TIFF, ...), and JPEG or
PNG where the library was built without libjpeg or libpng (then the pixels are Pillow's codec's, not bit-identical
to torchvision.io's)."""

import io
import warnings

import numpy as np
import PIL.Image
import torch

from ._mode import ImageReadMode

# Pillow's mode for each read mode that converts.
_CONVERT = {
    ImageReadMode.GRAY: "L",
    ImageReadMode.GRAY_ALPHA: "LA",
    ImageReadMode.RGB: "RGB",
    ImageReadMode.RGB_ALPHA: "RGBA",
}
# Modes kept as they are by UNCHANGED (and their channel count); anything else becomes RGB (or RGBA where the image
# has transparency): palettes, CMYK, YCbCr, 1-bit.
_KEPT = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}


def _frame_to_tensor(frame: PIL.Image.Image, mode: ImageReadMode) -> torch.Tensor:
    if mode in _CONVERT:
        frame = frame.convert(_CONVERT[mode])
    elif frame.mode in ("I;16", "I;16B", "I;16L", "I;16N"):
        array = np.asarray(frame, dtype=np.uint16)
        return torch.from_numpy(array.copy()).unsqueeze(0)
    elif frame.mode not in _KEPT:
        transparent = frame.mode in ("PA", "RGBa", "La") or "transparency" in frame.info
        frame = frame.convert("RGBA" if transparent else "RGB")
    array = np.asarray(frame)
    if array.ndim == 2:
        array = array[:, :, None]
    return torch.from_numpy(array.copy()).permute(2, 0, 1)


def decode_with_pillow(data: torch.Tensor, mode: ImageReadMode, op: str) -> torch.Tensor:
    """``[C, H, W]`` (or ``[N, C, H, W]`` for an animation of several frames, as torchvision's GIF decoder) from
    encoded bytes; a ValueError naming ``op`` when Pillow cannot read them."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning and friends: the caller decides
            with PIL.Image.open(io.BytesIO(data.numpy().tobytes())) as image:
                frames = getattr(image, "n_frames", 1)
                if frames == 1:
                    image.load()
                    return _frame_to_tensor(image, mode)
                out = []
                for index in range(frames):
                    image.seek(index)
                    out.append(_frame_to_tensor(image.copy(), mode))
                return torch.stack(out)
    except (OSError, SyntaxError, ValueError, EOFError, PIL.Image.DecompressionBombError) as error:
        raise ValueError(f"{op}: cannot decode the image data ({type(error).__name__}: {error})") from None
