"""erase / RandomErasing and jpeg / JPEG: vs torchvision, in the modes, on batches."""

import pytest
import torch
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
from PIL import Image as PILImage

import jitvision.transforms as T
import jitvision.transforms.functional as F
from jitvision import _native, tv_tensors
from jitvision.transforms.functional import _jpeg as jpeg_module
from jitvision.transforms.functional._erase import erase_where
from tests.helpers import (
    assert_matches_oracle,
    assert_one_graph,
    compile_counted,
    make_boxes,
    make_image,
    make_mask,
    script_roundtrip,
    to_torchvision,
)
from tests.transforms.random_checks import assert_batch_rows_match_single, assert_modes


def _erase_args(h, w, channels):
    i, j = torch.randint(0, h, ()).item(), torch.randint(0, w, ()).item()
    eh, ew = torch.randint(0, h - i + 2, ()).item(), torch.randint(0, w - j + 2, ()).item()
    values = [torch.tensor(3.0), torch.rand(channels, 1, 1) * 200, torch.rand(channels, min(eh, h - i), min(ew, w - j))]
    return i, j, eh, ew, values[torch.randint(0, 3, ()).item()]


@pytest.mark.parametrize("seed", range(6))
def test_erase_matches_torchvision(seed):
    torch.manual_seed(seed)
    h, w = torch.randint(5, 30, (2,)).tolist()
    image = make_image(h, w, torch.float32 if seed % 2 else torch.uint8)
    i, j, eh, ew, v = _erase_args(h, w, 3)
    for inpt in (image, tv_tensors.Image(image), tv_tensors.Video(image[None].expand(2, -1, -1, -1))):
        assert_matches_oracle(
            F.erase(inpt, i, j, eh, ew, v), tv_functional.erase(to_torchvision(inpt), i, j, eh, ew, v)
        )
        # the box as a tensor, through a mask, gives the same
        box = torch.tensor([i, j, eh, ew])
        plain = inpt.as_subclass(torch.Tensor)
        value = (
            v
            if v.ndim == 0 or v.shape[-1] == 1
            else torch.nn.functional.pad(v, [j, w - j - v.shape[-1], i, h - i - v.shape[-2]])
        )
        assert torch.equal(erase_where(plain, box, value), F.erase(plain, i, j, eh, ew, v))
    pil = PILImage.fromarray(make_image(h, w).permute(1, 2, 0).numpy())
    assert_matches_oracle(
        F.erase(pil, i, j, eh, ew, torch.tensor(7.0)), tv_functional.erase(pil, i, j, eh, ew, torch.tensor(7.0))
    )
    inplace = image.clone()
    assert F.erase(inplace, i, j, eh, ew, torch.tensor(1.0), inplace=True) is inplace


def test_erase_modes():
    image = make_image(dtype=torch.float32)
    v = torch.tensor(0.5)
    out = assert_one_graph(lambda x: F.erase(x, 2, 3, 4, 5, v), tv_tensors.Image(image))
    assert torch.equal(out.as_subclass(torch.Tensor), F.erase(image, 2, 3, 4, 5, v))
    torch.testing.assert_close(torch.jit.script(F.erase)(image, 2, 3, 4, 5, v), F.erase(image, 2, 3, 4, 5, v))


def test_erase_bad_value_shape():
    with pytest.raises(ValueError, match="erase"):
        F.erase(make_image(), 1, 1, 4, 4, torch.zeros(2, 1, 1))
    with pytest.raises(ValueError, match="erase"):
        F.erase(make_image(), 1, 1, 4, 4, torch.zeros(3, 5, 4))
    with pytest.raises(ValueError, match="RandomErasing"):
        T.RandomErasing(p=1.0, value=[1.0, 2.0])(make_image())
    with pytest.raises(ValueError, match="RandomErasing"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="RandomErasing"):
        T.RandomErasing(scale=(0.5, 1.5))


