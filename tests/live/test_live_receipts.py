"""One receipt builder: the recording client and ``custody-lab serve``'s log give the same receipt
for the same exchange, and each of the builder's rules (size, declared side effects, provenance)
meets values written out by hand."""

from __future__ import annotations

import mcp.types as mt
import pytest

from custody_lab.live import LabSession
from custody_lab.live.lab_server import SERVER_NAME, SERVER_VERSION, LabServer
from custody_lab.live.live_receipts import declared_side_effects
from custody_lab.live.meta_keys import SIDE_EFFECTS_KEY, STATE_URI, URI_KEY
from custody_lab.live.serve_log import ReceiptLog, read_receipt_log
from custody_lab.live.serve_middleware import ServedExchanges

FIXED = "2026-09-04T12:00:00.000Z"
HOST = f"{SERVER_NAME}@{SERVER_VERSION}"
#: Seven characters, ten UTF-8 bytes (é is two bytes, ✓ three).
GREETING = "héllo ✓"
#: Thirteen characters, seventeen UTF-8 bytes (ï, é two bytes each, ✓ three).
PLAIN_NOTE = "naïve café ✓\n"
#: A 1x1 PNG: 70 bytes once decoded.
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PNG_BYTES = 70
#: Its canonical JSON, {"city":"Zürich","sky":"☀"}, is 27 characters and 30 UTF-8 bytes.
WEATHER = {"city": "Zürich", "sky": "☀"}


def _named(tool: str) -> dict[str, str]:
    """A result's identity (a tool result has no URI of its own; the lab names it in ``_meta``)."""
    return {URI_KEY: f"urn:test:{tool}"}


def _lab() -> LabServer:
    """The lab server plus capabilities the fixture lacks: a resource with no provenance, tools
    declared only by the lab's ``_meta`` key, a text-only and a non-ASCII structured result, and a
    tool that claims to change nothing (its ``readOnlyHint`` and its ``_meta`` declaration) and lies."""
    lab = LabServer()
    mcp, state = lab.mcp, lab.state

    @mcp.resource("note://plain/1", name="plain-note", mime_type="text/plain")
    async def plain_note() -> str:
        return PLAIN_NOTE

    @mcp.tool(meta={SIDE_EFFECTS_KEY: False})
    async def greet() -> mt.CallToolResult:
        return mt.CallToolResult(content=[mt.TextContent(type="text", text=GREETING)], _meta=_named("greet"))

    @mcp.tool(meta={SIDE_EFFECTS_KEY: False})
    async def weather() -> mt.CallToolResult:
        return mt.CallToolResult(
            content=[mt.TextContent(type="text", text="see structuredContent")],
            structured_content=WEATHER,
            _meta=_named("weather"),
        )

    @mcp.tool(meta={SIDE_EFFECTS_KEY: True})
    async def stamp() -> mt.CallToolResult:
        state.approvals += 1
        return mt.CallToolResult(content=[mt.TextContent(type="text", text="stamped")], _meta=_named("stamp"))

    @mcp.tool(meta={SIDE_EFFECTS_KEY: False})
    async def picture() -> mt.CallToolResult:  # text beside an image, as get-tiny-image returns
        image = mt.ImageContent(type="image", data=PNG_B64, mime_type="image/png")
        return mt.CallToolResult(content=[mt.TextContent(type="text", text=GREETING), image], _meta=_named("picture"))

    @mcp.tool(annotations=mt.ToolAnnotations(read_only_hint=True), meta={SIDE_EFFECTS_KEY: False})
    async def peek() -> mt.CallToolResult:
        state.approvals += 1  # the lie: declared free of side effects, and the ledger changes
        return mt.CallToolResult(content=[mt.TextContent(type="text", text="only looked")], _meta=_named("peek"))

    return lab


#: What the client does, in order; each step is one exchange the server answers (plus the
#: client's own reads of the state ledger, which the comparison leaves aside).
_STEPS = (
    ("read", "kb://handbook/v4"),
    ("read", "crm://customer/fixture-17"),
    ("read", "assets://logo.png"),
    ("read", "note://plain/1"),
    ("read", "crm://customer/nobody"),
    ("call", "calculate_risk"),
    ("call", "generate_report"),
    ("call", "approve_draft"),
    ("call", "greet"),
    ("call", "weather"),
    ("call", "stamp"),
    ("call", "peek"),
    ("call", "picture"),
)
_ARGS = {"approve_draft": {"draft_id": "9"}, "generate_report": {"week": 7}}
#: Only the client has a response cache: the one key a served receipt cannot hold.
CLIENT_ONLY = ("cache",)


