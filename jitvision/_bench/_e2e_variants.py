"""The variants of ``bench --e2e``: the same job, from a JPEG's bytes to the normalized ``[3, 224, 224]`` float32
tensor (RandomResizedCrop(224), RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize(ImageNet)), in each
library's own way of writing it.

A variant gives one pass over the files' bytes held in memory (each in the form its decoder takes, made before
timing: ``bytes`` for PIL, a uint8 tensor for torchvision.io and jitvision, a uint8 numpy array for OpenCV and DALI)
and the job of one DataLoader sample (read the file, decode, transform). Each raises ``Unavailable`` with the
reason (and the install command) when its library is missing.
"""

import io
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from . import _e2e_common
from ._timing import Unavailable

MEAN = list(_e2e_common.MEAN)
STD = list(_e2e_common.STD)
CROP = _e2e_common.CROP
DALI_PIP = "pip install nvidia-dali-cuda120 (the bench extra: pip install jitvision[bench])"

# (name, what it is), in table order.
VARIANTS = (
    ("torchvision-pil", "torchvision v2: PIL open + convert('RGB'), v2 on the PIL image, ToImage (references' way)"),
    ("torchvision-io", "torchvision v2: torchvision.io.decode_jpeg + the transforms on the tensor"),
    ("jitvision-swap", "jitvision by import swap on the same PIL pipeline (PIL decode)"),
    ("jitvision-io", "jitvision: jitvision.io.decode_jpeg + the transforms on the tensor"),
    ("jitvision-fused", "jitvision: tv_tensors.EncodedImage, decode fused with RandomResizedCrop (docs/io.md)"),
    ("jitvision-batch", "jitvision, the batch form (docs/io.md): the fused crop per sample, uint8 collated with "
     "tv_tensors.batch_samples, flip + ToDtype + Normalize once per batch (in the main process)"),
    ("albumentations", "albumentations 2.0.8: OpenCV decode (cv2.imdecode, BGR to RGB) + its pipeline + ToTensorV2"),
    ("albumentationsx", "AlbumentationsX: the same, in its own environment and process"),
    ("dali", "NVIDIA DALI on the CPU (device_id=None): fused decoders.image_random_crop, resize, normalize"),
)
VARIANT_NAMES = tuple(name for name, _ in VARIANTS)


@dataclass
class Variant:
    """One way of doing the job. ``run_pass()`` transforms every file once and returns the outputs; ``load(path)``
    is one DataLoader sample's work; ``loader`` (if set) measures DataLoader-style throughput its own way
    (``fn(paths, images, workers, batch) -> dict``, for DALI and the other process); ``close`` frees what it holds."""

    name: str
    run_pass: Callable[[], List[Any]]
    load: Optional[Callable[[str], Any]] = None
    loader: Optional[Callable[[Sequence[str], int, int, int], Dict[str, Any]]] = None
    close: Callable[[], None] = field(default=lambda: None)
    version: Optional[str] = None
    # The outputs' statistics where the outputs stay in another process (``_e2e_common.output_stats``).
    stats: Optional[Dict[str, Any]] = None
    # The DataLoader's collate_fn (None: the default), and what the main process does to each batch (timed too).
    collate_fn: Optional[Callable[[List[Any]], Any]] = None
    on_batch: Optional[Callable[[Any], Any]] = None

    def timed(self, seconds: float) -> List[List[float]]:
        """``[wall, cpu]`` seconds of each pass, for ``seconds`` (``_e2e_common.timed_passes``)."""
        return _e2e_common.timed_passes(self.run_pass, seconds)


class RemoteVariant(Variant):
    """A variant whose passes run in the AlbumentationsX worker: the worker times them with its own clocks."""

    peer: Any = None

    def timed(self, seconds: float) -> List[List[float]]:
        return self.peer.request(op="e2e_time", seconds=seconds)["passes"]


def _torch_pipeline(ns: Any, converter: bool) -> Any:
    steps = [ns.RandomResizedCrop(CROP, antialias=True), ns.RandomHorizontalFlip()]
    if converter:
        steps.append(ns.ToImage())
    return ns.Compose([*steps, ns.ToDtype(torch.float32, scale=True), ns.Normalize(MEAN, STD)])


def _pil(ns: Any, datas: Sequence[bytes]) -> Variant:
    """The references' default: ImageFolder's loader (PIL, converted to RGB), the v2 pipeline on the PIL image."""
    import PIL.Image

    pipeline = _torch_pipeline(ns, converter=True)

    def from_bytes(data: bytes) -> Any:
        with PIL.Image.open(io.BytesIO(data)) as image:
            return pipeline(image.convert("RGB"))

    def load(path: str) -> Any:
        with open(path, "rb") as f, PIL.Image.open(f) as image:  # torchvision.datasets.folder.pil_loader
            return pipeline(image.convert("RGB"))

    return Variant("", lambda: [from_bytes(d) for d in datas], load)


