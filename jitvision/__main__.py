"""``jitvision`` (the console script) and ``python -m jitvision``: ``audit``, ``bench``, ``--version``.

Conventions: results go to stdout, progress and diagnostics to stderr; a usage error (an unknown option, name or a
bad ``--init``) exits 2 with one line on stderr, no traceback; ``audit`` exits 1 when a case failed. The commands
are imported only when chosen, so ``--help`` loads neither the audit's checks nor the benchmark's timers.
"""

import argparse
import inspect
import sys
from typing import Optional, Sequence


def _bench(argv: Sequence[str], prog: str) -> int:
    # Imported only when asked for: ``audit`` works without the benchmark (and its optional dependencies).
    try:
        from .bench import main as bench_main
    except ModuleNotFoundError as exc:
        if exc.name != "jitvision.bench":
            raise
        print(f"{prog} bench: jitvision.bench is not part of this installation", file=sys.stderr)
        return 2

    if inspect.signature(bench_main).parameters:
        return bench_main(list(argv), prog=f"{prog} bench") or 0
    sys.argv = [f"{prog} bench", *argv]
    return bench_main() or 0


def _version() -> str:
    """``jitvision X (torch Y, native library: loaded | not loaded)``: what a bug report needs."""
    import torch

    from . import __version__, _native

    native = "loaded" if _native.AVAILABLE else "not loaded"
    return f"jitvision {__version__} (torch {torch.__version__}, native library: {native})"


def main(argv: Optional[Sequence[str]] = None, prog: str = "python -m jitvision") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # every later argument is the benchmark's own, --help included
        return _bench(argv[1:], prog)
    from . import audit

    parser = argparse.ArgumentParser(prog=prog, description="jitvision command-line tools")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="{audit,bench}")
    audit_parser = commands.add_parser(
        "audit",
        help="which transforms work eager, compiled, scripted and exported",
        description=audit.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_arguments(audit_parser)
    # Listed for --help only: "bench" and its arguments are handed over above.
    commands.add_parser("bench", help="benchmark the transforms (options: bench --help)", add_help=False)
    return audit.run(parser.parse_args(argv))


def console_main() -> int:
    """The ``jitvision`` console script."""
    return main(prog="jitvision")


if __name__ == "__main__":
    sys.exit(main())
