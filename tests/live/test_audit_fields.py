"""The 2026-07-28 custody fields of the extended receipt, host-side provenance, and the schema check.

No node needed: the lab's own in-process server and hand-built results.
"""

from __future__ import annotations

from functools import partial

import anyio
import mcp.types as mt
import pytest

import custody_lab as cl
from custody_lab.core.receipts import freshness, server_hints
from custody_lab.live.audit import AuditError, parse_template_values
from custody_lab.live.audit_exercise import content_blocks, structured_check
from custody_lab.live.audit_fields import declared_tool_details, provenance_field, server_field
from custody_lab.live.session import LabSession

from ..seed_facts import SEED_FIXTURE_SHA256

T0 = "2026-09-04T12:00:00.000Z"

from ..timing import scaled  # noqa: E402


@pytest.mark.parametrize(
    ("ttl", "now", "expected"),
    [
        (1000, "2026-09-04T12:00:00.999Z", ("2026-09-04T12:00:01.000Z", "fresh")),
        (1000, "2026-09-04T12:00:01.000Z", ("2026-09-04T12:00:01.000Z", "stale")),
        (0, T0, (T0, "stale")),
    ],
)
def test_the_freshness_deadline_is_retrieval_plus_ttl_and_the_deadline_itself_is_stale(ttl, now, expected):
    got = freshness(T0, ttl, now=now)
    assert (got["freshUntil"], got["state"]) == expected, f"ttl {ttl} at {now}: expected {expected}, got {got}"


def test_no_ttl_hint_gives_no_freshness_deadline():
    assert freshness(T0, None) is None
    assert server_hints(retrieved_at=T0, result={})["freshness"] is None


@pytest.mark.parametrize(("declared", "received", "mismatch"), [(10, 10, False), (10, 12, True), (None, 12, None)])
def test_a_declared_size_is_checked_against_the_bytes_received(declared, received, mismatch):
    hints = server_hints(
        retrieved_at=T0, described={"size": declared} if declared is not None else {}, bytes_received=received
    )
    assert hints["size"] == {"declared": declared, "received": received, "mismatch": mismatch}, hints["size"]


def test_icons_are_recorded_as_addresses_and_never_fetched():
    icons = [{"src": "data:image/png;base64,AAAA"}, {"src": "https://x.test/i.png"}, {"src": "http://x.test/i"}]
    got = server_hints(retrieved_at=T0, described={"icons": icons})["icons"]
    assert [(i["scheme"], i["accepted"], i["fetched"]) for i in got] == [
        ("data", True, False),
        ("https", True, False),
        ("http", False, False),
    ], got


def test_hints_are_marked_as_server_hints_and_the_size_as_checked():
    sources = server_hints(retrieved_at=T0)["sources"]
    assert {k for k, v in sources.items() if v == "checked"} == {"size"}, sources
    assert sources["toolAnnotations"] == sources["ttlMs"] == sources["cacheScope"] == "hint", sources


def test_the_seed_receipt_stays_byte_identical():
    assert cl.fixture_payload()["sha256"] == SEED_FIXTURE_SHA256


def _lab(coro_fn):
    async def go():
        async with LabSession() as session:
            return await coro_fn(session)

    return anyio.run(go)


def test_a_live_read_of_the_lab_server_carries_ttl_cache_scope_and_result_type():
    live = _lab(lambda s: s.read("kb://handbook/v4"))
    hints, retrieved = live.receipt["hints"], live.receipt["custody"]["retrievedAt"]
    got = (hints["cacheScope"], hints["resultType"], hints["size"]["received"], hints["freshness"]["ttlMs"])
    assert got == ("public", "complete", 1800, 86_400_000), hints
    assert hints["freshness"] == freshness(retrieved, 86_400_000), (hints["freshness"], retrieved)


def test_a_live_tool_call_records_the_tools_annotations_as_untrusted_hints():
    live = _lab(lambda s: s.call("generate_report", {"week": 7}))
    hints = live.receipt["hints"]
    assert hints["toolAnnotations"] == {"readOnlyHint": True, "openWorldHint": False}, hints["toolAnnotations"]
    assert hints["size"] == {"declared": 18000, "received": 18000, "mismatch": False}, hints["size"]


