"""The C++ deployment example (examples/deploy): a program built against the libtorch inside the installed torch
wheel runs the presets scripted (with the native library's ops, and portable: torch ops only) and as AOTInductor
packages (torch.export default and strict), with outputs equal to eager, random draws live, dynamic height and width
for the deterministic preset, and the loading order enforced (library first).

The binary is cached in build/deploy (keyed by the source); the artifacts are built once per module.
"""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from jitvision import _native

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "deploy"))

# By name after the path insert (not import statements: whether isort calls `build` first- or third-party depends on
# a build/ folder being in the checkout).
deploy_export = importlib.import_module("export")
deploy_build = importlib.import_module("build")

# One xdist worker builds the artifacts (make test runs pytest -n 2 --dist loadgroup): a module fixture per worker
# would compile the AOTInductor packages twice.
pytestmark = pytest.mark.xdist_group("deploy_cpp")
SEED = 1234
SMALL = {"train": (64, 72), "infer": (240, 300)}  # small inputs: the pipelines crop or resize to 224 anyway


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
    binary = deploy_build.build(quiet=True)
    paths = deploy_export.export_all(tmp_path_factory.mktemp("deploy"), ["train", "infer"], SMALL)
    return binary, paths


def _run(artifacts, preset, kind, calls=1, image=None, native=True, tmp=None):
    binary, paths = artifacts
    raw = paths[f"{preset}.raw"]
    if image is not None:
        raw = tmp / "input.raw"
        deploy_export.write_raw(raw, image)
    prefix = str(tmp / f"{preset}-{kind}-")
    deploy_export.run_binary(
        binary, kind, paths[f"{preset}.{kind}"], raw, "--calls", str(calls), "--seed", str(SEED), "--out", prefix,
        native=native,
    )
    return [deploy_export.read_raw(Path(f"{prefix}{i}.raw")) for i in range(calls)]


def _eager(preset, x, calls):
    pipe = deploy_export.pipeline(preset)
    torch.manual_seed(SEED)
    return [pipe(x) for _ in range(calls)]


@pytest.mark.parametrize("kind", ["script", "portable", "aoti", "aoti-strict"])
def test_training_preset_in_cpp_equals_eager_and_stays_random(artifacts, kind, tmp_path):
    outs = _run(artifacts, "train", kind, calls=3, native=kind != "portable", tmp=tmp_path)
    x = deploy_export.read_raw(artifacts[1]["train.raw"])
    # The portable script resizes with interpolate (bit-identical uint8), then converts in torch: float rounding.
    atol = 1e-5 if kind == "portable" else 0
    for actual, expected in zip(outs, _eager("train", x, 3)):
        assert actual.shape == (3, 224, 224) and actual.dtype == torch.float32
        torch.testing.assert_close(actual, expected, rtol=0, atol=atol)
    assert not torch.equal(outs[0], outs[1]) and not torch.equal(outs[1], outs[2])


@pytest.mark.parametrize("kind", ["script", "portable", "aoti", "aoti-strict"])
def test_inference_preset_in_cpp_equals_eager_on_other_sizes(artifacts, kind, tmp_path):
    atol = 1e-5 if kind == "portable" else 0
    for h, w in [SMALL["infer"], (300, 257)]:
        x = torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=torch.Generator().manual_seed(h))
        (actual,) = _run(artifacts, "infer", kind, image=x, native=kind != "portable", tmp=tmp_path)
        torch.testing.assert_close(actual, _eager("infer", x, 1)[0], rtol=0, atol=atol)


@pytest.mark.parametrize("kind", ["script", "aoti"])
def test_native_artifacts_need_the_library_loaded_first(artifacts, kind, tmp_path):
    # Neither a scripted module nor an AOTInductor package records that it needs the op library.
    with pytest.raises(RuntimeError, match="jitvision_native"):
        _run(artifacts, "train", kind, native=False, tmp=tmp_path)


