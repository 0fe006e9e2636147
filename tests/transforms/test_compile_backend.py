"""``jitvision.transforms.compile``'s default backend: graphs of jitvision kernels run as traced, others go to inductor.

A graph whose every tensor is made by a jitvision kernel or is a view (the fused uint8 pipelines) would gain
nothing from inductor but its runtime wrappers (``_compile.backend``). These tests check which graphs take which
path, by counting the calls into inductor's ``compile_fx``, and that both paths give eager's result, keep drawing,
take inductor's options and follow dynamic sizes without recompiling.
"""

import operator

import pytest
import torch
import torch._dynamo
import torch._inductor.compile_fx
from torch import fx

import jitvision.transforms as T
from jitvision.transforms import _compile
from tests.helpers import IMAGENET_MEAN, IMAGENET_STD, make_image, make_training_pipeline


@pytest.fixture
def inductor_calls(monkeypatch):
    """The config patches of every graph handed to inductor's ``compile_fx`` (which still compiles it)."""
    calls = []
    real = torch._inductor.compile_fx.compile_fx

    def counting(graph_module, example_inputs, *args, **kwargs):
        calls.append(kwargs.get("config_patches"))
        return real(graph_module, example_inputs, *args, **kwargs)

    monkeypatch.setattr(torch._inductor.compile_fx, "compile_fx", counting)
    torch._dynamo.reset()
    yield calls
    torch._dynamo.reset()


def _seeded(fn, *inputs, seed=0):
    torch.manual_seed(seed)
    return fn(*inputs)


def test_kernel_pipeline_runs_as_traced_equal_to_eager_and_random(inductor_calls):
    pipeline = make_training_pipeline()
    image = make_image(40, 48, torch.uint8)
    compiled = T.compile(pipeline, fullgraph=True)
    for seed in range(4):
        torch.testing.assert_close(_seeded(compiled, image, seed=seed), _seeded(pipeline, image, seed=seed))
    assert inductor_calls == []
    outputs = [compiled(image) for _ in range(6)]
    assert any(not torch.equal(outputs[0], out) for out in outputs[1:])


def test_in_place_compile_takes_the_same_backend(inductor_calls):
    pipeline = make_training_pipeline()
    image = make_image(40, 48, torch.uint8)
    expected = _seeded(pipeline, image)
    pipeline.compile(fullgraph=True)
    torch.testing.assert_close(_seeded(pipeline, image), expected)
    assert inductor_calls == []


def test_graph_with_aten_compute_goes_to_inductor(inductor_calls):
    jitter = T.ColorJitter(brightness=0.4, contrast=0.4)
    image = make_image(24, 28, torch.uint8)
    compiled = T.compile(jitter, fullgraph=True)
    out = compiled(image)
    assert len(inductor_calls) == 1
    assert out.shape == image.shape and out.dtype == torch.uint8


def test_float_normalize_goes_to_inductor_and_matches_eager(inductor_calls):
    pipeline = T.Compose([T.Normalize(IMAGENET_MEAN, IMAGENET_STD)])
    image = make_image(20, 24, torch.float32)
    compiled = T.compile(pipeline, fullgraph=True)
    torch.testing.assert_close(compiled(image), pipeline(image))
    assert len(inductor_calls) == 1


def test_backend_inductor_forces_inductor(inductor_calls):
    pipeline = make_training_pipeline()
    image = make_image(40, 48, torch.uint8)
    compiled = T.compile(pipeline, fullgraph=True, backend="inductor")
    torch.testing.assert_close(_seeded(compiled, image), _seeded(pipeline, image))
    assert len(inductor_calls) == 1


def test_options_reach_inductor(inductor_calls):
    jitter = T.ColorJitter(brightness=0.4)
    compiled = T.compile(jitter, fullgraph=True, options={"size_asserts": False})
    compiled(make_image(24, 28, torch.uint8))
    assert inductor_calls[0] == {"size_asserts": False}  # compile_fx then calls itself under the patch


def test_dynamic_sizes_one_traced_graph(inductor_calls):
    pipeline = make_training_pipeline()
    graphs = []

    def counting_backend(graph_module, example_inputs, options=None):
        graphs.append(_compile._kernels_only(graph_module))
        return _compile.backend(graph_module, example_inputs, options)

    compiled = T.compile(pipeline, fullgraph=True, dynamic=True, backend=counting_backend)
    for height, width in ((40, 48), (33, 57), (64, 30)):
        image = make_image(height, width, torch.uint8)
        torch.testing.assert_close(_seeded(compiled, image), _seeded(pipeline, image))
    assert graphs == [True]
    assert inductor_calls == []


def _node(graph: fx.Graph, op: str, target, args, value) -> fx.Node:
    node = graph.create_node(op, target, args)
    node.meta["example_value"] = value
    return node


def test_free_nodes():
    graph = fx.Graph()
    image = _node(graph, "placeholder", "image", (), torch.zeros(3, 4, 4))
    kernel = _node(graph, "call_function", torch.ops.jitvision_native.to_float_u8, (image,), torch.zeros(1, 3, 4, 4))
    pair = _node(graph, "call_function", torch.ops.jitvision_native.to_float_u8.default, (image,), (torch.zeros(2),))
    index = _node(graph, "placeholder", "index", (), torch.zeros(2, dtype=torch.int64))
    size = _node(graph, "call_method", "size", (image, 0), 3)
    assert _compile._free(image) and _compile._free(kernel) and _compile._free(pair) and _compile._free(size)
    assert _compile._free(_node(graph, "call_method", "squeeze", (kernel, 0), torch.zeros(3, 4, 4)))
    assert _compile._free(_node(graph, "call_function", operator.getitem, (pair, 0), torch.zeros(2)))
    assert _compile._free(_node(graph, "call_function", operator.getitem, (image, (0, slice(1, 3))), torch.zeros(2, 4)))
    assert _compile._free(_node(graph, "call_function", torch.ops.aten.squeeze.dim, (kernel, 0), torch.zeros(3, 4, 4)))
    # compute: a tensor index, arithmetic, a random draw, a copy
    assert not _compile._free(_node(graph, "call_function", operator.getitem, (image, index), torch.zeros(2, 4, 4)))
    assert not _compile._free(_node(graph, "call_function", operator.mul, (image, 2), torch.zeros(3, 4, 4)))
    assert not _compile._free(_node(graph, "call_function", torch.rand, ((3,),), torch.zeros(3)))
    assert not _compile._free(_node(graph, "call_method", "contiguous", (image,), torch.zeros(3, 4, 4)))
