"""The blob errors: one :class:`BlobError` (a ``ValueError`` of the lab's family) with a reason code."""

from __future__ import annotations

__all__ = ["BlobError", "BlobTypeError"]

from ...core.errors import CustodyLabError


class BlobError(CustodyLabError, ValueError):
    """A blob or a contents item is malformed; the message says what, where, and what was expected.

    Attributes:
        position: index into the blob text (the original string, whitespace included) of the first
            offending character, or ``None`` when the problem is the blob as a whole (its length or
            size) or a contents item's field.
        reason: a short machine code: ``"bad-character"``, ``"url-safe"``, ``"data-url"``,
            ``"bad-padding"``, ``"bad-length"``, ``"non-canonical"``, ``"too-large"``,
            ``"not-text"``, ``"not-bytes"``, ``"bad-text"``, ``"missing-field"``,
            ``"conflicting-fields"``, ``"wrong-type"``, ``"too-deep"`` (JSON nested deeper than the
            lab parses) or ``"bad-argument"`` (a negative size or limit passed to a function of
            this package).
    """

    def __init__(self, message: str, *, reason: str, position: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.position = position


class BlobTypeError(BlobError, TypeError):
    """A :class:`BlobError` for a value of the wrong type: ``except TypeError`` catches it too."""
