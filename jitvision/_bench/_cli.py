"""What every job's runner shares with the command line: picking names from a comma-separated option, the usage
error it raises, progress lines on stderr, the versions a result records, and writing the JSON."""

import importlib.metadata
import json
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple


class UsageError(ValueError):
    """A bad option or name on the command line: ``jitvision.bench.main`` reports it in one line and exits 2."""


def pick(values: Optional[str], allowed: Sequence[str], what: str) -> List[str]:
    """The comma-separated ``values`` (all of ``allowed`` when None); UsageError naming any unknown one."""
    if values is None:
        return list(allowed)
    picked = [v.strip() for v in values.split(",") if v.strip()]
    unknown = [v for v in picked if v not in allowed]
    if unknown:
        raise UsageError(f"unknown {what} {unknown}; choose from {list(allowed)}")
    return picked


def log(line: str) -> None:
    """A progress line on stderr (stdout holds the results)."""
    print(line, file=sys.stderr, flush=True)


DISTRIBUTIONS = ("torch", "torchvision", "albumentations", "kornia", "opencv-python-headless", "scikit-image")


def library_versions(extra: Sequence[str] = ()) -> Dict[str, Optional[str]]:
    """The installed version of each peer distribution (None when it is not installed)."""
    out: Dict[str, Optional[str]] = {}
    for dist in (*DISTRIBUTIONS, *extra):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def installed(found: Dict[str, Optional[str]]) -> str:
    """``"torch 2.14.1, torchvision 0.29.1, ..."``: the versions that are installed."""
    return ", ".join(f"{name} {version}" for name, version in found.items() if version)


def write_json(path: Optional[str], payload: Dict[str, Any]) -> None:
    """``payload`` as indented JSON at ``path`` (nothing when ``path`` is None)."""
    if path:
        with open(path, "w") as f:
            json.dump(payload, f, indent=2)


def judge(checks: List[Tuple[str, Optional[float], str, float]]) -> List[Dict[str, Any]]:
    """Goals ``(what, measured or None, "<=" or ">=", target)`` as rows: ``met`` is None where not measured."""
    out = []
    for what, value, op, target in checks:
        met = None if value is None else (value <= target if op == "<=" else value >= target)
        out.append({"goal": what, "target": f"{op} {target}", "measured": value, "met": met})
    return out
