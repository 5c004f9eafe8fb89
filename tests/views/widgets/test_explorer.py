"""The case explorer, driven the way a learner drives it: change a control, read the panel."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import custody_lab as cl
from custody_lab.core.rules import outcome_look, rule
from custody_lab.views.widgets import render
from custody_lab.widgets import CaseExplorer

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert('owned')</script>",
    "✅ approved policy — <b>trusted</b> & signed",
]


@pytest.fixture(scope="module")
def explorer():
    return CaseExplorer("approve-draft")


@pytest.fixture()
def fresh(explorer):
    explorer.load("approve-draft")
    explorer.controls["embedLimitBytes"].value = 4096
    return explorer


def test_controls_cover_every_case_input_and_the_embed_limit(explorer):
    assert set(explorer.controls) == {
        "initiator",
        "operation",
        "shape",
        "bytes",
        "current",
        "requiresCurrent",
        "allowed",
        "sideEffects",
        "uri",
        "mime",
        "provenance",
        "embedLimitBytes",
    }
    assert explorer.decision.selected == "embedded-resource"


def test_moving_bytes_past_the_limit_updates_outcome_trace_diff_receipt_and_chart_together(fresh):
    before_png = fresh.chart.value
    fresh.controls["bytes"].value = 9000
    d = fresh.decision
    assert d.rejection == "embed-over-budget", d.to_dict()
    assert "✗ REJECTED" in fresh.outcome.value and "embed-over-budget" in fresh.outcome.value
    assert 'class="trace-failed"' in fresh.trace.value and "embed-over-budget" in fresh.trace.value
    assert "bytes 760 → 9000 flipped accepted → embed-over-budget" in fresh.diff.value
    assert "&quot;bytes&quot;: 9000" in fresh.receipt.value and cl.digest(d.to_dict()) in fresh.receipt.value
    assert fresh.chart.value[:8] == b"\x89PNG\r\n\x1a\n" and fresh.chart.value != before_png


def test_each_control_changes_the_decision_the_way_the_rules_say(fresh):
    cases = [
        ({"allowed": False}, "permission-denied"),
        ({"current": False}, "embedded-resource"),
        ({"current": False, "requiresCurrent": True}, "stale-content"),
        ({"initiator": "application"}, "resource-mislabeled-side-effect"),
        ({"sideEffects": "unknown"}, "side-effects-unknown"),
        ({"uri": ""}, "custody-incomplete"),
        ({"shape": "listed-resource"}, "control-shape-mismatch"),
        ({"embedLimitBytes": 512}, "embed-over-budget"),
        ({"shape": "resource-link"}, "resource-link"),
    ]
    for changes, outcome in cases:
        fresh.reset()
        fresh.controls["embedLimitBytes"].value = 4096
        got = fresh.set(**changes).outcome
        assert got == outcome, f"changes {changes}: expected {outcome}, got {got}"


def test_the_diff_names_only_what_differs_from_the_baseline(fresh):
    fresh.set(allowed=False)
    assert "allowed true → false flipped accepted → permission-denied" in fresh.diff.value
    fresh.set(allowed=True)
    assert "no input differs from the baseline" in fresh.diff.value


def test_reset_returns_every_control_to_the_baseline(fresh):
    fresh.set(bytes=9000, initiator="application", uri="")
    fresh.reset()
    assert fresh.case == fresh.baseline and fresh.decision.selected == "embedded-resource"
    assert fresh.controls["bytes"].value == 760 and fresh.controls["uri"].value == "draft://fixture/9"


def test_the_preset_picker_loads_any_fixture_case_as_the_new_baseline(fresh):
    ids = [c.id for c in cl.load_fixture().all_cases]
    assert [value for _label, value in fresh.preset.options] == ids
    assert [label for label, _value in fresh.preset.options] == ids, "a plain id is its own label"
    fresh.preset.value = "oversize-embed"
    assert fresh.baseline.id == "oversize-embed" and fresh.decision.rejection == "embed-over-budget"
    assert fresh.controls["bytes"].value == 9000


def test_a_bad_pasted_case_is_shown_plainly_and_keeps_the_last_good_state(fresh):
    good = fresh.decision
    fresh.load_json('{"id": "x", "initiator": "model", "bytes": "1800"}')
    assert fresh.error and "'operation'" in fresh.error
    assert "⚠ Not applied" in fresh.message.value
    assert fresh.decision == good
    fresh.load_json("{not json")
    assert "not valid JSON at line 1" in fresh.error


@pytest.mark.parametrize("hostile", HOSTILE)
def test_text_from_a_case_reaches_the_html_only_escaped(fresh, hostile):
    case = {
        **cl.load_fixture().case("handbook").to_dict(),
        "id": hostile,
        "uri": hostile,
        "provenance": hostile,
        "title": hostile,
        "description": hostile,
    }
    fresh.load_json(json.dumps(case))
    assert fresh.error is None, fresh.error
    assert "UNTRUSTED DATA" in fresh.untrusted.value
    for widget in (fresh.outcome, fresh.trace, fresh.diff, fresh.receipt, fresh.untrusted, fresh.message):
        html = widget.value
        assert "<img" not in html and "<script" not in html and "<b>trusted" not in html, html
    import html as htmlmod

    assert htmlmod.escape(hostile) in fresh.untrusted.value
    assert fresh.decision.selected == "listed-resource"  # the words never change the decision


def test_render_functions_escape_without_a_widget():
    case = cl.load_fixture().case("handbook").with_changes(title="<script>x</script>")
    html = render.untrusted_html(case)
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>" not in html
    assert "<" not in render.error_html("<img src=x>").split("Not applied:</b> ")[1].split("<br>")[0]


def test_a_live_trace_renders_every_step_by_its_own_code_and_origin():
    hung = {"id": "t", "initiator": "model", "operation": "calculate", "shape": "structured-tool-result",
            "bytes": 0, "current": True, "allowed": True, "sideEffects": False}  # fmt: skip
    d = cl.route(hung, exchange={"timedOut": True})
    page = render.trace_html(d)
    shown = re.findall(r'<tr class="trace-([a-z-]+)".*?<code>(.*?)</code>.*?<small>(seed|lab)</small>', page)
    expected = [(s.status, s.code, "seed" if rule(s.code).seed else "lab") for s in d.trace]
    assert len(d.trace) > len(cl.RULES), "a live trace walks more rules than the case table"
    assert shown == expected, f"trace {expected}\nrendered {shown}"


@pytest.mark.parametrize("case_id", [c.id for c in cl.load_fixture().all_cases])
def test_the_outcome_wears_the_look_the_rule_table_gives_it(case_id):
    d = cl.route(cl.load_fixture().case(case_id))
    look = outcome_look(d.outcome)
    page = render.outcome_html(d)
    badge = f'style="background:{look.color};'
    assert badge in page and f">{look.label}</span>" in page, f"{case_id} ({d.outcome}): {look} not in {page}"


def test_an_unknown_preset_id_is_a_clear_error():
    with pytest.raises(cl.CaseError, match="no fixture case 'nope'"):
        CaseExplorer("nope", chart=False)


def test_a_negative_size_typed_in_the_box_is_refused_beside_it_and_keeps_the_last_good_state(fresh):
    good, slider = fresh.decision, fresh.controls["bytes"]
    fresh.bytes_box.value = "-5"
    assert fresh.error and "bytes" in fresh.error and "0 or more" in fresh.error, fresh.error
    assert "-5" in slider.note.value and "nothing was changed" in slider.note.value, slider.note.value
    assert fresh.decision == good and slider.value == fresh.case.bytes, (fresh.decision, slider.value)
    fresh.bytes_box.value = "9000"
    assert slider.note.value == "" and fresh.decision.rejection == "embed-over-budget", slider.note.value
    assert slider.value == 9000
    slider.value = 1200
    assert fresh.bytes_box.value == "1200"


def test_a_size_above_the_slider_range_typed_in_the_box_widens_the_slider(fresh):
    fresh.bytes_box.value = "50000"
    assert fresh.controls["bytes"].max >= 50000 and fresh.case.bytes == 50000


# What a person may type into a number box: each is used exactly, or refused with the reason and
# the case left as it was (issue 27 §1: an IntText turned 1e9 into 19 and 12.5 into 125).
TYPED = [
    ("1e9", None, "exponent"),
    ("12.5", None, "whole number"),
    ("25000", 25000, None),
    ("-5", None, "0 or more"),
    ("abc", None, "not a whole number"),
    ("1,800", None, "without separators"),
]


@pytest.mark.parametrize("control", ["bytes", "embedLimitBytes"])
@pytest.mark.parametrize(("typed", "used", "why"), TYPED)
def test_each_number_box_uses_exactly_the_number_typed_or_says_why_not(fresh, control, typed, used, why):
    slider = fresh.controls[control]
    before = (fresh.case.bytes, fresh.policy.embed_limit_bytes)
    slider.box.value = typed
    now = fresh.case.bytes if control == "bytes" else fresh.policy.embed_limit_bytes
    if used is None:
        assert (fresh.case.bytes, fresh.policy.embed_limit_bytes) == before, f"{control} {typed!r}: changed"
        assert why in slider.note.value and repr(typed) in slider.note.value.replace("&#x27;", "'"), slider.note.value
    else:
        assert (now, slider.value, slider.note.value) == (used, used, ""), f"{control} {typed!r}: {now}"


def test_a_changed_embed_limit_is_named_in_the_diff_line_with_the_outcome_it_flipped(fresh):
    fresh.load("oversize-embed")
    fresh.set(embedLimitBytes=10240)
    expected = "embed limit 4096 → 10240 flipped embed-over-budget → accepted"
    assert expected in fresh.diff.value, f"embed limit 4096 → 10240: expected {expected!r} in {fresh.diff.value!r}"
    assert "⇄ FLIPPED" in fresh.diff.value, fresh.diff.value
    fresh.set(bytes=12000)
    both = "bytes 9000 → 12000, embed limit 4096 → 10240 flipped embed-over-budget → embed-over-budget"
    assert "bytes 9000 → 12000, embed limit 4096 → 10240: outcome unchanged (embed-over-budget)" in fresh.diff.value, (
        f"bytes and limit changed, outcome the same: not {both!r}; got {fresh.diff.value!r}"
    )


def test_a_policy_change_alone_is_not_reported_as_no_input_differing(fresh):
    fresh.set(embedLimitBytes=512)
    assert "no input differs" not in fresh.diff.value, fresh.diff.value
    assert "embed limit 4096 → 512 flipped accepted → embed-over-budget" in fresh.diff.value, fresh.diff.value


def test_reset_to_baseline_restores_the_policy_as_well_as_the_case(fresh):
    fresh.load("oversize-embed")
    fresh.set(bytes=700, embedLimitBytes=10240)
    assert fresh.policy.embed_limit_bytes == 10240 and fresh.decision.accepted
    fresh.reset_button.click()
    got = (fresh.policy.embed_limit_bytes, fresh.controls["embedLimitBytes"].value, fresh.case.bytes)
    assert got == (4096, 4096, 9000), (
        f"after Reset: (policy limit, limit slider, bytes) expected (4096, 4096, 9000), got {got}"
    )
    assert fresh.decision.rejection == "embed-over-budget", fresh.decision.to_dict()
    assert "no input differs from the baseline" in fresh.diff.value, fresh.diff.value


def test_an_explorer_built_with_a_policy_resets_to_that_policy():
    explorer = CaseExplorer("oversize-embed", cl.Policy(embed_limit_bytes=10000), chart=False)
    assert explorer.decision.accepted, explorer.decision.to_dict()
    explorer.set(embedLimitBytes=4096)
    assert "embed limit 10000 → 4096 flipped accepted → embed-over-budget" in explorer.diff.value, explorer.diff.value
    explorer.reset()
    assert explorer.controls["embedLimitBytes"].value == 10000 and explorer.decision.accepted


@pytest.mark.parametrize(("typed", "outcome"), [(4096, "accepted"), (4097, "embed-over-budget"), (1234, "accepted")])
def test_a_size_typed_in_the_box_is_the_case_exactly_and_the_slider_shows_it(fresh, typed, outcome):
    fresh.bytes_box.value = str(typed)
    got = (
        fresh.case.bytes,
        fresh.controls["bytes"].value,
        fresh.bytes_box.value,
        fresh.decision.rejection or "accepted",
    )
    assert got == (typed, typed, str(typed), outcome), (
        f"typed {typed}: expected (case, slider, box, outcome) {(typed, typed, str(typed), outcome)}, got {got}"
    )


def test_the_sliders_step_is_1_so_the_page_never_rounds_a_typed_size_or_a_policys_limit(explorer):
    # The browser snaps a slider's value to its step and sends the snapped value back (4097 -> 4100
    # with step 10); tests/test_browser_layout.py shows it in JupyterLab and Voila.
    steps = {key: explorer.controls[key].step for key in ("bytes", "embedLimitBytes")}
    assert steps == {"bytes": 1, "embedLimitBytes": 1}, f"slider steps: expected 1 and 1, got {steps}"


def test_the_trace_keeps_each_result_on_one_line_and_shows_every_rules_whole_test():
    decision = cl.route(cl.load_fixture().case("oversize-embed"))
    html = render.trace_html(decision)
    cells = re.findall(r'<td style="white-space:nowrap">([^<]*)</td>', html)
    assert len(cells) == len(decision.trace) and "✓ passed" in cells, f"result cells kept on one line: {cells}"
    for step in decision.trace:
        assert f"<td>{step.test}</td>" in html.replace("&#x27;", "'").replace("&quot;", '"'), f"test of {step.code} cut"
    assert html.startswith('<div class="custody-scroll" style="overflow-x:auto'), html[:80]


# --- what a fresh kernel loads ------------------------------------------------------------------

TABLE_LIBRARIES = ("pandas", "pyarrow")


@pytest.mark.slow
@pytest.mark.parametrize(
    "build",
    ["CaseExplorer('handbook')", "TemplateReader()", "BlobViewer()", "LinkOrEmbedCalculator()"],
)
def test_a_widget_in_a_fresh_interpreter_loads_no_table_library(build):
    # A kernel that shows a dozen rows need not carry pandas and pyarrow (about 90 MB resident).
    code = (
        "import sys\n"
        "import custody_lab.widgets as w\n"
        f"panel = w.{build}\n"
        "print(type(panel).__name__, len(panel.children) > 0)\n"
        f"print(sorted(m for m in {TABLE_LIBRARIES!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    built, loaded = out.stdout.strip().splitlines()
    assert built == f"{build.split('(')[0]} True", f"{build}: expected a built panel, got {built!r}"
    assert loaded == "[]", f"{build} loaded {loaded}; expected no table library"


def _typed(box, text: str) -> None:
    """What the page sends when a person types ``text`` into ``box`` and presses Enter."""
    box._handle_msg(
        {"content": {"data": {"method": "update", "state": {"value": text}, "buffer_paths": []}}, "buffers": []}
    )


def test_a_typed_size_sends_the_chart_before_the_words_and_each_changed_view_once(fresh, monkeypatch):
    """Issue 29: the page handles one change's messages in order, so the PNG goes first (the page
    decodes it while it updates the words), and no view is sent twice for one change."""
    import ipywidgets as W

    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(W.Widget, "_send", lambda self, msg, buffers=None: sent.append((id(self), msg["method"])))
    _typed(fresh.controls["bytes"].box, str(fresh.case.bytes + 5000))
    updates = [widget for widget, method in sent if method == "update"]
    words = {
        name: id(getattr(fresh, name))
        for name in ("outcome", "trace", "diff", "receipt", "chart_caption", "matrix_text")
    }
    changed = [name for name, widget in words.items() if widget in updates]
    assert id(fresh.chart) in updates and changed, f"expected the chart and some words sent; sent {sent}"
    after = [name for name in changed if updates.index(words[name]) < updates.index(id(fresh.chart))]
    assert not after, f"sent before the chart: {after}"
    assert len(updates) == len(set(updates)), f"a view was sent twice for one change: {sent}"