@pytest.mark.parametrize("value", [0.0, [10.0, 20.0, 30.0], "random"])
def test_random_erasing_distribution_matches_torchvision(value):
    # the erased area fraction and aspect ratio, over many draws, against torchvision's (same distribution)
    image = torch.full((3, 40, 50), 128, dtype=torch.uint8) if value != "random" else torch.full((3, 40, 50), 0.5)

    def stats(transform):
        areas, ratios = [], []
        for _ in range(300):
            changed = (transform(image) != image).any(dim=0)
            rows, cols = changed.any(dim=1).nonzero(), changed.any(dim=0).nonzero()
            if len(rows):
                h, w = rows.max() - rows.min() + 1, cols.max() - cols.min() + 1
                areas.append(float(h * w) / (40 * 50))
                ratios.append(float(h) / float(w))
        return torch.tensor(areas), torch.tensor(ratios)

    torch.manual_seed(0)
    ours = stats(T.RandomErasing(p=1.0, value=value))
    theirs = stats(tv_transforms.RandomErasing(p=1.0, value=value))
    for a, b in zip(ours, theirs):
        assert abs(a.mean() - b.mean()) < 0.25 * b.mean() + 0.02
        assert abs(len(a) - len(b)) < 40


def test_random_erasing_matches_erase_with_its_parameters():
    sample = {"image": tv_tensors.Image(make_image(30, 40)), "boxes": make_boxes((30, 40)), "mask": make_mask(30, 40)}
    transform = T.RandomErasing(p=1.0, value=[1.0, 2.0, 3.0], generator=torch.Generator().manual_seed(4))
    params = T.RandomErasing(p=1.0, value=[1.0, 2.0, 3.0], generator=torch.Generator().manual_seed(4)).make_params(
        [sample["image"]]
    )
    out = transform(sample)
    i, j, h, w = params["i"], params["j"], params["h"], params["w"]
    expected = tv_functional.erase(
        to_torchvision(sample["image"]), i, j, h, w, torch.tensor([1.0, 2.0, 3.0]).view(3, 1, 1)
    )
    assert_matches_oracle(out["image"], expected)
    assert out["boxes"] is sample["boxes"] and out["mask"] is sample["mask"]
    assert torch.equal(T.RandomErasing(p=0.0)(sample)["image"], sample["image"])


def test_random_erasing_modes_and_batches(tmp_path):
    assert_modes(T.RandomErasing(p=0.7, value=5.0), make_image(24, 30), tmp_path)
    assert_modes(T.RandomErasing(p=1.0, value="random"), make_image(24, 30, torch.float32), tmp_path, export=False)
    params = assert_batch_rows_match_single(
        lambda g: T.RandomErasing(p=0.6, value=[9.0, 8.0, 7.0], generator=g), make_image(30, 36, batch=(8,))
    )
    assert params["box"].unique(dim=0).shape[0] > 4 and params["apply"].unique().numel() == 2
    # the traced (mask) form equals the eager (slice) form for the same draw
    transform = T.RandomErasing(p=1.0, value=[9.0, 8.0, 7.0])
    compiled, counter = compile_counted(lambda x, p: transform.transform(x, p))
    image = make_image(30, 36)
    for _ in range(5):
        p = {key: value[0] for key, value in transform.make_batch_params([image], 1).items()}  # tensors
        assert torch.equal(compiled(image, p), transform.transform(image, p))
    assert counter.frame_count == 1


# ---- jpeg ----------------------------------------------------------------------------------------------------


def _photo(h, w, batch=()):
    smooth = torch.nn.functional.interpolate(
        torch.rand(int(torch.tensor(batch).prod()) if batch else 1, 3, 6, 8) * 255, size=(h, w), mode="bilinear"
    )
    noisy = (smooth + torch.randn_like(smooth) * 6).clamp(0, 255).to(torch.uint8)
    return noisy.reshape(*batch, 3, h, w) if batch else noisy[0]


@pytest.mark.parametrize("codec", ["native", "opencv", "pillow"])
@pytest.mark.parametrize("quality", [1, 17, 50, 75, 100])
def test_jpeg_matches_torchvision(quality, codec, monkeypatch):
    if codec != "native":  # the paths of a library built without libjpeg
        monkeypatch.setattr(_native, "JPEG", False)
    if codec == "pillow":
        monkeypatch.setattr(jpeg_module, "_cv2", None)
    h, w = torch.randint(8, 50, (2,)).tolist()
    image = _photo(h, w)
    for inpt in (image, image[:1], tv_tensors.Image(image), tv_tensors.Video(_photo(h, w, (2,))), _photo(h, w, (2, 2))):
        assert_matches_oracle(F.jpeg(inpt, quality), tv_functional.jpeg(to_torchvision(inpt), quality))
    pil = PILImage.fromarray(image.permute(1, 2, 0).numpy())
    assert_matches_oracle(F.jpeg(pil, quality), tv_functional.jpeg(pil, quality))
    torch.manual_seed(quality)
    assert_matches_oracle(
        T.JPEG(quality)(tv_tensors.Image(image)), tv_transforms.JPEG(quality)(to_torchvision(tv_tensors.Image(image)))
    )


