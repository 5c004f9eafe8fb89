"""The lab's errors: one base class, specific ``ValueError`` subclasses carrying context."""

from __future__ import annotations

__all__ = ["CaseError", "CaseFileError", "CustodyLabError", "PolicyError", "Problem", "UnknownCaseError"]

from dataclasses import dataclass


class CustodyLabError(Exception):
    """Base class of every error the lab raises on purpose."""


class CaseError(CustodyLabError, ValueError):
    """A case (or one field of it) is not what the lab expects.

    Attributes:
        field: the camelCase key at fault (``"bytes"``, ``"sideEffects"``), or ``None`` when the
            whole value is wrong (for example a list where a mapping was expected).
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class PolicyError(CustodyLabError, ValueError):
    """A policy value is out of range or of the wrong type; ``.field`` names it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Problem:
    """One bad row of a case file: where it is, which field, and what was wrong."""

    location: str  # "cases.csv line 4" or "cases.json line 12 (cases[2])"
    field: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class CaseFileError(CustodyLabError, ValueError):
    """A case file had bad rows. Every problem is listed; the good rows are kept in ``.cases``.

    Attributes:
        path: the file that was read.
        problems: every bad row, in file order.
        cases: the rows that were valid (nothing good is dropped because a neighbour was bad).
    """

    def __init__(self, path: str, problems: list[Problem], cases: list | None = None) -> None:
        self.path = path
        self.problems = list(problems)
        self.cases = list(cases or [])
        lines = [f"{path}: {len(self.problems)} problem(s); {len(self.cases)} good row(s) kept"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class UnknownCaseError(CustodyLabError, KeyError):
    """No case has this id (a ``KeyError``, so ``except KeyError`` keeps working).

    Attributes:
        case_id: the id asked for.
        known: the ids there are.
    """

    def __init__(self, case_id: str, known: list[str]) -> None:
        self.case_id = case_id
        self.known = list(known)
        super().__init__(f"no fixture case {case_id!r}; the cases are: {', '.join(self.known)}")

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0])
