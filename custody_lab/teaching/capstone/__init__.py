"""The capstone (notebook 11): custody for your own server, from design review to receipt archive.

Seed 000 ends its checklist with "archive its JSON receipt with the design review". The capstone
walks that path for one server, the learner's own or the given notes server
(``data/capstone/notes-server.csv``), one module a step:

1. :mod:`.design_review`: route every capability of the inventory, then fix each refusal by
   changing **one** design input (:func:`change_one_input`, :func:`review_design`) or keep it
   refused with a written reason;
2. :mod:`.live_audit`: start the server over stdio and audit it as ``custody-lab audit`` does
   (:func:`audit_server`), calling a tool only when a consent names it;
3. :mod:`.archive`: :func:`archive_lines` and :func:`write_archive` put every receipt (design and
   live) and every consent in one JSON-lines file, with a summary of sha256s;

and :mod:`.rubric`: :func:`check_archive` checks the file in named steps (:data:`RUBRIC_STEPS`),
re-deriving the design receipts from the inventory and the live lines from the audit report (or
the JSON ``custody-lab audit --json`` wrote, :mod:`.audit_json`), and judging the design itself
(:mod:`.judgement`, :mod:`.against_audit`). Every error is a :class:`CapstoneError`; a malformed
archive is a failed rubric step, not an error.
"""

from __future__ import annotations

__all__ = [
    "ARCHIVE_FORMAT",
    "DESIGN_INPUTS",
    "GIVEN_INVENTORY",
    "RUBRIC_STEPS",
    "CapstoneError",
    "DesignRow",
    "Fix",
    "Rubric",
    "RubricStep",
    "TODO",
    "allow_call",
    "archive_lines",
    "audit_server",
    "change_one_input",
    "check_archive",
    "check_lines",
    "consent_line",
    "design_table",
    "edit_once",
    "edit_server",
    "everything_server",
    "live_receipt",
    "python_server",
    "read_archive",
    "review_design",
    "write_archive",
]

from .archive import ARCHIVE_FORMAT, archive_lines, consent_line, live_receipt, write_archive
from .design_review import (
    DESIGN_INPUTS,
    GIVEN_INVENTORY,
    CapstoneError,
    DesignRow,
    Fix,
    change_one_input,
    design_table,
    review_design,
)
from .live_audit import allow_call, audit_server, edit_once, edit_server, everything_server, python_server
from .rubric import RUBRIC_STEPS, TODO, Rubric, RubricStep, check_archive, check_lines, read_archive
