"""The capstone's second step: audit the server live, calling only the tools consented to.

Start the server over stdio and audit it as ``custody-lab audit`` does (:func:`audit_server`,
:func:`custody_lab.live.audit.audit_command`): every listed resource is read, each template once,
and a tool is called only when a consent names it (an entry of the host's
:class:`~custody_lab.live.presentation.ConsentLog`; the lab's host policy: MCP says clients MUST
consider tool annotations untrusted unless the server is trusted, from 2025-03-26 on (still so in
2026-07-28), so a ``readOnlyHint`` is no consent). :func:`edit_once` and :func:`edit_server` make
the edits that bring a server file in line with its design.
"""

from __future__ import annotations

__all__ = ["allow_call", "audit_server", "edit_once", "edit_server", "everything_server", "python_server"]

import difflib
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.paths import data_path
from ...core.receipts import canonical_json
from .design_review import CapstoneError

if TYPE_CHECKING:  # the live layer (and mcp) load only when a server is audited
    from ...live.audit_report import AuditReport
    from ...live.presentation import Consent


def allow_call(consent: Consent) -> str:
    """A consent (the host's record, :class:`~custody_lab.live.presentation.Consent`) as
    ``custody-lab audit --allow-calls`` writes it: the tool's name, and its arguments as JSON.

    Example:
        >>> from custody_lab.live.presentation import Consent
        >>> by = {"person": "Dana Ruiz"}
        >>> allow_call(Consent("word_count", {"id": "7"}, by)), allow_call(Consent("export", {}, by))
        ('word_count={"id":"7"}', 'export')
    """
    arguments = dict(consent.arguments)
    return f"{consent.tool}={canonical_json(arguments)}" if arguments else consent.tool


def python_server(path: str | Path) -> list[str]:
    """The command that starts a server file with this Python (its ``mcp`` SDK included)."""
    return [sys.executable, str(Path(path).resolve())]


def everything_server(root: str | Path | None = None) -> tuple[list[str] | None, str]:
    """The MCP project's reference "everything" server over stdio, if ``node`` and the pinned
    package (``npm ci --prefix tests/interop``) are here: ``(command, "")``, else ``(None, why)``."""
    import shutil

    base = Path(root) if root is not None else data_path().parent
    script = base / "tests" / "interop" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed here, so the reference server cannot start (skipped)"
    if not (script / "index.js").is_file():
        return None, f"the pinned reference server is not installed ({script}); run npm ci --prefix tests/interop"
    return [node, str(script / "index.js"), "stdio"], ""


def audit_server(
    command: Sequence[str],
    *,
    consents: Sequence[Consent] = (),
    template_values: Sequence[str] = (),
    timeout: float = 10.0,
    connect_timeout: float | None = None,
) -> AuditReport:
    """Audit a stdio server as ``custody-lab audit --follow-links`` does, calling only the tools
    consented to, and reading each ``resource_link`` a called tool returns (at most
    :data:`~custody_lab.live.limits.MAX_LINKS_FOLLOWED` a result): the record says whether the
    server resolved it, and the rubric fails a link it could not.

    It runs :func:`~custody_lab.live.audit.audit_command` in a worker thread, so it also works in a
    notebook cell (whose kernel already runs an event loop).

    Two bounds, as for ``custody-lab audit``:

    Args:
        timeout: seconds each exchange may take once the server is up (each listing page, read,
            completion and call; ``--timeout``); the audit after start-up ends within
            ``TOTAL_EXCHANGES`` (8) times it.
        connect_timeout: seconds the server may take to start and answer the handshake
            (``--connect-timeout``); by default
            :data:`~custody_lab.live.limits.DEFAULT_CONNECT_TIMEOUT` (60 s), because a Python
            server that imports the ``mcp`` SDK on a loaded two-core machine can take ten seconds or
            more to start. The whole audit ends within ``connect_timeout + 8 * timeout``.

    Raises:
        AuditError: the server did not start (in time: the message names ``--connect-timeout``)
            or misbehaved (the message says how).
        CapstoneError: two consents name the same tool.
    """
    from ...live.audit import audit_command
    from ...live.limits import DEFAULT_CONNECT_TIMEOUT

    tools = [c.tool for c in consents]
    twice = sorted({t for t in tools if tools.count(t) > 1})
    if twice:
        raise CapstoneError(f"consent given twice for {', '.join(map(repr, twice))}: give one each", where=twice[0])
    allow = [allow_call(c) for c in consents]
    run = partial(
        audit_command,
        list(command),
        allow_calls=allow,
        template_values=list(template_values),
        follow_links=True,
        timeout=timeout,
        connect_timeout=DEFAULT_CONNECT_TIMEOUT if connect_timeout is None else connect_timeout,
    )
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def edit_once(path: str | Path, old: object, new: object) -> str:
    """Replace the one occurrence of ``old`` in a file by ``new``; return the change as a diff.

    An edit not written yet (``old`` or ``new`` still the stub ``...``, ``None`` or, for ``old``,
    empty) changes nothing and says so: a notebook run unchanged shows what is still to do. An
    edit already made (``old`` gone, ``new`` there once) is not made twice, so a cell can run again.

    Raises:
        CapstoneError: ``old`` or ``new`` is not text, or ``old`` occurs zero or several times
            (the message says how often).
    """
    target = Path(path)
    if old is ... or old is None or old == "" or new is ... or new is None:
        return (
            f"still to do: {target.name} is unchanged (the edit is still a stub: write the text to replace "
            "and its replacement)"
        )
    if not isinstance(old, str) or not isinstance(new, str):
        raise CapstoneError(
            f"{target.name}: an edit replaces text by text; got {type(old).__name__} and {type(new).__name__}",
            where=str(target),
        )
    text = target.read_text(encoding="utf-8")
    count = text.count(old)
    if new and text.count(new) == 1 and old not in text.replace(new, "", 1):
        return f"{target.name}: already edited (the replacement is there once, the text to replace is not)"
    if count != 1:
        raise CapstoneError(
            f"{target.name}: the text to replace occurs {count} times; it must occur once", where=str(target)
        )
    changed = text.replace(old, new)
    target.write_text(changed, encoding="utf-8")
    diff = difflib.unified_diff(text.splitlines(), changed.splitlines(), target.name, target.name, lineterm="", n=1)
    return "\n".join(diff)


def edit_server(path: str | Path, edits: Sequence[tuple[object, object]]) -> str:
    """Apply each ``(old, new)`` edit with :func:`edit_once`, in order; return every diff.

    No edit yet (an empty list) changes nothing and says so. An edit that fails leaves the
    file as the edits before it left it, and the error names which edit (counting from 1).

    Raises:
        CapstoneError: an edit is not a pair, or :func:`edit_once` refused it.
    """
    target = Path(path)
    if not edits:
        return f"still to do: {target.name} is unchanged (no edit written yet)"
    out = []
    for n, edit in enumerate(edits, start=1):
        if not isinstance(edit, tuple | list) or len(edit) != 2:
            raise CapstoneError(f"{target.name}: edit {n} is not a pair (old, new)", where=str(target))
        try:
            out.append(edit_once(target, edit[0], edit[1]))
        except CapstoneError as e:
            raise CapstoneError(f"edit {n}: {e}", where=str(target)) from e
    return "\n".join(out)
