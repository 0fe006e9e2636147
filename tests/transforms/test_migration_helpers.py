"""torchvision's ``v2._utils`` / ``v2.functional._utils`` helpers under the same names in jitvision, with the same
behaviour, and a custom transform written against them (the segmentation recipe's pad-if-smaller step) running
unchanged by import swap."""

import PIL.Image
import pytest
import torch
import torchvision.transforms.v2 as tv_v2
from torchvision import tv_tensors as tv_tv_tensors

import jitvision.transforms as jv_v2
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, make_image, to_torchvision


def make_pad_if_smaller(v2, tv_tensors_module):
    """The segmentation recipe's step, written once against a ``v2`` module: pad right and bottom up to ``size``,
    with a fill per input type."""

    class PadIfSmaller(v2.Transform):
        def __init__(self, size, fill=0):
            super().__init__()
            self.size = size
            self.fill = v2._utils._setup_fill_arg(fill)

        def make_params(self, flat_inputs):
            _, height, width = v2._utils.query_chw(flat_inputs)
            padding = [0, 0, max(self.size - width, 0), max(self.size - height, 0)]
            return {"padding": padding, "needs_padding": any(padding)}

        def transform(self, inpt, params):
            if not params["needs_padding"]:
                return inpt
            fill = v2._utils._convert_fill_arg(v2._utils._get_fill(self.fill, type(inpt)))
            return v2.functional.pad(inpt, padding=params["padding"], fill=fill)

    return PadIfSmaller


def _segmentation_sample(height: int, width: int, seed: int) -> tuple:
    g = torch.Generator().manual_seed(seed)
    image = tv_tensors.Image(make_image(height, width))
    mask = tv_tensors.Mask(torch.randint(0, 21, (height, width), dtype=torch.uint8, generator=g))
    return image, mask


