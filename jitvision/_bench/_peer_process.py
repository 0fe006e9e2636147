"""A benchmark peer that runs in a Python environment of its own: AlbumentationsX.

AlbumentationsX 2.5.1 (AGPL-3.0, the maintained successor of albumentations) installs under the module name
``albumentations``, so it cannot sit beside albumentations 2.0.8 in one environment. ``make albumentationsx``
creates ``.venv-albumentationsx`` (AlbumentationsX with OpenCV; AlbumentationsX imports torch, which that
environment takes from the project's through a ``.pth`` line rather than a second copy). The benchmark starts that
environment's Python once on ``jitvision._bench._peer_worker`` and speaks to it over pipes, one JSON object a line:
it loads the photographs (HWC uint8, as albumentations gets them), builds a row (warnings are errors: an argument
it does not know would otherwise fall back to its default with a warning), and times one pass over the images with
the same ``measure`` the other variants use, when the parent asks, so its rounds interleave with theirs.

The environment's Python is ``$JITVISION_ALBUMENTATIONSX_PYTHON`` or ``.venv-albumentationsx/bin/python`` at the
repository's root; without it the column says how to create it.
"""

import json
import os
import subprocess
import tempfile
from typing import Any, Dict, Optional, Sequence

from ._timing import Unavailable

PYTHON_ENV = "JITVISION_ALBUMENTATIONSX_PYTHON"
VENV = ".venv-albumentationsx"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Lines the worker writes for the parent start with this (a library may print to stdout too).
MARK = "@@jitvision-peer "


def albumentationsx_python() -> Optional[str]:
    """The Python of the AlbumentationsX environment, or None where there is none."""
    path = os.environ.get(PYTHON_ENV) or os.path.join(REPO_ROOT, VENV, "bin", "python")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


class PeerProcess:
    """The worker process, holding the photographs; ``build`` then ``measure`` per row."""

    def __init__(self, python: str, images_hwc: Sequence[Any]) -> None:
        import numpy as np

        self._folder = tempfile.TemporaryDirectory(prefix="jitvision-peer-")
        path = os.path.join(self._folder.name, "images.npz")
        np.savez(path, *[np.ascontiguousarray(image) for image in images_hwc])
        env = dict(os.environ)
        env["PYTHONPATH"] = REPO_ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env["NO_ALBUMENTATIONS_UPDATE"] = "1"  # no version check over the network
        env["OMP_NUM_THREADS"] = "1"
        self._process = subprocess.Popen(
            [python, "-m", "jitvision._bench._peer_worker", path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=REPO_ROOT,
        )
        hello = self._read()
        if "error" in hello:
            self.close()
            raise Unavailable(f"AlbumentationsX environment: {hello['error']}")
        self.version: str = hello["version"]

    def _read(self) -> Dict[str, Any]:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK) :])
        raise Unavailable(f"the AlbumentationsX worker exited (code {self._process.wait()})")

    def request(self, **message: Any) -> Dict[str, Any]:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()
        return self._read()

    def build(self, row: str) -> None:
        """Build ``row`` and run one pass over the images (the warm-up); Unavailable with the reason."""
        reply = self.request(op="build", row=row)
        if "unavailable" in reply:
            raise Unavailable(reply["unavailable"])

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self.request(op="exit")
                assert self._process.stdin is not None
                self._process.stdin.close()
                self._process.wait(timeout=30)
            except (Unavailable, OSError, ValueError, subprocess.TimeoutExpired):
                self._process.kill()  # this worker only: started by this object
                self._process.wait()
        self._folder.cleanup()


class RemotePass:
    """A row's variant that runs in the worker: ``measure(min_run_time)`` has the worker time its pass over the
    images (seconds per pass); calling it runs one pass there."""

    def __init__(self, peer: PeerProcess, row: str) -> None:
        self.peer = peer
        self.row = row

    def __call__(self) -> None:
        self.peer.request(op="pass", row=self.row)

    def measure(self, min_run_time: float) -> float:
        return float(self.peer.request(op="measure", row=self.row, seconds=min_run_time)["seconds"])


def start(images_hwc: Sequence[Any]) -> PeerProcess:
    """The worker on ``images_hwc``; Unavailable (with how to set it up) where the environment is missing."""
    python = albumentationsx_python()
    if python is None:
        raise Unavailable(f"AlbumentationsX is not set up (make albumentationsx, or set {PYTHON_ENV})")
    return PeerProcess(python, images_hwc)
