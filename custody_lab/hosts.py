"""Host profiles and the host lens: one result, several hosts — what reaches the model, the log each
host writes, and the custody rules each keeps or breaks.

The public path for lesson 10 (``10-read-it-as-each-host``) (``docs/design.md``, "Public surface"):

    from custody_lab.hosts import load_host_profiles, LensInput, lens, sample_result, lens_html

- :func:`load_host_profiles`, :class:`HostProfile`, :func:`profile`: the hypothetical host
  profiles of ``data/hosts/profiles.json`` (errors name the row and field);
- :class:`LensInput` (a result, or :meth:`LensInput.from_case`), :func:`read_result`, :func:`lens`,
  :func:`differences`, :func:`sample_result`: each profile's reading (:class:`HostReading`);
- :func:`hosts_rows`, :func:`format_hosts`: the lens over an audit's JSON (``custody-lab audit --hosts``);
- :data:`HOST_RULES`: the host rules of the one rule table, with their seed sentences;
- :func:`lens_html`: the columns side by side. The panel is ``custody_lab.widgets.HostLens``.

The code lives in :mod:`custody_lab.protocol` and :mod:`custody_lab.views`; this module only
re-exports it (importing it loads nothing beyond the standard library and the HTML module).
"""

from __future__ import annotations

from .core.rules import HOST_FACTS, HOST_RULES
from .protocol.host_audit import format_hosts, hosts_rows
from .protocol.host_lens import SHAPES, HostReading, LensInput, differences, lens, read_result, sample_result
from .protocol.host_profiles import CHOICES, HostProfile, HostProfileError, load_host_profiles, profile
from .views.host_lens_html import column_html, differences_html, lens_html

__all__ = [
    "CHOICES",
    "HOST_FACTS",
    "HOST_RULES",
    "SHAPES",
    "HostProfile",
    "HostProfileError",
    "HostReading",
    "LensInput",
    "column_html",
    "differences",
    "differences_html",
    "format_hosts",
    "hosts_rows",
    "lens",
    "lens_html",
    "load_host_profiles",
    "profile",
    "read_result",
    "sample_result",
]
