"""``python -m jitvision audit``: which transforms work in eager, torch.compile, torch.jit.script and torch.export.

For every functional and transform class the target exports (and that has a row in
``jitvision/_audit/cases.py``), on every input kind it supports, the audit reports:

- eager: runs (and is the reference every other mode is compared with, under the same seed);
- compile: ``torch.compile(fullgraph=True)`` succeeds (else the graph count without fullgraph and the first
  graph break), recompiles over repeated calls at one shape, whether a random op stays random, and
  recompiles over several shapes with ``dynamic=True``;
- script: ``torch.jit.script`` of the class itself (or the functional), saved and loaded, on plain tensors;
- export: ``torch.export`` with static shapes, and with dynamic height/width for deterministic ops.

Targets: ``jitvision`` (default), ``torchvision`` (torchvision.transforms.v2), any module with that API, or
``module:Class`` for one class of your own.

The table goes to stdout, the progress bar (with an ETA) to stderr. Exit status: 0 when every audited case passed
(or was not applicable), 1 when a case failed, 2 on a usage error (an unknown mode, input kind or ``--ops`` name,
a target that cannot be imported, an ``--init`` that is not a JSON object).
"""

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

import torch

from ._audit.cases import ALL_KINDS
from ._audit.outcome import FAIL, MODE_CELLS, NA, SKIP, Cell
from ._audit.progress import Progress
from ._audit.report import summarize, summary_line, write_json, write_markdown, write_terminal

if TYPE_CHECKING:  # the checks import torch._dynamo: loaded when an audit runs, not for --help
    from ._audit.checks import CaseChecks
    from ._audit.targets import Entry

MODES = tuple(MODE_CELLS)
# python -m jitvision audit's exit statuses: every case passed (or was not applicable), a case failed, a usage
# error (an unknown option or name, a bad --init; one line on stderr).
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _split(text: Optional[str]) -> Optional[List[str]]:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


def _versions() -> Dict[str, str]:
    versions = {"torch": torch.__version__}
    torchvision = sys.modules.get("torchvision")
    if torchvision is not None:
        versions["torchvision"] = torchvision.__version__
    from . import __version__

    versions["jitvision"] = __version__
    return versions


def _kinds_for(entry: "Entry", kinds: Optional[Sequence[str]]) -> List[str]:
    case_kinds = list(entry.case.kinds)
    if entry.api == "class" and not entry.case.python_only:
        # Every class that takes images is audited on per-sample batches too.
        if "uint8" in case_kinds or "float" in case_kinds:
            case_kinds += [kind for kind in ("batch", "batch-tensor") if kind not in case_kinds]
        if "detection" in case_kinds and "detection-batch" not in case_kinds:
            case_kinds.append("detection-batch")
    chosen = [kind for kind in case_kinds if kinds is None or kind in kinds]
    # A functional takes one input; only transform classes take a whole sample.
    return [kind for kind in chosen if not (entry.api == "functional" and kind in ("detection", "detection-rotated"))]


def _run_case(case: "CaseChecks", modes: Sequence[str], progress: Progress, label: str) -> Dict[str, Cell]:
    progress.show(f"{label} eager")
    cells = {"eager": case.eager()}
    for mode in modes:
        if mode == "eager":
            continue
        if cells["eager"].status == NA:
            cells.update({name: Cell(NA, cells["eager"].reason) for name in MODE_CELLS[mode]})
            continue
        if cells["eager"].status == FAIL:
            cells.update({name: Cell(SKIP, "eager failed") for name in MODE_CELLS[mode]})
            continue
        progress.show(f"{label} {mode}")
        try:
            result = getattr(case, mode)()
        except Exception as exc:  # a bug in a check must not stop the audit
            result = {name: Cell(FAIL, f"audit error: {type(exc).__name__}: {exc}") for name in MODE_CELLS[mode]}
        cells.update(result if isinstance(result, dict) else {mode: result})
    return cells


