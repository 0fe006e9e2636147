"""The audit CLI, run in-process on a few ops of jitvision, torchvision and a user class."""

import dataclasses
import json
import sys
import types

import pytest
import torch

from jitvision import audit, tv_tensors
from jitvision.__main__ import main as cli_main
from jitvision._audit.report import markdown
from jitvision._audit.targets import resolve_target


class Double(torch.nn.Module):
    """A user's own transform: deterministic, one graph, scriptable, exportable."""

    def __init__(self, factor: float = 2.0) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.factor


class CoinFlip(torch.nn.Module):
    """A user's random transform drawn the usual eager way: a Python bool from a tensor."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.rand(()) < 0.5:
            return x.flip(-1)
        return x


def _rows(result, op, kind=None):
    return [row for row in result["rows"] if row["op"] == op and (kind is None or row["kind"] == kind)]


def _cell(result, op, kind, check):
    (row,) = _rows(result, op, kind)
    return row["cells"][check]


@pytest.fixture(scope="module")
def jitvision_result():
    return audit.run_audit("jitvision", ops=["RandomHorizontalFlip", "horizontal_flip"], kinds=["float", "Image"])


def test_jitvision_random_flip_compiles_to_one_graph_and_stays_random(jitvision_result):
    for kind in ("float", "Image"):
        compiled = _cell(jitvision_result, "RandomHorizontalFlip", kind, "compile")
        assert compiled["status"] == "pass" and compiled["info"]["graphs"] == 1, compiled
        repeated = _cell(jitvision_result, "RandomHorizontalFlip", kind, "recompiles")
        assert repeated["status"] == "pass", repeated
        assert repeated["info"]["recompiles"] == 0 and repeated["info"]["random_live"] is True
    row = _rows(jitvision_result, "RandomHorizontalFlip", "float")[0]
    assert row["random"] is True
    assert row["cells"]["script"]["status"] == "pass"
    assert row["cells"]["export"]["status"] == "pass"
    # Random ops are not exported with dynamic H/W; tv_tensors are not scripted.
    assert row["cells"]["export_dynamic"]["status"] == "n/a"
    assert _cell(jitvision_result, "RandomHorizontalFlip", "Image", "script")["status"] == "n/a"


def test_jitvision_flip_functional_passes_every_mode(jitvision_result):
    rows = _rows(jitvision_result, "horizontal_flip")
    assert {row["kind"] for row in rows} == {"float", "Image"}
    assert "hflip" in rows[0]["aliases"]
    for row in rows:
        assert row["random"] is False
        failing = {name: cell for name, cell in row["cells"].items() if cell["status"] not in ("pass", "n/a")}
        assert not failing, failing
    summary = jitvision_result["summary"]["modes"]
    assert summary["compile"] == {"passed": 4, "failed": 0, "na": 0, "total": 4}


def test_torchvision_random_flip_breaks_the_graph_with_a_reason():
    result = audit.run_audit("torchvision", ops=["RandomHorizontalFlip"], kinds=["float"], modes=["compile", "script"])
    assert result["versions"]["torchvision"]
    compiled = _cell(result, "RandomHorizontalFlip", "float", "compile")
    assert compiled["status"] == "fail"
    assert compiled["reason"] and "\n" not in compiled["reason"]
    assert "_transform.py" in compiled["reason"]  # it points at the line that breaks the graph
    assert compiled["info"]["graphs"] is None or compiled["info"]["graphs"] != 1
    assert _cell(result, "RandomHorizontalFlip", "float", "recompiles")["status"] == "skip"
    # torchvision scripts its v1 class instead of the v2 class itself.
    scripted = _cell(result, "RandomHorizontalFlip", "float", "script")
    assert scripted["status"] == "fail" and "another class" in scripted["reason"]
    assert result["summary"]["modes"]["compile"] == {"passed": 0, "failed": 1, "na": 0, "total": 1}


def test_user_class_target(tmp_path):
    result = audit.run_audit("tests.test_audit:Double", kinds=["float", "Image"], init={"factor": 3.0})
    assert [row["op"] for row in result["rows"]] == ["Double", "Double"]
    for row in result["rows"]:
        assert all(cell["status"] in ("pass", "n/a") for cell in row["cells"].values()), row
    # Image is a tv_tensor, which TorchScript does not take: n/a, neither passed nor failed.
    assert result["summary"]["modes"]["script"] == {"passed": 1, "failed": 0, "na": 1, "total": 1}


def test_user_random_class_reports_its_graph_break():
    result = audit.run_audit("tests.test_audit:CoinFlip", kinds=["float"], modes=["compile"])
    (row,) = result["rows"]
    assert row["random"] is True
    assert row["cells"]["compile"]["status"] == "fail"
    assert "test_audit.py" in row["cells"]["compile"]["reason"]


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    json_path, md_path = tmp_path / "audit.json", tmp_path / "audit.md"
    args = ["audit", "--target", "tests.test_audit:Double", "--kinds", "float", "--modes", "eager,compile"]
    assert cli_main([*args, "--json", str(json_path), "--markdown", str(md_path), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "cases per mode: eager 1 passed / 0 failed / 0 n/a, compile 1 passed / 0 failed / 0 n/a" in printed
    result = json.loads(json_path.read_text())
    assert result["rows"][0]["cells"]["compile"]["status"] == "pass"
    markdown = md_path.read_text()
    assert "| op | api | kind | eager | compile |" in markdown
    assert "cases per mode" in markdown
    assert "| target | eager | compile |" in markdown
    assert "| tests.test_audit:Double | 1 passed / 0 failed / 0 n/a | 1 passed / 0 failed / 0 n/a |" in markdown


def test_ops_without_a_case_are_listed_not_dropped(monkeypatch):
    functional = types.ModuleType("fake_v2.functional")

    def horizontal_flip(inpt):
        return inpt.flip(-1)

    def horizontal_flip_image(image):
        return image.flip(-1)

    def made_up_op(inpt, threshold):
        return inpt

    functional.horizontal_flip = functional.hflip = horizontal_flip
    functional.horizontal_flip_image = horizontal_flip_image
    functional.made_up_op = made_up_op
    module = types.ModuleType("fake_v2")
    module.functional = functional
    module.RandomHorizontalFlip = type("RandomHorizontalFlip", (torch.nn.Module,), {})
    module.MadeUpTransform = type("MadeUpTransform", (torch.nn.Module,), {})
    monkeypatch.setitem(sys.modules, "fake_v2", module)

    target = resolve_target("fake_v2")
    assert [(e.api, e.name, e.aliases) for e in target.entries] == [
        ("functional", "horizontal_flip", ["hflip"]),
        ("class", "RandomHorizontalFlip", []),
    ]
    assert {(s["api"], s["name"], s["reason"]) for s in target.skipped} == {
        ("functional", "made_up_op", "no audit case"),
        ("class", "MadeUpTransform", "no audit case"),
    }


def test_python_only_ops_are_not_applicable_and_box_helpers_run_on_both_libraries():
    result = audit.run_audit("jitvision", ops=["ToPILImage", "clamp_bounding_boxes"], kinds=["uint8", "boxes"])
    for check in ("compile", "script", "export"):
        cell = _cell(result, "ToPILImage", "uint8", check)
        assert cell["status"] == "n/a" and "PIL image" in cell["reason"]
    # A plain box tensor gets the format as the target's own enum: the scripted functional takes it.
    assert _cell(result, "clamp_bounding_boxes", "boxes", "script")["status"] == "pass"
    assert _cell(result, "clamp_bounding_boxes", "boxes", "compile")["status"] == "pass"
    theirs = audit.run_audit("torchvision", ops=["convert_bounding_box_format"], modes=["eager"], kinds=["boxes"])
    assert _cell(theirs, "convert_bounding_box_format", "boxes", "eager")["status"] == "pass"


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="unknown modes"):
        audit.run_audit("jitvision", ops=["horizontal_flip"], modes=["jit"])
    with pytest.raises(ValueError, match="unknown input kinds"):
        audit.run_audit("jitvision", ops=["horizontal_flip"], kinds=["png"])


def test_mixup_and_cutmix_are_audited_on_labelled_batches():
    result = audit.run_audit(
        "jitvision", ops=["MixUp", "CutMix"], kinds=["labelled-tensor", "labelled-batch"], modes=["eager", "script"]
    )
    for op in ("MixUp", "CutMix"):
        assert _cell(result, op, "labelled-tensor", "eager")["status"] == "pass"
        assert _cell(result, op, "labelled-tensor", "script")["status"] == "pass"  # called with (images, labels)
        assert _cell(result, op, "labelled-batch", "script")["status"] == "n/a"
        assert _rows(result, op, "labelled-batch")[0]["random"] is True
    theirs = audit.run_audit("torchvision", ops=["MixUp"], kinds=["labelled-tensor"], modes=["eager", "script"])
    assert _cell(theirs, "MixUp", "labelled-tensor", "eager")["status"] == "pass"
    assert _cell(theirs, "MixUp", "labelled-tensor", "script")["status"] == "fail"


# ---- cases that torchvision itself refuses --------------------------------------------------------------------


class RandomErasing(torch.nn.Module):
    """A user's class under torchvision's name, so the audit judges its failures against torchvision's
    RandomErasing: it takes that class's arguments and refuses every input, boxes with a ValueError, the rest
    with a TypeError."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        error = ValueError if isinstance(x, tv_tensors.BoundingBoxes) else TypeError
        raise error("RandomErasing: refuses every input")


