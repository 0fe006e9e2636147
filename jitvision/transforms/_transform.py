"""The Transform base class: one scriptable tensor path, and a Python path over any nesting of samples.

``forward`` is typed ``Tensor -> Tensor`` because that is what TorchScript compiles; under
``torch.jit.is_scripting()`` it draws parameters from the tensor's size and transforms it. In Python (eager,
dynamo, export) ``forward`` flattens any nesting of dicts/lists/tuples with ``torch.utils._pytree``, decides
per leaf whether to transform it (torchvision's rules), draws one set of parameters for the whole sample
and calls ``transform`` on each selected leaf. ``__call__`` packs several positional inputs into a tuple,
so ``t(image, boxes)`` returns a tuple, as in torchvision.

Parameters are tensors drawn with torch's RNG (see ``_draw``), so a compiled random transform keeps drawing
new values without recompiling.

Per-sample randomness on batches (``transforms._batch``): a sample holding batch tv_tensors
(``tv_tensors.BatchedImages``, ...) gets ``_draw([B], ...)``, one parameter set per sample (leading dimension
B), and each leaf goes through ``transform_batch`` with the rows of those parameters that belong to its rows.
``forward_batch(x)`` (also in TorchScript) does the same for a plain ``[B, ...]`` tensor.
"""

import functools
import itertools
from typing import Any, Callable, Dict, List, Optional, Tuple

import PIL.Image
import torch
from torch import nn
from torch.utils import _pytree as pytree

from ..tv_tensors import kind_of
from ..tv_tensors._batch_pytree import sample_leaf
from ..tv_tensors._encoded import BatchedEncodedImages, EncodedImage
from ._batch import query_batch_size, rows_of
from ._coin import coin_then_params, eager_coin_then_apply, gated_by_coin
from ._compile import GUARD_TOKEN, _with_filter
from ._decode_batch import forward_encoded_batch
from ._decode_fused import forward_encoded, forward_encoded_alone, holds_encoded
from ._random import draw_coins, python_choice, select_rows, where_rows
from ._routing import (
    ROUTE_CHECKS,
    ROUTE_EAGER_HOOK,
    ROUTE_GENERIC,
    ROUTE_NO_PARAMS,
    eager_hook_holds,
    owner,
    unhooked,
)
from ._seeding import thread_stream, worker_generator
from ._utils import is_image_like, query_device, query_size
from .functional._dispatch import _passthrough, get_kernel, is_pure_tensor, is_tracing

Params = Dict[str, torch.Tensor]
_TOKENS = itertools.count(1)  # process-wide: a token names one transform instance in one state
_is_compiling = torch.compiler.is_compiling  # the same function (dynamo folds it), one global look-up per call


@torch.jit.unused
def _read_tokens(module: nn.Module) -> None:
    token = getattr(module, "_guard_token", 0) if isinstance(module, Transform) else 1  # a literal: no global guard
    if token <= 0:
        raise RuntimeError(f"{type(module).__name__}: no guard token (Transform.__init__ was not called)")
    for child in module._modules.values():
        if child is not None:
            _read_tokens(child)


