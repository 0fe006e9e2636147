"""The Transform base and the kernel registry: which leaves are transformed, nesting, custom kernels and
custom transforms, generators."""

from typing import Any, Dict, List

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, assert_one_graph, make_detection_sample, make_image, to_torchvision


def test_nested_sample_structure_and_passthrough_match_torchvision():
    sample = {
        "pair": (tv_tensors.Image(make_image()), [make_image(), "a string", 3]),
        "detection": make_detection_sample(),
        "meta": {"id": 7, "path": "x.jpg"},
    }
    assert_matches_oracle(
        T.RandomHorizontalFlip(p=1.0)(sample), tv_transforms.RandomHorizontalFlip(p=1.0)(to_torchvision(sample))
    )


def test_first_pure_tensor_is_the_image_when_there_is_no_image():
    image, label_map = make_image(), make_image()
    out_image, out_other = T.RandomHorizontalFlip(p=1.0)(image, label_map)
    assert torch.equal(out_image, image.flip(-1))
    assert out_other is label_map


def test_pure_tensors_pass_through_next_to_an_image():
    image, extra = tv_tensors.Image(make_image()), make_image()
    out_image, out_extra = T.RandomVerticalFlip(p=1.0)(image, extra)
    assert torch.equal(out_image.as_subclass(torch.Tensor), image.as_subclass(torch.Tensor).flip(-2))
    assert out_extra is extra


class Halve(tv_tensors.TVTensor):
    """A user's own tv_tensor type."""


def test_register_kernel_for_a_user_type_is_used_by_functionals_and_transforms():
    # torchvision's contract: the kernel gets the tv_tensor itself, and its result is returned as it is
    seen = []

    @F.register_kernel(F.horizontal_flip, Halve)
    def _flip_halve(inpt: torch.Tensor) -> torch.Tensor:
        seen.append(type(inpt))
        return tv_tensors.wrap(inpt.as_subclass(torch.Tensor).flip(-1) / 2, like=inpt)

    mine = torch.arange(4.0).view(1, 4).as_subclass(Halve)
    out = F.horizontal_flip(mine)
    assert type(out) is Halve and out.tolist() == [[1.5, 1.0, 0.5, 0.0]] and seen == [Halve]
    _, transformed = T.RandomHorizontalFlip(p=1.0)(tv_tensors.Image(make_image()), mine)
    assert type(transformed) is Halve and transformed.tolist() == [[1.5, 1.0, 0.5, 0.0]]

    @F.register_kernel("vertical_flip", Halve)  # a functional given by name, as torchvision allows
    def _vflip_halve(inpt: torch.Tensor) -> Any:
        return "mine"

    assert F.vertical_flip(mine) == "mine"


def test_user_type_without_a_kernel_passes_through_transforms_and_is_rejected_by_functionals():
    class Unregistered(tv_tensors.TVTensor):
        pass

    mine = torch.zeros(2, 2).as_subclass(Unregistered)
    _, passed = T.RandomHorizontalFlip(p=1.0)(tv_tensors.Image(make_image()), mine)
    assert passed is mine
    with pytest.raises(TypeError, match="vertical_flip"):
        F.vertical_flip(mine)


class Twice(tv_tensors.TVTensor):
    """Another user type, registered once in the test below."""


def test_register_kernel_rejects_what_torchvision_rejects():
    import torchvision.tv_tensors as tvt

    image = tv_tensors.Image(make_image())
    bad = ["Image", torch.Tensor, object, tv_tensors.Image, tv_tensors.Mask, tv_tensors.BoundingBoxes, tvt.Image]
    for cls in bad:
        with pytest.raises(ValueError, match="register_kernel"):
            F.register_kernel(F.horizontal_flip, cls)
    assert torch.equal(F.horizontal_flip(image).as_subclass(torch.Tensor), image.as_subclass(torch.Tensor).flip(-1))
    with pytest.raises(ValueError, match="register_kernel: Could not find functional with name"):
        F.register_kernel("no_such_functional", Twice)
    with pytest.raises(ValueError, match="register_kernel"):
        F.register_kernel(lambda x: x, Twice)
    F.register_kernel(F.resize, Twice)(lambda inpt, *args, **kwargs: inpt)
    with pytest.raises(ValueError, match="already has a kernel"):
        F.register_kernel(F.resize, Twice)


