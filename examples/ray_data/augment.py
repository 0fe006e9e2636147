"""Scale a jitvision pipeline out with Ray Data: a ``map_batches`` callable class, and a small run on photographs.

``JitvisionBatches`` is what ``Dataset.map_batches`` is given: Ray builds it once per actor (so the pipeline, and its
compiled form if asked, is made once per process, not per batch) and calls it on every batch, numpy in and out:

- ``image``: a fixed-shape batch is one ``[B, H, W, C]`` uint8 array; images of different sizes come as an object
  array of ``[H, W, C]`` arrays (a ragged batch);
- ``boxes`` (optional): an object array of ``[N_i, 4]`` XYXY float arrays, or one ``[B, N, 4]`` array when every row
  has as many boxes; ``labels`` (optional) the same with ``[N_i]``;
- every other column (an ``id``, a path, a class) passes through unchanged.

A fixed-shape batch runs as one batch sample (``tv_tensors.batch_samples``): every sample still gets its own random
parameters, drawn for the whole batch in one call. A ragged batch runs sample by sample with the same pipeline. The
output images are stacked into ``[B, H, W, C]`` when they share a shape (a crop to a fixed size makes ragged input
fixed-shape), else returned as an object array; ``boxes`` and ``labels`` are object arrays.

Reproducibility: with ``seed=``, each batch's draws come from ``torch.manual_seed(batch_seed(seed, ids))``, a hash
of the seed and the batch's row ids (the ``id_column``). A batch's output then depends only on its rows, not on which
actor ran it or in which order: the global RNG is per process, and an actor runs one batch at a time. The pipeline
draws from the global RNG rather than a ``torch.Generator`` because compiled transforms cannot trace a generator.
For the same output as an in-process run, the batches themselves must be the same: give the dataset blocks of exactly
``batch_size`` rows (``override_num_blocks=rows // batch_size``), so that every batch is one block.

Run: ``python examples/ray_data/augment.py`` (needs ``pip install "ray[data]" scikit-image``).
"""

import argparse
import hashlib
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import torch

from jitvision import transforms as T
from jitvision import tv_tensors

PipelineFactory = Callable[[], torch.nn.Module]


def classification_pipeline(size: int = 224) -> T.Compose:
    """ImageNet-style training augmentation, uint8 in and out (normalize on the accelerator, after the transfer)."""
    return T.Compose([
        T.RandomResizedCrop(size, scale=(0.25, 1.0), antialias=True),
        T.RandomHorizontalFlip(),
        T.ColorJitter(brightness=0.3, contrast=0.3, saturation=0.3),
    ])


def detection_pipeline(size: int = 320) -> T.Compose:
    """Detection training augmentation: boxes follow the crop and the flip; boxes the crop leaves empty are dropped
    with their labels."""
    return T.Compose([
        T.RandomPhotometricDistort(p=0.5),
        T.RandomResizedCrop(size, scale=(0.3, 1.0), antialias=True),
        T.RandomHorizontalFlip(),
        T.SanitizeBoundingBoxes(),
    ])


def batch_seed(seed: int, ids: np.ndarray) -> int:
    """The seed of a batch: a 63-bit hash of the run's seed and the batch's row ids, in order."""
    digest = hashlib.blake2b(int(seed).to_bytes(8, "little", signed=True), digest_size=8)
    digest.update(np.ascontiguousarray(ids, dtype=np.int64).tobytes())
    return int.from_bytes(digest.digest(), "little") & ((1 << 63) - 1)


def _rows(column: Any) -> List[np.ndarray]:
    """A per-row column (an object array of arrays, or one array with a leading batch dimension) as a list."""
    return [np.asarray(row) for row in column]


def _object_array(items: List[np.ndarray]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):  # item by item: numpy would try to broadcast equal-shape arrays
        out[index] = item
    return out


def _hwc(image: torch.Tensor) -> np.ndarray:
    pixels = image.as_subclass(torch.Tensor).permute(1, 2, 0).contiguous()
    return pixels.numpy() if pixels.dtype == torch.uint8 else pixels.float().numpy()


