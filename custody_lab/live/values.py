"""Live mode's values: frames, the caller's gate, receipts, exchanges, errors and the clock.

Nothing here talks to a server; the transport (:mod:`~custody_lab.live.transport`), the recorder
(:mod:`~custody_lab.live.recorder`) and the session (:mod:`~custody_lab.live.session`) build on it.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_TIMEOUT",
    "FIXTURE_EXCHANGES",
    "RESULT_HINTS",
    "Exchange",
    "Frame",
    "Gate",
    "LiveError",
    "LiveReceipt",
    "LiveTimeout",
    "first_problem",
    "load_jsonschema",
    "run_sync",
    "wire_fields",
    "utc_now",
]

import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import ModuleType
from typing import Any, Literal, TypeVar

import anyio
from pydantic import ValidationError

from ..core.errors import CustodyLabError
from ..core.model import Decision

#: Seconds any single exchange may take before it is abandoned (and recorded as a timeout).
DEFAULT_TIMEOUT = 5.0

_T = TypeVar("_T")


class LiveError(CustodyLabError, ValueError):
    """Live mode refused or could not do something; ``.method`` and ``.target`` say what."""

    def __init__(self, message: str, *, method: str | None = None, target: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.target = target


class LiveTimeout(LiveError, TimeoutError):
    """A bounded wait ran out (the server hung, or no notice arrived)."""


def utc_now() -> str:
    """The current UTC time in the seed's receipt format (milliseconds, ``Z``).

    Example:
        >>> len(utc_now()), utc_now().endswith("Z")
        (24, True)
    """
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def first_problem(e: ValidationError) -> str:
    """One line for a pydantic error: where in the result, and what was wrong."""
    from ..core.text import visible

    errors = e.errors()
    if not errors:
        return visible(e)
    where = ".".join(str(p) for p in errors[0]["loc"]) or "the result"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{visible(where)}: {visible(errors[0]['msg'])}{more}"


def load_jsonschema() -> ModuleType:
    """Import ``jsonschema`` once, without the format modules no check of the lab's uses.

    ``jsonschema``'s format module imports, when installed, a module per optional format check:
    ``rfc3987_syntax`` builds a parser grammar (most of a second; ``iri``), ``isoduration``
    imports ``arrow`` and ``dateutil`` (about 10 ms, a quarter of the import; ``duration``), and
    the others cost 3 ms together (``date-time``, ``hostname``, ``color``, ``json-pointer``,
    ``uri-template``). Neither the SDK's output-schema check nor the audit's passes a format
    checker (in JSON Schema 2020-12 ``format`` is an annotation unless a checker is asked for);
    the one place formats are checked is ``check_schema`` against the metaschemas, which use
    ``uri``, ``uri-reference`` and ``regex`` only, so ``rfc3986_validator`` (uri) is kept and the
    rest are kept out while ``jsonschema`` is imported, and importable again afterwards (issue 15;
    a ``FormatChecker`` made later in the same process checks those formats no more). The
    recorder calls this ahead of the first structured result.

    Example:
        >>> load_jsonschema().__name__
        'jsonschema'
    """
    if "jsonschema" in sys.modules:
        return sys.modules["jsonschema"]
    blocked = [name for name in _UNUSED_FORMAT_MODULES if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import jsonschema
    finally:
        for name in blocked:
            del sys.modules[name]
    return jsonschema


#: Modules ``jsonschema`` imports only for format checks no metaschema uses (see :func:`load_jsonschema`).
_UNUSED_FORMAT_MODULES = (
    "rfc3987_syntax",
    "isoduration",
    "rfc3339_validator",
    "fqdn",
    "webcolors",
    "jsonpointer",
    "uri_template",
)


def wire_fields(obj: Any, keys: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """``obj`` as wire keys (only the fields the server actually sent when ``keys`` are given)."""
    if obj is None:
        return None
    sent = {type(obj).model_fields[n].alias or n for n in obj.model_fields_set}
    wire = obj.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {k: v for k, v in wire.items() if k in sent and (not keys or k in keys)}


#: The result fields 2026-07-28 adds that the extended receipt records (as hints).
RESULT_HINTS = ("ttlMs", "cacheScope", "resultType")


def run_sync(async_fn: Callable[..., Awaitable[_T]], *args: Any) -> _T:
    """Run ``async_fn(*args)`` to completion from synchronous code (the CLI, a script).

    Raises:
        LiveError: inside a running event loop (a Jupyter cell): write ``await async_fn(...)``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(async_fn, *args)
    raise LiveError(
        "an event loop is already running here (a Jupyter kernel runs one): write "
        f"`await {getattr(async_fn, '__name__', 'fn')}(...)` in the cell instead of run_sync"
    )


