"""The Ray Data example (examples/ray_data/augment.py) on a local Ray cluster (two CPUs): fixed-shape and ragged
batches, eager and compiled actors, each output equal to the same pipeline run in-process with the same per-batch
seeds (jitvision called directly, not through the example's class)."""

import importlib
import logging
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import ray
import torch

from jitvision import transforms as T
from jitvision import tv_tensors

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "ray_data"))
augment = importlib.import_module("augment")  # by name after the path insert, as tests/test_deploy_cpp.py does

pytestmark = [
    pytest.mark.xdist_group("ray"),  # one worker owns the cluster
    # Ray's own DataContext reads its deprecated settings when it is created: nothing of ours.
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context"),
]
SEED = 7
BATCH = 4


def small_classification() -> T.Compose:
    return augment.classification_pipeline(size=32)


def small_detection() -> T.Compose:
    return augment.detection_pipeline(size=40)


def crop_and_flip() -> T.Compose:
    return T.Compose([T.RandomResizedCrop(32, scale=(0.25, 1.0)), T.RandomHorizontalFlip()])


def flip_and_jitter() -> T.Compose:
    """Keeps each image's size: ragged in, ragged out."""
    return T.Compose([T.RandomHorizontalFlip(), T.ColorJitter(brightness=0.4, contrast=0.4)])


@pytest.fixture(scope="module")
def cluster():
    # The workers unpickle the example's class and this module's pipeline functions by reference: they get the
    # checkout and the example's folder on their path. (Pickled by value, a function drags the globals of its module
    # along, and one of them in a long test session could not be pickled.)
    path = os.pathsep.join([str(ROOT), str(ROOT / "examples" / "ray_data"), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.WARNING,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # its per-operator metrics fill a failure's report
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


def _rows(count: int, ragged: bool) -> list[dict]:
    generator = torch.Generator().manual_seed(0)
    rows = []
    for index in range(count):
        height, width = (48 + 8 * (index % 3), 64 - 4 * (index % 4)) if ragged else (48, 64)
        image = torch.randint(0, 256, (height, width, 3), dtype=torch.uint8, generator=generator).numpy()
        n = index % 3  # 0, 1 or 2 boxes: ragged targets
        corner = torch.rand(n, 2, generator=generator) * torch.tensor([width / 2, height / 2])
        boxes = torch.cat([corner, corner + torch.tensor([width / 3, height / 3])], 1).numpy().astype(np.float32)
        rows.append({"id": index, "image": image, "boxes": boxes, "labels": np.arange(n, dtype=np.int64) + 1})
    return rows


def _run_on_ray(rows: list[dict], factory, *, compile: bool = False, actors: int = 2) -> dict[int, dict]:
    # One block per batch: every batch is the same rows on Ray as in-process.
    dataset = ray.data.from_items(rows, override_num_blocks=len(rows) // BATCH)
    out = dataset.map_batches(
        augment.JitvisionBatches,
        fn_constructor_kwargs={"pipeline": factory, "seed": SEED, "compile": compile},
        batch_size=BATCH, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=actors),
    ).take_all()
    return {int(row["id"]): row for row in out}


def _in_process(rows: list[dict], factory, *, ragged: bool, seed: int = SEED) -> dict[int, dict]:
    """The reference: the pipeline called directly, batch by batch, seeded per batch as the example says."""
    pipeline = factory()
    result = {}
    for start in range(0, len(rows), BATCH):
        chunk = rows[start:start + BATCH]
        torch.manual_seed(augment.batch_seed(seed, np.array([row["id"] for row in chunk])))
        samples = [{
            "image": tv_tensors.Image(torch.from_numpy(row["image"]).permute(2, 0, 1)),
            "boxes": tv_tensors.BoundingBoxes(torch.from_numpy(row["boxes"]).reshape(-1, 4), format="XYXY",
                                              canvas_size=row["image"].shape[:2]),
            "labels": torch.from_numpy(row["labels"]),
        } for row in chunk]
        outputs = [pipeline(sample) for sample in samples] if ragged else \
            tv_tensors.unbatch_samples(pipeline(tv_tensors.batch_samples(samples)))
        for row, output in zip(chunk, outputs):
            result[row["id"]] = output
    return result


def _assert_equal(actual: dict[int, dict], expected: dict[int, dict]) -> None:
    assert sorted(actual) == sorted(expected)
    for index, output in expected.items():
        image = output["image"].as_subclass(torch.Tensor).permute(1, 2, 0).numpy()
        np.testing.assert_array_equal(actual[index]["image"], image, err_msg=f"row {index}")
        np.testing.assert_allclose(actual[index]["boxes"].reshape(-1, 4),
                                   output["boxes"].as_subclass(torch.Tensor).numpy(), atol=1e-5, err_msg=f"row {index}")
        np.testing.assert_array_equal(actual[index]["labels"], output["labels"].numpy())


def test_fixed_shape_batches_match_in_process(cluster):
    rows = _rows(16, ragged=False)
    actual = _run_on_ray(rows, small_detection)
    assert all(row["image"].shape == (40, 40, 3) and row["image"].dtype == np.uint8 for row in actual.values())
    _assert_equal(actual, _in_process(rows, small_detection, ragged=False))
    # The seed matters: another one gives other crops.
    other = _in_process(rows, small_detection, ragged=False, seed=SEED + 1)
    assert any(not np.array_equal(actual[i]["image"], other[i]["image"].permute(1, 2, 0).numpy()) for i in other)


def test_ragged_batches_match_in_process(cluster):
    rows = _rows(12, ragged=True)
    # A crop to a fixed size: ragged in, [B, H, W, C] out.
    actual = _run_on_ray(rows, small_classification)
    assert all(row["image"].shape == (32, 32, 3) for row in actual.values())
    _assert_equal(actual, _in_process(rows, small_classification, ragged=True))
    # Sizes kept: ragged in, ragged out (object arrays).
    actual = _run_on_ray(rows, flip_and_jitter)
    assert {row["image"].shape for row in actual.values()} == {row["image"].shape for row in rows}
    _assert_equal(actual, _in_process(rows, flip_and_jitter, ragged=True))


def test_compiled_actor_matches_eager_in_process(cluster):
    rows = _rows(8, ragged=False)
    actual = _run_on_ray(rows, crop_and_flip, compile=True, actors=1)
    _assert_equal(actual, _in_process(rows, crop_and_flip, ragged=False))
