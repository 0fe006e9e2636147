"""Fusion by protocol: a class fuses into a native prefix because it declares a native stage, never because of its
name or its parents. A subclass that changes what a transform does is run as written; one that declares the stage
again fuses (and its changes to the fused steps are not run, as documented)."""

from typing import Dict, List

import pytest
import torch

import jitvision.transforms as T
import jitvision.transforms.functional as F


class MarkedCrop(T.RandomResizedCrop):
    """Changes the crop's output: the fused path would skip the change."""

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        top, left, height, width = torch.jit.annotate(List[int], params["box"].tolist())  # TorchScript: no super()
        out = F.resized_crop(inpt, top, left, height, width, self.size, self.interpolation, self.antialias)
        return out // 2


class DeclaredCrop(MarkedCrop):
    native_stage = T.RandomResizedCrop.native_stage  # says it fuses: the native prefix replaces transform()


def _pipeline(crop: T.Transform) -> T.Compose:
    return T.Compose(
        [crop, T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True), T.Normalize([0.5] * 3, [0.25] * 3)]
    )


def _run(pipeline: T.Compose, image: torch.Tensor, seed: int) -> torch.Tensor:
    torch.manual_seed(seed)
    return pipeline(image)


@pytest.mark.parametrize("mode", ["eager", "script"])
def test_a_subclass_runs_as_written_unless_it_declares_a_stage(mode: str) -> None:
    image = torch.randint(0, 256, (3, 61, 83), dtype=torch.uint8)
    pipelines = [_pipeline(cls(24)) for cls in (T.RandomResizedCrop, MarkedCrop, DeclaredCrop)]
    if mode == "script":
        pipelines = [torch.jit.script(p) for p in pipelines]
    plain, marked, declared = (_run(p, image, seed=3) for p in pipelines)
    # the undeclared subclass halves the crop before the float steps: mean shifts by ~half the image's range
    step_by_step = _run(
        T.Compose([MarkedCrop(24), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)]), image, seed=3
    )
    torch.testing.assert_close(marked, (step_by_step - 0.5) / 0.25)
    assert not torch.allclose(marked, plain, atol=0.1)
    # the declared one fuses: the same output as the library's class, its transform() override not run
    torch.testing.assert_close(declared, plain)


def test_a_stage_depends_on_the_arguments() -> None:
    image = torch.randint(0, 256, (3, 40, 50), dtype=torch.uint8)
    # ToDtype without scaling declares no stage: the Compose runs it step by step (values stay 0..255)
    out = T.Compose([T.Resize(20), T.ToDtype(torch.float32)])(image)
    assert out.max() > 1.5
    scaled = T.Compose([T.Resize(20), T.ToDtype(torch.float32, scale=True)])(image)
    torch.testing.assert_close(scaled * 255, out, atol=1e-3, rtol=0)


class BrighterFlip(T.RandomHorizontalFlip):
    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.horizontal_flip(inpt) + 1


class HalvedPad(T.Pad):
    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.pad(inpt, [1, 2]) // 2


@pytest.mark.parametrize("mode", ["eager", "script"])
def test_a_subclass_that_changes_the_effect_is_not_shortcut_by_the_eager_hook(mode: str) -> None:
    # The library's flip and pad answer one plain tensor through a native eager hook; a subclass that changes what
    # they do must not be answered by that hook.
    image = torch.randint(0, 200, (3, 9, 11), dtype=torch.uint8)
    flip, pad = BrighterFlip(p=1.0), HalvedPad([1, 2])
    if mode == "script":
        flip, pad = torch.jit.script(flip), torch.jit.script(pad)
    torch.testing.assert_close(flip(image), image.flip(-1) + 1)
    torch.testing.assert_close(pad(image), torch.nn.functional.pad(image, [1, 1, 2, 2]) // 2)
