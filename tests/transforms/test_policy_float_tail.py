"""The native float tail in Compose (``_fusion.run_float_tail``, ``jitvision_native::to_float_u8``) after an
augmentation policy, a crop or a flip, or at its start: the values of ToDtype and Normalize, one graph under compile."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import _native, tv_tensors
from tests.helpers import assert_matches_oracle, compile_counted

pytestmark = pytest.mark.skipif(not _native.AVAILABLE, reason="the native library did not load")

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def _shape(channels):
    lead = [] if torch.rand(()) < 0.5 else [int(torch.randint(1, 3, ()))]
    return [*lead, channels, int(torch.randint(1, 40, ())), int(torch.randint(1, 40, ()))]


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("normalize", [False, True])
def test_to_float_u8_matches_torchvision(channels, normalize):
    for _ in range(5):
        image = torch.randint(0, 256, _shape(channels), dtype=torch.uint8)
        mean = torch.rand(channels).tolist() if normalize else None
        std = (torch.rand(channels) + 0.05).tolist() if normalize else None
        got = torch.ops.jitvision_native.to_float_u8(image, mean, std)
        expected = tv_transforms.functional.to_dtype(image, torch.float32, scale=True)
        if normalize:
            expected = tv_transforms.functional.normalize(expected, mean, std)
        assert_matches_oracle(got, expected, float_atol=1e-5)


def test_to_float_u8_rejects_bad_input():
    with pytest.raises(ValueError, match="to_float_u8"):
        torch.ops.jitvision_native.to_float_u8(torch.zeros(3, 4, 4), None, None)
    with pytest.raises(ValueError, match="to_float_u8"):
        torch.ops.jitvision_native.to_float_u8(torch.zeros(3, 4, 4, dtype=torch.uint8), [0.5], [0.5, 0.5, 0.5])


def _pipeline(policy, seed, tail):
    steps = [
        T.RandomResizedCrop(24, antialias=True, generator=torch.Generator().manual_seed(seed)),
        T.RandomHorizontalFlip(generator=torch.Generator().manual_seed(seed + 1)),
        policy(torch.Generator().manual_seed(seed + 2)),
    ]
    return steps + tail


POLICIES = {
    "TrivialAugmentWide": lambda g: T.TrivialAugmentWide(generator=g),
    "RandAugment": lambda g: T.RandAugment(generator=g),
    "AutoAugment": lambda g: T.AutoAugment(generator=g),
    "AugMix": lambda g: T.AugMix(mixture_width=2, generator=g),
}


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("kind", ["tensor", "Image", "grayscale"])
def test_compose_with_a_policy_equals_the_steps_one_by_one(name, kind):
    seed = int(torch.randint(0, 2**30, ()))
    gray = kind == "grayscale"
    tail = [T.ToDtype(torch.float32, scale=True), T.Normalize([0.5] if gray else MEAN, [0.25] if gray else STD)]
    image = torch.randint(0, 256, (1 if kind == "grayscale" else 3, 37, 45), dtype=torch.uint8)
    sample = tv_tensors.Image(image) if kind == "Image" else image
    for k in range(4):
        composed = T.Compose(_pipeline(POLICIES[name], seed + 10 * k, tail))
        got = composed(sample)
        expected = sample
        for step in _pipeline(POLICIES[name], seed + 10 * k, tail):
            expected = step(expected)
        assert type(got) is type(sample)
        assert_matches_oracle(got.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor), float_atol=1e-5)


def test_tail_without_normalize_and_unfused_cases():
    image = torch.randint(0, 256, (3, 20, 30), dtype=torch.uint8)
    ta = T.TrivialAugmentWide(generator=torch.Generator().manual_seed(0))
    got = T.Compose([ta, T.ToDtype(torch.float32, scale=True)])(image)
    ta.generator.manual_seed(0)
    assert_matches_oracle(got, F.to_dtype(ta(image), torch.float32, scale=True), float_atol=1e-6)
    # a float image, or a ToDtype without scale, takes the transforms' own path
    ta.generator.manual_seed(0)
    got = T.Compose([ta, T.ToDtype(torch.float32)])(image)
    ta.generator.manual_seed(0)
    assert torch.equal(got, ta(image).to(torch.float32))


def test_compiled_pipeline_is_one_graph_and_random():
    pipeline = T.Compose(
        [T.RandomResizedCrop(24, antialias=True), T.RandomHorizontalFlip(), T.TrivialAugmentWide(),
         T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)]
    )
    compiled, counter = compile_counted(pipeline)
    image = torch.randint(0, 256, (3, 33, 41), dtype=torch.uint8)
    torch.manual_seed(0)
    outputs = [compiled(image) for _ in range(6)]
    assert counter.frame_count == 1
    assert all(out.dtype == torch.float32 and out.shape == (3, 24, 24) for out in outputs)
    assert len({tuple(out.flatten().tolist()) for out in outputs}) >= 2


@pytest.mark.parametrize("normalize", [False, True])
def test_tail_at_the_start_of_a_compose(normalize):
    # ToDtype(float32, scale=True) [+ Normalize] opening a Compose is the native pass too: the values of the two
    # steps (and of torchvision's), in eager and as one graph under compile.
    steps = [T.ToDtype(torch.float32, scale=True)] + ([T.Normalize(MEAN, STD)] if normalize else [])
    theirs = tv_transforms.Compose(
        [tv_transforms.ToDtype(torch.float32, scale=True)] + ([tv_transforms.Normalize(MEAN, STD)] if normalize else [])
    )
    compose = T.Compose(steps)
    compiled, counter = compile_counted(compose)
    for _ in range(3):
        image = torch.randint(0, 256, _shape(3), dtype=torch.uint8)
        expected = image
        for step in steps:
            expected = step(expected)
        got = compose(image)
        assert_matches_oracle(got, expected, float_atol=1e-5)
        assert_matches_oracle(got, theirs(image), float_atol=1e-5)
        assert_matches_oracle(compiled(image), got, float_atol=1e-6)
        wrapped = compose(tv_tensors.Image(image))
        assert type(wrapped) is tv_tensors.Image
        assert_matches_oracle(wrapped.as_subclass(torch.Tensor), got, float_atol=0)
    assert counter.frame_count >= 1


@pytest.mark.parametrize("kind", ["tensor", "Image", "BatchedImages", "forward_batch"])
def test_tail_after_a_crop_and_flip_is_one_native_pass(kind, monkeypatch):
    # A CIFAR-style pipeline (RandomCrop with padding, flip, ToDtype, Normalize) and the batch form of the DataLoader
    # recipe (flip, ToDtype, Normalize on collated uint8 crops): the tail after the uint8 steps is to_float_u8, with
    # the values of the steps one by one.
    from jitvision.transforms import _fusion

    calls = []
    op = _fusion._to_float_op()
    monkeypatch.setattr(_fusion, "_to_float_op", lambda: lambda *args: calls.append(1) or op(*args))
    steps = [T.RandomCrop(28, padding=4), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
             T.Normalize(MEAN, STD)]
    batch = kind in ("BatchedImages", "forward_batch")
    image = torch.randint(0, 256, (5, 3, 32, 32) if batch else (3, 32, 32), dtype=torch.uint8)
    wrap = {"Image": tv_tensors.Image, "BatchedImages": tv_tensors.BatchedImages}.get(kind)
    sample = wrap(image) if wrap is not None else image
    seed = int(torch.randint(0, 2**30, ()))
    torch.manual_seed(seed)
    got = T.Compose(steps).forward_batch(sample) if kind == "forward_batch" else T.Compose(steps)(sample)
    torch.manual_seed(seed)
    expected = sample
    for step in steps:
        expected = step.forward_batch(expected) if kind == "forward_batch" else step(expected)
    assert len(calls) == 1
    assert type(got) is type(sample) and got.shape == expected.shape
    assert_matches_oracle(got.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor), float_atol=1e-5)
