"""Frozen behaviour: every public transform class, through the public API, digested and compared with
``tests/transforms/frozen/digests.json``.

What is frozen, per class of ``jitvision.transforms`` (the audit's case table, ``jitvision/_audit/cases.py``, builds
the instance and the inputs; a class without a case fails here), per input kind the audit runs it on, per mode and
per seed 0..24: a digest of the output (every leaf: its path, type, shape, dtype, tv_tensor metadata and bytes) and
of ``torch.rand(4)`` drawn right after the call (the global RNG stream). The modes:

- ``eager``: ``t(x)``; on the ``batch-tensor`` kind ``t.forward_batch(x)``, on ``batch``/``detection-batch`` the batch
  tv_tensors (``BatchedImages``, ``batch_samples``), on ``labelled-*`` MixUp/CutMix's (images, labels).
- ``generator``: eager with the class built with ``generator=g`` (classes that take one), ``g.manual_seed(seed)``
  before each call; the digest holds ``g``'s next draw and the global ``torch.rand(4)`` (which must not move).
- ``script``: ``torch.jit.script(t)`` (once per class) on the plain kinds (``forward_batch`` on ``batch-tensor``).
- ``compile``: ``torch.compile(t, fullgraph=True, backend="eager")``, compiled once per class and kind.
- ``export``: ``torch.export.export`` as the audit exports (``strict=True`` for tv_tensor inputs), once per class and
  kind; the program is called with the seeds.

Each compiled, scripted or exported callable is built once and then called with ``torch.manual_seed(seed)`` before
each of the seeds. A mode that raises records the exception type (seed by seed when the call raises, once when
building the compiled/scripted/exported callable raises), and a mode that does not apply records why (``n/a``), so
a change from a refusal to a result, or back, fails too.

What is left out of the full cross product, for time (the whole file costs about 270 s of CPU, one thread per
worker: about 2.5 minutes with ``pytest -n 2`` on two free cores):

- compile runs on ``COMPILE_KINDS`` and export on ``EXPORT_KINDS`` (see there why those), not on every kind;
- the float export of the four automatic augmentation policies (``EXPORT_LEFT_OUT``: 5 to 51 s of CPU each);
- deterministic classes (seeds 0..2 give one eager output on every kind, and the call leaves the global RNG where it
  was) run
  ``DETERMINISTIC_SEEDS`` (2 seeds) in every mode: their digests cannot depend on the seed, and each class's
  ``random`` flag is frozen, so a class that starts (or stops) drawing fails here.

Digests are per mode (float outputs may differ by rounding between modes). Everything runs with one intra-op thread
(torch's reductions split work by thread count). Floats are hashed bit for bit, so the file holds for the CPU
capability it was written with: AVX2 and AVX512 give the same eager and generator digests (checked with
``ATEN_CPU_CAPABILITY=avx2``),
the scalar ``default`` capability differs on float outputs (transcendental functions and reductions are not
vectorised the same way). ``cpu_capability`` in the file names it, and a failure message names both.

Regenerate (after a change that alters behaviour on purpose, saying why in the commit)::

    PYTHONPATH=$PWD python tools/freeze_digests.py
"""

import hashlib
import inspect
import io
import json
import re
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import PIL.Image
import pytest
import torch
import torch._dynamo
from torch.utils import _pytree as pytree

from jitvision._audit.cases import FIXED_SIZE, LABELLED_KINDS, PLAIN_KINDS, NotApplicable, make_input
from jitvision._audit.checks import CaseChecks
from jitvision._audit.targets import Entry, Target, resolve_target
from jitvision.audit import _kinds_for
from jitvision.tv_tensors._batch_pytree import sample_leaf

