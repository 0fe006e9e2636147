"""MixUp, CutMix, LinearTransformation, uniform_temporal_subsample / UniformTemporalSubsample."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from torch.utils._python_dispatch import TorchDispatchMode

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    compile_counted,
    make_image,
    script_roundtrip,
    to_torchvision,
)


def _reference(cls_name, params, images, labels, num_classes):
    """torchvision's class with our drawn lambda (and box) put in place of its draw."""
    theirs = getattr(tv_transforms, cls_name)(num_classes=num_classes)
    if cls_name == "MixUp":
        theirs.make_params = lambda flat: {"lam": float(params["lam"])}
    else:
        i, j, h, w = params["box"].tolist()
        theirs.make_params = lambda flat: {"box": (j, i, j + w, i + h), "lam_adjusted": float(params["lam"])}
    return theirs(images, labels)


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
@pytest.mark.parametrize("labels_kind", ["index", "probabilities"])
@pytest.mark.parametrize("kind", ["tensor", "Image", "Video"])
def test_mix_matches_torchvision_with_the_same_draw(cls_name, labels_kind, kind):
    num_classes = 5
    images = torch.rand(4, 3, 12, 14)
    if kind == "Image":
        images = tv_tensors.Image(images)
    elif kind == "Video":
        images = tv_tensors.Video(torch.rand(4, 2, 3, 12, 14))
    labels = torch.randint(0, num_classes, (4,))
    if labels_kind == "probabilities":
        labels = torch.softmax(torch.rand(4, num_classes), -1)
    ours = getattr(T, cls_name)(num_classes=num_classes, generator=torch.Generator().manual_seed(2))
    params = getattr(T, cls_name)(num_classes=num_classes, generator=torch.Generator().manual_seed(2)).make_params(
        [images]
    )
    out = ours(images, labels)
    expected = _reference(cls_name, params, to_torchvision(images), labels, num_classes)
    assert_matches_oracle(out, expected, float_atol=1e-5)
    # a dict sample with a "labels" key
    out = ours({"image": images, "labels": labels})
    assert out["labels"].shape == (4, num_classes) and type(out["image"]) is type(images)


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
def test_mix_lambda_distribution_and_box(cls_name):
    torch.manual_seed(0)
    transform = getattr(T, cls_name)(alpha=0.4, num_classes=3)
    lams = transform.make_batch_params([torch.empty(3, 20, 30)], 4000)["lam"]
    reference = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4)).sample((4000,))
    if cls_name == "MixUp":
        assert abs(lams.mean() - reference.mean()) < 0.03 and abs(lams.std() - reference.std()) < 0.03
    assert ((lams >= 0) & (lams <= 1)).all()


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
def test_mix_compiles_scripts_and_exports(cls_name, tmp_path):
    images, labels = torch.rand(4, 3, 12, 14), torch.randint(0, 5, (4,))
    transform = getattr(T, cls_name)(num_classes=5)
    compiled, counter = compile_counted(lambda x, y: transform(x, y))
    torch.manual_seed(0)
    outs = [compiled(images, labels) for _ in range(12)]
    assert counter.frame_count == 1
    assert len({tuple(o[1].flatten().tolist()) for o in outs}) > 1
    loaded = script_roundtrip(transform, tmp_path)
    mixed, mixed_labels = loaded.mix(images, labels)
    assert mixed.shape == images.shape and mixed_labels.shape == (4, 5)
    torch.testing.assert_close(mixed_labels.sum(-1), torch.ones(4))

    class Mixer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.t = getattr(T, cls_name)(num_classes=5)

        def forward(self, x, y):
            return self.t.mix(x, y)

    program = torch.export.export(Mixer(), (images, labels))
    outs = [program.module()(images, labels)[1] for _ in range(8)]
    assert any(not torch.equal(outs[0], o) for o in outs[1:])


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
@pytest.mark.parametrize("labels_kind", ["indices", "probabilities"])
def test_scripted_mix_takes_images_and_labels_like_eager(cls_name, labels_kind, tmp_path):
    # The real call, t(images, labels), on the scripted module saved and loaded: same output as eager for a seed.
    images = torch.rand(4, 3, 12, 14)
    labels = torch.randint(0, 5, (4,))
    if labels_kind == "probabilities":
        labels = torch.softmax(torch.rand(4, 5), dim=-1)
    transform = getattr(T, cls_name)(num_classes=5)
    loaded = script_roundtrip(transform, tmp_path)
    for seed in range(4):
        torch.manual_seed(seed)
        expected_images, expected_labels = transform(images, labels)
        torch.manual_seed(seed)
        mixed_images, mixed_labels = loaded(images, labels)
        torch.testing.assert_close(mixed_images, expected_images, rtol=0, atol=0)
        torch.testing.assert_close(mixed_labels, expected_labels, rtol=0, atol=0)
    assert not torch.equal(mixed_images, images)
    with pytest.raises(Exception, match=f"{cls_name}: a scripted {cls_name} is called with \\(images, labels\\)"):
        loaded(images)
    # Inside a Compose the pair cannot be chained: scripting says so, naming the step.
    with pytest.raises(TypeError, match=f"Compose: step 1 \\({cls_name}\\)"):
        torch.jit.script(T.Compose([T.RandomHorizontalFlip(), transform]))
    # forward takes the pair in export too.
    program = torch.export.export(transform, (images, labels)).module()
    torch.manual_seed(7)
    expected_images, expected_labels = transform(images, labels)
    torch.manual_seed(7)
    exported_images, exported_labels = program(images, labels)
    torch.testing.assert_close(exported_images, expected_images)
    torch.testing.assert_close(exported_labels, expected_labels)


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
def test_mix_takes_the_one_tuple_call_in_every_mode(cls_name, tmp_path):
    # torchvision's two calls, t(images, labels) and t((images, labels)), on the class, the scripted class saved and
    # loaded, and the exported program: one result for a seed.
    images, labels = torch.rand(4, 3, 12, 14), torch.randint(0, 5, (4,))
    transform = getattr(T, cls_name)(num_classes=5)
    loaded = script_roundtrip(transform, tmp_path)
    program = torch.export.export(transform, ((images, labels),)).module()
    torch.manual_seed(5)
    expected = transform(images, labels)
    for call in (transform, loaded, program):
        torch.manual_seed(5)
        out = call((images, labels))
        assert isinstance(out, tuple) and len(out) == 2
        torch.testing.assert_close(out[0], expected[0])
        torch.testing.assert_close(out[1], expected[1])
    with pytest.raises(Exception, match=f"{cls_name}: a scripted {cls_name} takes \\(images, labels\\) as one tuple"):
        loaded((images, labels), labels)


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
def test_mix_per_sample_on_batch_types(cls_name):
    images, labels = torch.rand(6, 3, 16, 16), torch.randint(0, 4, (6,))
    factory = getattr(T, cls_name)
    out_images, out_labels = factory(num_classes=4, generator=torch.Generator().manual_seed(1))(
        tv_tensors.BatchedImages(images), labels
    )
    params = factory(num_classes=4, generator=torch.Generator().manual_seed(1)).make_batch_params([images], 6)
    assert params["lam"].unique().numel() > 3
    rolled = images.roll(1, 0)
    for i in range(6):
        lam = params["lam"][i]
        if cls_name == "MixUp":
            expected = lam.float() * images[i] + (1 - lam.float()) * rolled[i]
        else:
            top, left, h, w = params["box"][i].tolist()
            expected = images[i].clone()
            expected[..., top : top + h, left : left + w] = rolled[i][..., top : top + h, left : left + w]
        torch.testing.assert_close(out_images[i].as_subclass(torch.Tensor), expected)
        one_hot = torch.nn.functional.one_hot(labels, 4).float()
        torch.testing.assert_close(out_labels[i], (lam * one_hot[i] + (1 - lam) * one_hot.roll(1, 0)[i]).float())


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
def test_mix_bad_input(cls_name):
    cls = getattr(T, cls_name)
    images = torch.rand(4, 3, 8, 8)
    with pytest.raises(ValueError, match=cls_name):
        cls()(images, torch.randint(0, 3, (4,)))  # index labels without num_classes
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3)(images, torch.rand(4, 3, 2))
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3)(images, torch.rand(4, 4))
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3)(images, torch.randint(0, 3, (5,)))
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3)(images[0], torch.randint(0, 3, (3,)))
    with pytest.raises(ValueError, match=cls_name):
        cls(alpha=0.0)
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3)(images, tv_tensors.Mask(torch.zeros(4, 8, 8)), torch.arange(4))
    with pytest.raises(ValueError, match=f"{cls_name}: class-index"):
        cls(num_classes=3)(images, torch.rand(4))  # 1D float labels are not class indices
    for bad in (torch.tensor([0, 1, 3, 2]), torch.tensor([0, -1, 1, 2])):
        with pytest.raises(ValueError, match=f"{cls_name}: class indices must lie in \\[0, 2\\]"):
            cls(num_classes=3)(images, bad)
    # the mix(images, labels) method (what a scripted module calls) checks the same
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3).mix(images, torch.randint(0, 3, (5,)))
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3).mix(images, torch.rand(4, 2))
    with pytest.raises(ValueError, match=cls_name):
        cls(num_classes=3).mix(images[0], torch.randint(0, 3, (3,)))


