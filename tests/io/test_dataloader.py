"""The DataLoader recipe of docs/io.md, run: an ImageFolder whose loader returns the encoded image, the jitvision
pipeline in the workers (decode fused with RandomResizedCrop), num_workers > 0, pin_memory, per-worker seeding; the
batch form (tv_tensors.batch_samples as collate_fn, per-sample transforms on the batch); a bad file reported by
name from the worker."""

import warnings

import pytest
import torch
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

import jitvision.transforms as T
from jitvision import tv_tensors
from tests.io.images import photo_jpegs, write_image_folder

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("imagefolder")
    write_image_folder(root)
    return root


def _train_pipeline():
    return T.Compose([T.RandomResizedCrop(96), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
                      T.Normalize(MEAN, STD)])


def _loader(dataset, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pin_memory without an accelerator warns and does nothing
        return list(DataLoader(dataset, batch_size=4, num_workers=2, pin_memory=True, **kwargs))


def test_per_sample_pipeline_in_workers(folder):
    dataset = ImageFolder(str(folder), loader=tv_tensors.EncodedImage.from_file, transform=_train_pipeline())
    first = _loader(dataset, generator=torch.Generator().manual_seed(0))
    again = _loader(dataset, generator=torch.Generator().manual_seed(0))
    other = _loader(dataset, generator=torch.Generator().manual_seed(1))
    images = torch.cat([batch[0] for batch in first])
    assert images.shape == (len(dataset), 3, 96, 96) and images.dtype == torch.float32
    assert torch.cat([batch[1] for batch in first]).tolist() == [0] * 6 + [1] * 6
    # seeded through the DataLoader's generator: the same epoch again, another one for another seed
    torch.testing.assert_close(images, torch.cat([batch[0] for batch in again]))
    assert not torch.equal(images, torch.cat([batch[0] for batch in other]))
    # each worker draws its own crops: the two classes hold the same files, read by different workers here
    assert not torch.equal(images[:6], images[6:])


def test_a_transform_generator_gets_a_stream_per_worker(folder):
    pipeline = T.Compose([T.RandomResizedCrop(64, generator=torch.Generator().manual_seed(3)),
                          T.ToDtype(torch.float32, scale=True)])
    dataset = ImageFolder(str(folder), loader=tv_tensors.EncodedImage.from_file, transform=pipeline)
    images = torch.cat([batch[0] for batch in _loader(dataset, generator=torch.Generator().manual_seed(0))])
    assert not torch.equal(images[:6], images[6:])


def test_batch_form_with_batch_samples(folder):
    # Workers decode + crop to a common size; the batch is formed by batch_samples and the per-sample random steps
    # run once on the whole batch (each sample its own draw) in the main process.
    dataset = ImageFolder(str(folder), loader=tv_tensors.EncodedImage.from_file, transform=T.RandomResizedCrop(80))
    on_batch = T.Compose([T.RandomHorizontalFlip(), T.ColorJitter(0.2, 0.2), T.ToDtype(torch.float32, scale=True),
                          T.Normalize(MEAN, STD)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loader = DataLoader(dataset, batch_size=6, num_workers=2, pin_memory=True,
                            collate_fn=tv_tensors.batch_samples)
        batches = list(loader)
    assert len(batches) == 2
    for images, labels in batches:
        assert isinstance(images, tv_tensors.BatchedImages) and images.shape == (6, 3, 80, 80)
        assert isinstance(labels, list) and len(labels) == 6
        out = on_batch(images)
        assert out.shape == (6, 3, 80, 80) and out.dtype == torch.float32


def test_a_bad_file_is_reported_by_name(folder, tmp_path):
    root = tmp_path / "broken"
    (root / "x").mkdir(parents=True)
    good = photo_jpegs()[0].numpy().tobytes()
    for index in range(3):
        (root / "x" / f"{index}.jpg").write_bytes(good)
    (root / "x" / "9_cut.jpg").write_bytes(good[: len(good) // 3])
    dataset = ImageFolder(str(root), loader=tv_tensors.EncodedImage.from_file, transform=_train_pipeline())
    with pytest.raises(ValueError, match=r"RandomResizedCrop: cannot decode .*9_cut\.jpg"):
        _loader(dataset)
