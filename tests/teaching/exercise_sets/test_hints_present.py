"""Hints are claims, approval is the host's record: the hint and present exercises, notebooks 07 and 08.

The two-way gate over every registered exercise is in ``tests/teaching/test_exercises.py``; the host
policy and the presentation themselves are tested in ``tests/live/test_hint_policy.py`` and
``tests/live/test_presentation.py``. This file checks what the notebooks claim: the audit calls no
tool on a hint, a consented call that breaks its ``readOnlyHint`` is ``read-only-hint-violated``, a
revoked re-read is never sent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from custody_lab.exercises import all_exercises, reset_progress
from custody_lab.live import Gate, LabSession
from custody_lab.live.audit import audit_client
from custody_lab.live.hint_policy import HOST_ACTIONS
from custody_lab.live.hostile_server import HostileServer
from custody_lab.teaching.exercise_sets import hints
from custody_lab.teaching.exercise_sets import present as present_set

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference

ROOT = Path(__file__).resolve().parents[3]

from ...timing import scaled  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


# --------------------------------------------------------------------------------------------
# the audit and the hint (notebook 07)
# --------------------------------------------------------------------------------------------


def test_the_audit_calls_none_of_the_hostile_tools_although_four_claim_read_only():
    seen = hints.hostile_audit()
    assert len(seen.tools) == 5 and len(seen.claims_read_only) == 4, seen
    assert seen.called == () and seen.server_calls == 0, f"expected no call, got {seen.called}, {seen.server_calls}"


@pytest.mark.anyio
async def test_each_uncalled_tool_row_says_its_read_only_claim_decided_nothing():
    async with Client(HostileServer().mcp) as client:
        report = await audit_client(client, timeout=scaled(2.0))
    rows = {c.name: c.why for c in report.capabilities if c.kind == "tool"}
    claimed = [n for n, why in rows.items() if "claims readOnlyHint: true, a hint that decides nothing" in why]
    assert sorted(claimed) == ["export_everything", "hang_forever", "lookup_weather", "summarize_account"], rows


@pytest.mark.anyio
async def test_a_consented_call_that_breaks_its_read_only_hint_is_recorded_and_moves_the_ledger():
    hostile = HostileServer()
    async with Client(hostile.mcp) as client:
        report = await audit_client(client, allow_calls=('lookup_weather={"city": "Lisbon"}',), timeout=scaled(2.0))
    weather = next(c for c in report.capabilities if c.name == "lookup_weather")
    assert (weather.exercised, weather.outcome) == (True, "read-only-hint-violated"), weather
    assert hostile.state.ledger()["weatherLookups"] == 1, hostile.state.ledger()
    assert sum(hostile.state.calls.values()) == 1, f"only the named tool runs; got {hostile.state.calls}"


@pytest.mark.anyio
async def test_the_receipt_records_tool_and_resource_annotations_as_hints_and_the_claim_as_made():
    async with LabSession(HostileServer(), timeout=scaled(1.0)) as s:
        weather = await s.call("lookup_weather", {"city": "Lisbon"})
    hints_seen = weather.receipt["hints"]
    sources = {k: hints_seen["sources"][k] for k in ("toolAnnotations", "annotations")}
    assert sources == {"toolAnnotations": "hint", "annotations": "hint"}, sources
    assert hints_seen["toolAnnotations"] == {"readOnlyHint": True}, hints_seen["toolAnnotations"]
    assert weather.receipt["sideEffectsEvidence"] == {
        "declared": False,  # the lab's _meta declaration, which the ledger contradicts
        "observed": True,
        "source": "_meta org.custody-lab/sideEffects",
        "readOnlyHint": True,  # the claim as made: shown, never decisive
    }, weather.receipt["sideEffectsEvidence"]


@pytest.mark.anyio
async def test_a_re_read_after_revocation_is_refused_by_the_gate_and_never_sent():
    async with LabSession() as s:
        async with s.watch("status://service/current") as watch:
            await s.read("status://service/current", operation="read-subscribed")
            served = s.server.state.reads["status://service/current"]
            s.recorder.gate = Gate(deny=("status://",))
            await s.server.advance_status()
            revoked = await s.reread_on_notice(watch, timeout=scaled(3))
        after = s.server.state.reads["status://service/current"]
    facts = (revoked.outcome, revoked.receipt["custody"]["permissionChecked"], revoked.receipt["performed"])
    assert facts == ("permission-denied", True, False), f"expected (permission-denied, True, False), got {facts}"
    assert after == served, f"the server served the status {after - served} more time(s) after the revocation"


# --------------------------------------------------------------------------------------------
# the exercises
# --------------------------------------------------------------------------------------------

REFERENCES = {
    "hint-01": ["order-by-priority", "show-last-modified", "gated-read"],
    "hint-02": "calls-named-only",
    "present-01": "consent-log",
    "present-02": "nobody",
}


def test_the_hint_and_present_sets_register_their_exercises_in_order():
    ids = [e.id for e in all_exercises("hint")] + [e.id for e in all_exercises("present")]
    assert ids == list(REFERENCES), ids


@pytest.mark.parametrize("exercise_id", list(REFERENCES))
def test_each_reference_answer_is_the_one_worked_out_by_hand(exercise_id):
    assert_reference(exercise_id, REFERENCES[exercise_id])


def test_hint_01_accepts_the_codes_in_any_order_and_case_of_whitespace():
    assert_passes("hint-01", [" gated-read", "show-last-modified", "order-by-priority "])
    assert_passes("hint-01", ("gated-read", "order-by-priority", "show-last-modified"))


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        (["call-read-only"], "trusted-read-only-hint"),
        (["gated-read", "call-read-only", "include-for-assistant"], "trusted-read-only-hint"),
        (["call-not-destructive"], "trusted-destructive-hint"),
        (["repeat-idempotent", "gated-read"], "trusted-idempotent-hint"),
        (["include-for-assistant"], "trusted-the-audience"),
        (["fresh-by-last-modified", "gated-read"], "trusted-last-modified"),
        (["order-by-priority", "gated-read"], "too-cautious"),
        (["show-last-modified"], "too-cautious"),
        (["priority"], "not-an-action-code"),
    ],
)
def test_hint_01_mistakes_are_recognised_beyond_their_own_example(answer, mistake):
    assert_mistake("hint-01", answer, mistake)


def test_each_present_exercise_has_exactly_one_option_matching_what_the_host_showed():
    for sources, seen in (
        (present_set.DRAFT_SOURCES, present_set.approved_draft()),
        (present_set.WEATHER_SOURCES, present_set.unconsented_weather()),
    ):
        holding = [s.code for s in sources if s.holds(seen)]
        assert len(holding) == 1, f"{seen}: expected one matching option, got {holding}"
    assert present_set.approved_draft().server_says == "supervisor (fixture)"
    assert present_set.unconsented_weather().outcome == "read-only-hint-violated"


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake"),
    [
        ("present-01", " SERVER-RESULT", "believed-the-result"),
        ("present-01", "proposer", "proposer-approved"),
        ("present-01", "Dana Ruiz", "not-an-option"),
        ("present-02", "Tool-Title", "read-the-title"),
        ("present-02", " gate ", "gate-is-consent"),
        ("hint-02", "CALLS-READ-ONLY", "trusted-the-read-only-claims"),
        ("hint-02", "calls-all", "calls-to-find-out"),
    ],
)
def test_present_and_audit_mistakes_are_recognised_in_any_letter_case(exercise_id, answer, mistake):
    assert_mistake(exercise_id, answer, mistake)


# --------------------------------------------------------------------------------------------
# the notebooks
# --------------------------------------------------------------------------------------------


def _cells(name: str) -> list[dict]:
    return json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]


def _position(cells: list[dict], needle: str) -> int:
    found = [i for i, c in enumerate(cells) if needle in "".join(c["source"])]
    assert found, f"no cell contains {needle!r}"
    return found[0]


@pytest.mark.parametrize(
    ("notebook", "exercise_id", "reveal_cell"),
    [
        ("07-talk-to-a-live-server.ipynb", "hint-02", "audit_client(client, timeout=2.0)"),
        ("07-talk-to-a-live-server.ipynb", "hint-01", "ProgressPanel("),
        ("08-assemble-agent-context.ipynb", "present-01", "shown = present(draft"),
        ("08-assemble-agent-context.ipynb", "present-02", "The weather call says"),
    ],
)
def test_each_exercise_is_checked_in_its_notebook_before_the_cell_that_shows_the_answer(
    notebook, exercise_id, reveal_cell
):
    cells = _cells(notebook)
    asks = re.compile(r'(check|PredictThenSee)\(\s*"' + re.escape(exercise_id) + '"')
    asked = [i for i, c in enumerate(cells) if asks.search("".join(c["source"]))]
    assert asked, f"{notebook} never asks {exercise_id}"
    checked, revealed = asked[0], _position(cells, reveal_cell)
    assert checked < revealed, f"{notebook}: {exercise_id} is checked in cell {checked}, revealed in {revealed}"


def test_the_notebooks_option_lists_are_the_exercises_own():
    text = {
        name: "".join("".join(c["source"]) for c in _cells(name))
        for name in ("07-talk-to-a-live-server.ipynb", "08-assemble-agent-context.ipynb")
    }
    for action in HOST_ACTIONS:
        assert f"- `{action.code}`: {action.text}" in text["07-talk-to-a-live-server.ipynb"], action.code
    for option in hints.AUDIT_OPTIONS:
        assert f"`{option.code}`: {option.text}".replace("\n", " ") in text["07-talk-to-a-live-server.ipynb"].replace(
            "\n  ", " "
        ), option.code
    for source in present_set.DRAFT_SOURCES + present_set.WEATHER_SOURCES:
        assert f"- `{source.code}`: {source.text}" in text["08-assemble-agent-context.ipynb"], source.code


def test_the_notebooks_link_the_glossary_terms_they_introduce_to_lines_that_exist():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    terms = {
        m.lower().replace(" ", "-")
        for m in re.findall(r"^- <a id=\"[^\"]+\"></a>\*\*([^*]+)\*\*:", glossary, flags=re.M)
    }
    for name in ("07-talk-to-a-live-server.ipynb", "08-assemble-agent-context.ipynb"):
        text = "".join("".join(c["source"]) for c in _cells(name))
        anchors = re.findall(r"\(\.\./docs/glossary\.md#([a-z0-9-]+)\)", text)
        assert anchors, f"{name} links no glossary term"
        assert set(anchors) <= terms, f"{name}: anchors {sorted(set(anchors) - terms)} name no glossary term"
        assert "(../docs/cheatsheet.md)" in text, f"{name} does not link the cheat sheet"
