"""Write tests/transforms/frozen/digests.json: the frozen behaviour of every public transform class.

    PYTHONPATH=$PWD python tools/freeze_digests.py                 # every class, two worker processes
    PYTHONPATH=$PWD python tools/freeze_digests.py --only RandomCrop,JPEG   # rewrite these classes' entries
    PYTHONPATH=$PWD python tools/freeze_digests.py --check         # compare instead of writing (as the test does)

What is frozen, and how, is described in tests/transforms/test_frozen_behaviour.py. Regenerate only for a change
that alters behaviour on purpose, and say why in the commit.
"""

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.transforms import test_frozen_behaviour as frozen  # noqa: E402


def _freeze(name: str) -> Tuple[str, Dict[str, Any], float]:
    started = time.monotonic()
    return name, frozen.freeze_class(name), time.monotonic() - started


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated class names (audit labels) to rewrite; others are kept")
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    names = sorted(entry.name for entry in frozen.class_entries(frozen._target()))
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = [name for name in wanted if name not in names]
        if unknown:
            parser.error(f"unknown classes {unknown}; known: {names}")
        names = wanted
    stored = frozen.load()["classes"] if frozen.DIGESTS.exists() else {}
    results: Dict[str, Dict[str, Any]] = {}
    problems: List[str] = []
    # spawn: each worker imports torch afresh (no forked dynamo state)
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for name, result, seconds in pool.imap_unordered(_freeze, names):
            results[name] = result
            print(f"{name:32s} {seconds:6.1f} s  random={result['random']}", flush=True)
            if args.check:
                if name not in stored:
                    problems.append(f"{name}: not in {frozen.DIGESTS}")
                else:
                    problems.extend(frozen.compare(name, stored[name], result))
    if args.check:
        print("\n".join(problems) or "all digests match")
        return 1 if problems else 0
    if args.only:
        kept = {name: {**value, "leaves": {}} for name, value in stored.items() if name not in results}
        results.update(kept)
    frozen.write(results)
    print(f"wrote {frozen.DIGESTS} ({len(results)} classes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