@dataclass(frozen=True)
class Frame:
    """One JSON-RPC message as it crossed the wire, seen from the client."""

    direction: Literal["client→server", "server→client"]
    message: dict[str, Any]

    def summary(self) -> str:
        """One line: arrow, id, method (or result/error)."""
        m = self.message
        arrow = "→" if self.direction == "client→server" else "←"
        ident = f"#{m['id']} " if "id" in m else ""
        if "method" in m:
            params = m.get("params") or {}
            hint = params.get("uri") or params.get("name") or ""
            return f"{arrow} {ident}{m['method']} {hint}".rstrip()
        if "error" in m:
            return f"{arrow} {ident}error {m['error'].get('code')}: {m['error'].get('message')}"
        return f"{arrow} {ident}result ({', '.join(sorted((m.get('result') or {}).keys()))})"


@dataclass(frozen=True)
class Gate:
    """The caller's own permission check, applied before every read and call.

    URIs are matched by prefix; ``deny`` wins over ``allow``; ``"*"`` in ``allow`` allows any URI
    not denied. ``tools=None`` allows every tool not in ``deny_tools``.

    Example:
        >>> g = Gate(deny=("secret://",))
        >>> g.may_read("kb://handbook/v4"), g.may_read("secret://vault/keys")
        (True, False)
    """

    allow: tuple[str, ...] = ("*",)
    deny: tuple[str, ...] = ("secret://",)
    tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()

    def may_read(self, uri: str) -> bool:
        """Whether the caller may read ``uri``."""
        if any(uri.startswith(p) for p in self.deny):
            return False
        return "*" in self.allow or any(uri.startswith(p) for p in self.allow)

    def may_call(self, name: str) -> bool:
        """Whether the caller may call the tool ``name``."""
        if name in self.deny_tools:
            return False
        return self.tools is None or name in self.tools


@dataclass(frozen=True)
class LiveReceipt:
    """One recorded exchange: the decision, its extended receipt, and what actually came back.

    Attributes:
        case_id: the fixture case (or a name you chose) this exchange stands for.
        decision: the router's decision on the case built from the actual response and the
            exchange's facts (one loop over ``LIVE_RULES``: at most one failed step).
        receipt: the JSON-ready extended receipt (seed shape + live fields).
        content: the bytes or text that came back (for display; never decisive), or ``None``.
        frames: the JSON-RPC frames of this exchange when the session records them.
    """

    case_id: str
    decision: Decision
    receipt: dict[str, Any]
    content: str | bytes | None = None
    frames: tuple[Frame, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.decision.accepted

    @property
    def outcome(self) -> str:
        """The selected shape, or the rejection code."""
        return self.decision.outcome

    @property
    def rejection(self) -> str | None:
        return self.decision.rejection


@dataclass(frozen=True)
class Exchange:
    """One step of the live fixture: which case, and what the client does for it."""

    case_id: str
    kind: Literal["read", "call", "subscribed-read"]
    target: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


#: The six seed cases as real exchanges with the lab server (seed 000, "Run six ... cases").
FIXTURE_EXCHANGES: tuple[Exchange, ...] = (
    Exchange("handbook", "read", "kb://handbook/v4"),
    Exchange("customer-record", "read", "crm://customer/fixture-17"),
    Exchange("generated-report", "call", "generate_report", {"week": 7}),
    Exchange("risk-score", "call", "calculate_risk", {"customer": "crm://customer/fixture-17"}),
    Exchange("live-status", "subscribed-read", "status://service/current"),
    Exchange("approve-draft", "call", "approve_draft", {"draft_id": "9"}),
)
