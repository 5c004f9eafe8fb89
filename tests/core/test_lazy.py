"""Names that load their module on first use (custody_lab.core.lazy), and a module that is also
its own main function."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

import custody_lab
from custody_lab.core.lazy import callable_module, lazy_exports, typed_exports


@pytest.fixture
def heavy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The name of a module on sys.path that no one has imported yet (it holds VALUE = 42)."""
    name = f"lazy_heavy_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("VALUE = 42\nOTHER = 'unused'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_a_lazy_name_loads_its_module_on_first_use_and_not_before(heavy_module):
    getattr_, _ = lazy_exports("demo", {"VALUE": heavy_module})
    assert heavy_module not in sys.modules, f"lazy_exports imported {heavy_module} before any name was used"
    value = getattr_("VALUE")
    actual = (value, heavy_module in sys.modules)
    assert actual == (42, True), f"getattr('VALUE'): expected (42, loaded), got {actual}"


def test_a_name_not_in_the_table_is_an_attribute_error_naming_the_module(heavy_module):
    getattr_, _ = lazy_exports("custody_lab.demo", {"VALUE": heavy_module})
    with pytest.raises(AttributeError) as caught:
        getattr_("OTHER")  # in the module, but not exported
    expected = "module 'custody_lab.demo' has no attribute 'OTHER'"
    assert str(caught.value) == expected, f"expected {expected!r}, got {str(caught.value)!r}"
    assert heavy_module not in sys.modules, "an unknown name must not load any module"


def test_dir_lists_the_table_sorted_and_later_changes_to_the_given_table_are_ignored():
    exports = {"loads": "json", "dumps": "json"}
    getattr_, dir_ = lazy_exports("demo", exports)
    exports["JSONDecoder"] = "json"
    del exports["loads"]
    actual = (dir_(), getattr_("loads")("[1]"))
    assert actual == (["dumps", "loads"], [1]), (
        f"after changing the given dict: expected (['dumps', 'loads'], [1]), got {actual}"
    )
    with pytest.raises(AttributeError):
        getattr_("JSONDecoder")


@pytest.fixture
def plain_module() -> Iterator[types.ModuleType]:
    name = "custody_lab_test_callable_demo"
    module = sys.modules[name] = types.ModuleType(name)
    yield module
    del sys.modules[name]


def test_a_callable_module_calls_its_function_looked_up_at_each_call(plain_module):
    plain_module.run = lambda x, *, times=2: x * times
    callable_module(plain_module.__name__, "run")
    first, with_keyword = plain_module(21), plain_module("ab", times=3)
    plain_module.run = lambda x: -x
    second = plain_module(21)
    actual = (first, with_keyword, second)
    assert actual == (42, "ababab", -21), (
        f"call, call with times=3, rebind run, call: expected (42, 'ababab', -21), got {actual}"
    )
    assert isinstance(plain_module, types.ModuleType) and sys.modules[plain_module.__name__] is plain_module


def test_a_callable_module_keeps_its_lazy_names(plain_module):
    plain_module.__getattr__, plain_module.__dir__ = lazy_exports(plain_module.__name__, {"dumps": "json"})
    callable_module(plain_module.__name__, "dumps")
    actual = (plain_module({"a": 1}), plain_module.dumps([1]))
    assert actual == ('{"a": 1}', "[1]"), (
        f"a callable module over a lazy name: expected ('{{\"a\": 1}}', '[1]'), got {actual}"
    )


def test_custody_lab_sweep_is_a_callable_module():
    sweep = custody_lab.sweep
    actual = (isinstance(sweep, types.ModuleType), callable(sweep), type(sweep).__name__)
    assert actual == (True, True, "CallableModule"), f"custody_lab.sweep: expected a callable module, got {actual}"


def test_the_type_checking_imports_are_the_table_with_relative_imports_resolved(tmp_path):
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .heavy import Big, small as tiny\n    from json import dumps\n    import os\n"
    init, module = tmp_path / "__init__.py", tmp_path / "mod.py"
    init.write_text(source, encoding="utf-8")
    module.write_text(source + "OUTSIDE = 1\nfrom .elsewhere import NotExported\n", encoding="utf-8")
    assert typed_exports("pkg", str(init)) == {"Big": "pkg.heavy", "tiny": "pkg.heavy", "dumps": "json"}
    got = typed_exports("pkg.sub.mod", str(module))
    assert got == {"Big": "pkg.sub.heavy", "tiny": "pkg.sub.heavy", "dumps": "json"}, got


def test_a_lazy_public_path_loads_exactly_the_names_of_its_type_checking_block():
    import custody_lab.widgets as widgets

    table = typed_exports(widgets.__name__, widgets.__file__)
    assert sorted(table) == sorted(widgets.__all__) == widgets.__dir__(), (sorted(table), widgets.__all__)
    assert table["CaseExplorer"] == "custody_lab.views.widgets.explorer", dict(table)