def test_cells_torchvision_refuses_are_not_applicable_with_its_reason():
    ops = ["RandomGrayscale", "RandomErasing", "RandomPhotometricDistort", "RandomChannelPermutation"]
    kinds = ["Mask", "BoundingBoxes", "RotatedBoxes", "KeyPoints"]
    result = audit.run_audit("jitvision", ops=ops, kinds=kinds, modes=["eager", "compile", "script", "export"])
    assert len(result["rows"]) == len(ops) * len(kinds)
    for row in result["rows"]:
        eager = row["cells"]["eager"]
        assert eager["status"] == "n/a", (row["op"], row["kind"], eager)
        assert eager["reason"].startswith("torchvision ") and "raises the same TypeError" in eager["reason"], eager
        assert all(cell["status"] == "n/a" for cell in row["cells"].values()), row
    for counts in result["summary"]["modes"].values():
        assert counts == {"passed": 0, "failed": 0, "na": len(ops) * len(kinds), "total": 0}
    text = markdown(result)
    assert "Cases that do not apply" in text and "RandomGrayscale (class) [Mask, BoundingBoxes" in text
    assert "| jitvision | 0 passed / 0 failed / 16 n/a |" in text


def test_a_listed_refusal_that_torchvision_does_not_share_stays_a_failure(monkeypatch):
    from jitvision._audit import cases

    case = cases.CLASS_CASES["RandomErasing"]
    assert case.torchvision_refuses["Mask"] is TypeError
    # torchvision's RandomErasing refuses a Mask, boxes and keypoints with a TypeError and transforms an Image.
    listed = {"Mask": TypeError, "Image": TypeError, "KeyPoints": ValueError, "BoundingBoxes": ValueError}
    monkeypatch.setitem(cases.CLASS_CASES, "RandomErasing", dataclasses.replace(case, torchvision_refuses=listed))
    kinds = ["Mask", "Image", "KeyPoints", "BoundingBoxes", "Video"]
    result = audit.run_audit("tests.test_audit:RandomErasing", kinds=kinds, modes=["eager", "compile"])
    mask = _cell(result, "RandomErasing", "Mask", "eager")
    assert mask["status"] == "n/a" and "raises the same TypeError" in mask["reason"], mask
    assert _cell(result, "RandomErasing", "Mask", "compile")["status"] == "n/a"
    image = _cell(result, "RandomErasing", "Image", "eager")
    assert image["status"] == "fail" and "does not refuse this input" in image["reason"], image
    assert _cell(result, "RandomErasing", "Image", "compile")["status"] == "skip"
    keypoints = _cell(result, "RandomErasing", "KeyPoints", "eager")  # ours is a TypeError, listed a ValueError
    assert keypoints["status"] == "fail" and "as a ValueError" in keypoints["reason"], keypoints
    boxes = _cell(result, "RandomErasing", "BoundingBoxes", "eager")  # ours and the list: ValueError; theirs not
    assert boxes["status"] == "fail" and "raises TypeError" in boxes["reason"], boxes
    video = _cell(result, "RandomErasing", "Video", "eager")  # not listed: an ordinary failure
    assert video["status"] == "fail" and video["reason"] == "TypeError: RandomErasing: refuses every input"
    assert result["summary"]["modes"]["eager"] == {"passed": 0, "failed": 4, "na": 1, "total": 4}


