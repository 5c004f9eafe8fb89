"""The caller's gate: its permission check, and the checks the recorder makes with it.

Seed 000, "Recheck authority at every read boundary": every read and every tool call passes the
gate before anything is sent; what a tool result embeds is checked again before it is kept (consent
to the call is not consent to read that URI); a ``resource_link`` is kept as a link and following
it is a *second* read through the same gate. An operation whose side effects nobody declared is
refused before it runs ("Choose by freshness and side effects"). Each check marks the exchange's
:class:`~custody_lab.live.live_receipts.Facts` with what the router needs and a note for people.
"""

from __future__ import annotations

__all__ = ["Gate", "refuse_call", "refuse_embedded", "refuse_follow_up", "refuse_read", "refuse_undeclared"]

from dataclasses import dataclass

from .live_receipts import Facts


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


def refuse_read(f: Facts) -> None:
    """The gate refused to read ``f.target``: nothing is fetched."""
    f.allowed, f.performed, f.side_effects = False, False, False
    f.extra["error"] = f.notes["permission-denied"] = f"the gate refused to read {f.target!r}; nothing was fetched"


def refuse_call(f: Facts) -> None:
    """The gate refused to call the tool ``f.target``: it does not run."""
    f.allowed, f.performed = False, False
    f.extra["error"] = f.notes["permission-denied"] = f"the gate refused to call {f.target!r}; it did not run"


def refuse_undeclared(f: Facts) -> None:
    """Nobody declared the tool's side effects: it is not called (seed 000: reject before execution)."""
    f.performed = False
    source = f.extra["sideEffectsEvidence"]["source"]
    f.extra["error"] = f.notes["side-effects-unknown"] = (
        f"{f.target!r} was not called: {source}; seed 000 says reject an "
        "operation whose side effects nobody can state before it runs"
    )


def refuse_embedded(gate: Gate, f: Facts) -> None:
    """What the result embeds must be readable by the caller; otherwise it is not kept.

    The server should have checked; consent to the call is not consent to read this URI.
    """
    if f.shape == "embedded-resource" and not gate.may_read(f.uri or ""):
        f.allowed, f.content = False, None
        f.notes["permission-denied"] = f"the result embeds {f.uri!r}, which the caller may not read; not kept"


def refuse_follow_up(gate: Gate, f: Facts, uri: str) -> bool:
    """Whether the caller may follow the returned link to ``uri``; a refused one is kept, explained
    and never fetched (``link-follow-up-denied``)."""
    allowed = f.exchange["followUpAllowed"] = gate.may_read(uri)
    if not allowed:
        f.extra["followUp"] = {"uri": uri, "permissionChecked": True, "allowed": False, "fetched": False}
        f.notes["link-follow-up-denied"] = (
            f"the link to {uri!r} is kept, but the caller may not read it; it was not fetched"
        )
    return not allowed
