"""A stdio transport for servers the lab did not write: every line checked, every wait bounded.

The SDK's ``stdio_client`` trusts its server: it inherits the server's stderr (raw escape codes
reach the learner's terminal), buffers a stdout line of any length, and a line that is not UTF-8
ends its reader task with an exception the caller sees as a long traceback. The audit talks to
*any* command, so :class:`StdioGuard` starts it itself and stops at the first thing that is wrong,
remembering it in :attr:`StdioGuard.problem` in words a person reads:

- a stdout line longer than :data:`MAX_LINE_BYTES`, not UTF-8, nested deeper than
  :data:`MAX_JSON_DEPTH`, or not a JSON-RPC message (a reply with both ``result`` and ``error``
  is not one: JSON-RPC 2.0 allows one or the other);
- a response whose id no waiting request carries;
- more than :data:`MAX_NOTIFICATIONS` notifications;
- no answer to the handshake (``server/discover`` then ``initialize``) within the timeout;
- the process exiting (its exit code is kept).

Some things are not worth stopping for, and are kept in :attr:`StdioGuard.findings` for the report
(:mod:`~custody_lab.live.wire_checks`): a malformed notification (dropped, never passed to the SDK,
which would print its validation traceback), a notification of a method no MCP revision defines,
and a declared ``size`` that is not a non-negative integer (removed before the SDK's lax models
could turn ``true`` into 1).

Stopping at the first non-message line is the protocol's own rule, not only the lab's host policy:
the stdio transport (MCP 2025-06-18 and 2025-11-25, unchanged in 2026-07-28) says a server MUST
NOT write anything to its stdout that is not a valid MCP message, and messages are delimited by
newlines and MUST NOT contain embedded ones. The limits (line length, depth, notifications) are
the lab's host policy. After a problem the read stream is closed, so the client's waiting request ends at once
(``CONNECTION_CLOSED``) instead of after a timeout. The server's stderr is captured (the first
:data:`STDERR_KEEP_BYTES`, the rest counted) and never reaches the terminal unless the caller shows
:meth:`StdioGuard.stderr_lines`, which are made visible. On exit the process is asked to stop
(stdin closed), then terminated, then killed, each wait bounded.
"""

from __future__ import annotations

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_NOTIFICATIONS",
    "STDERR_KEEP_BYTES",
    "StdioGuard",
    "json_depth_exceeds",
    "parse_frame",
    "request_target",
]

import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..core.text import visible
from .wire_checks import WireFindings, snippet

#: One stdout line (one JSON-RPC message) may be this long; a 10 MiB blob in base64 fits.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: JSON nested deeper than this is refused before it is parsed (no parser recursion at all).
MAX_JSON_DEPTH = 200
#: Notifications accepted over one connection (an audit needs few; a flood is a misbehaviour).
MAX_NOTIFICATIONS = 1000
#: Bytes of the server's stderr kept for the report; the rest is counted, not stored.
STDERR_KEEP_BYTES = 16 * 1024
#: Seconds the process gets after stdin closes, and again after SIGTERM, before it is killed.
_GRACE = 0.5

_HANDSHAKE = ("server/discover", "initialize")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text`` nests arrays/objects deeper than ``limit`` (a linear scan, no parsing).

    Brackets inside strings do not count.

    Example:
        >>> json_depth_exceeds('[[["]]]]]]"]]]', limit=3), json_depth_exceeds("[" * 4, limit=3)
        (False, True)
    """
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def request_target(params: Any) -> str:
    """What a request names, for a finding's sentence: a tool's or prompt's name, a URI, else ``""``."""
    if isinstance(params, Mapping):
        for key in ("name", "uri", "cursor"):
            if isinstance(params.get(key), str):
                return str(params[key])
    return ""


def parse_frame(raw: bytes, verb: str, where: str) -> tuple[types.JSONRPCMessage, str] | str:
    """One frame the server sent (a stdout line, an HTTP body, an event's data): the JSON-RPC message
    and its text, or the sentence that says what is wrong with it (``"{verb} ... {where}"``).

    Example:
        >>> parse_frame(b"hello", "wrote", "on stdout line 1")
        'wrote data that is not a JSON-RPC message on stdout line 1: hello'
        >>> both = b'{"jsonrpc": "2.0", "id": 7, "result": {}, "error": {"code": 1, "message": "no"}}'
        >>> parse_frame(both, "wrote", "on stdout line 2")
        'wrote a reply with both result and error on stdout line 2 (id 7): JSON-RPC 2.0 allows one of them, never both'
    """
    if len(raw) > MAX_LINE_BYTES:
        return f"{verb} more than {MAX_LINE_BYTES // (1024 * 1024)} MiB {where}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"{verb} invalid UTF-8 {where} (byte {e.start}: {raw[e.start : e.start + 4]!r})"
    if json_depth_exceeds(text):
        return f"{verb} JSON nested deeper than {MAX_JSON_DEPTH} levels {where}"
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError:
        return f"{verb} data that is not a JSON-RPC message {where}: {snippet(text.strip(), 60)}"
    if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and _result_and_error(message, text):
        return (
            f"{verb} a reply with both result and error {where} (id {visible(repr(message.id))}): "
            "JSON-RPC 2.0 allows one of them, never both"
        )
    return message, text


