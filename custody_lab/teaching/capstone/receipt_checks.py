"""The rubric's ``receipts-complete`` step: every receipt whole, in its place, and listed once.

A receipt has the seed's fields (seed 000, "Ship a context-custody receipt"), and an accepted one a
value in each custody field (the lab's host policy). It sits under its own capability: its id is
the line's, a live one's actor and shape are ones its kind of capability brings in, and a read's
URI is the resource's or one its template expands to (RFC 6570); and it is one the router can
write (an accepted embed is never over the host's embed limit). The summary lists each receipt
once with its sha256, and its counts of lines, receipts and calls are the lines' own.
"""

from __future__ import annotations

__all__ = ["CUSTODY_FIELDS", "LIVE_SHAPES", "complete_problems"]

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import APPLICATION_SHAPES, INITIATORS, MODEL_SHAPES, SHAPES, Custody, Policy
from ...core.receipts import canonical_json, digest
from ...core.text import visible
from ...protocol.uri_templates import UriTemplateError, match
from .archive_shape import describe_line as _who

#: The custody fields every receipt carries, in the seed's order: the keys ``Custody.to_dict`` writes.
CUSTODY_FIELDS: tuple[str, ...] = tuple(Custody("application", True, None, None, None, 0, "", None).to_dict())


def _filled(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _incomplete_fields(receipt: Any) -> list[str]:
    """The seed receipt fields missing (or, on an accepted receipt, empty) in ``receipt``."""
    if not isinstance(receipt, Mapping):
        return ["receipt"]
    missing = [k for k in ("id", "accepted", "custody") if k not in receipt]
    accepted = receipt.get("accepted")
    if not isinstance(accepted, bool):
        return missing or ["accepted"]
    if accepted and receipt.get("selected") not in SHAPES:
        missing.append("selected")
    if not accepted and not isinstance(receipt.get("rejection"), str):
        missing.append("rejection")
    custody = receipt.get("custody")
    if not isinstance(custody, Mapping):
        return missing + (["custody"] if "custody" not in missing else [])
    missing += [f"custody.{k}" for k in CUSTODY_FIELDS if k not in custody]
    if accepted:
        value = {k: custody.get(k) for k in CUSTODY_FIELDS}
        empty = [k for k in ("uri", "mime", "provenance", "retrievedAt") if not _filled(value[k])]
        if value["actor"] not in INITIATORS:
            empty.append("actor")
        if value["permissionChecked"] is not True:
            empty.append("permissionChecked")
        if isinstance(value["bytes"], bool) or not isinstance(value["bytes"], int) or value["bytes"] < 0:
            empty.append("bytes")
        if not isinstance(value["sideEffects"], bool):
            empty.append("sideEffects")
        missing += [f"custody.{k}" for k in CUSTODY_FIELDS if k in empty and f"custody.{k}" not in missing]
    return missing


#: The shapes a receipt of each kind of live line can select (seed 000, "Separate listed resources
#: from URI templates" and "Distinguish resource links from embedded content": a resource read is
#: listed or templated, a tool returns a link, an embed or a structured result; a prompt is not routed).
LIVE_SHAPES: dict[str, tuple[str, ...]] = {
    "resource": APPLICATION_SHAPES,
    "template": ("templated-resource",),
    "link": APPLICATION_SHAPES,
    "tool": MODEL_SHAPES,
    "prompt": (),
}


def _template_matches(template: str, uri: str) -> bool:
    try:
        return match(template, uri) is not None
    except UriTemplateError:
        return False


def _misplaced(n: int, line: Mapping[str, Any]) -> list[str]:
    """Each way the receipt on line ``n`` is not one of the capability it sits under."""
    receipt = line["receipt"]
    if not isinstance(receipt, Mapping):
        return []
    who = _who(n, line)
    rid = receipt.get("id")
    if line["kind"] == "design":
        if rid != line["id"]:
            return [f"{who}: the receipt is for {visible(repr(rid))}, not the line's capability (field 'receipt.id')"]
        return []
    kind, name = line["capability"], line["name"]
    out = []
    if rid != name:
        out.append(
            f"{who}: the receipt is for {visible(repr(rid))}, but it sits under {visible(kind)} {visible(repr(name))} "
            "(field 'receipt.id')"
        )
    if kind not in LIVE_SHAPES:
        return [*out, f"{who}: {visible(repr(kind))} is not a kind of capability the audit lists (field 'capability')"]
    if not LIVE_SHAPES[kind]:
        return [*out, f"{who}: a {kind} is not routed, so it has no receipt (field 'receipt')"]
    found = receipt.get("custody")
    custody: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    actor, expected = custody.get("actor"), "model" if kind == "tool" else "application"
    if actor in INITIATORS and actor != expected:
        out.append(
            f"{who}: the receipt's actor is {actor!r}, but a {kind}'s context is brought in by the {expected} "
            "(seed 000, 'Decide who initiates the context transfer') (field 'receipt.custody.actor')"
        )
    shape = receipt.get("selected")
    if receipt.get("accepted") is True and shape in SHAPES and shape not in LIVE_SHAPES[kind]:
        out.append(
            f"{who}: the receipt selects {shape}, a shape a {kind} cannot return (a {kind} returns "
            f"{' or '.join(LIVE_SHAPES[kind])}) (field 'receipt.selected')"
        )
    uri = custody.get("uri")
    if receipt.get("accepted") is True and isinstance(uri, str):
        if kind in ("resource", "link") and uri != name:
            out.append(
                f"{who}: the receipt's URI {visible(repr(uri))} is not the {kind} it sits under (moved from another "
                "capability, or the server answered for another URI) (field 'receipt.custody.uri')"
            )
        if kind == "template" and not _template_matches(name, uri):
            out.append(
                f"{who}: the receipt's URI {visible(repr(uri))} is not one the template expands to (RFC 6570) "
                "(field 'receipt.custody.uri')"
            )
    return out


def _counts(lines: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary's counts as the archive's own lines give them (as :func:`~.archive.archive_lines`
    counts), but for ``consents``: a consent added after the audit is judged by the calls step."""
    design = [x for x in lines if x["kind"] == "design"]
    live = [x for x in lines if x["kind"] == "live"]

    def accepted(line: Mapping[str, Any]) -> bool:
        return isinstance(line["receipt"], Mapping) and line["receipt"].get("accepted") is True

    return {
        "design": len(design),
        "designAccepted": sum(accepted(x) for x in design),
        "designFixed": sum(accepted(x) and x["fix"] is not None for x in design),
        "designRefused": sum(not accepted(x) for x in design),
        "live": len(live),
        "liveExercised": sum(x["exercised"] for x in live),
        "toolsCalled": sorted(x["name"] for x in live if x["capability"] == "tool" and x["exercised"]),
    }  # not the consents: each consent line is held against the calls it allows (calls-consented)


def _count_problems(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    claimed, held = lines[-1]["counts"], _counts(lines)
    problems = []
    for key, value in held.items():
        if key not in claimed:
            problems.append(f"line {len(lines)}: the summary's counts lack {key!r} (field 'counts')")
        elif canonical_json(claimed[key]) != canonical_json(value):
            problems.append(
                f"line {len(lines)}: the summary's counts say {key} {visible(canonical_json(claimed[key]))[:200]}, "
                f"the archive's lines hold {visible(canonical_json(value))[:200]} (field 'counts.{key}')"
            )
    return problems


def _over_budget(n: int, line: Mapping[str, Any], policy: Policy) -> list[str]:
    """An accepted embed heavier than the host's embed limit: a receipt the router never writes
    (rule ``embed-over-budget``, seed 001's 4096 B by default), whatever else it claims."""
    receipt = line["receipt"]
    custody = receipt.get("custody") if isinstance(receipt, Mapping) else None
    if not isinstance(custody, Mapping) or receipt.get("accepted") is not True:
        return []
    weighed, limit = custody.get("bytes"), policy.embed_limit_bytes
    if receipt.get("selected") == "embedded-resource" and isinstance(weighed, int) and weighed > limit:
        return [
            f"{_who(n, line)}: the receipt accepts an embed of {weighed} bytes, over the host's embed limit of "
            f"{limit} B: the router refuses that (embed-over-budget), so the receipt was not written by it "
            "(field 'receipt.custody.bytes')"
        ]
    return []


def complete_problems(lines: Sequence[Mapping[str, Any]], policy: Policy | None = None) -> list[str]:
    """Every receipt that is incomplete, out of place or impossible under ``policy``, and every
    difference between the receipts and the summary (its list, its sha256s and its counts)."""
    problems = []
    present = {n: line for n, line in enumerate(lines, start=1) if line.get("receipt") is not None}
    for n, line in present.items():
        missing = _incomplete_fields(line["receipt"])
        if missing:
            problems.append(f"{_who(n, line)}: the receipt lacks {', '.join(missing)}")
        problems += _misplaced(n, line)
        problems += _over_budget(n, line, policy or Policy())
    summary = lines[-1]
    listed: dict[tuple[object, object], tuple[int, Mapping[str, Any]]] = {}
    for i, item in enumerate(summary["receipts"]):
        entry: tuple[object, object] = (item["kind"], item["id"])
        if entry in listed:
            problems.append(
                f"line {len(lines)}: the summary lists {visible(entry[0])} receipt {visible(repr(entry[1]))} twice "
                f"(receipts[{listed[entry][0]}] and receipts[{i}]); it lists each receipt once (field 'receipts')"
            )
            continue
        listed[entry] = (i, item)
    held: dict[tuple[object, object], tuple[int, Mapping[str, Any]]] = {}
    for n, line in present.items():
        rid = line["receipt"].get("id") if isinstance(line["receipt"], Mapping) else None
        key: tuple[object, object] = (line["kind"], rid if isinstance(rid, str) else repr(rid))
        if key in held:
            problems.append(f"{_who(n, line)}: a second receipt for the same capability (field 'id')")
        else:
            held[key] = (n, line)
    for pair, (_, item) in listed.items():
        name = f"{visible(pair[0])} receipt {visible(repr(pair[1]))}"
        if pair not in held:
            problems.append(
                f"the summary lists {name} (line {item.get('line')}), the archive lacks it (receipt missing)"
            )
        elif digest(held[pair][1]["receipt"]) != item.get("sha256"):
            n, line = held[pair]
            problems.append(
                f"{_who(n, line)}: the receipt does not match the sha256 the summary lists (field 'sha256')"
            )
    for pair, (n, line) in held.items():
        if pair not in listed:
            problems.append(f"{_who(n, line)}: a receipt the summary does not list (field 'receipts')")
    return problems + _count_problems(lines)
