"""Widgets at the edges: a bad value is shown in the panel, the last good state is kept, nothing
raises into the notebook, and the next valid change works. Untrusted text that would reorder or
hide what a reader sees (bidi overrides, zero-width characters) is shown as escapes.

Every test drives a widget in-kernel, as a learner's cell would: set a value, call a method, then
read the panel's HTML and the widget's state.
"""

from __future__ import annotations

import base64
import html
import json

import pytest

import custody_lab as cl
from custody_lab.protocol.catalog import Catalog, ResourceEntry, TemplateEntry
from custody_lab.sweep import grid, sweep
from custody_lab.views import html as views_html
from custody_lab.views.catalog_html import entry_html, untrusted_text_html
from custody_lab.views.widgets.controls import StrictIntSlider
from custody_lab.views.widgets.whatif import table_html
from custody_lab.widgets import BlobViewer, CaseExplorer, LinkOrEmbedCalculator, TemplateReader, WhatIfPanel

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "invoice\u202egnp.exe" reads as "invoiceexe.png"
ZWSP = "\u200b"  # ZERO WIDTH SPACE: "kb://a\u200bdmin" looks like "kb://admin"
SPOOF = f"invoice{RLO}gnp.exe and kb://a{ZWSP}dmin"


@pytest.fixture(scope="module")
def explorer():
    return CaseExplorer("approve-draft", chart=False)


@pytest.fixture()
def fresh(explorer):
    explorer.load("approve-draft")
    explorer.set(embedLimitBytes=4096)
    assert explorer.error is None, explorer.error
    return explorer


# -- CaseExplorer.set validates like the paste box -----------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"bytes": -3}, ["'bytes'", "0 or more", "-3"]),
        ({"bytes": "1800"}, ["'bytes'", "the string '1800'", "remove the quotes"]),
        ({"bytes": 9000.5}, ["'bytes'", "whole number", "9000.5"]),
        ({"bytes": True}, ["'bytes'"]),
        ({"sideEffects": "yes"}, ["'sideEffects'", "'yes'"]),
        ({"sideEffects": 1}, ["'sideEffects'"]),
        ({"initiator": "nobody"}, ["'initiator'", "'nobody'"]),
        ({"shape": None}, ["'shape'", "null"]),
        ({"uri": 5}, ["'uri'"]),
        ({"uri": None}, ["'uri'", "cannot show null", "''"]),
        ({"allowed": "yes"}, ["'allowed'"]),
        ({"requiresCurrent": None}, ["'requiresCurrent'", "cannot show null"]),
        ({"embedLimitBytes": -1}, ["embedLimitBytes", "-1"]),
        ({"embedLimitBytes": 4096.5}, ["embedLimitBytes", "4096.5"]),
        ({"byte": 100}, ["no control 'byte'", "bytes"]),
        ({"bytes": 100, "current": "no"}, ["'current'"]),  # one bad value: nothing of the set applies
    ],
)
def test_a_bad_value_given_to_set_is_shown_and_changes_nothing_then_the_next_value_works(fresh, changes, words):
    before, controls = fresh.decision, {k: c.value for k, c in fresh.controls.items()}
    got = fresh.set(**changes)
    assert got == before and fresh.decision == before, f"set({changes}) changed the decision to {got.to_dict()}"
    assert fresh.error is not None, f"set({changes}): expected a message, got none"
    for word in words:
        assert word in fresh.error, f"set({changes}): expected {word!r} in the message, got {fresh.error!r}"
    assert "⚠ Not applied" in fresh.message.value and html.escape(fresh.error) in fresh.message.value
    now = {k: c.value for k, c in fresh.controls.items()}
    assert now == controls, f"set({changes}) moved controls: {controls} -> {now}"
    after = fresh.set(bytes=9000)
    assert after.rejection == "embed-over-budget" and fresh.error is None, (after.to_dict(), fresh.error)
    assert fresh.message.value == "", f"the message stayed after a valid change: {fresh.message.value!r}"


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        (None, "side-effects-unknown"),
        ("unknown", "side-effects-unknown"),
        (True, "embedded-resource"),
        ("false", "embedded-resource"),
    ],
)
def test_side_effects_take_the_case_values_and_the_controls_words(fresh, value, outcome):
    got = fresh.set(sideEffects=value)
    expected = cl.route(fresh.baseline.with_changes(sideEffects=_side(value)), fresh.policy).outcome
    assert fresh.error is None, f"sideEffects={value!r}: {fresh.error}"
    assert got.outcome == expected == outcome, f"sideEffects={value!r}: expected {outcome}, got {got.outcome}"
    assert fresh.case.side_effects is _side(value), (value, fresh.case.side_effects)
    assert fresh.set(bytes=100).to_dict()["custody"]["bytes"] == 100, "the panel is stuck after sideEffects"