DIGESTS = Path(__file__).parent / "frozen" / "digests.json"
SEEDS = tuple(range(25))
DETERMINISTIC_SEEDS = (0, 1)
INPUT_SEED = 1234
MODES = ("eager", "generator", "script", "compile", "export")
_METADATA = ("format", "canvas_size", "clamping_mode", "batch_size")
# Compiling and exporting dominate the cost (a second or more per class and kind against a few ms per seed), so
# those two modes run on the kinds that take their own path through a transform: plain tensors (float and uint8,
# whose native fast paths differ), a tv_tensor image, detection samples (straight and rotated boxes, masks), the
# batch forms and MixUp/CutMix's pairs. Video, Mask, BoundingBoxes, RotatedBoxes and KeyPoints alone go through the
# same kernels as in eager (frozen there, and in the detection samples). Export further leaves out the tv_tensor
# image, BatchedImages and the rotated sample (strict export of rotated boxes alone costs seconds per class): the
# exported forms the docs name are plain tensors, forward_batch and detection samples.
COMPILE_KINDS = (
    "float", "uint8", "Image", "detection", "detection-rotated", "batch", "batch-tensor", "detection-batch",
    *LABELLED_KINDS,
)
EXPORT_KINDS = ("float", "uint8", "detection", "batch-tensor", "detection-batch", *LABELLED_KINDS)
# Exporting the automatic augmentation policies on a float image costs 5 to 51 s of CPU each (AugMix 51 s,
# RandAugment 11 s, AutoAugment 10 s, TrivialAugmentWide 5 s; one thread), against 0.3 s for uint8 (one native
# node): their float export is left out, the uint8 and forward_batch exports stay.
EXPORT_LEFT_OUT = {(name, "float") for name in ("AugMix", "RandAugment", "AutoAugment", "TrivialAugmentWide")}


# ---- digests --------------------------------------------------------------------------------------------------


def _hex(data: bytes, chars: int) -> str:
    return hashlib.sha1(data).hexdigest()[:chars]


def _leaf_bytes(leaf: Any) -> Tuple[str, bytes]:
    """(a readable description, the bytes that identify the leaf's value)."""
    if isinstance(leaf, torch.Tensor):
        plain = leaf.detach().as_subclass(torch.Tensor).contiguous()
        meta = {name: repr(getattr(leaf, name)) for name in _METADATA if hasattr(leaf, name)}
        index = getattr(leaf, "sample_index", None)
        if isinstance(index, torch.Tensor):
            meta["sample_index"] = repr(index.tolist())
        description = f"{type(leaf).__name__}{list(plain.shape)} {plain.dtype}"
        if meta:
            description += " " + " ".join(f"{k}={v}" for k, v in sorted(meta.items()))
        data = plain.view(torch.uint8).numpy().tobytes() if plain.numel() else b""
        return description, data
    if isinstance(leaf, PIL.Image.Image):
        return f"PIL {leaf.mode} {leaf.size}", leaf.tobytes()
    return f"{type(leaf).__name__} {leaf!r}", b""


def leaves(out: Any) -> List[Tuple[str, str, bytes]]:
    """(path, description, bytes) of every leaf of ``out``; a ragged batch leaf is one leaf with its index."""
    flat, _ = pytree.tree_flatten_with_path(out, is_leaf=sample_leaf)
    result = []
    for path, leaf in flat:
        description, data = _leaf_bytes(leaf)
        result.append((pytree.keystr(path) or "output", description, data))
    return result


def _rng_bytes(draw: torch.Tensor) -> bytes:
    return draw.numpy().tobytes()


class Recorder:
    """Collects one case's per-seed outputs and RNG draws into a digest string:
    ``<out16> <rng16> <two hex per seed> <leaf8,leaf8,...>`` (output over all seeds, RNG draws over all seeds, each
    seed's output and draw together, and each leaf position over all seeds), or ``n/a: why`` / ``raises: Type``."""

    def __init__(self) -> None:
        self.out = hashlib.sha1()
        self.rng = hashlib.sha1()
        self.per_seed: List[str] = []
        self.per_leaf: List[Any] = []
        self.descriptions: List[Tuple[str, str]] = []

    def add(self, out: Any, draw: bytes) -> None:
        seed_hash = hashlib.sha1(draw)
        self.rng.update(draw)
        if isinstance(out, BaseException):
            tag = f"raises {type(out).__name__}".encode()
            self.out.update(tag)
            seed_hash.update(tag)
            self.per_seed.append(seed_hash.hexdigest()[:2])
            return
        items = leaves(out)
        self.out.update(str(len(items)).encode())
        while len(self.per_leaf) < len(items):
            self.per_leaf.append(hashlib.sha1())
        for position, (path, description, data) in enumerate(items):
            for h in (self.out, seed_hash, self.per_leaf[position]):
                h.update(path.encode())
                h.update(description.encode())
                h.update(data)
        if not self.descriptions:
            self.descriptions = [(path, description) for path, description, _ in items]
        self.per_seed.append(seed_hash.hexdigest()[:2])

    def digest(self) -> str:
        per_leaf = ",".join(h.hexdigest()[:8] for h in self.per_leaf) or "-"
        return f"{self.out.hexdigest()[:16]} {self.rng.hexdigest()[:16]} {''.join(self.per_seed)} {per_leaf}"