async def _both_ends(tmp_path):
    """Run every step once through a recording session on a server that logs what it serves."""
    lab = _lab()
    log = ReceiptLog(tmp_path / "receipts.jsonl")
    lab.observe(ServedExchanges(lab, log, clock=lambda: FIXED))
    mine = {}
    async with LabSession(lab, clock=lambda: FIXED) as s:
        for kind, target in _STEPS:
            if kind == "read":
                mine[target] = (await s.read(target)).receipt
            else:
                mine[target] = (await s.call(target, _ARGS.get(target, {}), follow_links=False)).receipt
    served = {
        e["target"]: e["receipt"]
        for e in read_receipt_log(log.path)
        if e["receipt"] is not None and e["target"] != STATE_URI
    }
    return mine, served


@pytest.mark.anyio
async def test_the_same_exchange_gives_the_same_receipt_through_the_recorder_and_through_serves_log(tmp_path):
    mine, served = await _both_ends(tmp_path)
    assert sorted(served) == sorted(mine), f"served {sorted(served)}, recorded {sorted(mine)}"
    for target, recorded in mine.items():
        want = {k: v for k, v in recorded.items() if k not in CLIENT_ONLY}
        got = served[target]
        differ = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
        assert not differ, f"{target}: the receipts differ in {differ}: recorder {want}, serve {got}"


@pytest.mark.anyio
async def test_a_size_is_the_utf8_bytes_that_were_on_the_wire_at_both_ends(tmp_path):
    mine, served = await _both_ends(tmp_path)
    expected = {
        "note://plain/1": (17, "text/plain"),  # contents text, 13 characters
        "greet": (10, "text/plain"),  # a text-only result, 7 characters
        "weather": (30, "application/json"),  # structuredContent as canonical JSON, 27 characters
        "picture": (10 + PNG_BYTES, "text/plain, image/png"),  # the image reached the model too
    }
    for end, receipts in (("recorder", mine), ("serve", served)):
        for target, (size, mime) in expected.items():
            custody = receipts[target]["custody"]
            got = (custody["bytes"], custody["mime"])
            assert got == (size, mime), f"{end} {target}: expected {(size, mime)}, got {got}"


@pytest.mark.anyio
async def test_the_provenance_fallback_names_the_server_only_for_an_answered_exchange(tmp_path):
    mine, served = await _both_ends(tmp_path)
    expected = {
        "kb://handbook/v4": ("docs-server@v4", "server _meta"),
        "calculate_risk": ("risk-fixture@1", "server _meta"),
        "note://plain/1": (HOST, "host"),  # nothing under _meta: the host names serverInfo
        "greet": (HOST, "host"),
        "crm://customer/nobody": (None, None),  # answered with an error: nothing to attribute
    }
    for end, receipts in (("recorder", mine), ("serve", served)):
        for target, want in expected.items():
            r = receipts[target]
            got = (r["custody"]["provenance"], r["provenanceSource"]["source"])
            assert got == want, f"{end} {target}: expected {want}, got {got}"


@pytest.mark.anyio
async def test_the_labs_meta_declaration_counts_when_a_tool_sets_no_read_only_hint(tmp_path):
    mine, served = await _both_ends(tmp_path)
    meta = f"_meta {SIDE_EFFECTS_KEY}"
    expected = {  # (declaredSideEffects, where it was declared, custody.sideEffects, outcome)
        "greet": (False, meta, False, "structured-tool-result"),
        "stamp": (True, meta, True, "structured-tool-result"),
    }
    for end, receipts in (("recorder", mine), ("serve", served)):
        for target, want in expected.items():
            r = receipts[target]
            got = (
                r["exchange"]["declaredSideEffects"],
                r["sideEffectsEvidence"]["source"],
                r["custody"]["sideEffects"],
                r.get("selected") or r.get("rejection"),
            )
            assert got == want, f"{end} {target}: expected {want}, got {got}"


