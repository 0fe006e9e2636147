"""The Python examples of the README and the user guide run as written (pages whose examples stand alone; the
others use names the reader supplies, such as a dataset). Each page's ``python`` blocks run in order in one
namespace, as a reader pastes them, in a temporary working directory (they may save files)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = ["README.md", "docs/getting-started.md", "docs/compile.md"]


def python_blocks(page: str) -> str:
    text = (ROOT / page).read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert blocks, f"{page} has no python block"
    return "\n".join(blocks)


@pytest.mark.parametrize("page", PAGES)
def test_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    exec(compile(python_blocks(page), str(ROOT / page), "exec"), namespace)
