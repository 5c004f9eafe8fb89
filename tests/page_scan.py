"""Does a notebook answer a question before it asks it? (issue 22, "nothing on the page answers a
question before it is asked").

For every exercise a notebook asks — the first code cell that names its id in a ``check(...)``,
``ExercisePanel(...)``, ``PredictPanel(...)``, ``PredictThenSee(...)`` or ``reveal(...)`` call — the
scan reads every *earlier* cell (its Markdown or code source, and the text of its outputs once the
notebook is executed) for the distinctive parts of the exercise's reference answer:

- every URI-like string in the reference (``scheme:`` followed by ``/``), and every URI template;
- every number of three or more digits, also written with a thousands separator (``13,950``,
  ``13 950``, ``13_950``);
- for a mapping of short labels (``{"executor": ..., "initiator": ...}``), every ``key: value``
  pair written next to each other in one cell;
- for a short code or label (``"stale-content"``, ``"image/png"``), the code printed in the
  *output* of an earlier cell that also prints one of the scenario's own distinctive inputs (the
  URIs and long strings of ``input_for(id)``): the same scenario's result, shown before it is asked;
- for a list of two or more codes, all of them printed together in one earlier, focused output (a
  few words besides them: a table of every candidate, such as an inventory whose columns or rows
  the learner picks from, is the exercise's material, not its answer);
- for an answer that *selects* from the exercise's own input (the URIs of ``input_for(id)`` that
  pass a test), an earlier output that prints every one of the input's URIs: the scenario worked
  through before it is asked. A URI of the input is not, by itself, a giveaway;
- for a mapping of short labels, an earlier Markdown table that *leads to* one of its labels: a
  column headed by the label's key (``executor label``), not the first column (a first column
  lists the values a table explains, a glossary), with the answer's value in one of its rows. The
  exercise is then a lookup in that table, not a judgement (issue 37 §4, actor-01 and actor-02);
- for a short code or label, the code written in the prose that introduces the question: the
  Markdown cells just before the cell that asks it (after the last code cell), up to the
  exercise's own heading (the heading, the question and its options are the question itself),
  lists and tables left out (a list of every step or option names the choices, not the answer).
  ("Nobody approves it" above a question whose answer is ``nobody``: issue 37 §4, present-02.)

Widget views are not read (their state in the saved notebook is the state at the *end* of the run,
after later cells changed them); a demonstration behind :class:`~custody_lab.widgets.PredictThenSee`
is not computed until the learner predicts, so it never reaches an output here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from custody_lab.exercises import get, input_for
from custody_lab.teaching.exercise_sets import CaseChange

#: The calls that ask an exercise.
ASKS = re.compile(
    r"""\b(?:check|ExercisePanel|PredictPanel|PredictThenSee|reveal)\(\s*["']([a-z][a-z0-9]*-\d{2})["']"""
)
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?=.*[/{])\S+$")
_TAGS = re.compile(r"<[^>]+>")
#: a short code or label: one token, no spaces
_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_./+-]{1,60}$")


def asked_cells(cells: list[Any]) -> dict[str, int]:
    """Exercise id -> index of the first code cell that asks it."""
    found: dict[str, int] = {}
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for exercise_id in ASKS.findall(_source(cell)):
            found.setdefault(exercise_id, index)
    return found


def _source(cell: Any) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _output_text(cell: Any) -> str:
    parts: list[str] = []
    for output in cell.get("outputs", ()) or ():
        if output.get("output_type") == "stream":
            parts.append(_joined(output.get("text", "")))
        data = output.get("data") or {}
        for mime in ("text/plain", "text/html", "text/markdown", "text/latex"):
            if mime in data:
                parts.append(_joined(data[mime]))
    return _TAGS.sub(" ", "\n".join(parts)).replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")


def _joined(value: object) -> str:
    return value if isinstance(value, str) else "".join(str(v) for v in value)  # type: ignore[union-attr]


