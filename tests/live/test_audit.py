"""``custody-lab audit``: a user's server over stdio, exercised only where it is safe."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from custody_lab.cli import main  # noqa: E402
from custody_lab.live.audit import (  # noqa: E402
    AuditError,
    audit_client,
    audit_command,
)
from custody_lab.live.audit_report import AUDIT_FIELDS, format_report  # noqa: E402
from custody_lab.live.hostile_server import HostileServer  # noqa: E402
from custody_lab.live.lab_server import LabServer  # noqa: E402

LAB = [sys.executable, "-m", "custody_lab.live.lab_server"]

from ..timing import scaled  # noqa: E402


@pytest.fixture(scope="module")
def lab_report():
    return audit_command(LAB, timeout=scaled(10.0))


def test_audit_over_stdio_lists_every_capability_of_the_lab_server(lab_report):
    kinds = {(c.kind, c.name) for c in lab_report.capabilities}
    assert ("resource", "kb://handbook/v4") in kinds and ("template", "crm://customer/{id}") in kinds
    assert ("tool", "approve_draft") in kinds and len(kinds) == 9, kinds
    assert lab_report.server == {"name": "custody-lab-server", "version": "1.0.0"}


def test_audit_never_calls_a_tool_that_may_mutate(lab_report):
    approve = next(c for c in lab_report.capabilities if c.name == "approve_draft")
    assert not approve.exercised and "--allow-calls" in approve.why, approve


def test_audit_calls_no_tool_without_allow_calls_even_one_annotated_read_only(lab_report):
    ran = {c.name: c.outcome for c in lab_report.capabilities if c.kind == "tool" and c.exercised}
    assert ran == {}, f"expected no tool called without --allow-calls; called {ran}"
    report_tool = next(c for c in lab_report.capabilities if c.name == "generate_report")
    assert report_tool.why.startswith("not called (name it with --allow-calls)"), report_tool.why
    assert "readOnlyHint: true" in report_tool.why, report_tool.why


def test_the_audit_records_each_uncalled_tools_declared_side_effects_and_the_text_says_them(lab_report):
    declared = {c.name: c.details["declared"] for c in lab_report.capabilities if c.kind == "tool"}
    source = "_meta org.custody-lab/sideEffects"
    assert declared["approve_draft"] == {"sideEffects": True, "source": source}, declared
    assert declared["generate_report"] == {"sideEffects": False, "source": source}, declared
    text = format_report(lab_report)
    assert f"declares sideEffects true ({source})" in text, text


def test_allow_calls_calls_a_read_only_tool_and_records_its_outcome():
    report = audit_command(LAB, allow_calls=("generate_report", "calculate_risk"), timeout=scaled(10.0))
    ran = {c.name: c.outcome for c in report.capabilities if c.kind == "tool" and c.exercised}
    assert ran == {"generate_report": "resource-link", "calculate_risk": "structured-tool-result"}, ran


def test_the_lab_server_has_no_custody_gaps_and_every_field_is_reported(lab_report):
    assert lab_report.gaps == [], lab_report.gaps
    assert lab_report.incomplete == () and lab_report.exit_code(strict=True) == 0, lab_report.incomplete
    for c in lab_report.capabilities:
        assert tuple(f.field for f in c.fields) == AUDIT_FIELDS, c.name
    text = format_report(lab_report)
    assert "0 custody gap(s)" in text and "kb://handbook/v4" in text


@pytest.mark.anyio
async def test_the_hostile_server_shows_its_gap_and_its_rejections():
    async with Client(HostileServer().mcp) as client:
        report = await audit_client(client, allow_calls=("lookup_weather", "hang_forever"), timeout=scaled(0.5))
    outcomes = {c.name: c.outcome for c in report.capabilities}
    assert outcomes["counter://visits"] == "resource-mislabeled-side-effect"
    assert outcomes["lookup_weather"] == "read-only-hint-violated"
    assert outcomes["hang_forever"] == "server-timeout"
    assert [(n, g.field) for n, g in report.gaps] == [("run_anything", "sideEffects")], report.gaps
    assert len(report.incomplete) == 1 and "hang_forever" in report.incomplete[0], report.incomplete
    assert report.exit_code() == 2, "a timed-out exchange leaves the audit incomplete: exit 2"


@pytest.mark.anyio
async def test_allow_calls_lets_the_user_call_a_mutating_tool():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        report = await audit_client(client, allow_calls=('approve_draft={"draft_id": "9"}',), timeout=scaled(2.0))
    approve = next(c for c in report.capabilities if c.name == "approve_draft")
    assert approve.exercised and approve.why == "allowed by --allow-calls", approve
    assert lab.state.calls["approve_draft"] == 1 and approve.outcome == "embedded-resource"


@pytest.mark.slow  # a fresh interpreter per side, over stdio
def test_the_hostile_server_runs_over_stdio_as_its_own_module():
    # 3 s: the server's own start (importing mcp) must fit in the handshake bound on a busy
    # machine; hang_forever then costs those 3 s before it is recorded as a timeout.
    report = audit_command(
        [sys.executable, "-m", "custody_lab.live.hostile_server"],
        allow_calls=("lookup_weather", "hang_forever"),
        timeout=scaled(3.0),
    )
    outcomes = {c.name: c.outcome for c in report.capabilities}
    assert report.server["name"] == "hostile-lab-server", report.server
    assert outcomes["lookup_weather"] == "read-only-hint-violated", outcomes
    assert outcomes["hang_forever"] == "server-timeout", outcomes


def test_audit_of_a_command_that_does_not_exist_is_a_clear_error():
    with pytest.raises(AuditError, match="cannot start '/nonexistent/server-binary'"):
        audit_command(["/nonexistent/server-binary"], timeout=scaled(2.0))


@pytest.mark.anyio
async def test_allow_calls_naming_a_tool_the_server_does_not_list_is_an_error_listing_its_tools():
    async with Client(LabServer().mcp) as client:
        with pytest.raises(AuditError) as caught:
            await audit_client(client, allow_calls=("aprove_draft",), timeout=scaled(2.0))
    message = str(caught.value)
    assert "'aprove_draft'" in message and "'approve_draft'" in message, message
    assert "its tools are:" in message, message


def test_the_audit_cli_needs_a_command_and_reports_over_stdio(capsys):
    assert main(["audit"]) == 2
    assert "--" in capsys.readouterr().err
    assert main(["audit", "--timeout", "10", "--", *LAB]) == 0
    assert "custody gap(s)" in capsys.readouterr().out
