"""torchvision as the judge of an eager failure that a case lists as torchvision's own refusal.

A case's ``torchvision_refuses`` names input kinds on which torchvision raises too (``cases.py``). When the target
fails there, the audit runs torchvision's op of the same name, with the same arguments, on the same input (rebuilt
under the same seed with torchvision's tv_tensors), and marks the cell "n/a" only if torchvision raises the same
exception type (on at least one of ``ORACLE_CALLS`` calls: a random op may check its sample only on the draws that
apply it; the reason then says on how many). Anything else (torchvision returns an output, raises another type,
lacks the op or the input kind, or is not installed) leaves the cell a failure, with what was found in its reason.
"""

import importlib
from typing import Any, Callable, Optional

import torch

from .cases import FIXED_SIZE, PLAIN_KINDS, make_input
from .outcome import NA, Cell, failed, one_line
from .targets import Entry

# torchvision's op is called this many times on the input (the first under the eager cell's seed): a random op
# such as RandomGrayscale(p=0.5) checks its sample only on the draws that apply it, and returns it unchanged on the
# others, so one call may not show the refusal.
ORACLE_CALLS = 12


def _torchvision_call(entry: Entry, kind: str) -> Callable[[Any], Any]:
    """torchvision's functional or transform of ``entry``'s name, built with the case's arguments."""
    transforms = importlib.import_module("torchvision.transforms.v2")
    tv_tensors = importlib.import_module("torchvision.tv_tensors")
    kwargs = entry.case.arguments(transforms, tv_tensors, kind)
    if entry.api == "functional":
        fn = getattr(transforms.functional, entry.name)

        def call(x: Any) -> Any:
            return fn(x, **kwargs)

        return call
    # A plain batch goes through jitvision's forward_batch; torchvision has only the call itself.
    return getattr(transforms, entry.name)(**kwargs)


def _torchvision_input(entry: Entry, kind: str, plain_input: Any, seed: int) -> Any:
    if kind in PLAIN_KINDS:
        if plain_input is None:
            raise ValueError("the eager input was not built")
        return plain_input
    tv_tensors = importlib.import_module("torchvision.tv_tensors")
    torch.manual_seed(seed)  # the values of the target's eager input
    return make_input(kind, tv_tensors, FIXED_SIZE, entry.case.image_dtype)


def refusal_cell(entry: Entry, kind: str, ours: Exception, plain_input: Optional[Any], seed: int) -> Cell:
    """The eager cell of ``entry`` on ``kind``, which failed with ``ours`` on an input built (and called) under
    ``seed`` and is listed as torchvision's refusal: "n/a" if torchvision raises the same exception type on the same
    input, else a failure. ``plain_input`` is the target's input itself, used as is for plain-tensor kinds."""
    reason = one_line(ours)
    expected = entry.case.torchvision_refuses[kind]
    if not isinstance(ours, expected):
        return failed(f"{reason} (the case lists torchvision's refusal as a {expected.__name__})")
    try:
        version = importlib.import_module("torchvision").__version__
    except ImportError:
        return failed(f"{reason} (listed as torchvision's refusal; torchvision is not installed to check it)")
    try:
        call = _torchvision_call(entry, kind)
        x = _torchvision_input(entry, kind, plain_input, seed)
    except Exception as exc:
        return failed(f"{reason} (listed as torchvision's refusal, not checked: {one_line(exc)})")
    torch.manual_seed(seed)
    raised = []
    for _ in range(ORACLE_CALLS):
        try:
            call(x)
        except Exception as theirs:
            raised.append(theirs)
    same = [theirs for theirs in raised if type(theirs) is type(ours)]
    if same:
        name, _, message = one_line(same[0]).partition(": ")
        how = f" on {len(same)} of {ORACLE_CALLS} calls (the others return an output)"
        how = "" if len(same) == ORACLE_CALLS else how
        return Cell(NA, f"torchvision {version} raises the same {name}{how}: {message}")
    if raised:
        return failed(f"{reason} (torchvision {version} raises {one_line(raised[0])})")
    return failed(f"{reason} (torchvision {version} does not refuse this input: {ORACLE_CALLS} calls return an output)")
