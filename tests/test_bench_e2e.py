"""``python -m jitvision bench --e2e``: every installed variant turns the same JPEG files into normalized
[3, 224, 224] tensors, the JSON holds every row, a missing library is a row that says how to install it. No timing
is asserted (the numbers of a quick run mean nothing)."""

import importlib.util
import io
import json
import os
import sys

import numpy as np
import PIL.Image
import pytest

from jitvision import bench
from jitvision._bench import _e2e_variants, _jpegs, _peer_process, e2e


def _write_jpegs(folder, count=4):
    gen = np.random.default_rng(0)
    for index in range(count):
        height, width = (60, 80) if index % 2 else (90, 70)
        # a colour plus noise, alike everywhere: every crop has the same statistics, whatever the library draws
        colour = np.array([150.0, 110.0, 90.0]) + 20 * index
        image = np.clip(colour + gen.normal(0, 30, (height, width, 3)), 0, 255).astype(np.uint8)
        PIL.Image.fromarray(image).save(folder / f"{index}.jpg", quality=90)
    (folder / "notes.txt").write_text("not an image")  # ignored: only .jpg/.jpeg files are read


def _installed(variant):
    """Whether the variant's library is installed here (its row must then run)."""
    if variant == "albumentations":
        return importlib.util.find_spec("albumentations") is not None and importlib.util.find_spec("cv2") is not None
    if variant == "albumentationsx":
        return _peer_process.albumentationsx_python() is not None
    if variant == "dali":
        return importlib.util.find_spec("nvidia") is not None and importlib.util.find_spec("nvidia.dali") is not None
    return True


def test_quick_run_on_a_folder_gives_every_row(tmp_path, capsys):
    _write_jpegs(tmp_path)
    out_json = tmp_path / "e2e.json"
    code = bench.main(["--e2e", str(tmp_path), "--quick", "--parts", "per-image", "--json", str(out_json)])
    assert code == 0
    data = json.loads(out_json.read_text())
    assert [row["variant"] for row in data["rows"]] == list(_e2e_variants.VARIANT_NAMES)
    assert data["files"] == {"count": 4, "per_image": 4}
    for row in data["rows"]:
        if not _installed(row["variant"]):
            assert "not installed" in row["unavailable"] or "not set up" in row["unavailable"], row
            continue
        assert "unavailable" not in row, row
        outputs = row["outputs"]
        assert outputs["shape"] == [3, 224, 224] and outputs["dtype"] == "float32" and outputs["finite"]
        assert outputs["problems"] == [], row
        assert row["us"] > 0 and row["best_us"] > 0 and row["wall_us"] > 0 and row["x_torchvision_pil"] > 0
    assert data["rows"][0]["x_torchvision_pil"] == pytest.approx(1.0)
    assert {goal["goal"] for goal in data["goals"]} >= {"jitvision-swap / torchvision-pil, per image"}
    assert len(data["goals"]) == 6
    printed = capsys.readouterr().out
    assert "| jitvision-fused |" in printed and "| goal | target | measured | met |" in printed


def test_loader_and_threads_parts(tmp_path):
    _write_jpegs(tmp_path, count=3)
    result = e2e.run(
        _jpegs.list_jpegs(str(tmp_path)),
        ["torchvision-pil", "jitvision-fused", "jitvision-batch"],
        parts=["loader", "threads"],
        min_run_time=0.01,
        rounds=1,
        loader_images=12,
        batch=2,
        loader_rounds=1,
        thread_images=6,
        check_passes=1,
    )
    for row in result["rows"]:
        loader = row["loader"]
        assert loader["images_per_s"] > 0 and loader["batch_shape"] == [2, 3, 224, 224], row
        assert "us" not in row  # per-image not asked for
    assert result["rows"][1]["loader"]["x_torchvision_pil"] > 0 and result["rows"][2]["loader"]["x_torchvision_pil"] > 0
    assert result["loader_control"]["images_per_s"] > 0 and "us" not in result["loader_control"]
    fused = result["threads"]["jitvision-fused"]
    assert fused["images_per_s_1"] > 0 and fused["images_per_s_2"] > 0
    assert fused["speedup"] == pytest.approx(fused["images_per_s_2"] / fused["images_per_s_1"])
    assert fused["cores_1"] > 0 and fused["cores_2"] > 0
    assert len(result["threads"]) == 2  # and the control


