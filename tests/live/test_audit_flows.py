"""``custody-lab audit`` on a server whose context flows back (MCP 2026-07-28): reported, never answered for you."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from mcp import Client

from custody_lab.live.audit import AuditError, audit_client, audit_command
from custody_lab.live.audit_flows import AnswerError, parse_answers
from custody_lab.live.audit_report import format_report
from custody_lab.live.elicitation import ElicitationDesk
from custody_lab.live.lab_server import LabServer
from custody_lab.live.lab_tasks import TaskPoller

from ..timing import scaled

CALLS = ('delete_note={"note_id": "7"}', 'delete_note={"note_id": "8"}', "link_calendar", "export_notes")
DANA_7 = '{"action": "accept", "by": "Dana Ruiz", "content": {"confirm": true}, "arguments": {"note_id": "7"}}'


def audit(answers=()):
    async def go():
        lab = LabServer(flows=True)
        desk, tasks = ElicitationDesk(list(parse_answers(answers))), TaskPoller()
        async with Client(lab.mcp, elicitation_callback=desk, extensions=[tasks]) as client:
            report = await audit_client(client, allow_calls=CALLS, timeout=scaled(5), desk=desk, tasks=tasks)
        return lab, report

    return anyio.run(go)


def outcomes(report):
    return [(c.name, c.outcome) for c in report.capabilities if c.kind == "tool" and c.exercised]


def test_without_a_consent_the_audit_declines_every_request_and_nothing_is_deleted():
    lab, report = audit()
    assert lab.state.deleted_notes == set(), lab.state.deleted_notes
    got = dict(outcomes(report)) | {}
    assert [o for n, o in outcomes(report) if n == "delete_note"] == ["consent-not-given"] * 2, outcomes(report)
    assert got["link_calendar"] == "secret-asked-in-form" and got["export_notes"] == "structured-tool-result", got
    asked = [line for line in report.flows if line.startswith("ASKED:")]
    assert len(asked) == 3 and all("→ sent decline" in line for line in asked), asked
    assert any("Delete note 7?" in line and "no person answered" in line for line in asked), asked


def test_a_consent_that_names_the_request_is_the_only_answer_sent():
    lab, report = audit([f"delete_note={DANA_7}"])
    assert lab.state.deleted_notes == {"7"}, lab.state.deleted_notes
    assert [o for n, o in outcomes(report) if n == "delete_note"] == ["structured-tool-result", "consent-not-given"]
    text = format_report(report)
    assert "→ sent accept: answered by a person (Dana Ruiz)" in text, text
    assert "'link_calendar' asked the user (form 'Paste your calendar API key to link it.' fields api_key)" in text


def test_the_report_names_the_declared_extensions_and_the_task():
    _, report = audit()
    declares = [line for line in report.flows if line.startswith("DECLARES:")]
    assert declares and "io.modelcontextprotocol/tasks" in declares[0] and "io.modelcontextprotocol/ui" in declares[0]
    (task,) = [line for line in report.flows if line.startswith("TASK:")]
    assert "'export_notes'" in task and "working, completed" in task and "produced at 20" in task, task
    assert list(report.to_dict()["flows"]) == list(report.flows)


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ("delete_note", "TARGET=JSON"),
        ("delete_note={not json", "not JSON"),
        ('delete_note={"action": "accept"}', "approver"),
        ('delete_note={"action": "maybe", "by": "Dana Ruiz"}', "accept, decline or cancel"),
        ('delete_note={"action": "accept", "by": "the agent"}', "machine"),
        ('delete_note={"action": "accept", "by": "Dana Ruiz", "content": [1]}', "JSON objects"),
    ],
)
def test_a_malformed_answer_is_refused_before_anything_starts_naming_the_flag(item, why):
    with pytest.raises(AnswerError, match=why) as info:
        parse_answers([item])
    assert "--answer #1" in str(info.value)
    with pytest.raises(AuditError, match="--answer"):
        audit_command(["true"], answers=[item])


@pytest.mark.slow
def test_the_cli_audits_serve_flows_over_stdio_and_answers_only_what_it_was_given(tmp_path):
    log = tmp_path / "receipts.jsonl"
    argv = [sys.executable, "-m", "custody_lab.cli", "audit", "--json", "--timeout", str(scaled(10))]
    argv += ["--allow-calls", 'delete_note={"note_id": "7"}', "--answer", f"delete_note={DANA_7}"]
    argv += ["--", sys.executable, "-m", "custody_lab.cli", "serve", "--flows", "--log", str(log)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=scaled(120), check=False)
    report = json.loads(done.stdout)
    assert any("sent accept" in line for line in report["flows"]), report["flows"]
    rows = {c["name"]: c["outcome"] for c in report["capabilities"] if c["kind"] == "tool" and c["exercised"]}
    assert rows == {"delete_note": "structured-tool-result"}, rows
