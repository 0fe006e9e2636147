"""The command line's conventions: exit statuses, results on stdout and progress on stderr, --version, usage
errors in one line (no traceback), options that do not apply refused, --help quiet and light."""

import io
import json
import os
import subprocess
import sys

import pytest
import torch

import jitvision
from jitvision import bench
from jitvision.__main__ import main as cli_main
from jitvision._audit.progress import Progress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Crashes(torch.nn.Module):
    """A user transform whose eager call raises: every case of it fails."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("this transform is broken")


class Scale(torch.nn.Module):
    def __init__(self, factor: float = 2.0) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.factor


def _audit(capsys, *args: str):
    code = cli_main(["audit", "--no-progress", "--modes", "eager", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_audit_exits_0_when_every_case_passes_and_1_when_one_fails(capsys):
    code, out, err = _audit(capsys, "--target", "tests.test_cli:Scale", "--kinds", "float")
    assert code == 0 and "cases per mode: eager 1 passed / 0 failed" in out and err == ""
    code, out, err = _audit(capsys, "--target", "tests.test_cli:Crashes", "--kinds", "float")
    assert code == 1
    assert "eager 0 passed / 1 failed" in out  # the results on stdout, the verdict on stderr
    assert "audit: 1 cases failed" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ops", "horizontal_flip,NotAThing"], "unknown ops for jitvision: NotAThing (not found in the target)"),
        (["--ops", "horizontal_flip", "--kinds", "png"], "unknown input kinds ['png']"),
        (["--target", "no_such_module"], "cannot import target module 'no_such_module'"),
        (["--target", "tests.test_cli:Nope"], "has no class 'Nope'"),
        (["--target", "tests.test_cli:Scale", "--init", "{bad"], "--init is not valid JSON"),
        (["--target", "tests.test_cli:Scale", "--init", "[1, 2]"], "--init must be a JSON object"),
        (["--ops", "horizontal_flip", "--init", '{"p": 1.0}'], "--init goes with --target module:Class"),
    ],
)
def test_audit_usage_errors_exit_2_with_one_line(capsys, args, message):
    code, out, err = _audit(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: audit: ") and message in err and len(err.splitlines()) == 1
    assert "Traceback" not in err


def test_audit_init_reaches_the_constructor(capsys, tmp_path):
    path = tmp_path / "audit.json"
    args = ["--target", "tests.test_cli:Scale", "--kinds", "float", "--init", '{"factor": 3.0}', "--json", str(path)]
    code, _, _ = _audit(capsys, *args)
    assert code == 0 and json.loads(path.read_text())["rows"][0]["op"] == "Scale"


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        cli_main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"jitvision {jitvision.__version__} (torch {torch.__version__}, native library: ")


def test_version_has_one_source():
    """pyproject.toml reads the version from jitvision/__init__.py: the installed metadata agrees with it."""
    import importlib.metadata

    assert importlib.metadata.version("jitvision") == jitvision.__version__


@pytest.mark.parametrize(
    "args, message",
    [
        (["--batch", "--layout", "hwc"], "--layout does not apply to --batch (it goes with the default pipelines)"),
        (["--augment", "--quick"], "--quick does not apply to --augment"),
        (["--threads", "2", "--plot", "x.png"], "--plot does not apply to --threads"),
        (["--libraries", "jitvision", "--runtimes", "eager"], "--runtimes does not apply to the default pipelines"),
        (["--threads", "1"], "--threads needs N >= 2"),
    ],
)
def test_bench_refuses_options_its_job_does_not_read(capsys, args, message):
    with pytest.raises(SystemExit) as exited:
        bench.main(args)
    captured = capsys.readouterr()
    assert exited.value.code == 2 and message in captured.err and captured.out == ""


def test_bench_augment_results_on_stdout_progress_on_stderr(capsys, monkeypatch):
    from jitvision._bench import augment

    row = {"job": "ta", "library": "jitvision", "mode": "eager", "time_us": 123.0, "vs_torchvision_eager": 0.5}

    def fake_run(jobs, min_run_time, rounds, log=None):
        log(augment.format_row(row))
        return [row]

    monkeypatch.setattr(augment, "run", fake_run)
    assert bench.main(["--augment", "--jobs", "ta", "--rounds", "1"]) == 0
    captured = capsys.readouterr()
    line = augment.format_row(row)
    assert captured.out.splitlines()[-1] == line and captured.out.startswith("torch ")
    assert captured.err.splitlines() == [line]


def test_progress_has_an_eta_and_writes_to_its_stream_only(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain bar (tqdm, when installed, draws its own)
    stream = io.StringIO()
    bar = Progress(4, enabled=True, stream=stream)
    bar.show("first")
    assert "0/4" in stream.getvalue() and "ETA ?" in stream.getvalue()
    bar.advance()
    bar.show("second")
    assert "1/4" in bar.line("second") and "ETA 0:0" in bar.line("second")
    bar.close()
    assert capsys.readouterr() == ("", "")
    silent = io.StringIO()
    Progress(4, enabled=False, stream=silent).show("x")
    assert silent.getvalue() == ""


def test_progress_uses_tqdm_when_installed():
    pytest.importorskip("tqdm", reason="tqdm is in the test extra")
    stream = io.StringIO()
    bar = Progress(2, enabled=True, stream=stream)
    bar.show("case")
    bar.advance()
    bar.show("next case")  # redraws
    bar.close()
    assert bar._tqdm is not None and "1/2" in stream.getvalue() and "next case" in stream.getvalue()


def test_help_is_quiet_and_loads_neither_dynamo_nor_the_timers():
    """--help writes only the usage (no torch warning on stderr) and imports no torch._dynamo (the audit's checks)
    and no torch.utils.benchmark / cpp_extension (the benchmark's timers, whose import warns about CUDA)."""
    code = (
        "import sys\n"
        "from jitvision.__main__ import main\n"
        "for args in (['--help'], ['audit', '--help'], ['bench', '--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, (args, exc.code)\n"
        "heavy = ['torch._dynamo', 'torch.utils.benchmark', 'torch.utils.cpp_extension', 'torchvision']\n"
        "print('LOADED', [name for name in heavy if name in sys.modules])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert "usage: python -m jitvision [-h] [--version]" in run.stdout
    assert "usage: python -m jitvision bench" in run.stdout and "--per-transform" in run.stdout
    assert run.stdout.splitlines()[-1] == "LOADED []"
