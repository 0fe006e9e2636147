"""The audit's outputs: the summary, a terminal table, Markdown (for the README) and JSON."""

import json
import sys
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from .outcome import FAIL, MODE_CELLS, NA, PASS, SKIP

COLUMNS: List[Tuple[str, str]] = [
    ("eager", "eager"),
    ("compile", "compile"),
    ("recompiles", "recompiles"),
    ("dynamic", "dynamic"),
    ("random", "random"),
    ("script", "script"),
    ("export", "export"),
    ("export_dynamic", "export dyn H/W"),
]


def summarize(rows: Sequence[Dict[str, Any]], modes: Sequence[str]) -> Dict[str, Any]:
    """Per mode, the cases whose every applicable check passed, those with a check that failed or could not run,
    and those where no check of the mode applies (``na``; not in ``total``); per check, the same for its cells."""
    per_mode: Dict[str, Dict[str, int]] = {}
    for mode in modes:
        applicable = [row for row in rows if any(_status(row, c) not in (NA, None) for c in MODE_CELLS[mode])]
        ok = [row for row in applicable if all(_status(row, c) in (PASS, NA, None) for c in MODE_CELLS[mode])]
        per_mode[mode] = {
            "passed": len(ok),
            "failed": len(applicable) - len(ok),
            "na": len(rows) - len(applicable),
            "total": len(applicable),
        }
    per_check: Dict[str, Dict[str, int]] = {}
    for mode in modes:
        for check in MODE_CELLS[mode]:
            statuses = [_status(row, check) for row in rows]
            counted = [s for s in statuses if s not in (NA, None)]
            per_check[check] = {
                "passed": counted.count(PASS),
                "failed": counted.count(FAIL),
                "not_run": counted.count(SKIP),
                "na": statuses.count(NA),
                "total": len(counted),
            }
    return {"modes": per_mode, "checks": per_check}


def _status(row: Dict[str, Any], check: str) -> Optional[str]:
    cell = row["cells"].get(check)
    return cell["status"] if cell else None


def _counts(counts: Dict[str, int]) -> str:
    """``12 passed / 1 failed / 3 n/a`` (``not run`` too where a check has such cells)."""
    text = f"{counts['passed']} passed / {counts['failed']} failed"
    if counts.get("not_run"):
        text += f" / {counts['not_run']} not run"
    return text + f" / {counts['na']} n/a"


def summary_line(result: Dict[str, Any]) -> str:
    modes = result["summary"]["modes"]
    parts = [f"{mode} {_counts(counts)}" for mode, counts in modes.items()]
    skipped = len(result["skipped"])
    tail = f"; {skipped} names without an audit case" if skipped else ""
    return f"{result['target']}: cases per mode: " + ", ".join(parts) + tail


# ---- cells as text ----------------------------------------------------------------------------------------------

_ASCII = {PASS: "ok", FAIL: "FAIL", SKIP: ".", NA: "-"}
_MARKS = {PASS: "✅", FAIL: "❌", SKIP: "·", NA: "–"}


def _cell_text(row: Dict[str, Any], column: str, marks: Dict[str, str]) -> str:
    if column == "random":
        eager = row["cells"].get("eager", {})
        if not eager.get("info", {}).get("random"):
            return marks[NA] if eager.get("status") == PASS else ""
        live = row["cells"].get("recompiles", {}).get("info", {}).get("random_live")
        return "live" if live else ("frozen" if live is False else "random")
    cell = row["cells"].get(column)
    if cell is None:
        return ""
    text = marks[cell["status"]]
    info = cell.get("info", {})
    if column == "compile" and info.get("graphs") is not None:
        graphs = info["graphs"]
        text += f" {graphs} graph" + ("s" if graphs != 1 else "")
    elif column in ("recompiles", "dynamic") and info.get("recompiles") is not None:
        text += f" {info['recompiles']}"
    return text


def _table(rows: Sequence[Dict[str, Any]], columns: List[Tuple[str, str]], marks: Dict[str, str]) -> List[List[str]]:
    header = ["op", "api", "kind"] + [title for _, title in columns]
    body = [[row["op"], row["api"], row["kind"]] + [_cell_text(row, key, marks) for key, _ in columns] for row in rows]
    return [header] + body


def _columns_for(result: Dict[str, Any]) -> List[Tuple[str, str]]:
    checks = {check for mode in result["modes"] for check in MODE_CELLS[mode]}
    if "compile" in result["modes"]:
        checks.add("random")
    return [(key, title) for key, title in COLUMNS if key in checks]