def run_audit(
    target: str = "jitvision",
    *,
    ops: Optional[Sequence[str]] = None,
    modes: Sequence[str] = MODES,
    kinds: Optional[Sequence[str]] = None,
    tv_tensors: Optional[str] = None,
    init: Optional[Dict[str, Any]] = None,
    progress: bool = False,
) -> Dict[str, Any]:
    """Audit ``target`` and return the JSON-ready result (rows, skipped names, summary).

    Raises ValueError for an unknown mode, input kind or name in ``ops`` (one the target does not have, or has
    without an audit case), or a target that cannot be imported."""
    from ._audit.checks import CaseChecks
    from ._audit.outcome import quiet_compilers
    from ._audit.targets import resolve_target

    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        raise ValueError(f"audit: unknown modes {unknown}; choose from {list(MODES)}")
    unknown = [kind for kind in kinds or () if kind not in ALL_KINDS]
    if unknown:
        raise ValueError(f"audit: unknown input kinds {unknown}; choose from {list(ALL_KINDS)}")
    resolved = resolve_target(target, tv_tensors=tv_tensors, init=init)
    entries = resolved.entries
    notes: List[str] = []
    if ops is not None:
        wanted = set(ops)
        entries = [e for e in entries if e.name in wanted or wanted & set(e.aliases)]
        found = {e.name for e in entries} | {a for e in entries for a in e.aliases}
        skipped_names = {s["name"] for s in resolved.skipped}
        # A name that is not audited is an error, not a note: a CI that gates on the audit must not pass because
        # of a typo.
        missing = [
            f"{name} ({'no audit case' if name in skipped_names else 'not found in the target'})"
            for name in ops
            if name not in found
        ]
        if missing:
            raise ValueError(f"audit: unknown ops for {target}: {', '.join(missing)}")
    modes = ["eager", *[m for m in modes if m != "eager"]]
    plan = [(entry, kind) for entry in entries for kind in _kinds_for(entry, kinds)]
    started = time.monotonic()
    bar = Progress(len(plan), progress)
    rows: List[Dict[str, Any]] = []
    script_cache: Dict[str, Any] = {}
    # The audit seeds torch's RNG per check: the caller's RNG state is restored afterwards.
    with quiet_compilers(), torch.random.fork_rng(devices=[]):
        for entry, kind in plan:
            label = f"{entry.name}[{kind}]"
            cells = _run_case(CaseChecks(resolved, entry, kind, script_cache), modes, bar, label)
            bar.advance()
            rows.append(
                {
                    "op": entry.name,
                    "api": entry.api,
                    "kind": kind,
                    "aliases": entry.aliases,
                    "random": cells["eager"].info.get("random"),
                    "cells": {name: vars(cell) for name, cell in cells.items()},
                }
            )
    bar.close()
    torch._dynamo.reset()
    skipped = resolved.skipped if ops is None else [s for s in resolved.skipped if s["name"] in set(ops)]
    result = {
        "target": target,
        "versions": _versions(),
        "modes": list(modes),
        "rows": rows,
        "skipped": skipped,
        "notes": notes,
        "seconds": round(time.monotonic() - started, 1),
    }
    result["summary"] = summarize(rows, modes)
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        default="jitvision",
        help="jitvision (default), torchvision (transforms.v2), a module with the v2 API, or module:Class",
    )
    parser.add_argument("--ops", help="comma-separated functional/class names, e.g. resize,RandomCrop (default: all)")
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"comma-separated of {','.join(MODES)}; eager always runs"
    )
    parser.add_argument("--kinds", help=f"comma-separated input kinds of {','.join(ALL_KINDS)} (default: per op)")
    parser.add_argument("--tv-tensors", help="tv_tensors to build inputs with: jitvision, torchvision or a module")
    parser.add_argument("--init", help="JSON object of constructor arguments for --target module:Class")
    parser.add_argument("--json", metavar="PATH", help="write the full result as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the table as Markdown")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _parse_init(text: Optional[str]) -> Optional[Dict[str, Any]]:
    """--init's JSON object; ValueError (a usage error) for text that is not one."""
    if not text:
        return None
    try:
        init = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"audit: --init is not valid JSON ({exc}): {text!r}") from None
    if not isinstance(init, dict):
        raise ValueError(f"audit: --init must be a JSON object of constructor arguments, got {text!r}")
    return init


def run(args: argparse.Namespace) -> int:
    """Run the audit the parsed arguments ask for: results on stdout, progress and errors on stderr; returns
    ``EXIT_OK``, ``EXIT_FAILED`` (a case failed) or ``EXIT_USAGE``."""
    try:
        init = _parse_init(args.init)
        if init is not None and ":" not in args.target:
            raise ValueError("audit: --init goes with --target module:Class")
        result = run_audit(
            args.target,
            ops=_split(args.ops),
            modes=_split(args.modes) or MODES,
            kinds=_split(args.kinds),
            tv_tensors=args.tv_tensors,
            init=init,
            progress=not args.no_progress and sys.stderr.isatty(),
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    write_terminal(result)
    for note in result["notes"]:
        print(f"note: {note}")
    if args.json:
        write_json(result, args.json)
    if args.markdown:
        write_markdown(result, args.markdown)
    print(f"({result['seconds']}s)")
    failed = failed_cases(result)
    if failed:
        print(f"audit: {failed} cases failed", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def failed_cases(result: Dict[str, Any]) -> int:
    """The number of audited cases (rows) with a failed cell."""
    return sum(any(cell["status"] == FAIL for cell in row["cells"].values()) for row in result["rows"])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jitvision audit", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


__all__ = ["run_audit", "main", "add_arguments", "run", "summary_line", "failed_cases"]

if __name__ == "__main__":
    sys.exit(main())
