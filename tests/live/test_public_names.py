"""``custody_lab.live``'s public names load on first use: importing the package imports no ``mcp``.

That the names are typed for mypy and load the objects their ``TYPE_CHECKING`` imports name is
checked for every lazy public path at once, in ``tests/test_public_api.py``.
"""

from __future__ import annotations

import subprocess
import sys

import custody_lab.live as live

from ..timing import scaled


def test_importing_the_live_package_and_listing_its_names_does_not_import_mcp():
    code = "import sys, custody_lab.live; custody_lab.live.__all__; dir(custody_lab.live); print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=scaled(60))
    assert out.stdout.strip() == "False", f"expected mcp not imported; got {out.stdout!r} {out.stderr[-1000:]!r}"


def test_a_name_the_package_does_not_export_is_an_attribute_error_naming_it():
    try:
        live.NoSuchName  # noqa: B018
    except AttributeError as e:
        assert "NoSuchName" in str(e) and "custody_lab.live" in str(e), str(e)
    else:
        raise AssertionError("custody_lab.live.NoSuchName did not raise AttributeError")