def _side(value):
    return {"unknown": None, "true": True, "false": False}.get(value, value) if isinstance(value, str) else value


def test_a_size_beyond_the_sliders_end_widens_it_and_is_applied_exactly(fresh):
    got = fresh.set(bytes=50_001, embedLimitBytes=60_001)
    assert fresh.error is None, fresh.error
    assert fresh.case.bytes == 50_001 and fresh.policy.embed_limit_bytes == 60_001, (fresh.case, fresh.policy)
    assert got.to_dict()["custody"]["bytes"] == 50_001 and got.accepted, got.to_dict()


@pytest.mark.parametrize("key", ["bytes", "embedLimitBytes"])
@pytest.mark.parametrize("value", [-3, 10**9])
def test_a_slider_set_directly_to_a_value_it_cannot_take_says_so_instead_of_clamping(fresh, key, value):
    slider = fresh.controls[key]
    before, decision = slider.value, fresh.decision
    slider.value = value
    assert slider.value == before, f"{key}.value = {value}: the slider moved to {slider.value}"
    assert fresh.decision == decision, fresh.decision.to_dict()
    assert fresh.error and f"{value:,}" in fresh.error and "nothing was changed" in fresh.error, fresh.error
    fresh.set(bytes=9000)
    assert fresh.error is None and fresh.decision.rejection == "embed-over-budget", fresh.error


def test_a_side_effects_dropdown_left_empty_is_shown_and_the_panel_recovers(fresh):
    fresh.controls["sideEffects"].value = None  # "nothing selected", which a dropdown allows
    assert fresh.error and "'sideEffects'" in fresh.error, fresh.error
    assert fresh.set(sideEffects=False).accepted and fresh.error is None, fresh.error


# -- the paste box -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 40_000 + "]" * 40_000, ["nested too deeply"]),
        ('{"id": "x", "bytes": ' + "9" * 5000 + "}", ["more digits", "4,300"]),
        (json.dumps({"id": "x" * 200_000}), ["200,0", "characters", "load_cases"]),
        ("[1, 2]", ["must be an object"]),
        ('{"id": "x", "initiator": "model", "initiator": "application"}', []),
    ],
    ids=["deep", "digits", "huge", "list", "duplicate-key"],
)
def test_a_paste_that_is_too_deep_too_long_or_not_a_case_is_shown_and_keeps_the_panel(fresh, text, words):
    before = fresh.decision
    fresh.load_json(text)
    assert fresh.error is not None, f"paste of {text[:40]!r}…: expected a message, got none"
    for word in words:
        assert word in fresh.error, f"paste of {text[:40]!r}…: expected {word!r} in {fresh.error[:300]!r}"
    assert fresh.decision == before and fresh.baseline.id == "approve-draft", fresh.decision.to_dict()
    assert fresh.set(bytes=30).accepted and fresh.error is None, fresh.error


# -- the what-if panel and the calculator -------------------------------------------------------


@pytest.fixture(scope="module")
def whatif():
    return WhatIfPanel(chart=False)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [({"embed_limit_bytes": -1}, "-1"), ({"embed_limit_bytes": 2.5}, "2.5"), ({"require_current": "yes"}, "'yes'")],
)
def test_the_what_if_panel_refuses_a_policy_value_it_cannot_use_instead_of_clamping(whatif, kwargs, word):
    whatif.set(embed_limit_bytes=4096, require_current=False)
    before = whatif.comparison
    got = whatif.set(**kwargs)
    assert got is before and whatif.policy == cl.Policy(), f"set({kwargs}) changed the policy to {whatif.policy}"
    assert whatif.controls["embedLimitBytes"].value == 4096, whatif.controls["embedLimitBytes"].value
    assert whatif.error and word in whatif.error, f"set({kwargs}): expected {word!r} in {whatif.error!r}"
    assert "⚠ Not applied" in whatif.message.value
    assert whatif.set(embed_limit_bytes=512).after.embed_limit_bytes == 512 and whatif.error is None, whatif.error


