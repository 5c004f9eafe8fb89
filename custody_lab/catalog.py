"""The lab server's catalog: its resources and templates, what a read returns, and how to show it.

The public path for lessons 03 and 04 (``docs/design.md``, "Public surface"):

    from custody_lab.catalog import Catalog, ResourceNotFound, read_template, resources_table

- :class:`Catalog` (``Catalog.load()``): the listed resources and resource templates, ``read``,
  ``match``, ``entry``; a read of no such resource raises :class:`ResourceNotFound`;
- :func:`read_template`: fill in a template and read it, refusing a dot-segment value;
- :func:`describe` and :func:`kinds_table`: seed 004's kinds of resources (files, records, logs,
  schemas); :func:`check_deterministic` and :class:`CountingCatalog`: catch a read that changes state;
- the HTML views of all of these (``resources_table``, ``entry_html``, ``untrusted_text_html``, …),
  which escape every text that came from the catalog, and the lab's generic ``rows_html`` and
  ``field_table``.

The code lives in :mod:`custody_lab.protocol` and :mod:`custody_lab.views`; this module only
re-exports it (importing it loads pandas, for the tables).
"""

from __future__ import annotations

from .protocol.catalog import (
    Catalog,
    CatalogError,
    ReadResult,
    ResourceEntry,
    ResourceNotFound,
    TemplateEntry,
    kind_of_mime,
    transport_of,
)
from .protocol.determinism import CountingCatalog, DeterminismReport, check_deterministic
from .protocol.resource_kinds import KindReport, ResourceKind, describe, kinds_table
from .protocol.template_reading import ReadOutcome, read_template
from .views.catalog_html import determinism_html, entry_html, resources_table, templates_table, untrusted_text_html
from .views.html import field_table, rows_html
from .views.template_html import outcome_html

__all__ = [
    "Catalog",
    "CatalogError",
    "CountingCatalog",
    "DeterminismReport",
    "KindReport",
    "ReadOutcome",
    "ReadResult",
    "ResourceEntry",
    "ResourceKind",
    "ResourceNotFound",
    "TemplateEntry",
    "check_deterministic",
    "describe",
    "determinism_html",
    "entry_html",
    "field_table",
    "kind_of_mime",
    "kinds_table",
    "outcome_html",
    "read_template",
    "resources_table",
    "rows_html",
    "templates_table",
    "transport_of",
    "untrusted_text_html",
]
