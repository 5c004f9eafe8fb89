"""The receipt log ``custody-lab serve`` writes: one JSON object per line, and a notebook view of it.

A ``resources/read`` or ``tools/call`` line carries a custody receipt built from what the server
actually sent (URI, MIME type, the bytes' size and sha256, provenance, whether the server's state
changed across the exchange), decided by the same rule loop as the simulator; a listing, prompt,
completion or ``ping`` line says what was asked and how many items went back; an ``initialize`` line
names the revision negotiated (``protocolVersion``) and the one asked for (``requestedVersion``);
a request the SDK refused before any handler ran has ``"refused": true``, no receipt and the error
it was sent (:class:`~custody_lab.live.serve_middleware.ServedExchanges` writes them all, one line
per request). :func:`receipt_log` reads the log for a notebook cell.

Bounds (what one request can cost the log). A string longer than :data:`MAX_FIELD_CHARS` is kept as
its first characters, and the entry's ``"cut"`` list names the field with its full length and
sha256; a value nested deeper than :data:`MAX_DEPTH` is cut the same way; a line still longer than
:data:`MAX_LINE_BYTES` is replaced by a short line that keeps ``seq``, ``method``, the outcome and
the error code and records the size and sha256 of what was cut. So one request writes at most
:data:`MAX_LINE_BYTES` (64 KiB) plus the newline, whatever it carried.

Where. The default log lives in a private folder of the user's (:func:`default_log_dir`: mode 0700,
owned by the user, not a symbolic link; anything else is refused), and every write opens the file
with ``O_NOFOLLOW`` (a link planted at its name is refused, never followed), ``O_APPEND`` and mode
0600.

A write that fails (a full disk, a file size limit) is said once on stderr, in one sentence, and the
server goes on answering truthfully; a line the failure cut short is ended before the next entry, and
the reader skips it and names it (:class:`ReceiptLogScan`), as it does every line it cannot read: a
line that is not JSON, not an object, nested too deep, too long, or has a field of the wrong type.

This module imports nothing heavy (no ``mcp``), so the CLI and a notebook can read a log cheaply.
"""

from __future__ import annotations

__all__ = [
    "LOG_COLUMNS",
    "MAX_DEPTH",
    "MAX_FIELD_CHARS",
    "MAX_LINE_BYTES",
    "MAX_PROBLEMS",
    "MAX_READ_LINE_BYTES",
    "ReceiptLog",
    "ReceiptLogScan",
    "ReceiptLogView",
    "bounded_entry",
    "default_log_dir",
    "default_log_path",
    "private_dir",
    "read_receipt_log",
    "receipt_log",
    "scan_receipt_log",
]

import errno
import hashlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.receipts import canonical_json
from ..core.text import visible
from ..views.html import box, code, escape, rows_html, scroll, small
from .live_errors import LiveError

#: A string value longer than this is cut (the lab's own URIs, names and messages are far shorter).
MAX_FIELD_CHARS = 2048
#: A value nested deeper than this is cut (the lab's receipts nest four levels).
MAX_DEPTH = 16
#: The longest line one request may write (UTF-8 bytes, without the newline).
MAX_LINE_BYTES = 64 * 1024
#: The reader skips (and names) a line longer than this without parsing it.
MAX_READ_LINE_BYTES = 1024 * 1024
#: How many unreadable lines a scan names one by one (the rest are counted).
MAX_PROBLEMS = 20
_KEEP_CHARS = 256
_FILE = "serve-receipts.jsonl"


def default_log_dir() -> Path:
    """The private folder the default receipt log lives in (nothing is created here).

    ``$XDG_STATE_HOME/custody-lab`` when that is set to an absolute path, else
    ``~/.local/state/custody-lab`` (the XDG Base Directory default for state), else, with no home
    folder, ``custody-lab-<uid>`` in the temporary folder.

    Example:
        >>> default_log_dir().name.startswith("custody-lab")
        True
    """
    state = os.environ.get("XDG_STATE_HOME", "")
    if state and os.path.isabs(state):
        return Path(state) / "custody-lab"
    try:
        return Path.home() / ".local" / "state" / "custody-lab"
    except RuntimeError:  # no home folder for this user (a container without HOME or passwd entry)
        return Path(tempfile.gettempdir()) / f"custody-lab-{_uid()}"