def _leaves(value: object) -> Iterator[object]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _number_pattern(number: int) -> re.Pattern[str]:
    digits = str(abs(number))
    groups = []
    head = len(digits) % 3 or 3
    groups.append(digits[:head])
    groups.extend(digits[i : i + 3] for i in range(head, len(digits), 3))
    forms = {digits} | {sep.join(groups) for sep in (",", " ", "\u2009", "\u202f", "_", "\u00a0")}
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\d.,])(?:{alternatives})(?![\d]|[.,]\d)")


def distinctive_parts(exercise_id: str) -> tuple[list[tuple[str, re.Pattern[str]]], list[str]]:
    """The reference's parts that may appear nowhere before the question (name, pattern), and the
    short codes that may not be printed beside the scenario's own inputs."""
    exercise = get(exercise_id)
    reference = exercise.reference()
    given = set(_given_uris(exercise_id))
    parts: list[tuple[str, re.Pattern[str]]] = []
    codes: list[str] = []
    for leaf in _leaves(reference):
        if isinstance(leaf, str) and (leaf.strip() in given or leaf.strip() in exercise.prompt):
            continue  # a part of the question itself
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int) and abs(leaf) >= 100:
            parts.append((str(leaf), _number_pattern(leaf)))
        elif isinstance(leaf, float) and abs(leaf) >= 100 and leaf.is_integer():
            parts.append((str(int(leaf)), _number_pattern(int(leaf))))
        elif isinstance(leaf, str) and _URI.match(leaf.strip()):
            uri = leaf.strip()
            parts.append((uri, re.compile(re.escape(uri) + r"(?![\w/{%-])", re.IGNORECASE)))
        elif isinstance(leaf, str) and _CODE.match(leaf.strip()) and not isinstance(reference, dict):
            codes.append(leaf.strip())
    if isinstance(reference, dict):
        pairs = [(str(k), str(v)) for k, v in reference.items() if isinstance(v, str) and _CODE.match(v.strip())]
        if len(pairs) >= 2:
            together = "".join(
                rf"(?=.*?\b{re.escape(k)}\b['\"]?\W{{1,6}}['\"]?{re.escape(v)}(?![\w-]))" for k, v in pairs
            )
            parts.append((", ".join(f"{k}: {v}" for k, v in pairs), re.compile(together, re.DOTALL)))
    return parts, codes


def _given_uris(exercise_id: str) -> list[str]:
    given = input_for(exercise_id)
    if given is None or isinstance(given, CaseChange):
        return []
    return [leaf.strip() for leaf in _leaves(given) if isinstance(leaf, str) and _URI.match(leaf.strip())]


def _selects_from_input(exercise_id: str) -> list[str]:
    """The input's URIs when the reference picks some of them (three or more to pick from)."""
    given = _given_uris(exercise_id)
    reference = [leaf for leaf in _leaves(get(exercise_id).reference()) if isinstance(leaf, str)]
    if len(set(given)) >= 3 and reference and all(r.strip() in given for r in reference):
        return sorted(set(given))
    return []


def _code_list(exercise_id: str) -> list[str]:
    reference = get(exercise_id).reference()
    if not isinstance(reference, list | tuple | set | frozenset):
        return []
    items = [r.strip() for r in reference if isinstance(r, str)]
    if len(items) >= 2 and len(items) == len(reference) and all(_CODE.match(i) and not _URI.match(i) for i in items):
        return items
    return []


