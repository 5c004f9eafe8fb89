"""Transforms are new steps (notebook 04): what a transform record must say, and what it may not hide.

=============  =====  ===================================================================
id             level  task
=============  =====  ===================================================================
transform-01   1      how many bytes of the report an excerpt left out
transform-02   2      which of four transform records the check refuses
transform-03   2      which field the check names in an excerpt record that promises too much
=============  =====  ===================================================================

Seed 000 ("Budget large context without hiding truncation"): the receipt names the summarizer,
the source ranges, the original size, the output size and whether the full material remains
reachable; "success" cannot mean silently dropping the end of a document. Every record here is
made by :mod:`custody_lab.protocol.transforms` and judged by its :func:`check_step`, so every
reference answer is computed. MCP (2026-07-28) has no transform record: keeping one is the lab's
host policy.
"""

from __future__ import annotations

__all__: list[str] = ["BUDGET", "EXERCISES", "REPORT", "SCHEMA", "TOOL_BUDGET"]

import functools
from typing import Any

from ...core.paths import data_path
from ...protocol.catalog import Catalog
from ...protocol.transforms import Source, TransformError, check_step, csv_to_json, excerpt, pdf_to_text, summarise
from ..exercises import Exercise, Mistake
from . import _answers as ans

REPORT = "report://synthetic/weekly-7"
BUDGET = 4096


@functools.cache
def _catalog() -> Catalog:
    return Catalog.load()


def _source(uri: str) -> Source:
    return Source.of(_catalog().read(uri))


# --------------------------------------------------------------------------------------------
# transform-01: what an excerpt left out
# --------------------------------------------------------------------------------------------


def _excerpt_record() -> dict[str, Any]:
    return excerpt(_source(REPORT), BUDGET).step.to_dict()


def _left_out() -> int:
    rng = _excerpt_record()["sourceRange"]
    return int(rng["total"] - (rng["stop"] - rng["start"]))


def _source_bytes() -> int:
    return int(_excerpt_record()["source"]["bytes"])