def test_the_what_if_panel_takes_a_limit_beyond_its_slider_exactly(whatif):
    got = whatif.set(embed_limit_bytes=100_000)
    assert whatif.error is None and got.after.embed_limit_bytes == 100_000, (whatif.error, got.after)
    assert whatif.controls["embedLimitBytes"].value == 100_000
    direct = whatif.controls["embedLimitBytes"]
    direct.value = -1
    assert direct.value == 100_000 and whatif.error and "cannot be set to -1" in whatif.error, whatif.error


@pytest.mark.parametrize(("name", "value"), [("budget", 0), ("budget", 10**6), ("reuse", 0), ("size", -5)])
def test_the_calculator_says_when_a_slider_cannot_take_a_value(name, value):
    calc = LinkOrEmbedCalculator()
    slider, costs = getattr(calc, name), calc.costs
    before = slider.value
    slider.value = value
    assert slider.value == before, f"{name}.value = {value}: moved to {slider.value} (clamped)"
    assert calc.costs is costs, "the costs changed for a refused value"
    assert f"cannot be set to {value:,}" in slider.note.value, f"beside {name}: {slider.note.value!r}"
    slider.value = slider.min
    assert slider.note.value == "" and calc.costs is not costs, slider.note.value


def test_the_calculator_widens_its_sliders_to_the_values_it_is_given():
    calc = LinkOrEmbedCalculator(payload_bytes=70_000, reuse=25, budget=256)
    assert (calc.size.value, calc.reuse.value, calc.budget.value) == (70_000, 25, 256)
    assert calc.error.value == "", calc.error.value


def test_the_calculators_sliders_step_by_1_so_the_page_never_rounds_a_size_or_a_budget():
    calc = LinkOrEmbedCalculator(payload_bytes=4096, reuse=1, budget=4096)
    steps = {name: getattr(calc, name).step for name in ("size", "reuse", "budget")}
    assert steps == {"size": 1, "reuse": 1, "budget": 1}, f"calculator slider steps: expected all 1, got {steps}"
    shapes = []
    for size in (4096, 4097):
        calc.size.value = size
        shapes.append(calc.costs.shape if calc.costs else None)
    expected = ["embedded-resource", "resource-link"]
    assert shapes == expected, f"payload 4096 / 4097 B, budget 4096 B, one call: expected {expected}, got {shapes}"


def test_a_strict_slider_keeps_its_value_and_reports_each_refusal():
    said: list[str] = []
    slider = StrictIntSlider(value=5, min=1, max=10, description="reuse")
    slider.on_refuse(said.append)
    for value in (0, 11, 10, 1):
        slider.value = value
    assert slider.value == 1 and len(said) == 2, (slider.value, said)
    assert said[0].startswith("reuse cannot be set to 0") and "from 1 to 10" in said[0], said


# -- the template reader and the blob viewer ----------------------------------------------------


def test_a_template_with_a_prefix_of_thousands_of_digits_is_shown_and_the_reader_recovers():
    reader = TemplateReader()
    reader.pick("orders://{order_id:" + "9" * 5000 + "}")
    assert "This template is not valid" in reader.problem.value, reader.problem.value[:300]
    assert len(reader.problem.value) < 5000, f"the message quotes the whole template: {len(reader.problem.value)}"
    reader.pick("orders://{order_id}")
    reader.fill(order_id="A-1002")
    assert reader.problem.value == "" and reader.read().status == "read", reader.problem.value


def test_a_blob_of_deeply_nested_json_is_shown_as_a_message_and_the_viewer_recovers():
    viewer = BlobViewer()
    deep = base64.b64encode(("[" * 100_000 + "]" * 100_000).encode()).decode()
    viewer.paste(deep, "application/json")
    assert "Could not decode this blob" in viewer.error.value, viewer.error.value[:300]
    assert viewer.last_error is not None and viewer.reading is not None and viewer.reading.size_bytes == 105
    viewer.paste(base64.b64encode(b'{"ok": true}').decode(), "application/json")
    assert viewer.error.value == "" and viewer.shown == "text", viewer.error.value


