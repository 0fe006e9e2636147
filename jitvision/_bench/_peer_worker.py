"""The AlbumentationsX side of ``_peer_process``: run in the AlbumentationsX environment, with the photographs'
``.npz`` as its argument. Reads one JSON request a line on stdin, answers one line (``MARK`` + JSON) on stdout.

Requests: ``build`` (row): build the row's AlbumentationsX transform with warnings as errors, then one pass over the
images; ``pass`` (row): one pass; ``measure`` (row, seconds): seconds per pass, as ``_timing.measure`` gives them;
``exit``. For ``bench --e2e`` the "images" are JPEG files' bytes (1-D uint8 arrays): ``e2e_build`` builds the job
(``_e2e_common``) as the row ``e2e`` and answers the statistics of its outputs over three passes; ``e2e_time``
(seconds) answers the wall and CPU time of each pass (``_e2e_common.timed_passes``); ``e2e_loader`` (paths, images,
workers, batch) measures it through a DataLoader.
"""

import json
import sys
import warnings
from typing import Any, Callable, Dict, List

from . import _e2e_common
from ._peer_process import MARK


class _NoEquivalent(Exception):
    """A row AlbumentationsX has no class for (the message is the reason)."""


def _answer(message: Dict[str, Any]) -> None:
    sys.stdout.write(MARK + json.dumps(message) + "\n")
    sys.stdout.flush()


def _pass(fn: Callable[[Any], Any], images: List[Any]) -> Callable[[], None]:
    def run() -> None:
        for image in images:
            fn(image)

    return run


def _build(name: str, A: Any, cv2: Any, images: List[Any]) -> Callable[[], None]:
    import numpy as np

    from ._rows import ALBUMENTATIONSX_MISSING, ROWS, albumentationsx_builder

    row = next((r for r in ROWS if r.name == name), None)
    if row is None:
        raise ValueError(f"unknown row {name}")
    builder = albumentationsx_builder(row)
    if builder is None:
        reason = ALBUMENTATIONSX_MISSING if row.name == "Elastic" else "albumentations has no equivalent class"
        raise _NoEquivalent(reason)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a renamed argument warns and falls back to a default: refuse it
        transform = builder(A, cv2)
    run = _pass(lambda image: np.ascontiguousarray(transform(image=image)["image"]), images)
    run()
    return run


def main(path: str) -> None:
    try:
        import numpy as np

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import albumentations as A
            import cv2
        cv2.setNumThreads(0)
        cv2.ocl.setUseOpenCL(False)
        import torch

        torch.set_num_threads(1)
        from ._timing import measure

        with np.load(path) as archive:
            images = [archive[key] for key in sorted(archive.files, key=lambda k: int(k.split("_")[-1]))]
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which shows the column as unavailable
        _answer({"error": f"{type(exc).__name__}: {exc}"})
        return
    _answer({"version": A.__version__})
    passes: Dict[str, Callable[[], None]] = {}
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "exit":
            _answer({})
            return
        try:
            if op == "build":
                passes[request["row"]] = _build(request["row"], A, cv2, images)
                _answer({})
            elif op == "e2e_build":
                passes["e2e"] = _e2e_common.one_pass(_e2e_common.from_bytes(A, cv2), images)
                outputs = [out for _ in range(3) for out in passes["e2e"]()]
                _answer({"stats": _e2e_common.output_stats(outputs)})
            elif op == "e2e_time":
                _answer({"passes": _e2e_common.timed_passes(passes["e2e"], float(request["seconds"]))})
            elif op == "e2e_loader":
                load = _e2e_common.from_file(A, cv2)
                worker_init = _e2e_common.worker_init_opencv
                args = (request["paths"], request["images"], request["workers"], request["batch"])
                _answer(_e2e_common.loader_rate(load, *args, worker_init_fn=worker_init))
            elif op == "pass":
                passes[request["row"]]()
                _answer({})
            elif op == "measure":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _answer({"seconds": measure(passes[request["row"]], float(request["seconds"]))})
            else:
                _answer({"unavailable": f"unknown request {op}"})
        except _NoEquivalent as exc:
            _answer({"unavailable": str(exc)})
        except Exception as exc:  # noqa: BLE001 - a row that fails is reported, not fatal
            first = str(exc).splitlines()[0] if str(exc) else ""
            _answer({"unavailable": f"{type(exc).__name__}: {first}"[:200]})


if __name__ == "__main__":
    main(sys.argv[1])
