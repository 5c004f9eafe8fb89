"""``custody-lab audit`` against a server that misbehaves: a message, exit 2, bounded time, no call.

Every server here is ``tests/fixtures/raw_mcp_server.py`` (raw JSON-RPC over stdio, stdlib only,
not the SDK), its misbehaviour picked by ``--mode``. Each audit runs as its own ``custody-lab``
process under a subprocess ``timeout=``: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ..timing import scaled
from .serving import alive

#: Each test starts the audit command in its own interpreter (about a second of CPU each).
pytestmark = pytest.mark.slow


ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "raw_mcp_server.py"
RAW = "\x1b[2J\x1b[31m\x9b\u202e"  # what the ansi-names fixture puts in every string
RAW_CHARS = ("\x1b", "\x9b", "\u202e")


#: The audit's own --timeout where the timeout is not what a test is about: stretched with every
#: other deadline (tests/timing.py), so a loaded machine's slow start-up is not mistaken for a hang.
ROOMY = f"{scaled(5):g}"


def audit(mode: str, *flags: str, timeout: str = ROOMY, bound: float = 60.0, log: Path | None = None, extra=()):
    """Run ``custody-lab audit`` on the fixture; a run longer than ``bound`` seconds (scaled by the
    CI factor) fails the test. A test about the audit's timeout passes its own ``timeout``: the
    fixture then never answers, so only the report's wording depends on it, not the machine."""
    server = [sys.executable, str(FIXTURE), "--mode", mode, *extra]
    if log is not None:
        server += ["--log", str(log)]
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--timeout", timeout, *flags, "--", *server]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(bound), cwd=ROOT)


def error_lines(stderr: str) -> list[str]:
    """The lines before the server's stderr heading (the audit's own message)."""
    return stderr.split("--- the server's stderr")[0].strip().splitlines()


def received(log: Path) -> list[str]:
    """The methods the fixture received, in order."""
    if not log.exists():
        return []
    return [json.loads(line).get("method", "<response>") for line in log.read_text().splitlines()]


#: (mode, extra audit flags, fixture args, what the one- or two-line message must say)
MISBEHAVIOURS = [
    ("exit-at-once", (), (), "the server exited with code 3"),
    ("exit-after-initialize", (), (), "the server exited with code 4 while resources/list waited for an answer"),
    (
        "garbage",
        (),
        (),
        "wrote data that is not a JSON-RPC message on stdout line 2: hello, I print logs to stdout {not json",
    ),
    ("bad-utf8", (), (), "wrote invalid UTF-8 on stdout line 2 (byte 0"),
    ("wrong-id", (), (), "answered id 999 on stdout line 2, but no request has that id (waiting: 2 (initialize))"),
    ("malformed-result", (), (), "resources/list answered a malformed result: resources: Input should be a valid list"),
    ("bad-protocol-version", (), (), "answered initialize with a malformed result: protocolVersion:"),
    ("error-response", (), (), "answered initialize with error -32603: internal \\x1b[2J\\x1b[31m\\x9b\\u202efailure"),
    ("huge-line", (), (), "wrote more than 16 MiB on stdout line 2"),
    ("notification-flood", (), (), "sent more than 1000 notifications"),
    ("empty-uri", (), (), "resources/list item 1 ('blank') has an empty URI"),
    ("empty-tool-name", (), (), "tools/list item 1 has an empty name ('')"),
    (
        "bad-link-size",
        ("--allow-calls", "make_link"),
        (),
        "the resource_link to 'note://one' declares size 1099511627776",
    ),
    ("deep-json", (), (), "wrote JSON nested deeper than 200 levels on stdout line 2"),
    (
        "both-result-and-error",
        (),
        (),
        "wrote a reply with both result and error on stdout line 3 (id 3): JSON-RPC 2.0 allows one of them, never both",
    ),
    (
        "ok",
        ("--allow-calls", "nope"),
        (),
        "--allow-calls names 'nope', which the server does not list; its tools are: 'lookup'",
    ),
]


@pytest.mark.parametrize(("mode", "flags", "args", "expected"), MISBEHAVIOURS, ids=[m[0] for m in MISBEHAVIOURS])
def test_a_misbehaving_server_gets_one_or_two_lines_and_exit_2_never_a_traceback(mode, flags, args, expected):
    out = audit(mode, *flags, extra=args, bound=60.0)
    lines = error_lines(out.stderr)
    assert out.returncode == 2, f"mode {mode}: expected exit 2, got {out.returncode}\n{out.stderr}"
    assert "Traceback" not in out.stderr + out.stdout, f"mode {mode}: a traceback reached the user:\n{out.stderr}"
    assert 1 <= len(lines) <= 2 and lines[0].startswith("error: "), f"mode {mode}: expected 1-2 lines, got {lines}"
    assert expected in lines[0], f"mode {mode}: expected {expected!r} in the message; got {lines[0]!r}"
    for ch in RAW_CHARS:
        assert ch not in out.stderr + out.stdout, f"mode {mode}: raw {ch!r} reached the terminal"


