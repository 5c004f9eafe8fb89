"""Context that flows the other way, through the lab's own client (``LabServer(flows=True)``, MCP 2026-07-28).

Each test runs a real exchange in this process: the SDK's ``Client`` with the host's
``ElicitationDesk`` as its elicitation callback and the lab's ``TaskPoller`` as a client extension.
"""

from __future__ import annotations

import json

import anyio
import pytest

from custody_lab.live.elicitation import Answer
from custody_lab.live.lab_flows import NOTES
from custody_lab.live.lab_server import LabServer
from custody_lab.live.session import LabSession

DANA = {"person": "Dana Ruiz"}
DELETE_7 = {"note_id": "7"}


def run(answers, *steps, frames=False):
    """Open a session on a fresh flows server, run ``steps`` (session -> receipt) and return them."""

    async def go():
        lab = LabServer(flows=True)
        async with LabSession(lab, answers=answers, frames=frames) as s:
            out = [await step(s) for step in steps]
        return lab, s, out

    return anyio.run(go)


def test_a_read_that_first_asks_completes_on_the_retry_and_its_receipt_says_what_the_retry_carried():
    answer = Answer("notes://note/8", "accept", DANA, {"format": "markdown"})
    _, s, [r] = run([answer], lambda s: s.read("notes://note/8"), frames=True)
    assert r.accepted and r.content.startswith("# Note 8"), (r.outcome, r.content)
    block = r.receipt["inputRequired"]
    assert block["retryCarried"]["inputResponses"] == {
        "note_format": {"action": "accept", "content": {"format": "markdown"}}
    }, block
    assert block["firstResult"]["cacheable"] is False and block["finalResult"]["cached"] is False, block
    assert (block["finalResult"]["ttlMs"], block["finalResult"]["cacheScope"]) == (0, "private"), block
    assert block["answeredBy"] == DANA, block
    reads = [f.message for f in r.frames if f.message.get("method") == "resources/read"]
    answers = [f.message.get("result") for f in r.frames if "result" in f.message]
    first = next(a for a in answers if a.get("resultType") == "input_required")
    assert "ttlMs" not in first and "cacheScope" not in first, f"an input_required result carries no hints: {first}"
    ids = [m["id"] for m in reads if m["params"].get("uri") == "notes://note/8"]
    retry = [m for m in reads if m["params"].get("uri") == "notes://note/8"][-1]["params"]
    assert len(ids) == 2 and ids[0] != ids[1], f"the retry is a new request with a new id: {ids}"
    assert retry["requestState"] == first["requestState"], "the retry echoes requestState unchanged"
    assert retry["inputResponses"]["note_format"]["action"] == "accept", retry


def test_the_sdk_client_caches_neither_the_question_nor_the_answer_reached_by_the_retry():
    answer = Answer("notes://note/8", "accept", DANA, {"format": "plain"})
    _, s, [r1, r2] = run([answer], lambda s: s.read("notes://note/8"), lambda s: s.read("notes://note/8"))
    assert not r1.receipt["cache"]["fromCache"] and not r2.receipt["cache"]["fromCache"], (r1.receipt["cache"],)
    assert len(r2.receipt["inputRequired"]["requests"]) == 1, "the second read was asked again, not served cached"


