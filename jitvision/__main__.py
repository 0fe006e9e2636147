"""``python -m jitvision audit|bench``."""

import argparse
import inspect
import sys
from typing import Optional, Sequence


def _bench(argv: Sequence[str]) -> int:
    # Imported only when asked for: ``audit`` works without the benchmark (and its optional dependencies).
    try:
        from .bench import main as bench_main
    except ModuleNotFoundError as exc:
        if exc.name != "jitvision.bench":
            raise
        print("python -m jitvision bench: jitvision.bench is not part of this installation", file=sys.stderr)
        return 2

    if inspect.signature(bench_main).parameters:
        return bench_main(list(argv)) or 0
    sys.argv = ["python -m jitvision bench", *argv]
    return bench_main() or 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # every later argument is the benchmark's own, --help included
        return _bench(argv[1:])
    from . import audit

    parser = argparse.ArgumentParser(prog="python -m jitvision", description="jitvision command-line tools")
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


if __name__ == "__main__":
    sys.exit(main())
