"""MCP on the wire (issue 17 §1): the six seed cases' real frames, and their sequence diagrams."""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import replace
from functools import partial
from pathlib import Path

import anyio
import pytest

from custody_lab.live.fixture_exchanges import FIXTURE_EXCHANGES
from custody_lab.live.gate import Gate
from custody_lab.live.lab_server import DRAFT_URI, HANDBOOK_URI, REPORT_URI, STATUS_URI, LabServer
from custody_lab.live.meta_keys import STATE_URI
from custody_lab.live.transport import Frame
from custody_lab.live.wire import CaseWire, WireError, WireRecording, record_wire
from custody_lab.views.sequence import Sequence, Step, figure_png, step_line
from custody_lab.whatif.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("CUSTODY_LAB_ARTIFACTS") or ROOT / "test-artifacts")
SEED_IDS = [x.case_id for x in FIXTURE_EXCHANGES]


def record(**kwargs) -> WireRecording:
    return anyio.run(partial(record_wire, **kwargs))


@pytest.fixture(scope="module")
def wire() -> WireRecording:
    return record()


def requests(c: CaseWire, method: str) -> list[dict]:
    return [f.message for f in c.frames if f.direction == "client→server" and f.message.get("method") == method]


def answer(c: CaseWire, request: dict) -> dict:
    found = [f.message for f in c.frames if f.direction == "server→client" and f.message.get("id") == request["id"]]
    assert len(found) == 1, f"{c.case.id}: request #{request['id']} {request['method']}: expected 1 answer, got {found}"
    return found[0]


# -- the frames come from the live server -------------------------------------------------------


def test_a_changed_server_version_and_status_revision_show_up_in_the_frames(wire):
    server = LabServer(version="7.7.7-wire-test")
    server.state.status_revision = 40
    changed = record(server=server)
    handbook = json.dumps([f.message for f in changed["handbook"].frames])
    assert "7.7.7-wire-test" in handbook, (
        f"serverInfo version 7.7.7-wire-test not in the handbook's frames: {handbook[:400]}"
    )
    assert "7.7.7-wire-test" not in json.dumps([f.message for f in wire["handbook"].frames]), (
        "the default server's frames"
    )
    (read,) = requests(changed["live-status"], "resources/read")
    text = answer(changed["live-status"], read)["result"]["contents"][0]["text"]
    assert json.loads(text)["revision"] == 41, f"status 40 advanced once should read revision 41; got {text[:200]}"
    (default_read,) = requests(wire["live-status"], "resources/read")
    assert json.loads(answer(wire["live-status"], default_read)["result"]["contents"][0]["text"])["revision"] == 13


def test_the_frames_are_whole_messages_with_full_responses_not_shortened(wire):
    (read,) = requests(wire["handbook"], "resources/read")
    text = answer(wire["handbook"], read)["result"]["contents"][0]["text"]
    assert len(text.encode()) == wire["handbook"].case.bytes == 1800, f"handbook text is {len(text.encode())} bytes"
    assert read["jsonrpc"] == "2.0" and read["params"]["uri"] == HANDBOOK_URI, read


# -- every listed method, with a matching response id ------------------------------------------

METHODS = [
    ("handbook", "resources/list"),
    ("handbook", "resources/read"),
    ("customer-record", "resources/templates/list"),
    ("customer-record", "resources/read"),
    ("generated-report", "tools/list"),
    ("generated-report", "tools/call"),
    ("generated-report", "resources/read"),
    ("risk-score", "tools/list"),
    ("risk-score", "tools/call"),
    ("live-status", "resources/read"),
    ("approve-draft", "tools/call"),
]


@pytest.mark.parametrize(("case_id", "method"), METHODS)
def test_each_listed_method_is_sent_for_its_case_and_answered_under_the_same_id(wire, case_id, method):
    sent = requests(wire[case_id], method)
    assert sent, f"{case_id}: expected a {method} request; its frames are {[f.summary() for f in wire[case_id].frames]}"
    for request in sent:
        assert "result" in answer(wire[case_id], request), f"{case_id}: {method} #{request['id']} got no result"


