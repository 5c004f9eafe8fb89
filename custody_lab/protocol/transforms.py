"""Transforms are new steps: PDF to text, a table to JSON, a summary, an excerpt, each with its record.

Seed 000 ("Preserve URI, MIME type, and provenance"): "If content is transformed ... record the
transform as a new step". Seed 000 ("Budget large context without hiding truncation"): the receipt
names the summarizer, the source ranges, the original size, the output size and whether the full
material remains reachable; "success" cannot mean silently dropping the end of a document.

A :class:`TransformStep` is that record. What it says:

* ``step`` and ``by``: which transform ran, and who ran it;
* ``source``: the URI, MIME type, size and sha256 of what went in;
* ``sourceRange``: which part of the source the transform used, in ``bytes``, ``pages`` or
  ``rows``, as ``start`` (counted from 0) and ``stop`` (not included) out of ``total``;
* ``truncated``: whether the range leaves part of the source out;
* ``mimeType``, ``bytes``, ``sha256``: what came out (the same words as the live agent context's
  transform steps);
* ``rest``: where the part left out can still be read (a URI and the missing ranges), and
  ``fullMaterialReachable``: whether the whole source can still be had.

MCP 2026-07-28 has no field for any of this, and its ``resources/read`` takes a ``uri`` and no
range: whatever part of a resource a host uses is the host's choice, so recording it is the lab's
host policy. :func:`check_step` refuses a record that hides truncation (a partial range said to be
complete, a total that does not match the source, a claim that the rest is reachable with no link
to it); :func:`verify` recomputes a record from the bytes; :func:`with_transforms` adds the steps
to a receipt and checks that they chain. The module is pure: standard library only.
"""

from __future__ import annotations

__all__ = [
    "MAX_SUMMARY_BYTES",
    "UNITS",
    "Source",
    "SourceRange",
    "TransformError",
    "TransformStep",
    "Transformed",
    "Unit",
    "check_step",
    "csv_to_json",
    "excerpt",
    "pdf_to_text",
    "summarise",
    "verify",
    "with_transforms",
]

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.errors import CustodyLabError
from ..core.receipts import canonical_json
from .catalog import ReadResult
from .mime import essence
from .pdf_text import PdfError, extract_text
from .text_structure import TextStructureError, csv_table, headings, utf8_cut