@pytest.mark.parametrize("size", [16, 40, 64])
@pytest.mark.parametrize(
    "fill",
    [
        {tv_tensors.Mask: 255, "others": 0},
        0,
        {tv_tensors.Image: (10, 20, 30), tv_tensors.Mask: 3},
        {tv_tensors.Image: 7},
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_pad_if_smaller_written_for_torchvision_runs_unchanged(size, fill, seed):
    image, mask = _segmentation_sample(23 + seed * 9, 37, seed)
    tv_fill = fill
    if isinstance(fill, dict):  # the same dict written with torchvision's classes
        tv_fill = {getattr(tv_tv_tensors, key.__name__) if isinstance(key, type) else key: v for key, v in fill.items()}
    ours = make_pad_if_smaller(jv_v2, tv_tensors)(size, fill=dict(fill) if isinstance(fill, dict) else fill)
    theirs = make_pad_if_smaller(tv_v2, tv_tv_tensors)(size, fill=tv_fill)
    assert_matches_oracle(ours((image, mask)), theirs(to_torchvision((image, mask))))
    # In a pipeline, as the recipe uses it (after a resize, before a random crop).
    pipeline = jv_v2.Compose([jv_v2.Resize(20), ours, jv_v2.CenterCrop(size)])
    reference = tv_v2.Compose([tv_v2.Resize(20), theirs, tv_v2.CenterCrop(size)])
    assert_matches_oracle(pipeline({"image": image, "mask": mask}),
                          reference(to_torchvision({"image": image, "mask": mask})), float_atol=1.0)


def test_pad_if_smaller_on_a_pil_image_with_a_mask():
    image = PIL.Image.fromarray(make_image(21, 30).permute(1, 2, 0).numpy())
    mask = tv_tensors.Mask(torch.randint(0, 21, (21, 30), dtype=torch.uint8))
    ours = make_pad_if_smaller(jv_v2, tv_tensors)(32, fill={tv_tensors.Mask: 255, "others": 0})((image, mask))
    theirs = make_pad_if_smaller(tv_v2, tv_tv_tensors)(32, fill={tv_tv_tensors.Mask: 255, "others": 0})(
        (image, to_torchvision(mask)))
    assert ours[0].size == theirs[0].size and list(ours[0].getdata()) == list(theirs[0].getdata())
    assert_matches_oracle(ours[1], theirs[1])


def test_pad_if_smaller_with_a_sequence_fill_for_a_mask_is_refused_by_both():
    image, mask = _segmentation_sample(10, 10, 0)
    with pytest.raises(ValueError):
        make_pad_if_smaller(tv_v2, tv_tv_tensors)(16, fill=(1, 2, 3))(to_torchvision((image, mask)))
    with pytest.raises(ValueError, match="pad"):
        make_pad_if_smaller(jv_v2, tv_tensors)(16, fill=(1, 2, 3))((image, mask))


# ---- the helpers one by one, against torchvision's -------------------------------------------------------------


@pytest.mark.parametrize("fill", [None, 0, 1.5, (1, 2, 3), [0.5], {"others": (1, 2)}, {int: None, str: 3}])
def test_setup_and_convert_fill_arg_match_torchvision(fill):
    copy = dict(fill) if isinstance(fill, dict) else fill
    assert jv_v2._utils._setup_fill_arg(fill) == tv_v2._utils._setup_fill_arg(copy)
    if not isinstance(fill, dict):
        assert jv_v2._utils._convert_fill_arg(fill) == tv_v2._utils._convert_fill_arg(fill)


def test_setup_fill_arg_converts_a_dict_in_place_as_torchvision():
    fill = {"others": (1, 2)}
    assert jv_v2._utils._setup_fill_arg(fill) is fill
    assert fill == {"others": [1.0, 2.0]}


@pytest.mark.parametrize("fill", ["0", object(), {"others": "1"}])
def test_setup_fill_arg_refuses_what_torchvision_refuses(fill):
    with pytest.raises(TypeError):
        tv_v2._utils._setup_fill_arg(fill)
    with pytest.raises(TypeError):
        jv_v2._utils._setup_fill_arg(fill)


def test_get_fill_by_type_then_others_then_none():
    fills = jv_v2._utils._setup_fill_arg({tv_tensors.Mask: 255, "others": (1, 2, 3)})
    assert jv_v2._utils._get_fill(fills, tv_tensors.Mask) == 255
    assert jv_v2._utils._get_fill(fills, tv_tensors.Image) == [1.0, 2.0, 3.0]
    assert jv_v2._utils._get_fill(fills, tv_tv_tensors.Mask) == 255  # torchvision's class stands for the same kind
    assert jv_v2._utils._get_fill({tv_tensors.Image: 0}, tv_tensors.Mask) is None  # torchvision gives None too
    assert tv_v2._utils._get_fill({tv_tv_tensors.Image: 0}, tv_tv_tensors.Mask) is None


def _mixed_sample():
    image = tv_tensors.Image(make_image(12, 17))
    return [image, tv_tensors.Mask(torch.zeros(12, 17, dtype=torch.uint8)),
            tv_tensors.BoundingBoxes(torch.tensor([[1.0, 2.0, 5.0, 6.0]]), format="XYXY", canvas_size=(12, 17)),
            torch.tensor([3]), "a string"]


def test_sample_queries_match_torchvision():
    ours, theirs = _mixed_sample(), to_torchvision(_mixed_sample())
    assert jv_v2._utils.check_type(ours[3], (jv_v2._utils.is_pure_tensor,))
    # torchvision's queries read every pure tensor as an image (1-d labels are a TypeError there): no labels here
    ours = [x for x in ours if not jv_v2._utils.is_pure_tensor(x)]
    theirs = [x for x in theirs if not tv_v2._utils.is_pure_tensor(x)]
    assert jv_v2._utils.query_chw(ours) == tv_v2._utils.query_chw(theirs) == (3, 12, 17)
    assert jv_v2._utils.query_size(ours) == tv_v2._utils.query_size(theirs) == (12, 17)
    assert jv_v2._utils.has_any(ours, tv_tensors.Mask) and tv_v2._utils.has_any(theirs, tv_tv_tensors.Mask)
    assert jv_v2._utils.has_all(ours, tv_tensors.Mask, tv_tensors.Image)
    assert not jv_v2._utils.has_any(ours, tv_tensors.Video) and not tv_v2._utils.has_any(theirs, tv_tv_tensors.Video)
    assert_matches_oracle(jv_v2._utils.get_bounding_boxes(ours), tv_v2._utils.get_bounding_boxes(theirs))
    with pytest.raises(TypeError):
        jv_v2._utils.query_chw(["no image"])
    with pytest.raises(ValueError):
        jv_v2._utils.get_bounding_boxes(ours[:2])


@pytest.mark.parametrize("size", [5, 3.7, [4], (4, 6), [1, 2, 3]])
def test_setup_size_matches_torchvision(size):
    def run(module):
        try:
            return tuple(module._setup_size(size, "bad size"))
        except ValueError as error:
            return str(error)

    assert run(jv_v2._utils) == run(tv_v2._utils)


@pytest.mark.parametrize("value", [10, 2.5, (-3, 4), [1, 2, 3], "x", -1])
def test_setup_angle_and_number_or_seq_match_torchvision(value):
    def run(call):
        try:
            return call()
        except (TypeError, ValueError) as error:
            return type(error)

    assert run(lambda: jv_v2._utils._setup_angle(value, "degrees")) == run(
        lambda: tv_v2._utils._setup_angle(value, "degrees"))
    assert run(lambda: jv_v2._utils._setup_number_or_seq(value, "sigma")) == run(
        lambda: tv_v2._utils._setup_number_or_seq(value, "sigma"))
    assert run(lambda: jv_v2._utils._check_sequence_input(value, "x", req_sizes=(2,))) == run(
        lambda: tv_v2._utils._check_sequence_input(value, "x", req_sizes=(2,)))


def test_functional_utils_names_exist():
    import torchvision.transforms.v2.functional._utils as tv_functional_utils

    import jitvision.transforms.functional._utils as jv_functional_utils

    for name in ["_FillType", "_FillTypeJIT", "is_pure_tensor", "_get_kernel", "_register_kernel_internal"]:
        assert hasattr(tv_functional_utils, name) and hasattr(jv_functional_utils, name), name
    assert jv_functional_utils._get_kernel(jv_v2.functional.pad, tv_tensors.Mask) is not None
    assert jv_v2.functional._utils.is_pure_tensor(torch.zeros(1))
