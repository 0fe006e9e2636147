"""The benchmark CLI: structure of its table/JSON and parity of the pipelines it times (never its speed)."""

import json

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from jitvision import bench

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


def test_unknown_choice_is_rejected():
    with pytest.raises(SystemExit, match="unknown job"):
        bench.main(["--jobs", "nope"])


def test_missing_library_is_reported_unavailable(monkeypatch):
    def refuse(job):
        raise bench.Unavailable("albumentations is not installed")

    monkeypatch.setattr(bench, "_albumentations", refuse)
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
