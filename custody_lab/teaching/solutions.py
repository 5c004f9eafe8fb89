"""Reference answers for facilitators: every exercise, its title, its answer and the answer's reason.

Learners never see these unless someone asks: the notebooks only *check* answers. A facilitator
prints the table before a session (``custody-lab solutions``, or ``custody-lab solutions blob``
for one topic) or calls :func:`solutions_table` in a scratch notebook. Each answer comes from
the exercise's own ``reference``, the one the checker and :func:`custody_lab.exercises.reveal`
use, so the table cannot drift from the checks; printing it records nothing in anyone's progress.
Each answer is printed in a form the Check box accepts as typed, quotes included, beside the
notebook that asks it (``nb 04``: read from the notebooks' own ``check``/``ExercisePanel`` calls by
:mod:`~custody_lab.teaching.placement`), and under it the answer's one-line reason (the exercise's
``why``: the fact that decides it), for the room's discussion.
Every line goes through :func:`~custody_lab.core.text.visible`, so nothing printed can move a
terminal's cursor or hide a character.
"""

from __future__ import annotations

__all__ = ["Solution", "configure", "format_solutions", "run", "solutions_table"]

import argparse
import json
import sys
from dataclasses import dataclass

from ..core.text import terminal_json, visible
from .exercises import all_exercises, short_repr
from .placement import exercise_notebooks


@dataclass(frozen=True)
class Solution:
    """One exercise's reference answer.

    Attributes:
        id: the exercise id (``"blob-01"``).
        title: the exercise's short heading.
        answer: the reference answer, as :func:`~custody_lab.exercises.reveal` returns it.
        why: the answer's one-line reason, for the discussion (the exercise's ``why``).
        notebook: the notebook that asks it (``"04-read-text-and-blob-contents.ipynb"``; ``""``
            when no notebook does, or the notebooks are not there).
    """

    id: str
    title: str
    answer: object
    why: str = ""
    notebook: str = ""

    def notebook_text(self) -> str:
        """The notebook column: ``nb 04`` (its number), or ``nb ?`` when none is known."""
        number = self.notebook.split("-", 1)[0]
        return f"nb {number}" if number.isdigit() else "nb ?"

    def answer_text(self) -> str:
        """The answer as a learner would type it (a Python literal, shortened when long)."""
        return short_repr(self.answer)

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly row (an answer JSON cannot hold is given as its Python repr)."""
        try:
            json.dumps(self.answer)
            answer: object = self.answer
        except (TypeError, ValueError):
            answer = repr(self.answer)
        return {"id": self.id, "notebook": self.notebook, "title": self.title, "answer": answer, "why": self.why}


def solutions_table(prefix: str | None = None) -> list[Solution]:
    """Every exercise (or those whose id starts with ``prefix``, in any letter case) with its
    reference answer and reason.

    Example:
        >>> row = solutions_table("BLOB-01")[0]
        >>> row.id, row.answer, row.why.startswith("base64 writes every 3 bytes as 4 characters")
        ('blob-01', 105, True)
        >>> row.notebook
        '04-read-text-and-blob-contents.ipynb'
    """
    wanted = None if prefix is None else prefix.strip().lower()
    chosen = [e for e in all_exercises() if wanted is None or e.id.lower().startswith(wanted)]
    where = exercise_notebooks()
    return [Solution(e.id, e.title, e.reference(), e.why, ", ".join(where.get(e.id, ()))) for e in chosen]


def format_solutions(rows: list[Solution]) -> str:
    """A plain-text table: id, title, answer on one line, the answer's reason on the next; every line
    terminal-safe (:func:`~custody_lab.core.text.visible`).

    Example:
        >>> print(format_solutions([Solution("blob-01", "Count the bytes", 105, "decode first\\x1b[2J", "04-x.ipynb")]))
        blob-01  nb 04  Count the bytes  105
                 why: decode first\\x1b[2J
    """
    if not rows:
        return ""
    id_w = max(len(r.id) for r in rows)
    title_w = max(len(r.title) for r in rows)
    lines = []
    for r in rows:
        lines += [
            f"{r.id:<{id_w}}  {r.notebook_text()}  {r.title:<{title_w}}  {r.answer_text()}",
            f"{'':<{id_w}}  why: {r.why}",
        ]
    return "\n".join(visible(line) for line in lines)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("prefix", nargs="?", help="only exercises whose id starts with this (e.g. blob)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")


def run(args: argparse.Namespace) -> int:
    rows = solutions_table(args.prefix)
    if not rows:
        topics = sorted({e.id.rsplit("-", 1)[0] for e in all_exercises()})
        print(
            visible(f"error: no exercise id starts with {args.prefix!r}; the topics are: {', '.join(topics)}"),
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(terminal_json([r.to_dict() for r in rows]))
    else:
        print(
            "# Reference answers and their reasons, for facilitators (learners check theirs in the notebooks; "
            "nb 04 is the notebook that asks it, notebooks/04-*.ipynb)"
        )
        print(format_solutions(rows))
    return 0
