"""Export jitvision pipelines to ONNX (onnxruntime): ``jitvision.onnx.export(module, (image,))``.

``torch.onnx.export(dynamo=True)`` translates the aten ops of an exported graph itself; jitvision's own ops
(``jitvision_native::resize_center_crop``, ``resized_crop``, ``random_resized_crop``, ``flip_if`` and the Python
custom op ``jitvision::resized_crop_box``) need the translations of ``translation_table()``, which ``export``
passes for you. Needs the ``onnx`` and ``onnxscript`` packages (``onnxruntime`` to run the result).

- Deterministic pipelines (``Resize`` + ``CenterCrop`` + ``ToDtype`` + ``Normalize``) export with dynamic height
  and width (``dynamic_hw=True``): the resize and crop sizes are computed in the graph from the input's shape.
- Random pipelines draw with ONNX's ``RandomUniform`` (``aten.rand`` and the translation of the fused
  ``random_resized_crop``): every onnxruntime run draws afresh, with the transforms' distribution, not torch's
  numbers. A transform built with ``generator=`` cannot export (ONNX has no seeded generator object).
- uint8 antialiased bilinear resizing is ONNX ``Resize`` (opset 18, ``antialias=1``) on the image cast to float32,
  rounded back: within 1 level of torch's fixed-point uint8 result (float outputs: within 1/255 scaled by the
  normalisation). onnxruntime's antialiased ``Resize`` is slow (10-20x torch's kernel, see docs/design/deployment.md).

What cannot be exported raises ``ExportError`` naming the op (a JPEG round trip, the uint8 warps, a transform
with its own generator, a Python step that torch.export cannot trace).
"""

import re
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import torch

__all__ = ["ExportError", "export", "translation_table"]

OPSET = 18

# Ops whose absence from ONNX we can explain better than "no function found".
_HINTS = {
    "aten.rand.generator": "a random transform was built with generator=...: ONNX draws with its own RandomUniform "
    "and has no generator object; build the transforms without generator= to export them",
    "aten.randint.generator": "a random transform was built with generator=...: build it without generator= to "
    "export it",
    "jitvision.jpeg.default": "JPEG (the transform) encodes and decodes with libjpeg, which ONNX has no op for",
    "jitvision_native.jpeg_u8.default": "JPEG (the transform) encodes and decodes with libjpeg, which ONNX has no op "
    "for",
}
_NO_FUNCTION = re.compile(r"No ONNX function found for <OpOverload\(op='([^']+)', overload='([^']+)'\)>")


class ExportError(RuntimeError):
    """A pipeline (or one op of it) that cannot be exported to ONNX; the message names the op."""


def translation_table() -> Dict[Any, Callable[..., Any]]:
    """``custom_translation_table`` for ``torch.onnx.export(..., dynamo=True)``: an onnxscript translation for each
    jitvision op that can appear in an exported graph (the ones registered in this process)."""
    try:
        from ._translations import table
    except ImportError as exc:
        raise ImportError(
            f"jitvision.onnx needs the onnx and onnxscript packages (pip install onnx onnxscript onnxruntime): {exc}"
        ) from exc
    return table()


def _dynamic_hw(args: Sequence[Any]) -> Tuple[Any, ...]:
    dims = {-2: torch.export.Dim("height", min=2), -1: torch.export.Dim("width", min=2)}
    shapes = []
    for arg in args:
        if isinstance(arg, torch.Tensor) and arg.ndim >= 2:
            shapes.append({arg.ndim - 2: dims[-2], arg.ndim - 1: dims[-1]})
        else:
            shapes.append(None)
    return tuple(shapes)


def _chain(exc: BaseException) -> Sequence[BaseException]:
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _explain(exc: BaseException) -> Optional[str]:
    from ._translations import UnsupportedOp

    chain = _chain(exc)
    for err in chain:
        if isinstance(err, UnsupportedOp):
            return str(err)
    for err in chain:
        match = _NO_FUNCTION.search(str(err))
        if match:
            name = f"{match.group(1)}.{match.group(2)}"
            hint = _HINTS.get(name) or _HINTS.get(match.group(1)) or "no ONNX translation is registered for it"
            return f"the graph contains {name}, which cannot be exported to ONNX: {hint}"
    return None


def export(
    module: Callable[..., Any],
    args: Tuple[Any, ...],
    *,
    dynamic_hw: bool = False,
    dynamic_shapes: Any = None,
    opset_version: int = OPSET,
    path: Optional[str] = None,
    **kwargs: Any,
) -> Any:
    """``torch.onnx.export(dynamo=True)`` of ``module(*args)`` with jitvision's translations; returns the
    ``torch.onnx.ONNXProgram`` (saved to ``path`` if given).

    ``dynamic_hw``: the last two dimensions of every tensor argument are dynamic (deterministic pipelines; a random
    crop's output size is fixed anyway). ``dynamic_shapes`` is passed to ``torch.export.export`` as it is (not with
    ``dynamic_hw``). Other keyword arguments go to ``torch.onnx.export``. Raises ``ExportError`` naming the op
    that cannot be exported."""
    if opset_version < OPSET:
        raise ValueError(f"jitvision.onnx.export: opset_version must be >= {OPSET} (Resize's antialias)")
    if dynamic_hw and dynamic_shapes is not None:
        raise ValueError("jitvision.onnx.export: pass dynamic_hw or dynamic_shapes, not both")
    if not isinstance(module, torch.nn.Module):
        module = _Wrapped(module)
    shapes = _dynamic_hw(args) if dynamic_hw else dynamic_shapes
    table = translation_table()
    try:
        exported = torch.export.export(module, tuple(args), dynamic_shapes=shapes, strict=False)
    except Exception as exc:  # noqa: BLE001 - re-raised with the reason on top
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExportError(f"jitvision.onnx.export: torch.export could not trace the pipeline: {first}") from exc
    try:
        program = torch.onnx.export(
            exported,
            dynamo=True,
            custom_translation_table=table,
            opset_version=opset_version,
            verbose=False,
            **kwargs,
        )
    except Exception as exc:  # noqa: BLE001
        reason = _explain(exc)
        if reason is None:
            raise
        raise ExportError(f"jitvision.onnx.export: {reason}") from exc
    if path is not None:
        program.save(path)
    return program


class _Wrapped(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)
