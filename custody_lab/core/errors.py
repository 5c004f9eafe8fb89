"""The lab's errors: one base class, specific ``ValueError`` subclasses carrying context."""

from __future__ import annotations

__all__ = ["BudgetError", "CaseError", "CaseFileError", "CustodyLabError", "PolicyError", "Problem", "UnknownCaseError"]

from dataclasses import dataclass


class CustodyLabError(Exception):
    """Base class of every error the lab raises on purpose."""


class CaseError(CustodyLabError, ValueError):
    """A case (or one field of it) is not what the lab expects.

    Attributes:
        field: the camelCase key at fault (``"bytes"``, ``"sideEffects"``), or ``None`` when the
            whole value is wrong (for example a list where a mapping was expected); for an error
            that gathers several problems, the first one's field.
        problems: every problem found, each a ``CaseError`` with its own ``field`` (an error about
            one thing lists itself), so a case with three bad fields reports all three at once.
    """

    def __init__(self, message: str, field: str | None = None, problems: list[CaseError] | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.problems: list[CaseError] = list(problems) if problems else [self]

    @classmethod
    def gather(cls, problems: list[CaseError]) -> CaseError:
        """One error for several problems (``"3 problems: (1) ...; (2) ..."``), or the only one.

        Example:
            >>> e = CaseError.gather([CaseError("field 'a' is bad", "a"), CaseError("field 'b' is bad", "b")])
            >>> str(e), e.field, [p.field for p in e.problems]
            ("2 problems: (1) field 'a' is bad (2) field 'b' is bad", 'a', ['a', 'b'])
        """
        if len(problems) == 1:
            return problems[0]
        listed = " ".join(f"({i}) {p}" for i, p in enumerate(problems, 1))
        return cls(f"{len(problems)} problems: {listed}", problems[0].field, problems)


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


class BudgetError(CustodyLabError, ValueError):
    """A context-budget entry or limit is malformed (an unknown budget, a negative size, a block
    without contents); ``.field`` names the key or argument at fault."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
