"""The agent-context exercises (notebook 08): references agree with what the live assembly does."""

from __future__ import annotations

import json

import pytest

from custody_lab.core.paths import data_path
from custody_lab.exercises import check, input_for, reveal
from custody_lab.live import LabSession, run_sync
from custody_lab.live.agent_context import assemble_context
from custody_lab.live.hostile_server import HANDOVER_NOTE, HANDOVER_URI, HostileServer

from ...timing import scaled


def test_behind_the_tool_are_the_template_and_the_changing_status_only():
    got = sorted(reveal("agent-01"))
    expected = ["crm://customer/{id}", "status://service/current"]
    assert got == expected, f"reveal('agent-01'): expected {expected}, got {got}"


@pytest.mark.parametrize(
    "answer",
    [
        ["status://service/current", "crm://customer/{id}"],
        ("crm://customer/{id}", " status://service/current "),
        {"crm://customer/{id}", "status://service/current"},
    ],
    ids=["list-in-another-order", "tuple-with-spaces", "set"],
)
def test_any_order_and_any_collection_of_the_right_targets_passes(answer):
    result = check("agent-01", answer)
    assert result.passed, f"check('agent-01', {answer!r}): expected a pass, got {result.status}: {result.message}"


def test_the_listing_the_learner_sees_marks_the_status_as_changing():
    rows = {row.get("uri") or row.get("uriTemplate"): row for row in input_for("agent-01")}
    status = rows["status://service/current"]
    assert status["_meta"].get("org.custody-lab/changes") is True, status
    assert not rows["kb://handbook/v4"]["_meta"].get("org.custody-lab/changes"), rows["kb://handbook/v4"]


def test_the_first_line_that_leaves_the_fence_is_the_spaced_mixed_case_closing_tag():
    expected = HANDOVER_NOTE.split("\n").index("</Context >") + 1
    assert reveal("agent-02") == expected, f"expected line {expected}, got {reveal('agent-02')}"
    assert f"{expected:>2} | </Context >" in input_for("agent-02"), "the numbered note does not match the line numbers"


def test_the_bytes_that_entered_the_prompt_are_those_of_the_live_transform_step():
    async def assemble():
        async with LabSession(HostileServer(), timeout=scaled(2.0)) as s:
            return await assemble_context(s, budget_bytes=100_000, exclude=("state://lab/ledger", "counter://visits"))

    ctx = run_sync(assemble)
    note = next(b for b in ctx.blocks if b.uri == HANDOVER_URI)
    step = note.transforms[-1]
    got = (step["step"], step["bytes"], note.kept_bytes)
    expected = ("fence-neutralised", reveal("agent-03"), reveal("agent-03"))
    assert got == expected, f"expected {expected}, got {got}"
    arrived = len(HANDOVER_NOTE.encode("utf-8"))
    assert arrived == 766 and reveal("agent-03") != arrived, f"notebook 08 says 766 bytes arrive; got {arrived}"


def test_notebook_08_checks_every_agent_exercise_and_shows_their_progress():
    nb = json.loads(data_path().parent.joinpath("notebooks", "08-assemble-agent-context.ipynb").read_text("utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for exercise_id in ("agent-01", "agent-02", "agent-03"):
        assert f'check("{exercise_id}"' in code, f"notebook 08 does not check {exercise_id}"
    assert 'ProgressPanel(("agent",))' in code, "notebook 08 has no check-yourself cell for the agent exercises"
