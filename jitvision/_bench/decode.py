"""The fused decode, measured: ``python -m jitvision._bench.decode [--rounds N] [--seeds N]``.

On scikit-image's photographs re-encoded as JPEG q90 at ImageNet-typical sizes (~500x375, PIL, 4:2:0), one thread:

- fidelity: for each leading transform, the fused output (``tv_tensors.EncodedImage`` in) against decode-then-transform
  (the same seed), per output pixel in uint8 levels: the mean absolute difference over all images and seeds, the worst
  image's mean, the largest single difference, and how often each DCT scale was used;
- time per image: ``decode_jpeg`` + ``RandomResizedCrop(224)`` (torchvision.io's decoder and jitvision's, then
  jitvision's transform on the decoded image) against the fused ``RandomResizedCrop(224)(EncodedImage)``, and the
  same with flip + ToDtype + Normalize after it; interleaved rounds, the median of each. The time is the thread's CPU
  time (``time.thread_time``), which a machine shared with other jobs perturbs less than the wall clock does.
"""

import argparse
import statistics
import time
import warnings
from typing import Any, Callable, Dict, List, Sequence

import torch

SIZES = ((500, 375), (375, 500), (500, 333), (481, 353), (500, 400), (442, 500))


def photographs(quality: int = 90) -> List[torch.Tensor]:
    """Every photograph of the benchmark set at each size of SIZES (cycled), JPEG q``quality``."""
    import io
    import os

    import PIL.Image

    from ._photos import skimage_data_dir

    folder = skimage_data_dir()
    if folder is None:
        raise SystemExit("jitvision._bench.decode: needs scikit-image's photographs (pip install scikit-image)")
    names = ("astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png", "retina.jpg")
    out = []
    for index, name in enumerate(names):
        photo = PIL.Image.open(os.path.join(folder, name)).convert("RGB")
        for shift in range(2):
            size = SIZES[(index + shift) % len(SIZES)]
            buffer = io.BytesIO()
            photo.resize(size, PIL.Image.BICUBIC).save(buffer, "JPEG", quality=quality)
            out.append(torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8))
    return out


def leading_transforms() -> Dict[str, Callable[[], Any]]:
    import jitvision.transforms as T

    return {
        "RandomResizedCrop(224)": lambda: T.RandomResizedCrop(224),
        "RandomResizedCrop(128)": lambda: T.RandomResizedCrop(128),
        "RandomResizedCrop(64)": lambda: T.RandomResizedCrop(64),
        "RandomResizedCrop(128, bicubic)": lambda: T.RandomResizedCrop(128, interpolation=T.InterpolationMode.BICUBIC),
        "Resize(256)": lambda: T.Resize(256),
        "Resize(160)": lambda: T.Resize(160),
        "Resize(64)": lambda: T.Resize(64),
        "RandomShortestSize([96, 128, 160])": lambda: T.RandomShortestSize([96, 128, 160]),
        "CenterCrop(224)": lambda: T.CenterCrop(224),
        "RandomCrop(224)": lambda: T.RandomCrop(224),
    }