def test_each_case_has_six_seed_cases_in_order_and_every_request_of_a_case_is_answered(wire):
    assert list(wire.ids) == SEED_IDS, f"expected {SEED_IDS}, got {wire.ids}"
    for c in wire:
        for f in c.frames:
            if f.direction == "client→server" and "id" in f.message and f.message["method"] != "subscriptions/listen":
                answer(c, f.message)


def test_the_tool_results_are_a_resource_link_an_embedded_resource_and_structured_content_with_a_text_fallback(wire):
    (call,) = requests(wire["generated-report"], "tools/call")
    blocks = answer(wire["generated-report"], call)["result"]["content"]
    links = [b for b in blocks if b["type"] == "resource_link"]
    assert [b["uri"] for b in links] == [REPORT_URI] and "text" not in links[0], f"generate_report content: {blocks}"
    assert [r["params"]["uri"] for r in requests(wire["generated-report"], "resources/read")] == [REPORT_URI]

    (call,) = requests(wire["approve-draft"], "tools/call")
    (block,) = answer(wire["approve-draft"], call)["result"]["content"]
    assert block["type"] == "resource" and block["resource"]["uri"] == DRAFT_URI and block["resource"]["text"], block

    import jsonschema

    (listing,) = requests(wire["risk-score"], "tools/list")
    tools = {t["name"]: t for t in answer(wire["risk-score"], listing)["result"]["tools"]}
    schema = tools["calculate_risk"]["outputSchema"]
    (call,) = requests(wire["risk-score"], "tools/call")
    result = answer(wire["risk-score"], call)["result"]
    jsonschema.validate(result["structuredContent"], schema)
    texts = [b["text"] for b in result["content"] if b["type"] == "text"]
    assert [json.loads(t) for t in texts] == [result["structuredContent"]], f"fallback {texts} vs structuredContent"


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_the_subscription_notice_arrives_before_the_re_read_and_the_re_read_sees_the_change(wire, mode):
    c = wire["live-status"] if mode == "modern" else record(mode="legacy")["live-status"]
    methods = [f.message.get("method") for f in c.frames]
    subscribe = "subscriptions/listen" if mode == "modern" else "resources/subscribe"
    notice = methods.index("notifications/resources/updated")
    reread = max(i for i, m in enumerate(methods) if m == "resources/read")
    assert methods.index(subscribe) < notice < reread, f"{mode}: order {methods}"
    assert c.frames[notice].message["params"]["uri"] == STATUS_URI
    assert "contents" not in c.frames[notice].message["params"], "a notice carries no content"


def test_the_session_opens_with_server_discover_and_speaks_2026_07_28_and_legacy_mode_2025_11_25(wire):
    assert wire.revision == "2026-07-28" and [f.message.get("method") for f in wire.opening][:1] == ["server/discover"]
    discovered = next(f.message["result"] for f in wire.opening if "result" in f.message)
    assert wire.revision in discovered["supportedVersions"], f"server/discover answered {discovered}"
    for c in wire:
        for f in c.frames:
            if f.direction == "client→server" and "id" in f.message:  # every request
                meta = f.message["params"]["_meta"]
                assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28", (c.case.id, f.summary())
    legacy = record(mode="legacy")
    assert legacy.revision == "2025-11-25", f"legacy mode negotiated {legacy.revision}"
    assert [f.message.get("method") for f in legacy.opening][:1] == ["initialize"], legacy.opening


# -- attribution is by what was sent, not by position ----------------------------------------


def test_frames_are_attributed_by_method_and_params_so_a_reordered_run_gives_each_case_the_same_frames(wire):
    shuffled = record(exchanges=tuple(reversed(FIXTURE_EXCHANGES)))

    def shape(c: CaseWire) -> list[tuple]:
        return [(f.direction, f.message.get("method"), (f.message.get("params") or {}).get("uri")) for f in c.frames]

    for case_id in SEED_IDS:
        assert shape(shuffled[case_id]) == shape(wire[case_id]), (
            f"{case_id}: in order {shape(wire[case_id])}; reversed {shape(shuffled[case_id])}"
        )