def test_jpeg_is_one_graph_node_and_scripts(tmp_path):
    image = _photo(24, 32)
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm.code)
        return gm.forward

    torch._dynamo.reset()
    out = torch.compile(lambda x: F.jpeg(x, 30), backend=capture, fullgraph=True)(tv_tensors.Image(image))
    op = "jitvision_native.jpeg_u8" if _native.JPEG else "jitvision.jpeg"
    assert len(graphs) == 1 and graphs[0].count(op) == 1
    assert torch.equal(out.as_subclass(torch.Tensor), tv_functional.jpeg(image, 30))
    assert torch.equal(torch.jit.script(F.jpeg)(image, 30), tv_functional.jpeg(image, 30))
    assert_modes(T.JPEG((5, 95)), image, tmp_path)
    # inductor: the op's fake output (contiguous) must agree with the real one
    torch._dynamo.reset()
    compiled = torch.compile(T.JPEG(40), fullgraph=True)
    assert torch.equal(compiled(tv_tensors.Image(image)).as_subclass(torch.Tensor), tv_functional.jpeg(image, 40))


def test_jpeg_batches():
    params = assert_batch_rows_match_single(lambda g: T.JPEG((1, 100), generator=g), _photo(20, 28, (6,)))
    assert params["quality"].unique().numel() > 3
    qualities = T.JPEG((3, 5)).make_batch_params([torch.empty(3, 1, 1)], 2000)["quality"]
    assert set(qualities.tolist()) == {3, 4, 5}


def test_jpeg_bad_input():
    for quality in (0, 101, -5):
        with pytest.raises(ValueError, match="jpeg"):
            F.jpeg(_photo(8, 8), quality)
        with pytest.raises(ValueError, match="JPEG"):
            T.JPEG(quality)
    with pytest.raises(ValueError, match="JPEG"):
        T.JPEG((50, 20))
    with pytest.raises(TypeError, match="JPEG"):
        T.JPEG(True)
    with pytest.raises(TypeError, match="jpeg"):
        F.jpeg(torch.rand(3, 8, 8), 50)
    with pytest.raises(ValueError, match="jpeg"):
        F.jpeg(make_image(channels=2), 50)


def test_random_erasing_eager_draw_equals_the_tensor_draw():
    # the Python-float draw of eager single samples and the tensor draw (traced, batches) agree on one stream
    for seed in range(200):
        transform = T.RandomErasing(scale=(0.02, 0.9), ratio=(0.1, 10.0), generator=torch.Generator().manual_seed(seed))
        h, w = 10 + seed % 37, 10 + seed % 23
        eager = transform._draw_eager(h, w, torch.device("cpu"))
        transform.generator.manual_seed(seed)
        traced = {
            "apply": torch.rand([], generator=transform.generator) < 0.5,
            "box": transform._boxes([], h, w, torch.device("cpu")),
        }
        assert torch.equal(eager["box"], traced["box"]) and torch.equal(eager["apply"], traced["apply"]), seed


def test_random_erasing_random_value_is_one_draw_whatever_the_container(tmp_path):
    # value="random" erases with torchvision's [C, h, w] noise on every eager path and the scripted class, so a seed
    # gives one result for a plain tensor, an Image, a list, a dict, and what make_params says
    transform = T.RandomErasing(p=1.0, value="random")
    image = torch.rand(3, 32, 32)
    outputs = []
    for call in (
        lambda: transform(image),
        lambda: transform(tv_tensors.Image(image)),
        lambda: transform([image])[0],
        lambda: transform({"image": image, "label": 3})["image"],
        lambda: script_roundtrip(transform, tmp_path)(image),
    ):
        torch.manual_seed(3)
        outputs.append(call())
    for out in outputs[1:]:
        torch.testing.assert_close(out.as_subclass(torch.Tensor), outputs[0], rtol=0, atol=0)
    torch.manual_seed(3)
    params = transform.make_params([image])
    assert list(params["v"].shape) == [3, params["h"], params["w"]]
    expected = F.erase(image, params["i"], params["j"], params["h"], params["w"], params["v"])
    torch.testing.assert_close(outputs[0], expected, rtol=0, atol=0)