def _tensors(datas: Sequence[bytes]) -> List[torch.Tensor]:
    return [torch.frombuffer(bytearray(d), dtype=torch.uint8) for d in datas]


def torchvision_pil(datas: Sequence[bytes]) -> Variant:
    import torchvision.transforms.v2 as TV

    return _pil(TV, datas)


def jitvision_swap(datas: Sequence[bytes]) -> Variant:
    import jitvision.transforms as JT

    return _pil(JT, datas)


def torchvision_io(datas: Sequence[bytes]) -> Variant:
    import torchvision.io as tv_io
    import torchvision.transforms.v2 as TV

    pipeline = _torch_pipeline(TV, converter=False)
    rgb = tv_io.ImageReadMode.RGB
    tensors = _tensors(datas)

    def load(path: str) -> Any:
        return pipeline(tv_io.decode_jpeg(tv_io.read_file(path), mode=rgb))

    return Variant("", lambda: [pipeline(tv_io.decode_jpeg(t, mode=rgb)) for t in tensors], load)


def jitvision_io(datas: Sequence[bytes]) -> Variant:
    import jitvision.transforms as JT
    from jitvision import io as jv_io

    pipeline = _torch_pipeline(JT, converter=False)
    tensors = _tensors(datas)

    def load(path: str) -> Any:
        return pipeline(jv_io.decode_jpeg(jv_io.read_file(path), mode=jv_io.ImageReadMode.RGB))

    return Variant("", lambda: [pipeline(jv_io.decode_jpeg(t, mode=jv_io.ImageReadMode.RGB)) for t in tensors], load)


def fused_pipeline() -> Callable[[Any], Any]:
    """jitvision's fastest documented path (docs/io.md): the Compose on a ``tv_tensors.EncodedImage``."""
    import jitvision.transforms as JT

    return _torch_pipeline(JT, converter=False)


def jitvision_fused(datas: Sequence[bytes]) -> Variant:
    from jitvision import _native, tv_tensors

    if not _native.AVAILABLE:
        raise Unavailable("the native library is not loaded: EncodedImage decodes only with it")
    pipeline = fused_pipeline()
    tensors = _tensors(datas)

    def load(path: str) -> Any:
        return pipeline(tv_tensors.EncodedImage.from_file(path))

    return Variant("", lambda: [pipeline(tv_tensors.EncodedImage(t)) for t in tensors], load)


def jitvision_batch(datas: Sequence[bytes]) -> Variant:
    """The crop (decode fused) per sample in the workers, the rest per batch: each sample still gets its own flip."""
    import jitvision.transforms as JT
    from jitvision import _native, tv_tensors

    if not _native.AVAILABLE:
        raise Unavailable("the native library is not loaded: EncodedImage decodes only with it")
    crop = JT.RandomResizedCrop(CROP, antialias=True)
    on_batch = JT.Compose([JT.RandomHorizontalFlip(), JT.ToDtype(torch.float32, scale=True), JT.Normalize(MEAN, STD)])
    tensors = _tensors(datas)

    def run_pass() -> List[Any]:
        batch = on_batch(tv_tensors.batch_samples([crop(tv_tensors.EncodedImage(t)) for t in tensors]))
        return list(batch.as_subclass(torch.Tensor).unbind(0))

    def load(path: str) -> Any:
        return crop(tv_tensors.EncodedImage.from_file(path))

    return Variant("", run_pass, load, collate_fn=tv_tensors.batch_samples, on_batch=on_batch)


def albumentations(datas: Sequence[bytes]) -> Variant:
    import numpy as np

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import albumentations as A
            import cv2
    except ImportError as exc:
        raise Unavailable("albumentations is not installed (pip install albumentations==2.0.8)") from exc
    _e2e_common.quiet_opencv(cv2)
    run = _e2e_common.from_bytes(A, cv2)
    arrays = [np.frombuffer(d, dtype=np.uint8) for d in datas]
    variant = Variant("", _e2e_common.one_pass(run, arrays), _e2e_common.from_file(A, cv2))
    variant.version = A.__version__
    return variant