_TRANSFORM_01 = Exercise(
    id="transform-01",
    title="What did the excerpt leave out?",
    why=(
        "the excerpt's record states the source's size and where the cut stopped: what did not reach context "
        "is the source's bytes minus the bytes kept"
    ),
    level=1,
    prompt=(
        f"The host cut `{REPORT}` to fit a {BUDGET:,}-byte budget with the lab's `excerpt` "
        '(it cuts at the last line end inside the budget). `input_for("transform-01")` is the '
        "step's record. How many bytes of the report did **not** reach context?"
    ),
    input_label=f"the excerpt record of {REPORT}",
    wanted="a number of bytes (a whole number)",
    kind="number",
    given=_excerpt_record,
    reference=_left_out,
    compare=ans.same_number,
    hints=(
        "The record says how big the source is and which part of it the step used.",
        "Subtract the used part (sourceRange.stop - sourceRange.start) from sourceRange.total.",
    ),
    mistakes=(
        Mistake(
            "assumed-the-budget-was-filled",
            lambda a: ans.same_number(a, _source_bytes() - BUDGET),
            f"That assumes the excerpt kept exactly {BUDGET:,} bytes. It cuts at the last line end "
            "inside the budget, so it kept fewer: read sourceRange.stop instead of the budget.",
            example=18000 - BUDGET,
        ),
        Mistake(
            "gave-the-kept-bytes",
            lambda a: ans.same_number(a, _excerpt_record()["bytes"]),
            "That is what reached context (the record's bytes). The question is what was left out.",
            example=4050,
        ),
        Mistake(
            "gave-the-whole-size",
            lambda a: ans.same_number(a, _source_bytes()),
            "That is the size of the whole report. Part of it did reach context: subtract that part.",
            example=18000,
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# transform-02: which records hide truncation
# --------------------------------------------------------------------------------------------


def _records() -> dict[str, dict[str, Any]]:
    """Four records: A and D honest, B and C each hiding a cut in its own way."""
    pdf = pdf_to_text(_source("assets://brochure.pdf")).step.to_dict()
    flag_flipped = {**_excerpt_record(), "truncated": False, "rest": None}
    summary = summarise(_source(REPORT), BUDGET).step.to_dict()
    shrunk = {**summary, "truncated": False, "rest": None, "sourceRange": {**summary["sourceRange"], "total": BUDGET}}
    table = data_path("inventories", "support-desk.csv")
    rows = csv_to_json(Source(table.as_uri(), "text/csv", table.read_bytes()), (0, 5))
    return {"A": pdf, "B": flag_flipped, "C": shrunk, "D": rows.step.to_dict()}


def _refused(record: dict[str, Any]) -> bool:
    try:
        check_step(record)
    except TransformError:
        return True
    return False


def _refused_letters() -> list[str]:
    return [letter for letter, record in _records().items() if _refused(record)]


def _letters(answer: object) -> frozenset[str] | None:
    names = ans.names(answer)
    return None if names is None else frozenset(n.upper() for n in names)


def _has(letter: str) -> Any:
    return lambda a: (found := _letters(a)) is not None and letter in found


_TRANSFORM_02 = Exercise(
    id="transform-02",
    title="Which records hide a cut?",
    why=(
        "check_step refuses a record that says truncated: false while part of its source never reached the "
        "step (a range that stops short, or a source the record under-states); the PDF text is whole and the "
        "CSV table says what it left out"
    ),
    level=2,
    prompt=(
        '`input_for("transform-02")` holds four transform records, `"A"` to `"D"`: the brochure '
        "as text, an excerpt of the weekly report, a heading summary of the same report, and five "
        "rows of a CSV table as JSON. Which records does `check_step` refuse because they hide "
        'that part of the source was left out? Answer with a list of letters, like `["A"]`.'
    ),
    input_label="four transform records, A to D",
    wanted="a list of letters",
    kind="list",
    given=_records,
    reference=_refused_letters,
    compare=lambda a, e: isinstance(e, list) and _letters(a) == frozenset(e),
    hints=(
        "For each record, compare what it says it used (sourceRange) with the whole source "
        "(source.bytes) and with what it says about truncation.",
        "A record can hide a cut two ways: say 'truncated': false for a partial range, or measure "
        "its range against a total smaller than the source.",
    ),
    mistakes=(
        Mistake(
            "refused-the-named-cut",
            _has("D"),
            "D left rows out, but it says so: 'truncated' is true and 'rest' names the rows left "
            "out and where to read them. Naming a cut is honest; hiding one is what is refused.",
            example=["B", "C", "D"],
        ),
        Mistake(
            "refused-the-whole-pdf",
            _has("A"),
            "A used every page of the PDF (pages 1-1 of 1). Its output is smaller because it is "
            "text, not because anything was left out.",
            example=["A", "B", "C"],
        ),
        Mistake(
            "only-the-flag",
            lambda a: _letters(a) == frozenset({"B"}),
            "B is one. Another record never says 'truncated' either, because it measured its range "
            "against less than the whole source: compare each sourceRange.total with source.bytes.",
            example=["B"],
        ),
        Mistake(
            "gave-a-count",
            lambda a: ans.whole_number(a) is not None,
            "Name them: give the list of letters, not how many there are.",
            example=2,
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# transform-03: the field the check names
# --------------------------------------------------------------------------------------------


SCHEMA = "db://shop/schema"
TOOL_BUDGET = 512


def _overpromise() -> dict[str, Any]:
    """An honest excerpt record of the schema, except that it drops the link to the rest and keeps the promise."""
    return {**excerpt(_source(SCHEMA), TOOL_BUDGET).step.to_dict(), "rest": None}


def _named_field() -> str | None:
    try:
        check_step(_overpromise())
    except TransformError as e:
        return e.field
    return None


_TRANSFORM_03 = Exercise(
    id="transform-03",
    title="Which field does the check name?",
    why=(
        "a record that says truncated: true and fullMaterialReachable: true must say where the rest can be "
        "read, and this one leaves that field empty"
    ),
    level=2,
    prompt=(
        f'`input_for("transform-03")` is the record of an excerpt of `{SCHEMA}` that a tool cut to '
        f"a {TOOL_BUDGET}-byte budget. It says `truncated: true` and `fullMaterialReachable: true`, and "
        "`check_step` refuses it. Which field of the record does the refusal name? Answer with the "
        'field\'s name as text, like `"bytes"`.'
    ),
    input_label=f"the excerpt record of {SCHEMA} cut to {TOOL_BUDGET} bytes",
    wanted="a field name, as text",
    kind="text",
    parse="text",
    given=_overpromise,
    reference=_named_field,
    compare=lambda a, e: ans.same_text(a, e),
    hints=(
        "The record promises that the whole schema can still be had. What in the record would "
        "let someone actually get the part that was left out?",
        "Look for the field that links the part left out: it is null here.",
    ),
    mistakes=(
        Mistake(
            "blamed-the-flag",
            lambda a: ans.is_one_of(a, "truncated"),
            "'truncated' is true and the range shows the cut: that part is honest. What does the "
            "record promise, and which field should back the promise up?",
            example="truncated",
        ),
        Mistake(
            "blamed-the-promise",
            lambda a: ans.is_one_of(a, "fullMaterialReachable"),
            "The promise may well be true: the schema is still on the server. The check refuses "
            "the record because it gives no way to reach what was left out. Which field does that?",
            example="fullMaterialReachable",
        ),
        Mistake(
            "blamed-the-range",
            lambda a: ans.is_one_of(a, "sourceRange", "sourceRange.total", "sourceRange.stop"),
            "The range is right: it is counted against the whole schema (source.bytes).",
            example="sourceRange",
        ),
        Mistake(
            "blamed-the-size",
            lambda a: ans.is_one_of(a, "bytes", "source.bytes"),
            f"The excerpt is meant to be smaller than the schema: cutting at the last line end inside "
            f"the {TOOL_BUDGET}-byte budget is what an excerpt does. Look at what the record links, not at its size.",
            example="bytes",
        ),
    ),
)


#: This set's exercises, in lesson order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_TRANSFORM_01, _TRANSFORM_02, _TRANSFORM_03)