def default_log_path() -> Path:
    """Where ``custody-lab serve`` appends receipts unless ``--log`` says otherwise.

    Example:
        >>> default_log_path().name
        'serve-receipts.jsonl'
    """
    return default_log_dir() / _FILE


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def private_dir(path: str | Path) -> Path:
    """``path`` as a folder only this user can use: created with mode 0700, or refused.

    An existing folder must be a real folder (not a symbolic link), owned by this user, and closed to
    everyone else (no group or other permission bits).

    Raises:
        LiveError: the folder cannot be made, or is a link, another user's, or open to others.

    Example:
        >>> import tempfile, pathlib, stat
        >>> p = private_dir(pathlib.Path(tempfile.mkdtemp()) / "state")
        >>> oct(stat.S_IMODE(p.stat().st_mode))
        '0o700'
    """
    p = Path(path)
    where = visible(str(p))
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:
            pass
        st = os.lstat(p)
    except OSError as e:
        raise LiveError(f"{where}: cannot make the receipt log's folder ({e.strerror or e})") from e
    if stat.S_ISLNK(st.st_mode):
        raise LiveError(f"{where} is a symbolic link: the receipt log's folder must be a real folder (remove the link)")
    if not stat.S_ISDIR(st.st_mode):
        raise LiveError(f"{where} is not a folder: remove it or pass --log PATH")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise LiveError(f"{where} belongs to another user (uid {st.st_uid}): pass --log PATH in a folder of yours")
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        raise LiveError(
            f"{where} is open to other users (mode {mode:04o}): run `chmod 700 {where}`, or pass --log PATH"
        )
    return p


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def bounded_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` within the log's bounds: long strings and deep values cut, each cut named in ``"cut"``.

    Example:
        >>> e = bounded_entry({"seq": 1, "target": "x" * 3000})
        >>> len(e["target"]) < 300, e["cut"][0]["field"], e["cut"][0]["chars"]
        (True, 'target', 3000)
    """
    cuts: list[dict[str, Any]] = []

    def walk(value: Any, where: str, depth: int) -> Any:
        if isinstance(value, str):
            if len(value) <= MAX_FIELD_CHARS:
                return value
            cuts.append({"field": where, "chars": len(value), "sha256": _digest(value)})
            return value[:_KEEP_CHARS] + "…"
        if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
            cuts.append({"field": where, "nestedBeyond": MAX_DEPTH})
            return None
        if isinstance(value, Mapping):
            return {
                str(k)[:_KEEP_CHARS]: walk(v, f"{where}.{str(k)[:64]}" if where else str(k)[:64], depth + 1)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [walk(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        return value

    out = walk(dict(entry), "", 0)
    if cuts:
        out["cut"] = cuts[:MAX_PROBLEMS] + ([{"more": len(cuts) - MAX_PROBLEMS}] if len(cuts) > MAX_PROBLEMS else [])
    return out


def _line(entry: Mapping[str, Any]) -> str:
    """The one line ``entry`` is written as: bounded, and never over :data:`MAX_LINE_BYTES`."""
    try:
        line = canonical_json(bounded_entry(entry))
    except (TypeError, ValueError) as e:  # a value JSON cannot hold (NaN, an object)
        line = canonical_json({"seq": entry.get("seq"), "method": _short(entry.get("method")), "logError": visible(e)})
    size = len(line.encode("utf-8", "surrogatepass"))
    if size <= MAX_LINE_BYTES:
        return line
    error = entry.get("error")
    short = {
        "seq": entry.get("seq"),
        "run": _short(entry.get("run")),
        "servedAt": _short(entry.get("servedAt")),
        "method": _short(entry.get("method")),
        "target": _short(entry.get("target")),
        "outcome": _short(entry.get("outcome")),
        "error": {"code": error.get("code")} if isinstance(error, Mapping) else None,
        "receipt": None,
        "cut": [{"field": "", "bytes": size, "sha256": _digest(line), "over": MAX_LINE_BYTES}],
    }
    return canonical_json(short)


def _short(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= _KEEP_CHARS else value[:_KEEP_CHARS] + "…"
    return value if isinstance(value, int | float | bool) or value is None else None


class ReceiptLog:
    """An append-only JSON-lines file: one bounded JSON object per line, written as it happens.

    Args:
        path: the log file (its folder is made if missing).
        private: make sure the folder is private (:func:`private_dir`); the default log's folder is.
        report: where a failed write is said, once (``sys.stderr``).

    Attributes:
        failed: the first write failure's sentence, or ``None`` while every write has succeeded.
    """

    def __init__(self, path: str | Path, *, private: bool = False, report: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.failed: str | None = None
        self._torn = False
        self._report = report or (lambda line: print(line, file=sys.stderr, flush=True))
        where = visible(str(self.path))
        if private:
            private_dir(self.path.parent)
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise LiveError(f"--log {where}: cannot make its folder ({e.strerror or e})") from e
        try:
            os.close(self._open())
        except OSError as e:
            raise LiveError(f"--log {where}: cannot write the receipt log ({_why(e)})") from e

    def _open(self) -> int:
        """The log opened for appending, without following a link, as a regular file only."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags | getattr(os, "O_NONBLOCK", 0), 0o600)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file")
        return fd

    def _write(self, fd: int, data: bytes) -> int:
        """One ``os.write`` (a test replaces it to simulate a full disk)."""
        return os.write(fd, data)

    def append(self, entry: Mapping[str, Any]) -> bool:
        """Write ``entry`` as one line; ``False`` when the write failed (said once, never raised)."""
        data = (("\n" if self._torn else "") + _line(entry) + "\n").encode("utf-8", "surrogatepass")
        written = 0
        try:
            fd = self._open()
            try:
                while written < len(data):
                    written += self._write(fd, data[written:])
            finally:
                os.close(fd)
        except OSError as e:
            self._torn = self._torn or 0 < written < len(data)
            if self.failed is None:
                self.failed = (
                    f"custody-lab serve: cannot write the receipt log {visible(str(self.path))} ({_why(e)}); "
                    "requests are still answered, but from now on they may be missing from the log"
                )
                self._report(self.failed)
            return False
        self._torn = False
        return True


def _why(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "it is a symbolic link, which the log never follows"
    return visible(e.strerror or e)


@dataclass
class ReceiptLogScan:
    """What a read of a receipt log found: the readable entries and a sentence for each skipped line.

    Attributes:
        path: the log file.
        entries: every readable entry, oldest first.
        problems: one sentence per skipped line (file, line, what is wrong), at most
            :data:`MAX_PROBLEMS`; ``skipped`` counts them all.
    """

    path: Path
    entries: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: int = 0

    def skip(self, number: int, why: str) -> None:
        self.skipped += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"{visible(str(self.path))}, line {number}: {why}; skipped")


#: The type each known field must have (``None`` allowed where the log writes ``null``).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "seq": (int,),
    "method": (str,),
    "servedAt": (str, type(None)),
    "run": (str, type(None)),
    "target": (str, type(None)),
    "outcome": (str, type(None)),
    "receipt": (dict, type(None)),
    "error": (dict, type(None)),
    "items": (dict, type(None)),
}
_RECEIPT_TYPES: dict[str, tuple[type, ...]] = {"custody": (dict,), "contentDigest": (str, type(None))}
_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true/false",
    type(None): "null",
}


def _wrong_type(entry: dict[str, Any]) -> str | None:
    """The first field of ``entry`` whose type the log never writes, as a phrase; ``None`` when all fit."""
    for where, mapping, types in (("", entry, _FIELD_TYPES), ("receipt.", entry.get("receipt"), _RECEIPT_TYPES)):
        if not isinstance(mapping, dict):
            continue
        for key, allowed in types.items():
            if key in mapping and (not isinstance(mapping[key], allowed) or isinstance(mapping[key], bool)):
                want = " or ".join(dict.fromkeys(_TYPE_NAMES[t] for t in allowed))
                got = _TYPE_NAMES.get(type(mapping[key]), type(mapping[key]).__name__)
                return f'"{where}{key}" is {got}, not {want}'
    return None


def scan_receipt_log(path: str | Path | None = None) -> ReceiptLogScan:
    """Read a receipt log line by line, keeping every readable entry and naming every line skipped.

    A last line without its newline is still being written (or was cut short by a failed write):
    it is skipped and named. The file is read in bounded pieces, so a huge line costs no memory.

    Raises:
        LiveError: the file exists but cannot be read at all (the message names it).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
        >>> _ = p.write_text('{"seq":1}\\n{"seq":"two"}\\n{"seq":3', encoding="utf-8")
        >>> scan = scan_receipt_log(p)
        >>> [e["seq"] for e in scan.entries]
        [1]
        >>> for problem in scan.problems:
        ...     print(problem.split(": ", 1)[1])
        "seq" is a string, not a number; skipped
        no end of line (still being written, or cut short); skipped
    """
    p = Path(path) if path is not None else default_log_path()
    scan = ReceiptLogScan(p)
    try:  # non-blocking, so a FIFO planted at the name cannot make the reader wait for ever
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return scan
    except OSError as e:
        raise LiveError(f"{visible(str(p))}: cannot read the receipt log ({visible(e.strerror or e)})") from e
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise LiveError(f"{visible(str(p))}: the receipt log is not a regular file")
        number = 0
        while True:
            raw = f.readline(MAX_READ_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_READ_LINE_BYTES and not raw.endswith(b"\n"):
                rest = 0
                while (chunk := f.readline(MAX_READ_LINE_BYTES)) and not chunk.endswith(b"\n"):
                    rest += len(chunk)
                scan.skip(number, f"over {MAX_READ_LINE_BYTES} bytes long (the log writes at most {MAX_LINE_BYTES})")
                continue
            if not raw.endswith(b"\n"):
                scan.skip(number, "no end of line (still being written, or cut short)")
                break
            _take(scan, number, raw)
    return scan


def _take(scan: ReceiptLogScan, number: int, raw: bytes) -> None:
    try:
        entry = json.loads(raw)
    except UnicodeDecodeError as e:
        scan.skip(number, f"not UTF-8 (byte {e.start + 1})")
        return
    except json.JSONDecodeError as e:
        scan.skip(number, f"not JSON ({e.msg} at column {e.colno})")
        return
    except RecursionError:
        scan.skip(number, "nested deeper than the reader follows")
        return
    if not isinstance(entry, dict):
        scan.skip(number, f"a log entry is a JSON object, got {_TYPE_NAMES.get(type(entry), type(entry).__name__)}")
        return
    wrong = _wrong_type(entry)
    if wrong is not None:
        scan.skip(number, wrong)
        return
    scan.entries.append(entry)


def read_receipt_log(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Every readable entry of a receipt log, oldest first (``[]`` when the file does not exist yet).

    Lines that cannot be read are skipped; :func:`scan_receipt_log` names them.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
        >>> ReceiptLog(p).append({"seq": 1, "method": "ping"})
        True
        >>> read_receipt_log(p)
        [{'seq': 1, 'method': 'ping'}]
    """
    return scan_receipt_log(path).entries


#: The columns :class:`ReceiptLogView` shows, from each entry.
LOG_COLUMNS = ("seq", "servedAt", "method", "target", "outcome", "bytes", "provenance", "digest")


class ReceiptLogView:
    """A receipt log's last entries as a table (re-run the cell to see new ones).

    Attributes:
        path: the log file.
        entries: the entries shown (the last ``last`` of the file).
        total: how many readable entries the file holds.
        problems: a sentence for each line that could not be read (it is skipped).
    """

    def __init__(
        self, path: Path, entries: list[dict[str, Any]], total: int, problems: list[str] | None = None, skipped: int = 0
    ) -> None:
        self.path, self.entries, self.total = path, entries, total
        self.problems = list(problems or [])
        self.skipped = skipped or len(self.problems)

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per entry (what the table shows; server text is escaped when rendered)."""
        out = []
        for e in self.entries:
            r = _mapping(e.get("receipt"))
            custody = _mapping(r.get("custody"))
            out.append(
                {
                    "seq": e.get("seq"),
                    "servedAt": e.get("servedAt"),
                    "method": e.get("method"),
                    "target": e.get("target"),
                    "outcome": e.get("outcome") or _mapping(e.get("error")).get("code"),
                    "bytes": custody.get("bytes"),
                    "provenance": custody.get("provenance"),
                    "digest": r.get("contentDigest"),
                }
            )
        return out

    def _notes(self) -> list[str]:
        more = self.skipped - len(self.problems)
        return self.problems + ([f"and {more} more unreadable line(s)"] if more > 0 else [])

    def _repr_html_(self) -> str:
        where = code(str(self.path))
        notes = "".join(small(escape(visible(n))) + "<br>" for n in self._notes())
        if not self.entries:
            return box(
                notes + f"No exchanges logged yet in {where}: connect a client to <code>custody-lab serve</code>."
            )
        head = small(f"The last {len(self.entries)} of {self.total} exchanges in {where}")
        return box(notes + head + scroll(rows_html(self.rows(), LOG_COLUMNS)))

    def __repr__(self) -> str:
        lines = [f"{visible(str(self.path))}: {self.total} exchange(s)"] + [visible(n) for n in self._notes()]
        lines += [" ".join(visible(str(row[c])) for c in LOG_COLUMNS[:5]) for row in self.rows()]
        return "\n".join(lines)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def receipt_log(path: str | Path | None = None, last: int = 20) -> ReceiptLogView:
    """The last ``last`` exchanges of the receipt log ``custody-lab serve`` writes (a notebook table).

    Lines that cannot be read are skipped and named above the table (``.problems``).

    Example:
        >>> import tempfile, pathlib
        >>> receipt_log(pathlib.Path(tempfile.mkdtemp()) / "none.jsonl").total
        0
    """
    scan = scan_receipt_log(path)
    entries = scan.entries
    return ReceiptLogView(scan.path, entries[-last:] if last > 0 else [], len(entries), scan.problems, scan.skipped)
