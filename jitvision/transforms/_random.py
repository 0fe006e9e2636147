"""How a drawn parameter meets the data: one place for the difference between eager and traced code.

A random effect is written once. Its parameters are tensors: a scalar (one sample) or a leading ``[R]`` dimension
(one row per sample of a batch, see ``transforms._batch``). ``rows_view`` makes a per-row parameter broadcast
against a ``[R, ...]`` tensor; ``where_rows`` selects per row between two results and keeps the tv_tensor type.
``python_choice`` is the single point where eager code may read a drawn tensor on the host: it returns a Python
bool for a scalar parameter in eager and TorchScript (the fast path: run only the branch that is needed) and None
when the choice must stay a tensor (under torch.compile/export, and for per-row parameters of a batch).
"""

from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch.utils import _pytree as pytree

from .. import _native, tv_tensors
from ..tv_tensors._batch_pytree import sample_leaf
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap


def rows_view(param: torch.Tensor, like: torch.Tensor, trailing: int = 0) -> torch.Tensor:
    """``param`` (``[]`` or ``[R, *k]`` with ``trailing = len(k)``) viewed as ``[R, 1, ..., 1, *k]`` to broadcast
    against ``like`` (``[R, ...]``); a scalar parameter is returned as it is."""
    if param.ndim == trailing:
        return param
    shape = list(param.shape[:1]) + [1] * (like.ndim - 1 - trailing) + list(param.shape[1:])
    return param.reshape(shape)


