"""The GPU path: per-sample batches on CUDA with no host sync, compiled to Triton, CUDA graphs, generators.

These tests need a CUDA device (``make gpu-check`` runs them on one); on a machine without one they are not
collected as passing tests but skipped with that reason. Device placement of every op is also checked without a
GPU, on the ``meta`` device, by tests/fuzz/test_device.py.
"""

import functools
from typing import Any, Callable, Dict, List

import pytest
import torch

import jitvision.transforms as T
from jitvision import tv_tensors
from jitvision._bench.gpu import PIPELINES as JOBS
from jitvision._bench.gpu import pipeline

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (make gpu-check)")

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]  # jitvision._bench's ImageNet statistics


def training_pipeline() -> T.Compose:
    return pipeline(T, "rrc")


# the GPU benchmark's pipelines: RandomResizedCrop + flip [+ ColorJitter | RandAugment] + ToDtype + Normalize
PIPELINES: Dict[str, Callable[[], T.Compose]] = {job: functools.partial(pipeline, T, job) for job in JOBS}


def batch(size: int = 8, side: int = 256) -> torch.Tensor:
    generator = torch.Generator(device="cuda").manual_seed(0)
    return torch.randint(0, 256, (size, 3, side, side), dtype=torch.uint8, device="cuda", generator=generator)


def without_sync(fn: Callable[[], Any]) -> Any:
    """``fn()`` with CUDA's sync debug mode set to "error": any host sync inside raises."""
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        return fn()
    finally:
        torch.cuda.set_sync_debug_mode(0)


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("entry", ["forward_batch", "BatchedImages"])
def test_batch_on_cuda_has_no_host_sync(name: str, entry: str) -> None:
    pipe = PIPELINES[name]()
    x = batch()
    run = (lambda: pipe.forward_batch(x)) if entry == "forward_batch" else (lambda: pipe(tv_tensors.BatchedImages(x)))
    run()  # first call: lazy set-up (caches of constants) may read the host once
    out = without_sync(run)
    assert out.device.type == "cuda" and out.shape == (8, 3, 224, 224) and out.dtype == torch.float32
    # per-sample draws: no two rows cropped alike
    rows = out.flatten(1)
    assert all(not torch.equal(rows[0], rows[i]) for i in range(1, rows.shape[0]))


def test_batch_on_cuda_matches_the_cpu() -> None:
    """The devices' generators differ, so random draws are not comparable across them; the deterministic part is:
    a batch pipeline with a p=1 flip and a whole-image crop gives the CPU's values on CUDA (within one uint8 level
    of the resize, scaled by the normalisation)."""
    pipe = T.Compose(
        [
            T.RandomResizedCrop(224, scale=(1.0, 1.0), ratio=(1.0, 1.0)),
            T.RandomHorizontalFlip(p=1.0),
            T.ToDtype(torch.float32, scale=True),
            T.Normalize(MEAN, STD),
        ]
    )
    x = batch(4)
    cpu = pipe.forward_batch(x.cpu())
    gpu = pipe.forward_batch(x)
    torch.testing.assert_close(gpu.cpu(), cpu, atol=1 / 255 / 0.224 + 1e-4, rtol=0)


def _count_graphs() -> Any:
    from torch._dynamo.testing import CompileCounterWithBackend

    return CompileCounterWithBackend("inductor")


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_compiled_batch_on_cuda_is_one_graph_with_live_draws(name: str) -> None:
    import torch._inductor.compile_fx as compile_fx

    pipe = PIPELINES[name]()
    calls: List[int] = []
    original = compile_fx.compile_fx

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    compile_fx.compile_fx = counting
    try:
        torch._dynamo.reset()
        fn = T.compile(pipe, fullgraph=True)
        x = tv_tensors.BatchedImages(batch())
        first = fn(x)
        second = fn(x)
        third = fn(tv_tensors.BatchedImages(batch()))
    finally:
        compile_fx.compile_fx = original
    assert calls, "the CUDA graph did not go to inductor"
    assert first.device.type == "cuda" and first.shape == (8, 3, 224, 224)
    assert not torch.equal(first, second) and not torch.equal(second, third), "the draws were baked in"


def test_compiled_batch_on_cuda_matches_eager_for_a_seed() -> None:
    import torch._inductor.config as inductor_config

    pipe = training_pipeline()
    x = tv_tensors.BatchedImages(batch())
    torch._dynamo.reset()
    with inductor_config.patch(fallback_random=True):  # inductor's own RNG differs from eager's by design
        fn = T.compile(pipe, fullgraph=True)
        torch.manual_seed(3)
        compiled = fn(x)
    torch.manual_seed(3)
    eager = pipe(x)
    # the same draws; the resize's sums run in another order, so a uint8 value may round one level apart
    level = 1 / 255 / min(STD)
    diff = (compiled.as_subclass(torch.Tensor) - eager.as_subclass(torch.Tensor)).abs()
    assert diff.max() <= level + 1e-4 and (diff > 1e-4).double().mean() < 1e-3


def test_compiled_batch_with_cuda_graphs() -> None:
    pipe = training_pipeline()
    torch._dynamo.reset()
    fn = T.compile(pipe, mode="reduce-overhead", fullgraph=True)
    x = tv_tensors.BatchedImages(batch())
    outs = [fn(x).clone() for _ in range(4)]
    assert all(out.shape == (8, 3, 224, 224) for out in outs)
    assert not torch.equal(outs[2], outs[3]), "CUDA graph replays repeated the same draw"


def test_generator_on_the_input_device() -> None:
    x = batch()
    generator = torch.Generator(device="cuda").manual_seed(5)
    crop = T.RandomResizedCrop(224, generator=generator)
    first = crop.forward_batch(x)
    generator.manual_seed(5)
    assert torch.equal(crop.forward_batch(x), first)
    with pytest.raises(ValueError, match="generator"):
        T.RandomResizedCrop(224, generator=torch.Generator().manual_seed(0)).forward_batch(x)


def test_single_image_on_cuda_stays_there() -> None:
    pipe = PIPELINES["colorjitter"]()
    image = batch(1)[0]
    out = pipe(tv_tensors.Image(image))
    assert isinstance(out, tv_tensors.Image) and out.device.type == "cuda"
