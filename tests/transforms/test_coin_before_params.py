"""A probability transform whose only draw is its coin, subclassed with a ``make_params`` of the user's (torchvision's
``make_params`` of such a class returns ``{}``): the coin is drawn first and ``make_params`` called only where it says
apply, as torchvision's ``forward`` does, so a subclass written for torchvision gives torchvision's output per seed."""

from typing import Any, Dict, List

import pytest
import torch
import torchvision.transforms.v2 as TV
from torchvision import tv_tensors as tv_tv

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors


def _subclasses(base: type, functional: Any) -> type:
    class WithParams(base):  # type: ignore[misc, valid-type]
        def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
            return {"shift": 7}  # what a torchvision subclass adds (its base returns {})

        def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
            if functional.__name__ == "invert" and "BoundingBoxes" in type(inpt).__name__:
                return inpt  # invert leaves boxes alone (torchvision's kernel refuses them)
            out = functional(inpt)
            return out + params["shift"] if isinstance(out, torch.Tensor) and out.dtype == torch.uint8 else out

    return WithParams


@pytest.mark.parametrize("name", ["RandomHorizontalFlip", "RandomVerticalFlip", "RandomInvert"])
def test_a_user_make_params_sees_the_coin_first_as_in_torchvision(name: str) -> None:
    functional = {"RandomHorizontalFlip": "horizontal_flip", "RandomVerticalFlip": "vertical_flip"}.get(name, "invert")
    ours = _subclasses(getattr(T, name), getattr(F, functional))(p=0.5)
    theirs = _subclasses(getattr(TV, name), getattr(TV.functional, functional))(p=0.5)
    image = torch.randint(0, 200, (3, 12, 17), dtype=torch.uint8)
    boxes = [[1.0, 2.0, 9.0, 10.0]]
    applied = 0
    for seed in range(12):
        torch.manual_seed(seed)
        out = ours(
            {
                "image": tv_tensors.Image(image),
                "boxes": tv_tensors.BoundingBoxes(boxes, format="XYXY", canvas_size=(12, 17)),
            }
        )
        torch.manual_seed(seed)
        ref = theirs(
            {"image": tv_tv.Image(image), "boxes": tv_tv.BoundingBoxes(boxes, format="XYXY", canvas_size=(12, 17))}
        )
        torch.testing.assert_close(out["image"].as_subclass(torch.Tensor), ref["image"].as_subclass(torch.Tensor))
        torch.testing.assert_close(out["boxes"].as_subclass(torch.Tensor), ref["boxes"].as_subclass(torch.Tensor))
        torch.manual_seed(seed)
        plain = ours(image)  # one plain tensor takes the same route
        torch.testing.assert_close(plain, ref["image"].as_subclass(torch.Tensor))
        applied += int(not torch.equal(out["image"].as_subclass(torch.Tensor), image))
    assert 0 < applied < 12  # both outcomes of the coin were seen
