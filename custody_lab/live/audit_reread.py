"""The audit's last step: read every listed resource again, list them again, and compare.

Reads must be side-effect free and deterministic: "Two reads of the same URI, close together,
should return the same data unless the data itself changed in between" (seed 004, "Deterministic
Reads"; "Read-Only and No Side Effects"). After its other steps the audit reads each listed
resource it read once (``cache_mode="bypass"``, through the same gate and the same time bound as
every exchange: :data:`~custody_lab.live.audit_report.STOP_EXCHANGES` times ``--timeout`` after
the handshake) and lists ``resources/list`` again, within the bounds of the first listing
(:data:`~custody_lab.live.limits.MAX_PAGES` pages, :data:`~custody_lab.live.limits.MAX_LISTED_ITEMS`
items, :data:`~custody_lab.live.limits.MAX_LISTING_BYTES` bytes; a cut is noted as the first one
is). A read whose content digest or error differs, or an index that lost or gained a URI, is a
change; the report says what changed and what the audit did in between (only reads, or the tools it
called), so a reader can tell a read that changed state from a consented call that did.

The result is :attr:`~custody_lab.live.audit_report.AuditReport.reread`::

    {"changes": ["resource 'notes://index': ...", ...],   # one sentence each, for people (5 URIs at most)
     "calledBetween": ["delete_note", ...],               # tools that ran between the two looks
     "indexGone": [...], "indexAdded": [...],             # URIs, from the two resources/list
     "reread": N, "stopped": bool}                        # how many were read again; time ran out

and each listed resource read again gets ``details["reread"] = {"changed", "contentDigest",
"error"}``.
"""

from __future__ import annotations

__all__ = ["reread_listed"]

from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any

from ..core.text import visible
from .audit_report import CapabilityAudit
from .live_errors import LiveError
from .recorder import Recorder

#: Runs one exchange within the audit's time bound; ``None`` when the bound ran out first.
_Exercise = Callable[[str, str, Callable[[], Awaitable[Any]]], Awaitable[Any]]


def _read_said(details: dict[str, Any]) -> tuple[object, object]:
    """What a read returned, for comparing: its content digest, and its error (if it failed)."""
    return details.get("contentDigest"), details.get("error")


#: URIs a sentence names before it only counts the rest (``indexGone``/``indexAdded`` hold them all).
_SHOWN_URIS = 5


def _some(uris: list[str]) -> str:
    """The first :data:`_SHOWN_URIS` of ``uris``, made visible, and how many more there are."""
    shown = ", ".join(visible(repr(u)) for u in uris[:_SHOWN_URIS])
    more = len(uris) - _SHOWN_URIS
    return shown + (f" and {more} more" if more > 0 else "")


def _what_changed(uri: str, first: tuple[object, object], second: tuple[object, object]) -> str:
    (d1, e1), (d2, e2) = first, second
    if e1 is None and e2 is not None:
        return f"resource {visible(repr(uri))}: the first read returned contents, the second failed ({visible(e2)})"
    if e1 is not None and e2 is None:
        return f"resource {visible(repr(uri))}: the first read failed ({visible(e1)}), the second returned contents"
    if e1 != e2:
        return f"resource {visible(repr(uri))}: the two reads failed differently ({visible(e1)}; {visible(e2)})"
    return f"resource {visible(repr(uri))}: the two reads returned different contents ({d1} then {d2})"


async def reread_listed(
    recorder: Recorder, caps: list[CapabilityAudit], exercise: _Exercise, called: list[str]
) -> dict[str, Any]:
    """Read each listed resource of ``caps`` again that was read once, list the resources again,
    and compare (``caps`` is updated in place with each second read's ``details["reread"]``).

    Args:
        called: the tools the audit called before this step (each a change a consent allowed).
    """
    between = (
        f"between the two, the audit called {', '.join(visible(repr(t)) for t in called)}"
        if called
        else "between the two, the audit only read and listed (it called no tool)"
    )
    before = list(recorder.listed)
    changes: list[str] = []
    done = 0
    stopped = False
    for i, cap in enumerate(caps):
        if cap.kind != "resource" or not cap.exercised:
            continue
        live = await exercise(
            "re-read", cap.name, partial(recorder.read, cap.name, case_id=cap.name, cache_mode="bypass")
        )
        if live is None:
            stopped = True
            break
        done += 1
        rec = live.receipt
        second = (rec.get("contentDigest"), rec.get("error"))
        first = _read_said(dict(cap.details))
        changed = second != first
        caps[i] = replace(
            cap, details={**cap.details, "reread": {"changed": changed, "contentDigest": second[0], "error": second[1]}}
        )
        if changed:
            changes.append(f"{_what_changed(cap.name, first, second)}; {between}")
    out: dict[str, Any] = {"changes": changes, "calledBetween": list(called), "reread": done, "stopped": stopped}
    if stopped:
        return out
    try:
        after = await exercise(
            "listing", "resources/list", partial(recorder.listing.resource_uris, recorder.client, recorder.timeout)
        )
    except LiveError as e:
        changes.append(f"resources/list: the second listing failed ({visible(e)}); {between}")
        return out
    if after is None:
        out["stopped"] = True
        return out
    gone = [u for u in before if u not in after]
    added = [u for u in after if u not in before]
    out |= {"indexGone": gone, "indexAdded": added}
    if gone or added:
        said = [f"lost {_some(gone)}"] if gone else []
        said += [f"gained {_some(added)}"] if added else []
        changes.append(f"resources/list: the index {' and '.join(said)} since the audit's first listing; {between}")
    return out