@pytest.mark.parametrize("kind", ["script", "aoti"])
def test_threads_mode_runs_each_thread_its_own_pipeline(artifacts, kind, tmp_path):
    binary, paths = artifacts
    prefix = str(tmp_path / "thread-")
    out = deploy_export.run_binary(
        binary, kind, paths[f"infer.{kind}"], paths["infer.raw"], "--threads", "2", "--seconds", "0.2", "--out", prefix
    )
    fields = out.split()
    values = dict(zip(fields[::2], fields[1::2]))
    assert values["threads"] == "2" and int(values["calls"]) > 0 and float(values["calls_per_s"]) > 0, out
    assert 0 < float(values["cpu_per_s"]) <= 2.5, out
    expected = _eager("infer", deploy_export.read_raw(paths["infer.raw"]), 1)[0]
    for thread in range(2):
        torch.testing.assert_close(deploy_export.read_raw(Path(f"{prefix}{thread}.raw")), expected, rtol=0, atol=0)


def test_threads_mode_control_and_random_pipeline(artifacts, tmp_path):
    binary, paths = artifacts
    control = subprocess.run(
        [str(binary), "--control", "--threads", "2", "--seconds", "0.1"], capture_output=True, text=True, check=True
    )
    assert control.stdout.startswith("threads 2 calls "), control.stdout
    prefix = str(tmp_path / "train-")
    deploy_export.run_binary(
        binary, "script", paths["train.script"], paths["train.raw"], "--threads", "2", "--seconds", "0.1", "--out",
        prefix,
    )
    first, second = (deploy_export.read_raw(Path(f"{prefix}{t}.raw")) for t in range(2))
    assert first.shape == second.shape == (3, 224, 224) and first.dtype == torch.float32
    assert not torch.equal(first, second)  # the draws stay live across threads (one global generator)



# ---- JPEG((50, 95)) and RandAugment() on uint8: C++ ops whose draws are aten ops in the graph ----
SMALL_OPS = {"jpeg": (64, 72), "randaug": (64, 72)}


@pytest.fixture(scope="module")
def op_artifacts(tmp_path_factory):
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
    binary = deploy_build.build(quiet=True)
    return binary, deploy_export.export_all(tmp_path_factory.mktemp("deploy-ops"), ["jpeg", "randaug"], SMALL_OPS)


@pytest.mark.parametrize("preset", ["jpeg", "randaug"])
def test_scripted_op_presets_in_cpp_equal_eager_for_a_seed(op_artifacts, preset, tmp_path):
    # Scripted, the draws are torch's global generator's, as in eager: the same seed gives the same outputs.
    outs = _run(op_artifacts, preset, "script", calls=4, tmp=tmp_path)
    x = deploy_export.read_raw(op_artifacts[1][f"{preset}.raw"])
    for actual, expected in zip(outs, _eager(preset, x, 4)):
        assert actual.dtype == torch.uint8 and actual.shape == x.shape
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)
    assert len({bytes(o.numpy()) for o in outs}) > 1


def test_aoti_jpeg_in_cpp_is_a_jpeg_of_a_drawn_quality(op_artifacts, tmp_path):
    # In the package inductor generates the quality draw (not eager's numbers for a seed): each output must be the
    # codec's output at one quality in [50, 95], and the qualities must vary.
    from jitvision.transforms import functional as F

    outs = _run(op_artifacts, "jpeg", "aoti", calls=6, tmp=tmp_path)
    x = deploy_export.read_raw(op_artifacts[1]["jpeg.raw"])
    candidates = {q: F.jpeg(x, q) for q in range(50, 96)}
    qualities = []
    for out in outs:
        assert out.dtype == torch.uint8 and out.shape == x.shape
        matches = [q for q, c in candidates.items() if torch.equal(out, c)]
        assert matches, "not the codec's output at any quality in [50, 95]"
        qualities.append(matches[0])
    assert len(set(qualities)) > 1, qualities


def test_aoti_randaugment_in_cpp_stays_random(op_artifacts, tmp_path):
    # Inductor's draws: shape, dtype and live randomness are what can be checked against eager here.
    outs = _run(op_artifacts, "randaug", "aoti", calls=6, tmp=tmp_path)
    x = deploy_export.read_raw(op_artifacts[1]["randaug.raw"])
    assert all(o.dtype == torch.uint8 and o.shape == x.shape for o in outs)
    assert len({bytes(o.numpy()) for o in outs}) > 2
    assert any(not torch.equal(o, x) for o in outs)