def test_server_meta_provenance_is_kept_as_the_richer_source():
    live = _lab(lambda s: s.read("kb://handbook/v4"))
    assert live.receipt["provenanceSource"]["source"] == "server _meta", live.receipt["provenanceSource"]
    assert live.receipt["custody"]["provenance"] == "docs-server@v4", live.receipt["custody"]


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        ({"name": "s", "version": "1"}, (True, "serverInfo s@1")),
        ({"name": "s", "version": None}, (False, "serverInfo has no version: the host cannot name the source")),
        (
            {"name": None, "version": None},
            (False, "serverInfo has no name and version: the host cannot name the source"),
        ),
    ],
)
def test_only_a_server_without_name_or_version_is_a_server_gap(server, expected):
    got = server_field(server)
    assert (got.supplied, got.how) == expected, f"{server}: expected {expected}, got {got}"


@pytest.mark.parametrize(
    ("source", "performed", "supplied"),
    [("host", True, True), ("server _meta", True, True), (None, True, False), (None, False, None)],
)
def test_provenance_is_a_gap_only_when_neither_the_server_nor_the_host_can_name_it(source, performed, supplied):
    got = provenance_field({"provenanceSource": {"source": source}}, performed)
    assert got.supplied is supplied, f"source {source}, performed {performed}: expected {supplied}, got {got}"


SCHEMA = {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]}


@pytest.mark.parametrize(
    ("structured", "text", "valid", "fallback"),
    [
        ({"t": 3}, '{"t": 3}', True, True),
        ({"t": 3}, "it is 3 degrees", True, False),
        ({"t": "hot"}, '{"t": "hot"}', False, True),
        ({}, "{}", False, True),
    ],
)
def test_structured_content_is_validated_and_the_text_fallback_noted(structured, text, valid, fallback):
    result = mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], structured_content=structured)
    check = anyio.run(partial(structured_check, result, SCHEMA, timeout=scaled(60)))
    got = (check["valid"], check["textFallback"], check["dialect"])
    assert got == (valid, fallback, "Draft202012Validator"), f"{structured}/{text!r}: {check}"
    assert (check["error"] is None) is valid, check


def test_a_declared_output_schema_without_structured_content_is_invalid():
    result = mt.CallToolResult(content=[mt.TextContent(type="text", text="{}")])
    check = anyio.run(partial(structured_check, result, SCHEMA, timeout=scaled(60)))
    assert check["valid"] is False and "no structuredContent" in check["error"], check


def test_an_image_whose_bytes_contradict_its_mime_type_is_flagged():
    gif = "R0lGODlhAQABAAAAACw="  # GIF89a header bytes, declared as PNG
    blocks = content_blocks(mt.CallToolResult(content=[mt.ImageContent(type="image", data=gif, mime_type="image/png")]))
    assert (blocks[0]["sniffed"], blocks[0]["mimeMismatch"]) == ("image/gif", True), blocks


@pytest.mark.parametrize(
    ("items", "field"),
    [(["resourceId"], "NAME=JSON"), (["=1"], "NAME=JSON"), (["id={"], "not JSON")],
)
def test_a_malformed_template_value_is_refused_with_its_text(items, field):
    with pytest.raises(AuditError) as err:
        parse_template_values(items)
    assert field in str(err.value) and items[0] in str(err.value), str(err.value)


def test_the_text_report_flags_a_size_mismatch_and_shows_the_freshness_deadline():
    from custody_lab.live.audit_report import AuditReport, CapabilityAudit, format_report

    hints = server_hints(retrieved_at=T0, result={"ttlMs": 1000}, described={"size": 10}, bytes_received=12)
    cap = CapabilityAudit("resource", "a://b", True, "listed", "listed-resource", (), {"hints": hints})
    text = format_report(AuditReport(("srv",), {"name": "s", "version": "1"}, "2026-07-28", (cap,)))
    assert "size MISMATCH: the server declared 10 bytes, 12 arrived" in text, text
    assert "fresh until 2026-09-04T12:00:01.000Z" in text, text
    same = CapabilityAudit(
        "resource",
        "a://b",
        True,
        "listed",
        "listed-resource",
        (),
        {"hints": server_hints(retrieved_at=T0, described={"size": 12}, bytes_received=12)},
    )
    assert "MISMATCH" not in format_report(AuditReport((), {}, None, (same,))), "no flag when the sizes agree"


