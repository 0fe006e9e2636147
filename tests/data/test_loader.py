"""jitvision.data.Loader: batches from an ImageFolder of encoded images, decoded and transformed in parallel by a
background thread; reproducible, sharded, stopped cleanly, bad files raised or skipped."""

import gc
import threading
import time
import warnings

import pytest
import torch
from torch.utils.data import DataLoader, DistributedSampler, IterableDataset
from torchvision.datasets import ImageFolder

import jitvision.transforms as T
from jitvision import tv_tensors
from jitvision.data import Loader
from tests.io.images import kinds_of_png, photo_jpegs, write_image_folder

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("imagefolder")
    write_image_folder(root)
    (root / "dog" / "png_named_jpg.jpg").write_bytes(kinds_of_png()["rgb"].numpy().tobytes())
    return root


def dataset_of(root):
    return ImageFolder(str(root), loader=tv_tensors.EncodedImage.from_file)


def pipeline():
    return T.Compose([T.RandomResizedCrop(48), T.RandomHorizontalFlip(), T.ColorJitter(0.2, 0.2),
                      T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])


def loader_threads():
    return [thread for thread in threading.enumerate() if thread.name.startswith("jitvision-loader")]


def epoch(loader):
    return [(images.clone(), labels.clone()) for images, labels in loader]


def test_batches_and_labels(folder):
    dataset = dataset_of(folder)
    generator = torch.Generator().manual_seed(0)
    loader = Loader(dataset, transform=pipeline(), batch_size=4, shuffle=True, generator=generator)
    assert len(loader) == 4  # 13 samples
    batches = epoch(loader)
    assert [b[0].shape for b in batches] == [(4, 3, 48, 48)] * 3 + [(1, 3, 48, 48)]
    assert all(b[0].dtype == torch.float32 and type(b[0]) is torch.Tensor for b in batches)
    labels = torch.cat([b[1] for b in batches])
    assert sorted(labels.tolist()) == sorted(dataset.targets)
    assert len(Loader(dataset, batch_size=4, drop_last=True)) == 3


def test_the_same_batches_for_a_seed_whatever_the_threads_and_other_draws(folder):
    dataset = dataset_of(folder)

    def run(threads, disturb):
        saved = torch.get_num_threads()
        try:
            loader = Loader(dataset, transform=pipeline(), batch_size=5, shuffle=True, num_threads=threads,
                            generator=torch.Generator().manual_seed(42))
            out = []
            for images, labels in loader:
                if disturb:
                    torch.rand(1000)  # the loop's own draws must not reach the loader's stream
                out.append((images.clone(), labels.clone()))
            return out
        finally:
            torch.set_num_threads(saved)

    reference = run(1, False)
    for threads, disturb in ((2, True), (4, False)):
        again = run(threads, disturb)
        assert len(again) == len(reference)
        for (a, la), (b, lb) in zip(reference, again):
            assert torch.equal(a, b) and torch.equal(la, lb)
    other = Loader(dataset, transform=pipeline(), batch_size=5, shuffle=True,
                   generator=torch.Generator().manual_seed(43))
    assert not torch.equal(epoch(other)[0][0], reference[0][0])


def test_rows_are_the_pipeline_on_each_file(folder):
    # Without shuffling and with a deterministic pipeline, batch rows are the single-image results.
    dataset = dataset_of(folder)
    steps = T.Compose([T.Resize([40, 36]), T.ToDtype(torch.float32, scale=True)])
    batches = list(Loader(dataset, transform=steps, batch_size=6))
    rows = torch.cat([images for images, _ in batches])
    for index in range(len(dataset)):
        single = steps(dataset[index][0]).as_subclass(torch.Tensor)
        torch.testing.assert_close(rows[index], single, rtol=0, atol=2e-5)


