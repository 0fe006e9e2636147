"""``python -m jitvision bench --pil``: pipelines that start from PIL images, jitvision against torchvision.

The pipelines are torchvision's classification reference recipes (``references/classification/presets.py`` of
pytorch/vision) with their default ``backend="pil"`` and ``use_v2=True``, built here step by step as that file
builds them (``PRESETS``), plus the plain training pipeline with ``PILToTensor`` or ``ToImage``. With
``--presets PATH`` the recipes come from that file instead, imported once per library with
``torchvision.transforms.v2`` swapped for ``jitvision.transforms`` (the import swap a user makes).

Each pipeline is built once per library and called on every photograph (RGB PIL images, see ``_photos``) in a
pass; the libraries are timed in interleaved rounds (``_timing.interleaved``, best round), one thread. The result
is microseconds per sample and jitvision's time over torchvision's.

``difference`` measures what jitvision's PIL path changes in the values: the resampling of the geometric steps is
torch's (that of a tensor pipeline) instead of PIL's. It compares, with the same draws, a transform's output on the
tensor view (what the pipeline computes) with its output on the PIL image (PIL's resampling), in uint8 levels.
"""

import importlib.util
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from . import _photos
from ._cli import installed, library_versions, pick, write_json
from ._timing import interleaved

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def _train(ns: Any, policy: Optional[str]) -> Any:
    """The training recipe, backend "pil": crop, flip, [policy], PILToTensor, ToDtype, Normalize, ToPureTensor."""
    steps = [ns.RandomResizedCrop(224, interpolation=ns.InterpolationMode.BILINEAR, antialias=True)]
    steps.append(ns.RandomHorizontalFlip(0.5))
    if policy == "ra":
        steps.append(ns.RandAugment(interpolation=ns.InterpolationMode.BILINEAR, magnitude=9))
    elif policy == "ta_wide":
        steps.append(ns.TrivialAugmentWide(interpolation=ns.InterpolationMode.BILINEAR))
    steps += [ns.PILToTensor(), ns.ToDtype(torch.float, scale=True), ns.Normalize(MEAN, STD), ns.ToPureTensor()]
    return ns.Compose(steps)


def _eval(ns: Any) -> Any:
    """The evaluation recipe, backend "pil": Resize(256), CenterCrop(224), PILToTensor, ToDtype, Normalize."""
    steps = [ns.Resize(256, interpolation=ns.InterpolationMode.BILINEAR, antialias=True), ns.CenterCrop(224)]
    steps += [ns.PILToTensor(), ns.ToDtype(torch.float, scale=True), ns.Normalize(MEAN, STD), ns.ToPureTensor()]
    return ns.Compose(steps)


def _plain(ns: Any, converter: str) -> Any:
    """RandomResizedCrop(224) + flip + PILToTensor/ToImage + ToDtype + Normalize."""
    return ns.Compose(
        [
            ns.RandomResizedCrop(224, antialias=True),
            ns.RandomHorizontalFlip(),
            getattr(ns, converter)(),
            ns.ToDtype(torch.float32, scale=True),
            ns.Normalize(MEAN, STD),
        ]
    )


PRESETS: Dict[str, Callable[[Any], Any]] = {
    "train, RandAugment": lambda ns: _train(ns, "ra"),
    "train, TrivialAugmentWide": lambda ns: _train(ns, "ta_wide"),
    "train": lambda ns: _train(ns, None),
    "eval": _eval,
    "RRC+flip+PILToTensor+ToDtype+Normalize": lambda ns: _plain(ns, "PILToTensor"),
    "RRC+flip+ToImage+ToDtype+Normalize": lambda ns: _plain(ns, "ToImage"),
}


