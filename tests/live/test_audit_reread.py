"""The audit reads every listed resource twice and lists them twice, and follows resource links
(bounded): a read that changed state, an index that lost a URI and a link nobody serves are named.

The servers are ``tests/fixtures/raw_mcp_server.py`` modes (stdlib JSON-RPC, not the SDK):
``destructive-read`` (reading ``note://latest`` deletes the last note) and ``dangling-links`` (a
tool returns 18 resource links, 17 of them to URIs the server does not serve). Each audit runs
in-process on a server that starts in well under a second.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from custody_lab.live import audit_reread
from custody_lab.live.audit import audit_command
from custody_lab.live.audit_report import EXIT_GAPS, format_report
from custody_lab.live.limits import MAX_LINKS_FOLLOWED
from custody_lab.teaching.capstone.audit_json import audit_from_json

from ..timing import scaled

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "raw_mcp_server.py"


def _audit(mode: str, **options):
    command = [sys.executable, str(FIXTURE), "--mode", mode]
    return audit_command(command, timeout=scaled(10.0), connect_timeout=scaled(60.0), **options)


@pytest.fixture(scope="module")
def destructive():
    return _audit("destructive-read")


def test_a_listed_read_that_deletes_a_note_is_named_with_what_changed_and_that_only_reads_ran(destructive):
    changes = destructive.changes
    assert destructive.reread["calledBetween"] == [] and not destructive.reread["stopped"], destructive.reread
    index = [c for c in changes if c.startswith("resource 'note://index'")]
    assert len(index) == 1 and "the two reads returned different contents" in index[0], changes
    assert index[0].endswith("between the two, the audit only read and listed (it called no tool)"), index
    assert any(
        c.startswith("resource 'note://2': the first read returned contents, the second failed") for c in changes
    )
    gone = [c for c in changes if c.startswith("resources/list:")]
    assert gone and "the index lost 'note://2', 'note://3'" in gone[0], changes  # 3 on the first pass, 2 on the second
    assert destructive.reread["indexGone"] == ["note://2", "note://3"], destructive.reread
    by_name = {c.name: c for c in destructive.capabilities if c.kind == "resource"}
    assert by_name["note://index"].details["reread"]["changed"] is True, by_name["note://index"].details
    assert by_name["note://1"].details["reread"]["changed"] is False, by_name["note://1"].details


def test_the_report_text_and_json_carry_each_change_and_strict_exits_1(destructive):
    text = format_report(destructive)
    assert text.count("READ CHANGED: ") == len(destructive.changes) >= 3, text
    again, problems = audit_from_json(destructive.to_dict())
    assert problems == [] and again is not None and again.changes == destructive.changes, problems
    assert destructive.exit_code(strict=True) == EXIT_GAPS and destructive.exit_code() == 0


def test_a_server_whose_reads_change_nothing_has_no_change_and_every_resource_read_twice():
    report = _audit("ok")
    assert report.changes == [] and report.reread["reread"] == 1, report.reread
    assert report.reread["indexGone"] == [] and report.reread["indexAdded"] == [], report.reread


def test_links_are_followed_up_to_the_bound_and_each_records_whether_the_server_resolved_it():
    report = _audit("dangling-links", allow_calls=["export"], follow_links=True)
    (export,) = [c for c in report.capabilities if c.kind == "tool" and c.name == "export"]
    followed = [b["followed"] for b in export.details["blocks"]]
    assert len(followed) == 18 and MAX_LINKS_FOLLOWED == 16, followed
    assert followed[0]["resolved"] is True and followed[0]["error"] is None, followed[0]
    assert all(f["resolved"] is False and "Unknown resource" in f["error"] for f in followed[1:16]), followed
    assert all(f == {"notFollowed": "over the bound of 16 links followed per result"} for f in followed[16:])
    links = [c for c in report.capabilities if c.kind == "link"]
    assert len(links) == 16 and all(c.details["from"] == "export" for c in links), links
    assert links[0].why == (
        "second read of a link from 'export' (the link declared no size; size and digest from this read)"
    ), links[0].why
    assert "LINK NOT RESOLVED: the server could not serve it" in format_report(report)
    assert report.reread["calledBetween"] == ["export"], report.reread  # a change would name the call


def test_the_second_look_has_the_documented_keys(destructive):
    keys = {"changes", "calledBetween", "indexGone", "indexAdded", "reread", "stopped"}
    assert set(destructive.reread) == keys, destructive.reread
    assert all(f'"{k}"' in audit_reread.__doc__ for k in keys), audit_reread.__doc__
