"""The host lens panel: each control changes one input and every profile's column follows."""

from __future__ import annotations

from custody_lab.widgets import HostLens


def _broken(panel, pid):
    return next(r.broken for r in panel.readings if r.profile.id == pid)


def _bytes(panel):
    return {r.profile.id: r.model_bytes for r in panel.readings}


def test_the_links_permission_changes_who_launders_and_what_the_custodian_shows():
    panel = HostLens("link", 500)
    assert "link-laundered" not in _broken(panel, "eager-fetcher")
    panel.readable.value = False
    assert "link-laundered" in _broken(panel, "eager-fetcher")
    assert '"notRead":"permission-denied"' in next(r.model_text for r in panel.readings if r.profile.id == "custodian")
    assert "permission-denied" in panel.output.value


def test_shape_size_and_annotation_each_move_every_column():
    panel = HostLens("embed", 3000)
    assert _bytes(panel)["custodian"] == 3000
    panel.size.value = 5000  # over the 4,096-byte content budget
    assert _bytes(panel)["custodian"] < 200 and _bytes(panel)["eager-fetcher"] == 4096
    assert "cut-not-recorded" in _broken(panel, "eager-fetcher")
    panel.shape.value = "text"
    panel.user_only.value = True
    assert _bytes(panel)["custodian"] == 0 and _bytes(panel)["plain-reader"] == 5000
    assert _broken(panel, "plain-reader") == ("user-block-to-model",)
    assert panel.output.value.count("custody-host-column ") == 4