def test_no_case_holds_the_ledger_reads_or_another_cases_read_or_call(wire):
    for c in wire:
        for m in requests(c, "resources/read"):
            assert m["params"]["uri"] != STATE_URI, f"{c.case.id} holds a ledger read"
            assert m["params"]["uri"] in (c.exchange.target, REPORT_URI), f"{c.case.id} holds {m['params']['uri']}"
        assert [m["params"]["name"] for m in requests(c, "tools/call")] in ([], [c.exchange.target]), c.case.id
        assert c.ledger_reads >= 2, f"{c.case.id}: expected the ledger read before and after; got {c.ledger_reads}"


def test_a_refused_gate_sends_no_frame_and_the_diagram_shows_the_gate_refusing():
    denied = record(gate=Gate(deny=("kb://",), deny_tools=("approve_draft",)))
    for case_id, method in (("handbook", "resources/read"), ("approve-draft", "tools/call")):
        c = denied[case_id]
        assert not requests(c, method) and c.receipt.rejection == "permission-denied", (case_id, c.receipt.outcome)
        gates = [s.label for s in c.sequence.steps if s.kind == "gate"]
        assert len(gates) == 1 and "refused" in gates[0], f"{case_id}: gate steps {gates}"
        assert "executes" not in c.sequence.role_line(), c.sequence.role_line()


def test_a_read_is_issued_by_the_hosts_client_and_served_by_the_server_and_only_a_tool_call_is_executed(wire):
    for c in wire:
        roles, caption = c.sequence.role_line(), c.sequence.caption
        if c.exchange.kind == "call":
            assert "server executes" in roles and "executed by the server (the tool)" in caption, (c.case.id, roles)
        else:
            assert "server serves" in roles and "executes" not in roles, (c.case.id, roles)
            assert "issued by the host's client through the gate · served by the server" in caption, caption
            assert "executed by" not in caption, (c.case.id, caption)
    denied = record(gate=Gate(deny=("kb://",)))["handbook"]
    assert "issued by no one: the gate refused it" in denied.sequence.caption, denied.sequence.caption
    assert "serves" not in denied.sequence.role_line(), denied.sequence.role_line()


# -- the diagram: its steps, its text, its picture ---------------------------------------------


@pytest.mark.parametrize("case_id", SEED_IDS)
def test_the_text_equivalent_lists_every_frame_in_wire_order_among_the_diagrams_steps(wire, case_id):
    c = wire[case_id]
    lines = c.text().splitlines()
    numbered = [ln for ln in lines if re.match(r"^\d+\. ", ln)]
    assert numbered == [step_line(n, s) for n, s in enumerate(c.sequence.steps, 1)], "text and steps differ"
    framed = [(int(m.group(1)) - 1, m.group(2)) for ln in numbered if (m := re.search(r", frame (\d+)\): (.*)$", ln))]
    assert [i for i, _ in framed] == list(range(len(c.frames))), f"{case_id}: frame numbers {[i for i, _ in framed]}"
    for i, label in framed:
        m = c.frames[i].message
        expected = m.get("method") or f"#{m['id']} result"
        assert expected in label, f"{case_id} frame {i + 1}: text says {label!r}; the frame is {c.frames[i].summary()}"


@pytest.mark.parametrize("case_id", SEED_IDS)
def test_the_picture_draws_the_same_steps_numbered_like_the_text(wire, case_id):
    c = wire[case_id]
    fig = c.figure("light")
    ax = fig.axes[0]
    numbers = [t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("number:")]
    labels = {t.get_gid(): t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("label:")}
    assert numbers == [str(n) for n in range(1, len(c.sequence.steps) + 1)], f"{case_id}: numbers {numbers}"
    for n, step in enumerate(c.sequence.steps, 1):
        drawn = labels[f"label:{n}"].removeprefix("GATE · ").rstrip("…")
        assert step.label.startswith(drawn) and drawn, f"{case_id} step {n}: drawn {drawn!r}, step {step.label!r}"
    arrows = [p for p in ax.patches if (p.get_gid() or "").startswith("arrow:")]
    drawn_as_arrows = [s for s in c.sequence.steps if s.kind in ("request", "response", "notification", "local")]
    assert len(arrows) == len(drawn_as_arrows), f"{case_id}: {len(arrows)} arrows for {len(drawn_as_arrows)} steps"