# ---- running the cases ----------------------------------------------------------------------------------------


@contextmanager
def frozen_setup() -> Iterator[None]:
    """One intra-op thread, the caller's RNG state and dynamo's caches restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            yield
    finally:
        torch.set_num_threads(threads)
        torch._dynamo.reset()


def _target() -> Target:
    return resolve_target("jitvision")


def class_entries(target: Target) -> List[Entry]:
    return [entry for entry in target.entries if entry.api == "class"]


def _takes_generator(entry: Entry) -> bool:
    return "generator" in inspect.signature(entry.obj).parameters


def _make(case: CaseChecks) -> Any:
    torch.manual_seed(INPUT_SEED)
    return make_input(case.kind, case.target.tv_tensors, FIXED_SIZE, case.entry.case.image_dtype)


class Digest:
    """One mode's digest string and the leaves of its first output (path and description, for failure messages)."""

    def __init__(self, text: str, described: Optional[List[Tuple[str, str]]] = None) -> None:
        self.text = text
        self.described = described or []


def _run_seeds(
    call: Callable[[Any], Any], x: Any, seeds: Tuple[int, ...], generator: Optional[torch.Generator]
) -> Digest:
    recorder = Recorder()
    for seed in seeds:
        torch.manual_seed(seed)
        if generator is not None:
            generator.manual_seed(seed)
        try:
            out: Any = call(x)
        except Exception as exc:  # a refusal is behaviour too: its type is recorded
            out = exc
        draw = _rng_bytes(torch.rand(4))
        if generator is not None:
            draw += _rng_bytes(torch.rand(4, generator=generator))
        recorder.add(out, draw)
    return Digest(recorder.digest(), recorder.descriptions)


def _raises(exc: BaseException) -> Digest:
    return Digest(f"raises: {type(exc).__name__}")


def _not_applicable(why: str) -> Digest:
    return Digest(f"n/a: {why}")


def _scripted_caller(loaded: Any, kind: str) -> Callable[[Any], Any]:
    if kind == "batch-tensor":
        return loaded.forward_batch
    if kind in LABELLED_KINDS:
        return lambda x: loaded(*x)
    return loaded


def _instance(case: CaseChecks) -> torch.nn.Module:
    return case.module.kwargs["transform"] if case.kind == "batch-tensor" else case.module


def _eager_digest(call: Callable[[Any], Any], x: Any, seed: int) -> Tuple[str, bool]:
    """(digest of one seeded call, whether the call moved the global RNG)."""
    torch.manual_seed(seed)
    untouched = torch.rand(4)
    recorder = Recorder()
    torch.manual_seed(seed)
    try:
        out: Any = call(x)
    except Exception as exc:
        out = exc
    moved = not torch.equal(untouched, torch.rand(4))
    recorder.add(out, b"")
    return recorder.digest(), moved


def _is_random(built: Dict[str, Tuple[CaseChecks, Any]]) -> bool:
    """Eager output differs between seeds, or the call draws from the global RNG, on some kind."""
    for case, x in built.values():
        outputs = set()
        for seed in (0, 1, 2):
            digest, moved = _eager_digest(case.call, x, seed)
            if moved:
                return True
            outputs.add(digest)
        if len(outputs) > 1:
            return True
    return False


def _input_digest(x: Any) -> str:
    recorder = Recorder()
    recorder.add(x, b"")
    return recorder.digest().split()[0]


def freeze_class(name: str, modes: Tuple[str, ...] = MODES) -> Dict[str, Any]:
    """Every kind and mode of the class entry ``name`` (an audit label): ``{"random": bool, "case": hash of the
    constructor arguments, "inputs": {kind: hash}, "kinds": {kind: {mode: digest}}, "leaves": ...}`` (``leaves``,
    the leaves of each first output, is not stored)."""
    target = _target()
    entries = {entry.name: entry for entry in class_entries(target)}
    entry = entries[name]
    result: Dict[str, Any] = {"random": False, "case": "", "inputs": {}, "kinds": {}, "leaves": {}}
    with frozen_setup():
        built: Dict[str, Tuple[CaseChecks, Any]] = {}
        arguments = []
        for kind in _kinds_for(entry, None):
            case = CaseChecks(target, entry, kind, {})
            try:
                x = _make(case)
            except NotApplicable as exc:
                result["kinds"][kind] = {mode: f"n/a: {exc}" for mode in MODES}
                continue
            case.build()
            # Without object addresses (a Lambda's function), which change from run to run.
            arguments.append(re.sub(r" at 0x[0-9a-f]+", "", f"{kind}: {case.kwargs!r}"))
            result["inputs"][kind] = _input_digest(x)
            built[kind] = (case, x)
        result["case"] = _hex("\n".join(arguments).encode(), 16)
        result["random"] = _is_random(built)
        seeds = SEEDS if result["random"] else DETERMINISTIC_SEEDS
        script: Dict[str, Any] = {}
        for kind, (case, x) in built.items():
            digests = {mode: _mode_digest(mode, case, x, seeds, script) for mode in modes}
            result["kinds"][kind] = {mode: digest.text for mode, digest in digests.items()}
            result["leaves"][kind] = {mode: digest.described for mode, digest in digests.items()}
    return result