def test_an_accepted_delete_runs_and_the_receipt_names_the_person_who_answered():
    answer = Answer("delete_note", "accept", DANA, {"confirm": True}, DELETE_7)
    lab, _, [r] = run([answer], lambda s: s.call("delete_note", DELETE_7))
    assert r.accepted and lab.state.deleted_notes == {"7"}, (r.outcome, lab.state.deleted_notes)
    assert r.receipt["inputRequired"]["answeredBy"] == DANA
    assert r.receipt["exchange"]["elicitation"] == "accept" and r.receipt["exchange"]["observedSideEffects"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_delete_is_not_executed_and_is_refused_as_no_consent(action):
    answer = Answer("delete_note", action, DANA, None, DELETE_7)
    lab, _, [r] = run([answer], lambda s: s.call("delete_note", DELETE_7))
    assert r.rejection == "consent-not-given", r.outcome
    assert lab.state.deleted_notes == set() and r.receipt["exchange"]["observedSideEffects"] is False


def test_an_answer_for_note_7_does_not_answer_the_question_about_note_8():
    answer = Answer("delete_note", "accept", DANA, {"confirm": True}, DELETE_7)
    lab, s, [r] = run([answer], lambda s: s.call("delete_note", {"note_id": "8"}))
    assert r.rejection == "consent-not-given" and lab.state.deleted_notes == set(), r.outcome
    entry = s.desk.log[-1]
    assert entry["answeredBy"] is None and entry["sent"] == {"action": "decline"}, entry


def test_the_host_never_answers_for_the_user_when_nobody_answered():
    lab, s, [r] = run([], lambda s: s.call("delete_note", DELETE_7))
    assert r.rejection == "consent-not-given" and NOTES["7"] and not lab.state.deleted_notes
    assert "no person answered" in s.desk.log[-1]["why"], s.desk.log[-1]


def test_a_form_that_asks_for_an_api_key_is_declined_unshown_even_when_a_person_would_accept():
    answer = Answer("link_calendar", "accept", DANA, {"api_key": "sk-123"})
    _, s, [r] = run([answer], lambda s: s.call("link_calendar", {}))
    assert r.rejection == "secret-asked-in-form", r.outcome
    entry = s.desk.log[-1]
    assert entry["sent"] == {"action": "decline"} and "api key" in entry["secret"], entry
    assert "sk-123" not in json.dumps(r.receipt), "the secret a person might give never left the host"


def test_a_long_export_is_a_task_whose_freshness_is_when_it_was_produced():
    _, s, [r] = run([], lambda s: s.call("export_notes", {}))
    task = r.receipt["task"]
    assert r.accepted and task["polls"] == ["working", "completed"], (r.outcome, task)
    produced = json.loads(r.content)["producedAt"]
    assert task["producedAt"] == produced and task["createdAt"] <= produced <= task["fetchedAt"], task


def test_icons_and_the_ui_page_are_presentation_with_no_authority():
    _, _, [tool, page] = run([], lambda s: s.call("show_notes", {}), lambda s: s.read("ui://notes/panel.html"))
    shown = tool.receipt["serverPresentation"]
    assert shown["ui"] == "ui://notes/panel.html" and shown["icons"][0].startswith("data:image/svg+xml"), shown
    assert shown["authority"].startswith("none"), shown
    assert (
        page.receipt["custody"]["mime"] == "text/html;profile=mcp-app" and "page" in page.receipt["serverPresentation"]
    ), page.receipt.get("serverPresentation")
    assert "Approve" in page.content, "the page draws an approve button; it approves nothing"


def test_the_default_lab_server_offers_none_of_these():
    async def go():
        async with LabSession(LabServer()) as s:
            return set(s.recorder.tools), [t.uri_template for t in s.recorder.templates]

    tools, templates = anyio.run(go)
    assert not tools & {"delete_note", "export_notes", "link_calendar", "show_notes"}, tools
    assert templates == ["crm://customer/{id}"], templates


def test_a_client_that_declared_no_elicitation_is_never_asked_and_nothing_is_deleted():
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async def go():
        lab = LabServer(flows=True)
        async with Client(lab.mcp) as plain:  # no elicitation callback: the capability is not declared
            with pytest.raises(MCPError) as info:
                await plain.call_tool("delete_note", DELETE_7)
        return lab, info.value

    lab, error = anyio.run(go)
    assert error.code == -32021 and "elicitation" in str(error.error.data), (error.code, error.error.data)
    assert lab.state.deleted_notes == set()


def test_a_2025_11_25_session_is_told_the_question_needs_2026_07_28():
    async def go():
        async with LabSession(LabServer(flows=True), mode="legacy") as s:
            return await s.call("delete_note", DELETE_7)

    r = anyio.run(go)
    assert r.rejection == "server-error" and "2026-07-28" in r.receipt["error"], (r.outcome, r.receipt.get("error"))


def test_the_host_shows_which_server_asks():
    _, s, [r] = run([], lambda s: s.call("delete_note", DELETE_7))
    assert s.desk.log[-1]["server"] == "custody-lab-server", s.desk.log[-1]
    assert r.receipt["inputRequired"]["requests"][0]["server"] == "custody-lab-server", r.receipt["inputRequired"]


@pytest.mark.parametrize(("action", "recorded"), [("accept", True), ("decline", False), ("cancel", False)])
def test_only_an_accept_a_person_gave_on_the_wire_enters_the_consent_log(action, recorded):
    from custody_lab.live.presentation import ConsentLog, present

    content = {"confirm": True} if action == "accept" else None
    _, _, [r] = run([Answer("delete_note", action, DANA, content, DELETE_7)], lambda s: s.call("delete_note", DELETE_7))
    log = ConsentLog()
    consent = log.record_answer(r)
    assert (consent is not None) == recorded, (action, consent)
    label = present(r, connection="here", consents=log).labels["approved by"]
    assert label.startswith("Dana Ruiz") == recorded, label
    if recorded:
        assert (consent.tool, dict(consent.arguments), dict(consent.approved_by)) == ("delete_note", DELETE_7, DANA)
