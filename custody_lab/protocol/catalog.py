"""The lab's sample server catalog: listed resources, resource templates, and ``resources/read``.

Seed 004 ("The Resource Model", "Resource Templates", "Kinds of Resources") describes a support
server with policies (``kb://returns-policy``, ``kb://shipping``), an image (``assets://logo.png``),
records behind a template (``orders://{order_id}``), logs (``logs://api/today``) and a schema
(``db://shop/schema``). This module is that server, offline: ``data/catalog.json`` lists the
entries, ``data/resources/`` holds the files and ``data/records/`` the records templates point to.

What a read returns has the MCP ``resources/read`` shape: a tuple of contents items, each with
``uri``, ``mimeType`` and exactly one of ``text`` or ``blob`` (base64, see
:mod:`custody_lab.blobs`).

The rules of reads (seed 004, "The Rules for Resources") are kept and can be checked:

* a read changes nothing. :class:`Catalog` counts reads in :attr:`Catalog.reads`, *outside* the
  data, so the count never leaks into what is returned;
* reads are deterministic: two reads of one URI give the same bytes and the same SHA-256.
  :func:`~custody_lab.protocol.determinism.check_deterministic` tests that for any read function,
  and :class:`~custody_lab.protocol.determinism.CountingCatalog` is a deliberately bad server whose
  reads change what they return;
* a missing resource is an error, not an empty answer: :class:`ResourceNotFound`, code -32602
  "Resource not found", as seed 004 ("Resource Templates") and the MCP Python SDK (which raises
  ``INVALID_PARAMS`` for it) do;
* titles, descriptions and resource text are *data*: nothing here ever acts on them (seed 000,
  "Preserve URI, MIME type, and provenance"; seed 004, "Trusting resource text"). The views layer
  shows them escaped, under a visible "untrusted data" label (:mod:`custody_lab.views.catalog_html`).

Determinism is checked in :mod:`custody_lab.protocol.determinism`. The module is pure: standard
library only, no HTML.
"""

from __future__ import annotations

__all__ = [
    "KINDS",
    "Catalog",
    "CatalogError",
    "Kind",
    "ReadResult",
    "ResourceEntry",
    "ResourceNotFound",
    "TemplateEntry",
    "kind_of_mime",
    "transport_of",
]

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..core.errors import CustodyLabError
from ..core.paths import DATA_DIR
from . import uri_templates
from .blobs import ContentsReading, encode, read_contents
from .mime import essence, is_text

Kind = Literal["text", "image", "data"]
KINDS: tuple[str, ...] = ("text", "image", "data")

#: Log levels the log template accepts for ``{?level}``.
_LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warn", "error")


class CatalogError(CustodyLabError, ValueError):
    """``data/catalog.json`` (or a file it names) is malformed; the message names file and entry."""


