"""The examples in live mode's docstrings run and print what they claim."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "lab_server",
    "live_receipts",
    "gate",
    "fixture_exchanges",
    "server_listing",
    "serve_log",
    "meta_keys",
    "receipt_diff",
    "hostile_server",
    "agent_context",
    "audit",
]


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_of_the_module_pass(name):
    module = importlib.import_module(f"custody_lab.live.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"custody_lab.live.{name}: {result.failed} of {result.attempted} examples failed"


def test_the_live_modules_have_examples_at_all():
    attempted = sum(doctest.testmod(importlib.import_module(f"custody_lab.live.{n}")).attempted for n in MODULES)
    assert attempted >= 10, f"only {attempted} doctest examples in custody_lab.live"
