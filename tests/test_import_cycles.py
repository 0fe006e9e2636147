"""tools/import_cycles.py: the benchmark's modules import no module that imports them back (the command line,
jitvision/bench.py, imports the runners in jitvision/_bench, never the other way round)."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool():
    spec = importlib.util.spec_from_file_location("import_cycles", os.path.join(ROOT, "tools", "import_cycles.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_cycle_through_the_benchmark(capsys):
    tool = _tool()
    assert tool.main(["--only", "jitvision.bench", "--only", "jitvision._bench"]) == 0
    assert "jitvision._bench" not in capsys.readouterr().out


def test_the_tool_finds_a_cycle_and_reports_it(tmp_path, capsys):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from .sub.c import g\n")  # a function-level import counts
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import x\n")
    (package / "d.py").write_text("import pkg.a\n")  # into the cycle, not part of it
    tool = _tool()
    assert tool.main(["--package", str(package), "--only", "pkg.b"]) == 1
    out = capsys.readouterr().out
    assert "1 import cycle(s)" in out and "pkg.a -> pkg.b -> pkg.sub.c -> pkg.a" in out and "pkg.d" not in out
