"""The host's side of elicitation: which forms ask for a secret, what is shown, who may answer."""

from __future__ import annotations

import pytest

from custody_lab.live.approvers import ApproverError
from custody_lab.live.elicitation import Answer, ElicitationDesk, asks_for_secret, shown_request


def form(message: str, **properties: dict) -> dict:
    return {"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": properties}}


@pytest.mark.parametrize(
    ("params", "secret"),
    [
        (form("Link your calendar", api_key={"type": "string"}), True),
        (form("Link your calendar", key={"type": "string", "title": "API key"}), True),
        (form("Sign in", pw={"type": "string", "description": "Your password"}), True),
        (form("Pay", card_number={"type": "string"}), True),
        (form("Paste your access token here", value={"type": "string"}), True),
        (form("Delete note 7?", confirm={"type": "boolean"}), False),
        (form("Which format?", format={"type": "string", "enum": ["markdown", "plain"]}), False),
        (form("Your tokenizer of choice?", name={"type": "string"}), False),  # a word, not a token
        ({"mode": "url", "message": "Enter your API key there", "url": "https://x.example/key"}, False),
        ({"message": "Password?", "requestedSchema": {"type": "object", "properties": {}}}, True),  # no mode: form
    ],
)
def test_a_form_asks_for_a_secret_when_its_fields_or_message_name_one(params, secret):
    found = asks_for_secret(params)
    assert (found is not None) == secret, f"{params}: expected secret={secret}, got {found!r}"


def test_what_the_host_shows_is_made_visible():
    shown = shown_request(form("Delete\x1b[2J note 7?", confirm={"type": "boolean"}))
    assert "\x1b" not in shown["message"] and shown["fields"] == ["confirm"], shown


@pytest.mark.parametrize("by", ["Claude", {"person": "the agent"}, {"hostPolicy": "auto-approve"}])
def test_only_a_named_person_or_a_host_policy_can_answer(by):
    with pytest.raises(ApproverError):
        Answer("delete_note", "accept", by, {"confirm": True})


def test_the_latest_answer_for_exactly_that_request_wins():
    yes = Answer("delete_note", "accept", {"person": "Dana Ruiz"}, {"confirm": True}, {"note_id": "7"})
    no = Answer("delete_note", "decline", {"person": "Dana Ruiz"}, None, {"note_id": "7"})
    desk = ElicitationDesk([yes, no])
    assert desk.answer_for("delete_note", {"note_id": "7"}) is no
    assert desk.answer_for("delete_note", {"note_id": "8"}) is None
    assert desk.answer_for("delete_notes", {"note_id": "7"}) is None
