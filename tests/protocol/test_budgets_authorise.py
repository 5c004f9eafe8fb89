"""Three context budgets logged separately, and authorise before embedding (notebook 05, issue 17 §2).

Every claim notebook 05 makes about the ledger, the two hosts and the embed verdict is asserted
here, and the worked example's tool and result are checked against the live hostile server.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.core.errors import BudgetError, PolicyError
from custody_lab.core.paths import data_path
from custody_lab.protocol.budgets import (
    BUDGETS,
    CROWDED_OUT,
    OVERFLOW,
    BudgetLimits,
    Ledger,
    authorise_embed,
    contents_bytes,
    deferred_stub,
    json_bytes,
    reached,
    withheld,
)
from custody_lab.teaching.exercise_sets import authorise, budget
from custody_lab.views.context_costs import budget_panel, embed_verdict_html, hosts_html, ledger_html

HANDBOOK, EXPORT = "kb://handbook/v4", "export://all"


def _draft_block() -> dict:
    text = data_path("live", "draft-9.json").read_text(encoding="utf-8")
    return {"type": "resource", "resource": {"uri": "draft://fixture/9", "mimeType": "application/json", "text": text}}


def _verdict(block: dict, may_read: bool, **kw) -> object:
    return authorise_embed(block, tool="approve_draft", provenance="draft-tool@3", may_read=lambda uri: may_read, **kw)


# -- the worked turn: a small tool schema beside a giant embed ----------------------------------


def test_the_export_tools_definition_is_239_bytes_and_its_embed_8992():
    sizes = (json_bytes(budget.EXPORT_TOOL), contents_bytes(budget.export_block()))
    assert sizes == (239, 8992), f"EXPORT_TOOL / export_block: expected (239, 8992) bytes, got {sizes}"


def test_one_combined_number_hides_the_giant_embed_the_content_line_shows():
    ledger = budget.worked_example()
    seen = (ledger.total, ledger.limits.total, ledger.combined_over(), ledger.over(), ledger.hidden())
    expected = (12922, 16384, False, ("content",), ("content",))
    assert seen == expected, (
        f"worked_example(): expected (total, limit, combined over, over, hidden) {expected}, got {seen}"
    )
    content = next(line for line in ledger.lines() if line["budget"] == "content")
    assert content["status"] == "over by 6,696", f"content line: expected 'over by 6,696', got {content}"
    assert "hides: content" in ledger.summary(), f"summary names what one number hides: {ledger.summary()!r}"


def test_three_budgets_keep_the_giant_embed_out_and_one_combined_limit_lets_it_in():
    ledger = budget.worked_example()
    separate = (reached(ledger.admit(), HANDBOOK), reached(ledger.admit(), EXPORT))
    combined = (reached(ledger.admit_combined(), HANDBOOK), reached(ledger.admit_combined(), EXPORT))
    assert separate == (1800, 0), f"three budgets: expected handbook 1800, embed 0 bytes; got {separate}"
    assert combined == (1800, 8992), f"one combined limit: expected handbook 1800, embed 8992; got {combined}"
    out = [a.reason for a in ledger.admit() if not a.admitted]
    assert out == [OVERFLOW["content"]], f"expected only the embed withheld, for the content reason; got {out}"


def test_a_giant_listing_crowds_out_the_handbook_under_one_limit_but_not_under_three_budgets():
    ledger = budget.crowded_example()
    got = (reached(ledger.admit_combined(), HANDBOOK), reached(ledger.admit(), HANDBOOK))
    assert got == (0, 1800), f"handbook bytes (one limit, three budgets): expected (0, 1800), got {got}"
    assert ledger.over() == ("resource-catalog",), f"expected only the catalog over, got {ledger.over()}"
    paged = withheld(ledger.admit())
    assert [(w["budget"], w["why"]) for w in paged] == [("resource-catalog", OVERFLOW["resource-catalog"])], paged
    dropped = [a for a in ledger.admit_combined() if not a.admitted]
    assert dropped and all(a.reason == CROWDED_OUT for a in dropped), f"combined host's drops: {dropped[:3]}"
    assert dropped[-1].entry.item == HANDBOOK, f"the handbook comes last and is dropped: {dropped[-1]}"


def test_a_deferred_definition_shows_only_the_name_and_fits_forty_tools_in_the_tool_budget():
    stub = deferred_stub(budget.EXPORT_TOOL)
    assert stub == {"name": "export_everything"}, f"deferred_stub(EXPORT_TOOL): got {stub}"
    full, deferred = budget.warehouse_example(), budget.warehouse_example(deferred=True)
    got = (full.over(), full.hidden(), deferred.over())
    assert got == (("tool-definitions",), ("tool-definitions",), ()), f"forty tools full vs deferred: got {got}"
    assert full.used("content") == deferred.used("content"), "deferring definitions must not change the content line"


# -- the ledger's rules, for every input --------------------------------------------------------

entries = st.lists(st.tuples(st.sampled_from(BUDGETS), st.integers(0, 6000)), max_size=25)


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200, deadline=None)
@given(entries, st.integers(0, 9000), st.integers(0, 9000), st.integers(0, 9000))
def test_no_budget_admits_more_than_its_own_limit_and_the_combined_host_no_more_than_its_total(rows, t, r, c):
    ledger = Ledger(BudgetLimits(t, r, c))
    for i, (name, size) in enumerate(rows):
        ledger = ledger.log(name, f"item-{i}", size)
    admitted = [a for a in ledger.admit() if a.admitted]
    for name in BUDGETS:
        spent = sum(a.entry.bytes for a in admitted if a.entry.budget == name)
        assert spent <= ledger.limits.of(name), f"{rows} under {ledger.limits}: {name} admitted {spent}"
    combined = sum(a.entry.bytes for a in ledger.admit_combined() if a.admitted)
    assert combined <= ledger.limits.total, f"{rows}: combined host admitted {combined} > {ledger.limits.total}"
    if ledger.hidden():
        assert ledger.total <= ledger.limits.total and ledger.over(), f"{rows}: hidden without a reason"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: Ledger().log("tokens", "x", 1), "budget"),
        (lambda: Ledger().log("content", "x", -1), "bytes"),
        (lambda: Ledger().log("content", "x", True), "bytes"),
        (lambda: Ledger().log_listing({"resources": [{"name": "no-uri"}]}), "resources[0].uri"),
        (lambda: Ledger().log_listing({"items": []}), "resources"),
        (lambda: deferred_stub({"description": "no name"}), "name"),
        (lambda: contents_bytes({"type": "resource"}), "resource"),
        (
            lambda: authorise_embed({"type": "resource_link", "uri": "x://y"}, tool="t", provenance="p", may_read=bool),
            "type",
        ),
    ],
)
def test_a_malformed_entry_is_refused_naming_its_field(call, field):
    with pytest.raises(BudgetError) as e:
        call()
    assert e.value.field == field, f"expected field {field!r}, got {e.value.field!r} ({e.value})"


def test_a_blob_counts_its_decoded_bytes_and_a_bad_blob_is_a_budget_error_raised_from_the_blob_error():
    blob = {"uri": "assets://x.png", "mimeType": "image/png", "blob": "AAECAw=="}
    assert contents_bytes(blob) == 4, f"{blob}: expected 4 decoded bytes, got {contents_bytes(blob)}"
    with pytest.raises(BudgetError) as e:
        contents_bytes({"uri": "assets://x.png", "blob": "not base64!"})
    assert e.value.__cause__ is not None, "the BudgetError must be raised from the blob reader's error"


def test_a_negative_limit_is_a_policy_error_naming_the_budget():
    with pytest.raises(PolicyError) as e:
        BudgetLimits(content=-1)
    assert e.value.field == "content", f"expected field 'content', got {e.value.field!r}"


# -- authorise before embedding -----------------------------------------------------------------


def test_an_embed_the_caller_may_read_is_accepted_and_counted_in_the_content_budget():
    verdict = _verdict(_draft_block(), True, operation="mutate", side_effects=True)
    got = (verdict.revealed, verdict.decision.selected, Ledger().log_embed(verdict).used("content"))
    assert got == (True, "embedded-resource", 760), f"allowed draft embed: expected (True, shape, 760), got {got}"


def test_an_embed_the_caller_may_not_read_is_permission_denied_before_size_and_adds_no_bytes():
    verdict = _verdict(_draft_block(), False, operation="mutate", side_effects=True)
    receipt = verdict.receipt
    got = (receipt["accepted"], receipt.get("rejection"), receipt["custody"]["actor"], receipt["custody"]["uri"])
    assert got == (False, "permission-denied", "model", "draft://fixture/9"), f"denied draft receipt: got {got}"
    statuses = {s.code: s.status for s in verdict.decision.trace}
    assert statuses["embed-over-budget"] == "not-reached", f"the size rule must not be reached: {statuses}"
    assert verdict.server_should_have_checked, "a denied embed is a server-side policy problem"
    assert Ledger().log_embed(verdict).used("content") == 0, "a withheld embed puts no bytes into the content budget"
    assert "server should have checked" in verdict.explain(), verdict.explain()


def test_permission_is_checked_before_size_even_for_a_giant_embed():
    verdict = _verdict(budget.export_block(), False)
    assert verdict.decision.rejection == "permission-denied", f"giant denied embed: got {verdict.decision.rejection}"
    allowed = _verdict(budget.export_block(), True)
    assert allowed.decision.rejection == "embed-over-budget", f"giant allowed embed: got {allowed.decision.rejection}"


def test_the_authorise_exercises_scenario_is_refused_for_the_caller_and_accepted_for_its_own_record():
    assert authorise.embed_verdict().decision.rejection == "permission-denied"
    own = json.loads(json.dumps(authorise.embed_block()))
    own["resource"]["uri"] = authorise.CALLER_RECORD
    mine = authorise_embed(own, tool=authorise.TOOL, may_read=authorise.caller_may_read, provenance="crm-fixture@17")
    assert mine.revealed, f"the caller's own record must be accepted; got {mine.decision.rejection}"


# -- what the views show ------------------------------------------------------------------------


def test_the_ledger_view_warns_only_when_one_number_hides_a_budget():
    hidden = ledger_html(budget.worked_example())
    plain = ledger_html(budget.warehouse_example(deferred=True))
    assert "one combined number hides" in hidden, "the worked turn's table must carry the warning"
    assert "one combined number hides" not in plain, "a turn within every budget must carry no warning"


def test_the_views_escape_a_hostile_uri():
    hostile = "kb://<script>x</script>"
    ledger = Ledger().log("content", hostile, 10)
    html = hosts_html(ledger, [hostile]) + ledger_html(ledger)
    assert "<script>" not in html, f"hosts_html/ledger_html let markup through: {html[:300]}"
    block = {"type": "resource", "resource": {"uri": hostile, "mimeType": "text/plain", "text": "t"}}
    verdict = authorise_embed(block, tool="t", provenance="p@1", may_read=lambda uri: False)
    assert "<script>" not in embed_verdict_html(verdict), "embed_verdict_html let markup through"


def test_the_budget_sliders_rebuild_the_ledger_and_the_one_limit_host_loses_the_handbook():
    panel = budget_panel()
    assert reached(panel.ledger.admit_combined(), HANDBOOK) == 1800, "with no listed records the handbook fits"
    panel.sliders["listed_records"].value = 200
    got = (reached(panel.ledger.admit_combined(), HANDBOOK), reached(panel.ledger.admit(), HANDBOOK))
    assert got == (0, 1800), f"200 listed records: expected handbook (0, 1800) bytes, got {got}"
    assert "crowded out" in panel.view.value, "the panel's view must show the crowded-out handbook"


# -- the worked example is what the live servers send ---------------------------------------------


def test_the_worked_examples_tool_and_embeds_are_what_the_live_servers_send():
    from custody_lab.live.hostile_server import HostileServer
    from custody_lab.live.session import LabSession, run_sync

    async def exchange() -> tuple[dict, dict, str]:
        async with LabSession(HostileServer()) as s:
            tool = s.recorder.tools["export_everything"].model_dump(mode="json", by_alias=True, exclude_none=True)
            await s.call("export_everything")
            content = s.recorder.last_result.model_dump(mode="json", by_alias=True, exclude_none=True)["content"][0]
        async with LabSession() as s:
            await s.call("approve_draft", {"draft_id": "9"})
            draft = s.recorder.last_result.content[0].resource.text
        return tool, content, draft

    tool, content, draft = run_sync(exchange)
    assert tool == budget.EXPORT_TOOL, f"tools/list entry: expected {budget.EXPORT_TOOL}, got {tool}"
    resource = {k: v for k, v in content["resource"].items() if k != "_meta"}
    assert {**content, "resource": resource} == budget.export_block(), f"embedded result differs: {str(content)[:200]}"
    assert draft == _draft_block()["resource"]["text"], "approve_draft must embed data/live/draft-9.json"
