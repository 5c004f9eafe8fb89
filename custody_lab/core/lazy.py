"""Names that load their module on first use, so a light package can re-export heavy ones.

``import custody_lab`` must not import pandas, matplotlib, ipywidgets or ``mcp``; yet
``custody_lab.sweep``, ``custody_lab.widgets`` and ``custody_lab.live`` re-export names whose
modules need them. Each of those modules imports every name it exports under ``if
TYPE_CHECKING:``, as the MCP SDK's ``__init__`` does, so editors and mypy see the real signatures;
that block is also the one table of ``name -> module``: :func:`typed_exports` reads it from the
module's source, and :func:`lazy_exports` turns a table into
the module's ``__getattr__`` / ``__dir__`` (PEP 562). ``tests/test_public_api.py`` checks that
``__all__`` names exactly those imports.

:func:`callable_module` makes a module object callable, so one public name can be both a module
and its main function: ``custody_lab.sweep`` is the module (``import custody_lab.sweep as sw;
sw.grid(...)``) and ``cl.sweep(frame)`` calls the function of the same name.
"""

from __future__ import annotations

__all__ = ["callable_module", "lazy_exports", "typed_exports"]

import ast
import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from importlib.util import resolve_name
from pathlib import Path
from types import ModuleType
from typing import Any


def lazy_exports(module_name: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a module whose names live in other modules.

    Args:
        module_name: the re-exporting module's ``__name__`` (used in error messages and to cache).
        exports: public name -> the absolute name of the module that defines it.

    Example:
        >>> getattr_, dir_ = lazy_exports("demo", {"dumps": "json"})
        >>> getattr_("dumps")({"a": 1})
        '{"a": 1}'
        >>> getattr_("loads")
        Traceback (most recent call last):
        ...
        AttributeError: module 'demo' has no attribute 'loads'
    """
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return getattr(import_module(target), name)

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__


def typed_exports(module_name: str, source: str) -> dict[str, str]:
    """The ``name -> defining module`` table of a module's ``if TYPE_CHECKING:`` imports.

    Reading and parsing the module's own source takes well under a millisecond (the three lazy
    public paths together: about 1 ms here), so it is done when the module is imported.

    Args:
        module_name: the re-exporting module's ``__name__`` (relative imports resolve against it).
        source: its ``__file__``.

    Example:
        >>> import custody_lab.widgets as w
        >>> typed_exports(w.__name__, w.__file__)["CaseExplorer"]
        'custody_lab.views.widgets.explorer'
    """
    package = module_name if Path(source).name == "__init__.py" else module_name.rpartition(".")[0]
    table: dict[str, str] = {}
    for node in ast.parse(Path(source).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom):
                    target = resolve_name("." * imp.level + (imp.module or ""), package)
                    table.update({alias.asname or alias.name: target for alias in imp.names})
    return table


def callable_module(module_name: str, function_name: str) -> None:
    """Make the module ``module_name`` callable: calling it calls its attribute ``function_name``.

    The module keeps its own namespace, ``__getattr__`` included (the class only adds
    ``__call__``), so its names still load lazily; the function is looked up on each call.

    Args:
        module_name: the module's ``__name__`` (it must be in ``sys.modules``: call this from the
            module itself).
        function_name: the module attribute that a call runs.

    Example:
        >>> import types, sys
        >>> demo = sys.modules["demo_callable"] = types.ModuleType("demo_callable")
        >>> demo.twice = lambda x: 2 * x
        >>> callable_module("demo_callable", "twice")
        >>> demo(21), demo.twice(1), isinstance(demo, types.ModuleType)
        (42, 2, True)
        >>> del sys.modules["demo_callable"]
    """
    module = sys.modules[module_name]

    def __call__(self: ModuleType, /, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, function_name)(*args, **kwargs)

    doc = f"A module that is also callable: calling it calls its {function_name}()."
    module.__class__ = type("CallableModule", (ModuleType,), {"__call__": __call__, "__doc__": doc})
