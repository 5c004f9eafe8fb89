"""Write the receipt (wire-01): the reference is the exchange's own receipt, each field is checked
on its own with a hint naming that field, and ``retrievedAt`` is judged fairly (RFC 3339, within the
exchange's window)."""

from __future__ import annotations

import base64
from datetime import datetime, timedelta

import pytest

from custody_lab.exercises import check, get, input_for, reset_progress, reveal
from custody_lab.teaching.exercise_sets import wire


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def _answer_frame() -> dict:
    return next(
        f
        for f in input_for("wire-01")
        if f["message"].get("result", {}).get("contents", [{}])[0].get("uri") == wire.watched().receipt["uri"]
    )


def test_the_reference_is_the_receipt_the_client_wrote_from_what_crossed_the_wire():
    reference = reveal("wire-01")
    item = _answer_frame()["message"]["result"]["contents"][0]
    by_hand = {
        "actor": "application",  # the notebook's own code asked; no model proposed it
        "uri": item["uri"],
        "mime": item["mimeType"],
        "provenance": item["_meta"]["org.custody-lab/provenance"],
        "bytes": len(base64.b64decode(item["blob"])),
        "sideEffects": False,
    }
    assert {k: reference[k] for k in by_hand} == by_hand, (by_hand, reference)
    assert by_hand["bytes"] < len(item["blob"]), "a blob's bytes are its decoded bytes, not its base64"
    first, last = input_for("wire-01")[0]["at"], input_for("wire-01")[-1]["at"]
    assert first <= reference["retrievedAt"] and last <= reference["retrievedAt"], (first, last, reference)


def test_the_ledger_reads_around_the_exchange_show_no_change():
    ledgers = [
        f["message"]["result"]["contents"][0]["text"]
        for f in input_for("wire-01")
        if f["direction"] == "server→client" and f["message"]["result"]["contents"][0]["uri"] == "state://lab/ledger"
    ]
    assert len(ledgers) == 2 and ledgers[0] == ledgers[1], ledgers


def test_the_examples_are_right_up_to_their_field_as_the_exchange_really_was():
    reference = reveal("wire-01")
    before_time = wire._right_before("retrievedAt")
    assert before_time == {k: reference[k] for k in before_time}, (before_time, reference)


@pytest.mark.parametrize("field", wire.FIELDS)
def test_a_missing_field_gets_a_hint_naming_that_field_and_not_its_value(field):
    answer = {k: v for k, v in reveal("wire-01").items() if k != field}
    result = check("wire-01", answer)
    assert not result.passed and result.hint, result
    assert f"`{field}`" in result.hint, f"missing {field}: the hint does not name it: {result.hint}"
    value = str(reveal("wire-01")[field])
    assert value not in result.hint, f"missing {field}: the hint gives its value away: {result.hint}"


@pytest.mark.parametrize(
    ("field", "wrong"),
    [
        ("actor", "server"),
        ("uri", "state://lab/ledger"),
        ("mime", "text/plain"),
        ("bytes", 140),
        ("sideEffects", True),
        ("retrievedAt", "2026-09-04T12:00:00.000Z"),
        ("provenance", "course"),
    ],
)
def test_each_wrong_field_is_named_on_its_own_while_the_others_are_right(field, wrong):
    answer = {**reveal("wire-01"), field: wrong}
    result = check("wire-01", answer)
    assert not result.passed and f"`{field}`" in (result.hint or ""), (field, result.hint)


def _shifted(seconds: float, *, offset_hours: int = 0, ms: bool = True) -> str:
    at = datetime.fromisoformat(reveal("wire-01")["retrievedAt"].replace("Z", "+00:00"))
    when = at + timedelta(seconds=seconds)
    if offset_hours:
        from datetime import timezone

        when = when.astimezone(timezone(timedelta(hours=offset_hours)))
    text = when.isoformat(timespec="milliseconds" if ms else "seconds")
    return text.replace("+00:00", "Z")


@pytest.mark.parametrize(
    ("retrieved_at", "passes"),
    [
        (None, True),  # the receipt's own time
        ("response-frame", True),  # the answer frame's time
        ("seconds-only", True),  # written to the whole second
        ("other-offset", True),  # the same instant at +02:00
        ("an-hour-later", False),
        ("no-offset", False),  # RFC 3339 needs an offset
    ],
)
def test_retrieved_at_is_any_rfc_3339_time_within_the_exchange(retrieved_at, passes):
    reference = reveal("wire-01")
    value = {
        None: reference["retrievedAt"],
        "response-frame": _answer_frame()["at"],
        "seconds-only": _shifted(0, ms=False).replace(".000", ""),
        "other-offset": _shifted(0, offset_hours=2),
        "an-hour-later": _shifted(3600),
        "no-offset": reference["retrievedAt"].rstrip("Z"),
    }[retrieved_at]
    result = check("wire-01", {**reference, "retrievedAt": value})
    assert result.passed is passes, (value, result)


def test_field_names_may_be_written_in_snake_case_and_the_uri_scheme_in_any_case():
    reference = reveal("wire-01")
    answer = {
        "actor": "Application",
        "URI": "ASSETS" + reference["uri"][len("assets") :],
        "mime": reference["mime"],
        "provenance": reference["provenance"],
        "bytes": reference["bytes"],
        "retrieved_at": reference["retrievedAt"],
        "side_effects": reference["sideEffects"],
    }
    assert check("wire-01", answer).passed, answer


def test_the_stub_is_a_receipt_of_blanks_and_is_not_answered():
    stub = get("wire-01").stub
    assert sorted(stub) == sorted(wire.FIELDS) and check("wire-01", stub).status == "not-answered"
