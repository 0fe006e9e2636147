"""Cell results, output comparison, and one-line reasons for failures."""

import logging
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

import PIL.Image
import torch
from torch.utils import _pytree as pytree

from jitvision.tv_tensors._batch_pytree import sample_leaf

PASS, FAIL, SKIP, NA = "pass", "fail", "skip", "n/a"
# The cells (columns) each mode fills.
MODE_CELLS: Dict[str, Tuple[str, ...]] = {
    "eager": ("eager",),
    "compile": ("compile", "recompiles", "dynamic"),
    "script": ("script",),
    "export": ("export", "export_dynamic"),
}


@dataclass
class Cell:
    """One check of one case: ``pass``, ``fail`` (with a one-line ``reason``), ``skip`` (an earlier check
    it needs failed) or ``n/a`` (the check does not apply to this input kind or op)."""

    status: str
    reason: Optional[str] = None
    info: Dict[str, Any] = field(default_factory=dict)


def passed(**info: Any) -> Cell:
    return Cell(PASS, None, info)


def failed(reason: str, **info: Any) -> Cell:
    return Cell(FAIL, reason, info)


# ---- outputs --------------------------------------------------------------------------------------------------


def _plain(t: torch.Tensor) -> torch.Tensor:
    return t.as_subclass(torch.Tensor) if type(t) is not torch.Tensor else t


def compare(actual: Any, expected: Any, *, types: bool = True, atol: float = 1e-4) -> Optional[str]:
    """None when ``actual`` matches ``expected`` (structure, leaf types if ``types``, shapes, dtypes, values),
    else what differs."""
    actual_leaves, actual_spec = pytree.tree_flatten(actual, is_leaf=sample_leaf)
    expected_leaves, expected_spec = pytree.tree_flatten(expected, is_leaf=sample_leaf)
    if len(actual_leaves) != len(expected_leaves) or (types and actual_spec != expected_spec):
        return f"output structure differs: {actual_spec} vs {expected_spec}"
    for a, e in zip(actual_leaves, expected_leaves):
        if types and type(a).__name__ != type(e).__name__:
            return f"output type {type(a).__name__} instead of {type(e).__name__}"
        if isinstance(e, PIL.Image.Image) and isinstance(a, PIL.Image.Image):
            if (a.mode, a.size, a.tobytes()) != (e.mode, e.size, e.tobytes()):
                return "PIL output differs"
            continue
        if not isinstance(e, torch.Tensor) or not isinstance(a, torch.Tensor):
            if a != e:
                return f"output {a!r} instead of {e!r}"
            continue
        a, e = _plain(a), _plain(e)
        if a.shape != e.shape:
            return f"output shape {tuple(a.shape)} instead of {tuple(e.shape)}"
        if a.dtype != e.dtype:
            return f"output dtype {a.dtype} instead of {e.dtype}"
        if a.numel() == 0:
            continue
        diff = (a.double() - e.double()).abs().max().item()
        if diff > (atol if e.is_floating_point() else 0):
            return f"output values differ from eager by up to {diff:.3g}"
    return None


def fingerprint(out: Any) -> tuple:
    """A hashable summary of an output, to count distinct outputs of a random op."""
    parts: List[Any] = []
    for leaf in pytree.tree_leaves(out, is_leaf=sample_leaf):
        if isinstance(leaf, torch.Tensor):
            plain = _plain(leaf).detach()
            parts.append((tuple(plain.shape), tuple(plain.double().flatten().tolist())))
        elif isinstance(leaf, PIL.Image.Image):
            parts.append(leaf.tobytes())
        else:
            parts.append(repr(leaf))
    return tuple(parts)


# ---- reasons --------------------------------------------------------------------------------------------------

_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')
_BOILERPLATE = ("For more information", "Set TORCHDYNAMO_VERBOSE", "For more details", "Explanation:", "Hint:")


def _short_path(path: str) -> str:
    for marker in ("site-packages" + os.sep, os.getcwd() + os.sep):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def _location(lines: List[str]) -> Optional[str]:
    """``file:line `code``` of the user frame a compiler message points at."""
    start = 0
    for i, line in enumerate(lines):
        if line.strip().startswith("from user code:"):
            start = i
    hits = [(i, m) for i, line in enumerate(lines[start:], start) if (m := _FILE_LINE.search(line))]
    if not hits:
        return None
    # After "from user code:" the innermost frame is the last one; in TorchScript errors it is the first.
    i, match = hits[-1] if start else hits[0]
    code = lines[i + 1].strip() if i + 1 < len(lines) else ""
    where = f"{_short_path(match.group(1))}:{match.group(2)}"
    return f"{where} `{code}`" if code and not _FILE_LINE.search(code) else where


def one_line(exc: BaseException, limit: int = 240) -> str:
    """The gist of an exception in one line: its type, first meaningful line, and where it happened."""
    lines = str(exc).splitlines()
    meaningful = [line.strip() for line in lines if line.strip() and not line.strip().startswith(_BOILERPLATE)]
    head = meaningful[0] if meaningful else ""
    head = re.sub(r"For more information[^.]*\.", "", head).strip()
    if head.startswith("Constraints violated"):
        bullets = [line[2:] for line in meaningful if line.startswith("- ")]
        head = f"{head} {bullets[0]}" if bullets else head
    elif head.endswith(":") and len(meaningful) > 1 and not _FILE_LINE.search(meaningful[1]):
        head = f"{head} {meaningful[1]}"
    where = _location(lines)
    if where and len(head) > 140:  # keep room for where it happened
        head = head[:137] + "..."
    text = f"{type(exc).__name__}: {head}" if head else type(exc).__name__
    if where:
        text += f" at {where}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---- quiet compilers, with recompile reasons --------------------------------------------------------------------


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


_RECOMPILES = logging.getLogger("torch._dynamo.guards.__recompiles")
_collector = _Collect()


@contextmanager
def quiet_compilers() -> Iterator[None]:
    """Silence compiler warnings for the whole audit, keeping recompile messages for ``last_recompile``."""
    import warnings

    torch._logging.set_logs(all=logging.CRITICAL, recompiles=True)
    propagate = _RECOMPILES.propagate
    _RECOMPILES.addHandler(_collector)
    _RECOMPILES.propagate = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        _RECOMPILES.removeHandler(_collector)
        _RECOMPILES.propagate = propagate
        torch._logging.set_logs()


def clear_recompiles() -> None:
    _collector.messages.clear()


def last_recompile() -> Optional[str]:
    """The first guard that failed in the latest recompile, in one line."""
    if not _collector.messages:
        return None
    lines = [line.strip() for line in _collector.messages[-1].splitlines() if line.strip()]
    reasons = [line for line in lines if "triggered by the following guard failure" not in line]
    text = re.sub(r"^-\s*\d+/\d+:\s*", "", " ".join((reasons[-1] if reasons else lines[-1]).split()))
    # "guard  # code  # file:line in function (internal frame)": keep the guard and where it came from.
    parts = [part.strip() for part in text.split(" # ")]
    if len(parts) >= 3:
        text = f"guard {parts[0]} from `{parts[1]}` at {parts[2].split(' (')[0]}"
    return text if len(text) <= 220 else text[:217] + "..."