def test_tool_cases_are_approved_by_the_user_through_the_host_and_every_request_passes_the_gate_first(wire):
    for c in wire:
        steps = c.sequence.steps
        approvals = [s for s in steps if s.kind == "approval"]
        if c.case.initiator == "model":
            first_call = next(i for i, s in enumerate(steps) if s.label.endswith(f"tools/call {c.exchange.target}"))
            assert approvals and steps.index(approvals[0]) < first_call, f"{c.case.id}: no approval before the call"
            assert approvals[0].sender == "user / host" and "model initiates" in c.sequence.role_line()
        else:
            assert not approvals and "user / host initiates" in c.sequence.role_line(), c.case.id
        assert steps[-1].label.endswith("enters the context") and steps[-1].receiver == "model", steps[-1]
        for i, s in enumerate(steps):
            if s.kind == "request" and re.search(r" (tools/call|resources/read) ", s.label):
                assert steps[i - 1].kind == "gate", f"{c.case.id}: step {i + 1} {s.label!r} follows {steps[i - 1]}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_diagram_renders_to_png_in_both_themes_on_the_theme_background(wire, theme):
    import matplotlib.image as mpimg

    ARTIFACTS.mkdir(exist_ok=True)
    want = THEMES[theme].background
    for c in wire:
        png = figure_png(c.figure(theme))
        assert png[:8] == b"\x89PNG\r\n\x1a\n", f"{c.case.id} {theme}: not a PNG"
        (ARTIFACTS / f"wire-{c.case.id}-{theme}.png").write_bytes(png)
        corner = mpimg.imread(io.BytesIO(png))[2, -2][:3]
        rgb = "#" + "".join(f"{round(float(v) * 255):02x}" for v in corner)
        assert rgb == want, f"{c.case.id} {theme}: corner pixel {rgb}, theme background {want}"


def test_the_html_view_has_alt_text_and_a_numbered_list_of_the_same_steps(wire):
    c = wire["risk-score"]
    html = c.html()
    assert 'alt="Sequence diagram: risk-score' in html, html[:300]
    assert html.count("<li>") == len(c.sequence.steps), f"{html.count('<li>')} items for {len(c.sequence.steps)} steps"
    assert html.count("<details") == len(c.frames) and "outputSchema" in html and "structuredContent" in html


def test_long_payloads_are_shortened_for_display_only(wire):
    c = wire["generated-report"]
    (read,) = requests(c, "resources/read")
    full = answer(c, read)["result"]["contents"][0]["text"]
    assert len(full) > 10_000, "the report is the 18000-byte resource"
    cut = f"…[+{len(full) - 240} chars]"
    assert cut in c.frames_html() and cut in c.terminal(), f"expected the report's text cut at 240 with {cut!r}"


# -- untrusted server text -------------------------------------------------------------------

HOSTILE = '<img src=x onerror="alert(1)">\u202egnp.exe\x1b[2J'


def strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_hostile_server_text_is_escaped_in_the_html_view_and_made_visible_in_the_terminal():
    c = record(server=LabServer(name="evil" + HOSTILE, version=HOSTILE))["handbook"]
    assert any(HOSTILE in strings(f.message) for f in c.frames), "the hostile text was not in any frame"
    html = c.html()
    assert "<img src=x" not in html and "&lt;img src=x onerror=" in html, "the server's markup was not escaped"
    assert "\u202e" not in html and "\x1b" not in html, "a bidi override or ESC reached the page raw"
    text = c.terminal()
    assert "\u202e" not in text and "\x1b" not in text, "a bidi override or ESC reached the terminal raw"


def test_a_hostile_step_label_is_escaped_in_the_cases_html():
    hostile = replace(
        record(exchanges=FIXTURE_EXCHANGES[:1])["handbook"],
        frames=(Frame("server→client", {"jsonrpc": "2.0", "method": "notifications/x", "params": {"uri": HOSTILE}}),),
    )
    seq = Sequence("$x^2$ <b>", (Step("server", "client", "notification", "<script>x</script> $y$", 0),))
    html = replace(hostile, sequence=seq).html()
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt; $y$" in html, "the step label was not escaped"
    assert "$x^2$ &lt;b&gt;" in html and "<img src=x" not in html, "the title or the frame was not escaped"


def test_a_case_that_was_not_recorded_is_a_wire_error_naming_the_recorded_ones(wire):
    with pytest.raises(WireError, match="no case 'nope'.*handbook"):
        wire["nope"]
