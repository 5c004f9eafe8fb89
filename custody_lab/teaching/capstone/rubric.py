"""The capstone's rubric: four checked steps over a receipt archive (notebook 09).

:func:`check_archive` reads an archive written by :func:`~custody_lab.teaching.capstone.archive.write_archive`
and checks, naming the line, the capability and the field of every problem:

``routed``
    Every capability of the inventory has a design line, and its receipt is what the router
    decides for the case on that line (a hand-edited receipt fails); a fix changed exactly one
    design input of the inventory's case. Every exercised live capability has a receipt.
``refusals-explained``
    Every refused receipt (design or live), and every resource or template the audit did not
    read, carries a written reason. Accepted, or refused on purpose: nothing refused by accident.
``receipts-complete``
    Every receipt has the seed's fields (``id``, ``accepted``, ``selected`` or ``rejection``, and
    the eight ``custody`` fields); an accepted one has a value in each (the lab's host policy:
    seed 000's receipt, see :mod:`custody_lab.core.receipts`). The summary lists every receipt
    line with its sha256, and the file has exactly those receipts, unchanged.
``calls-consented``
    No tool was called without consent: every tool the live audit exercised has a consent line
    naming the actor who approved it (the lab's host policy; a ``readOnlyHint`` is a hint, and
    MCP 2025-11-25 and 2026-07-28 say clients MUST treat tool annotations as untrusted unless the
    server is trusted).
"""

from __future__ import annotations

__all__ = ["CUSTODY_FIELDS", "RUBRIC_STEPS", "Rubric", "RubricStep", "check_archive", "check_lines", "read_archive"]

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import CaseError, PolicyError
from ...core.loading import load_cases
from ...core.model import INITIATORS, SHAPES, Case, Custody, Policy
from ...core.receipts import digest
from ...core.router import route
from ...core.text import visible
from .archive import ARCHIVE_FORMAT
from .design_review import DESIGN_INPUTS, CapstoneError

#: The rubric's steps, in the order the notebook takes them.
RUBRIC_STEPS: tuple[str, ...] = ("routed", "refusals-explained", "receipts-complete", "calls-consented")

#: The custody fields every receipt carries, in the seed's order: the keys ``Custody.to_dict`` writes.
CUSTODY_FIELDS: tuple[str, ...] = tuple(Custody("application", True, None, None, None, 0, "", None).to_dict())


@dataclass(frozen=True)
class RubricStep:
    """One step of the rubric: passed, or the problems that fail it (each names line and field)."""

    step: str
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Rubric:
    """The whole rubric for one archive."""

    path: str
    steps: tuple[RubricStep, ...]

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.steps)

    def step(self, name: str) -> RubricStep:
        """The step called ``name`` (one of :data:`RUBRIC_STEPS`)."""
        return next(s for s in self.steps if s.step == name)

    def text(self) -> str:
        """The rubric as plain text: one line a step, then its problems (made visible)."""
        lines = [f"rubric for {visible(self.path)}: {'PASSED' if self.passed else 'NOT YET'}"]
        for s in self.steps:
            lines.append(f"{'✓' if s.passed else '✗'} {s.step}")
            lines += [f"    - {visible(p)}" for p in s.problems]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ...views.html import box, escape, untrusted

        items = "".join(
            f"<li><b>{'✓' if s.passed else '✗'} {escape(s.step)}</b>"
            + ("<ul>" + "".join(f"<li>{untrusted(p)}</li>" for p in s.problems) + "</ul>" if s.problems else "")
            + "</li>"
            for s in self.steps
        )
        head = f"<b>Rubric: {'passed' if self.passed else 'not yet'}</b> — {untrusted(self.path)}"
        return box(f"{head}<ul>{items}</ul>", "ok" if self.passed else "error", cls="custody-rubric")

    def __str__(self) -> str:
        return self.text()


