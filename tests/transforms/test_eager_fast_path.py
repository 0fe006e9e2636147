"""The eager fast path of one plain tensor (``t(tensor)`` outside torch.compile/jit.trace, without hooks): the same
output and the same RNG stream as the generic path (the same tensor as a one-leaf sample, ``t([x])``: flattened,
``make_params``, then ``transform``, torchvision's contract), and not taken where it must not be."""

import pytest
import torch

import jitvision.transforms as T
import jitvision.transforms.functional as F

CASES = [
    lambda: T.RandomCrop(20),
    lambda: T.RandomCrop((50, 60)),  # the whole input
    lambda: T.RandomCrop(20, padding=2),  # padding: the generic path
    lambda: T.RandomHorizontalFlip(0.5),
    lambda: T.RandomVerticalFlip(1.0),
    lambda: T.RandomInvert(0.3),
    lambda: T.RandomGrayscale(0.5),
    lambda: T.RandomEqualize(0.5),
    lambda: T.RandomSolarize(0.5, p=0.5),
    lambda: T.RandomSolarize(0.7, p=0.7),
    lambda: T.RandomPosterize(3, p=0.5),
    lambda: T.RandomPosterize(8, p=0.5),
    lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    lambda: T.ColorJitter(brightness=(1.2, 1.2)),
    lambda: T.ColorJitter(contrast=0.5, hue=0.3),
    lambda: T.ColorJitter(),
    lambda: T.CenterCrop(21),
    lambda: T.CenterCrop((30, 70)),  # larger than the input: padded, the generic path
    lambda: T.Pad([1, 2, 3, 4]),
    lambda: T.Pad(3, fill=7, padding_mode="constant"),
    lambda: T.Pad(2, padding_mode="reflect"),
    lambda: T.Pad([1, 2], fill=[4]),
    lambda: T.Pad(1, fill=[1, 2, 3]),  # per-channel fill: the generic path
    lambda: T.Pad(2, fill=2.5),
    lambda: T.Pad(2, fill={torch.Tensor: 9, "others": 1}),
    lambda: T.Pad([0, 3], fill=None),
    lambda: T.RandomResizedCrop((17, 23)),
    lambda: T.RandomResizedCrop(20, antialias=False),  # not the native op: the generic path
    lambda: T.RandomErasing(0.7),
    lambda: T.RandomErasing(1.0, value=5),
    lambda: T.RandomErasing(1.0, value=[1, 2, 3]),
    lambda: T.RandomErasing(1.0, scale=(0.9, 1.0), ratio=(5.0, 6.0)),  # often no box fits
    lambda: T.RandomErasing(1.0, value=255),
    lambda: T.RandomChannelPermutation(),
]


def _generic(transform, image):
    """``transform(image)`` the generic way: inside a sample (a one-element list) the tensor is a leaf like any
    other, so the call flattens the sample, draws with ``make_params`` and applies ``transform``."""
    out = transform([image])
    assert type(out) is list and len(out) == 1
    return out[0]


@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_fast_path_equals_generic_path(make, dtype):
    transform = make()
    image = torch.randint(0, 256, (3, 50, 60), dtype=torch.uint8).to(dtype)
    if dtype.is_floating_point:
        image = image / 255
    for seed in range(25):
        torch.manual_seed(seed)
        fast = transform(image)
        after_fast = torch.rand(4)
        torch.manual_seed(seed)
        generic = _generic(transform, image)
        after_generic = torch.rand(4)
        assert torch.equal(fast, generic), seed
        assert torch.equal(after_fast, after_generic), f"{seed}: the fast path drew differently"


def test_fast_path_honours_a_generator_and_a_custom_make_params():
    image = torch.randint(0, 256, (3, 40, 40), dtype=torch.uint8)
    a = T.RandomCrop(10, generator=torch.Generator().manual_seed(5))
    b = T.RandomCrop(10, generator=torch.Generator().manual_seed(5))
    assert all(torch.equal(a(image), b.transform(image, b.make_params([image]))) for _ in range(10))

    class Fixed(T.RandomHorizontalFlip):
        def make_params(self, flat_inputs):
            return {"apply": torch.tensor(False)}

    assert torch.equal(Fixed(p=1.0)(image), image)  # make_params decides, not the fast path's own draw


@pytest.mark.parametrize(
    "make",
    [
        lambda g: T.RandomInvert(0.5, generator=g),
        lambda g: T.RandomSolarize(128.5, p=0.5, generator=g),
        lambda g: T.ColorJitter(0.5, 0.5, 0.5, 0.2, generator=g),
    ],
)
@pytest.mark.parametrize("shape", [(1, 13, 17), (3, 21, 33), (2, 3, 9, 40)])
def test_native_fast_path_on_a_generator_and_other_shapes(make, shape):
    # The native draws (RandomApplyTransform's coin, ColorJitter's order and factors) on a generator of the
    # transform: the same stream and output as the generic path on an equal generator, the global RNG untouched.
    image = torch.randint(0, 256, shape, dtype=torch.uint8)
    fast, generic = make(torch.Generator().manual_seed(7)), make(torch.Generator().manual_seed(7))
    torch.manual_seed(0)
    global_next = torch.rand(3)
    torch.manual_seed(0)
    for step in range(12):
        assert torch.equal(fast(image), _generic(generic, image)), step
    assert torch.equal(torch.rand(3), global_next), "the global RNG was drawn from"


