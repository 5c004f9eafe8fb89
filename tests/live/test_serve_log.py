"""The receipt log under stress: a full disk, torn lines, malformed entries, oversized requests, a
private folder (issue 24, §2 and §3). Each fixture is written out here, small and named."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest
from mcp import Client

from custody_lab.live.lab_server import LabServer
from custody_lab.live.live_errors import LiveError
from custody_lab.live.serve_log import (
    MAX_FIELD_CHARS,
    MAX_LINE_BYTES,
    MAX_READ_LINE_BYTES,
    ReceiptLog,
    bounded_entry,
    default_log_dir,
    default_log_path,
    private_dir,
    read_receipt_log,
    receipt_log,
    scan_receipt_log,
)
from custody_lab.live.serve_middleware import ServedExchanges

GOOD_1, GOOD_3 = '{"seq":1,"method":"ping","receipt":null}', '{"seq":3,"method":"ping","receipt":null}'


# -- reading: every readable entry shown, every unreadable line named ----------------------------------------


@pytest.mark.parametrize(
    ("line2", "said"),
    [
        ('{"seq":2,"method":"resources/read","receipt":[]}', '"receipt" is a list, not an object or null'),
        ('{"seq":2,"method":"resources/read","receipt":{"custody":5}}', '"receipt.custody" is a number, not an object'),
        ('{"seq":2,"method":7}', '"method" is a number, not a string'),
        ('{"seq":"2","method":"ping"}', '"seq" is a string, not a number'),
        ('{"seq":2,"method":"ping","error":"boom"}', '"error" is a string, not an object or null'),
        ("[" * 100_000 + "]" * 100_000, "nested deeper than the reader follows"),
        ('{"seq":2,"method":"ping","target":"' + "x" * (MAX_READ_LINE_BYTES + 10) + '"}', "bytes long"),
        ("[1, 2]", "a log entry is a JSON object, got a list"),
        ('{"seq":2,"meth', "not JSON"),  # a line torn in the middle of the log
        ("\xff\xfe", "not JSON"),
    ],
    ids=[
        "receipt-list",
        "custody-number",
        "method-number",
        "seq-string",
        "error-string",
        "deep-nesting",
        "huge-line",
        "not-an-object",
        "torn-in-the-middle",
        "binary",
    ],
)
def test_a_malformed_line_is_skipped_and_named_and_the_readable_entries_are_still_shown(tmp_path, line2, said):
    path = tmp_path / "log.jsonl"
    path.write_text(f"{GOOD_1}\n{line2}\n{GOOD_3}\n", encoding="utf-8")
    view = receipt_log(path)  # never a traceback
    assert [e["seq"] for e in view.entries] == [1, 3], (
        f"{said}: expected the readable lines 1 and 3, got {view.entries}"
    )
    assert len(view.problems) == 1 and "log.jsonl, line 2: " in view.problems[0], view.problems
    assert said in view.problems[0], f"expected {said!r} in {view.problems[0]!r}"
    assert view.problems[0] in repr(view) and "line 2" in view._repr_html_(), (repr(view), view._repr_html_())


def test_a_torn_last_line_is_skipped_and_named(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(f'{GOOD_1}\n{{"seq":2,"method":"resources/re', encoding="utf-8")
    scan = scan_receipt_log(path)
    assert [e["seq"] for e in scan.entries] == [1], scan.entries
    assert scan.problems == [f"{path}, line 2: no end of line (still being written, or cut short); skipped"], (
        scan.problems
    )
    assert read_receipt_log(path) == scan.entries


def test_many_unreadable_lines_are_counted_beyond_the_first_twenty(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(GOOD_1 + "\n" + "oops\n" * 50, encoding="utf-8")
    view = receipt_log(path)
    assert (view.total, len(view.problems), view.skipped) == (1, 20, 50), (view.total, view.problems, view.skipped)
    assert "and 30 more unreadable line(s)" in repr(view), repr(view)


# -- writing: one bounded line per request -------------------------------------------------------------------


def test_a_long_field_is_cut_and_named_with_its_length_and_digest():
    import hashlib

    uri = "kb://" + "a" * 100_000
    entry = bounded_entry({"seq": 1, "target": uri, "receipt": {"custody": {"uri": uri}}})
    assert len(entry["target"]) < MAX_FIELD_CHARS and entry["target"].startswith("kb://aaa"), entry["target"][:40]
    sha = hashlib.sha256(uri.encode()).hexdigest()
    cuts = [(c["field"], c["chars"], c["sha256"]) for c in entry["cut"]]
    assert cuts == [("target", len(uri), sha), ("receipt.custody.uri", len(uri), sha)], cuts


def test_a_line_of_many_small_values_is_replaced_by_a_short_line_that_says_what_was_cut(tmp_path):
    log = ReceiptLog(tmp_path / "log.jsonl")
    log.append(
        {"seq": 4, "method": "tools/call", "target": "t", "outcome": None, "receipt": {"n": list(range(50_000))}}
    )
    raw = (tmp_path / "log.jsonl").read_bytes()
    assert len(raw) <= MAX_LINE_BYTES + 1, len(raw)
    (entry,) = read_receipt_log(log.path)
    assert (entry["seq"], entry["method"], entry["receipt"]) == (4, "tools/call", None), entry
    assert entry["cut"][0]["bytes"] > MAX_LINE_BYTES and entry["cut"][0]["over"] == MAX_LINE_BYTES, entry["cut"]


@pytest.mark.anyio
async def test_one_huge_read_request_writes_at_most_one_bounded_line(tmp_path):
    lab = LabServer()
    log = ReceiptLog(tmp_path / "log.jsonl")
    lab.observe(ServedExchanges(lab, log))
    uri = "crm://customer/" + "7" * 3_000_000  # 3 MB: under the HTTP body limit, so a client can send it
    async with Client(lab.mcp) as client:
        try:
            await client.read_resource(uri)
        except Exception:
            pass
    size = (tmp_path / "log.jsonl").stat().st_size
    entries = read_receipt_log(log.path)
    reads = [e for e in entries if e["method"] == "resources/read"]
    assert len(reads) == 1 and size <= MAX_LINE_BYTES * (len(entries)) + len(entries), (size, len(entries))
    assert size < 2 * MAX_LINE_BYTES, f"one 3 MB request wrote {size} bytes to the log"
    assert any(c.get("chars", 0) >= len(uri) for c in reads[0]["cut"]), reads[0]["cut"]


# -- a full disk: said once, still answered truthfully, the torn line named -----------------------------------


class FillingLog(ReceiptLog):
    """A log on a disk that fills after ``room`` more bytes (then ENOSPC), until ``room`` is set again."""

    room = 10**9

    def _write(self, fd: int, data: bytes) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = min(len(data), self.room)
        self.room -= n
        return os.write(fd, data[:n])


@pytest.mark.anyio
async def test_on_a_full_disk_reads_are_answered_truthfully_and_the_failure_is_said_once(tmp_path):
    said: list[str] = []
    log = FillingLog(tmp_path / "log.jsonl", report=said.append)
    lab = LabServer()
    lab.observe(ServedExchanges(lab, log))
    async with Client(lab.mcp, cache=None) as client:  # every read reaches the server
        await client.read_resource("kb://handbook/v4")  # written whole
        log.room = 100  # the disk fills in the middle of the next line
        texts = [(await client.read_resource("kb://handbook/v4")).contents[0].text for _ in range(3)]
        log.room = 10**9  # space again
        await client.read_resource("status://service/current")
    assert all(len(t) == 1800 for t in texts), [len(t) for t in texts]  # the real answer, not error code 0
    assert len(said) == 1 and "cannot write the receipt log" in said[0] and "\n" not in said[0], said
    assert "No space left on device" in said[0], said
    scan = scan_receipt_log(log.path)
    targets = [e["target"] for e in scan.entries if e["method"] == "resources/read"]
    assert targets == ["kb://handbook/v4", "status://service/current"], targets
    assert len(scan.problems) == 1 and "not JSON" in scan.problems[0], scan.problems  # the torn line, named


@pytest.mark.slow
def test_a_real_file_size_limit_tears_a_line_and_serve_says_so_once_without_a_traceback(tmp_path):
    """The real thing: ``RLIMIT_FSIZE`` (SIGXFSZ ignored, so write raises EFBIG) on ``serve`` over stdio."""
    import resource
    import signal
    import subprocess
    import sys

    from ..timing import scaled

    log = tmp_path / "log.jsonl"
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _init_params()},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(
            {"jsonrpc": "2.0", "id": i, "method": "resources/read", "params": {"uri": "kb://handbook/v4"}}
            for i in range(2, 8)
        ),
    ]

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))  # room for about two lines

    out = subprocess.run(
        [sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(log)],
        input="".join(json.dumps(f) + "\n" for f in frames),
        capture_output=True,
        text=True,
        timeout=scaled(60),
        preexec_fn=limit,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    answers = {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}
    reads = [answers[i] for i in range(2, 8)]
    assert all("result" in a and len(a["result"]["contents"][0]["text"]) == 1800 for a in reads), reads
    assert out.stderr.count("cannot write the receipt log") == 1, out.stderr
    assert "Traceback" not in out.stderr and "File too large" in out.stderr, out.stderr
    scan = scan_receipt_log(log)
    assert 1 <= len(scan.entries) < 7 and log.stat().st_size <= 3000, (len(scan.entries), log.stat().st_size)
    assert len(scan.problems) == 1 and "line" in scan.problems[0], scan.problems  # the torn last line, named


def _init_params() -> dict:
    return {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


# -- where: a private folder, never through a planted link ----------------------------------------------------


def test_the_default_log_is_in_a_private_folder_of_the_users_and_the_file_is_0600(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert default_log_path() == tmp_path / "state" / "custody-lab" / "serve-receipts.jsonl", default_log_path()
    log = ReceiptLog(default_log_path(), private=True)
    log.append({"seq": 1, "method": "ping"})
    modes = (stat.S_IMODE(os.stat(default_log_dir()).st_mode), stat.S_IMODE(os.stat(log.path).st_mode))
    assert modes == (0o700, 0o600), [oct(m) for m in modes]


def test_without_xdg_state_home_the_log_is_under_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_log_dir() == tmp_path / ".local" / "state" / "custody-lab", default_log_dir()


def test_a_symlink_planted_at_the_log_is_refused_and_its_target_untouched(tmp_path):
    folder = private_dir(tmp_path / "state")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    (folder / "serve-receipts.jsonl").symlink_to(victim)
    with pytest.raises(LiveError, match="symbolic link") as info:
        ReceiptLog(folder / "serve-receipts.jsonl", private=True)
    assert victim.read_text(encoding="utf-8") == "keep me\n", "the planted link was followed"
    assert "serve-receipts.jsonl" in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.mkdir(mode=0o755), "open to other users (mode 0755)"),
        (lambda p: p.symlink_to(p.parent), "is a symbolic link"),
        (lambda p: p.write_text("x"), "is not a folder"),
    ],
    ids=["open-mode", "symlink", "a-file"],
)
def test_a_log_folder_someone_else_could_use_is_refused(tmp_path, make, said):
    folder = tmp_path / "custody-lab"
    make(folder)
    os.chmod(folder, 0o755, follow_symlinks=False) if folder.is_dir() and not folder.is_symlink() else None
    with pytest.raises(LiveError, match="custody-lab") as info:
        ReceiptLog(folder / "serve-receipts.jsonl", private=True)
    assert said in str(info.value), str(info.value)


def test_a_log_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = private_dir(tmp_path / "theirs")
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(folder).st_uid + 1)
    with pytest.raises(LiveError, match="belongs to another user"):
        private_dir(folder)


def test_a_fifo_at_the_logs_name_is_refused_at_once_by_the_writer_and_the_reader(tmp_path):
    path = tmp_path / "log.jsonl"
    os.mkfifo(path)
    with pytest.raises(LiveError, match="cannot write the receipt log"):
        ReceiptLog(path)
    with pytest.raises(LiveError, match="not a regular file"):
        receipt_log(path)


def test_a_value_nested_deeper_than_the_bound_is_dropped_and_named_even_when_very_deep(tmp_path):
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    log = ReceiptLog(tmp_path / "log.jsonl")
    assert log.append({"seq": 1, "method": "tools/call", "receipt": {"arguments": {"x": deep}}}) is True
    (entry,) = read_receipt_log(log.path)
    assert entry["cut"][0]["nestedBeyond"] == 16 and entry["cut"][0]["field"].startswith("receipt.arguments.x"), entry


def test_a_lone_surrogate_in_a_request_is_logged_as_valid_utf8_json(tmp_path):
    """A refused request whose URI holds ``\\ud800`` (escaped in its JSON body) must not put the raw
    bytes ED A0 80 into the log: every reader of the log would fail on the whole file (issue 39 §1)."""
    log = ReceiptLog(tmp_path / "log.jsonl")
    target = json.loads('"kb://\\ud800"')
    assert log.append({"seq": 1, "method": "resources/read", "target": target, "refused": True})
    raw = (tmp_path / "log.jsonl").read_bytes()
    assert b"\xed\xa0\x80" not in raw
    (line,) = raw.decode("utf-8").splitlines()  # strict UTF-8
    assert json.loads(line)["target"] == target
    assert [e["target"] for e in read_receipt_log(tmp_path / "log.jsonl")] == [target]
