"""A tuple (or list of ints) ``fill`` through scripted kernels, functionals and classes, as torchvision's scripted
kernels take it; eager calls keep taking numbers."""

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms as T
import jitvision.transforms.functional as F

IMAGE = torch.rand(3, 24, 24, generator=torch.Generator().manual_seed(0))
DISPLACEMENT = torch.rand(1, 24, 24, 2, generator=torch.Generator().manual_seed(1)) * 0.2 - 0.1
START = [[0, 0], [23, 0], [23, 23], [0, 23]]
END = [[2, 1], [21, 0], [23, 22], [1, 20]]

CALLS = {
    "affine_image": lambda f, fill: f(IMAGE, 20.0, [1.0, -2.0], 0.9, [5.0, 0.0], fill=fill),
    "affine": lambda f, fill: f(IMAGE, 20.0, [1.0, -2.0], 0.9, [5.0, 0.0], fill=fill),
    "affine_video": lambda f, fill: f(IMAGE.unsqueeze(0), 20.0, [1.0, -2.0], 0.9, [5.0, 0.0], fill=fill),
    "rotate_image": lambda f, fill: f(IMAGE, 30.0, fill=fill),
    "rotate": lambda f, fill: f(IMAGE, 30.0, fill=fill),
    "rotate_video": lambda f, fill: f(IMAGE.unsqueeze(0), 30.0, fill=fill),
    "perspective_image": lambda f, fill: f(IMAGE, START, END, fill=fill),
    "perspective": lambda f, fill: f(IMAGE, START, END, fill=fill),
    "perspective_video": lambda f, fill: f(IMAGE.unsqueeze(0), START, END, fill=fill),
    "elastic_image": lambda f, fill: f(IMAGE, DISPLACEMENT, fill=fill),
    "elastic": lambda f, fill: f(IMAGE, DISPLACEMENT, fill=fill),
    "elastic_video": lambda f, fill: f(IMAGE.unsqueeze(0), DISPLACEMENT, fill=fill),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("fill", [(0.5, 0.25, 1.0), (1, 0, 1), [0.5, 0.25, 1.0], [1, 0, 1], (0.5,), None])
def test_scripted_warps_take_tuple_and_int_list_fills_as_torchvision(name, fill):
    call = CALLS[name]
    ours = call(torch.jit.script(getattr(F, name)), fill)
    theirs = call(torch.jit.script(getattr(tv_functional, name)), fill)
    torch.testing.assert_close(ours, theirs, atol=1e-5, rtol=0)
    torch.testing.assert_close(ours, call(getattr(F, name), fill))


@pytest.mark.parametrize("name", ["affine_mask", "rotate_mask", "perspective_mask", "elastic_mask"])
def test_scripted_mask_kernels_take_a_tuple_fill(name):
    mask = (IMAGE[0] > 0.5).to(torch.uint8)
    args = {
        "affine_mask": (20.0, [1.0, -2.0], 0.9, [5.0, 0.0]),
        "rotate_mask": (30.0,),
        "perspective_mask": (START, END),
        "elastic_mask": (DISPLACEMENT,),
    }[name]
    ours = torch.jit.script(getattr(F, name))(mask, *args, fill=(3,))
    torch.testing.assert_close(ours, getattr(tv_functional, name)(mask, *args, fill=(3,)))


@pytest.mark.parametrize("name", ["affine", "rotate", "perspective", "elastic"])
def test_eager_warps_still_take_a_number(name):
    torch.testing.assert_close(CALLS[name](getattr(F, name), 0.5), CALLS[name](getattr(F, name), [0.5]))


@pytest.mark.parametrize(
    "make",
    [
        lambda fill: T.RandomRotation(30, fill=fill),
        lambda fill: T.RandomAffine(30, translate=(0.1, 0.1), fill=fill),
        lambda fill: T.RandomPerspective(p=1.0, fill=fill),
        lambda fill: T.ElasticTransform(alpha=20.0, sigma=2.0, fill=fill),
        lambda fill: T.Pad(2, fill=fill),
        lambda fill: T.RandomZoomOut(fill=fill, p=1.0),
        lambda fill: T.RandomCrop(28, pad_if_needed=True, fill=fill),
        lambda fill: T.RandAugment(fill=fill),
    ],
)
@pytest.mark.parametrize("fill", [(0.5, 0.25, 1.0), (1, 0, 1), 0.5])
def test_scripted_classes_take_tuple_fills(make, fill):
    transform = make(fill)
    scripted = torch.jit.script(transform)
    torch.manual_seed(0)
    ours = scripted(IMAGE)
    torch.manual_seed(0)
    torch.testing.assert_close(ours, transform(IMAGE))