def _load_presets_file(path: str, namespace: Any) -> Any:
    """``path`` (a copy of references/classification/presets.py) imported with ``torchvision.transforms.v2`` being
    ``namespace`` while it builds its transforms: returns the module; build within ``swapped(namespace)``."""
    spec = importlib.util.spec_from_file_location(f"_presets_{id(namespace)}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"bench --pil: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class swapped:
    """``import torchvision.transforms.v2`` gives ``namespace`` inside the block (the module and the attribute)."""

    def __init__(self, namespace: Any) -> None:
        self.namespace = namespace

    def __enter__(self) -> None:
        import torchvision.transforms
        import torchvision.transforms.v2

        self.saved = sys.modules["torchvision.transforms.v2"]
        sys.modules["torchvision.transforms.v2"] = self.namespace
        torchvision.transforms.v2 = self.namespace

    def __exit__(self, *exc: Any) -> None:
        import torchvision.transforms

        sys.modules["torchvision.transforms.v2"] = self.saved
        torchvision.transforms.v2 = self.saved


def _from_file(path: str) -> Dict[str, Callable[[Any], Any]]:
    def build(kind: str, policy: Optional[str]) -> Callable[[Any], Any]:
        def make(ns: Any) -> Any:
            module = _load_presets_file(path, ns)
            with swapped(ns):
                if kind == "eval":
                    return module.ClassificationPresetEval(crop_size=224, backend="pil", use_v2=True)
                return module.ClassificationPresetTrain(
                    crop_size=224, auto_augment_policy=policy, backend="pil", use_v2=True
                )

        return make

    presets = {
        "train, RandAugment (presets.py)": build("train", "ra"),
        "train, TrivialAugmentWide (presets.py)": build("train", "ta_wide"),
        "train (presets.py)": build("train", None),
        "eval (presets.py)": build("eval", None),
    }
    plain = {k: v for k, v in PRESETS.items() if k.startswith("RRC")}
    return {**presets, **plain}


def pil_photos(names: Optional[Sequence[str]] = None) -> Tuple[List[Any], str]:
    """The photographs as RGB PIL images, and their label."""
    import PIL.Image

    images, _, label = _photos.load_photos(names)
    return [PIL.Image.fromarray(image.numpy()) for image in images], label


def run(
    images: Sequence[Any], presets_file: Optional[str] = None, min_run_time: float = 2.0, rounds: int = 7
) -> List[Dict[str, Any]]:
    """Per pipeline: ``{"pipeline", "jitvision_us", "torchvision_us", "ratio"}`` (per sample, best round)."""
    import torchvision.transforms.v2 as TV

    import jitvision.transforms as JT

    torch.set_num_threads(1)
    presets = _from_file(presets_file) if presets_file else PRESETS
    results = []
    for name, make in presets.items():
        passes = []
        for library, ns in (("jitvision", JT), ("torchvision", TV)):
            pipeline = make(ns)

            def one_pass(pipeline: Any = pipeline) -> None:
                for image in images:
                    pipeline(image)

            one_pass()  # warm-up
            passes.append((library, one_pass))
        samples = interleaved(passes, min_run_time, rounds)
        ours, theirs = (min(samples[lib]) / len(images) * 1e6 for lib in ("jitvision", "torchvision"))
        results.append({"pipeline": name, "jitvision_us": ours, "torchvision_us": theirs, "ratio": ours / theirs})
    return results


def difference(images: Sequence[Any], draws: int = 20) -> List[Dict[str, Any]]:
    """Per geometric step of the recipes, over ``draws`` seeded calls per photograph: the mean and max absolute
    difference (uint8 levels) between the step on the tensor view (jitvision's PIL path) and on the PIL image (PIL's
    resampling), with the same draws."""
    import numpy as np

    import jitvision.transforms as JT
    from jitvision.transforms._pil_path import pil_view

    steps = {
        "RandomResizedCrop(224), bilinear": JT.RandomResizedCrop(224, antialias=True),
        "Resize(256), bilinear": JT.Resize(256, antialias=True),
        "Resize(256) + CenterCrop(224)": JT.Compose([JT.Resize(256, antialias=True), JT.CenterCrop(224)]),
    }
    out = []
    for name, step in steps.items():
        total, count, worst, differing = 0.0, 0, 0, 0
        for image in images:
            view = pil_view(image)
            for seed in range(draws):
                torch.manual_seed(seed)
                ours = step(view).to(torch.int16)
                torch.manual_seed(seed)
                theirs = torch.from_numpy(np.array(step(image))).permute(2, 0, 1).to(torch.int16)
                delta = (ours - theirs).abs()
                total += float(delta.sum())
                count += delta.numel()
                differing += int((delta > 0).sum())
                worst = max(worst, int(delta.max()))
        out.append({"step": name, "mean": total / count, "max": worst, "share_differing": differing / count})
    return out


def format_markdown(results: Sequence[Dict[str, Any]]) -> str:
    lines = ["| pipeline (per sample) | jitvision us | torchvision us | jitvision / torchvision |"]
    lines.append("|---|---:|---:|---:|")
    for r in results:
        lines.append(f"| {r['pipeline']} | {r['jitvision_us']:,.0f} | {r['torchvision_us']:,.0f} | {r['ratio']:.2f}x |")
    return "\n".join(lines)


def format_difference(rows: Sequence[Dict[str, Any]]) -> str:
    lines = ["| step | mean abs. difference (levels) | max | values that differ |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['step']} | {r['mean']:.3f} | {r['max']} | {100 * r['share_differing']:.1f}% |")
    return "\n".join(lines)


def main(args: Any) -> int:
    """``bench --pil`` as the command line asks for it (see ``jitvision.bench``): the tables on stdout."""
    all_photos = [p[0] for p in _photos.PHOTOS]
    names = all_photos if args.photos in (None, "all") else pick(args.photos, all_photos, "photo")
    images, label = pil_photos(names)
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 7 if args.rounds is None else args.rounds
    if args.quick:
        min_run_time, rounds = min(min_run_time, 0.05), min(rounds, 2)
    results = run(images, args.presets, min_run_time, rounds)
    found = library_versions()
    print(
        f"us per sample, 1 thread, {len(images)} RGB PIL images ({label}), best of {rounds} interleaved rounds; "
        + installed(found)
    )
    print(format_markdown(results))
    differences = difference(images, draws=2 if args.quick else 20)
    print("\njitvision's PIL path against PIL's resampling (same draws, uint8 levels):")
    print(format_difference(differences))
    write_json(args.json, {"images": label, "versions": found, "rows": results, "difference": differences})
    return 0