def albumentationsx(datas: Sequence[bytes]) -> Variant:
    """In the AlbumentationsX environment's own process (``_peer_process``): the passes and the DataLoader run
    there, timed there with the clocks the other variants use (``_e2e_common.timed_passes``)."""
    import numpy as np

    from . import _peer_process

    peer = _peer_process.start([np.frombuffer(d, dtype=np.uint8) for d in datas])
    try:
        reply = peer.request(op="e2e_build")
        if "unavailable" in reply:
            raise Unavailable(reply["unavailable"])
    except BaseException:
        peer.close()
        raise
    remote = _peer_process.RemotePass(peer, "e2e")

    def loader(paths: Sequence[str], images: int, workers: int, batch: int) -> Dict[str, Any]:
        reply = peer.request(op="e2e_loader", paths=list(paths), images=images, workers=workers, batch=batch)
        if "unavailable" in reply:
            raise Unavailable(reply["unavailable"])
        return reply

    variant = RemoteVariant("", remote, loader=loader, close=peer.close, version=peer.version, stats=reply["stats"])
    variant.peer = peer
    return variant


# ---- NVIDIA DALI, CPU only -------------------------------------------------------------------------------------


def _dali_graph(fn: Any, types: Any, encoded: Any) -> Any:
    images = fn.decoders.image_random_crop(
        encoded, device="cpu", output_type=types.RGB, random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3]
    )
    images = fn.resize(images, resize_x=CROP, resize_y=CROP, antialias=True)
    return fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="CHW",
        mean=[m * 255 for m in MEAN],
        std=[s * 255 for s in STD],
        mirror=fn.random.coin_flip(probability=0.5),
    )


def _import_dali() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import nvidia.dali as dali
            import nvidia.dali.fn  # noqa: F401
            import nvidia.dali.types  # noqa: F401
    except ImportError as exc:
        raise Unavailable(f"NVIDIA DALI is not installed ({DALI_PIP})") from exc
    return dali


def dali(datas: Sequence[bytes]) -> Variant:
    """The pass is one pipeline run over all the files as one batch, one worker thread (``num_threads=1``), the
    outputs taken as torch tensors without a copy (DLPack)."""
    import numpy as np

    dali = _import_dali()
    fn, types = dali.fn, dali.types
    arrays = [np.frombuffer(d, dtype=np.uint8) for d in datas]

    @dali.pipeline_def(batch_size=len(arrays), num_threads=1, device_id=None, seed=0, prefetch_queue_depth=1)
    def per_image() -> Any:
        return _dali_graph(fn, types, fn.external_source(name="jpegs", dtype=types.UINT8))

    pipe = per_image()
    pipe.build()

    def run_pass() -> List[Any]:
        pipe.feed_input("jpegs", arrays)
        (out,) = pipe.run()
        return [torch.from_dlpack(out[i]) for i in range(len(out))]

    def loader(paths: Sequence[str], images: int, workers: int, batch: int) -> Dict[str, Any]:
        return dali_rate(dali, paths, images, workers, batch)

    return Variant("", run_pass, loader=loader, version=dali.__version__)


def dali_rate(dali: Any, paths: Sequence[str], images: int, threads: int, batch: int) -> Dict[str, Any]:
    """DALI's own loader in place of the DataLoader: ``readers.file`` over the paths, ``threads`` CPU threads,
    batches of ``batch`` as one ``[batch, 3, 224, 224]`` torch tensor each (DLPack, no copy); the clock as in
    ``_e2e_common.loader_rate`` (from the second batch on)."""
    fn, types = dali.fn, dali.types
    files = [paths[i % len(paths)] for i in range(images)]

    @dali.pipeline_def(batch_size=batch, num_threads=threads, device_id=None, seed=0)
    def reading() -> Any:
        encoded, _ = fn.readers.file(files=files, random_shuffle=False, name="reader")
        return _dali_graph(fn, types, encoded)

    pipe = reading()
    pipe.build()
    batches = images // batch
    shape = list(torch.from_dlpack(pipe.run()[0].as_tensor()).shape)
    start = time.perf_counter()
    for _ in range(batches - 1):
        (out,) = pipe.run()
        torch.from_dlpack(out.as_tensor())
    elapsed = time.perf_counter() - start
    del pipe
    return {"images_per_s": (batches - 1) * batch / elapsed, "batches": batches, "batch_shape": shape}


BUILDERS: Dict[str, Callable[[Sequence[bytes]], Variant]] = {
    "torchvision-pil": torchvision_pil,
    "torchvision-io": torchvision_io,
    "jitvision-swap": jitvision_swap,
    "jitvision-io": jitvision_io,
    "jitvision-fused": jitvision_fused,
    "jitvision-batch": jitvision_batch,
    "albumentations": albumentations,
    "albumentationsx": albumentationsx,
    "dali": dali,
}


def build(name: str, datas: Sequence[bytes]) -> Variant:
    variant = BUILDERS[name](datas)
    variant.name = name
    return variant

