"""The benchmark CLI: structure of its table/JSON and parity of the pipelines it times (never its speed)."""

import json

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import bench
from jitvision._bench import pipelines

EAGER = [v for v in bench.VARIANTS if v[2] == "eager"]


def test_quick_run_rows_and_table():
    rows = bench.run(["train"], EAGER, min_run_time=0.01)
    assert [(r["library"], r["style"], r["mode"]) for r in rows] == EAGER
    for row in rows:
        assert row["job"] == "train"
        if row["time_us"] is None:
            assert row["unavailable"]
        else:
            assert row["time_us"] > 0
    baseline = next(r for r in rows if (r["library"], r["style"]) == ("torchvision", "compose"))
    assert baseline["time_us"] is not None and baseline["vs_torchvision_eager"] == pytest.approx(1.0)
    table = bench.format_table(rows)
    assert table.splitlines()[0].split()[:4] == ["job", "library", "style", "mode"]
    assert len(table.splitlines()) == len(rows) + 2


def test_main_writes_json_and_prints_the_table(tmp_path, capsys):
    path = tmp_path / "bench.json"
    code = bench.main(
        ["--jobs", "infer", "--libraries", "jitvision,torchvision", "--styles", "compose,fused", "--quick"]
        + ["--min-run-time", "0.01", "--json", str(path)]
    )
    assert code == 0
    data = json.loads(path.read_text())
    keys = [(r["library"], r["style"], r["mode"]) for r in data["rows"]]
    assert keys == [
        ("jitvision", "compose", "eager"),
        ("jitvision", "fused", "eager"),
        ("torchvision", "compose", "eager"),
    ]
    assert data["threads"] == 1
    out = capsys.readouterr().out
    assert "us (best)" in out and "infer" in out


def test_unknown_choice_is_rejected(capsys):
    with pytest.raises(SystemExit) as exited:
        bench.main(["--jobs", "nope"])
    assert exited.value.code == 2 and "unknown job ['nope']" in capsys.readouterr().err


def test_missing_library_is_reported_unavailable(monkeypatch):
    def refuse(job):
        raise bench.Unavailable("albumentations is not installed")

    monkeypatch.setattr(pipelines, "_albumentations", refuse)
    rows = bench.run(["train"], [("albumentations", "compose", "eager")], min_run_time=0.01)
    assert rows[0]["time_us"] is None and "not installed" in rows[0]["unavailable"]


@pytest.mark.parametrize("job", ["train", "infer"])
@pytest.mark.parametrize("style", ["kernels", "functional"])
def test_jitvision_and_torchvision_pipelines_agree(job, style):
    # Same fixed crop box and flip: the timed jitvision and torchvision pipelines compute the same thing.
    image = bench.make_input(job, "jitvision")
    ours = bench.build("jitvision", style, "eager", job)(image)
    theirs = bench.build("torchvision", "functional", "eager", job)(image)
    torch.testing.assert_close(ours, theirs, atol=1e-4, rtol=0)


def test_fused_variant_matches_torchvision_compose_on_inference():
    image = bench.make_input("infer", "jitvision")
    fused = bench.build("jitvision", "fused", "eager", "infer")(image)
    torch.testing.assert_close(fused, bench.compose(tv_transforms, "infer")(image), atol=1e-4, rtol=0)
    torch.manual_seed(3)
    train_fused = bench.build("jitvision", "fused", "eager", "train")(bench.make_input("train", "jitvision"))
    torch.manual_seed(3)
    train_compose = bench.compose(T, "train")(bench.make_input("train", "jitvision"))
    torch.testing.assert_close(train_fused, train_compose, atol=1e-4, rtol=0)


@pytest.mark.parametrize("job", ["train", "infer"])
def test_hwc_layout_is_the_same_image_in_channels_last_memory(job):
    chw, hwc = bench.make_input(job, "jitvision"), bench.make_input(job, "jitvision", "hwc")
    assert torch.equal(chw, hwc) and hwc.stride()[0] == 1 and hwc.stride()[-1] == 3
    # The timed pipelines compute the same thing on either layout.
    torch.manual_seed(1)
    expected = bench.compose(T, job)(chw)
    torch.manual_seed(1)
    torch.testing.assert_close(bench.compose(T, job)(hwc), expected, atol=0, rtol=0)
    with pytest.raises(SystemExit):
        bench.main(["--layout", "nhwc"])


