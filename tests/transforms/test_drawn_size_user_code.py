"""A size drawn by RandomResize flowing into user code under torch.compile(fullgraph=True): the shape of
torchvision's segmentation training recipe (RandomResize, flip, a user pad-if-smaller step that reads the size with
query_size, RandomCrop, ToDtype, Normalize, ToPureTensor), with tensor and tv_tensor images (docs/compile.md)."""

import pytest
import torch

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import compile_counted, make_image

CROP = 32


class PadIfSmaller(T.Transform):
    """The recipe's step: pad right and bottom up to ``size``, 255 in masks, 0 elsewhere. ``early_return`` keeps the
    recipe's ``needs_padding = any(padding)`` branch, a Python branch on the drawn size (see docs/compile.md)."""

    def __init__(self, size: int, early_return: bool) -> None:
        super().__init__()
        self.size = size
        self.early_return = early_return

    def make_params(self, flat_inputs):
        height, width = T.query_size(flat_inputs)
        padding = [0, 0, max(self.size - width, 0), max(self.size - height, 0)]
        return {"padding": padding, "needs_padding": any(padding) if self.early_return else True}

    def transform(self, inpt, params):
        if not params["needs_padding"]:
            return inpt
        fill = 255 if isinstance(inpt, tv_tensors.Mask) else 0
        return F.pad(inpt, padding=params["padding"], fill=fill)


def _preset(backend: str, early_return: bool) -> T.Compose:
    image_type = tv_tensors.Image if backend == "tv_tensor" else torch.Tensor
    return T.Compose(
        [
            T.RandomResize(CROP // 2, CROP * 2),
            T.RandomHorizontalFlip(0.5),
            PadIfSmaller(CROP, early_return),
            T.RandomCrop(CROP),
            T.ToDtype({image_type: torch.float32, tv_tensors.Mask: torch.int64, "others": None}, scale=True),
            T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
            T.ToPureTensor(),
        ]
    )


def _sample(backend: str):
    image = make_image(40, 48)
    generator = torch.Generator().manual_seed(0)
    mask = tv_tensors.Mask(torch.randint(0, 21, (40, 48), dtype=torch.uint8, generator=generator))
    return (tv_tensors.Image(image) if backend == "tv_tensor" else image), mask


@pytest.mark.parametrize("backend", ["tensor", "tv_tensor"])
def test_drawn_size_flows_into_a_user_pad_step(backend):
    # Padding by max(size - h, 0) on every call (pad by 0 is a copy): one graph, no recompiles, and sizes drawn
    # on both sides of the crop size (some calls pad the mask with 255, some do not).
    pipe = _preset(backend, early_return=False)
    image, mask = _sample(backend)
    compiled, counter = compile_counted(pipe)
    torch.manual_seed(0)
    padded_calls = 0
    outputs = []
    for _ in range(12):
        out_image, out_mask = compiled(image, mask)
        assert out_image.shape == (3, CROP, CROP) and out_image.dtype == torch.float32
        assert out_mask.shape == (CROP, CROP) and out_mask.dtype == torch.int64
        padded_calls += bool((out_mask == 255).any())
        outputs.append(out_image)
    assert counter.frame_count == 1
    assert 0 < padded_calls < 12
    assert any(not torch.equal(outputs[0], o) for o in outputs[1:])
    torch.manual_seed(0)
    eager_image, eager_mask = pipe(image, mask)
    assert eager_image.shape == (3, CROP, CROP) and eager_mask.shape == (CROP, CROP)


def test_a_python_branch_on_the_drawn_size_is_refused_under_fullgraph():
    # The recipe's own early return branches in Python on a size drawn inside the graph: no guard can decide it
    # (docs/compile.md says why, and the one-line change above).
    image, mask = _sample("tensor")
    compiled = torch.compile(_preset("tensor", early_return=True), fullgraph=True, backend="eager")
    with pytest.raises(Exception, match="data-dependent"):
        compiled(image, mask)
