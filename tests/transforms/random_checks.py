"""Checks shared by the tests of random transforms: per-sample batches, compile, script, export."""

import torch

from jitvision import tv_tensors
from tests.helpers import assert_random_under_compile, script_roundtrip


def assert_batch_rows_match_single(factory, images, *, atol=0.0):
    """``factory(generator)`` on a BatchedImages: row ``i`` equals the single-sample transform with row ``i`` of
    the same batch draw (the contract of ``make_batch_params``/``transform_batch``); rows get different parameters."""
    out = factory(torch.Generator().manual_seed(5))(tv_tensors.BatchedImages(images))
    assert type(out) is tv_tensors.BatchedImages
    reference = factory(torch.Generator().manual_seed(5))
    params = reference.make_batch_params([images], images.shape[0])
    for i in range(images.shape[0]):
        row = {name: value[i] for name, value in params.items()}
        expected = reference.transform(images[i], row)
        torch.testing.assert_close(out[i].as_subclass(torch.Tensor), expected, rtol=0, atol=atol)
    forward_batch = factory(torch.Generator().manual_seed(5)).forward_batch(images)
    torch.testing.assert_close(forward_batch, out.as_subclass(torch.Tensor), rtol=0, atol=atol)
    return params


def assert_modes(transform, image, tmp_path, *, export=True):
    """Compiled: one graph, random over 12 calls (plain, Image, batch); scripted: runs and round-trips
    (forward and forward_batch); exported: runs and stays random."""
    assert_random_under_compile(transform, image)
    assert_random_under_compile(transform, tv_tensors.Image(image))
    assert_random_under_compile(lambda x: transform.forward_batch(x), torch.stack([image, image]))
    loaded = script_roundtrip(transform, tmp_path)
    assert loaded(image).shape == transform(image).shape
    assert loaded.forward_batch(torch.stack([image, image])).shape[0] == 2
    if export:
        program = torch.export.export(transform, (image,))
        outputs = [program.module()(image) for _ in range(12)]
        assert any(not torch.equal(outputs[0], o) for o in outputs[1:])
