"""``make_params`` of the random classes whose torchvision counterparts name their parameters differently: the same
keys as torchvision 0.29.1's on the same sample, and a subclass that edits a value (as one written for torchvision
would) changes the output as it does with torchvision. The compiled form of the sample path reads the same keys."""

from typing import Any, Callable, Dict

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
from torchvision import tv_tensors as tv_tv_tensors

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import make_image

HEIGHT, WIDTH = 24, 32


def _boxes(module: Any) -> Any:
    return module.BoundingBoxes(
        torch.tensor([[2.0, 3.0, 20.0, 18.0], [8.0, 6.0, 28.0, 22.0]]), format="XYXY", canvas_size=(HEIGHT, WIDTH)
    )


def _sample(module: Any, image: torch.Tensor) -> Dict[str, Any]:
    return {"image": module.Image(image), "boxes": _boxes(module)}


def _edit_resized_crop(params: Dict[str, Any]) -> None:
    params.update(top=2, left=3, height=16, width=20)


def _edit_zoom_out(params: Dict[str, Any]) -> None:
    params["padding"] = [3, 1, 5, 2]


def _edit_jitter(params: Dict[str, Any]) -> None:
    params["fn_idx"] = torch.tensor([3, 2, 1, 0])
    params.update(brightness_factor=1.3, contrast_factor=0.8, saturation_factor=1.2, hue_factor=None)


def _edit_distort(params: Dict[str, Any]) -> None:
    params.update(brightness_factor=0.8, contrast_factor=None, saturation_factor=1.4, hue_factor=None)
    params["contrast_before"] = True
    params["channel_permutation"] = torch.tensor([2, 0, 1])


def _edit_permutation(params: Dict[str, Any]) -> None:
    params["permutation"] = torch.tensor([1, 2, 0])


def _edit_perspective(params: Dict[str, Any]) -> None:
    params["coefficients"] = [1.1, 0.05, -2.0, 0.02, 0.95, 1.0, 0.001, 0.0005]


def _edit_iou_crop(params: Dict[str, Any]) -> None:
    params.update(top=1, left=2, height=14, width=20, is_within_crop_area=torch.tensor([True, False]))


# (name, constructor arguments, the edit a subclass makes)
CASES = [
    ("RandomResizedCrop", dict(size=[12, 16]), _edit_resized_crop),
    ("RandomZoomOut", dict(p=1.0, side_range=(1.0, 2.0)), _edit_zoom_out),
    ("ColorJitter", dict(brightness=0.2, contrast=0.3, saturation=0.4, hue=0.1), _edit_jitter),
    ("RandomPhotometricDistort", dict(p=1.0), _edit_distort),
    ("RandomChannelPermutation", dict(), _edit_permutation),
    ("RandomPerspective", dict(p=1.0), _edit_perspective),
    ("RandomIoUCrop", dict(sampler_options=[0.0]), _edit_iou_crop),
]
IDS = [case[0] for case in CASES]
COLOR = ("ColorJitter", "RandomPhotometricDistort", "RandomChannelPermutation")


def _edited(cls: type, edit: Callable[[Dict[str, Any]], None]) -> type:
    class Edited(cls):  # a subclass written for torchvision: it edits what make_params returns
        def make_params(self, flat_inputs):
            params = super().make_params(flat_inputs)
            if params:
                edit(params)
            return params

    return Edited


@pytest.mark.parametrize(("name", "kwargs", "edit"), CASES, ids=IDS)
def test_make_params_keys_equal_torchvision(name, kwargs, edit):
    image = make_image(HEIGHT, WIDTH)
    ours = getattr(T, name)(**kwargs).make_params(list(_sample(tv_tensors, image).values()))
    theirs = getattr(tv_transforms, name)(**kwargs).make_params(list(_sample(tv_tv_tensors, image).values()))
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        # the value types of torchvision's (a number where it has a number, None where it has None)
        assert isinstance(ours[key], type(value)) or (isinstance(value, float) and isinstance(ours[key], float))


