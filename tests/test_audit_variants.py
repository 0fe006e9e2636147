"""The audit's variant rows: further cases of a class under their own label, run by ``--ops Class``."""

from jitvision import audit
from jitvision._audit.targets import resolve_target


def test_variants_run_with_their_class_and_pass():
    labels = {entry.name: entry.aliases for entry in resolve_target("jitvision").entries}
    assert labels["RandomRotation(expand)"] == ["RandomRotation"]
    assert labels["RandomOrder(shape-changing)"] == ["RandomOrder"]
    result = audit.run_audit(
        "jitvision", ops=["RandomRotation", "RandomOrder"], kinds=["uint8", "batch"], modes=["eager", "compile"]
    )
    rows = {(row["op"], row["kind"]): row for row in result["rows"]}
    for op in ("RandomRotation(expand)", "RandomOrder(shape-changing)"):
        assert rows[(op, "uint8")]["cells"]["compile"]["status"] == "pass", rows[(op, "uint8")]["cells"]
        assert rows[(op, "uint8")]["random"] is True
    # RandomRotation(expand) refuses a batch by design (each sample would get its own size); RandomOrder takes it.
    assert rows[("RandomRotation(expand)", "batch")]["cells"]["eager"]["status"] == "n/a"
    assert rows[("RandomOrder(shape-changing)", "batch")]["cells"]["compile"]["status"] == "pass"
