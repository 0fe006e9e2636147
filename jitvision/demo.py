"""`make demo`: a training and an inference pipeline on a real photograph with its boxes, masks and keypoints, in all
four modes.

The photograph is scikit-image's astronaut (``skimage.data``, inside the scikit-image wheel: no download) with
hand-written boxes, instance masks and keypoints (``jitvision._photos``). Both pipelines run eager, scripted,
compiled and exported; every mode is checked against eager (random pipelines with the same seed); the demo prints a
table and writes ``demo_out/demo.png`` with the sample before and after augmentation.
"""

import argparse
import logging
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import PIL.Image
import torch

from jitvision import transforms as T
from jitvision._photos import DISPLAY_MEAN, DISPLAY_STD, draw_sample, photo_sample
from jitvision.tv_tensors._batch_pytree import sample_leaf

MEAN = DISPLAY_MEAN
STD = DISPLAY_STD
PHOTO = "astronaut"


def make_sample() -> dict[str, Any]:
    """The astronaut (512x512) with its boxes, masks, labels and keypoints."""
    return photo_sample(PHOTO)


def training_pipeline() -> T.Compose:
    return T.Compose(
        [
            T.RandomResizedCrop(224, scale=(0.4, 1.0), antialias=True),
            T.RandomHorizontalFlip(),
            T.ToDtype(torch.float32, scale=True),
            T.Normalize(MEAN, STD),
        ]
    )


def inference_pipeline() -> T.Compose:
    return T.Compose([T.Resize(256), T.CenterCrop(224), T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])


def _time_us(fn: Callable[[], Any], repeats: int = 20) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e6


def _max_diff(actual: Any, expected: Any) -> float:
    leaves_a = torch.utils._pytree.tree_leaves(actual, is_leaf=sample_leaf)
    leaves_e = torch.utils._pytree.tree_leaves(expected, is_leaf=sample_leaf)
    diffs = [
        (a.as_subclass(torch.Tensor).double() - e.as_subclass(torch.Tensor).double()).abs().max().item()
        for a, e in zip(leaves_a, leaves_e, strict=True)
        if isinstance(a, torch.Tensor) and a.numel()
    ]
    return max(diffs, default=0.0)


def _seeded(fn: Callable[..., Any], *args: Any) -> Any:
    torch.manual_seed(1234)
    return fn(*args)


def run_modes(name: str, pipeline: T.Compose, sample: dict[str, Any]) -> list[tuple[str, str, bool, float, float]]:
    """Eager on the full sample; scripted and exported on the image tensor; compiled on the full sample."""
    image = sample["image"].as_subclass(torch.Tensor)
    rows = []
    eager_sample = _seeded(pipeline, sample)
    eager_image = _seeded(pipeline, image)
    rows.append((name, "eager (sample)", True, 0.0, _time_us(lambda: pipeline(sample))))

    # torch 2.14 marks torch.jit.script deprecated with a FutureWarning on every call. Scripting is one of the four
    # modes jitvision promises (C++ and mobile deployments still run TorchScript), so the demo runs it on purpose and
    # says so here rather than printing the warning twice among its results.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`torch\.jit\.script` is deprecated", category=FutureWarning)
        scripted = torch.jit.script(pipeline)
    diff = _max_diff(_seeded(scripted, image), eager_image)
    rows.append((name, "torch.jit.script", diff < 1e-4, diff, _time_us(lambda: scripted(image))))

    # fallback_random makes inductor draw with the eager RNG, so the same seed gives the same crop.
    torch._inductor.config.fallback_random = True
    compiled = torch.compile(pipeline, fullgraph=True)
    diff = _max_diff(_seeded(compiled, sample), eager_sample)
    rows.append((name, "torch.compile (sample)", diff < 1e-4, diff, _time_us(lambda: compiled(sample))))

    height, width = torch.export.Dim("height", min=256, max=2048), torch.export.Dim("width", min=256, max=2048)
    deterministic = name == "inference"
    dynamic_shapes = ({1: height, 2: width},) if deterministic else None
    program = torch.export.export(pipeline, (image,), dynamic_shapes=dynamic_shapes).module()
    diff = _max_diff(_seeded(program, image), eager_image)
    if deterministic:  # the exported program must also hold for sizes it was not traced with
        other = torch.randint(0, 256, (3, 333, 517), dtype=torch.uint8)
        diff = max(diff, _max_diff(program(other), pipeline(other)))
    mode = "torch.export" + (" (dynamic H, W)" if deterministic else "")
    rows.append((name, mode, diff < 1e-4, diff, _time_us(lambda: program(image))))
    return rows


def _denormalized(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample with a Normalize-d float image mapped back to uint8, for drawing."""
    image = sample["image"]
    if image.is_floating_point():
        pixels = image.as_subclass(torch.Tensor) * torch.tensor(STD).view(3, 1, 1) + torch.tensor(MEAN).view(3, 1, 1)
        image = T.ToDtype(torch.uint8, scale=True)(type(image)(pixels.clamp(0, 1)))
    return {**sample, "image": image}


def _panel(sample: dict[str, Any], title: str) -> PIL.Image.Image:
    return draw_sample(_denormalized(sample), title)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitvision.demo", description=__doc__)
    parser.add_argument("--out", default="demo_out", help="folder for demo.png")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    # On a machine without CUDA, inductor's C++ toolchain set-up logs "No CUDA runtime is found" at WARNING: nothing
    # is wrong (the demo compiles for the CPU), so that one logger is raised to ERROR.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    sample = make_sample()
    rows = run_modes("training", training_pipeline(), sample) + run_modes("inference", inference_pipeline(), sample)

    print(f"{'pipeline':<10} {'mode':<32} {'ok':<4} {'max |diff| vs eager':>20} {'time/call':>12}")
    for name, mode, ok, diff, micros in rows:
        print(f"{name:<10} {mode:<32} {'yes' if ok else 'NO':<4} {diff:>20.2e} {micros:>10.0f}us")

    torch.manual_seed(7)
    panels = [_panel(T.Resize(224)(sample), "original (shown at 224)")]
    panels += [_panel(training_pipeline()(sample), f"training #{i + 1}") for i in range(3)]
    panels.append(_panel(inference_pipeline()(sample), "inference"))
    height = max(p.height for p in panels)
    sheet = PIL.Image.new("RGB", (sum(p.width for p in panels) + 10 * len(panels), height), (255, 255, 255))
    x = 0
    for panel in panels:
        sheet.paste(panel, (x, 0))
        x += panel.width + 10
    out = Path(args.out)
    out.mkdir(exist_ok=True)
    sheet.save(out / "demo.png")
    print(f"wrote {out / 'demo.png'}")
    return 0 if all(ok for _, _, ok, _, _ in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
