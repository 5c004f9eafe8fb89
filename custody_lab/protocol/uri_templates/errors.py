"""The errors of the URI template engine, and how a message quotes a template that may be huge.

Every error is a :class:`UriTemplateError` (of the lab's ``CustodyLabError`` family and a
``ValueError``) that names the position of the offending character; a template that cannot be
matched back unambiguously raises its subclass :class:`AmbiguousTemplateError`, and an argument of
the wrong type :class:`UriTemplateTypeError` (a ``TypeError`` too).
"""

from __future__ import annotations

__all__ = [
    "EXCERPT_CHARS",
    "AmbiguousTemplateError",
    "UriTemplateError",
    "UriTemplateTypeError",
    "excerpt_window",
    "short_name",
]

from ...core.errors import CustodyLabError

#: An error message quotes at most this many characters of the template, around the position.
EXCERPT_CHARS = 80


def excerpt_window(length: int, position: int | None) -> tuple[int, int]:
    """``(start, end)`` of what is quoted from a template of ``length`` characters: all of it, or
    :data:`EXCERPT_CHARS` characters around ``position`` (from the start when there is none).

    >>> excerpt_window(20, 5), excerpt_window(1000, 500), excerpt_window(1000, 995)
    ((0, 20), (460, 540), (920, 1000))
    """
    if length <= EXCERPT_CHARS:
        return 0, length
    centre = 0 if position is None else position
    start = max(0, min(centre - EXCERPT_CHARS // 2, length - EXCERPT_CHARS))
    return start, start + EXCERPT_CHARS


def _excerpt(template: str, position: int | None) -> str:
    """The template quoted whole, or :data:`EXCERPT_CHARS` characters of it around ``position``."""
    start, end = excerpt_window(len(template), position)
    if (start, end) == (0, len(template)):
        return repr(template)
    return f"{template[start:end]!r} (characters {start}-{end - 1} of {len(template):,})"


def short_name(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for names quoted inside a message.

    >>> short_name("order_id"), short_name("a" * 50, limit=5)
    ('order_id', 'aaaa…')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UriTemplateError(CustodyLabError, ValueError):
    """A template, or a value given to it, that RFC 6570 does not allow.

    The message is the reason, the position and the template, quoted whole when it is at most
    :data:`EXCERPT_CHARS` characters long and otherwise as that many characters around the
    position (a hostile template of a megabyte does not make a megabyte message).

    Attributes:
        template: The template text (whole).
        position: 0-based index of the offending character in ``template``,
            or ``None`` when no single character is to blame.
        reason: The message without the position and the template.
    """

    def __init__(self, message: str, template: str, position: int | None = None) -> None:
        where = "" if position is None else f" at position {position}"
        super().__init__(f"{message}{where} in URI template {_excerpt(template, position)}")
        self.template = template
        self.position = position
        self.reason = message


class AmbiguousTemplateError(UriTemplateError):
    """A valid template that ``match`` cannot read values back from unambiguously."""


class UriTemplateTypeError(UriTemplateError, TypeError):
    """An argument of the wrong type: a value RFC 6570 cannot expand (a float, bytes, a set, a
    nested list), or a template, URI or variables argument that is not text or a mapping.
    ``except TypeError`` catches it too.
    """