def read_archive(path: str | Path) -> list[dict[str, Any]]:
    """The archive's lines as objects.

    Raises:
        CapstoneError: a line is not a JSON object with a ``kind`` (the error names the line).
    """
    target = Path(path)
    out = []
    for n, raw in enumerate(target.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            line = json.loads(raw)
        except ValueError as e:
            raise CapstoneError(f"{target.name} line {n}: not JSON ({e})", where=f"line {n}") from e
        if not isinstance(line, dict) or not isinstance(line.get("kind"), str):
            raise CapstoneError(
                f"{target.name} line {n}: not an archive line (no 'kind')", where=f"line {n}", field="kind"
            )
        out.append(line)
    if not out:
        raise CapstoneError(f"{target.name}: the archive is empty", where=target.name)
    return out


def _who(n: int, line: Mapping[str, Any]) -> str:
    name = line.get("id") if line["kind"] == "design" else line.get("name")
    return f"line {n} ({line['kind']} {visible(repr(name))})"


def _policy(lines: Sequence[Mapping[str, Any]]) -> Policy:
    header = lines[0]
    if header.get("kind") != "header" or header.get("format") != ARCHIVE_FORMAT:
        raise CapstoneError(f"line 1 is not a {ARCHIVE_FORMAT} header", where="line 1", field="format")
    try:
        return Policy.from_dict(header.get("policy") or {})
    except PolicyError as e:
        raise CapstoneError(f"line 1: the header's policy is not a policy ({e})", where="line 1", field="policy") from e


def _routed(lines: Sequence[Mapping[str, Any]], inventory: Sequence[Case] | None, policy: Policy) -> list[str]:
    problems = []
    designed = {line.get("id"): (n, line) for n, line in enumerate(lines, start=1) if line["kind"] == "design"}
    if not designed:
        problems.append("no design line: route the inventory before archiving it")
    given = {c.id: c for c in inventory or ()}
    for missing in [i for i in given if i not in designed]:
        problems.append(f"capability {visible(repr(missing))} of the inventory has no design line (field 'id')")
    for cid, (n, line) in designed.items():
        who = _who(n, line)
        if inventory is not None and cid not in given:
            problems.append(f"{who}: not a capability of the inventory (field 'id')")
        try:
            case = Case.from_dict(line.get("case"))
        except CaseError as e:
            problems.append(f"{who}: its case is not a case ({visible(e)}) (field 'case')")
            continue
        decided = route(case, policy).to_dict()
        receipt = line.get("receipt")
        if receipt != decided:
            differ = [k for k in decided if not isinstance(receipt, Mapping) or receipt.get(k) != decided[k]]
            problems.append(f"{who}: the receipt is not what the router decides for its case (field {differ[:1]})")
        if cid in given:
            changed = [k for k in DESIGN_INPUTS if given[cid].get(k) != case.get(k)]
            fix = line.get("fix") if isinstance(line.get("fix"), Mapping) else None
            if len(changed) > 1:
                problems.append(
                    f"{who}: {len(changed)} design inputs changed ({', '.join(changed)}); a fix changes one"
                )
            elif changed and (fix is None or fix.get("field") != changed[0]):
                problems.append(f"{who}: input {changed[0]!r} changed but the line's fix does not say so (field 'fix')")
    for n, line in enumerate(lines, start=1):
        if line["kind"] == "live" and line.get("exercised") and line.get("receipt") is None:
            problems.append(f"{_who(n, line)}: exercised but has no receipt (field 'receipt')")
    return problems


def _refused_knowingly(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    for n, line in enumerate(lines, start=1):
        if line["kind"] not in ("design", "live"):
            continue
        receipt = line.get("receipt")
        reason = line.get("reason")
        written = _filled(reason)
        if isinstance(receipt, Mapping) and receipt.get("accepted") is False and not written:
            code = visible(receipt.get("rejection"))
            problems.append(f"{_who(n, line)}: refused as {code} with no written reason (field 'reason')")
        unread = line["kind"] == "live" and line.get("capability") != "tool" and not line.get("exercised")
        if unread and not written:
            problems.append(
                f"{_who(n, line)}: not read by the audit ({visible(line.get('why'))}) and no reason (field 'reason')"
            )
    return problems


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


def _complete(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    present = {n: line for n, line in enumerate(lines, start=1) if line.get("receipt") is not None}
    for n, line in present.items():
        missing = _incomplete_fields(line["receipt"])
        if missing:
            problems.append(f"{_who(n, line)}: the receipt lacks {', '.join(missing)}")
    summary = lines[-1]
    if summary.get("kind") != "summary" or not isinstance(summary.get("receipts"), list):
        return [*problems, f"line {len(lines)}: the last line is not the summary (field 'kind')"]
    listed: dict[tuple[object, object], Mapping[str, Any]] = {}
    for item in summary["receipts"]:
        if isinstance(item, Mapping):
            listed[(item.get("kind"), item.get("id"))] = item
    held: dict[tuple[object, object], tuple[int, Mapping[str, Any]]] = {}
    for n, line in present.items():
        key = (line["kind"], line["receipt"].get("id") if isinstance(line["receipt"], Mapping) else None)
        if key in held:
            problems.append(f"{_who(n, line)}: a second receipt for the same capability (field 'id')")
        else:
            held[key] = (n, line)
    for key, item in listed.items():
        name = f"{visible(key[0])} receipt {visible(repr(key[1]))}"
        if key not in held:
            problems.append(
                f"the summary lists {name} (line {item.get('line')}), the archive lacks it (receipt missing)"
            )
        elif digest(held[key][1]["receipt"]) != item.get("sha256"):
            n, line = held[key]
            problems.append(
                f"{_who(n, line)}: the receipt does not match the sha256 the summary lists (field 'sha256')"
            )
    for key, (n, line) in held.items():
        if key not in listed:
            problems.append(f"{_who(n, line)}: a receipt the summary does not list (field 'receipts')")
    return problems


def _consented(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    consents: dict[str, Mapping[str, Any]] = {}
    for n, line in enumerate(lines, start=1):
        if line["kind"] != "consent":
            continue
        approver = line.get("approvedBy")
        if not _filled(approver):
            problems.append(
                f"line {n} (consent {visible(repr(line.get('tool')))}): no actor approved it (field 'approvedBy')"
            )
            continue
        consents[str(line.get("tool"))] = line
    for n, line in enumerate(lines, start=1):
        if line["kind"] == "live" and line.get("capability") == "tool" and line.get("exercised"):
            if str(line.get("name")) not in consents:
                problems.append(f"{_who(n, line)}: the tool was called without a consent line (field 'consent')")
    return problems


def check_lines(
    lines: Sequence[Mapping[str, Any]], *, inventory: Sequence[Case] | None = None, path: str = "(archive)"
) -> Rubric:
    """The rubric over archive lines already read (see :func:`check_archive`)."""
    policy = _policy(lines)
    steps = (
        RubricStep("routed", tuple(_routed(lines, inventory, policy))),
        RubricStep("refusals-explained", tuple(_refused_knowingly(lines))),
        RubricStep("receipts-complete", tuple(_complete(lines))),
        RubricStep("calls-consented", tuple(_consented(lines))),
    )
    return Rubric(path, steps)


def check_archive(path: str | Path, *, inventory: str | Path | Sequence[Case] | None = None) -> Rubric:
    """Check a receipt archive against the rubric's four steps (:data:`RUBRIC_STEPS`).

    Args:
        path: the JSON-lines archive.
        inventory: the inventory the design review started from (a path or cases); with it,
            every capability must have a design line and a fix may change one input of it.

    Raises:
        CapstoneError: the file is not an archive (a line that is not JSON, no header).
    """
    cases = load_cases(inventory) if isinstance(inventory, (str, Path)) else inventory
    return check_lines(read_archive(path), inventory=cases, path=Path(path).name)
