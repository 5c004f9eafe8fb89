"""Names that load their module on first use, so a light package can re-export heavy ones.

``import custody_lab`` must not import pandas, matplotlib, ipywidgets or ``mcp``; yet
``custody_lab.sweep``, ``custody_lab.widgets`` and ``custody_lab.live`` re-export names whose
modules need them. Each of those modules declares a table of ``name -> module`` and gets its
``__getattr__`` / ``__dir__`` from :func:`lazy_exports` (PEP 562).
"""

from __future__ import annotations

__all__ = ["lazy_exports"]

from collections.abc import Callable, Mapping
from importlib import import_module
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