def _reasons(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """Failing cells, one line each, merged across input kinds that fail the same way."""
    grouped: Dict[Tuple[str, str, str, str], List[str]] = {}
    for row in rows:
        for check, cell in row["cells"].items():
            if cell["status"] == FAIL:
                key = (row["op"], row["api"], check, cell["reason"] or "")
                grouped.setdefault(key, []).append(row["kind"])
    return [
        f"{op} ({api}) [{', '.join(kinds)}] {check}: {reason}" for (op, api, check, reason), kinds in grouped.items()
    ]


def _na_reasons(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """Whole cases that do not apply (their eager cell is n/a, so every mode is), one line per op and reason."""
    grouped: Dict[Tuple[str, str, str], List[str]] = {}
    for row in rows:
        cell = row["cells"].get("eager")
        if cell and cell["status"] == NA:
            grouped.setdefault((row["op"], row["api"], cell["reason"] or ""), []).append(row["kind"])
    return [f"{op} ({api}) [{', '.join(kinds)}]: {reason}" for (op, api, reason), kinds in grouped.items()]


def _skipped_lines(result: Dict[str, Any]) -> List[str]:
    lines = []
    for api in ("functional", "class"):
        names = [s["name"] for s in result["skipped"] if s["api"] == api]
        if names:
            plural = "classes" if api == "class" else "functionals"
            lines.append(f"no audit case ({len(names)} {plural}, add a row in jitvision/_audit/cases.py): ")
            lines[-1] += ", ".join(names)
    return lines


def checks_line(result: Dict[str, Any]) -> str:
    checks = result["summary"]["checks"]
    return "checks: " + ", ".join(f"{name} {_counts(c)}" for name, c in checks.items())


def _mode_table(result: Dict[str, Any]) -> List[str]:
    """The per-mode counts as a one-row Markdown table, the shape of the README's."""
    modes = result["summary"]["modes"]
    header = "| target | " + " | ".join(modes) + " |"
    row = f"| {result['target']} | " + " | ".join(_counts(counts) for counts in modes.values()) + " |"
    return [header, "|" + "---|" * (len(modes) + 1), row]


def write_terminal(result: Dict[str, Any], stream: Optional[TextIO] = None) -> None:
    stream = stream or sys.stdout
    table = _table(result["rows"], _columns_for(result), _ASCII)
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for i, line in enumerate(table):
        stream.write("  ".join(text.ljust(width) for text, width in zip(line, widths)).rstrip() + "\n")
        if i == 0:
            stream.write("  ".join("-" * width for width in widths) + "\n")
    reasons = _reasons(result["rows"])
    if reasons:
        stream.write("\nwhy cells fail:\n" + "".join(f"  {line}\n" for line in reasons))
    not_applicable = _na_reasons(result["rows"])
    if not_applicable:
        stream.write("\ncases that do not apply (n/a in every mode):\n" + "".join(f"  {x}\n" for x in not_applicable))
    for line in _skipped_lines(result):
        stream.write(f"\n{line}\n")
    stream.write("\n" + checks_line(result) + "\n" + summary_line(result) + "\n")


def markdown(result: Dict[str, Any]) -> str:
    table = _table(result["rows"], _columns_for(result), _MARKS)
    out = [f"### Audit of `{result['target']}`", "", f"torch {result['versions'].get('torch')}", ""]
    out += [
        "Cases per mode: passed when every check of the mode that applies passes, failed when one fails or cannot "
        "run, n/a when none applies (neither passed nor failed).",
        "",
        *_mode_table(result),
        "",
    ]
    out.append("| " + " | ".join(table[0]) + " |")
    out.append("|" + "---|" * len(table[0]))
    out.extend("| " + " | ".join(text.replace("|", "\\|") for text in line) + " |" for line in table[1:])
    out.append("")
    out.append(
        "✅ pass, ❌ fail, – does not apply (n/a; every reason is in the JSON), · not run (an earlier check failed). "
        "compile: fullgraph, graphs counted; recompiles: at one shape; dynamic: recompiles over shapes with "
        "dynamic=True; random: whether a random op stays random when compiled; script: plain tensors only; "
        "export: tv_tensor inputs with strict=True (non-strict export sees them as plain tensors), dynamic H/W "
        "for deterministic ops. Every mode is compared with eager under the same seed."
    )
    reasons = _reasons(result["rows"])
    if reasons:
        out += ["", "Why cells fail:", ""] + ["- " + line.replace("|", "\\|") for line in reasons]
    not_applicable = _na_reasons(result["rows"])
    if not_applicable:
        out += ["", "Cases that do not apply (n/a in every mode), and why:", ""]
        out += ["- " + line.replace("|", "\\|") for line in not_applicable]
    skipped = _skipped_lines(result)
    if skipped:
        out += [""] + skipped
    out += ["", checks_line(result), "", f"**{summary_line(result)}**", ""]
    return "\n".join(out)


def write_json(result: Dict[str, Any], path: str) -> None:
    with open(path, "w") as f:
        json.dump(result, f, indent=1, default=str)
        f.write("\n")


def write_markdown(result: Dict[str, Any], path: str) -> None:
    with open(path, "w") as f:
        f.write(markdown(result))