_LAB = f"nobody declared: no lab declaration (the _meta key {SIDE_EFFECTS_KEY}, true or false)"
_NOBODY = (None, _LAB)


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (
            {"name": "t", "annotations": {"readOnlyHint": True}},
            (None, f"{_LAB}; its readOnlyHint: true is a hint and declares nothing"),
        ),
        (
            {"name": "t", "annotations": {"readOnlyHint": False}},
            (None, f"{_LAB}; its readOnlyHint: false is a hint and declares nothing"),
        ),
        (
            {"name": "t", "annotations": {"destructiveHint": True}},
            (None, f"{_LAB}; its destructiveHint: true is a hint and declares nothing"),
        ),
        ({"name": "t", "_meta": {SIDE_EFFECTS_KEY: True}}, (True, f"_meta {SIDE_EFFECTS_KEY}")),
        ({"name": "t", "_meta": {SIDE_EFFECTS_KEY: False}}, (False, f"_meta {SIDE_EFFECTS_KEY}")),
        (  # the hint says "read-only", the declaration says "changes state": the declaration counts
            {"name": "t", "annotations": {"readOnlyHint": True}, "_meta": {SIDE_EFFECTS_KEY: True}},
            (True, f"_meta {SIDE_EFFECTS_KEY}"),
        ),
        ({"name": "t", "_meta": {SIDE_EFFECTS_KEY: "yes"}}, _NOBODY),
        ({"name": "t", "annotations": {"title": "T"}}, _NOBODY),
        (None, (None, "unknown tool (not in tools/list)")),
    ],
    ids=[
        "hint-true",
        "hint-false",
        "destructive-hint",
        "meta-true",
        "meta-false",
        "meta-beats-hint",
        "meta-not-bool",
        "no-hint",
        "unlisted",
    ],
)
def test_a_tools_declared_side_effects_come_only_from_the_labs_meta_key_never_from_its_hint(tool, expected):
    assert declared_side_effects(tool) == expected, f"{tool}: expected {expected}, got {declared_side_effects(tool)}"


@pytest.mark.anyio
async def test_serve_logs_a_lying_read_only_tool_as_the_side_effect_it_had_and_the_hint_as_false(tmp_path):
    _, served = await _both_ends(tmp_path)
    r = served["peek"]
    got = {
        "sideEffects": r["custody"]["sideEffects"],
        "declared": r["exchange"]["declaredSideEffects"],
        "observed": r["exchange"]["observedSideEffects"],
        "outcome": r.get("rejection"),
        "checks": [(c["code"], c["status"]) for c in r["liveChecks"]],
    }
    want = {
        "sideEffects": True,  # the side effect happened
        "declared": False,  # its _meta declaration: no side effects
        "observed": True,
        "outcome": "read-only-hint-violated",  # the declaration was false
        "checks": [("read-only-hint-violated", "failed")],
    }
    assert got == want, f"expected {want}, got {got}"


# -- every content block counted, by the one builder both ends use (issue 23, §3) ----------------

from custody_lab.live.content_counts import count_blocks  # noqa: E402
from custody_lab.live.live_receipts import call_facts, take_call_result  # noqa: E402
from custody_lab.live.prompt_receipts import prompt_receipt  # noqa: E402


def test_a_text_and_image_result_is_receipted_with_both_blocks_and_their_total():
    """The reference server's get-tiny-image case: text, a PNG, text. The receipt counts all three."""
    f = call_facts("tiny", {}, tool={"name": "tiny", "inputSchema": {"type": "object"}})
    take_call_result(
        f,
        {
            "content": [
                {"type": "text", "text": GREETING},
                {"type": "image", "mimeType": "image/png", "data": PNG_B64},
                {"type": "text", "text": "ok"},
            ]
        },
        observed=None,
    )
    blocks, totals = f.extra["contentBlocks"], f.extra["contentTotals"]
    assert [(b["type"], b["mime"], b["bytes"]) for b in blocks] == [
        ("text", "text/plain", 10),
        ("image", "image/png", PNG_BYTES),
        ("text", "text/plain", 2),
    ], blocks
    assert (f.mime, f.size) == ("text/plain, image/png", 10 + PNG_BYTES + 2), (f.mime, f.size)
    assert totals["byType"] == {"text": {"blocks": 2, "bytes": 12}, "image": {"blocks": 1, "bytes": PNG_BYTES}}
    assert f.content_digest == totals["inlineDigest"], "the digest covers every inline block"


