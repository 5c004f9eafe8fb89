"""The receipt log ``custody-lab serve`` writes: one JSON object per line, and a notebook view of it.

A ``resources/read`` or ``tools/call`` line carries a custody receipt built from what the server
actually sent (URI, MIME type, the bytes' size and sha256, provenance, whether the server's state
changed across the exchange), decided by the same rule loop as the simulator; a listing, prompt,
completion or ``ping`` line says what was asked and how many items went back; an ``initialize`` line
names the revision negotiated (``protocolVersion``) and the one asked for (``requestedVersion``);
a request the SDK refused before any handler ran has ``"refused": true``, no receipt and the error
it was sent (:class:`~custody_lab.live.serve_middleware.ServedExchanges` writes them all, one line
per request). :func:`receipt_log`
reads the log for a notebook cell.

This module imports nothing heavy (no ``mcp``), so the CLI and a notebook can read a log cheaply.
"""

from __future__ import annotations

__all__ = [
    "LOG_COLUMNS",
    "ReceiptLog",
    "ReceiptLogView",
    "default_log_path",
    "read_receipt_log",
    "receipt_log",
]

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.receipts import canonical_json
from ..core.text import visible
from ..views.html import box, code, rows_html, scroll, small
from .live_errors import LiveError


def default_log_path() -> Path:
    """Where ``custody-lab serve`` appends receipts unless ``--log`` says otherwise.

    Example:
        >>> default_log_path().name
        'serve-receipts.jsonl'
    """
    return Path(tempfile.gettempdir()) / "custody-lab" / "serve-receipts.jsonl"


class ReceiptLog:
    """An append-only JSON-lines file: one compact JSON object per line, flushed as it is written."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()
        except OSError as e:
            raise LiveError(f"--log {visible(str(self.path))}: cannot write the receipt log ({e.strerror})") from e

    def append(self, entry: Mapping[str, Any]) -> None:
        """Write ``entry`` as one line (the file is opened, appended and closed each time)."""
        with self.path.open("a", encoding="utf-8") as f:
            f.write(canonical_json(dict(entry)) + "\n")


def read_receipt_log(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Every entry of a receipt log, oldest first (``[]`` when the file does not exist yet).

    A last line without its newline is still being written and is left for the next read.

    Raises:
        LiveError: a complete line is not a JSON object (the message names the file and line).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
        >>> ReceiptLog(p).append({"seq": 1, "method": "ping"})
        >>> read_receipt_log(p)
        [{'seq': 1, 'method': 'ping'}]
    """
    p = Path(path) if path is not None else default_log_path()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise LiveError(f"{visible(str(p))}: cannot read the receipt log ({e})") from e
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as e:
            raise LiveError(f"{visible(str(p))}, line {number}: not JSON ({e.msg} at column {e.colno})") from e
        if not isinstance(entry, dict):
            raise LiveError(
                f"{visible(str(p))}, line {number}: a log entry is a JSON object, got {type(entry).__name__}"
            )
        entries.append(entry)
    return entries


#: The columns :class:`ReceiptLogView` shows, from each entry.
LOG_COLUMNS = ("seq", "servedAt", "method", "target", "outcome", "bytes", "provenance", "digest")


class ReceiptLogView:
    """A receipt log's last entries as a table (re-run the cell to see new ones).

    Attributes:
        path: the log file.
        entries: the entries shown (the last ``last`` of the file).
        total: how many entries the file holds.
    """

    def __init__(self, path: Path, entries: list[dict[str, Any]], total: int) -> None:
        self.path, self.entries, self.total = path, entries, total

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per entry (what the table shows; server text is escaped when rendered)."""
        out = []
        for e in self.entries:
            r = e.get("receipt") or {}
            custody = r.get("custody") or {}
            out.append(
                {
                    "seq": e.get("seq"),
                    "servedAt": e.get("servedAt"),
                    "method": e.get("method"),
                    "target": e.get("target"),
                    "outcome": e.get("outcome") or (e.get("error") or {}).get("code"),
                    "bytes": custody.get("bytes"),
                    "provenance": custody.get("provenance"),
                    "digest": r.get("contentDigest"),
                }
            )
        return out

    def _repr_html_(self) -> str:
        where = code(str(self.path))
        if not self.entries:
            return box(f"No exchanges logged yet in {where}: connect a client to <code>custody-lab serve</code>.")
        head = small(f"The last {len(self.entries)} of {self.total} exchanges in {where}")
        return box(head + scroll(rows_html(self.rows(), LOG_COLUMNS)))

    def __repr__(self) -> str:
        lines = [f"{self.path}: {self.total} exchange(s)"]
        lines += [" ".join(visible(str(row[c])) for c in LOG_COLUMNS[:5]) for row in self.rows()]
        return "\n".join(lines)


def receipt_log(path: str | Path | None = None, last: int = 20) -> ReceiptLogView:
    """The last ``last`` exchanges of the receipt log ``custody-lab serve`` writes (a notebook table).

    Example:
        >>> import tempfile, pathlib
        >>> receipt_log(pathlib.Path(tempfile.mkdtemp()) / "none.jsonl").total
        0
    """
    p = Path(path) if path is not None else default_log_path()
    entries = read_receipt_log(p)
    return ReceiptLogView(p, entries[-last:] if last > 0 else [], len(entries))
