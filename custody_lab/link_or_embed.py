"""Link or embed: what each shape costs in context, the three budgets of a turn, authorising an embed.

The public path for lesson 05 (``docs/design.md``, "Public surface"):

    from custody_lab.link_or_embed import compare_shapes, resource_link_block, Ledger, authorise_embed

- :func:`resource_link_block`, :func:`embedded_resource_block` and :func:`compare_shapes`: the two
  shapes as MCP content blocks and their bytes over a session; :func:`same_uri_invariant`: a link
  to a registered resource names its registered URI (the lab's host policy);
- :class:`Ledger`, :func:`json_bytes`, :func:`deferred_stub`: tool definitions, the resource
  catalog and content logged as three budgets; :func:`authorise_embed`: the permission gate
  before an embedded resource enters context;
- the lesson's worked examples (:func:`worked_example`, :func:`crowded_example`, ``EXPORT_TOOL``)
  and the HTML views of all of these. The sliders are ``custody_lab.widgets.budget_panel`` and
  the cost curve ``custody_lab.chart.cumulative``.

The code lives in :mod:`custody_lab.protocol`, :mod:`custody_lab.views` and the ``budget`` exercise
set; this module only re-exports it (importing it loads matplotlib, for the views).
"""

from __future__ import annotations

from .protocol.budgets import (
    BUDGETS,
    Budget,
    BudgetLimits,
    EmbedVerdict,
    Ledger,
    LedgerEntry,
    authorise_embed,
    deferred_stub,
    json_bytes,
)
from .protocol.link_or_embed import (
    ShapeCosts,
    UriInvariantCheck,
    compare_shapes,
    embedded_resource_block,
    resource_link_block,
    same_uri_invariant,
)
from .teaching.exercise_sets.budget import EXPORT_TOOL, crowded_example, worked_example
from .views.context_costs import costs_table_html, embed_verdict_html, hosts_html, ledger_html, uri_check_html

__all__ = [
    "BUDGETS",
    "EXPORT_TOOL",
    "Budget",
    "BudgetLimits",
    "EmbedVerdict",
    "Ledger",
    "LedgerEntry",
    "ShapeCosts",
    "UriInvariantCheck",
    "authorise_embed",
    "compare_shapes",
    "costs_table_html",
    "crowded_example",
    "deferred_stub",
    "embed_verdict_html",
    "embedded_resource_block",
    "hosts_html",
    "json_bytes",
    "ledger_html",
    "resource_link_block",
    "same_uri_invariant",
    "uri_check_html",
    "worked_example",
]
