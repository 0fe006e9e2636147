"""ONNX export (``jitvision.onnx.export``) run in onnxruntime: outputs equal to eager, random pipelines random,
dynamic height/width for the deterministic preset, and a clear error for what cannot be exported."""

import math
import warnings
from typing import List

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torchvision.transforms.v2 as TV

import jitvision.onnx as jonnx
import jitvision.transforms as T
from jitvision import _native
from jitvision.bench import MEAN, STD, compose
from jitvision.onnx import _translations

# One uint8 level after ToDtype(scale=True) + Normalize(ImageNet): 1/255 divided by the smallest std.
LEVEL = 1.0 / 255.0 / min(STD) + 1e-5


def _session(program) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(program.model_proto.SerializeToString(), options)


def _run(session: ort.InferenceSession, *inputs: torch.Tensor) -> torch.Tensor:
    feed = {arg.name: x.numpy() for arg, x in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(session.run(None, feed)[0])


def _export(module, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jonnx.export(module, args, **kwargs)


def _levels(actual: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    return (actual.int() - expected.int()).abs()


def _image(shape, seed: int) -> torch.Tensor:
    return torch.randint(0, 256, shape, dtype=torch.uint8, generator=torch.Generator().manual_seed(seed))


@pytest.fixture(scope="module")
def infer_session():
    pipeline = compose(T, "infer")
    return pipeline, _session(_export(pipeline, _image((3, 300, 400), 0), dynamic_hw=True))


@pytest.mark.parametrize("shape", [(3, 300, 400), (3, 480, 640), (3, 517, 383), (3, 240, 230), (3, 181, 260)])
def test_inference_preset_dynamic_hw(infer_session, shape):
    pipeline, session = infer_session
    image = _image(shape, sum(shape))
    actual = _run(session, image)
    expected = pipeline(image)
    oracle = compose(TV, "infer")(image)
    assert actual.shape == expected.shape == (3, 224, 224)
    assert (actual - expected).abs().max().item() <= LEVEL
    assert (actual - oracle).abs().max().item() <= LEVEL


def test_inference_uint8_within_one_level():
    pipeline = T.Compose([T.Resize(256), T.CenterCrop(224)])
    session = _session(_export(pipeline, _image((3, 300, 400), 1), dynamic_hw=True))
    for shape in [(3, 300, 400), (3, 200, 150), (3, 640, 480)]:  # the second one upscales
        image = _image(shape, shape[1])
        actual, expected = _run(session, image), pipeline(image)
        assert actual.dtype == torch.uint8 and actual.shape == expected.shape
        diff = _levels(actual, expected)
        assert diff.max().item() <= 1, shape


@pytest.mark.parametrize(
    "size, max_size, crop_size",
    [([100, 120], None, [64, 140]), ([50], 70, [80, 60]), ([], 90, None)],
)
def test_resize_center_crop_translation(size, max_size, crop_size):
    # Static sizes, padding where the crop is larger than the resized image, max_size, no crop.
    class Op(torch.nn.Module):
        def forward(self, image):
            return torch.ops.jitvision_native.resize_center_crop(image, size, max_size, crop_size)

    image = _image((1, 3, 97, 131), len(size))
    actual, expected = _run(_session(_export(Op(), image)), image), Op()(image)
    assert actual.shape == expected.shape
    assert _levels(actual, expected).max().item() <= 1


@pytest.fixture(scope="module")
def train_session():
    pipeline = compose(T, "train")
    return _session(_export(pipeline, _image((3, 256, 256), 2)))


def test_training_preset_random(train_session):
    image = _image((3, 256, 256), 3)
    outs = [_run(train_session, image) for _ in range(4)]
    assert all(o.shape == (3, 224, 224) and o.dtype == torch.float32 for o in outs)
    assert all(not torch.equal(outs[0], o) for o in outs[1:]), "every onnxruntime run must draw afresh"
    # Each output is a normalised uint8 image: the values sit on the level grid of the normalisation.
    mean, std = torch.tensor(MEAN).view(3, 1, 1), torch.tensor(STD).view(3, 1, 1)
    levels = (outs[0] * std + mean) * 255
    assert (levels - levels.round()).abs().max().item() < 1e-3
    assert levels.min().item() > -0.01 and levels.max().item() < 255.01


def test_training_preset_fixed_crop_equals_eager():
    # scale and ratio 1 on a square image: the draw always takes the whole image, and p=1 always flips.
    def pipeline():
        return T.Compose(
            [
                T.RandomResizedCrop(224, scale=(1.0, 1.0), ratio=(1.0, 1.0)),
                T.RandomHorizontalFlip(p=1.0),
                T.ToDtype(torch.float32, scale=True),
                T.Normalize(MEAN, STD),
            ]
        )

    image = _image((3, 256, 256), 4)
    session = _session(_export(pipeline(), image))
    actual, expected = _run(session, image), pipeline()(image)
    assert (actual - expected).abs().max().item() <= LEVEL


def _fused_module(scale, ratio, flip_p, to_float=False):
    class Fused(torch.nn.Module):
        def forward(self, image):
            mean, std = (MEAN, STD) if to_float else (None, None)
            return torch.ops.jitvision_native.random_resized_crop(
                image, [48, 40], list(scale), list(ratio), flip_p, mean, std, to_float
            )

    return Fused()


def test_fused_random_resized_crop_fixed_crop_equals_eager():
    # The fused native op (what a strict export or torch.compile of Compose leaves in the graph), deterministic.
    module = _fused_module((1.0, 1.0), (1.0, 1.0), 1.0, to_float=True)
    image = _image((1, 3, 60, 60), 5)
    actual, expected = _run(_session(_export(module, image)), image), module(image)
    assert actual.shape == expected.shape == (1, 3, 48, 40)
    assert (actual - expected).abs().max().item() <= LEVEL


def test_fused_random_resized_crop_random():
    module = _fused_module((0.08, 1.0), (3 / 4, 4 / 3), 0.5)
    image = _image((1, 3, 64, 80), 6)
    session = _session(_export(module, image))
    outs = [_run(session, image) for _ in range(4)]
    assert all(o.shape == (1, 3, 48, 40) and o.dtype == torch.uint8 for o in outs)
    assert all(not torch.equal(outs[0], o) for o in outs[1:])


@torch.library.custom_op("jitvision_test::draw_box", mutates_args=())
def _draw_box_op(image: torch.Tensor, scale: List[float], ratio: List[float]) -> torch.Tensor:
    raise NotImplementedError  # only exported: its ONNX translation is the fused op's draw


@_draw_box_op.register_fake
def _(image: torch.Tensor, scale: List[float], ratio: List[float]) -> torch.Tensor:
    return image.new_empty([4], dtype=torch.int64)


@pytest.mark.parametrize(
    "height, width, scale, ratio", [(64, 80, (0.08, 1.0), (3 / 4, 4 / 3)), (20, 200, (0.5, 1.0), (1.0, 2.0))]
)
def test_fused_draw_distribution(height, width, scale, ratio):
    # The ONNX draw of the fused op's translation (RandomUniform) against torch's RandomResizedCrop draw: every box
    # inside the image, and the same distribution (means of top, left, height, width within a few standard errors).
    class Draw(torch.nn.Module):
        def forward(self, image):
            return torch.ops.jitvision_test.draw_box(image, list(scale), list(ratio))

    table = {torch.ops.jitvision_test.draw_box.default: _translations._draw_box}
    image = _image((1, 3, height, width), 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(torch.export.export(Draw(), (image,)), dynamo=True, custom_translation_table=table)
    session = _session(program)
    n = 300
    onnx_boxes = np.stack([_run(session, image).numpy() for _ in range(n)])
    transform = T.RandomResizedCrop(8, scale=scale, ratio=ratio)
    torch_boxes = np.stack([transform._boxes([], height, width, torch.device("cpu")).numpy() for _ in range(n)])
    for boxes in (onnx_boxes, torch_boxes):
        top, left, h, w = boxes.T
        assert (top >= 0).all() and (left >= 0).all() and (h > 0).all() and (w > 0).all()
        assert (top + h <= height).all() and (left + w <= width).all()
    for column in range(4):
        a, b = onnx_boxes[:, column].astype(float), torch_boxes[:, column].astype(float)
        spread = math.sqrt((a.var() + b.var()) / n) + 1e-9
        assert abs(a.mean() - b.mean()) < 5 * spread, (column, a.mean(), b.mean())
    # Random where torch's draw is; the second case never fits (always the fallback): one box, torch's.
    distinct_onnx, distinct_torch = {tuple(b) for b in onnx_boxes}, {tuple(b) for b in torch_boxes}
    if len(distinct_torch) > 1:
        assert len(distinct_onnx) > n // 3
    else:
        assert distinct_onnx == distinct_torch


@pytest.mark.parametrize(
    "transform, names",
    [
        (T.JPEG(50), ["jitvision_native.jpeg_u8" if _native.JPEG else "jitvision.jpeg", "JPEG", "libjpeg"]),
        (T.RandomRotation(30), ["warp_u8"]),
        (T.Compose([lambda x: torch.from_numpy(x.numpy() + 1)]), ["torch.export could not trace", ".numpy()"]),
    ],
)
def test_unexportable_names_the_op(transform, names):
    with pytest.raises(jonnx.ExportError) as info:
        _export(transform, _image((3, 32, 32), 7))
    message = str(info.value)
    assert message.startswith("jitvision.onnx.export: ")
    for name in names:
        assert name in message


def test_per_sample_boxes_refused_by_name():
    class Rows(torch.nn.Module):
        def forward(self, images, boxes):
            return torch.ops.jitvision_native.resized_crop(images, boxes, None, [8, 8])

    images, boxes = _image((1, 2, 3, 16, 16), 9), torch.tensor([[[0, 0, 8, 8], [2, 2, 10, 12]]])
    with pytest.raises(jonnx.ExportError, match="jitvision_native::resized_crop: one box per sample"):
        _export(Rows(), images, boxes)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_crop_translation(seed):
    # RandomCrop puts jitvision_native::crop_at (its drawn offset) into the graph: the ONNX crop must be one of the
    # crops eager can give (the draw differs: ONNX's RNG), and two runs must differ.
    pipeline = T.RandomCrop(40)
    image = _image((3, 64, 80), seed)
    session = _session(_export(pipeline, image))
    outs = [_run(session, image) for _ in range(4)]
    assert all(out.shape == (3, 40, 40) for out in outs)
    windows = image.unfold(1, 40, 1).unfold(2, 40, 1)  # [3, 25, 41, 40, 40]: every window eager can give
    for out in outs:
        assert (windows == out[:, None, None]).flatten(3).all(-1).all(0).any()
    assert any(not torch.equal(outs[0], other) for other in outs[1:])