# -- bidi overrides and zero-width characters are made visible ----------------------------------


def _assert_visible(page: str, where: str) -> None:
    assert RLO not in page and ZWSP not in page, f"{where}: a raw bidi/zero-width character reached the HTML"
    assert "\\u202e" in page and "\\u200b" in page, f"{where}: the characters are not shown as escapes: {page[:400]}"


def test_untrusted_blocks_show_bidi_and_zero_width_characters_as_escapes_and_keep_line_breaks():
    block = views_html.untrusted_block(views_html.pre(f"{SPOOF}\nline two\tcol"), source=f"kb://{RLO}x")
    _assert_visible(block, "untrusted_block(pre(...))")
    assert "\nline two\tcol" in block, "pre() lost the text's own line breaks or tabs"
    assert "(from <code>kb://\\u202ex</code>)" in block, block
    assert views_html.pre("<b>\x1b[2J").endswith("&lt;b&gt;\\x1b[2J</pre>"), views_html.pre("<b>\x1b[2J")


def test_catalog_entries_and_resource_text_show_bidi_characters_as_escapes():
    page = entry_html(ResourceEntry(f"kb://{RLO}x", "n", title=SPOOF, description=SPOOF))
    _assert_visible(page, "entry_html")
    _assert_visible(untrusted_text_html(SPOOF, "kb://x"), "untrusted_text_html")


def test_the_explorer_shows_a_cases_bidi_characters_as_escapes_in_every_pane(fresh):
    case = {**fresh.baseline.to_dict(), "id": f"a{RLO}b{ZWSP}", "title": SPOOF, "description": SPOOF}
    case["uri"] = f"kb://{RLO}x{ZWSP}"
    fresh.load_json(json.dumps(case))
    assert fresh.error is None, fresh.error
    _assert_visible(fresh.untrusted.value, "explorer untrusted pane")
    for name in ("outcome", "trace", "diff", "receipt", "untrusted"):
        page = getattr(fresh, name).value
        assert RLO not in page and ZWSP not in page, f"explorer {name}: a raw bidi/zero-width character: {page[:300]}"
    assert "\\u202e" in fresh.receipt.value and "\\u202e" in fresh.diff.value, "the receipt/diff hide the override"


def test_the_what_if_table_and_the_blob_viewer_show_bidi_characters_as_escapes():
    frame = sweep(grid(bytes=[10], current=True, allowed=True)).assign(title=SPOOF, id=f"x{RLO}{ZWSP}")
    _assert_visible(table_html(frame), "what-if table")
    viewer = BlobViewer()
    viewer.paste(base64.b64encode(SPOOF.encode()).decode(), "text/plain")
    assert viewer.shown == "text", viewer.error.value
    _assert_visible(viewer.text_view.value, "blob viewer text")


def test_dropdown_labels_show_a_servers_or_a_cases_bidi_characters_as_escapes_and_keep_the_value(fresh):
    catalog = Catalog.load()
    hostile = Catalog(
        (*catalog.resources, ResourceEntry(f"kb://{RLO}x{ZWSP}", "spoof", mime_type="text/plain")),
        (TemplateEntry(f"orders://{{order_id}}{ZWSP}", "spoof", title=SPOOF),),
    )
    reader_labels = [label for label, _v in TemplateReader(hostile).picker.options]
    viewer = BlobViewer(hostile)
    viewer_options = dict((v, label) for label, v in viewer.source.options)
    case = {**fresh.baseline.to_dict(), "id": f"draft{RLO}fdp.exe"}
    fresh.load_json(json.dumps(case))
    preset = dict((v, label) for label, v in fresh.preset.options)
    shown = [reader_labels[0], viewer_options[f"kb://{RLO}x{ZWSP}"], preset[f"draft{RLO}fdp.exe"]]
    for label in shown:
        assert RLO not in label and ZWSP not in label, f"a raw bidi/zero-width character in the label {label!r}"
    assert "\\u202e" in shown[0] and "kb://\\u202ex\\u200b" in shown[1] and shown[2] == "draft\\u202efdp.exe", shown
    assert fresh.preset.value == f"draft{RLO}fdp.exe", "the value must stay the case's real id"
