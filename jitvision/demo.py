"""`make demo`: a training and an inference pipeline on a synthetic detection sample, in all four modes.

Builds an image with shapes, their boxes and masks (no download), runs both pipelines eager, scripted,
compiled and exported, checks that every mode agrees with eager (random pipelines with the same seed), prints
a table and writes ``demo_out/demo.png`` with the sample before and after augmentation.
"""

import argparse
import time
from pathlib import Path
from typing import Any, Callable

import PIL.Image
import PIL.ImageDraw
import torch

from jitvision import transforms as T
from jitvision import tv_tensors
from jitvision.tv_tensors._batch_pytree import sample_leaf

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
COLORS = [(230, 60, 50), (40, 160, 70), (50, 90, 220), (240, 190, 30)]


def make_sample(height: int = 300, width: int = 400) -> dict[str, Any]:
    """An image with four filled shapes on a gradient, with their XYXY boxes, masks and labels."""
    canvas = PIL.Image.new("RGB", (width, height))
    gradient = torch.linspace(40, 200, width).to(torch.uint8).expand(height, width)
    canvas.paste(PIL.Image.fromarray(torch.stack([gradient, gradient.flip(-1), gradient // 2], -1).numpy()))
    draw = PIL.ImageDraw.Draw(canvas)
    boxes, masks = [], []
    layout = [(30, 40, 150, 140), (200, 30, 370, 120), (60, 170, 190, 280), (230, 150, 380, 270)]
    for index, (x1, y1, x2, y2) in enumerate(layout):
        mask_image = PIL.Image.new("L", (width, height))
        shape_draw = PIL.ImageDraw.Draw(mask_image)
        if index % 2:
            draw.ellipse((x1, y1, x2, y2), fill=COLORS[index])
            shape_draw.ellipse((x1, y1, x2, y2), fill=1)
        else:
            draw.rectangle((x1, y1, x2, y2), fill=COLORS[index])
            shape_draw.rectangle((x1, y1, x2, y2), fill=1)
        boxes.append([x1, y1, x2, y2])
        masks.append(torch.frombuffer(bytearray(mask_image.tobytes()), dtype=torch.uint8).view(height, width))
    return {
        "image": tv_tensors.Image(canvas),
        "boxes": tv_tensors.BoundingBoxes(boxes, format="XYXY", canvas_size=(height, width), dtype=torch.float32),
        "masks": tv_tensors.Mask(torch.stack(masks)),
        "labels": torch.arange(len(layout)),
    }


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


def draw_sample(sample: dict[str, Any], title: str) -> PIL.Image.Image:
    image = sample["image"].as_subclass(torch.Tensor)
    if image.is_floating_point():  # undo Normalize for display
        image = image * torch.tensor(STD).view(3, 1, 1) + torch.tensor(MEAN).view(3, 1, 1)
        image = (image.clamp(0, 1) * 255).round().to(torch.uint8)
    pixels = image.permute(1, 2, 0).contiguous()
    # Masks: every other row of a mask's pixels in its shape's complementary color, so the shape stays visible.
    stripes = (torch.arange(pixels.shape[0]) % 4 < 2)[:, None, None]
    for mask, color in zip(sample["masks"].as_subclass(torch.Tensor).bool(), COLORS, strict=False):
        complement = torch.tensor([255 - c for c in color], dtype=torch.uint8)
        pixels = torch.where(mask[..., None] & stripes, complement, pixels)
    picture = PIL.Image.fromarray(pixels.numpy())
    draw = PIL.ImageDraw.Draw(picture)
    for box in sample["boxes"].as_subclass(torch.Tensor).tolist():
        draw.rectangle(box, outline=(255, 255, 255), width=2)
    draw.text((6, 4), title, fill=(255, 255, 255))
    return picture


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitvision.demo", description=__doc__)
    parser.add_argument("--out", default="demo_out", help="folder for demo.png")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    sample = make_sample()
    rows = run_modes("training", training_pipeline(), sample) + run_modes("inference", inference_pipeline(), sample)

    print(f"{'pipeline':<10} {'mode':<32} {'ok':<4} {'max |diff| vs eager':>20} {'time/call':>12}")
    for name, mode, ok, diff, micros in rows:
        print(f"{name:<10} {mode:<32} {'yes' if ok else 'NO':<4} {diff:>20.2e} {micros:>10.0f}us")

    torch.manual_seed(7)
    panels = [draw_sample(sample, "original")]
    panels += [draw_sample(training_pipeline()(sample), f"training #{i + 1}") for i in range(3)]
    panels.append(draw_sample(inference_pipeline()(sample), "inference"))
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
