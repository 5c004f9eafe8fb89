"""Which server capability stands for which inventory row, and re-deriving the live lines."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.teaching.capstone.against_audit import audit_findings, counterpart, rederive_live

from .archives import BY_ID, good_lines, good_report


@pytest.mark.parametrize(
    ("cid", "name"),
    [
        ("notes-index", "notes://index"),  # a listed resource, by its URI
        ("note", "notes://{id}"),  # notes://7 matches the template (RFC 6570, the lab's matcher)
        ("word-count", "word_count"),  # a tool, by its name: '-' read as '_'
        ("export-notes", "export_notes"),
        ("delete-note", "delete_note"),
        ("audit-log", None),  # the given server does not offer the log
    ],
)
def test_each_inventory_row_is_paired_with_the_servers_capability_of_its_name(cid, name):
    cap = counterpart(BY_ID[cid], good_report())
    assert (cap.name if cap else None) == name, f"{cid}: expected {name}, got {cap}"


def test_a_tool_is_not_paired_with_a_resource_of_the_same_uri():
    """export-notes names notes://all, which the template serves (its link is followed there): the
    tool's row is paired with the tool, the same URI read by the application with the template."""
    export = BY_ID["export-notes"]
    as_read = cl.Case.from_dict({**export.to_dict(), "initiator": "application", "shape": "listed-resource"})
    assert counterpart(as_read, good_report()).name == "notes://{id}"
    assert counterpart(export, good_report()).kind == "tool"
    elsewhere = cl.Case.from_dict({**as_read.to_dict(), "uri": "export://notes/all.md"})
    assert counterpart(elsewhere, good_report()) is None


def test_the_live_lines_of_the_good_archive_are_what_the_audit_recorded():
    lines = [(n, x) for n, x in enumerate(good_lines(), start=1) if x["kind"] == "live"]
    assert rederive_live(lines, good_report()) == []
    missing = rederive_live(lines[1:], good_report())
    assert missing == ["the live audit recorded resource 'notes://index'; the archive has no line for it"], missing


def test_a_design_accepted_but_not_offered_by_the_server_is_a_finding():
    granted = cl.Case.from_dict({**BY_ID["audit-log"].to_dict(), "allowed": True})
    problems, matched = audit_findings([(granted, cl.route(granted))], good_report(), cl.Policy())
    assert any("'audit-log': the design accepts it, but the audited server offers nothing" in p for p in problems)
    assert matched == set(), matched