Unit = Literal["bytes", "pages", "rows"]
#: The units a source range is counted in.
UNITS: tuple[str, ...] = ("bytes", "pages", "rows")
#: Who runs the lab's transforms (the ``by`` of their records).
_HOST = "host (custody_lab.protocol.transforms)"
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class TransformError(CustodyLabError, ValueError):
    """A transform cannot run, or its record is refused; ``field`` names the key at fault.

    Attributes:
        field: the record's key, dotted for a nested one (``"sourceRange.total"``), or the
            transform's argument (``"rows"``); ``None`` when the whole value is wrong.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Source:
    """What a transform reads: the bytes of one resource and where they came from.

    Attributes:
        uri: the resource's URI (kept in the record, so the whole can be read again).
        mime: its MIME type.
        data: its bytes.
        rereadable: whether the URI can be read again for the rest (false for content that
            arrived inline with no readable address).
    """

    uri: str
    mime: str | None
    data: bytes = field(repr=False)
    rereadable: bool = True

    @classmethod
    def of(cls, read: ReadResult) -> Source:
        """The source a catalog read gives.

        Example:
            >>> from custody_lab.protocol.catalog import Catalog
            >>> Source.of(Catalog.load().read("assets://brochure.pdf"))
            Source(uri='assets://brochure.pdf', mime='application/pdf', rereadable=True)
        """
        return cls(read.uri, read.mime_type, read.data)


@dataclass(frozen=True)
class SourceRange:
    """The part of a source a transform used: ``start`` (from 0) up to ``stop`` (not included).

    Example:
        >>> r = SourceRange("bytes", 0, 4096, 18000)
        >>> r.covers_all, r.missing(), r.describe()
        (False, ((4096, 18000),), 'bytes 1–4,096 of 18,000')
    """

    unit: Unit
    start: int
    stop: int
    total: int

    @property
    def covers_all(self) -> bool:
        return self.start == 0 and self.stop == self.total

    @property
    def used(self) -> int:
        return self.stop - self.start

    def missing(self) -> tuple[tuple[int, int], ...]:
        """The ranges of the source the transform did not use."""
        parts = ((0, self.start), (self.stop, self.total))
        return tuple(p for p in parts if p[0] < p[1])

    def describe(self) -> str:
        """The range in words, counted from 1 as people count pages and rows."""
        if self.used == 0:
            return f"no {self.unit} of {self.total:,}"
        return f"{self.unit} {self.start + 1:,}–{self.stop:,} of {self.total:,}"

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "start": self.start, "stop": self.stop, "total": self.total}


@dataclass(frozen=True)
class TransformStep:
    """The record of one transform (see the module docstring for each field's meaning)."""

    step: str
    by: str
    source_uri: str
    source_mime: str | None
    source_bytes: int
    source_sha256: str
    source_range: SourceRange
    mime: str
    size: int
    sha256: str
    rest_uri: str | None
    full_material_reachable: bool

    @property
    def truncated(self) -> bool:
        return not self.source_range.covers_all

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON, in the key order of the module docstring."""
        rng = self.source_range
        rest = None
        if self.rest_uri is not None:
            rest = {"uri": self.rest_uri, "unit": rng.unit, "ranges": [list(p) for p in rng.missing()]}
        source: dict[str, Any] = {"uri": self.source_uri, "mimeType": self.source_mime}
        source |= {"bytes": self.source_bytes, "sha256": self.source_sha256}
        return {
            "step": self.step,
            "by": self.by,
            "source": source,
            "sourceRange": rng.to_dict(),
            "truncated": self.truncated,
            "mimeType": self.mime,
            "bytes": self.size,
            "sha256": self.sha256,
            "rest": rest,
            "fullMaterialReachable": self.full_material_reachable,
        }

    def describe(self) -> str:
        """One line for people: what ran, on what, which part, and what is left where."""
        out = f"{self.step}: {self.source_uri} ({self.source_bytes:,} bytes) -> {self.mime}, {self.size:,} bytes"
        used = f"used {self.source_range.describe()}"
        if not self.truncated:
            return f"{out}; {used}: nothing left out"
        if self.rest_uri is None:
            return f"{out}; {used}: TRUNCATED, and the rest cannot be read again"
        return f"{out}; {used}: TRUNCATED, the rest stays readable at {self.rest_uri}"


@dataclass(frozen=True)
class Transformed:
    """A transform's output and its record.

    Attributes:
        output: the bytes the transform produced.
        step: the :class:`TransformStep` that records it.
    """

    output: bytes = field(repr=False)
    step: TransformStep

    @property
    def text(self) -> str:
        return self.output.decode("utf-8")

    def as_source(self) -> Source:
        """The output as the source of a next step (same URI: the whole is read there again)."""
        return Source(self.step.source_uri, self.step.mime, self.output, self.step.full_material_reachable)


def _record(name: str, source: Source, rng: SourceRange, mime: str, output: bytes) -> Transformed:
    if not 0 <= rng.start <= rng.stop <= rng.total:
        raise TransformError(f"{name}: the range {rng.start}..{rng.stop} is not inside 0..{rng.total}", "range")
    rest = source.uri if (source.rereadable and not rng.covers_all) else None
    reachable = source.rereadable and bool(source.uri)
    step = TransformStep(
        name, _HOST, source.uri, source.mime, len(source.data), _sha256(source.data), rng, mime, len(output),
        _sha256(output), rest, reachable,
    )  # fmt: skip
    return Transformed(output, step)


def _window(name: str, total: int, span: tuple[int, int] | None) -> tuple[int, int]:
    start, stop = (0, total) if span is None else span
    if not (isinstance(start, int) and isinstance(stop, int)) or not 0 <= start <= stop <= total:
        raise TransformError(f"{name}: {span!r} is not a range start..stop inside 0..{total}", name)
    return start, stop


# --------------------------------------------------------------------------------------------
# The transforms
# --------------------------------------------------------------------------------------------


def pdf_to_text(source: Source, pages: tuple[int, int] | None = None) -> Transformed:
    """The text of a PDF's pages ``pages`` (start from 0, stop not included; all by default),
    pages separated by a form feed, as ``text/plain``.

    Raises:
        TransformError: the bytes are not a PDF the lab reads (``field`` is ``"source"``), or the
            page range is outside the document (``"pages"``).

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> done = pdf_to_text(Source.of(Catalog.load().read("assets://brochure.pdf")))
        >>> done.text, done.step.source_range.describe(), done.step.truncated
        ('Brightgrid brochure', 'pages 1–1 of 1', False)
    """
    try:
        document = extract_text(source.data)
    except PdfError as e:
        raise TransformError(f"pdf-text: {source.uri}: {e}", "source") from e
    start, stop = _window("pages", document.page_count, pages)
    text = "\f".join(document.pages[start:stop])
    rng = SourceRange("pages", start, stop, document.page_count)
    return _record("pdf-text", source, rng, "text/plain", text.encode("utf-8"))


def csv_to_json(source: Source, rows: tuple[int, int] | None = None) -> Transformed:
    """Data rows ``rows`` of a CSV table (start from 0 after the header; all by default) as a JSON
    array of objects keyed by the header, in canonical JSON (``application/json``). Cells stay
    text: a CSV does not say which cells are numbers.

    Raises:
        TransformError: not UTF-8 CSV, a duplicate or blank header name, a row with the wrong
            number of cells (``field`` ``"source"``, the message names the row); a bad range (``"rows"``).

    Example:
        >>> done = csv_to_json(Source("file:///t.csv", "text/csv", b"id,n\\na,1\\nb,2\\n"), rows=(0, 1))
        >>> done.text, done.step.source_range.describe()
        ('[{"id":"a","n":"1"}]', 'rows 1–1 of 2')
    """
    try:
        header, body = csv_table(source.data)
    except TextStructureError as e:
        raise TransformError(f"csv-json: {source.uri}: {e}", "source") from e
    start, stop = _window("rows", len(body), rows)
    records = [dict(zip(header, row)) for row in body[start:stop]]
    rng = SourceRange("rows", start, stop, len(body))
    return _record("csv-json", source, rng, "application/json", canonical_json(records).encode("utf-8"))


def excerpt(source: Source, limit_bytes: int) -> Transformed:
    """The source's first bytes, at most ``limit_bytes``, cut at the last line end within the
    limit (or at a UTF-8 boundary when the first line alone is longer); the cut is named.

    Raises:
        TransformError: ``limit_bytes`` is negative (``field`` ``"limit_bytes"``).

    Example:
        >>> done = excerpt(Source("kb://n", "text/plain", b"one\\ntwo\\nthree\\n"), 10)
        >>> done.text, done.step.source_range.describe(), done.step.rest_uri
        ('one\\ntwo\\n', 'bytes 1–8 of 14', 'kb://n')
    """
    if not isinstance(limit_bytes, int) or limit_bytes < 0:
        raise TransformError(f"excerpt: limit_bytes must be a whole number >= 0; got {limit_bytes!r}", "limit_bytes")
    data = source.data
    cut = len(data) if len(data) <= limit_bytes else data.rfind(b"\n", 0, limit_bytes) + 1
    if cut == 0:
        cut = utf8_cut(data, limit_bytes)
    rng = SourceRange("bytes", 0, cut, len(data))
    return _record("excerpt", source, rng, source.mime or "application/octet-stream", data[:cut])


#: The most bytes :func:`summarise` reads of one source (the lab's host policy): a longer source is
#: summarised from its first bytes, and the record says so (``truncated``, with the rest's range).
MAX_SUMMARY_BYTES = 1024 * 1024


def summarise(source: Source, read_bytes: int | None = None) -> Transformed:
    """A heading outline of a Markdown or HTML document (``text/markdown``): each heading as a
    list item, indented by level. Only the first ``read_bytes`` of the source are read (all of it
    up to :data:`MAX_SUMMARY_BYTES` by default), and the record says so: a summary of the
    beginning is not a summary of the whole. Reading is one linear pass; the outline is never
    longer than twice the bytes read.

    This is the lab's summarizer: extractive and deterministic, so a test can say what it must
    produce; its record is what any summarizer's record must be.

    Raises:
        TransformError: the source is neither ``text/markdown`` nor ``text/html``, or not UTF-8
            (``field`` ``"source"``); ``read_bytes`` is negative or over :data:`MAX_SUMMARY_BYTES`
            (``"read_bytes"``).

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> done = summarise(Source.of(Catalog.load().read("report://synthetic/weekly-7")), 4096)
        >>> done.text, done.step.truncated, done.step.source_range.describe()
        ('- Weekly sales report 7 (2026-08-28 to 2026-09-03)\\n', True, 'bytes 1–4,096 of 18,000')
    """
    mime = essence(source.mime)
    if mime not in ("text/markdown", "text/html"):
        raise TransformError(f"outline-summary: {source.uri} is {source.mime!r}, not Markdown or HTML", "source")
    limit = min(len(source.data), MAX_SUMMARY_BYTES) if read_bytes is None else read_bytes
    if not isinstance(limit, int) or isinstance(limit, bool) or not 0 <= limit <= MAX_SUMMARY_BYTES:
        raise TransformError(
            f"outline-summary: read_bytes must be a whole number from 0 to {MAX_SUMMARY_BYTES:,} (the summariser's "
            f"input budget, MAX_SUMMARY_BYTES); got {read_bytes!r}",
            "read_bytes",
        )
    cut = utf8_cut(source.data, limit)
    try:
        text = source.data[:cut].decode("utf-8")
    except UnicodeDecodeError as e:
        raise TransformError(f"outline-summary: {source.uri}: not UTF-8 at byte {e.start}", "source") from e
    lines = "".join(f"{'  ' * (level - 1)}- {title}\n" for level, title in headings(text, mime))
    rng = SourceRange("bytes", 0, cut, len(source.data))
    return _record("outline-summary", source, rng, "text/markdown", lines.encode("utf-8"))


# --------------------------------------------------------------------------------------------
# Checking records
# --------------------------------------------------------------------------------------------


def _get(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    name = f"{where}{key}"
    if key not in record:
        raise TransformError(f"a transform record must have {name!r}", name)
    value = record[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise TransformError(f"{name!r} has the wrong type: {type(value).__name__}", name)
    return value


def _count(record: Mapping[str, Any], key: str, where: str) -> int:
    value = _get(record, key, int, where)
    if value < 0:
        raise TransformError(f"'{where}{key}' must be 0 or more; got {value}", f"{where}{key}")
    return int(value)


def _digest_of(record: Mapping[str, Any], key: str, where: str = "") -> str:
    value = _get(record, key, str, where)
    if not _DIGEST.match(value):
        raise TransformError(f"'{where}{key}' must be 'sha256:' and 64 hex digits; got {value[:80]!r}", f"{where}{key}")
    return str(value)


def _range_of(record: Mapping[str, Any], source_bytes: int) -> SourceRange:
    raw = _get(record, "sourceRange", Mapping)
    unit = _get(raw, "unit", str, "sourceRange.")
    if unit not in UNITS:
        raise TransformError(f"'sourceRange.unit' must be one of {', '.join(UNITS)}; got {unit!r}", "sourceRange.unit")
    start, stop, total = (_count(raw, k, "sourceRange.") for k in ("start", "stop", "total"))
    if not start <= stop <= total:
        raise TransformError(f"'sourceRange' {start}..{stop} is not inside 0..{total}", "sourceRange.stop")
    if unit == "bytes" and total != source_bytes:
        raise TransformError(
            f"'sourceRange.total' counts {total} bytes but the source has {source_bytes}: a range measured "
            "against less than the whole source hides what was left out",
            "sourceRange.total",
        )
    return SourceRange(unit, start, stop, total)


def check_step(record: Mapping[str, Any]) -> TransformStep:
    """Read a transform record (the shape of :meth:`TransformStep.to_dict`), refusing one that
    hides truncation.

    Refused: a missing or mistyped field; a range outside the source, or counted in bytes against
    a total that is not the source's size; ``truncated`` false for a range that leaves part of the
    source out (or true for one that does not); ``fullMaterialReachable`` true for a truncated
    step with no ``rest`` link; a ``rest`` whose ranges are not exactly the part left out.

    Raises:
        TransformError: naming the field at fault.

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> honest = summarise(Source.of(Catalog.load().read("report://synthetic/weekly-7")), 4096)
        >>> check_step(honest.step.to_dict()) == honest.step
        True
        >>> check_step({**honest.step.to_dict(), "truncated": False})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.protocol.transforms.TransformError: 'truncated' is false, but the step used bytes 1–4,096 ...
    """
    if not isinstance(record, Mapping):
        raise TransformError(f"a transform record must be a mapping; got {type(record).__name__}")
    source = _get(record, "source", Mapping)
    source_uri = _get(source, "uri", str, "source.")
    source_mime = source.get("mimeType")
    if source_mime is not None and not isinstance(source_mime, str):
        raise TransformError("'source.mimeType' must be a string or null", "source.mimeType")
    source_bytes = _count(source, "bytes", "source.")
    rng = _range_of(record, source_bytes)
    truncated = _get(record, "truncated", bool)
    if truncated != (not rng.covers_all):
        if not truncated:
            raise TransformError(
                f"'truncated' is false, but the step used {rng.describe()}: a partial range reported as "
                "complete silently drops the rest (seed 000)",
                "truncated",
            )
        raise TransformError(
            f"'truncated' is true, but the step used {rng.describe()}: nothing was left out", "truncated"
        )
    reachable = _get(record, "fullMaterialReachable", bool)
    rest = record.get("rest", ...)
    if rest is ...:
        raise TransformError("a transform record must have 'rest' (null when nothing was left out)", "rest")
    rest_uri = None
    if rest is not None:
        if not truncated:
            raise TransformError("'rest' links a remainder, but nothing was left out: it must be null", "rest")
        rest_uri = _get(rest, "uri", str, "rest.") if isinstance(rest, Mapping) else None
        if not rest_uri:
            raise TransformError("'rest' must be null or an object with a non-empty 'uri'", "rest.uri")
        ranges = rest.get("ranges")
        if rest.get("unit") != rng.unit or ranges != [list(p) for p in rng.missing()]:
            raise TransformError(
                f"'rest' must name exactly the part left out: {rng.unit} {[list(p) for p in rng.missing()]}; "
                f"got {rest.get('unit')!r} {ranges!r}",
                "rest.ranges",
            )
    elif truncated and reachable:
        raise TransformError(
            "'fullMaterialReachable' is true for a truncated step, but 'rest' gives no link to what was left out",
            "rest",
        )
    if reachable and not source_uri:
        raise TransformError("'fullMaterialReachable' is true, but the source URI was not kept", "source.uri")
    return TransformStep(
        _get(record, "step", str), _get(record, "by", str), source_uri, source_mime, source_bytes,
        _digest_of(source, "sha256", "source."), rng, _get(record, "mimeType", str), _count(record, "bytes", ""),
        _digest_of(record, "sha256"), rest_uri, reachable,
    )  # fmt: skip


def verify(record: Mapping[str, Any], source: bytes, output: bytes) -> TransformStep:
    """:func:`check_step`, then the record against the bytes: sizes and digests of both sides, and
    for a PDF or a CSV source the page or row count behind ``sourceRange.total``.

    Raises:
        TransformError: naming the field that does not match the bytes.

    Example:
        >>> done = excerpt(Source("kb://n", "text/plain", b"one\\ntwo\\n"), 4)
        >>> verify(done.step.to_dict(), b"one\\ntwo\\n", b"one\\n").size
        4
        >>> verify(done.step.to_dict(), b"one\\ntwo\\n", b"one\\ntwo\\n")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.protocol.transforms.TransformError: 'bytes' says 4 but the output has 8 bytes
    """
    step = check_step(record)
    for name, claimed, data in (("source.", step.source_bytes, source), ("", step.size, output)):
        if claimed != len(data):
            raise TransformError(
                f"'{name}bytes' says {claimed} but the {name[:-1] or 'output'} has {len(data)} bytes", f"{name}bytes"
            )
    for name, claimed_digest, data in (("source.", step.source_sha256, source), ("", step.sha256, output)):
        if claimed_digest != _sha256(data):
            raise TransformError(f"'{name}sha256' is not the sha256 of the {name[:-1] or 'output'}", f"{name}sha256")
    counted = None
    if step.source_range.unit == "pages":
        counted = pdf_to_text(Source(step.source_uri, step.source_mime, source)).step.source_range.total
    elif step.source_range.unit == "rows":
        counted = csv_to_json(Source(step.source_uri, step.source_mime, source)).step.source_range.total
    if counted is not None and counted != step.source_range.total:
        raise TransformError(
            f"'sourceRange.total' says {step.source_range.total} {step.source_range.unit}; the source has {counted}",
            "sourceRange.total",
        )
    return step


def with_transforms(receipt: Mapping[str, Any], steps: Sequence[TransformStep]) -> dict[str, Any]:
    """A copy of ``receipt`` with ``transforms``: the steps in order, each checked, and chained.

    The first step reads the receipt's URI (and, when the receipt has a ``contentDigest``, those
    bytes); each later step reads what the step before it produced (its ``sha256``).

    Raises:
        TransformError: a step that does not chain; ``field`` is ``"transforms[i].source..."``.

    Example:
        >>> import custody_lab as cl
        >>> from custody_lab.protocol.catalog import Catalog
        >>> done = summarise(Source.of(Catalog.load().read("kb://handbook/v4")))
        >>> out = with_transforms(cl.route(cl.load_fixture().case("handbook")).to_dict(), [done.step])
        >>> [(t["step"], t["truncated"], t["bytes"]) for t in out["transforms"]]
        [('outline-summary', False, 166)]
    """
    found = receipt.get("custody")
    custody: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    before_uri, before_digest = custody.get("uri"), receipt.get("contentDigest")
    for i, step in enumerate(steps):
        checked = check_step(step.to_dict())
        where = f"transforms[{i}].source"
        if checked.source_uri != before_uri:
            raise TransformError(f"{where}.uri is {checked.source_uri!r}, not {before_uri!r}", f"{where}.uri")
        if before_digest is not None and checked.source_sha256 != before_digest:
            raise TransformError(
                f"{where}.sha256 is not the digest of what the step before produced", f"{where}.sha256"
            )
        before_digest = checked.sha256
    return {**receipt, "transforms": [step.to_dict() for step in steps]}