class Transform(nn.Module):
    """Base of every jitvision transform.

    Subclasses set ``_functional`` (the functional whose registered kernels decide which tv_tensor kinds are
    transformed, unless ``_transformed_kinds`` says), implement ``transform(inpt, params)`` with calls to
    functionals, and, if random, ``_draw(batch_shape, height, width, device)`` returning tensor parameters (the
    contract: docs/design/batches.md).
    """

    # Which leaves are transformed, as class data (torchvision's ``_transformed_types``, plus two): leaves of other
    # types (strings, ints, ...) pass through untouched; of the tv_tensors (ours or torchvision's), those of
    # ``_transformed_kinds`` (``tv_tensors.kind_of`` of the leaf's type; None: every kind the class's ``_functional``
    # has a kernel for, every kind where it has none); pure tensors by torchvision's rule (the first stands for the
    # image where the sample holds none) unless ``_pure_tensors_pass`` (box metadata steps, ToPureTensor).
    _transformed_types: tuple[type, ...] = (torch.Tensor, PIL.Image.Image)
    _transformed_kinds: Optional[tuple[type, ...]] = None
    _pure_tensors_pass: bool = False
    _functional: Optional[Callable[..., Any]] = None
    # A torch.Generator cannot be saved with a scripted module; the scripted path uses the global RNG.
    __jit_ignored_attributes__ = ["generator", "_traced_plain"]
    # True where ``_eager_plain`` also runs under torch.compile/export (``_forward_sample`` on one plain tensor):
    # a class whose ``_eager_plain`` is one native op that draws inside on the global RNG, tagged
    # ``nondeterministic_seeded`` and with a fake implementation, so the traced graph is that one node.
    _traced_plain = False
    # torchvision's v1 class that its v2 class falls back to under torch.jit.script (read by code written for
    # torchvision). None: a jitvision transform scripts as itself, there is no fallback class.
    _v1_transform_cls: Optional[type] = None
    # False where ``_draw`` ignores the height and width: ``make_params`` then reads no size from the sample (as
    # torchvision's make_params of such a class), so a sample without a sized leaf is accepted.
    _draw_uses_size: bool = True
    # Set per class by ``__init_subclass__`` from which methods the class overrides (read on every call, so they are
    # decided once, when the class is created): the route of one plain tensor in ``__call__`` (ROUTE_*), whether
    # the class has an eager hook, its own ``make_params``, a ``_draw``.
    _plain_route: int = ROUTE_GENERIC
    _has_eager_hook: bool = False
    _own_make_params: bool = False
    _draws: bool = False
    _declares_stage: bool = False  # the class defines native_stage itself (see _stages: subclasses fuse only so)
    _coin_before_params: bool = False  # a probability transform whose only draw is its coin: see coin_then_params
    _gate_is_transform: bool = True  # RandomApplyTransform: the class keeps the gate as its transform

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._has_eager_hook = eager_hook_holds(cls, Transform, globals().get("RandomApplyTransform"))
        # A make_params of the class's own (a user's subclass): the library's are Transform's and, for the coin-only
        # probability transforms, RandomApplyTransform's (torchvision's {}).
        cls._own_make_params = owner(cls, "make_params") not in (Transform, globals().get("RandomApplyTransform"))
        cls._draws = cls._draw is not Transform._draw
        cls._declares_stage = "native_stage" in cls.__dict__
        generic = (
            cls.forward is Transform.forward
            and not cls._pure_tensors_pass
            and cls._forward_sample is Transform._forward_sample
            and not cls._own_make_params
            and cls._needs_transform_list is Transform._needs_transform_list
        )
        route = ROUTE_GENERIC
        if generic and cls._has_eager_hook:
            route = ROUTE_EAGER_HOOK
        elif generic and not cls._draws:
            route = ROUTE_NO_PARAMS
        if route != ROUTE_GENERIC and cls.check_inputs is not Transform.check_inputs:
            route |= ROUTE_CHECKS
        cls._plain_route = route

    def __init__(self, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__()
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(f"{type(self).__name__}: generator must be a torch.Generator, got {generator!r}")
        self.generator = generator

    # ---- the guard token (``_compile.py``) -----------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        # Any assignment (a parameter, a replaced child, an instance method override) gives this transform a new
        # token: ``jitvision.transforms.compile`` guards the tokens instead of every attribute the trace read.
        self.__dict__[GUARD_TOKEN] = next(_TOKENS)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)
        self.__dict__[GUARD_TOKEN] = next(_TOKENS)  # a copy or an unpickled transform is another instance

    @torch.jit.unused
    def _read_guard_tokens(self) -> None:
        """Under torch.compile: read the token of every transform in this tree in a Python branch, so that dynamo
        guards each (EQUALS_MATCH) and the iteration guards each ``_modules`` dict's keys. A no-op in eager."""
        if _is_compiling():
            _read_tokens(self)

    @torch.jit.unused
    def compile(self, *args: Any, **kwargs: Any) -> None:
        """``nn.Module.compile`` (compile this module's call in place) with jitvision's guard filter and default
        backend: see ``jitvision.transforms.compile``, which takes the same arguments and returns the compiled
        callable."""
        super().compile(*args, **_with_filter(kwargs))

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) == 1:
            inpt = inputs[0]
            # The eager fast path for one plain tensor: what nn.Module.__call__ -> forward -> _forward_sample would
            # do, minus their frames and checks (~15 us of a cheap transform's ~30). Same draws, same result.
            if type(inpt) is torch.Tensor and not _is_compiling():
                route = self._plain_route
                if route and unhooked(self):
                    if route & ROUTE_CHECKS:
                        self.check_inputs([inpt])
                    if not isinstance(inpt, self._transformed_types):
                        return inpt
                    if route & ROUTE_EAGER_HOOK:
                        if inpt.device.type == "cpu":  # the hook reads its draws on the host (see _eager_plain)
                            out = self._eager_plain(inpt)
                            if out is not None:
                                return out
                    elif inpt.ndim >= 2:  # what _plain_params gives a deterministic transform
                        return self.transform(inpt, {})
            return super().__call__(inpt)
        if not inputs:
            raise TypeError(f"{type(self).__name__}: expected at least one input")
        return super().__call__(inputs)

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            return self.transform(inpt, self._draw([], inpt.shape[-2], inpt.shape[-1], inpt.device))
        return self._forward_sample(inpt)

    @torch.jit.export
    def forward_batch(self, images: torch.Tensor) -> torch.Tensor:
        """Per-sample randomness on a plain ``[B, C, H, W]`` (or ``[B, T, C, H, W]``) tensor: sample ``i`` gets
        its own draw. The scriptable counterpart of passing ``tv_tensors.BatchedImages``."""
        if images.ndim < 4:
            raise ValueError(
                "forward_batch: expected a batch [B, C, H, W] or [B, T, C, H, W], got " + str(images.ndim) + " dims"
            )
        if not torch.jit.is_scripting():
            self._read_guard_tokens()
        params = self._draw([images.shape[0]], images.shape[-2], images.shape[-1], images.device)
        return self.transform_batch(images, params)

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        """The native stage this transform contributes to a fused path (a kind from ``_stages``), or None. Read
        through ``_stages.stage_of``, which honours it only where the class defines it in its own body."""
        return None

    # ---- the Python path -------------------------------------------------------------------------------

    @torch.jit.unused
    def _forward_sample(self, sample: Any) -> Any:
        self._read_guard_tokens()
        if type(sample) is torch.Tensor:  # the common single-image case skips flattening, not the leaf filter
            self.check_inputs([sample])
            if type(self)._needs_transform_list is Transform._needs_transform_list:  # the rule, for one tensor
                needed = not self._pure_tensors_pass and isinstance(sample, self._transformed_types)
            else:
                needed = self._needs_transform_list([sample])[0]
            if not needed:
                return sample
            cls = type(self)
            if (
                cls._has_eager_hook
                and not cls._own_make_params  # a custom make_params is honoured
                and (cls._traced_plain or not torch.compiler.is_compiling())
                and not torch._C._get_tracing_state()  # jit.trace records tensor ops, not native draws
                and sample.device.type == "cpu"  # reading draws on the host would synchronise with a GPU
            ):
                out = self._eager_plain(sample)
                if out is not None:
                    return out
            if cls._coin_before_params:
                return gated_by_coin(self, sample, self._plain_params(sample))
            return self.transform(sample, self._plain_params(sample))
        if type(sample) is EncodedImage:
            return forward_encoded_alone(self, sample)
        if type(sample) is BatchedEncodedImages:
            return forward_encoded_batch(self, sample)
        flat_inputs, spec = pytree.tree_flatten(sample, is_leaf=sample_leaf)
        if holds_encoded(flat_inputs):  # not decoded yet: decoded here, or only the part this transform keeps
            return forward_encoded(self, flat_inputs, spec)
        self.check_inputs(flat_inputs)
        needs_transform = self._needs_transform_list(flat_inputs)
        selected = [inpt for inpt, needs in zip(flat_inputs, needs_transform) if needs]
        batch_size = query_batch_size(selected, type(self).__name__)
        if batch_size is not None:
            params = self.make_batch_params(selected, batch_size)
            flat_outputs = [
                self.transform_batch(inpt, rows_of(params, inpt)) if needs else inpt
                for inpt, needs in zip(flat_inputs, needs_transform)
            ]
            return pytree.tree_unflatten(flat_outputs, spec)
        params = self._sample_params(selected) if selected else {}
        leaf_transform = self.transform
        if type(self)._coin_before_params and selected:
            leaf_transform = functools.partial(gated_by_coin, self)
        flat_outputs = [
            leaf_transform(inpt, params) if needs else inpt for inpt, needs in zip(flat_inputs, needs_transform)
        ]
        return pytree.tree_unflatten(flat_outputs, spec)

    @torch.jit.unused
    def _plain_params(self, image: torch.Tensor) -> Dict[str, Any]:
        """``make_params([image])`` for one plain tensor, without the sample inspection: a cheap transform's whole
        per-call budget is a few microseconds, and inspecting the sample cost more than that."""
        cls = type(self)
        if cls._own_make_params or image.ndim < 2:
            return self._sample_params([image])
        if not cls._draws:
            return {}
        return self._draw([], image.shape[-2], image.shape[-1], image.device)

    @torch.jit.unused
    def _sample_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        """One sample's parameters as torchvision's ``forward`` asks for them: ``make_params``, after the coin for a
        probability transform whose only draw is its coin (see ``coin_then_params``)."""
        if type(self)._coin_before_params:
            return coin_then_params(self, flat_inputs)
        return self.make_params(flat_inputs)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        """The output for one plain tensor in eager mode, or None to take the generic path (draw the tensor
        parameters, then ``transform``). Cheap transforms override it to draw Python numbers and call the kernel
        directly: the same draws on the same generator and the same result as the generic path, without building
        parameter tensors that are read back at once (each small tensor op is a few microseconds).

        The subclass hook of the eager fast path (deterministic classes without it get ``transform(tensor, {})``
        there). Contract: return None before drawing anything (the generic path
        then draws); otherwise draw exactly what ``_draw`` draws, in the same order on ``self._rng()``, and return
        what ``transform`` would (an output may be the input itself where ``transform`` returns it). When a class
        overrides it (and keeps the base ``forward``/``_forward_sample``/``make_params``/leaf rule), ``__call__``
        on one plain tensor outside torch.compile/jit.trace and without module hooks calls ``check_inputs`` and
        then this method directly, skipping ``nn.Module.__call__`` (hooks, when present, take the generic route).
        A native op that draws and applies in one call (``jitvision_native::random_*``, on ``self._rng()``) fits
        here too; ``self._rng()`` is the same generator without ``_rng``'s scripting/compile checks (this method
        only runs eagerly), and the op's ``OpOverload._op`` skips ``OpOverload.__call__``'s frame. A class that sets
        ``_traced_plain`` gets this method under torch.compile/export too (its op then must draw on the global RNG
        when ``self.generator`` is None, have a fake implementation and be tagged ``nondeterministic_seeded``)."""
        return None

    @torch.jit.unused
    def _needs_transform_list(self, flat_inputs: List[Any]) -> List[bool]:
        # torchvision's rule: without an image or video in the sample, the first pure tensor is the image and
        # later pure tensors (labels, ...) pass through; with one, every pure tensor passes through. A pure tensor
        # below 2 dimensions is no image [..., H, W]: boxes + labels transform the boxes on their canvas (torchvision
        # reverses such labels as an image), unless nothing else is transformed (then the kernel names the rank).
        transform_pure_tensor = not self._pure_tensors_pass and not any(is_image_like(inpt) for inpt in flat_inputs)
        needs: List[bool] = []
        low_rank: List[int] = []
        for inpt in flat_inputs:
            if not isinstance(inpt, self._transformed_types):
                needs.append(False)
            elif is_pure_tensor(inpt):
                if transform_pure_tensor and inpt.ndim < 2:
                    low_rank.append(len(needs))
                needs.append(transform_pure_tensor and inpt.ndim >= 2)
                transform_pure_tensor = transform_pure_tensor and inpt.ndim < 2
            else:
                needs.append(self._supports(type(inpt)))
        if transform_pure_tensor and low_rank and not any(needs):
            needs[low_rank[0]] = True
        return needs

    @torch.jit.unused
    def _supports(self, input_type: type) -> bool:
        """Whether a (non pure tensor) leaf of this type is transformed rather than passed through (the class data
        above: ``_transformed_kinds``, else the kinds ``_functional`` has kernels for)."""
        kinds = self._transformed_kinds
        if kinds is not None and issubclass(input_type, torch.Tensor):
            return kind_of(input_type) in kinds
        if self._functional is None:
            return True
        if issubclass(input_type, PIL.Image.Image):
            return get_kernel(self._functional, PIL.Image.Image, allow_passthrough=True) is not _passthrough
        if kind_of(input_type) is None and not issubclass(input_type, torch.Tensor):
            return False
        return get_kernel(self._functional, input_type, allow_passthrough=True) is not _passthrough

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        """Reject samples this transform cannot handle (subclasses override)."""

    @torch.jit.unused
    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        """Parameters shared by every leaf of one sample (torchvision's hook, kept for custom subclasses). Classes
        whose torchvision counterpart names its parameters differently give them torchvision's keys here
        (``_public_params``), which their ``transform`` reads, so a subclass that edits them works as with
        torchvision."""
        height, width = self._draw_size(flat_inputs)
        drawn = self._draw([], height, width, query_device(flat_inputs))
        return self._public_params(drawn, flat_inputs, height, width)

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """``_draw``'s parameters under torchvision's ``make_params`` keys (value types: see docs/tvsuite.md);
        the default keeps them as drawn."""
        return drawn

    @torch.jit.unused
    def make_batch_params(self, flat_inputs: List[Any], batch_size: int) -> Dict[str, Any]:
        """One parameter set per sample of a batch sample (leading dimension ``batch_size``)."""
        height, width = self._draw_size(flat_inputs)
        return self._draw([batch_size], height, width, query_device(flat_inputs))

    @torch.jit.unused
    def _draw_size(self, flat_inputs: List[Any]) -> Tuple[int, int]:
        """The size ``_draw`` is given: the sample's, or (0, 0) where the draw does not depend on it (as torchvision's
        make_params of such a class, no size is read, so a sample without a sized leaf is accepted)."""
        if not self._draw_uses_size:
            return 0, 0
        return query_size(flat_inputs, type(self).__name__)

    # ---- what subclasses implement ------------------------------------------------------------------------

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        """The random parameters, as tensors, for inputs of this size: ``batch_shape`` ``[]`` for one sample, ``[B]``
        for a batch of B samples (every parameter then has that leading dimension, one row per sample, distributed
        as one sample's). The one draw of a random transform; deterministic transforms draw nothing."""
        return torch.jit.annotate(Params, {})  # the alias: subscripting Dict per call is slower in eager

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """The effect on one leaf with ``_draw``'s parameters: one sample's, or a batch's rows where the leaf's
        leading dimension holds the samples (``_random.rows_view`` broadcasts a parameter either way)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement transform()")

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """The effect on a batch leaf with per-row parameters. ``transform`` unless a class's batch needs other code
        (per-row crops of different boxes, for example)."""
        return self.transform(inpt, params)

    def _rng(self) -> Optional[torch.Generator]:
        """The generator every draw of this transform uses: None for the global RNG (TorchScript, whose saved modules
        cannot hold a generator, and transforms made without one); in eager code ``generator``, as a stream of its
        own in each DataLoader worker and epoch (``_seeding.worker_generator``)."""
        if torch.jit.is_scripting():
            return None  # TorchScript compiles no further: the rest reads an attribute it ignores
        generator = self.generator
        if generator is None:  # the global RNG, or the stream a Loader set for its thread (_seeding.drawing_from)
            return None if _is_compiling() else thread_stream()
        if _is_compiling():
            raise ValueError(
                f"{type(self).__name__}: a torch.Generator cannot be used under torch.compile/export "
                "(dynamo does not trace generators); seed the global RNG with torch.manual_seed instead"
            )
        return worker_generator(generator)


class RandomApplyTransform(Transform):
    """A transform applied with probability ``p``: the coin is a tensor, so compiled code stays random.

    Subclasses implement ``_apply(inpt, params)`` (the effect, always applied); this class draws the coin
    (``params["apply"]``: bool ``[]``, or ``[B]`` on a batch) and gates the effect with it in ``_gate``, the one
    gate: a Python branch where ``python_choice`` allows one, the effect alone where the coin is a constant of a
    traced graph (p 0 or 1), else ``_apply_where`` (a per-row select; a class overrides it for a cheaper
    formulation). Subclasses with more random parameters override ``_draw`` and draw the coin with
    ``_random.draw_coins`` (no ``super()``: TorchScript does not support it).
    """

    # Whether the coin is the class's only draw (``_draw``, ``make_params`` and
    # ``make_batch_params`` are this class's): set per class by ``__init_subclass__``. Only then may a traced graph
    # with p 0 or 1 drop the draw (``_constant_coin``), and the eager hook draw the coin on the host.
    _coin_only: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A user's make_params on a class whose only draw is the coin: torchvision draws the coin first and calls
        # make_params only where it says apply (its make_params of such a class returns {}).
        cls._coin_before_params = cls._draw is RandomApplyTransform._draw
        cls._gate_is_transform = cls.transform is RandomApplyTransform.transform
        cls._coin_only = (
            cls._draw is RandomApplyTransform._draw
            and not cls._own_make_params
            and cls.make_batch_params is Transform.make_batch_params
        )

    def __init__(self, p: float = 0.5, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(generator=generator)
        if not (0.0 <= p <= 1.0):
            raise ValueError(f"{type(self).__name__}: p must be a probability in [0, 1], got {p}")
        self.p = float(p)  # an int p (p=1) is a float to TorchScript (draw_coins takes a float)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"apply": self._coins(batch_shape, device)}

    @torch.jit.unused
    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        """torchvision's: nothing for a class whose only draw is its coin (the coin is drawn before, see
        ``coin_then_params``); the drawn parameters, coin included, for a class with more."""
        if type(self)._coin_before_params:
            return {}
        return Transform.make_params(self, flat_inputs)

    def _coins(self, shape: List[int], device: torch.device) -> torch.Tensor:
        if not torch.jit.is_scripting():
            constant = self._constant_coin()
            if constant is not None:  # traced, p 0 or 1: no draw in the graph (see _constant_coin)
                return torch.full(shape, constant, dtype=torch.bool, device=device)
        return draw_coins(self.p, shape, self._rng(), device)

    @torch.jit.unused
    def _constant_coin(self) -> Optional[bool]:
        """Under torch.compile/export, where ``p`` is 1 or 0 (a Python float, a constant of the graph): the coin
        every draw gives (a float32 uniform in [0, 1) is always below 1 and never below 0), so the graph has no
        random op and no select: ``_draw`` returns it as a constant and ``transform`` applies the
        effect (or returns the input) directly. None otherwise (eager keeps drawing the coin, as torchvision does:
        the same RNG stream; TorchScript draws too), and where the class draws more than the coin."""
        if not is_tracing() or not self._coin_only:
            return None
        p = self.p
        if p != 1.0 and p != 0.0:
            return None
        return p == 1.0

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._gate(inpt, params)

    def _gate(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """The one probability gate: the effect where the coin says so (one sample, or per row of a batch). Without a
        coin (``transform(x, make_params([x]))`` of a coin-only class: torchvision's ``{}``), the effect, as
        torchvision's ``transform``, whose coin is drawn in ``forward``."""
        apply = params.get("apply")
        if apply is None:
            return self._apply(inpt, params)
        choice = python_choice(apply)
        if choice is not None:
            return self._apply(inpt, params) if choice else inpt
        if not torch.jit.is_scripting():
            constant = self._constant_coin()
            if constant is not None:  # traced with p 1 or 0: the coin _draw made is that constant
                return self._apply(inpt, params) if constant else inpt
        return self._apply_where(inpt, params)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # Where the coin is the only parameter: the coin drawn on the host, the effect called directly. A class with a
        # native op that draws the coin and applies the effect in one call overrides this (and falls back to
        # ``eager_coin_then_apply`` where its op does not take the image).
        if not self._coin_only:
            return None
        return eager_coin_then_apply(self, image)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply()")

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """The effect on the rows whose coin is set, as tensor code (override for a cheaper formulation)."""
        if not torch.jit.is_scripting():
            return select_rows(params["apply"], self._apply(inpt, params), inpt)
        return where_rows(params["apply"], self._apply(inpt, params), inpt)

    def extra_repr(self) -> str:
        return f"p={self.p}"
