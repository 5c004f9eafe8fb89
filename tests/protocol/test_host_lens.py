"""The host lens (issue 41 §2): every seed case read by every profile, against values worked out by hand.

The expected table below is written from the profiles' documented choices and the seed cases, not by
running the lens: bodies are exactly ``bytes`` long, the content budget is the seed's 4,096 bytes, and
a line naming a resource or a recorded cut is counted character by character in the comments.
"""

from __future__ import annotations

import pytest

from custody_lab.core.loading import load_fixture
from custody_lab.core.rules import HOST_RULES, rule
from custody_lab.protocol.budgets import BudgetLimits
from custody_lab.protocol.host_lens import LensInput, differences, lens, read_result, sample_result
from custody_lab.protocol.host_profiles import load_host_profiles, profile

B = "budgets-not-separate"
E = "embed-not-authorised"
C = "cut-not-recorded"
L = "link-dereferenced-silently"

# report link, custodian: 'resource_link ' (14) + {"uri":"report://synthetic/weekly-7","bytes":18000,
#   "notRead":"over the content budget"} (87) = 101
# report link, plain-reader: the link line with its name and MIME type and "this host does not read links" = 142
# report link, both-forms: 4,096 + '\n[cut: 4096 of 18000 bytes shown; the rest stays at "report://..."]' (82)
# oversize embed, custodian: 'resource ' (9) + {"uri":"draft://fixture/9","bytes":9000,"notRead":"..."} (76) = 85
# oversize embed, recorded cut: 4,096 + '\n[cut: 4096 of 9000 bytes shown; the rest stays at "draft://fixture/9"]' (71)
# risk score under both-forms: the text block (340) + '\n' + the structuredContent (340) = 681
#: case -> profile -> (bytes that reach the model, host rules broken)
EXPECTED: dict[str, dict[str, tuple[int, tuple[str, ...]]]] = {
    "handbook": {
        "custodian": (1800, ()),
        "plain-reader": (1800, ()),
        "both-forms": (1800, (B,)),
        "eager-fetcher": (1800, (B,)),
    },
    "customer-record": {
        "custodian": (920, ()),
        "plain-reader": (920, ()),
        "both-forms": (920, (B,)),
        "eager-fetcher": (920, (B,)),
    },
    "generated-report": {
        "custodian": (101, ()),
        "plain-reader": (142, ()),
        "both-forms": (4178, (B,)),
        "eager-fetcher": (4096, (L, C, B)),
    },
    "risk-score": {
        "custodian": (340, ()),
        "plain-reader": (340, ()),
        "both-forms": (681, (B,)),
        "eager-fetcher": (340, (B,)),
    },
    "live-status": {
        "custodian": (580, ()),
        "plain-reader": (580, ()),
        "both-forms": (580, (B,)),
        "eager-fetcher": (580, (B,)),
    },
    "approve-draft": {
        "custodian": (760, ()),
        "plain-reader": (760, ()),
        "both-forms": (760, (E, B)),
        "eager-fetcher": (760, (E, B)),
    },
    "stale-status": {
        "custodian": (0, ()),
        "plain-reader": (0, ()),
        "both-forms": (0, (B,)),
        "eager-fetcher": (0, (B,)),
    },
    "denied-handbook": {
        "custodian": (0, ()),
        "plain-reader": (0, ()),
        "both-forms": (0, (B,)),
        "eager-fetcher": (0, (B,)),
    },
    "oversize-embed": {
        "custodian": (85, ()),
        "plain-reader": (4167, ()),
        "both-forms": (4167, (E, B)),
        "eager-fetcher": (4096, (E, C, B)),
    },
    "mislabeled-mutation": {
        "custodian": (0, ()),
        "plain-reader": (0, ()),
        "both-forms": (0, (B,)),
        "eager-fetcher": (0, (B,)),
    },
}

CASES = {c.id: c for c in load_fixture().all_cases}
PAIRS = [(case, p) for case in EXPECTED for p in EXPECTED[case]]


def test_the_table_covers_every_seed_case_and_every_profile():
    assert set(EXPECTED) == set(CASES)
    assert all(set(row) == {p.id for p in load_host_profiles()} for row in EXPECTED.values())