def test_a_command_that_cannot_start_is_one_line_and_exit_2():
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--", "/nonexistent/server-binary"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(60), cwd=ROOT)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.strip().splitlines() == [
        "error: cannot start '/nonexistent/server-binary': No such file or directory"
    ], out.stderr


@pytest.mark.parametrize("mode", ["hang-initialize", "hang-list"])
def test_timeout_bounds_a_server_that_hangs_on_the_handshake_or_a_listing(mode, tmp_path):
    # --timeout 2: the old audit waited 12 x 2 = 24 s; the bound of 15 s includes interpreter start-up
    pid_file = tmp_path / "server.pid"
    # a handshake hang is start-up's: --connect-timeout bounds it (a listing hang is --timeout's)
    start_up = ("--connect-timeout", "2") if mode == "hang-initialize" else ()
    out = audit(mode, *start_up, timeout="2", bound=15.0, extra=("--pid-file", str(pid_file)))
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the hung server (pid {pid}) was left running after the audit ended"
    expected = {
        "hang-initialize": "the server did not answer server/discover then initialize within 2 s",
        "hang-list": "resources/list 'page 1' got no answer within 2 s",
    }[mode]
    assert out.returncode == 2 and expected in out.stderr, (
        f"expected {expected!r}, exit 2; got {out.returncode}:\n{out.stderr}"
    )
    assert "Traceback" not in out.stderr, out.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_hung_server_behind_a_shell_wrapper_is_stopped_with_its_whole_process_group(tmp_path):
    # sh stays the parent; the fixture (its child) ignores EOF and SIGTERM: only a SIGKILL sent
    # to the whole group stops it
    pid_file = tmp_path / "server.pid"
    server = f"{shlex.quote(sys.executable)} {shlex.quote(str(FIXTURE))} --mode hang-initialize --pid-file {pid_file}"
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--timeout", "2", "--connect-timeout", "2"]
    cmd += ["--", "sh", "-c", f"{server}; true"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(20), cwd=ROOT)
    assert out.returncode == 2 and "did not answer server/discover then initialize" in out.stderr, out.stderr
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the server behind sh (pid {pid}) was left running after the audit ended"


