"""Design grids: every combination of the input values, as a frame ready for a sweep."""

from __future__ import annotations

__all__ = ["DEFAULT_AXES", "PRESENT", "grid"]

import math
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import FIELD_SPECS, INITIATORS, SHAPES, check_value, close_field
from .columns import DECISIVE

#: The value :func:`grid` writes for "a URI / MIME type / provenance is there" (any non-empty text),
#: and :func:`~custody_lab.whatif.flips.flips` shows for "filled in".
PRESENT = "(present)"

#: The axes :func:`grid` uses for every field not given: every initiator × shape × size in
#: 0..20000 step 500 × every flag, including "nobody said" for side effects (9,840 rows), with a
#: URI, a MIME type and a provenance present on every row (a design grid asks about the design,
#: not about custody records; give ``uri=["u://x", None]`` to ask about missing addresses).
DEFAULT_AXES: dict[str, tuple[Any, ...]] = {
    "initiator": INITIATORS,
    "shape": SHAPES,
    "bytes": tuple(range(0, 20001, 500)),
    "current": (True, False),
    "allowed": (True, False),
    "sideEffects": (False, True, None),
    "requiresCurrent": (False, True),
    "uri": (PRESENT,),
    "mime": (PRESENT,),
    "provenance": (PRESENT,),
}


def _axis_values(name: str, values: Any) -> list[Any]:
    if isinstance(values, (str, bytes, bool, int, float)) or values is None:
        values = [values]
    try:
        items = list(values)
    except TypeError as e:
        raise CaseError(f"grid axis {name!r} must be a value or a list of values; got {values!r}", name) from e
    if not items:
        raise CaseError(f"grid axis {name!r} has no values: give at least one", name)
    checked = []
    for v in items:
        if name == "requiresCurrent" and v is None:
            raise CaseError("grid axis 'requiresCurrent' must hold true or false, not None", name)
        checked.append(check_value(FIELD_SPECS[name], v))  # the same checks as Case.from_dict
    return checked


def grid(**axes: Any) -> pd.DataFrame:
    """Every combination of the given input values, as a frame ready for a sweep.

    Each keyword is a case field (camelCase) and a list of values (a single value fixes the
    field). Fields not given take :data:`DEFAULT_AXES`: ``uri``, ``mime`` and ``provenance`` are
    :data:`PRESENT` on every row unless given (``uri=["u://x", None]`` asks about missing
    addresses); ``operation`` is a column only when given (no rule reads it). Enum and text fields
    come out as categoricals.

    Raises:
        CaseError: for an unknown field or a value ``Case`` would refuse.

    Example:
        >>> g = grid(bytes=[0, 4096, 4097], current=True, allowed=True, sideEffects=False,
        ...     requiresCurrent=False)
        >>> len(g), list(g.columns)[:5]  # 2 initiators × 5 shapes × 3 sizes
        (30, ['initiator', 'shape', 'uri', 'mime', 'bytes'])
    """
    allowed = list(DECISIVE)
    for name in axes:
        if name not in allowed:
            close = close_field(name, tuple(allowed))
            hint = f"; did you mean {close!r}?" if close else ""
            raise CaseError(f"{name!r} is not a grid axis{hint} (axes: {', '.join(allowed)})", name)
    spec = {**DEFAULT_AXES, **axes}
    order = [n for n in DECISIVE if n in spec]
    values = {n: _axis_values(n, spec[n]) for n in order}
    sizes = [len(values[n]) for n in order]
    total = math.prod(sizes)
    data: dict[str, Any] = {}
    stride = total
    for name, size in zip(order, sizes):
        stride //= size

        # Row r holds value (r // stride) % size of this axis: each value repeated ``stride``
        # times, that run tiled for the axes before it (numpy's repeat and tile, no division).
        def spread(small: np.ndarray, stride: int = stride, size: int = size) -> np.ndarray:
            return np.tile(np.repeat(small, stride), total // (size * stride)) if size > 1 else np.repeat(small, total)

        vals = values[name]
        kind = FIELD_SPECS[name].kind
        if kind == "enum":
            choices = list(FIELD_SPECS[name].choices)
            table = np.array([choices.index(v) for v in vals], dtype=np.int8)
            data[name] = pd.Categorical.from_codes(spread(table), dtype=pd.CategoricalDtype(choices))
        elif kind == "int":
            data[name] = spread(np.array(vals, dtype=np.int64))
        elif kind == "bool" and any(v is None for v in vals):
            value = np.array([bool(v) for v in vals], dtype=bool)
            unknown = np.array([v is None for v in vals], dtype=bool)
            data[name] = pd.arrays.BooleanArray(spread(value), spread(unknown))
        elif kind == "bool":
            data[name] = spread(np.array(vals, dtype=bool))
        else:  # uri / mime / provenance: categorical text, missing where None
            cats = list(dict.fromkeys(v for v in vals if v is not None))
            table = np.array([cats.index(v) if v is not None else -1 for v in vals], dtype=np.int32)
            data[name] = pd.Categorical.from_codes(spread(table), dtype=pd.CategoricalDtype(cats))
    return pd.DataFrame(data, copy=False)