def _result_and_error(message: types.JSONRPCResponse | types.JSONRPCError, text: str) -> bool:
    """Whether a reply's JSON carries both ``result`` and ``error`` (JSON-RPC 2.0, section 5: "Either
    the result member or error member MUST be included, but both members MUST NOT be included"); the
    SDK's models read such a reply as an error and drop the result without a word."""
    if isinstance(message, types.JSONRPCResponse) and '"error"' not in text:
        return False  # the usual reply, not parsed twice (the SDK reads a reply with an error member as an error)
    try:  # numbers kept as text: a 5,000-digit one is past Python's int limit, and irrelevant here
        parsed = json.loads(text, parse_int=str, parse_float=str, parse_constant=str)
    except ValueError:  # the adapter read it, so this is not expected; the reply is then left as read
        return False
    return isinstance(parsed, dict) and "result" in parsed and "error" in parsed


class StdioGuard:
    """Start ``command`` and exchange newline-delimited JSON-RPC with it, distrusting every byte.

    Args:
        command: the program and its arguments.
        timeout: seconds the handshake may take.
        env, cwd: the process environment and working directory.

    Attributes:
        problem: the first misbehaviour seen, as a sentence (``None`` while all is well).
        handshake_timed_out: whether that problem is the handshake not answered within ``timeout``
            (a server that may only be slow to start, not one that misbehaved).
        started: whether the process was started (an ``OSError`` before that means it cannot be).
        returncode: the exit code once the process has ended.
        method_of: the method of every request sent, by id (for messages naming a request).
        last_method: the method of the last request sent.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.problem: str | None = None
        self.handshake_timed_out = False
        self.started = False
        self.returncode: int | None = None
        self.method_of: dict[Any, str] = {}
        self.last_method: str | None = None
        self.findings = WireFindings()
        self._target_of: dict[Any, str] = {}
        self._pending: set[Any] = set()
        self._handshake_done = False
        self._notifications = 0
        self._stderr = bytearray()
        self._stderr_total = 0
        self._closing = False  # our own shutdown: what the process does now is not its fault
        self._to_client: MemoryObjectSendStream[SessionMessage | Exception] | None = None

    # -- what the caller shows -------------------------------------------------------------

    def stderr_lines(self, max_lines: int = 40) -> list[str]:
        """The captured stderr, one visible line each, with a last line saying what was cut."""
        text = self._stderr.decode("utf-8", errors="replace")
        # split on newlines only: a carriage return inside a line must be shown, not obeyed
        lines = [visible(line.removesuffix("\r")) for line in text.removesuffix("\n").split("\n") if text]
        cut = len(lines) > max_lines or self._stderr_total > len(self._stderr)
        lines = lines[:max_lines]
        if cut:
            lines.append(f"[… cut: {self._stderr_total} bytes in all; the first {len(self._stderr)} kept]")
        return lines

    # -- the transport ----------------------------------------------------------------------

    def _fail(self, problem: str) -> None:
        if self.problem is None and not self._closing:
            self.problem = problem
        if self._to_client is not None:
            self._to_client.close()

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[Any, Any]]:
        """Start the process; yield the (read, write) streams an ``mcp.Client`` takes.

        Raises:
            OSError: the command cannot be started.
        """
        process = await anyio.open_process(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,  # its own process group, so the whole tree can be stopped
        )
        self.started = True
        to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](0)
        self._to_client = to_client
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._read_stdout, process)
                tg.start_soon(self._read_stderr, process)
                tg.start_soon(self._write_stdin, process, from_client)
                tg.start_soon(self._watch_handshake)
                try:
                    yield client_reads, client_writes
                finally:
                    self._closing = True
                    with anyio.CancelScope(shield=True):
                        await self._stop(process)
                    tg.cancel_scope.cancel()
        finally:
            for stream in (to_client, client_reads, client_writes, from_client):
                stream.close()

    async def _stop(self, process: Process) -> None:
        if process.stdin is not None:
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await process.stdin.aclose()  # the process may be gone already
        # POSIX: signal the whole process group; elsewhere (no killpg) the process itself
        kill_group = getattr(os, "killpg", None)
        for sig in (None, signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
            if sig is not None and process.returncode is None:
                try:
                    if kill_group is not None:
                        kill_group(process.pid, sig)
                    else:
                        process.kill()
                except ProcessLookupError:
                    pass  # already gone
            with anyio.move_on_after(_GRACE):
                await process.wait()
            if process.returncode is not None:
                break
        self.returncode = process.returncode
        if kill_group is not None:  # what the server started and left behind in its group goes too
            with suppress(ProcessLookupError, PermissionError):
                kill_group(process.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        with anyio.move_on_after(_GRACE):
            await process.aclose()  # closes the pipes (no transport left for the loop to finalise)

    async def _watch_handshake(self) -> None:
        await anyio.sleep(self.timeout)
        if not self._handshake_done and self.problem is None and not self._closing:
            self.handshake_timed_out = True
            self._fail(f"did not answer {self.handshake_asked()} within {self.timeout:g} s")

    def handshake_asked(self) -> str:
        """The handshake requests sent so far, in order (``"server/discover then initialize"``)."""
        return " then ".join(m for m in _HANDSHAKE if m in self.method_of.values()) or "the handshake"

    async def _write_stdin(self, process: Process, from_client: MemoryObjectReceiveStream[SessionMessage]) -> None:
        assert process.stdin is not None
        async for item in from_client:
            message = item.message
            if isinstance(message, types.JSONRPCRequest):
                self._pending.add(message.id)
                self.method_of[message.id] = self.last_method = message.method
                self._target_of[message.id] = request_target(message.params)
            data = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
            try:
                await process.stdin.send(data.encode("utf-8"))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                self._fail(self._exit_problem(process, "stopped reading its stdin"))
                return

    def _exit_problem(self, process: Process, what: str) -> str:
        waiting = [self.method_of[i] for i in sorted(self._pending, key=str)]
        during = f" while {', '.join(waiting)} waited for an answer" if waiting else ""
        if process.returncode is not None:
            return f"exited with code {process.returncode}{during}"
        return f"{what}{during}"

    async def _read_stderr(self, process: Process) -> None:
        assert process.stderr is not None
        try:
            async for chunk in process.stderr:
                self._stderr_total += len(chunk)
                room = STDERR_KEEP_BYTES - len(self._stderr)
                if room > 0:
                    self._stderr += chunk[:room]
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return

    async def _read_stdout(self, process: Process) -> None:
        assert process.stdout is not None
        buffer, line_no = bytearray(), 0
        try:
            async for chunk in process.stdout:
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    buffer += chunk[start:end]
                    start = end + 1
                    line_no += 1
                    if not await self._deliver(bytes(buffer), line_no):
                        return
                    buffer.clear()
                buffer += chunk[start:]
                if len(buffer) > MAX_LINE_BYTES:
                    self._fail(f"wrote more than {MAX_LINE_BYTES // (1024 * 1024)} MiB on stdout line {line_no + 1}")
                    return
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        if buffer.strip() and self.problem is None:
            await self._deliver(bytes(buffer), line_no + 1)
        with anyio.move_on_after(_GRACE):
            await process.wait()
        self._fail(self._exit_problem(process, "closed its stdout"))

    async def _deliver(self, raw: bytes, line_no: int) -> bool:
        """Check one stdout line and hand it to the client; ``False`` once a problem was found."""
        if not raw.strip() and len(raw) <= MAX_LINE_BYTES:
            return True
        parsed = parse_frame(raw, "wrote", f"on stdout line {line_no}")
        if isinstance(parsed, str):
            self._fail(parsed)
            return False
        message, text = parsed
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            if message.id not in self._pending:
                waiting = ", ".join(f"{i!r} ({self.method_of[i]})" for i in sorted(self._pending, key=str))
                self._fail(
                    f"answered id {visible(repr(message.id))} on stdout line {line_no}, but no request has "
                    f"that id (waiting: {waiting or 'none'})"
                )
                return False
            self._pending.discard(message.id)
            if isinstance(message, types.JSONRPCResponse) and self.method_of.get(message.id) in _HANDSHAKE:
                self._handshake_done = True
            if isinstance(message, types.JSONRPCResponse):
                fixed = self.findings.fixed_sizes(
                    self.method_of.get(message.id), self._target_of.get(message.id, ""), text
                )
                if fixed is not None:  # the sizes removed: what the SDK reads is the lab's verdict on the wire
                    with suppress(ValidationError):  # removing a key leaves a valid message; else the original
                        message = types.jsonrpc_message_adapter.validate_python(fixed, by_name=False)
        elif isinstance(message, types.JSONRPCNotification):
            self._notifications += 1
            if self._notifications > MAX_NOTIFICATIONS:
                self._fail(f"sent more than {MAX_NOTIFICATIONS} notifications (stdout line {line_no})")
                return False
            if self.findings.drops_notification(message.method, message.params):
                return True  # not passed on: the SDK would print its validation traceback
        if self._to_client is None:
            return False
        try:
            await self._to_client.send(SessionMessage(message))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True