def test_dali_missing_is_a_row_with_the_pip_command(tmp_path, monkeypatch):
    _write_jpegs(tmp_path, count=2)
    monkeypatch.setitem(sys.modules, "nvidia.dali", None)  # import nvidia.dali raises ImportError
    result = e2e.run(_jpegs.list_jpegs(str(tmp_path)), ["torchvision-pil", "dali"], parts=["per-image"],
                     min_run_time=0.01, rounds=1, check_passes=1)
    dali = result["rows"][1]
    assert "not installed" in dali["unavailable"] and "pip install nvidia-dali-cuda120" in dali["unavailable"]
    assert "us" not in dali
    assert "not run: NVIDIA DALI is not installed" in e2e.format_markdown(result)


def test_the_default_set_is_made_once_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("JITVISION_CACHE_DIR", str(tmp_path))
    folder, label = _jpegs.generated(quick=True)
    paths = _jpegs.list_jpegs(folder)
    assert folder.startswith(str(tmp_path)) and len(paths) == 4 and "q90" in label
    stamps = [os.stat(p).st_mtime_ns for p in paths]
    for path in paths:
        with PIL.Image.open(path) as image:
            assert image.format == "JPEG" and image.mode == "RGB"
    assert _jpegs.generated(quick=True)[0] == folder
    assert [os.stat(p).st_mtime_ns for p in paths] == stamps  # kept, not written again


def test_sanity_catches_a_pipeline_that_does_not_normalize():
    reference = {"shape": [3, 224, 224], "dtype": "float32", "finite": True, "mean": [0.1, -0.1, 0.0], "std": 1.1}
    unnormalized = {"shape": [3, 224, 224], "dtype": "float32", "finite": True, "mean": [0.48, 0.45, 0.4], "std": 0.27}
    problems = e2e.sanity(unnormalized, reference)
    assert any("channel means" in p for p in problems) and any("deviation" in p for p in problems)
    hwc = dict(reference, shape=[224, 224, 3], dtype="uint8")
    assert len(e2e.sanity(hwc, reference)) == 2
    assert e2e.sanity(reference, reference) == []


def test_outputs_statistics_of_tensors_and_arrays():
    import torch

    stats = e2e._e2e_common.output_stats([torch.zeros(3, 4, 4), np.ones((3, 4, 4), dtype=np.float32)])
    assert stats["shape"] == [3, 4, 4] and stats["dtype"] == "float32" and stats["finite"]
    assert stats["mean"] == [0.5, 0.5, 0.5]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--e2e", "--variants", "nope"], "unknown variant ['nope']"),
        (["--e2e", "--parts", "nope"], "unknown part ['nope']"),
        (["--e2e", "--jobs", "train"], "--jobs does not apply to --e2e"),
        (["--pil", "somewhere"], "goes with --e2e only"),
    ],
)
def test_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exited:
        bench.main(args)
    assert exited.value.code == 2 and message in capsys.readouterr().err


def test_a_folder_without_jpegs_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "a.png").write_bytes(b"")
    with pytest.raises(SystemExit) as exited:
        bench.main(["--e2e", str(tmp_path), "--quick"])
    assert exited.value.code == 2 and "no .jpg or .jpeg file" in capsys.readouterr().err


def test_plot_writes_a_png(tmp_path):
    result = {
        "rows": [
            {"variant": "torchvision-pil", "us": 2000.0, "loader": {"images_per_s": 700.0}},
            {"variant": "jitvision-fused", "us": 800.0, "loader": {"images_per_s": 1900.0}},
            {"variant": "dali", "unavailable": "NVIDIA DALI is not installed"},
        ]
    }
    path = tmp_path / "e2e.png"
    assert e2e.plot(result, str(path), "test")
    with PIL.Image.open(io.BytesIO(path.read_bytes())) as image:
        assert image.format == "PNG"
