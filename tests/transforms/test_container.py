"""Compose: torchvision's semantics, and it scripts, compiles and exports when its transforms do."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    assert_random_under_compile,
    make_detection_sample,
    make_image,
    make_keypoints,
    script_roundtrip,
    to_torchvision,
)

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def _pipeline(module, p=1.0):
    return module.Compose(
        [module.ToDtype(torch.float32, scale=True), module.RandomHorizontalFlip(p=p), module.Normalize(MEAN, STD)]
    )


def _samples():
    yield "uint8", make_image()
    yield "Image", tv_tensors.Image(make_image())
    yield "detection", make_detection_sample()
    yield "Image+KeyPoints", (tv_tensors.Image(make_image()), make_keypoints())


@pytest.mark.parametrize("name, sample", list(_samples()))
def test_matches_torchvision(name, sample):
    assert_matches_oracle(_pipeline(T)(sample), _pipeline(tv_transforms)(to_torchvision(sample)), what=name)


def test_several_inputs_are_unpacked_into_each_step_as_torchvision():
    image, boxes = tv_tensors.Image(make_image()), make_detection_sample()["boxes"]
    expected = _pipeline(tv_transforms)(*to_torchvision((image, boxes)))
    assert_matches_oracle(_pipeline(T)(image, boxes), expected)

    def swap(a, b):  # a plain function step gets the inputs unpacked, as in torchvision
        return b, a

    ours = T.Compose([T.ToDtype(torch.float64, scale=True), swap])(image, boxes)
    theirs = tv_transforms.Compose([tv_transforms.ToDtype(torch.float64, scale=True), swap])(
        *to_torchvision((image, boxes))
    )
    assert_matches_oracle(ours, theirs)


def test_plain_callables_and_torchvision_transforms_are_steps():
    image = make_image()
    ours = T.Compose([lambda x: x.flip(-1), tv_transforms.ToDtype(torch.float32, scale=True)])
    theirs = tv_transforms.Compose([lambda x: x.flip(-1), tv_transforms.ToDtype(torch.float32, scale=True)])
    assert_matches_oracle(ours(image), theirs(image))


def test_scripts_and_round_trips(tmp_path):
    compose = _pipeline(T)
    loaded = script_roundtrip(compose, tmp_path)
    image = make_image()
    torch.testing.assert_close(loaded(image), compose(image))
    random = script_roundtrip(_pipeline(T, p=0.5), tmp_path)
    assert len({random(image)[0, 0, 0].item() for _ in range(30)}) == 2


def test_scripting_a_lambda_inside_names_the_lambda():
    def my_fancy_function(x):
        return x

    compose = T.Compose([T.ToDtype(torch.float32), T.Lambda(my_fancy_function)])
    with pytest.raises(TypeError, match=r"Lambda\(.*my_fancy_function\)"):
        torch.jit.script(compose)
    with pytest.raises(TypeError, match=r"step 1 \(.*my_fancy_function\)"):
        torch.jit.script(T.Compose([T.Identity(), my_fancy_function]))


@pytest.mark.parametrize("name, sample", list(_samples()))
def test_deterministic_compose_compiles_to_one_graph(name, sample):
    compose = _pipeline(T)
    out = assert_one_graph(compose, sample)
    assert_matches_oracle(out, compose(sample), what=name)


def test_random_compose_compiles_once_and_stays_random():
    compose = _pipeline(T, p=0.5)
    assert_random_under_compile(compose, make_image())
    assert_random_under_compile(compose, make_detection_sample())


def test_exports_with_dynamic_height_and_width():
    compose = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])
    height, width = torch.export.Dim("height", min=2, max=512), torch.export.Dim("width", min=2, max=512)
    program = torch.export.export(compose, (make_image(20, 30),), dynamic_shapes=({1: height, 2: width},))
    for size in [(20, 30), (41, 13)]:
        image = make_image(*size)
        torch.testing.assert_close(program.module()(image), compose(image))


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="Compose"):
        T.Compose([])
    with pytest.raises(TypeError, match="Compose"):
        T.Compose(T.Identity())
    with pytest.raises(TypeError, match="Compose"):
        T.Compose([T.Identity(), 3])
