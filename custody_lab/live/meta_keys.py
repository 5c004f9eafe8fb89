"""The names live mode's servers and clients agree on: ``_meta`` keys and the state ledger's URI.

MCP has no field for provenance, a structured result's URI, or a tool's declared side effects, so
the lab carries them in ``_meta`` under reverse-DNS keys (the ``_meta`` convention of the MCP
specification, "General fields"). Both servers and the recording client import these from here,
so neither side imports the other for a constant.

Example:
    >>> PROVENANCE_KEY
    'org.custody-lab/provenance'
"""

from __future__ import annotations

__all__ = ["CHANGES_KEY", "OPERATION_KEY", "PROVENANCE_KEY", "SIDE_EFFECTS_KEY", "STATE_URI", "URI_KEY"]

#: Where the content came from (on a contents item, a resource link, an embedded resource, a result).
PROVENANCE_KEY = "org.custody-lab/provenance"
#: The identity of a structured tool result (which has no URI of its own).
URI_KEY = "org.custody-lab/uri"
#: A tool's declared side effects (true or false): the only declaration the lab's host policy
#: counts; a ``readOnlyHint`` annotation is a hint and declares nothing.
SIDE_EFFECTS_KEY = "org.custody-lab/sideEffects"
#: The seed operation a tool stands for (``generate``, ``calculate``, ``mutate`` …).
OPERATION_KEY = "org.custody-lab/operation"
#: On a listed resource: its content changes over time (``true``), so it is not *static* context
#: in seed 003's sense (static = a known URI **and** fixed content). MCP has no such field; a host
#: that reads it still decides for itself (the lab's host policy: ``changing=`` URIs count too).
CHANGES_KEY = "org.custody-lab/changes"
#: A small JSON document of a server's state; its digest before and after an exchange reveals
#: side effects the server did not declare.
STATE_URI = "state://lab/ledger"