def test_distributed_sampler_shards_are_disjoint_and_complete(folder):
    dataset = dataset_of(folder)
    seen = []
    for rank in range(2):
        sampler = DistributedSampler(dataset, num_replicas=2, rank=rank, shuffle=True, seed=1, drop_last=True)
        loader = Loader(dataset, transform=T.Resize([16, 16]), batch_size=2, sampler=sampler)
        loader.set_epoch(3)
        indices = list(sampler)
        seen.append(indices)
        assert sum(images.shape[0] for images, _ in loader) == len(indices)
    assert not set(seen[0]) & set(seen[1])
    assert len(set(seen[0]) | set(seen[1])) == 2 * (len(dataset) // 2)


def test_break_and_errors_stop_the_thread(folder):
    dataset = dataset_of(folder)
    loader = Loader(dataset, transform=pipeline(), batch_size=2, prefetch=1)
    for _ in loader:
        break
    gc.collect()
    deadline = time.monotonic() + 5
    while loader_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not loader_threads()

    def fails(batch):
        raise RuntimeError("the transform failed")

    with pytest.raises(RuntimeError, match="the transform failed"):
        for _ in Loader(dataset, transform=T.Compose([T.RandomResizedCrop(16), T.Lambda(fails)]), batch_size=2):
            pass
    gc.collect()
    time.sleep(0.2)
    assert not loader_threads()


def test_a_loop_interrupted_while_waiting_stops_the_thread(folder):
    dataset = dataset_of(folder)
    iterator = iter(Loader(dataset, transform=pipeline(), batch_size=2, prefetch=1))
    next(iterator)
    iterator.close()  # what KeyboardInterrupt in __next__ leads to
    assert not loader_threads()
    with pytest.raises(StopIteration):
        next(iterator)


@pytest.fixture()
def broken(tmp_path, folder):
    root = tmp_path / "broken"
    (root / "a").mkdir(parents=True)
    good = photo_jpegs()[0]
    files = {
        "good0.jpg": good,
        "empty.jpg": good[:0],
        "text.jpg": torch.frombuffer(bytearray(b"not an image at all, just text\n" * 10), dtype=torch.uint8),
        "truncated.jpg": good[: good.numel() // 3],
        "corrupt.jpg": torch.cat([good[:600], torch.full([2000], 7, dtype=torch.uint8), good[2600:]]),
        "good1.jpg": photo_jpegs()[1],
        "png.jpg": kinds_of_png()["rgb"],
    }
    for name, data in files.items():
        (root / "a" / name).write_bytes(data.numpy().tobytes())
    return root


def test_bad_files_raise_with_their_name(broken):
    loader = Loader(dataset_of(broken), transform=pipeline(), batch_size=7)
    with pytest.raises(ValueError, match=r"(corrupt|empty|text|truncated)\.jpg"):
        list(loader)


def test_bad_files_are_skipped_when_asked(broken):
    loader = Loader(dataset_of(broken), transform=pipeline(), batch_size=7, on_error="skip")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = list(loader)
    kept = sum(images.shape[0] for images, _ in batches)
    assert loader.skipped == 7 - kept
    assert kept >= 3  # the two photographs and the PNG
    named = " ".join(str(w.message) for w in caught)
    for name in ("empty.jpg", "text.jpg", "truncated.jpg"):
        assert name in named


def test_inside_a_dataloader_worker(folder):
    class Shard(IterableDataset):
        def __iter__(self):
            yield from Loader(dataset_of(folder), transform=T.Resize([24, 24]), batch_size=4, num_threads=1)

    batches = list(DataLoader(Shard(), batch_size=None, num_workers=1))
    assert sum(images.shape[0] for images, _ in batches) == 13


def test_arguments_are_checked(folder):
    dataset = dataset_of(folder)
    with pytest.raises(ValueError, match="on_error"):
        Loader(dataset, on_error="ignore")
    with pytest.raises(ValueError, match="batch_size"):
        Loader(dataset, batch_size=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        Loader(dataset, batch_sampler=[[0, 1]], batch_size=2)
    with pytest.raises(TypeError, match="EncodedImage"):
        list(Loader(ImageFolder(str(folder)), batch_size=2))  # PIL images
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="pin_memory"):
            Loader(dataset, pin_memory=True)


def test_images_alone_and_device(folder):
    files = sorted(str(p) for p in folder.glob("cat/*.jpg"))

    class Files:
        def __len__(self):
            return len(files)

        def __getitem__(self, index):
            return tv_tensors.EncodedImage.from_file(files[index])

    batches = list(Loader(Files(), transform=T.CenterCrop(32), batch_size=3, device="cpu"))
    assert all(type(b) is torch.Tensor and b.dtype == torch.uint8 for b in batches)
    assert sum(b.shape[0] for b in batches) == len(files)


_ABANDONED = """
import sys, signal, time, torch
import jitvision.transforms as T
from torchvision.datasets import ImageFolder
from jitvision import tv_tensors
from jitvision.data import Loader

def slow(batch):
    time.sleep(0.2)
    return batch

dataset = ImageFolder(sys.argv[1], loader=tv_tensors.EncodedImage.from_file)
loader = Loader(dataset, transform=T.Compose([T.RandomResizedCrop(16), T.Lambda(slow)]), batch_size=1, prefetch=1)
iterator = iter(loader)
next(iterator)
print("ready", flush=True)
if sys.argv[2] == "interrupt":
    for _ in iterator:  # interrupted here by SIGINT
        pass
"""


@pytest.mark.parametrize("how", ["exit", "interrupt"])
def test_no_hang_at_exit_or_on_ctrl_c(folder, how, tmp_path):
    import signal
    import subprocess
    import sys

    script = tmp_path / "abandoned.py"
    script.write_text(_ABANDONED)
    process = subprocess.Popen([sys.executable, str(script), str(folder), how], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    if how == "interrupt":
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"the process hung after the loop was {how}ed")
    if how == "exit":
        assert process.returncode == 0, err
    else:
        assert "KeyboardInterrupt" in err


def test_batches_held_by_the_loop_are_never_overwritten(folder):
    # The loader reuses a batch's memory only once nothing holds it: batches kept (or viewed) stay as they were.
    dataset = dataset_of(folder)

    def make():
        return Loader(dataset, transform=pipeline(), batch_size=2, shuffle=True, prefetch=1,
                      generator=torch.Generator().manual_seed(9))

    copies = [(images.clone(), labels) for images, labels in make()]
    held = list(make())
    views = [images[0] for images, _ in make()]
    assert len(held) == len(copies) == len(views)
    for (kept, _), (copy, _), view in zip(held, copies, views):
        assert torch.equal(kept, copy) and torch.equal(view, copy[0])
    assert len({images.data_ptr() for images, _ in held}) == len(held)
