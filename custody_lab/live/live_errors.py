"""Live mode's errors: :class:`LiveError` (refused or could not), :class:`LiveTimeout` (a bounded
wait ran out), and :func:`first_problem`, the one line a malformed server answer is reported by.

This module imports nothing heavy, so the light parts of live mode (the CLI's argument checks, the
receipt log) can raise these without loading ``mcp``.
"""

from __future__ import annotations

__all__ = ["LiveError", "LiveTimeout", "first_problem"]

from typing import TYPE_CHECKING

from ..core.errors import CustodyLabError
from ..core.text import visible

if TYPE_CHECKING:
    from pydantic import ValidationError


class LiveError(CustodyLabError, ValueError):
    """Live mode refused or could not do something; ``.method`` and ``.target`` say what."""

    def __init__(self, message: str, *, method: str | None = None, target: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.target = target


class LiveTimeout(LiveError, TimeoutError):
    """A bounded wait ran out (the server hung, or no notice arrived)."""


def first_problem(e: ValidationError) -> str:
    """One line for a pydantic error: where in the result, and what was wrong."""
    errors = e.errors()
    if not errors:
        return visible(e)
    where = ".".join(str(p) for p in errors[0]["loc"]) or "the result"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{visible(where)}: {visible(errors[0]['msg'])}{more}"