def _tiny_server(version: str):
    from mcp.server.mcpserver import MCPServer

    srv = MCPServer("tiny", version=version)
    note = mt.Annotations(audience=["assistant"], priority=0.25, last_modified="2026-09-01T00:00:00Z")
    icon = mt.Icon(src="https://icons.test/n.png")

    @srv.resource("notes://{id}", mime_type="text/plain", annotations=note, icons=[icon])
    def read_note(id: str) -> str:
        return f"note {id}"

    @srv.resource("notes://index", mime_type="text/plain", annotations=note)
    def index() -> str:
        return "all notes"

    return srv


def _audit(server) -> object:
    from mcp import Client

    from custody_lab.live.audit import audit_client

    async def go():
        async with Client(server) as client:
            return await audit_client(client, template_values=("id=7",), timeout=scaled(5.0))

    return anyio.run(go)


def test_a_templated_read_records_the_templates_annotations_and_icons_as_hints():
    report = _audit(_tiny_server("1.0"))
    cap = next(c for c in report.capabilities if c.kind == "template")
    hints = cap.details["hints"]
    assert cap.details["expandedUri"] == "notes://7" and cap.outcome == "templated-resource", (cap.why, cap.outcome)
    assert hints["annotations"] == {"audience": ["assistant"], "priority": 0.25, "lastModified": "2026-09-01T00:00:00Z"}
    assert hints["icons"] == [{"scheme": "https", "accepted": True, "fetched": False}], hints["icons"]


def test_a_server_with_a_version_gets_host_side_provenance_and_one_without_gets_the_gap():
    named = _audit(_tiny_server("1.0"))
    bare = _audit(_tiny_server(""))
    read = next(c for c in named.capabilities if c.name == "notes://index")
    assert read.outcome == "listed-resource" and read.gaps == (), (read.outcome, read.gaps)
    assert read.details["provenanceSource"]["source"] == "host", read.details
    gaps = sorted((n, g.field) for n, g in bare.gaps)
    assert ("notes://index", "provenance") in gaps and ("notes://index", "server") in gaps, gaps
    assert next(c for c in bare.capabilities if c.name == "notes://index").outcome == "custody-incomplete"


def test_a_template_with_no_value_known_is_not_read_and_says_how_to_give_one():
    from mcp import Client

    from custody_lab.live.audit import audit_client

    async def go():
        async with Client(_tiny_server("1.0")) as client:
            return await audit_client(client, timeout=scaled(5.0))

    cap = next(c for c in anyio.run(go).capabilities if c.kind == "template")
    assert not cap.exercised and cap.why == "not read: no value known (give --template-values NAME=JSON)", cap.why
    assert cap.details["templateValues"]["id"].startswith("no value known"), cap.details


@pytest.mark.parametrize(
    ("annotations", "meta", "supplied"),
    [
        (mt.ToolAnnotations(read_only_hint=True), None, False),  # a hint declares nothing
        (mt.ToolAnnotations(read_only_hint=False), None, False),
        (None, {"org.custody-lab/sideEffects": False}, True),
        (mt.ToolAnnotations(read_only_hint=True), {"org.custody-lab/sideEffects": True}, True),
    ],
    ids=["hint-true", "hint-false", "lab-declaration", "both"],
)
def test_an_unexercised_tools_side_effects_are_declared_only_by_the_labs_key_never_by_its_hint(
    annotations, meta, supplied
):
    from custody_lab.live.audit_fields import declared_tool_fields

    tool = mt.Tool(name="t", input_schema={"type": "object"}, annotations=annotations, _meta=meta)
    (side,) = [f for f in declared_tool_fields(tool, {"name": "s", "version": "1"}) if f.field == "sideEffects"]
    assert side.supplied is supplied, side
    if annotations is not None and not supplied:
        assert "is a hint and declares nothing" in side.how, side.how