_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _focused(output: str, codes: list[str]) -> bool:
    """Every code is in ``output``, and little else is (at most four other words per code)."""
    if not all(re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", output) for c in codes):
        return False
    return len(set(_WORD.findall(output))) <= 5 * len(codes) + 4


def scenario_tokens(exercise_id: str) -> list[str]:
    """The scenario's own distinctive inputs: URIs and long strings of ``input_for(id)``."""
    given = input_for(exercise_id)
    if given is None or isinstance(given, CaseChange):
        return []
    tokens = []
    for leaf in _leaves(given):
        if isinstance(leaf, str):
            text = leaf.strip()
            if _URI.match(text):
                tokens.append(text)
            elif len(text) >= 24 and " " not in text:
                tokens.append(text[:24])
    return tokens


#: A line of a Markdown list or table, or an indented continuation of one.
_LISTED = re.compile(r"^(?:\s*(?:[-*+]|\d+[.)]|\|)\s|\s{2,}\S)")
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")


def _tables(markdown: str) -> Iterator[list[list[str]]]:
    """The Markdown tables of a cell, each as rows of cells (the separator row left out), each cell
    without its backticks, asterisks and surrounding spaces."""
    rows: list[list[str]] = []
    for line in markdown.splitlines() + [""]:
        found = _ROW.match(line)
        if found:
            cells = [c.strip().strip("`*_ ").strip() for c in found.group(1).split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            yield rows
            rows = []


def lookup_tables(exercise_id: str, markdown: str) -> list[str]:
    """The ``key: value`` pairs of a mapping answer that a Markdown table leads to (see above)."""
    reference = get(exercise_id).reference()
    if not isinstance(reference, dict):
        return []
    pairs = [(str(k), v.strip()) for k, v in reference.items() if isinstance(v, str) and _CODE.match(v.strip())]
    if len(pairs) < 2:
        return []
    found = []
    for head, *body in _tables(markdown):
        for column, title in enumerate(head):
            for key, value in pairs:
                if column and re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", title, re.IGNORECASE):
                    if any(len(row) > column and row[column] == value for row in body):
                        found.append(f"{key}: {value}")
    return sorted(set(found))


def _introduction(cells: list[Any], asked: int, exercise_id: str) -> tuple[int, str]:
    """The Markdown just before the asking cell (after the last code cell), up to the exercise's
    own heading: ``(index of its first cell, text)``."""
    start = asked
    while start > 0 and cells[start - 1]["cell_type"] == "markdown":
        start -= 1
    text = "\n".join(_source(cell) for cell in cells[start:asked])
    heading = re.search(rf"^#+ .*`?{re.escape(exercise_id)}`?", text, re.MULTILINE)
    prose = [line for line in (text[: heading.start()] if heading else text).splitlines() if not _LISTED.match(line)]
    return start, "\n".join(prose)


def answers_shown_early(nb: Any) -> list[str]:
    """Every exercise whose answer an earlier cell shows: ``"<id>: <part> in cell <n>"``."""
    cells = list(nb["cells"])
    texts = [(_source(cell), _output_text(cell)) for cell in cells]
    problems: list[str] = []
    for exercise_id, asked in sorted(asked_cells(cells).items(), key=lambda item: item[1]):
        parts, codes = distinctive_parts(exercise_id)
        tokens = scenario_tokens(exercise_id) if codes else []
        selection = _selects_from_input(exercise_id)
        together = _code_list(exercise_id)
        for index in range(asked):
            source, output = texts[index]
            where = f"cell {index} (before the question in cell {asked})"
            for name, pattern in parts:
                for label, text in (("source", source), ("output", output)):
                    if pattern.search(text):
                        problems.append(f"{exercise_id}: {name!r} in the {label} of {where}")
            for answer_code in codes:
                if (
                    tokens
                    and any(t in output for t in tokens)
                    and re.search(rf"(?<![\w-]){re.escape(answer_code)}(?![\w-])", output)
                ):
                    problems.append(f"{exercise_id}: the scenario's result {answer_code!r} in the output of {where}")
            if selection and all(uri in output for uri in selection):
                problems.append(f"{exercise_id}: every URI of its input worked through in the output of {where}")
            if together and _focused(output, together):
                problems.append(f"{exercise_id}: all of its answer's codes {together} in the output of {where}")
            if cells[index]["cell_type"] == "markdown":
                for pair in lookup_tables(exercise_id, source):
                    problems.append(f"{exercise_id}: a table leads to {pair!r} in the source of {where}")
        reference = get(exercise_id).reference()
        if isinstance(reference, str) and _CODE.match(reference.strip()) and not _URI.match(reference.strip()):
            start, intro = _introduction(cells, asked, exercise_id)
            if re.search(rf"(?<![\w-]){re.escape(reference.strip())}(?![\w-])", intro, re.IGNORECASE):
                problems.append(
                    f"{exercise_id}: its answer {reference.strip()!r} in the Markdown that introduces it "
                    f"(cell {start}, before the question in cell {asked})"
                )
    return problems