@pytest.mark.parametrize(("case_id", "profile_id"), PAIRS, ids=[f"{c}-{p}" for c, p in PAIRS])
def test_every_seed_case_read_by_every_profile_gives_the_hand_worked_bytes_and_rules(case_id, profile_id):
    reading = read_result(LensInput.from_case(CASES[case_id]), profile(profile_id))
    size, broken = EXPECTED[case_id][profile_id]
    assert (reading.model_bytes, reading.broken) == (size, broken), reading.model_text[-120:]
    assert reading.tokens == -(-size // 4)
    assert reading.kept == tuple(r.code for r in HOST_RULES if r.code not in broken)


def test_the_exact_text_of_a_refused_link_and_a_recorded_cut():
    report = LensInput.from_case(CASES["generated-report"])
    assert read_result(report, profile("custodian")).model_text == (
        'resource_link {"uri":"report://synthetic/weekly-7","bytes":18000,"notRead":"over the content budget"}'
    )
    text = read_result(report, profile("both-forms")).model_text
    assert text.startswith("generated-report: Quarterly figures")
    assert text.endswith('\n[cut: 4096 of 18000 bytes shown; the rest stays at "report://synthetic/weekly-7"]')
    assert read_result(LensInput.from_case(CASES["denied-handbook"]), profile("eager-fetcher")).model_text == ""


def test_each_profile_writes_the_log_its_logs_choice_names():
    draft = LensInput.from_case(CASES["oversize-embed"])
    logs = {p.id: read_result(draft, p).log for p in load_host_profiles()}
    assert logs["eager-fetcher"] == {"tool": "oversize-embed", "bytes": 4096}
    assert logs["both-forms"]["bytes"] == 4167 and "budgets" not in logs["both-forms"]
    assert logs["custodian"]["budgets"] == {"tool-definitions": 0, "resource-catalog": 0, "content": 85}
    (entry,) = logs["plain-reader"]["entries"]
    assert entry["cut"] == {"originalBytes": 9000, "shownBytes": 4096, "remainsAt": "draft://fixture/9"}
    assert entry["permissionChecked"] is True and entry["actor"] == "server"
    (silent,) = logs["custodian"]["entries"]
    assert silent["withheld"] == "embed-over-budget" and silent["reached"] == 0


def test_a_link_the_caller_may_not_read_is_laundered_only_by_the_silent_host():
    inp = sample_result("link", 500, link_readable=False)
    by = {r.profile.id: r for r in lens(inp)}
    assert by["eager-fetcher"].broken == (L, "link-laundered", B)
    assert "Weekly report 7" in by["eager-fetcher"].model_text
    for pid in ("custodian", "both-forms"):
        assert '"notRead":"permission-denied"' in by[pid].model_text, pid
        assert "link-laundered" not in by[pid].broken
    assert rule("link-laundered").quote in (
        "The client should preserve the link, explain the blocked follow-up, and avoid laundering it through a "
        "privileged background fetch."
    )


def test_a_user_only_block_is_kept_from_the_model_or_breaks_the_rule():
    inp = sample_result("text", 30, user_only=True)
    by = {r.profile.id: r for r in lens(inp)}
    assert by["custodian"].model_text == "" and by["both-forms"].model_text == ""
    assert by["plain-reader"].broken == ("user-block-to-model",)
    assert by["eager-fetcher"].model_bytes == 30


def test_structured_content_alone_is_invisible_to_the_hosts_that_read_blocks():
    inp = sample_result("structured", 200)
    by = {r.profile.id: r.model_bytes for r in lens(inp)}
    assert by == {"custodian": 200, "plain-reader": 0, "both-forms": 200, "eager-fetcher": 0}
    assert differences(lens(inp)) == [["custodian", "both-forms"], ["plain-reader", "eager-fetcher"]]


def test_budgets_are_charged_apart_and_the_earlier_content_shrinks_the_room_for_contents():
    tool = {"name": "make_report", "inputSchema": {"type": "object"}}
    listing = {"resources": [{"uri": "report://weekly/7", "name": "weekly-7"}]}
    inp = sample_result("embed", 3000)
    text = {"type": "text", "text": "x" * 2000}
    inp = LensInput(inp.tool, {"content": [text, *inp.result["content"]]}, tools=(tool,), listing=listing,
                    limits=BudgetLimits(content=4096))  # fmt: skip
    r = read_result(inp, profile("plain-reader"))
    assert r.ledger.used("tool-definitions") == len('{"name":"make_report","inputSchema":{"type":"object"}}')
    assert r.ledger.used("resource-catalog") == len('{"uri":"report://weekly/7","name":"weekly-7"}')
    # 2,000 bytes of text leave 2,096 bytes of room: the 3,000-byte embed is cut to 2,096 and recorded
    assert r.log["entries"][1]["cut"]["shownBytes"] == 2096
