"""``bench --e2e --parts scaling``: whole loaders, each measured in its own process at each thread count, report
images/s, the first batch, CPU per image and peak RSS; a loader whose library is missing is a row that says so. No
timing is asserted (the numbers of a tiny run mean nothing)."""

import importlib.util

from jitvision._bench import _jpegs, scaling
from tests.test_bench_e2e import _write_jpegs


def test_rows_at_each_count_and_the_goals(tmp_path):
    _write_jpegs(tmp_path, count=6)
    paths = _jpegs.list_jpegs(str(tmp_path))
    names = ["jitvision-loader", "torchvision-pil", "spdl"]
    result = scaling.run(paths, names, [1, 2], images=24, log=lambda line: None, batch=4, epochs=3)
    for count in (1, 2):
        for name in ("jitvision-loader", "torchvision-pil"):
            row = result[name][count]
            assert row["images_per_s"] > 0 and row["batch_shape"] == [4, 3, 224, 224], (name, row)
            assert row["first_batch_s"] > 0 and row["cpu_s_per_image"] > 0 and row["peak_rss_mb"] > 0
        assert "workers_peak_rss_mb" in result["torchvision-pil"][count]
        assert "workers_peak_rss_mb" not in result["jitvision-loader"][count]
        spdl = result["spdl"][count]
        if importlib.util.find_spec("spdl") is None:
            assert "unavailable" in spdl and "spdl" in spdl["unavailable"]
        else:
            assert spdl["images_per_s"] > 0
    most = result["jitvision-loader"][2]
    assert most["epochs"] == 3 and "rss_growth_mb" in most
    table = scaling.format_markdown(result)
    assert "| jitvision-loader |" in table and "RSS growth" in table
    goals = {g["goal"]: g for g in scaling.goals(result, fused_cpu_us=1000.0)}
    assert goals["loader, 2 threads / 1 thread"]["measured"] > 0
    assert goals["loader / DALI CPU, 2 threads"]["met"] is None  # not measured here
