"""``custody-lab audit``: a user's server over stdio, exercised only where it is safe."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from custody_lab.cli import main  # noqa: E402
from custody_lab.live.audit import (  # noqa: E402
    AUDIT_FIELDS,
    AuditError,
    audit_client,
    audit_command,
    format_report,
)
from custody_lab.live.hostile import HostileServer  # noqa: E402
from custody_lab.live.server import LabServer  # noqa: E402

LAB = [sys.executable, "-m", "custody_lab.live.server"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def lab_report():
    return audit_command(LAB, timeout=10.0)


def test_audit_over_stdio_lists_every_capability_of_the_lab_server(lab_report):
    kinds = {(c.kind, c.name) for c in lab_report.capabilities}
    assert ("resource", "kb://handbook/v4") in kinds and ("template", "crm://customer/{id}") in kinds
    assert ("tool", "approve_draft") in kinds and len(kinds) == 9, kinds
    assert lab_report.server == {"name": "custody-lab-server", "version": "1.0.0"}


def test_audit_never_calls_a_tool_that_may_mutate(lab_report):
    approve = next(c for c in lab_report.capabilities if c.name == "approve_draft")
    assert not approve.exercised and "--allow-calls" in approve.why, approve


def test_audit_calls_read_only_tools_that_need_no_arguments(lab_report):
    ran = {c.name: c.outcome for c in lab_report.capabilities if c.kind == "tool" and c.exercised}
    assert ran == {"generate_report": "resource-link", "calculate_risk": "structured-tool-result"}, ran


def test_the_lab_server_has_no_custody_gaps_and_every_field_is_reported(lab_report):
    assert lab_report.gaps == [], lab_report.gaps
    for c in lab_report.capabilities:
        assert tuple(f.field for f in c.fields) == AUDIT_FIELDS, c.name
    text = format_report(lab_report)
    assert "0 custody gap(s)" in text and "kb://handbook/v4" in text


@pytest.mark.anyio
async def test_the_hostile_server_shows_its_gap_and_its_rejections():
    async with Client(HostileServer().mcp) as client:
        report = await audit_client(client, timeout=0.5)
    outcomes = {c.name: c.outcome for c in report.capabilities}
    assert outcomes["counter://visits"] == "resource-mislabeled-side-effect"
    assert outcomes["lookup_weather"] == "read-only-hint-violated"
    assert outcomes["hang_forever"] == "server-timeout"
    assert [(n, g.field) for n, g in report.gaps] == [("run_anything", "sideEffects")], report.gaps


@pytest.mark.anyio
async def test_allow_calls_lets_the_user_call_a_mutating_tool():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        report = await audit_client(client, allow_calls=('approve_draft={"draft_id": "9"}',), timeout=2.0)
    approve = next(c for c in report.capabilities if c.name == "approve_draft")
    assert approve.exercised and approve.why == "allowed by --allow-calls", approve
    assert lab.state.calls["approve_draft"] == 1 and approve.outcome == "embedded-resource"


def test_the_hostile_server_runs_over_stdio_as_its_own_module():
    report = audit_command([sys.executable, "-m", "custody_lab.live.hostile"], timeout=1.0)
    outcomes = {c.name: c.outcome for c in report.capabilities}
    assert report.server["name"] == "hostile-lab-server", report.server
    assert outcomes["lookup_weather"] == "read-only-hint-violated", outcomes
    assert outcomes["hang_forever"] == "server-timeout", outcomes


def test_audit_of_a_command_that_does_not_exist_is_a_clear_error():
    with pytest.raises(AuditError, match="cannot start"):
        audit_command(["/nonexistent/server-binary"], timeout=2.0)


def test_the_audit_cli_needs_a_command_and_reports_over_stdio(capsys):
    assert main(["audit"]) == 2
    assert "--" in capsys.readouterr().err
    assert main(["audit", "--timeout", "10", "--", *LAB]) == 0
    assert "custody gap(s)" in capsys.readouterr().out