def test_refusals_by_design_are_not_applicable_only_when_the_message_matches(monkeypatch):
    # Our documented refusals (cases.ByDesign): RandomResize on a plain batch (eager), RandomApply on a ragged
    # detection batch (compile/export), Lambda (script). The same errors with a case that expects another message
    # stay failures: the marking is by mode, kind and message, never by kind alone.
    from jitvision._audit import cases

    result = audit.run_audit(
        "jitvision", ops=["RandomResize", "RandomApply", "Lambda"], kinds=["batch-tensor", "detection-batch", "uint8"],
        modes=["eager", "compile", "script", "export"],
    )
    resize = _cell(result, "RandomResize", "batch-tensor", "eager")
    assert resize["status"] == "n/a" and resize["reason"].startswith("refused by design: a drawn output size"), resize
    for check in ("compile", "export"):
        ragged = _cell(result, "RandomApply", "detection-batch", check)
        assert ragged["status"] == "n/a" and "ragged detection batch" in ragged["reason"], ragged
    assert _cell(result, "RandomApply", "detection-batch", "eager")["status"] == "pass"
    assert _cell(result, "Lambda", "uint8", "script")["reason"] == "refused by design: a Lambda runs a Python function"
    assert _cell(result, "Lambda", "uint8", "compile")["status"] == "pass"

    for name in ("RandomResize", "Lambda"):
        case = cases.CLASS_CASES[name]
        wrong = tuple(dataclasses.replace(refusal, says="a message nobody writes") for refusal in case.by_design)
        monkeypatch.setitem(cases.CLASS_CASES, name, dataclasses.replace(case, by_design=wrong))
    result = audit.run_audit(
        "jitvision", ops=["RandomResize", "Lambda"], kinds=["batch-tensor", "uint8"], modes=["eager", "script"]
    )
    assert _cell(result, "RandomResize", "batch-tensor", "eager")["status"] == "fail"
    assert _cell(result, "Lambda", "uint8", "script")["status"] == "fail"