def fidelity(datas: Sequence[torch.Tensor], seeds: int) -> None:
    from jitvision import tv_tensors
    from jitvision.transforms import _decode_fused

    print("| leading transform | mean abs diff | worst image's mean | max | DCT scales used (1/2/4/8) |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, make in leading_transforms().items():
        total, count, worst_mean, largest = 0.0, 0, 0.0, 0
        scales = {1: 0, 2: 0, 4: 0, 8: 0}
        for data in datas:
            encoded = tv_tensors.EncodedImage(data)
            decoded = encoded.decode()
            for seed in range(seeds):
                transform = make()
                torch.manual_seed(seed)
                params = transform.make_params([_decode_fused._placeholder(encoded)])
                torch.manual_seed(seed)
                fused = transform(encoded)
                torch.manual_seed(seed)
                reference = transform(decoded)
                diff = (fused.to(torch.int16) - reference.to(torch.int16)).abs()
                total += diff.double().sum().item()
                count += diff.numel()
                worst_mean = max(worst_mean, diff.double().mean().item())
                largest = max(largest, int(diff.max()))
                scales[_used_scale(transform, params, encoded)] += 1
        used = "/".join(str(scales[s]) for s in (1, 2, 4, 8))
        print(f"| {name} | {total / count:.2f} | {worst_mean:.2f} | {largest} | {used} |")


def _used_scale(transform: Any, params: Dict[str, Any], encoded: Any) -> int:
    from jitvision.transforms import _decode_fused
    from jitvision.transforms.functional._geometry._resize import _compute_resized_output_size

    height, width = encoded.canvas_size
    if "box" in params:
        box = params["box"].tolist()
        return _decode_fused._scale_for((box[2], box[3]), transform.size, transform)
    if "size" in params:
        return _decode_fused._scale_for((height, width), params["size"].tolist(), transform)
    if hasattr(transform, "max_size"):
        out = _compute_resized_output_size([height, width], transform.size, transform.max_size)
        return _decode_fused._scale_for((height, width), out, transform)
    return 1


def timing(datas: Sequence[torch.Tensor], rounds: int) -> None:
    import torchvision.io as tv_io

    import jitvision.transforms as T
    from jitvision import io, tv_tensors

    rrc = T.RandomResizedCrop(224)
    tail = T.Compose([T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
                      T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    full = T.Compose([T.RandomResizedCrop(224), *tail.transforms])
    resize = T.Resize(160)
    rgb = tv_io.ImageReadMode.RGB
    jobs = {
        "torchvision.io.decode_jpeg + RandomResizedCrop(224)": lambda d: rrc(tv_io.decode_jpeg(d, mode=rgb)),
        "jitvision.io.decode_jpeg + RandomResizedCrop(224)": lambda d: rrc(io.decode_jpeg(d, mode="RGB")),
        "fused: RandomResizedCrop(224)(EncodedImage)": lambda d: rrc(tv_tensors.EncodedImage(d)),
        "jitvision.io.decode_jpeg + RRC + flip + ToDtype + Normalize (Compose)": lambda d: full(
            io.decode_jpeg(d, mode="RGB")
        ),
        "fused: the same Compose on the EncodedImage": lambda d: full(tv_tensors.EncodedImage(d)),
        "jitvision.io.decode_jpeg + Resize(160)": lambda d: resize(io.decode_jpeg(d, mode="RGB")),
        "fused: Resize(160)(EncodedImage) (DCT scale 1/2)": lambda d: resize(tv_tensors.EncodedImage(d)),
        "decode alone: torchvision.io.decode_jpeg": lambda d: tv_io.decode_jpeg(d, mode=rgb),
        "decode alone: jitvision.io.decode_jpeg": lambda d: io.decode_jpeg(d, mode="RGB"),
    }
    samples: Dict[str, List[float]] = {name: [] for name in jobs}
    for _ in range(rounds):
        for name, job in jobs.items():
            start = time.thread_time()
            for data in datas:
                job(data)
            samples[name].append((time.thread_time() - start) / len(datas) * 1e6)
    base = statistics.median(samples["jitvision.io.decode_jpeg + RandomResizedCrop(224)"])
    print("| per image, one thread | CPU us (median of rounds) | x decode_jpeg + RRC |")
    print("| --- | ---: | ---: |")
    for name, values in samples.items():
        print(f"| {name} | {statistics.median(values):.0f} | {statistics.median(values) / base:.2f} |")


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitvision._bench.decode", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--skip-fidelity", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args(list(argv) or None)
    warnings.filterwarnings("ignore", message=".*TorchCodec.*")
    torch.set_num_threads(1)
    datas = photographs()
    sizes = sorted({(int(d.numel())) for d in datas})
    print(f"{len(datas)} photographs, JPEG q90, {sizes[0] // 1000}-{sizes[-1] // 1000} kB, torch threads: 1")
    if not args.skip_fidelity:
        fidelity(datas, args.seeds)
    if not args.skip_timing:
        print()
        timing(datas, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