class ResourceNotFound(CustodyLabError, LookupError):
    """No resource has this URI: the JSON-RPC error -32602 "Resource not found".

    Attributes:
        uri: the URI that was asked for.
        code: ``-32602``.
        reason: why, in plain words (no template matches; the template matched but no record has
            that id...). Shown to people; not part of the protocol error.
    """

    code = -32602

    def __init__(self, uri: object, reason: str | None = None) -> None:
        self.uri = uri
        self.reason = reason or "no listed resource has this URI and no template matches it"
        super().__init__(f"Resource not found (-32602): {uri!r}: {self.reason}")

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` object a server sends back.

        Example:
            >>> ResourceNotFound("orders://A-9999").to_error()
            {'code': -32602, 'message': 'Resource not found', 'data': {'uri': 'orders://A-9999'}}
        """
        return {"code": self.code, "message": "Resource not found", "data": {"uri": self.uri}}


def _present(item: dict[str, str | None]) -> dict[str, str]:
    """A listing item without its absent (``None``) fields, as the protocol writes it."""
    return {k: v for k, v in item.items() if v is not None}


def kind_of_mime(mime_type: str | None) -> Kind:
    """Seed 004's three kinds: ``text/*`` is text, ``image/*`` is an image, anything else data.

    Example:
        >>> kind_of_mime("text/markdown"), kind_of_mime("image/png"), kind_of_mime("application/json")
        ('text', 'image', 'data')
    """
    mime = essence(mime_type)
    if mime.startswith("text/"):
        return "text"
    if mime.startswith("image/"):
        return "image"
    return "data"


def transport_of(mime_type: str | None, data: bytes) -> Literal["text", "blob"]:
    """Which ``resources/read`` field carries content: ``text`` for textual types that are UTF-8,
    ``blob`` (base64) for everything else. Kind and transport differ: a JSON record is of kind
    "data" but travels as ``text``.

    Example:
        >>> transport_of("application/json", b"{}"), transport_of("image/png", b"\\x89PNG")
        ('text', 'blob')
    """
    if not is_text(mime_type):
        return "blob"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "blob"
    return "text"


# --------------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceEntry:
    """One listed resource, as ``resources/list`` describes it (plus where the lab keeps it).

    Attributes:
        uri: its address; unique and stable.
        name: a short name.
        title: a label for people (untrusted text), or ``None``.
        description: what it holds (untrusted text), or ``None``.
        mime_type: the declared MIME type, or ``None``.
        file: where the bytes live, relative to ``data/`` (or ``None`` for an alias).
        alias: for a moving address such as ``logs://api/today``, the dated URI it reads.
    """

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    file: str | None = field(default=None, repr=False)
    alias: str | None = field(default=None, repr=False)

    @property
    def mimeType(self) -> str | None:  # noqa: N802 - the protocol's spelling
        return self.mime_type

    @property
    def kind(self) -> Kind:
        return kind_of_mime(self.mime_type)

    def to_dict(self) -> dict[str, str]:
        """The ``resources/list`` item (absent fields left out)."""
        return _present(
            {
                "uri": self.uri,
                "name": self.name,
                "title": self.title,
                "description": self.description,
                "mimeType": self.mime_type,
            }
        )


@dataclass(frozen=True)
class TemplateEntry:
    """One resource template, as ``resources/templates/list`` describes it.

    Attributes:
        uri_template: the RFC 6570 template (``orders://{order_id}``).
        name, title, description, mime_type: as for :class:`ResourceEntry`.
        records: the JSON file of records under ``data/`` (keyed by the path variables).
        reader: how a record becomes content: ``"json-record"`` or ``"log-lines"``.
        keys: the template variables that select a record, outermost first.
    """

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    records: str = field(default="", repr=False)
    reader: str = field(default="json-record", repr=False)
    keys: tuple[str, ...] = field(default=(), repr=False)

    @property
    def uriTemplate(self) -> str:  # noqa: N802 - the protocol's spelling
        return self.uri_template

    @property
    def mimeType(self) -> str | None:  # noqa: N802 - the protocol's spelling
        return self.mime_type

    @property
    def kind(self) -> Kind:
        return kind_of_mime(self.mime_type)

    @property
    def variables(self) -> tuple[str, ...]:
        """The template's variable names, in order (``("service", "day", "level")``)."""
        return tuple(uri_templates.parse(self.uri_template).variable_names)

    def to_dict(self) -> dict[str, str]:
        """The ``resources/templates/list`` item (absent fields left out)."""
        return _present(
            {
                "uriTemplate": self.uri_template,
                "name": self.name,
                "title": self.title,
                "description": self.description,
                "mimeType": self.mime_type,
            }
        )


# --------------------------------------------------------------------------------------------
# Reads
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadResult:
    """What ``resources/read`` returned for one URI, with the lab's custody facts beside it.

    Attributes:
        uri: the URI that was read.
        contents: the MCP contents items: ``{"uri", "mimeType", "text" | "blob"}`` dicts.
        entry: the listed entry it came from, or ``None``.
        template: the template that matched, or ``None`` for a listed resource.
        params: the template variables read back from the URI (seed 000: "record the parameters
            separately"); empty for a listed resource.
        sha256: hex SHA-256 of the content's bytes (text as UTF-8, a blob decoded).
        data: those bytes.
    """

    uri: str
    contents: tuple[dict[str, str], ...]
    entry: ResourceEntry | None
    template: TemplateEntry | None
    params: dict[str, object]
    sha256: str
    data: bytes = field(repr=False)

    @property
    def item(self) -> dict[str, str]:
        """The (only) contents item."""
        return self.contents[0]

    @property
    def mime_type(self) -> str | None:
        return self.item.get("mimeType")

    @property
    def transport(self) -> Literal["text", "blob"]:
        """Which field carries the content: ``"text"`` or ``"blob"``."""
        return "text" if "text" in self.item else "blob"

    @property
    def text(self) -> str | None:
        return self.item.get("text")

    @property
    def size(self) -> int:
        return len(self.data)

    def to_dict(self) -> dict[str, Any]:
        """The ``resources/read`` result: ``{"contents": [...]}``."""
        return {"contents": [dict(c) for c in self.contents]}

    def reading(self) -> ContentsReading:
        """The contents item checked by :func:`custody_lab.blobs.read_contents` (sizes, sniffed
        MIME type against the declared one)."""
        return read_contents(self.item)


def _contents_item(uri: str, mime_type: str | None, data: bytes) -> dict[str, str]:
    item = {"uri": uri}
    if mime_type is not None:
        item["mimeType"] = mime_type
    if transport_of(mime_type, data) == "text":
        item["text"] = data.decode("utf-8")
    else:
        item["blob"] = encode(data)
    return item


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Catalog:
    """The lab's sample server: listed resources and templates, and a side-effect-free ``read``.

    Build one with :meth:`load`. Reads are counted in :attr:`reads` (a ``Counter`` by URI), outside
    the data: counting is fine, changing what a read returns is not.

    Example:
        >>> catalog = Catalog.load()
        >>> catalog.read("kb://shipping").text[:25]
        'Brightgrid ships standard'
        >>> catalog.read("orders://A-1002").params
        {'order_id': 'A-1002'}
    """

    def __init__(
        self,
        resources: tuple[ResourceEntry, ...],
        templates: tuple[TemplateEntry, ...],
        *,
        data_dir: Path = DATA_DIR,
        server: Mapping[str, Any] | None = None,
    ) -> None:
        self.resources: tuple[ResourceEntry, ...] = tuple(resources)
        self.templates: tuple[TemplateEntry, ...] = tuple(templates)
        self.data_dir = Path(data_dir)
        self.server: dict[str, Any] = dict(server or {})
        self.reads: Counter[str] = Counter()
        self._by_uri = {e.uri: e for e in self.resources}
        self._records: dict[str, Any] = {}

    # ---- loading ------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path | None = None) -> Catalog:
        """Load ``data/catalog.json`` (or another catalog file; its ``file``/``records`` paths are
        relative to the file's folder).

        Raises:
            CatalogError: naming the file, the entry and the field at fault.
        """
        source = Path(path) if path is not None else DATA_DIR / "catalog.json"
        try:
            raw = json.loads(source.read_text(encoding="utf-8"))
        except OSError as e:
            raise CatalogError(f"{source}: cannot read the catalog ({e})") from e
        except json.JSONDecodeError as e:
            raise CatalogError(f"{source}: not valid JSON (line {e.lineno}: {e.msg})") from e
        if not isinstance(raw, dict):
            raise CatalogError(f"{source}: expected an object with 'resources' and 'templates'")
        resources = tuple(
            _resource_entry(item, f"{source.name} resources[{i}]")
            for i, item in enumerate(_list(raw, "resources", source))
        )
        templates = tuple(
            _template_entry(item, f"{source.name} templates[{i}]")
            for i, item in enumerate(_list(raw, "templates", source))
        )
        seen: set[str] = set()
        for entry in resources:
            if entry.uri in seen:
                raise CatalogError(f"{source.name}: the URI {entry.uri!r} is listed twice")
            seen.add(entry.uri)
        catalog = cls(resources, templates, data_dir=source.parent, server=raw.get("server"))
        for i, entry in enumerate(resources):
            if entry.file is not None and not (catalog.data_dir / entry.file).is_file():
                raise CatalogError(f"{source.name} resources[{i}] ({entry.uri}): file {entry.file!r} is missing")
        return catalog

    # ---- listing ------------------------------------------------------------------------

    def kind_of(self, entry: ResourceEntry | TemplateEntry | str | None) -> Kind:
        """``"text"``, ``"image"`` or ``"data"`` for an entry (or a MIME type), as in seed 004."""
        if isinstance(entry, ResourceEntry | TemplateEntry):
            return kind_of_mime(entry.mime_type)
        return kind_of_mime(entry)

    def entry(self, uri: str) -> ResourceEntry | None:
        """The listed entry with exactly this URI, or ``None``."""
        return self._by_uri.get(uri) if isinstance(uri, str) else None

    def template(self, uri_template: str) -> TemplateEntry | None:
        """The template entry with exactly this ``uriTemplate``, or ``None``."""
        for t in self.templates:
            if t.uri_template == uri_template:
                return t
        return None

    def list_resources(self) -> dict[str, list[dict[str, str]]]:
        """The ``resources/list`` result."""
        return {"resources": [e.to_dict() for e in self.resources]}

    def list_templates(self) -> dict[str, list[dict[str, str]]]:
        """The ``resources/templates/list`` result."""
        return {"resourceTemplates": [t.to_dict() for t in self.templates]}

    # ---- templates ----------------------------------------------------------------------

    def expand(self, template_uri: str, values: Mapping[str, object]) -> str:
        """Fill in a template (RFC 6570, via :func:`custody_lab.uri_templates.expand`).

        Example:
            >>> Catalog.load().expand("orders://{order_id}", {"order_id": "A-1002"})
            'orders://A-1002'
        """
        return uri_templates.expand(template_uri, values)

    def match(self, uri: str) -> tuple[TemplateEntry, dict[str, object]] | None:
        """The first template that matches ``uri`` and the variables read back, or ``None``."""
        for t in self.templates:
            params = uri_templates.match(t.uri_template, uri)
            if params is not None:
                return t, params
        return None

    def resolve(self, uri: object) -> ResourceEntry | TemplateEntry | None:
        """What ``uri`` is registered under: its listed entry, or the template whose record it
        names; ``None`` when a read would answer "Resource not found". Reads nothing."""
        if not isinstance(uri, str):
            return None
        listed = self._by_uri.get(uri)
        if listed is not None:
            return listed
        found = self.match(uri)
        if found is None:
            return None
        template, params = found
        try:
            self._record(template, params, uri)
        except ResourceNotFound:
            return None
        return template

    # ---- reading ------------------------------------------------------------------------

    def read(self, uri: str) -> ReadResult:
        """``resources/read`` for one URI: a listed resource, or a record through a template.

        Raises:
            ResourceNotFound: (-32602) when nothing is registered under ``uri``, or a template
                matches but no record has those values (``orders://A-9999``).

        Example:
            >>> r = Catalog.load().read("assets://logo.png")
            >>> r.transport, r.size, len(r.item["blob"])
            ('blob', 105, 140)
        """
        if not isinstance(uri, str) or not uri:
            raise ResourceNotFound(uri, "a URI must be a non-empty string")
        self.reads[uri] += 1
        listed = self._by_uri.get(uri)
        if listed is not None:
            if listed.alias is not None:
                inner = self._read_template(listed.alias, shown_as=uri)
                return replace(inner, uri=uri, entry=listed)
            assert listed.file is not None  # checked by load()
            data = (self.data_dir / listed.file).read_bytes()
            return ReadResult(
                uri, (_contents_item(uri, listed.mime_type, data),), listed, None, {}, _sha256(data), data
            )
        return self._read_template(uri)

    def _read_template(self, uri: str, shown_as: str | None = None) -> ReadResult:
        found = self.match(uri)
        if found is None:
            raise ResourceNotFound(uri)
        template, params = found
        record = self._record(template, params, uri)
        if template.reader == "log-lines":
            data = _render_log(shown_as or uri, params, record).encode("utf-8")
        else:
            data = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        shown = shown_as or uri
        return ReadResult(
            shown, (_contents_item(shown, template.mime_type, data),), None, template, dict(params), _sha256(data), data
        )

    def _record(self, template: TemplateEntry, params: Mapping[str, object], uri: str) -> Any:
        records = self._load_records(template)
        node: Any = records
        for key in template.keys:
            value = params.get(key)
            if not isinstance(value, str) or not isinstance(node, dict) or value not in node:
                shown = ", ".join(f"{k}={params.get(k)!r}" for k in template.keys)
                raise ResourceNotFound(uri, f"the template {template.uri_template} matches, but no record has {shown}")
            node = node[value]
        level = params.get("level")
        if template.reader == "log-lines" and level is not None and level not in _LOG_LEVELS:
            raise ResourceNotFound(uri, f"level must be one of {', '.join(_LOG_LEVELS)}; got {level!r}")
        return node

    def _load_records(self, template: TemplateEntry) -> Any:
        if template.records not in self._records:
            path = self.data_dir / template.records
            try:
                self._records[template.records] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as e:
                raise CatalogError(f"{path}: cannot read the records of {template.uri_template} ({e})") from e
        return self._records[template.records]


def _render_log(uri: str, params: Mapping[str, object], lines: list[dict[str, str]]) -> str:
    """Log lines as text, under a header saying which day and level the read covers (seed 004,
    "Logs": "say clearly what time range a read covers")."""
    level = params.get("level")
    kept = [line for line in lines if level is None or line["level"] == level]
    day = params.get("day")
    header = (
        f"# {uri}: service {params.get('service')}, {day}T00:00:00Z to {day}T23:59:59Z, "
        f"level {level or 'all'}, {len(kept)} line{'s' if len(kept) != 1 else ''}\n"
    )
    return header + "".join(f"{line['at']} {line['level'].upper():<5} {line['message']}\n" for line in kept)


# ---- catalog.json parsing -----------------------------------------------------------------


def _list(raw: Mapping[str, Any], key: str, source: Path) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise CatalogError(f"{source.name}: {key!r} must be a list")
    return value


def _text(item: Mapping[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise CatalogError(f"{where}: field {key!r} must be a non-empty string; got {value!r}")
    return value


def _resource_entry(item: object, where: str) -> ResourceEntry:
    if not isinstance(item, dict):
        raise CatalogError(f"{where}: expected an object")
    file, alias = _text(item, "file", where), _text(item, "alias", where)
    if (file is None) == (alias is None):
        raise CatalogError(f"{where}: give exactly one of 'file' or 'alias'")
    return ResourceEntry(
        uri=str(_text(item, "uri", where, required=True)),
        name=str(_text(item, "name", where, required=True)),
        title=_text(item, "title", where),
        description=_text(item, "description", where),
        mime_type=_text(item, "mimeType", where),
        file=file,
        alias=alias,
    )


def _template_entry(item: object, where: str) -> TemplateEntry:
    if not isinstance(item, dict):
        raise CatalogError(f"{where}: expected an object")
    template = str(_text(item, "uriTemplate", where, required=True))
    try:
        names = uri_templates.parse(template).variable_names
    except uri_templates.UriTemplateError as e:
        raise CatalogError(f"{where}: invalid uriTemplate: {e}") from e
    keys = item.get("keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) and k in names for k in keys):
        raise CatalogError(f"{where}: 'keys' must list variables of {template}; got {keys!r}")
    reader = item.get("reader", "json-record")
    if reader not in ("json-record", "log-lines"):
        raise CatalogError(f"{where}: 'reader' must be 'json-record' or 'log-lines'; got {reader!r}")
    return TemplateEntry(
        uri_template=template,
        name=str(_text(item, "name", where, required=True)),
        title=_text(item, "title", where),
        description=_text(item, "description", where),
        mime_type=_text(item, "mimeType", where),
        records=str(_text(item, "records", where, required=True)),
        reader=reader,
        keys=tuple(keys),
    )
