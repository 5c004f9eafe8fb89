"""The live-server exercises of notebook 07 (live-01 … live-03): computed answers, hints, notebooks.

The two-way gate over every registered exercise lives in ``tests/teaching/test_exercises.py``; this file
checks that each reference comes from what the lab's client really did against the in-process
server, that a check works inside a running event loop (as in a Jupyter cell), and that each
mistake detector recognises a family of wrong answers, not only its own example.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from custody_lab.exercises import all_exercises, check, reset_progress, reveal
from custody_lab.teaching.exercise_sets import live

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def test_there_are_three_live_exercises_registered():
    ids = [e.id for e in all_exercises("live")]
    assert ids == ["live-01", "live-02", "live-03"], ids


# The reference answers, written out by hand: if the client or the server drifts, this says so.
REFERENCES = {
    "live-01": "re-read-gated",
    "live-02": ("link-follow-up-denied", False),
    "live-03": "stale-content",
}


@pytest.mark.parametrize("exercise_id", list(REFERENCES))
def test_each_reference_answer_is_the_one_worked_out_by_hand(exercise_id):
    assert_reference(exercise_id, REFERENCES[exercise_id])


def test_after_a_notice_the_client_reads_again_through_the_gate_and_the_notice_carries_only_the_uri():
    seen = live.notice_seen()
    assert seen.notices == (live.STATUS, live.STATUS), f"notices: expected the status URI twice, got {seen.notices}"
    facts = (seen.method, seen.trigger, seen.from_cache, seen.new_content)
    assert facts == ("resources/read", "notifications/resources/updated", False, True), facts
    assert seen.revoked_outcome == "permission-denied", (
        f"a caller who lost status:// after subscribing: expected permission-denied, got {seen.revoked_outcome}"
    )


def test_exactly_one_notice_option_describes_what_the_client_did_and_a_gate_skipping_client_would_move_it():
    seen = live.notice_seen()
    holding = [o.code for o in live.NOTICE_OPTIONS if o.holds(seen)]
    assert holding == ["re-read-gated"], holding
    skipping = replace(seen, revoked_outcome="listed-resource")
    moved = [o.code for o in live.NOTICE_OPTIONS if o.holds(skipping)]
    assert moved == ["re-read-ungated"], (
        f"a client that skips the gate on re-read: expected re-read-ungated, got {moved}"
    )


def test_a_denied_link_is_kept_in_the_receipt_and_the_server_never_served_the_report():
    seen = live.denied_link()
    assert seen.link_uri == "report://synthetic/weekly-7", seen
    assert (seen.fetched, seen.server_reads) == (False, 0), f"expected not fetched and 0 server reads, got {seen}"


def test_a_cached_answer_is_refused_as_stale_and_bypassing_the_cache_gets_the_new_revision():
    seen = live.cached_read()
    assert seen.from_cache is True, seen
    assert seen.ttl_ms == 60_000, f"notebook 07 says the server sends a ttlMs of one minute; got {seen.ttl_ms!r}"
    assert (seen.outcome, seen.bypass_outcome) == ("stale-content", "listed-resource"), seen


def test_checking_a_live_answer_inside_a_running_event_loop_works_as_in_a_notebook_cell():
    for observe in (live.notice_seen, live.denied_link, live.cached_read):
        observe.cache_clear()  # force the references to run the server again, inside the loop

    async def cell() -> list[bool]:
        return [check(i, answer).passed for i, answer in REFERENCES.items()]

    passed = asyncio.run(cell())
    assert passed == [True, True, True], f"checks inside a running loop: {dict(zip(REFERENCES, passed))}"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("live-01", " RE-READ-GATED "),
        ("live-02", ["link-follow-up-denied", False]),
        ("live-02", (" Link-Follow-Up-Denied", False)),
        ("live-03", "Stale-Content\n"),
    ],
)
def test_case_lists_and_surrounding_whitespace_do_not_matter(exercise_id, answer):
    assert_passes(exercise_id, answer)


# (exercise, wrong answer, mistake). The answers are NOT the mistakes' own examples.
HINTS = [
    ("live-01", "NOTICE-AS-CONTENT", "took-the-notice-for-content"),
    ("live-01", "keep-cached ", "trusted-the-cache"),
    ("live-01", " Re-Read-Ungated", "checked-once-per-subscription"),
    ("live-01", "re-read-gated or re-read-ungated", "more-than-one-option"),
    ("live-01", ["re-read-gated", "keep-cached"], "more-than-one-option"),
    ("live-01", "read it again", "not-an-option"),
    ("live-02", ("permission-denied", True), "blamed-the-tool-call"),
    ("live-02", ["link-follow-up-failed", True], "follow-up-was-made"),
    ("live-02", ("structured-tool-result", True), "kept-link-means-accepted"),
    ("live-02", ("accepted", False), "kept-link-means-accepted"),
    ("live-02", ["embed-over-budget", True], "counted-the-declared-size"),
    ("live-02", [" link-follow-up-denied ", True], "fetched-it-anyway"),
    ("live-02", (True, "link-follow-up-denied"), "swapped-the-parts"),
    ("live-02", "link-follow-up-denied", "only-one-part"),
    ("live-03", "resource-link", "trusted-a-fresh-ttl"),
    ("live-03", "resource-not-found", "expected-a-wire-failure"),
    ("live-03", " Permission-Denied ", "expected-a-gate-refusal"),
    ("live-03", "EMBED-OVER-BUDGET", "applied-the-inline-budget"),
]


@pytest.mark.parametrize(("exercise_id", "answer", "mistake"), HINTS, ids=[f"{i}:{m}:{a}" for i, a, m in HINTS])
def test_a_family_of_wrong_answers_gets_the_mistakes_hint(exercise_id, answer, mistake):
    assert_mistake(exercise_id, answer, mistake)


def test_every_live_01_option_is_listed_in_its_prompt_and_no_hint_names_the_right_one():
    exercise = all_exercises("live-01")[0]
    for option in live.NOTICE_OPTIONS:
        assert f"`{option.code}`" in exercise.prompt, f"option {option.code} missing from the prompt"
    for mistake in exercise.mistakes:
        assert reveal("live-01") not in mistake.hint, f"{mistake.name}'s hint names the right option"


def _notebook(name: str) -> tuple[list[str], str]:
    notebook = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    prose = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    return code, prose


def test_notebook_07_checks_every_live_exercise_and_ends_with_their_progress():
    code, _ = _notebook("07-talk-to-a-live-server.ipynb")
    for exercise_id in REFERENCES:
        assert any(f'"{exercise_id}"' in cell for cell in code), f"notebook 07 never checks {exercise_id}"
    assert 'ProgressPanel(("live", "wire"))' in code[-1], f"the last code cell of 07 is {code[-1]!r}"


def test_notebook_07_says_servers_must_send_both_caching_hints_under_2026_07_28():
    _, prose = _notebook("07-talk-to-a-live-server.ipynb")
    assert "MUST" in prose and "`ttlMs`" in prose and "`cacheScope`" in prose and "2026-07-28" in prose, prose[:200]
    assert "a server may say how long" not in prose, "the erratum: ttlMs is not optional under 2026-07-28"


def test_notebook_07_lists_the_same_live_01_options_as_the_exercise():
    _, prose = _notebook("07-talk-to-a-live-server.ipynb")
    missing = [o.code for o in live.NOTICE_OPTIONS if f"`{o.code}`" not in prose]
    assert not missing, f"notebook 07 does not list the live-01 options {missing}"