@pytest.mark.parametrize("make", CASES)
def test_fast_path_on_a_non_contiguous_and_a_batched_input(make):
    transform = make()
    base = torch.randint(0, 256, (2, 3, 50, 60), dtype=torch.uint8)
    channels_last = base.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    for image in (channels_last[0], base):  # a strided image; a [N, C, H, W] tensor
        for seed in range(5):
            torch.manual_seed(seed)
            fast = transform(image)
            torch.manual_seed(seed)
            generic = _generic(transform, image)
            assert torch.equal(fast, generic), seed


def test_fast_path_skipped_with_hooks_and_under_jit_trace():
    image = torch.randint(0, 256, (3, 40, 40), dtype=torch.uint8)
    transform = T.RandomVerticalFlip(1.0)
    seen = []
    handle = transform.register_forward_hook(lambda module, args, out: seen.append(out))
    out = transform(image)
    handle.remove()
    assert len(seen) == 1 and seen[0] is out and torch.equal(out, image.flip(-2))
    pre = T.CenterCrop(10)
    handle = pre.register_forward_pre_hook(lambda module, args: (args[0][..., :20, :20],))
    assert torch.equal(pre(image), image[..., 5:15, 5:15])  # the hook replaced the input
    handle.remove()
    traced = torch.jit.trace(T.Pad(2), image)
    assert torch.equal(traced(image), torch.nn.functional.pad(image, [2, 2, 2, 2]))


def test_pad_fast_path_follows_a_changed_configuration():
    # Pad's fast path works out the padding and fill once: a changed padding or padding mode is honoured.
    image = torch.randint(0, 256, (3, 12, 15), dtype=torch.uint8)
    pad = T.Pad(2, fill=3)
    assert torch.equal(pad(image), torch.nn.functional.pad(image, [2, 2, 2, 2], value=3))
    pad.padding_mode = "edge"
    assert torch.equal(pad(image), pad.transform(image, {}))
    pad.padding_mode = "constant"
    pad._padding[0] = 4
    assert torch.equal(pad(image), torch.nn.functional.pad(image, [4, 4, 4, 4], value=3))
    with pytest.raises(ValueError, match="^pad: fill"):
        T.Pad(1, fill=300)(image)


def test_pad_fast_path_is_one_call_of_the_native_op(monkeypatch):
    # Pad(10) on a plain uint8 image (the bench row) is one call of the native pad's eager entry point (the CPython
    # binding where it is built): not the functional's layers, not torch's pad.
    from jitvision import _eager_ops
    from jitvision.transforms._geometry import _pad

    assert _pad._CONSTANT_PAD is _eager_ops.entry("constant_pad") is not None
    if _eager_ops.FAST is not None:
        assert _pad._CONSTANT_PAD is _eager_ops.FAST.constant_pad
    calls = []

    def counted(image, padding, value):
        calls.append((padding, value))
        return original(image, padding, value)

    original = _pad._CONSTANT_PAD
    monkeypatch.setattr(_pad, "_CONSTANT_PAD", counted)
    image = torch.randint(0, 256, (3, 30, 41), dtype=torch.uint8)
    for transform, expected in [
        (T.Pad(10), ([10, 10, 10, 10], 0)),
        (T.Pad([1, 2, 3, 4], fill=7), ([1, 3, 2, 4], 7)),
        (T.Pad([2, 5], fill=2.5), ([2, 2, 5, 5], 2.5)),
    ]:
        calls.clear()
        out = transform(image)
        assert calls == [expected], transform
        assert torch.equal(out, torch.nn.functional.pad(image, expected[0], value=expected[1]))
    calls.clear()
    T.Pad(2, padding_mode="edge")(image)
    T.Pad([2, -1])(image)  # negative amounts crop: torch's pad, through the functional
    assert calls == []


def test_random_erasing_random_value_fast_path_equals_the_sample_route():
    # value="random": one sample's eager paths (the fast path on a plain tensor, a sample in a container) and
    # make_params all draw torchvision's [C, h, w] noise for the box, so the values and the RNG stream after the
    # call are the same. (The per-row batch route and the traced form draw noise the size of the image, so that
    # the graph's shapes never depend on the box.)
    transform = T.RandomErasing(1.0, value="random")
    base = torch.randint(0, 256, (3, 50, 60), dtype=torch.uint8)
    channels_last = base[None].permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)[0]
    for image in (base, base / 255, channels_last):
        for seed in range(10):
            torch.manual_seed(seed)
            fast = transform(image)
            after_fast = torch.rand(4)
            torch.manual_seed(seed)
            routed = transform({"image": image})["image"]
            assert torch.equal(torch.rand(4), after_fast), seed
            assert torch.equal(fast, routed), seed
            torch.manual_seed(seed)
            params = transform.make_params([image])
            assert torch.equal(torch.rand(4), after_fast), seed
            expected = F.erase(image, params["i"], params["j"], params["h"], params["w"], params["v"])
            assert torch.equal(fast, expected), seed
            assert not torch.equal(fast, image)
