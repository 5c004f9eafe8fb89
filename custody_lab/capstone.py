"""The capstone: review a server's design, fix or justify each refusal, audit it, archive and grade.

The public path for lesson 11 (``docs/design.md``, "Public surface"):

    from custody_lab import capstone
    rows = capstone.review_design(cases, fixes=FIXES, reasons=REASONS)
    capstone.check_archive(path, inventory=INVENTORY, audit=report)

The code lives in :mod:`custody_lab.teaching` (the design review and archive, and the rubric);
this module only re-exports it. The audit report's text is ``custody_lab.live.format_report``.
"""

from __future__ import annotations

from .teaching.capstone import (
    ARCHIVE_FORMAT,
    DESIGN_INPUTS,
    GIVEN_INVENTORY,
    RUBRIC_STEPS,
    CapstoneError,
    DesignRow,
    Fix,
    Rubric,
    RubricStep,
    archive_lines,
    audit_server,
    check_archive,
    design_table,
    edit_once,
    edit_server,
    everything_server,
    python_server,
    read_archive,
    review_design,
    write_archive,
)

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
    "archive_lines",
    "audit_server",
    "check_archive",
    "design_table",
    "edit_once",
    "edit_server",
    "everything_server",
    "python_server",
    "read_archive",
    "review_design",
    "write_archive",
]