# ---- LinearTransformation and temporal subsampling -------------------------------------------------------------


def test_linear_transformation_matches_torchvision(tmp_path):
    d = 3 * 5 * 6
    matrix, mean = torch.randn(d, d), torch.randn(d)
    image = make_image(5, 6, torch.float32, batch=(2,))
    sample = {"image": tv_tensors.Image(image), "video": tv_tensors.Video(image[None])}
    ours, theirs = T.LinearTransformation(matrix, mean), tv_transforms.LinearTransformation(matrix, mean)
    assert_matches_oracle(ours(sample), theirs(to_torchvision(sample)), float_atol=1e-3)
    loaded = script_roundtrip(ours, tmp_path)
    torch.testing.assert_close(loaded(image), theirs(image), atol=1e-3, rtol=0)
    out = assert_one_graph(ours, tv_tensors.Image(image))
    torch.testing.assert_close(out.as_subclass(torch.Tensor), theirs(image), atol=1e-3, rtol=0)
    with pytest.raises(ValueError, match="LinearTransformation"):
        ours(make_image(5, 7, torch.float32))
    with pytest.raises(ValueError, match="LinearTransformation"):
        T.LinearTransformation(torch.randn(4, 3), torch.randn(4))
    with pytest.raises(ValueError, match="LinearTransformation"):
        T.LinearTransformation(torch.randn(4, 4), torch.randn(3))