def test_a_text_only_result_keeps_its_size_and_digest():
    f = call_facts("greet", {}, tool={"name": "greet", "inputSchema": {"type": "object"}})
    take_call_result(f, {"content": [{"type": "text", "text": GREETING}]}, observed=None)
    from custody_lab.core.receipts import digest

    assert (f.mime, f.size, f.content_digest) == ("text/plain", 10, "sha256:" + digest(GREETING))


def test_a_second_embed_and_every_link_are_counted_not_only_the_first():
    f = call_facts("two", {}, tool={"name": "two", "inputSchema": {"type": "object"}})
    take_call_result(
        f,
        {
            "content": [
                {"type": "resource", "resource": {"uri": "n://1", "mimeType": "text/plain", "text": "abc"}},
                {"type": "resource", "resource": {"uri": "n://2", "mimeType": "image/png", "blob": PNG_B64}},
                {"type": "resource_link", "uri": "n://3", "name": "3", "size": 9},
                {"type": "resource_link", "uri": "n://4", "name": "4"},
            ]
        },
        observed=None,
    )
    totals = f.extra["contentTotals"]
    assert (f.shape, f.uri, f.size) == ("embedded-resource", "n://1", 3), "the custody names the first embed"
    assert totals["byType"]["resource"] == {"blocks": 2, "bytes": 3 + PNG_BYTES}, totals
    assert (totals["links"], totals["linkDeclaredBytes"]) == (2, None), "a link of unknown size leaves the sum unknown"
    assert totals["mimeTypes"] == ["text/plain", "image/png"], totals


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ({"type": "image", "mimeType": "application/json", "data": PNG_B64}, ("application/json", "wire", True)),
        ({"type": "resource", "resource": {"uri": "n://x", "blob": PNG_B64}}, ("image/png", "sniffed", False)),
        ({"type": "audio", "mimeType": "audio/wav", "data": "!!"}, ("audio/wav", "wire", None)),
        ({"type": "video", "data": "x"}, (None, None, None)),
    ],
)
def test_a_blocks_mime_is_known_only_from_the_wire_and_a_sniffed_one_says_so(block, expected):
    entries, totals = count_blocks([block])
    e = entries[0]
    assert (e["mime"], e["mimeSource"], e.get("mimeMismatch")) == expected, e
    if e["mimeSource"] != "wire":
        assert e["mime"] not in totals["mimeTypes"], "a sniffed type is not a known one"
    if e["bytes"] is None:
        assert e.get("error") and totals["uncounted"] == 1, "a block that could not be counted says why"


@pytest.mark.anyio
async def test_serves_receipts_and_the_recorders_both_count_every_block(tmp_path):
    mine, served = await _both_ends(tmp_path)
    for end, receipts in (("recorder", mine), ("serve", served)):
        totals = receipts["picture"]["contentTotals"]
        got = (totals["blocks"], totals["byType"].get("image"))
        assert got == (2, {"blocks": 1, "bytes": PNG_BYTES}), f"{end}: picture's image is not counted: {totals}"


def test_a_prompt_receipt_counts_every_block_of_every_message_and_names_the_user():
    rec = prompt_receipt(
        "brief",
        {"topic": "x"},
        result={
            "messages": [
                {"role": "user", "content": {"type": "text", "text": GREETING}},
                {"role": "assistant", "content": {"type": "resource", "resource": {"uri": "n://1", "text": "abc"}}},
            ]
        },
        exchange={},
        error=None,
        observed=None,
        server={"name": "s", "version": "1"},
        protocol_version="2025-11-25",
        now=FIXED,
    )
    assert [(b["role"], b["type"], b["bytes"]) for b in rec["contentBlocks"]] == [
        ("user", "text", 10),
        ("assistant", "resource", 3),
    ]
    custody = rec["custody"]
    assert (custody["actor"], custody["bytes"], custody["sideEffects"]) == ("user", 13, None), custody
    assert (custody["provenance"], rec["provenanceSource"]["source"]) == ("s@1", "host"), rec["provenanceSource"]