class JitvisionBatches:
    """A ``map_batches`` callable class: the pipeline from ``pipeline()`` is built once per actor (compiled with
    ``jitvision.transforms.compile`` when ``compile=True``) and applied to each numpy batch (see the module
    docstring for the columns and the seeding)."""

    def __init__(
        self,
        pipeline: PipelineFactory = classification_pipeline,
        *,
        seed: Optional[int] = None,
        id_column: str = "id",
        compile: bool = False,
        threads: int = 1,
    ) -> None:
        # One thread per actor: Ray gives each actor one CPU by default, and scales out with more actors.
        torch.set_num_threads(threads)
        self.pipeline = pipeline()
        self.seed = seed
        self.id_column = id_column
        self.compiled = compile
        self.run = T.compile(self.pipeline, fullgraph=True) if compile else self.pipeline

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        if self.compiled:
            # Compiled code draws with inductor's own RNG unless told to fall back to eager's: with the fallback, a
            # seed gives the same crops compiled and eager. Set here, not in __init__: inductor's settings are per
            # thread (torch 2.14), and Ray Data calls an actor from another thread than the one that built it.
            torch._inductor.config.fallback_random = True
        if self.seed is not None:
            torch.manual_seed(batch_seed(self.seed, batch[self.id_column]))
        images = batch["image"]
        fixed_shape = isinstance(images, np.ndarray) and images.dtype != object and images.ndim == 4
        images = list(images) if fixed_shape else _rows(images)
        # Copies: Ray hands out read-only views of its shared object store (torch warns on them, and an in-place
        # transform would write into them); a uint8 copy costs little next to the transforms.
        samples = [{"image": tv_tensors.Image(torch.from_numpy(np.array(image, copy=True)).permute(2, 0, 1))}
                   for image in images]
        if "boxes" in batch:
            for sample, boxes in zip(samples, _rows(batch["boxes"])):
                height, width = sample["image"].shape[-2:]
                sample["boxes"] = tv_tensors.BoundingBoxes(
                    torch.from_numpy(boxes.astype(np.float32).reshape(-1, 4)), format="XYXY",
                    canvas_size=(height, width))
        if "labels" in batch:
            for sample, labels in zip(samples, _rows(batch["labels"])):
                sample["labels"] = torch.from_numpy(labels.astype(np.int64).reshape(-1))
        if fixed_shape:  # one call for the batch, per-sample draws
            outputs = tv_tensors.unbatch_samples(self.run(tv_tensors.batch_samples(samples)))
        else:  # a compiled call would compile anew for every image size: ragged batches run eager
            outputs = [self.pipeline(sample) for sample in samples]
        return self._to_numpy(batch, outputs)

    def _to_numpy(self, batch: Dict[str, np.ndarray], outputs: List[Dict[str, Any]]) -> Dict[str, np.ndarray]:
        result = {name: column for name, column in batch.items() if name not in ("image", "boxes", "labels")}
        images = [_hwc(output["image"]) for output in outputs]
        same_shape = len({image.shape for image in images}) == 1
        result["image"] = np.stack(images) if same_shape else _object_array(images)
        for name, dtype in (("boxes", np.float32), ("labels", np.int64)):
            if name in batch:
                result[name] = _object_array([output[name].as_subclass(torch.Tensor).numpy().astype(dtype)
                                              for output in outputs])
        return result


def _photograph_rows(copies: int) -> List[Dict[str, Any]]:
    """Rows of scikit-image's photographs (different sizes: a ragged dataset) with their hand-written boxes."""
    from jitvision._photos import PHOTOS, photo_sample

    rows = []
    for index in range(copies * len(PHOTOS)):
        sample = photo_sample(PHOTOS[index % len(PHOTOS)])
        rows.append({
            "id": index,
            "image": sample["image"].permute(1, 2, 0).numpy(),
            "boxes": sample["boxes"].as_subclass(torch.Tensor).numpy(),
            "labels": sample["labels"].numpy(),
        })
    return rows


def main(argv: Optional[List[str]] = None) -> int:
    import ray

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actors", type=int, default=2, help="actors (one CPU each)")
    parser.add_argument("--copies", type=int, default=16, help="copies of the four photographs")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compile", action="store_true", help="compile the pipeline in each actor")
    args = parser.parse_args(argv)

    ray.init(num_cpus=args.actors, include_dashboard=False)
    rows = _photograph_rows(args.copies)
    dataset = ray.data.from_items(rows, override_num_blocks=max(1, len(rows) // args.batch_size))
    start = time.perf_counter()
    augmented = dataset.map_batches(
        JitvisionBatches,
        fn_constructor_kwargs={"pipeline": detection_pipeline, "seed": args.seed, "compile": args.compile},
        batch_size=args.batch_size, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=args.actors),
    ).materialize()
    seconds = time.perf_counter() - start
    first = augmented.take(1)[0]
    print(f"{augmented.count()} samples in {seconds:.1f} s on {args.actors} actors (actor start-up included); "
          f"first: id {first['id']}, image {first['image'].shape} {first['image'].dtype}, "
          f"{len(first['boxes'])} boxes")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