def _mode_digest(mode: str, case: CaseChecks, x: Any, seeds: Tuple[int, ...], script: Dict[str, Any]) -> Digest:
    if mode == "eager":
        return _run_seeds(case.call, x, seeds, None)
    if mode == "generator":
        return _generator_digest(case, x, seeds)
    if mode == "script":
        return _script_digest(case, x, seeds, script)
    if mode == "compile":
        return _compile_digest(case, x, seeds)
    return _export_digest(case, x, seeds)


def _generator_digest(case: CaseChecks, x: Any, seeds: Tuple[int, ...]) -> Digest:
    if not _takes_generator(case.entry):
        return _not_applicable("no generator argument")
    generator = torch.Generator()
    instance = case.entry.obj(**case.kwargs, generator=generator)
    call = instance.forward_batch if case.kind == "batch-tensor" else instance
    return _run_seeds(call, x, seeds, generator)


def _script_digest(case: CaseChecks, x: Any, seeds: Tuple[int, ...], script: Dict[str, Any]) -> Digest:
    """The class is scripted once (kept in ``script``) and run on every plain kind."""
    if case.entry.case.python_only:
        return _not_applicable(case.entry.case.python_only)
    if case.kind not in PLAIN_KINDS:
        return _not_applicable("TorchScript runs on plain tensors")
    if not script:
        try:
            script["module"] = torch.jit.script(_instance(case))
        except Exception as exc:
            script["error"] = _raises(exc)
    if "error" in script:
        return script["error"]
    return _run_seeds(_scripted_caller(script["module"], case.kind), x, seeds, None)


def _compile_digest(case: CaseChecks, x: Any, seeds: Tuple[int, ...]) -> Digest:
    if case.entry.case.python_only:
        return _not_applicable(case.entry.case.python_only)
    if case.kind == "PIL":
        return _not_applicable("the compiler traces tensors, not PIL images")
    if case.kind not in COMPILE_KINDS:
        return _not_applicable("not compiled here (COMPILE_KINDS)")
    torch._dynamo.reset()
    compiled = torch.compile(case.call, fullgraph=True, backend="eager")
    torch.manual_seed(seeds[0])
    try:
        compiled(x)  # compiles once; the seeds below run the same graph
    except Exception as exc:
        return _raises(exc)
    return _run_seeds(compiled, x, seeds, None)


def _export_digest(case: CaseChecks, x: Any, seeds: Tuple[int, ...]) -> Digest:
    if case.entry.case.python_only:
        return _not_applicable(case.entry.case.python_only)
    if case.kind == "PIL":
        return _not_applicable("export traces tensors, not PIL images")
    if case.kind not in EXPORT_KINDS:
        return _not_applicable("not exported here (EXPORT_KINDS)")
    if (case.entry.name, case.kind) in EXPORT_LEFT_OUT:
        return _not_applicable("not exported here (EXPORT_LEFT_OUT)")
    torch.manual_seed(seeds[0])
    try:
        with redirect_stderr(io.StringIO()):
            program = torch.export.export(case.module, (x,), strict=case.kind not in PLAIN_KINDS)
    except Exception as exc:
        return _raises(exc)
    return _run_seeds(program.module(), x, seeds, None)


# ---- the file -------------------------------------------------------------------------------------------------


def environment() -> Dict[str, str]:
    return {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability()}


def load() -> Dict[str, Any]:
    return json.loads(DIGESTS.read_text())


def write(classes: Dict[str, Dict[str, Any]]) -> None:
    document = {
        "about": "tests/transforms/test_frozen_behaviour.py compares the code with these digests; "
        "tools/freeze_digests.py writes them",
        **environment(),
        "seeds": len(SEEDS),
        "deterministic_seeds": len(DETERMINISTIC_SEEDS),
        "classes": {name: _stored(classes[name]) for name in sorted(classes)},
    }
    DIGESTS.parent.mkdir(parents=True, exist_ok=True)
    DIGESTS.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")