class AddNoise(T.Transform):
    """A user transform written against torchvision's hooks: make_params + transform."""

    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        return {"noise": torch.randn(())}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if isinstance(inpt, tv_tensors.BoundingBoxes):
            return inpt
        return inpt + params["noise"]


def test_a_user_transform_shares_params_across_the_sample_and_compiles():
    image = make_image(dtype=torch.float32)
    first, second = AddNoise()(tv_tensors.Image(image), tv_tensors.Video(image[None]))
    noise = first - image
    # one value everywhere, up to the float32 rounding of (image + n) - image
    assert torch.allclose(noise, noise.flatten()[0].expand_as(noise), rtol=0, atol=1e-6) and noise.abs().sum() > 0
    torch.testing.assert_close(second[0] - image, noise)  # one draw for the whole sample
    out = assert_one_graph(AddNoise(), {"image": tv_tensors.Image(image), "label": 3})
    # as in torchvision, arithmetic on a tv_tensor returns a plain tensor
    assert out["label"] == 3 and type(out["image"]) is torch.Tensor


def test_generator_makes_draws_reproducible_and_is_refused_under_compile():
    image = make_image()
    draws = [
        [T.RandomCrop(8, generator=torch.Generator().manual_seed(3))(image) for _ in range(1)][0] for _ in range(2)
    ]
    assert torch.equal(draws[0], draws[1])
    with pytest.raises(TypeError, match="RandomCrop: generator"):
        T.RandomCrop(8, generator=3)
    compiled = torch.compile(T.RandomHorizontalFlip(generator=torch.Generator()), backend="eager", fullgraph=True)
    with pytest.raises(Exception, match="torch.Generator cannot be used under torch.compile"):
        compiled(image)


def test_calling_without_inputs_is_a_type_error():
    with pytest.raises(TypeError, match="RandomHorizontalFlip"):
        T.RandomHorizontalFlip()()


# ---- generator= in DataLoader workers --------------------------------------------------------------------------------


class _CropDataset(torch.utils.data.Dataset):
    """One image, cropped at random by a transform with its own generator: the output says which crop was drawn."""

    def __init__(self, transform: T.Transform) -> None:
        self.transform = transform
        self.image = torch.arange(64 * 64, dtype=torch.float32).view(1, 64, 64)

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        return self.transform(self.image)


def _epochs(loader_seed: int, epochs: int = 2) -> List[List[torch.Tensor]]:
    transform = T.RandomResizedCrop(8, generator=torch.Generator().manual_seed(0))
    loader = torch.utils.data.DataLoader(
        _CropDataset(transform),
        batch_size=None,
        num_workers=2,
        multiprocessing_context="fork",
        generator=torch.Generator().manual_seed(loader_seed),
    )
    return [list(loader) for _ in range(epochs)]


def test_a_generator_gives_each_dataloader_worker_and_epoch_its_own_reproducible_stream():
    first, again, other = _epochs(1), _epochs(1), _epochs(2)
    for epoch in first:
        # samples alternate between the two workers: worker 0's k-th is epoch[2k], worker 1's is epoch[2k + 1]
        assert not any(torch.equal(epoch[2 * k], epoch[2 * k + 1]) for k in range(4)), "workers repeat each other"
    assert not any(torch.equal(a, b) for a, b in zip(first[0], first[1])), "epoch 2 repeats epoch 1"
    assert all(torch.equal(a, b) for a, b in zip(sum(first, []), sum(again, []))), "not reproducible"
    assert not all(torch.equal(a, b) for a, b in zip(first[0], other[0])), "the DataLoader's seed is ignored"


def test_a_generator_is_used_as_it_is_outside_workers():
    generator = torch.Generator().manual_seed(3)
    transform = T.RandomResizedCrop(8, generator=generator)
    assert transform._rng() is generator
