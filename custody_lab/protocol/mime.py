"""One answer to "is this MIME type text?", for the catalog, the blob checks and the agent context.

A MIME type is compared by its *essence*: the ``type/subtype`` pair without parameters, in lower
case (RFC 2045 §5.1: type, subtype and parameter names are case-insensitive), so
``Text/Plain; Charset=UTF-8`` and ``text/plain`` are the same type. A type is text when

- its top-level type is ``text`` (RFC 2046 §4.1, RFC 6838 §4.2.1);
- it ends in a structured-syntax suffix (RFC 6838 §4.2.8) whose syntax is text: ``+json``
  (RFC 6839), ``+xml`` (RFC 7303) and ``+yaml`` (RFC 9512), so
  ``image/svg+xml`` and ``application/ld+json`` are text;
- or it is one of the ``application/*`` types whose bodies are text by definition: JSON, XML,
  JavaScript, YAML, TOML, SQL, GraphQL, shell scripts, JSON lines (:data:`TEXT_APPLICATION_TYPES`).

Seed 004, "Reading a Resource": text content travels in ``text``, everything else base64 in
``blob``; this module decides which types are text, and nothing else (whether given bytes really are
UTF-8 text is the caller's check).
"""

from __future__ import annotations

__all__ = ["TEXT_APPLICATION_TYPES", "TEXT_SUFFIXES", "essence", "is_text"]

#: ``application/*`` types whose content is text (RFC 8259 JSON, RFC 7303 XML, RFC 9239
#: JavaScript, RFC 9512 YAML, RFC 6922 SQL, and the common unregistered ``x-`` spellings).
TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/sql",
        "application/graphql",
        "application/x-sh",
        "application/x-ndjson",
        "application/jsonl",
    }
)
#: Structured-syntax suffixes (RFC 6838 §4.2.8) whose underlying syntax is text.
TEXT_SUFFIXES: tuple[str, ...] = ("+json", "+xml", "+yaml")


def essence(mime_type: str | None) -> str:
    """The ``type/subtype`` of a MIME type: parameters dropped, whitespace stripped, lower case.

    Args:
        mime_type: a declared MIME type such as ``"Text/Plain; charset=UTF-8"``, or ``None``.

    Returns:
        The essence, ``""`` for ``None`` or an empty string.

    Example:
        >>> essence("Text/Plain; Charset=UTF-8"), essence(None)
        ('text/plain', '')
    """
    return (mime_type or "").split(";", 1)[0].strip().lower()


def is_text(mime_type: str | None) -> bool:
    """Whether content of this MIME type is text (see the module docstring for the rule).

    Args:
        mime_type: a declared MIME type, with or without parameters, in any case; ``None`` when
            the type is absent (not text: nothing says so).

    Returns:
        ``True`` for ``text/*``, the ``+json`` / ``+xml`` / ``+yaml`` suffixes and
        :data:`TEXT_APPLICATION_TYPES`; ``False`` otherwise.

    Example:
        >>> is_text("Text/Plain; charset=UTF-8"), is_text("image/svg+xml"), is_text("image/png")
        (True, True, False)
    """
    base = essence(mime_type)
    top, slash, subtype = base.partition("/")
    if not slash or not top or not subtype:
        return False
    return top == "text" or base in TEXT_APPLICATION_TYPES or base.endswith(TEXT_SUFFIXES)