def where_rows(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    """``if_true`` where ``condition`` holds, else ``if_false``, row by row for a ``[R]`` condition (a scalar one
    picks whole tensors); the result keeps the tv_tensor type and metadata of ``if_true``."""
    if torch.jit.is_scripting() or is_pure_tensor(if_true):
        return torch.where(rows_view(condition, if_true), if_true, if_false)
    plain_true, plain_false = unwrap(if_true), unwrap(if_false)
    return tv_tensors.wrap(torch.where(rows_view(condition, plain_true), plain_true, plain_false), like=if_true)


@torch.jit.unused
def select_rows(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    """``where_rows`` for dense images, videos and masks through the native ``select_rows`` op (a copy of the chosen
    rows, one graph node): inductor's uint8 ``where`` over a whole image cost as much as its slow uint8 copy (~1.8
    ms for 3x512x512), on every compiled probability gate. Other leaves, or without the extension: ``where_rows``."""
    dense = is_pure_tensor(if_true) or tv_tensors.kind_of(type(if_true)) in (
        tv_tensors.Image,
        tv_tensors.Video,
        tv_tensors.Mask,
    )
    if (
        not _native.AVAILABLE
        or not dense
        or if_true.shape != if_false.shape
        or if_true.dtype != if_false.dtype
        or if_true.device.type != "cpu"  # elsewhere inductor fuses the where into its kernel
    ):
        return where_rows(condition, if_true, if_false)
    plain_true, plain_false = unwrap(if_true), unwrap(if_false)
    # A leading unit dimension on each operand (see functional._dispatch.call_custom_op); the op reads the rows in
    # memory order, so per-row coins need none.
    out = torch.ops.jitvision_native.select_rows(condition, plain_true.unsqueeze(0), plain_false.unsqueeze(0))
    out = out.squeeze(0)
    return out if is_pure_tensor(if_true) else tv_tensors.wrap(out, like=if_true)


def draws_on_host(device: torch.device) -> bool:
    """Whether eager code may draw as Python numbers (read on the host) for an input on ``device``: eager on the
    CPU. Traced code must keep draws as tensors, and on another device a read synchronises with the device."""
    return not is_tracing() and device.type == "cpu"


def host_branching(drawn: torch.Tensor) -> bool:
    """Whether code may read the drawn scalar ``drawn`` on the host and branch on it: in eager code on the CPU. Traced
    code must keep it a tensor, and on another device reading it synchronises the host with the device, so there
    the traced formulation (a select, a ``torch.where``) runs in eager code too."""
    return drawn.ndim == 0 and not is_tracing() and drawn.device.type == "cpu"


def python_choice(condition: torch.Tensor) -> Optional[bool]:
    """The drawn boolean as a Python bool where eager code may branch on it, else None (keep it a tensor)."""
    if not host_branching(condition):
        return None
    return bool(condition)


def pair(first: int, second: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The tensor ``[first, second]`` made on ``device`` by arithmetic: ``torch.tensor([first, second],
    device=device)`` copies from the host, a synchronising copy on a GPU in every call that draws."""
    return torch.arange(2, dtype=dtype, device=device) * (second - first) + first


def _check_generator(generator: torch.Generator, device: torch.device) -> None:
    if generator.device.type != torch.device(device).type:
        raise ValueError(
            f"jitvision: a transform's generator must be on its input's device: got a {generator.device.type} "
            f"generator for a {torch.device(device).type} input (make it with torch.Generator(device=...))"
        )


def uniform(
    shape: List[int], generator: Optional[torch.Generator], device: torch.device, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """``torch.rand(shape)`` on ``generator`` when one is given. Without one the generator argument is left out:
    ``aten.rand.generator`` takes only concrete sizes (a symbolic batch size fails under dynamic shapes and
    export), and ONNX has no translation for it; ``aten.rand.default`` has neither problem."""
    if generator is None:
        return torch.rand(shape, dtype=dtype, device=device)
    if not torch.jit.is_scripting():
        _check_generator(generator, device)
    return torch.rand(shape, generator=generator, dtype=dtype, device=device)


def randint(
    low: int, high: int, shape: List[int], generator: Optional[torch.Generator], device: torch.device
) -> torch.Tensor:
    """``torch.randint(low, high, shape)`` (int64) on ``generator`` when one is given; without one the generator
    argument is left out, as in ``uniform``: ``aten.randint.low_generator`` with no generator fails in an
    AOTInductor package (its proxy executor; ``aten.randint.low`` has a C shim)."""
    if generator is None:
        return torch.randint(low, high, shape, dtype=torch.int64, device=device)
    if not torch.jit.is_scripting():
        _check_generator(generator, device)
    return torch.randint(low, high, shape, generator=generator, dtype=torch.int64, device=device)


def normal_like(like: torch.Tensor, generator: Optional[torch.Generator], dtype: torch.dtype) -> torch.Tensor:
    """Standard normal noise shaped and laid out like ``like`` (``torch.randn_like``: a channels-last input gets
    channels-last noise, drawn in memory order, as torchvision draws it), on ``generator`` when one is given. The
    one place noise is drawn: GaussianNoise, RandomErasing's ``"random"`` value and the native noise op
    (``jitvision_native::gaussian_noise``, the same ``randn_like``) give the same values for a seed."""
    if generator is None:
        return torch.randn_like(like, dtype=dtype)
    return torch.randn_like(like, dtype=dtype, generator=generator)


def row_count(batch_shape: List[int]) -> int:
    """The rows a draw for ``batch_shape`` makes before ``as_drawn`` shapes them: B for a batch, 1 for one sample."""
    return batch_shape[0] if len(batch_shape) > 0 else 1


def as_drawn(batch_shape: List[int], rows: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """Parameters drawn as ``row_count(batch_shape)`` rows, shaped as ``_draw`` returns them for ``batch_shape``: the
    rows for a batch, row 0 for one sample (the same draws from the same stream either way)."""
    if len(batch_shape) > 0:
        return rows
    out: Dict[str, torch.Tensor] = {}
    for key, value in rows.items():
        out[key] = value[0]
    return out


def draw_coins(
    p: float, batch_shape: List[int], generator: Optional[torch.Generator], device: torch.device
) -> torch.Tensor:
    """Bool coins of shape ``batch_shape`` (``[]`` for one sample), each true with probability ``p``."""
    return uniform(batch_shape, generator, device) < p


def python_index(index: torch.Tensor) -> Optional[int]:
    """The drawn index as a Python int where eager code may branch on it (a scalar, not traced), else None."""
    # On any device: only the chosen branch may run (another one may refuse the input), so one sample's choice is
    # read on the host even where that synchronises with a GPU. Batches select per row instead (see switch).
    if index.ndim != 0 or is_tracing():
        return None
    return int(index)


@torch.jit.unused
def switch(
    index: torch.Tensor,
    keys: List[int],
    branch: Callable[..., Any],
    operands: Tuple[Any, ...],
    cond: bool = True,
    owner: str = "switch",
) -> Any:
    """``branch(key, *operands)`` for the ``key`` that ``index`` draws, among ``keys``: the one place a random choice
    among operations is decided (AutoAugment's operations, RandomChoice/RandomOrder/RandomApply's transforms).

    - one sample (``index`` ``[]``), eager: a Python branch, only the chosen operation runs;
    - one sample under torch.compile/export: a balanced tree of ``torch.cond`` on ``index`` (one graph, the choice
      stays live, only the chosen branch runs; every branch must return the same shape and dtype); for operands
      torch.cond cannot take (tv_tensors, nested samples), or with ``cond=False``, every branch runs and a select
      keeps the chosen one;
    - a batch (``index`` ``[R]``, operands with leading dimension R): in eager code on the CPU the rows are grouped
      by key and each group runs its branch once (``index_select``/``index_copy``); traced, or on another device
      (where grouping would read the keys on the host), every branch runs on all rows and each row takes its own
      result (``torch.where``).
    """
    choice = python_index(index)
    if choice is not None:
        return branch(choice, *operands)
    if cond and index.ndim == 0 and all(isinstance(op, torch.Tensor) and is_pure_tensor(op) for op in operands):
        return _cond_tree(index, sorted(keys), branch, operands)
    if is_tracing() or index.ndim == 0 or index.device.type != "cpu":
        # grouping reads the drawn keys on the host: a sync per call on a GPU, where computing every branch is cheap
        return _select(index, keys, branch, operands)
    return _grouped(index, keys, branch, operands, owner)


@torch.jit.unused
def _select(index: torch.Tensor, keys: List[int], branch: Callable[..., Any], operands: Tuple[Any, ...]) -> Any:
    """Every branch computed, each row (or the whole sample, for a scalar index) taking its own: the traced form
    for batches, and for samples torch.cond cannot take (tv_tensors, nested containers)."""
    results = [branch(key, *operands) for key in keys]

    def pick(*leaves: Any) -> Any:
        out = leaves[0]
        if not isinstance(out, torch.Tensor):
            return out
        for key, leaf in zip(keys[1:], leaves[1:]):
            out = where_rows(index == key, leaf, out)
        return out

    return pytree.tree_map(pick, results[0], *results[1:], is_leaf=sample_leaf)


@torch.jit.unused
def _fresh(out: torch.Tensor, operands: Tuple[Any, ...]) -> torch.Tensor:
    """A torch.cond branch may not return (a view of) an operand: copy when it would."""
    for operand in operands:
        if isinstance(operand, torch.Tensor) and out is operand:
            return out.clone()
    return out


@torch.jit.unused
def _cond_tree(index: torch.Tensor, keys: List[int], branch: Callable[..., Any], operands: Tuple[Any, ...]) -> Any:
    if len(keys) == 1:
        key = keys[0]
        return _fresh(branch(key, *operands), operands)
    middle = len(keys) // 2
    low, high = keys[:middle], keys[middle:]
    # The index is an operand, not a closure: a closed-over tensor failed to lift into nested branches under
    # dynamic shapes ("lift_tracked_freevar_to_input should not be called on root SubgraphTracer").
    return torch.cond(
        index < high[0],
        lambda i, *ops: _cond_tree(i, low, branch, ops),
        lambda i, *ops: _cond_tree(i, high, branch, ops),
        (index,) + tuple(operands),
    )


@torch.jit.unused
def _grouped(
    index: torch.Tensor, keys: List[int], branch: Callable[..., Any], operands: Tuple[Any, ...], owner: str
) -> Any:
    drawn = index.tolist()
    present = [key for key in keys if key in drawn]
    if len(present) == 1:
        return branch(present[0], *operands)
    out: Optional[torch.Tensor] = None
    for key in present:
        rows = (index == key).nonzero().squeeze(1)
        part = branch(key, *[op.index_select(0, rows) if isinstance(op, torch.Tensor) else op for op in operands])
        if out is None:
            out = part.new_empty([index.shape[0]] + list(part.shape[1:]))
        elif part.shape[1:] != out.shape[1:]:
            # One batch tensor holds rows of one shape: a shape-changing choice (RandomApply([Pad(4)])) drawn for
            # some rows only cannot be written back into it.
            raise ValueError(
                f"{owner}: the choices drawn for the rows of a batch give rows of different shapes "
                f"({list(out.shape[1:])} and {list(part.shape[1:])}), which one batch tensor cannot hold; apply it "
                "sample by sample, or make every choice give the same shape"
            )
        out.index_copy_(0, rows, part)
    return out