def test_plot_writes_a_png(tmp_path):
    rows = [
        {"job": "train", "library": "jitvision", "style": "fused", "mode": "eager", "time_us": 100.0},
        {"job": "train", "library": "torchvision", "style": "compose", "mode": "eager", "time_us": 500.0},
        {"job": "train", "library": "albumentations", "style": "compose", "mode": "eager", "time_us": None},
    ]
    path = tmp_path / "bench.png"
    assert bench.plot(rows, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- --per-transform and --batch ------------------------------------------------------------------------------

from jitvision._bench import _peer_process, _photos, _rows, _timing, per_transform  # noqa: E402
from jitvision._bench import batch as batch_job  # noqa: E402
from jitvision._bench import mix as mix_job  # noqa: E402

TINY = [_photos._synthetic(24, 32, 0), _photos._synthetic(30, 20, 1), _photos._synthetic(24, 32, 2)]


def test_photo_loader_falls_back_to_labelled_synthetic_images(monkeypatch):
    monkeypatch.setattr(_photos, "skimage_data_dir", lambda: None)
    images, names, label = _photos.load_photos()
    assert "SYNTHETIC" in label and all(name.startswith("synthetic-") for name in names)
    assert [tuple(i.shape) for i in images] == [(h, w, 3) for _, _, h, w in _photos.PHOTOS]
    assert all(i.dtype == torch.uint8 and i.is_contiguous() for i in images)
    assert len({int(i.float().std() > 5) for i in images}) == 1  # not flat
    forced = _photos.load_photos(["chelsea"], synthetic=True)
    assert forced[1] == ["synthetic-chelsea"] and "requested" in forced[2]
    with pytest.raises(ValueError, match="load_photos"):
        _photos.load_photos(["nope"])


def test_photo_loader_reads_the_files_it_finds(monkeypatch, tmp_path):
    import numpy as np
    import PIL.Image

    for _, file, h, w in _photos.PHOTOS:
        array = np.random.default_rng(0).integers(0, 256, (h // 8, w // 8, 3), dtype=np.uint8)
        PIL.Image.fromarray(array).save(tmp_path / file.replace(".jpg", ".png"))
        if file.endswith(".jpg"):
            (tmp_path / file.replace(".jpg", ".png")).rename(tmp_path / file)
    monkeypatch.setattr(_photos, "skimage_data_dir", lambda: str(tmp_path))
    images, names, label = _photos.load_photos(["astronaut", "rocket"])
    assert names == ["astronaut", "rocket"] and str(tmp_path) in label
    assert [tuple(i.shape) for i in images] == [(64, 64, 3), (53, 80, 3)]


def test_preloaded_formats():
    inputs = per_transform.preload(TINY)
    chw, hwc, flt = inputs["chw"][1], inputs["hwc"][1], inputs["float"][1]
    assert chw.shape == (3, 30, 20) and chw.dtype == torch.uint8 and chw.is_contiguous()
    assert hwc.shape == (30, 20, 3) and hwc.dtype.name == "uint8" and hwc.flags["C_CONTIGUOUS"]
    assert flt.dtype == torch.float32 and flt.is_contiguous() and 0 <= flt.min() and flt.max() <= 1
    torch.testing.assert_close(flt, chw.float() / 255)
    assert torch.equal(torch.from_numpy(hwc).permute(2, 0, 1), chw)


def test_compile_static_counts_one_graph_per_size():
    with _timing.static_shapes():
        torch._dynamo.reset()
        fn, counter = _timing.compile_static(lambda x: x.flip(-1) + 1, "eager")
        for image in per_transform.preload(TINY)["chw"] * 2:
            fn(image)
    assert counter.graphs == 2


def _fake_row(name="Missing"):
    return _rows.Row(name, lambda ns: _rows.cls(ns, "NoSuchTransform")(), None, None)


def test_per_transform_rows_on_tiny_images(monkeypatch):
    def no_kornia():
        raise _timing.Unavailable("kornia is not installed")

    monkeypatch.setattr(per_transform, "_kornia", no_kornia)
    monkeypatch.setattr(_peer_process, "albumentationsx_python", lambda: None)
    rows = [row for row in _rows.ROWS if row.name in ("HorizontalFlip", "Pad", "Normalize")] + [_fake_row()]
    results = per_transform.run(rows, TINY, min_run_time=0.01, rounds=2, backend="eager")
    assert [r["row"] for r in results] == ["HorizontalFlip", "Pad", "Normalize", "Missing"]
    for result in results[:3]:
        cells = result["variants"]
        assert list(cells) == [f"{lib} {mode}" for lib, mode in per_transform.VARIANTS]
        for key in ("jitvision eager", "jitvision compiled", "torchvision eager"):
            assert cells[key]["images_per_s"] > 0, (result["row"], key, cells[key])
        assert cells["jitvision compiled"]["graphs"] == 2  # one per image size, warmed up before timing
        assert "recompiled_during_timing" not in cells["jitvision compiled"]
        assert cells["kornia eager"]["images_per_s"] is None and "not installed" in cells["kornia eager"]["unavailable"]
        assert "make albumentationsx" in cells["albumentationsx eager"]["unavailable"]
        best = max(cells["jitvision eager"]["images_per_s"], cells["jitvision compiled"]["images_per_s"])
        assert result["vs_torchvision"] == pytest.approx(best / cells["torchvision eager"]["images_per_s"])
        alb = cells["albumentations eager"]
        assert (alb["images_per_s"] is None) == (result["vs_albumentations"] is None)
        if alb["images_per_s"] is None:
            assert alb["unavailable"]
    missing = results[3]["variants"]
    assert "has no NoSuchTransform" in missing["jitvision eager"]["unavailable"]
    assert "has no NoSuchTransform" in missing["torchvision eager"]["unavailable"]
    assert results[3]["vs_torchvision"] is None
    table = per_transform.format_markdown(results)
    lines = table.splitlines()
    assert lines[0].startswith("| transform | jitvision eager | jitvision compiled |")
    assert lines[5].startswith("| Missing | – | – | – |")
    assert "- Missing / jitvision eager, jitvision compiled: jitvision.transforms has no NoSuchTransform" in lines
    assert any(line.startswith("Graphs compiled") and "Pad=2" in line for line in lines)


def test_every_row_builds_the_same_transform_in_jitvision_and_torchvision():
    import torchvision.transforms.v2 as TV

    image = per_transform.preload([_photos._synthetic(150, 170, 3)])["chw"][0]
    checked = 0
    for row in _rows.ROWS:
        try:
            ours = row.torch(T)
        except _timing.Unavailable as exc:
            assert "jitvision.transforms has no" in str(exc)
            continue
        theirs = row.torch(TV)
        torch.manual_seed(0)
        expected = theirs(image)
        torch.manual_seed(0)
        got = ours(image)
        if row.name == "IoUCrop":  # its candidates are drawn from another stream than torchvision's loop
            assert got.shape[0] == expected.shape[0] and got.dtype == expected.dtype, row.name
        else:
            assert got.shape == expected.shape and got.dtype == expected.dtype, row.name
        if row.name in ("Resize", "CenterCrop", "HorizontalFlip", "VerticalFlip", "Pad", "Normalize", "GaussianBlur",
                        "GaussianBlur9", "JPEG"):
            torch.testing.assert_close(got, expected, atol=1e-4 if got.is_floating_point() else 1, rtol=0)
        checked += 1
    assert checked >= 8


def test_main_per_transform_quick_writes_json(tmp_path, capsys):
    path = tmp_path / "pt.json"
    args = ["--per-transform", "--quick", "--synthetic", "--photos", "chelsea", "--only", "HorizontalFlip,Pad"]
    assert bench.main(args + ["--json", str(path), "--min-run-time", "0.01"]) == 0
    data = json.loads(path.read_text())
    assert [r["row"] for r in data["rows"]] == ["HorizontalFlip", "Pad"]
    assert data["photos"] == ["synthetic-chelsea"] and data["threads"] == 1
    assert all("jitvision compiled" not in r["variants"] for r in data["rows"])  # --quick: eager only
    out = capsys.readouterr().out
    assert "| transform |" in out and "SYNTHETIC" in out
    with pytest.raises(SystemExit) as exited:
        bench.main(["--per-transform", "--only", "Nope"])
    assert exited.value.code == 2 and "unknown row ['Nope']" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        bench.main(["--only", "Pad"])
    assert exited.value.code == 2
    assert "--only does not apply to the default pipelines (it goes with --per-transform)" in capsys.readouterr().err


def test_per_transform_plot_writes_a_png(tmp_path):
    results = [
        {"row": "Pad", "variants": {"jitvision eager": {"images_per_s": 10.0}, "kornia eager": {"images_per_s": None}}}
    ]
    path = tmp_path / "pt.png"
    assert per_transform.plot(results, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_batch_job_on_a_tiny_batch(monkeypatch):
    rows = batch_job.run(shape=(3, 3, 40, 36), crop=32, min_run_time=0.01, rounds=1, backend="eager")
    assert [(r["variant"], r["mode"]) for r in rows] == batch_job.VARIANTS
    by_key = {(r["variant"], r["mode"]): r for r in rows}
    for key in (("jitvision loop", "eager"), ("torchvision loop", "eager")):
        assert by_key[key]["time_ms"] > 0 and by_key[key]["us_per_image"] > 0
    assert by_key[batch_job.BASE_LOOP]["vs_jitvision_loop"] == pytest.approx(1.0)
    for row in rows:
        assert (row["time_ms"] is None) == bool(row.get("unavailable")), row
        if row["mode"] == "compiled" and row["time_ms"] is not None:
            assert row["graphs"] >= 1 and "recompiled_during_timing" not in row
    table = batch_job.format_markdown(rows).splitlines()
    assert table[0].startswith("| variant | mode | ms / batch |") and len(table) >= len(rows) + 2


def test_batch_variants_return_a_float_batch_or_say_why():
    x = batch_job.make_batch((1, 3, 40, 36)).expand(2, 3, 40, 36).contiguous()  # two copies of one image
    for name, mode in batch_job.VARIANTS:
        if mode != "eager":
            continue
        try:
            fn, _, kind = batch_job.build(name, mode, crop=32)
        except _timing.Unavailable as exc:
            assert str(exc)
            continue
        inpt = {"uint8": x, "float": x.float() / 255}.get(kind)
        if kind == "batched":
            inpt = batch_job._jitvision()[1].BatchedImages(x)
        torch.manual_seed(0)  # deterministic draws: two different crops of the two copies
        out = fn(inpt)
        assert out.shape == (2, 3, 32, 32) and out.dtype == torch.float32, name
        assert not torch.equal(out[0], out[1]), f"{name}: one draw for the whole batch"  # per-sample crops


def test_main_batch_quick(capsys):
    assert bench.main(["--batch", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "| jitvision loop | eager |" in out
    assert "| MixUp |" in out and "| CutMix |" in out


def test_batch_job_times_mixup_and_cutmix_against_torchvision():
    rows = mix_job.run(shape=(4, 3, 24, 20), min_run_time=0.01, rounds=1)
    assert [row["op"] for row in rows] == list(mix_job.OPS)
    for row in rows:
        assert row["jitvision_ms"] > 0 and row["torchvision_ms"] > 0, row
        assert row["vs_torchvision"] == pytest.approx(row["torchvision_ms"] / row["jitvision_ms"])
    table = mix_job.format_markdown(rows, (4, 3, 24, 20)).splitlines()
    assert "| op | jitvision ms | torchvision ms | x torchvision |" in table
    assert sum(line.startswith("| MixUp |") or line.startswith("| CutMix |") for line in table) == 2


def test_detection_job_runs_compose_only():
    rows = bench.run(
        ["detection"], [("jitvision", "compose", "eager"), ("jitvision", "fused", "eager")], min_run_time=0.01, rounds=1
    )
    assert rows[0]["time_us"] > 0 and rows[0]["vs_torchvision_eager"] is None
    assert "Compose only" in rows[1]["unavailable"]
    sample = bench.make_input("detection", "jitvision")
    out = bench.build("jitvision", "compose", "eager", "detection")(sample)
    assert out["image"].shape == (3, pipelines.DETECTION_SIZE, pipelines.DETECTION_SIZE)
    assert out["boxes"].shape[0] == out["masks"].shape[0] == out["labels"].shape[0]


def test_augment_pipelines_build_and_agree_in_shape():
    from jitvision._bench import augment

    for job in augment.JOBS:
        ours = augment.build("jitvision", "eager", job)(augment.make_input("jitvision"))
        theirs = augment.build("torchvision", "eager", job)(augment.make_input("torchvision"))
        assert ours.shape == theirs.shape == (3, 224, 224) and ours.dtype == theirs.dtype == torch.float32
    row = {"job": "ta", "library": "timm", "mode": "eager", "time_us": None, "unavailable": "timm is not installed"}
    assert "unavailable" in augment.format_row(row)


# A stand-in for AlbumentationsX (installed under the module name albumentations): a class that warns about the
# arguments it does not take and falls back to its defaults, as AlbumentationsX's renamed classes do.
FAKE_ALBUMENTATIONSX = """
import warnings

__version__ = "2.5.1-fake"


class HorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, image):
        return {"image": image[:, ::-1]}


class Sharpen:
    def __init__(self, p=0.5, **unknown):
        if unknown:
            warnings.warn(f"Argument(s) '{', '.join(unknown)}' are not valid for transform Sharpen", UserWarning)
"""


def test_albumentationsx_runs_in_its_own_process_at_the_stated_parameters(tmp_path, monkeypatch):
    import os
    import sys

    (tmp_path / "albumentations.py").write_text(FAKE_ALBUMENTATIONSX)
    monkeypatch.setenv(_peer_process.PYTHON_ENV, sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rows = [row for row in _rows.ROWS if row.name in ("HorizontalFlip", "Sharpen", "Elastic", "Resize")]
    variants = [("jitvision", "eager"), ("albumentationsx", "eager")]
    versions = {}
    results = {r["row"]: r for r in per_transform.run(rows, TINY, variants, 0.01, 2, "eager", versions=versions)}
    assert versions["albumentationsx"] == "2.5.1-fake"
    flip = results["HorizontalFlip"]
    assert flip["variants"]["albumentationsx eager"]["images_per_s"] > 0
    assert flip["vs_albumentationsx"] == pytest.approx(
        flip["variants"]["jitvision eager"]["images_per_s"] / flip["variants"]["albumentationsx eager"]["images_per_s"]
    )
    # The stand-in's Sharpen takes none of the row's arguments: it warns, and the worker refuses the row.
    sharpen = results["Sharpen"]["variants"]["albumentationsx eager"]
    assert sharpen["images_per_s"] is None and "not valid for transform Sharpen" in sharpen["unavailable"]
    assert "another algorithm" in results["Elastic"]["variants"]["albumentationsx eager"]["unavailable"]
    assert "Resize" in results["Resize"]["variants"]["albumentationsx eager"]["unavailable"]
    assert "jv best / albx" in per_transform.format_markdown(list(results.values()), variants)


def test_new_rows_match_torchvision():
    import torchvision.transforms.v2 as TV

    image = per_transform.preload([_photos._synthetic(150, 170, 3)])["chw"][0]
    for name in ("Gamma", "RotateNearest"):
        row = next(r for r in _rows.ROWS if r.name == name)
        torch.manual_seed(0)
        expected = row.torch(TV)(image)
        torch.manual_seed(0)
        got = row.torch(T)(image)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        if name == "Gamma":
            assert torch.equal(got, expected)