@pytest.mark.parametrize("frames, num_samples", [(8, 3), (5, 5), (3, 7), (1, 2)])
def test_uniform_temporal_subsample_matches_torchvision(frames, num_samples, tmp_path):
    video = make_image(6, 7, batch=(2, frames))
    for inpt in (video[0], tv_tensors.Video(video)):
        assert_matches_oracle(
            F.uniform_temporal_subsample(inpt, num_samples),
            tv_functional.uniform_temporal_subsample(to_torchvision(inpt), num_samples),
        )
    sample = {"video": tv_tensors.Video(video), "image": tv_tensors.Image(video[0, 0])}
    assert_matches_oracle(
        T.UniformTemporalSubsample(num_samples)(sample),
        tv_transforms.UniformTemporalSubsample(num_samples)(to_torchvision(sample)),
    )
    assert torch.equal(
        script_roundtrip(T.UniformTemporalSubsample(num_samples), tmp_path)(video[0]),
        F.uniform_temporal_subsample(video[0], num_samples),
    )
    out = assert_one_graph(lambda x: F.uniform_temporal_subsample(x, num_samples), tv_tensors.Video(video))
    assert torch.equal(out.as_subclass(torch.Tensor), F.uniform_temporal_subsample(video, num_samples))


def test_uniform_temporal_subsample_bad_input():
    with pytest.raises(ValueError, match="uniform_temporal_subsample"):
        F.uniform_temporal_subsample(make_image(), 2)
    with pytest.raises(ValueError, match="UniformTemporalSubsample"):
        T.UniformTemporalSubsample(0)


class _FullSizeWrites(TorchDispatchMode):
    """Counts the ops that write a tensor as large as the batch (each a full pass, and a fresh buffer for most)."""

    def __init__(self, numel: int) -> None:
        super().__init__()
        self.numel, self.ops = numel, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor) and out.numel() >= self.numel:
            self.ops.append(str(func))
        return out


@pytest.mark.parametrize("cls_name", ["MixUp", "CutMix"])
@pytest.mark.parametrize("mode", ["eager", "script"])
def test_mix_writes_the_batch_once(cls_name, mode, tmp_path):
    # The blend reads two images and writes one: one full-size output, no rolled copy, no full-size temporaries
    # (torchvision's MixUp writes four, its CutMix two). The result still matches torchvision's for the same draw.
    images, labels = torch.rand(8, 3, 20, 24), torch.randint(0, 5, (8,))
    transform = getattr(T, cls_name)(num_classes=5)
    call = transform if mode == "eager" else script_roundtrip(transform, tmp_path)
    counter = _FullSizeWrites(images.numel())
    torch.manual_seed(1)
    with counter:
        mixed, _ = call(images, labels)
    assert len(counter.ops) == 1, counter.ops
    torch.manual_seed(1)
    params = transform.make_params([images])
    expected, _ = _reference(cls_name, params, images, labels, 5)
    torch.testing.assert_close(mixed, expected, rtol=0, atol=1e-6)


def test_mixup_blend_keeps_autograd():
    # The one-pass blend writes into a preallocated output; an input that requires grad takes the out-of-place form.
    images, labels = torch.rand(4, 3, 8, 8, requires_grad=True), torch.randint(0, 5, (4,))
    torch.manual_seed(0)
    mixed, _ = T.MixUp(num_classes=5)(images, labels)
    mixed.sum().backward()
    torch.testing.assert_close(images.grad, torch.ones_like(images))
    torch.manual_seed(0)
    torch.testing.assert_close(mixed.detach(), T.MixUp(num_classes=5)(images.detach(), labels)[0], rtol=0, atol=0)
