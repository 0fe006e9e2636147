"""Several Python threads calling one AOTInductor package (loaded the documented way) do not deadlock; the
``bench --threads`` job's rows."""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import warnings

import pytest
import torch

import jitvision.transforms as T
from jitvision._bench import threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    # A small random pipeline, exported non-strict: its graph calls jitvision's crop op by the dispatcher from the
    # AOTI runner (a Python custom op today: the case that deadlocked with aoti_load_package's single runner).
    pipeline = T.Compose([T.RandomResizedCrop(16), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)])
    image = torch.randint(0, 256, (3, 32, 40), dtype=torch.uint8)
    path = str(tmp_path_factory.mktemp("aoti") / "small.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.export.export(pipeline, (image,), strict=False)
        torch._inductor.aoti_compile_and_package(exported, package_path=path)
    return path


_CALLER = textwrap.dedent(
    """
    import os, sys, threading
    import torch
    import jitvision.transforms  # registers jitvision's ops
    from jitvision.aoti import load_for_threads

    model = load_for_threads(sys.argv[1], 2)
    image = torch.randint(0, 256, (3, 32, 40), dtype=torch.uint8)
    outs = [[], []]

    def work(i):
        torch.set_num_threads(1)
        for _ in range(100):
            outs[i].append(model(image.clone()))

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    flat = [o for out in outs for o in out]
    ok = len(flat) == 200 and all(o.shape == (3, 16, 16) and o.dtype == torch.float32 for o in flat)
    distinct = len({o.sum().item() for o in flat})
    print("calls", len(flat), "ok", ok, "distinct", distinct, flush=True)
    os._exit(0 if ok and distinct > 1 else 1)
    """
)


def test_two_threads_one_package_no_deadlock(package):
    # In a subprocess with a timeout: a deadlock that holds the GIL would hang this process too.
    result = subprocess.run(
        [sys.executable, "-c", _CALLER, package], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert "calls 200 ok True" in result.stdout


def test_threads_job_rows():
    rows = threads.run(["train"], ["eager", "torchvision"], threads=2, seconds=0.05, rounds=1)
    assert [(r["job"], r["runtime"]) for r in rows] == [("train", "eager"), ("train", "torchvision")]
    for row in rows:
        assert row["calls_1"] > 0 and row["calls_n"] > 0 and row["speedup"] > 0 and 0 < row["gil_held"] <= 1
        assert row["cpu_per_s"] > 0 and row["cpu_us_1"] > 0 and row["cpu_us_n"] > 0 and row["waits_per_call"] >= 0
    assert rows[1]["vs_torchvision_eager"] == pytest.approx(1.0)
    assert rows[0]["vs_torchvision_eager"] == pytest.approx(rows[0]["time_us"] / rows[1]["time_us"])
    table = threads.format_markdown(rows)
    assert table.count("\n") == 3 and "| train | eager |" in table and "| train | torchvision |" in table


def test_native_call_is_the_fused_pipelines_call():
    # The native-op / compiled-op rows time the call the fused presets make: the inference preset's output is the
    # pipeline's, bit for bit, on a random size; the training preset's is random (a crop, a flip) of the same form.
    import jitvision.transforms as T
    from jitvision.bench import compose

    gen = torch.Generator().manual_seed(int(torch.randint(0, 2**31, ()).item()))
    height, width = (int(v) for v in torch.randint(230, 400, (2,), generator=gen))
    image = torch.randint(0, 256, (3, height, width), dtype=torch.uint8, generator=gen)
    torch.testing.assert_close(threads.native_call("infer")(image), compose(T, "infer")(image), rtol=0, atol=0)
    outputs = [threads.native_call("train")(image) for _ in range(4)]
    assert all(o.shape == (3, 224, 224) and o.dtype == torch.float32 for o in outputs)
    assert any(not torch.equal(outputs[0], o) for o in outputs[1:])  # the draws stay live
    with pytest.raises(threads.Unavailable):
        threads.native_call("detection")


def test_gil_held_measures_the_gil():
    numbers = list(range(200_000, 0, -1))
    holds = threads.gil_held(lambda x: sorted(numbers), torch.zeros(1), calls=5)  # C code, no GIL release
    releases = threads.gil_held(lambda x: time.sleep(0.02), torch.zeros(1), calls=5)
    assert holds > 0.9 and releases < 0.5, (holds, releases)


def test_threads_job_reports_a_failing_runtime(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no such runtime here")

    monkeypatch.setattr(threads, "_onnxruntime", broken)
    (row,) = threads.run(["infer"], ["onnxruntime"], threads=2, seconds=0.05, rounds=1)
    assert "no such runtime here" in row["unavailable"] and "time_us" not in row
    assert "unavailable: RuntimeError: no such runtime here" in threads.format_markdown([row])


def test_bench_cli_threads(tmp_path, capsys):
    from jitvision import bench

    path = tmp_path / "threads.json"
    args = ["--threads", "2", "--quick", "--jobs", "infer", "--runtimes", "torchvision,eager", "--json", str(path)]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    assert "| infer | torchvision |" in out and "| infer | eager |" in out
    data = json.loads(path.read_text())
    assert data["threads"] == 2 and [row["runtime"] for row in data["rows"]] == ["torchvision", "eager"]
    with pytest.raises(SystemExit):
        bench.main(["--threads", "1"])


def test_throughput_window_statistics_see_a_lock():
    matrix = torch.rand(200, 200)
    lock = threading.Lock()

    def locked(x):
        with lock:  # two threads: one of them blocks on the lock (a voluntary context switch) now and then
            return torch.mm(matrix, matrix)

    stats = {}
    assert threads.throughput(locked, [torch.zeros(1)] * 2, 0.3, stats) > 0
    assert set(stats) == {"cpu_per_s", "cpu_us_per_call", "waits_per_call"}
    assert 0 < stats["cpu_per_s"] <= 2.5 and stats["cpu_us_per_call"] > 0
    assert stats["waits_per_call"] > 0.02, stats