@pytest.mark.parametrize(
    ("meta", "hint", "value", "source"),
    [
        ({"org.custody-lab/sideEffects": False}, None, False, "_meta org.custody-lab/sideEffects"),
        ({"org.custody-lab/sideEffects": True}, True, True, "_meta org.custody-lab/sideEffects"),
        (
            None,
            True,
            None,
            "nobody declared: no lab declaration (the _meta key org.custody-lab/sideEffects, true or false); "
            "its readOnlyHint: true is a hint and declares nothing",
        ),
        (
            {"org.custody-lab/sideEffects": "no"},
            None,
            None,
            "nobody declared: no lab declaration (the _meta key org.custody-lab/sideEffects, true or false)",
        ),
    ],
)
def test_a_tools_declared_side_effects_are_its_meta_value_never_its_read_only_hint(meta, hint, value, source):
    tool = mt.Tool(
        name="t",
        input_schema={"type": "object"},
        annotations=None if hint is None else mt.ToolAnnotations(read_only_hint=hint),
        _meta=meta,
    )
    got = declared_tool_details(tool)
    assert got["declared"] == {"sideEffects": value, "source": source}, f"{meta}, {hint}: got {got}"
    assert (got.get("toolHints") or {}).get("readOnlyHint") == hint, "the hint is shown beside, as a hint"


def test_a_destructive_hint_is_named_as_the_hint_it_is_not_as_a_missing_read_only_hint():
    from custody_lab.live.audit_fields import declared_tool_fields

    tool = mt.Tool(name="wipe", input_schema={"type": "object"}, annotations=mt.ToolAnnotations(destructive_hint=True))
    (side,) = [f for f in declared_tool_fields(tool, {"name": "s", "version": "1"}) if f.field == "sideEffects"]
    source = declared_tool_details(tool)["declared"]["source"]
    for text in (side.how, source):
        assert "its destructiveHint: true is a hint and declares nothing" in text, text
        assert "readOnlyHint" not in text, f"the tool set no readOnlyHint: {text!r}"
        assert "the _meta key org.custody-lab/sideEffects, true or false" in text, "the lab declaration is unexplained"


def test_every_gap_line_is_followed_by_what_the_server_does_to_supply_the_field():
    from custody_lab.live.audit_report import (
        AUDIT_FIELDS,
        SPEC_RULES,
        AuditReport,
        CapabilityAudit,
        FieldSupport,
        format_report,
        rule_for,
    )

    assert set(SPEC_RULES) == set(AUDIT_FIELDS), "a custody field without a rule"
    for kind in ("resource", "tool"):
        for name in AUDIT_FIELDS:
            assert rule_for(kind, name)["fix"].strip(), f"{kind} {name}: the rule gives no fix"
    tool = CapabilityAudit(
        "tool",
        "wipe",
        False,
        "not called",
        None,
        (FieldSupport("sideEffects", False, "nobody declared"), FieldSupport("uri", False, "no uri")),
    )
    lines = format_report(AuditReport(("srv",), {"name": "s", "version": "1"}, "2026-07-28", (tool,))).splitlines()
    at = lines.index("    gap: sideEffects — nobody declared [MAY: " + SPEC_RULES["sideEffects"]["section"] + "]")
    assert lines[at + 1] == (
        "      fix: declare the tool's _meta key org.custody-lab/sideEffects, true or false, in tools/list "
        "(the lab's host policy; a readOnlyHint declares nothing)"
    ), lines[at : at + 2]
    uri_fix = next(line for line in lines if line.startswith("      fix: return a resource_link"))
    assert "org.custody-lab/uri" in uri_fix, uri_fix
    report = AuditReport(("srv",), {"name": "s", "version": "1"}, "2026-07-28", (tool,)).to_dict()
    assert [g["rule"]["fix"][:7] for g in report["gaps"]] == ["declare", "return "], report["gaps"]
