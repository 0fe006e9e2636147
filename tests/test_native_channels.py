"""jitvision_native::permute_channels (csrc/channels.cpp): RandomChannelPermutation's reorder, eager and compiled."""

import pytest
import torch
import torch._dynamo.testing

import jitvision.transforms as T
from jitvision import _native
from jitvision.transforms.functional._color._grayscale import _permute_channels

OP = torch.ops.jitvision_native.permute_channels


def _reference(image, permutation):
    if permutation.ndim == 1:
        return image.index_select(-3, permutation)
    index_shape = [permutation.shape[0]] + [1] * (image.ndim - 1)
    index_shape[-3] = permutation.shape[1]
    return torch.gather(image, image.ndim - 3, permutation.reshape(index_shape).expand(image.shape))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.int16, torch.float64])
@pytest.mark.parametrize("seed", range(4))
def test_equals_index_select_and_gather(dtype, seed):
    assert _native.CHANNELS
    g = torch.Generator().manual_seed(seed)
    shapes = [(3, 7, 9), (1, 5, 4), (4, 3, 6, 11), (2, 5, 3, 4, 4), (16, 2, 3)]
    for shape in shapes:
        image = (torch.rand(shape, generator=g) * 200).to(dtype)
        channels = shape[-3]
        perm = torch.randperm(channels, generator=g)
        out = OP(image, perm)
        assert out.is_contiguous() and torch.equal(out, _reference(image, perm))
        if len(shape) >= 4:  # one order per leading row
            rows = torch.stack([torch.randperm(channels, generator=g) for _ in range(shape[0])])
            assert torch.equal(OP(image, rows), _reference(image, rows))
        strided = image.transpose(-1, -2)  # not contiguous
        assert torch.equal(OP(strided, perm), _reference(strided, perm))
        repeated = torch.randint(0, channels, (channels,), generator=g)  # not a permutation: a selection
        assert torch.equal(OP(image, repeated), _reference(image, repeated))


def test_errors():
    image = torch.zeros(3, 4, 4, dtype=torch.uint8)
    with pytest.raises(IndexError, match="out of range"):
        OP(image, torch.tensor([0, 1, 3]))
    with pytest.raises(ValueError, match="entries per row"):
        OP(image, torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="int64"):
        OP(image, torch.tensor([0, 1, 2], dtype=torch.int32))
    with pytest.raises(ValueError, match="permutation rows"):
        OP(torch.zeros(3, 3, 4, 4), torch.tensor([[0, 1, 2], [2, 1, 0]]))


def test_the_kernel_path_keeps_autograd():
    # requires_grad: the index_select path (the op has no autograd formula)
    image = torch.rand(3, 5, 5, requires_grad=True)
    out = _permute_channels(image, torch.tensor([2, 0, 1]))
    out.sum().backward()
    assert torch.equal(image.grad, torch.ones_like(image))


def test_compiled_random_channel_permutation_is_one_node_and_stays_random():
    transform = T.RandomChannelPermutation()
    image = torch.arange(3 * 4 * 5, dtype=torch.uint8).reshape(3, 4, 5)
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("eager")
    compiled = torch.compile(transform, backend=counter, fullgraph=True, dynamic=False)
    torch.manual_seed(0)
    outs = [compiled(image) for _ in range(12)]
    assert counter.frame_count == 1
    assert len({tuple(out[:, 0, 0].tolist()) for out in outs}) > 1
    for out in outs:  # each a permutation of the channels
        assert sorted(out[:, 0, 0].tolist()) == sorted(image[:, 0, 0].tolist())
        assert any(torch.equal(out, image[list(p)]) for p in _perms(3))
    graph_ops = [str(node.target) for gm in counter.graphs for node in gm.graph.nodes if node.op == "call_function"]
    assert any("permute_channels" in op for op in graph_ops), graph_ops
    assert not any("index_select" in op or "gather" in op for op in graph_ops), graph_ops


def _perms(n):
    import itertools

    return itertools.permutations(range(n))
