"""A progress bar with an ETA on stderr: tqdm's when tqdm is installed (the ``progress`` extra), else a plain one.

Progress never goes to stdout, which carries the results (so ``> table.txt`` or a pipe gets the results alone).
"""

import sys
import time
from typing import Any, Optional, TextIO

_WIDTH = 110


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds + 0.5), 60)
    return f"{minutes:d}:{seconds:02d}"


class Progress:
    """``total`` steps; ``show(label)`` names the step under way, ``advance()`` ends one, ``close()`` clears the
    line. Disabled (every method a no-op) when ``enabled`` is False or there is nothing to do."""

    def __init__(self, total: int, enabled: bool, stream: Optional[TextIO] = None) -> None:
        self.total, self.done, self.enabled = total, 0, enabled and total > 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self._tqdm: Any = None
        if self.enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._tqdm = tqdm(total=total, file=self.stream, dynamic_ncols=True, leave=False, unit="case")

    def eta(self) -> Optional[float]:
        """Seconds left at the mean time per finished step so far (None before the first one)."""
        if self.done == 0:
            return None
        return (time.monotonic() - self.start) / self.done * (self.total - self.done)

    def line(self, label: str) -> str:
        """The plain bar: ``[####....] 12/340 0:31 elapsed, ETA 14:10 label``."""
        width = 30
        filled = width * self.done // self.total
        eta = self.eta()
        timing = f"{_clock(time.monotonic() - self.start)} elapsed, ETA {'?' if eta is None else _clock(eta)}"
        return f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {timing} {label}"

    def show(self, label: str) -> None:
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.set_postfix_str(label, refresh=True)
            return
        self.stream.write("\r" + self.line(label)[:_WIDTH].ljust(_WIDTH))
        self.stream.flush()

    def advance(self) -> None:
        self.done += 1
        if self._tqdm is not None:
            self._tqdm.update(1)

    def close(self) -> None:
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.close()
            return
        self.stream.write("\r" + " " * _WIDTH + "\r")
        self.stream.flush()