def _stored(result: Dict[str, Any]) -> Dict[str, Any]:
    return {key: value for key, value in result.items() if key != "leaves"}


# ---- comparing ------------------------------------------------------------------------------------------------


def _explain(expected: str, actual: str, described: List[Tuple[str, str]], seeds: Tuple[int, ...]) -> str:
    """What differs between two digest strings: the first seed, the first leaf, the RNG stream."""
    if expected.startswith(("n/a", "raises")) or actual.startswith(("n/a", "raises")):
        return f"was {expected!r}, now {actual!r}"
    out_e, rng_e, seeds_e, leaves_e = expected.split(" ")
    out_a, rng_a, seeds_a, leaves_a = actual.split(" ")
    parts = []
    differing = [seed for i, seed in enumerate(seeds) if seeds_e[2 * i : 2 * i + 2] != seeds_a[2 * i : 2 * i + 2]]
    parts.append(f"first differing seed {differing[0]}" if differing else "the differing seed was not located")
    if out_e != out_a:
        old, new = leaves_e.split(","), leaves_a.split(",")
        if len(old) != len(new):
            parts.append(f"{len(new)} output leaves instead of {len(old)}")
        else:
            position = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), None)
            if position is not None and position < len(described):
                path, description = described[position]
                parts.append(f"first differing leaf {path} (now {description} at seed {seeds[0]})")
    else:
        parts.append("outputs equal")
    parts.append("RNG stream after the call differs" if rng_e != rng_a else "RNG stream after the call equal")
    return "; ".join(parts)


def compare(name: str, stored: Dict[str, Any], current: Dict[str, Any]) -> List[str]:
    """Every difference between the stored and the current result of class ``name``, one line each."""
    problems = []
    if stored["case"] != current["case"]:
        problems.append(f"{name}: the audit case's constructor arguments changed (jitvision/_audit/cases.py)")
    if stored["random"] != current["random"]:
        problems.append(f"{name}: random was {stored['random']}, now {current['random']}")
    seeds = SEEDS if current["random"] else DETERMINISTIC_SEEDS
    kinds = list(dict.fromkeys([*stored["kinds"], *current["kinds"]]))
    for kind in kinds:
        if kind not in current["kinds"] or kind not in stored["kinds"]:
            where = "no longer run" if kind not in current["kinds"] else "new"
            problems.append(f"{name} [{kind}]: the input kind is {where} (the audit's kinds for the class)")
            continue
        if stored["inputs"].get(kind) != current["inputs"].get(kind):
            problems.append(f"{name} [{kind}]: the audit builds a different input (jitvision/_audit/cases.py)")
        for mode in MODES:
            expected, actual = stored["kinds"][kind][mode], current["kinds"][kind][mode]
            if expected != actual:
                described = current["leaves"].get(kind, {}).get(mode, [])
                problems.append(f"{name} [{kind}] {mode}: {_explain(expected, actual, described, seeds)}")
    return problems


# ---- the tests ------------------------------------------------------------------------------------------------

MAX_SHOWN = 12  # differences listed in a failure
_STORED = load() if DIGESTS.exists() else {"classes": {}}
_CAPABILITY_NOTE = (
    f"(digests written with torch {_STORED.get('torch')} on CPU capability {_STORED.get('cpu_capability')}; "
    f"this run: torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()})"
)


def test_every_class_is_frozen():
    target = _target()
    unaudited = [skipped["name"] for skipped in target.skipped if skipped["api"] == "class"]
    assert not unaudited, f"classes without an audit case cannot be frozen: {unaudited}"
    names = sorted(entry.name for entry in class_entries(target))
    assert names == sorted(_STORED["classes"]), (
        "the public classes differ from the frozen ones (tools/freeze_digests.py --only NAME adds a class): "
        f"new {sorted(set(names) - set(_STORED['classes']))}, gone {sorted(set(_STORED['classes']) - set(names))}"
    )


@pytest.mark.parametrize("name", sorted(_STORED["classes"]))
def test_behaviour_is_frozen(name):
    current = freeze_class(name)
    problems = compare(name, _STORED["classes"][name], current)
    shown = problems[:MAX_SHOWN] + ([f"... and {len(problems) - MAX_SHOWN} more"] if len(problems) > MAX_SHOWN else [])
    assert not problems, "\n".join([*shown, _CAPABILITY_NOTE])