def test_a_read_that_never_answers_prints_the_partial_report_and_exits_2():
    out = audit("read-hangs", timeout="2", bound=20.0)
    assert out.returncode == 2, out.stderr
    assert "INCOMPLETE: resources/read 'note://one' got no answer within 2 s" in out.stdout, out.stdout
    assert "error: the audit did not finish: resources/read 'note://one'" in out.stderr, out.stderr
    assert "tool lookup: not called" in out.stdout, "the rest of the report is still printed"
    hint = "; if the server is only slow, raise --timeout (e.g. --timeout 4)"
    assert hint in out.stdout and hint in out.stderr, f"the timeout does not say how to give more time:\n{out.stderr}"


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "soon"])
def test_a_timeout_that_is_not_a_positive_finite_number_is_refused(value, tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("ok", timeout=value, bound=60.0, log=log)
    assert out.returncode == 2 and "error: --timeout must be" in out.stderr, f"--timeout {value}: {out.stderr}"
    assert repr(value) in out.stderr, f"the message should quote {value!r}: {out.stderr}"
    assert received(log) == [], "no server is started for a refused --timeout"


def test_a_tool_that_claims_read_only_is_never_called_without_allow_calls(tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("read-only-liar", log=log)
    methods = received(log)
    assert out.returncode == 0, out.stderr
    assert "resources/read" in methods, f"the fixture's log works (it saw the read): {methods}"
    assert "tools/call" not in methods, f"expected no tools/call without --allow-calls; the server received {methods}"
    assert "tool peek: not called (name it with --allow-calls) (it claims readOnlyHint: true" in out.stdout, out.stdout


def test_allow_calls_calls_exactly_the_named_tool_once(tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("read-only-liar", "--allow-calls", "peek", log=log)
    calls = [json.loads(line)["params"]["name"] for line in log.read_text().splitlines() if '"tools/call"' in line]
    assert out.returncode == 0, out.stderr
    assert calls == ["peek"], f"expected one call of 'peek'; the server received calls of {calls}"


def test_pagination_follows_every_cursor_including_the_empty_string(tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("paginated", "--json", log=log, extra=("--resources", "7"))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    names = {(c["kind"], c["name"]) for c in report["capabilities"]}
    expected = {("resource", f"note://{i}") for i in range(7)} | {("template", f"t{i}://{{id}}") for i in range(3)}
    expected |= {("tool", "lookup")} | {("tool", f"t{i}") for i in range(4)}
    assert names == expected, f"missing {expected - names}, unexpected {names - expected}"
    cursors = [json.loads(line).get("params", {}).get("cursor") for line in log.read_text().splitlines()]
    assert "" in cursors, f"the empty-string cursor must be sent back as a cursor; cursors sent: {cursors}"
    assert report["notes"] == [], report["notes"]


def test_a_listing_longer_than_the_page_cap_is_cut_and_the_report_says_so():
    out = audit("paginated", extra=("--resources", "100000"), timeout=f"{scaled(10):g}", bound=120.0)
    assert out.returncode == 0, out.stderr
    assert "note: resources/list: stopped after 100 pages (200 items); the server offered more" in out.stdout, (
        out.stdout
    )


def test_a_server_that_never_stops_offering_pages_is_listed_within_the_bounds_and_the_cut_is_reported():
    # the server: page after page of 5,000 new resources (it drove the audit to 1.8 GB, 108 MB
    # of output and past its time bound); the audit keeps the first 1,000, reads them, and says so
    out = audit("endless-pages", "--json", extra=("--page-size", "5000"), bound=120.0)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 16 * 2**20, f"the report is {len(out.stdout):,} characters: the listing was not bounded"
    report = json.loads(out.stdout)
    cut = "cut at page 1, item 1001: kept the first 1000 items, the lab's bound per listing; the server offered more"
    assert report["notes"][:2] == [f"resources/list: {cut}", f"resources/list (listed again): {cut}"], report["notes"]
    resources = [c for c in report["capabilities"] if c["kind"] == "resource"]
    assert len(resources) == 1000 and report["counts"]["exercised"] == 1000, report["counts"]
    changed = report["reread"]["changes"]  # every page is new, so the second listing differs: named, not all listed
    assert len(changed) == 1 and "and 995 more" in changed[0] and len(changed[0]) < 1000, changed


def test_when_the_time_for_reads_runs_out_the_partial_report_says_where_it_stopped():
    # 200 reads of 0.05 s each need 10 s; with --timeout 1 reads and calls stop at 7 s, the audit ends by 8 s
    slow = ("--resources", "200", "--page-size", "1000", "--read-delay", "0.05")
    out = audit("paginated", timeout="1", bound=30.0, extra=slow)
    assert out.returncode == 2, f"a cut audit exits 2; got {out.returncode}\n{out.stderr}"
    stop = re.search(r"INCOMPLETE: stopped at resource 'note://(\d+)': reads and calls stop 7 s after the", out.stdout)
    assert stop, f"expected where the audit stopped in:\n{out.stdout[-2000:]}"
    done = int(stop.group(1))
    # 200 resources (each read twice), the second resources/list and the fixture's 3 templates were
    # to be exercised (its tools are not named)
    assert f"({done} of 404 exercised); if the server is only slow, raise --timeout (e.g. --timeout 2)" in (
        out.stdout
    ), out.stdout[-500:]
    assert "resource  note://199" in out.stdout, "every listed resource is still in the report"
    assert "not exercised: the audit's time bound ran out first" in out.stdout
    # the cut resources are counted as skipped, not as exercised nor as merely listed
    counts = f"exercised {done}, listed only 8, skipped {200 - done} (of 208 capabilities)"
    assert counts in out.stdout, out.stdout[-500:]


def test_huge_text_contents_are_not_copied_and_the_report_says_why():
    out = audit("huge-text", bound=60.0)
    assert out.returncode == 0, out.stderr
    assert "gap: bytes — not counted: text contents of 11534336 characters exceed the 10485760 limit" in out.stdout


def test_server_strings_and_stderr_reach_the_terminal_made_visible():
    out = audit("ansi-names", "--allow-calls", f"look{RAW}")
    for ch in RAW_CHARS:
        assert ch not in out.stdout + out.stderr, f"raw {ch!r} reached the terminal:\n{out.stdout}\n{out.stderr}"
    shown = "\\x1b[2J\\x1b[31m\\x9b\\u202e"
    for where in (f"server: raw{shown}", f"note://{shown}x", f"tool look{shown}"):
        assert where in out.stdout, f"expected {where!r} in the report:\n{out.stdout}"
    assert "--- the server's stderr (captured; control characters shown, not obeyed) ---" in out.stderr, out.stderr
    assert f"  fixture starting {shown}" in out.stderr and "\\x0d overwritten" in out.stderr, out.stderr


def test_json_output_escapes_c0_and_c1_controls_and_keeps_the_values():
    out = audit("ansi-names", "--json")
    for ch in RAW_CHARS:
        assert ch not in out.stdout, f"raw {ch!r} in --json output"
    report = json.loads(out.stdout)
    assert report["server"]["name"] == f"raw{RAW}", "escaping must not change the JSON values"
    assert f"note://{RAW}x" in {c["name"] for c in report["capabilities"]}, report["capabilities"]


def test_a_server_that_dies_during_a_read_leaves_a_partial_report_and_exit_2():
    out = audit("crash-on-read")
    reason = "the server exited with code 5 while resources/read waited for an answer"
    assert out.returncode == 2, f"expected exit 2, got {out.returncode}\n{out.stderr}"
    assert f"INCOMPLETE: {reason}" in out.stdout, out.stdout
    assert f"error: the audit did not finish: {reason}" in out.stderr, out.stderr


def test_the_servers_stderr_is_captured_cut_and_shown_under_a_heading():
    out = audit("stderr-flood")
    shown = out.stderr.split("--- the server's stderr (captured; control characters shown, not obeyed) ---\n")
    assert out.returncode == 0 and len(shown) == 2, f"expected one heading:\n{out.stderr[:500]}"
    lines = shown[1].splitlines()
    assert len(lines) == 41, f"expected 40 lines and a cut note, got {len(lines)}"
    assert lines[0] == "  log line 0 \\x1b[31m" + "x" * 48, lines[0]
    assert re.fullmatch(r"  \[… cut: \d+ bytes in all; the first 16384 kept\]", lines[-1]), lines[-1]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("lookup={not json", "the arguments after '=' are not JSON"),
        ("lookup=[1, 2]", "the arguments must be a JSON object"),
        ("lookup=" + "[" * 100_000, "the arguments nest deeper than 200 levels"),
        ("lookup=" + "9" * 5000, "the arguments after '=' are not JSON"),
        ("={}", "give a tool name"),
    ],
    ids=["not-json", "not-an-object", "deep", "huge-int", "no-name"],
)
def test_bad_allow_calls_arguments_are_refused_before_the_server_starts(item, expected, tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("ok", "--allow-calls", item, log=log)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and expected in lines[0], f"{item[:40]!r}: {out.stderr[:300]}"
    assert received(log) == [], f"{item[:40]!r}: the server was started anyway"


def test_strict_turns_custody_gaps_into_exit_1_and_without_it_the_audit_exits_0():
    plain, strict = audit("ok"), audit("ok", "--strict")
    assert re.search(
        r"^0 custody gap\(s\) in the 1 exercised, [1-9]\d* in what the 2 others declare$", plain.stdout, re.M
    ), plain.stdout
    assert (plain.returncode, strict.returncode) == (0, 1), (
        f"expected (0, 1); got {(plain.returncode, strict.returncode)}"
    )
    assert strict.stderr == "", f"gaps are a finding, not an error: {strict.stderr!r}"


def test_prompts_are_got_once_each_over_stdio_and_their_blocks_receipted(tmp_path):
    log = tmp_path / "received.jsonl"
    out = audit("prompts", "--json", log=log)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    prompts = {c["name"]: c for c in report["capabilities"] if c["kind"] == "prompt"}
    assert prompts["summarize"]["status"] == "listed-only", prompts["summarize"]
    assert prompts["summarize"]["why"].startswith("not got: no value known for required argument 'doc'")
    blocks = prompts["attach"]["details"]["blocks"]
    got = [(b["type"], b.get("uri"), b["mime"], b["bytes"], b.get("mimeMismatch")) for b in blocks]
    assert got == [
        ("text", None, "text/plain", 5, None),
        ("resource", "file:///chart.json", "application/json", 70, True),
        ("resource_link", "note://one", None, None, None),
    ], got
    gets = [json.loads(line)["params"]["name"] for line in log.read_text().splitlines() if '"prompts/get"' in line]
    assert gets == ["attach"], f"each prompt got once, none without its required value: {gets}"
    text = audit("prompts").stdout
    assert "block 1: resource file:///chart.json, application/json (wire), 70 bytes, MIME MISMATCH" in text, text


def test_a_prompts_list_error_leaves_the_rest_of_the_report_and_says_the_prompts_were_not_audited():
    out = audit("prompts-error")
    assert out.returncode == 2, f"prompts left out: the audit did not finish; got {out.returncode}"
    assert "resource  note://one" in out.stdout, "the rest of the report stands"
    expected = "INCOMPLETE: prompts/list answered with error -32603: prompts are \\x1b[2J\\x1b[31m\\x9b\\u202ebroken"
    assert expected in out.stdout, out.stdout[-800:]
    assert "the server's prompts were not audited" in out.stdout, out.stdout[-800:]
