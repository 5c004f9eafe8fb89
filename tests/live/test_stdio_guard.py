"""The audit's guards, for all inputs: the depth check, terminal-safe JSON, and the guard's stderr."""

from __future__ import annotations

import json
import sys
import unicodedata

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from custody_lab.core.text import INVISIBLE, terminal_json
from custody_lab.live.stdio_guard import StdioGuard, json_depth_exceeds, parse_frame

# Strings full of what breaks parsers and terminals: brackets, quotes, backslashes, controls, bidi.
tricky = st.text(st.sampled_from('[]{}"\\ax\x1b\x9b\x7f\u202e\u200b\n'), max_size=8)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), tricky),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(tricky, inner, max_size=3)),
    max_leaves=30,
)

from ..timing import scaled  # noqa: E402


def depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


@given(values, st.integers(0, 6))
def test_the_depth_check_agrees_with_the_real_nesting_of_any_json_value(value, limit):
    text = json.dumps(value)
    expected = depth(value) > limit
    assert json_depth_exceeds(text, limit) is expected, f"{text!r} limit {limit}: expected {expected}"


@given(values)
def test_terminal_json_keeps_the_value_and_prints_no_control_or_bidi_character(value):
    out = terminal_json(value)
    assert json.loads(out) == value, f"{value!r}: terminal_json changed the value: {out!r}"
    raw = [ch for ch in out if ch != "\n" and (unicodedata.category(ch) == "Cc" or ch in INVISIBLE)]
    assert raw == [], f"{value!r}: raw characters {raw!r} in {out!r}"


@pytest.mark.anyio
async def test_the_guard_keeps_the_servers_stderr_out_of_the_terminal_and_makes_it_visible(capfd):
    script = "import sys; sys.stderr.write('boom \\x1b[2J\\rover\\n' * 3); sys.exit(7)"
    guard = StdioGuard([sys.executable, "-c", script], timeout=scaled(5.0))
    with pytest.raises(ExceptionGroup) as caught:
        with anyio.fail_after(scaled(20)):
            async with Client(guard.connect(), mode="auto", read_timeout_seconds=5.0, cache=None):
                pass
    assert caught.group_contains(MCPError, depth=None), f"expected the closed connection; got {caught.value!r}"
    assert guard.problem is not None and guard.problem.startswith("exited with code 7"), guard.problem
    assert guard.stderr_lines() == ["boom \\x1b[2J\\x0dover"] * 3, guard.stderr_lines()
    assert capfd.readouterr().err == "", "the server's stderr reached the terminal raw"


@pytest.mark.anyio
async def test_a_handshake_nobody_answers_is_marked_as_start_up_too_slow_and_an_exit_is_not():
    # the silent one sleeps (it never reads stdin); the other exits at once: only the first may be
    # "slow to start" (the audit then names --connect-timeout), the second misbehaved
    silent = StdioGuard([sys.executable, "-c", "import time; time.sleep(3600)"], timeout=scaled(1.0))
    with pytest.raises(ExceptionGroup):
        with anyio.fail_after(scaled(20)):
            async with Client(silent.connect(), mode="auto", read_timeout_seconds=scaled(60), cache=None):
                pass
    assert silent.handshake_timed_out and silent.problem == f"did not answer server/discover within {scaled(1):g} s"
    assert silent.handshake_asked() == "server/discover", silent.handshake_asked()
    exits = StdioGuard([sys.executable, "-c", "raise SystemExit(3)"], timeout=scaled(30.0))
    with pytest.raises(ExceptionGroup):
        with anyio.fail_after(scaled(40)):
            async with Client(exits.connect(), mode="auto", read_timeout_seconds=scaled(60), cache=None):
                pass
    assert not exits.handshake_timed_out and (exits.problem or "").startswith("exited with code 3"), exits.problem


BOTH = "a reply with both result and error on stdout line 3 (id 5): JSON-RPC 2.0 allows one of them, never both"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"jsonrpc": "2.0", "id": 5, "result": {}, "error": {"code": -1, "message": "x"}}', BOTH),
        ('{"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "x"}, "result": {"resources": []}}', BOTH),
        ('{"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "x"}, "\\u0072esult": null}', BOTH),
        ('{"jsonrpc": "2.0", "id": 5, "result": {"error": "a field of the result"}}', None),
        ('{"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "result", "data": {"result": 1}}}', None),
        ('{"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "x", "data": 1e400}}', None),
    ],
    ids=[
        "result-first",
        "error-first",
        "escaped-key",
        "error-inside-result",
        "result-inside-error",
        "number-past-a-float",
    ],
)
def test_a_reply_with_both_result_and_error_is_not_a_json_rpc_message(raw, expected):
    parsed = parse_frame(raw.encode(), "wrote", "on stdout line 3")
    got = parsed if isinstance(parsed, str) else None
    assert got == (None if expected is None else f"wrote {expected}"), (
        f"{raw[:90]!r}: expected {expected!r}, got {got!r}"
    )