@pytest.mark.parametrize(("name", "kwargs", "edit"), CASES, ids=IDS)
def test_subclass_edit_changes_the_output_as_in_torchvision(name, kwargs, edit):
    image = make_image(HEIGHT, WIDTH)
    ours = _edited(getattr(T, name), edit)(**kwargs)(_sample(tv_tensors, image))
    theirs = _edited(getattr(tv_transforms, name), edit)(**kwargs)(_sample(tv_tv_tensors, image))
    assert ours["image"].shape == theirs["image"].shape
    # a chain of uint8 adjustments rounds at each step: up to 2 levels apart on a few pixels
    atol = 2 if name in COLOR else 1
    torch.testing.assert_close(ours["image"].as_subclass(torch.Tensor), theirs["image"].as_subclass(torch.Tensor),
                               atol=atol, rtol=0)
    torch.testing.assert_close(ours["boxes"].as_subclass(torch.Tensor), theirs["boxes"].as_subclass(torch.Tensor),
                               atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize(("name", "kwargs", "edit"), CASES, ids=IDS)
def test_plain_make_params_then_transform_equals_the_call(name, kwargs, edit):
    # The parameters make_params returns are the ones the call uses: same seed, same output.
    image = make_image(HEIGHT, WIDTH)
    transform = getattr(T, name)(**kwargs)
    torch.manual_seed(5)
    expected = transform(_sample(tv_tensors, image))
    torch.manual_seed(5)
    sample = _sample(tv_tensors, image)
    params = transform.make_params(list(sample.values()))
    # the color classes pass boxes through without calling transform on them
    keys = ["image"] if name in COLOR else list(sample)
    out = {key: transform.transform(sample[key], params) for key in keys}
    for key in keys:
        assert torch.equal(out[key].as_subclass(torch.Tensor), expected[key].as_subclass(torch.Tensor)), key


@pytest.mark.parametrize(("name", "kwargs", "edit"), CASES, ids=IDS)
def test_compiled_sample_path_reads_the_same_keys(name, kwargs, edit):
    torch._dynamo.reset()  # every class compiles the same forward: start each case with dynamo's caches empty
    # The compiled draw is not eager's stream, so the edit makes the parameters the same in both: the compiled
    # sample path goes through make_params' torchvision keys (tensors there) and the subclass's edit holds.
    image = make_image(HEIGHT, WIDTH)
    transform = getattr(T, name)(**kwargs)
    assert torch.compile(transform, fullgraph=True)(_sample(tv_tensors, image))["image"].dtype == torch.uint8
    edited = _edited(type(transform), edit)(**kwargs)
    out = torch.compile(edited, fullgraph=True)(_sample(tv_tensors, image))
    expected = edited(_sample(tv_tensors, image))
    for key in out:
        assert type(out[key]) is type(expected[key])
        torch.testing.assert_close(out[key].as_subclass(torch.Tensor), expected[key].as_subclass(torch.Tensor),
                                   atol=1, rtol=0)


def test_color_jitter_with_nothing_configured_returns_its_input_as_torchvision():
    image = tv_tensors.Image(make_image(HEIGHT, WIDTH))
    transform = T.ColorJitter()
    for inpt in (image, image.as_subclass(torch.Tensor)):
        assert transform(inpt) is inpt
    assert torch.equal(torch.jit.script(transform)(image.as_subclass(torch.Tensor)), image.as_subclass(torch.Tensor))


def test_uniform_temporal_subsample_passes_pil_images_through_as_torchvision():
    import PIL.Image

    image = PIL.Image.new("RGB", (8, 6))
    assert T.UniformTemporalSubsample(2)(image) is image
    assert tv_transforms.UniformTemporalSubsample(2)(image) is image


def test_zoom_out_side_range_errors_and_to_grayscale_alias_as_torchvision():
    import jitvision.transforms.functional as F

    with pytest.raises(ValueError, match="RandomZoomOut: side_range should be a sequence of length 2"):
        T.RandomZoomOut(side_range=[1, 2, 3])  # a sequence of another length
    with pytest.raises(TypeError, match="RandomZoomOut: side_range should be a sequence of length 2"):
        T.RandomZoomOut(side_range=1)
    assert F.to_grayscale is F.rgb_to_grayscale


def test_resize_warns_about_pil_antialias_in_torchvision_words():
    import PIL.Image

    import jitvision.transforms.functional as F

    with pytest.warns(UserWarning, match="Anti-alias option is always applied for PIL Image input"):
        F.resize(PIL.Image.new("RGB", (10, 8)), [5], antialias=False)
