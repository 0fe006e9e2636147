"""``python -m jitvision.demo`` (``make demo``): both pipelines pass in all four modes on the photograph, the picture
is written, and the output is the table alone (no deprecation or environment warnings)."""

import os
import subprocess
import sys
from pathlib import Path

import PIL.Image
import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.xdist_group("demo")


def test_demo_passes_every_mode_quietly(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "jitvision.demo", "--out", str(tmp_path)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "", f"the demo printed noise:\n{result.stderr}"
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.startswith(("training ", "inference "))]
    assert len(rows) == 8 and all(" yes " in row for row in rows), result.stdout
    assert len(lines) == 10, f"unexpected output:\n{result.stdout}"  # header, eight rows, the picture's path
    with PIL.Image.open(tmp_path / "demo.png") as picture:
        assert picture.width > 5 * 224 and picture.height == 224
