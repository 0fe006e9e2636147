"""RandomApplyTransform with p == 1 or p == 0 under torch.compile/export: the coin is a constant, so the graph has no
random op and no select (the effect, or the input); 0 < p < 1 stays random; eager keeps drawing the coin (the RNG
stream torchvision's classes consume); a class's own draw (a custom ``make_params``) still decides."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms

import jitvision.transforms as T
from tests.helpers import assert_matches_oracle, assert_random_under_compile, make_image

# Targets that draw (dynamo graph nodes: torch functions, tensor methods, ops) and the probability gates.
_RANDOM_WORDS = ("rand", "bernoulli", "normal", "uniform", "multinomial", "random_")
_GATE_WORDS = ("select_rows", "where")

COIN_ONLY = [
    ("RandomInvert", lambda p: T.RandomInvert(p=p)),
    ("RandomPosterize", lambda p: T.RandomPosterize(bits=3, p=p)),
    ("RandomSolarize", lambda p: T.RandomSolarize(threshold=100.0, p=p)),
    ("RandomAutocontrast", lambda p: T.RandomAutocontrast(p=p)),
    ("RandomEqualize", lambda p: T.RandomEqualize(p=p)),
    ("RandomAdjustSharpness", lambda p: T.RandomAdjustSharpness(sharpness_factor=1.7, p=p)),
    ("RandomGrayscale", lambda p: T.RandomGrayscale(p=p)),
    ("RandomHorizontalFlip", lambda p: T.RandomHorizontalFlip(p=p)),
    ("RandomVerticalFlip", lambda p: T.RandomVerticalFlip(p=p)),
]
IDS = [name for name, _ in COIN_ONLY]


def _graphs(fn, *args):
    """``fn(*args)`` compiled (fullgraph, eager backend): (the output, the captured graphs' node targets)."""
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    out = torch.compile(fn, backend=capture, fullgraph=True)(*args)
    assert len(graphs) == 1, f"expected one graph, got {len(graphs)}"
    targets = [str(getattr(node.target, "__name__", node.target)) for node in graphs[0].graph.nodes]
    return out, targets


def _has(targets, words):
    return [t for t in targets if any(word in t for word in words)]


@pytest.mark.parametrize("_name, make", COIN_ONLY, ids=IDS)
def test_p_one_compiles_without_a_draw_or_a_select(_name, make):
    image = make_image(dtype=torch.uint8)
    transform = make(1.0)
    out, targets = _graphs(transform, image)
    assert not _has(targets, _RANDOM_WORDS), targets
    assert not _has(targets, ("select_rows", "where")), targets
    assert_matches_oracle(out, transform(image), float_atol=0)  # eager: the effect
    batch = make_image(dtype=torch.uint8, batch=(3,))
    out, targets = _graphs(transform.forward_batch, batch)  # the per-sample coins of a batch: constants too
    assert not _has(targets, _RANDOM_WORDS), targets
    assert_matches_oracle(out, transform(batch), float_atol=0)


@pytest.mark.parametrize("_name, make", COIN_ONLY, ids=IDS)
def test_p_zero_compiles_to_the_input(_name, make):
    image = make_image(dtype=torch.uint8)
    out, targets = _graphs(make(0.0), image)
    assert not _has(targets, _RANDOM_WORDS + _GATE_WORDS), targets
    assert torch.equal(out, image)


@pytest.mark.parametrize("_name, make", COIN_ONLY, ids=IDS)
def test_p_half_stays_random_under_compile(_name, make):
    image = make_image(dtype=torch.uint8)
    _, targets = _graphs(make(0.5), image)
    assert _has(targets, ("rand",)), targets
    assert_random_under_compile(make(0.5), image)


def test_a_custom_draw_still_decides_under_compile():
    class Never(T.RandomInvert):
        def make_params(self, flat_inputs):
            return {"apply": torch.tensor(False)}

    image = make_image(dtype=torch.uint8)
    out, _ = _graphs(Never(p=1.0), image)
    assert torch.equal(out, image)


def test_eager_p_one_draws_the_coin_as_torchvision():
    # Eager keeps torchvision's RNG consumption (RandomInvert(p=1) draws torch.rand(1) per call): a pipeline's later
    # draws are the same as with torchvision's class.
    image = make_image(dtype=torch.uint8)
    for ours, theirs in [
        (T.RandomInvert(p=1.0), tv_transforms.RandomInvert(p=1.0)),
        (T.RandomVerticalFlip(p=1.0), tv_transforms.RandomVerticalFlip(p=1.0)),
    ]:
        for seed in range(3):
            torch.manual_seed(seed)
            out = ours(image)
            after_ours = torch.rand(3)
            torch.manual_seed(seed)
            assert_matches_oracle(out, theirs(image))
            assert torch.equal(after_ours, torch.rand(3))


def test_inductor_p_one_invert_equals_eager():
    image = make_image(dtype=torch.uint8)
    transform = T.RandomInvert(p=1.0)
    torch._dynamo.reset()
    compiled = torch.compile(transform, fullgraph=True)
    assert_matches_oracle(compiled(image), transform(image), float_atol=0)
