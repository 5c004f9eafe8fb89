"""Frames from cases and files: the what-if side of the one case-file reader.

A grid or inventory file means what it means to ``custody-lab route``: the same rows are accepted,
the same problems reported with the same line and field, and every file is parsed once. A CSV
file is read column by column (:mod:`custody_lab.whatif.inventory_csv`: pyarrow, each column
checked at once with the core's cell and field checks); when a row is not a valid case, the core's
row function and loader (:func:`~custody_lab.core.loading.load_table`) read the cells of that same
parse and give the row-numbered messages. Only a file whose syntax the line-by-line reader alone
reads exactly is read by :mod:`custody_lab.core.tables` instead. A JSON list of cases is read a
slice at a time, each slice's fields checked column by column and built into a frame before the
next is parsed (:mod:`custody_lab.whatif.inventory_json`); any other JSON file, or one it cannot
prove good, is parsed whole by that reader, with the one loader on that parse. Text columns come out
pyarrow-backed, the enumerations as categoricals.

Every CSV the lab writes goes through :func:`write_csv`, which keeps a spreadsheet from running a
cell as a formula (OWASP, "CSV Injection").
"""

from __future__ import annotations

__all__ = ["FORMULA_START", "load_inventory", "read_grid", "read_grid_and_policy", "to_frame", "write_csv"]

import operator
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseFileError
from ..core.loading import LoadResult, Progress, load_table, read_cases
from ..core.model import FIELDS, Case, Policy
from ..core.tables import read_table
from .inventory_csv import read_csv_frame
from .inventory_json import json_columns, json_frame


def _snake(name: str) -> str:
    return re.sub("([A-Z])", lambda m: "_" + m.group(1).lower(), name)


#: Each case field (camelCase) read straight off a Case's attribute (snake_case), in C.
_GETTERS = {spec.name: operator.attrgetter(_snake(spec.name)) for spec in FIELDS}


def to_frame(cases: Iterable[Case | Mapping[str, Any]]) -> pd.DataFrame:
    """A sweep frame from cases (each validated by :meth:`Case.from_dict`), one row per case.

    Every field is a column in the seed's order; enum fields are categoricals, ``sideEffects`` a
    nullable boolean, the text fields pandas strings (missing where the case has none).

    Example:
        >>> from custody_lab import load_fixture
        >>> to_frame(load_fixture().cases)["shape"].tolist()[:2]
        ['listed-resource', 'templated-resource']
    """
    rows = [c if isinstance(c, Case) else Case.from_dict(c) for c in cases]
    return _frame({spec.name: list(map(_GETTERS[spec.name], rows)) for spec in FIELDS})


def _frame(columns: Mapping[str, list[Any]]) -> pd.DataFrame:
    """The sweep frame of validated columns (each value as :meth:`Case.from_dict` keeps it)."""
    data: dict[str, Any] = {}
    for spec in FIELDS:
        values = columns[spec.name]
        if spec.kind == "enum":
            data[spec.name] = pd.Categorical(values, categories=list(spec.choices))
        elif spec.kind == "int":
            data[spec.name] = np.array(values, dtype=np.int64)
        elif spec.name == "sideEffects":
            data[spec.name] = pd.array(values, dtype="boolean")
        elif spec.kind == "bool":
            data[spec.name] = np.array(values, dtype=bool)
        else:
            data[spec.name] = pd.array(values, dtype="str")
    return pd.DataFrame(data)


def read_grid_and_policy(path: str | Path, *, progress: Progress | None = None) -> tuple[pd.DataFrame, Policy | None]:
    """Read a grid, inventory or case file for a sweep, with the file's own policy (if it has one).

    The file is read exactly as ``custody-lab route`` reads it (:func:`~custody_lab.core.loading.read_cases`):
    a CSV with case-field columns, a JSON list of case objects, or a case file ``{"cases": [...],
    "policy": {...}}``. Every row must be a valid case (an ``id`` and an ``operation`` included);
    a column that is absent is absent on every row, so a file without a ``uri`` column routes and
    sweeps as ``custody-incomplete``. ``progress(done, total)`` is called as the file is read and
    its rows validated (bytes of the file), as for :func:`~custody_lab.core.loading.read_cases`.

    Raises:
        CaseFileError: listing every bad row with its line and field (the same list ``route``
            prints), when any row is bad; ``.cases`` keeps the good rows.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> frame, policy = read_grid_and_policy(data_path("cases.json"))
        >>> len(frame), policy.embed_limit_bytes
        (10, 4096)
    """
    suffix = Path(path).suffix.lower()
    result: LoadResult | None = None
    if suffix == ".csv":
        got = read_csv_frame(path, progress)  # column by column; None: the line-by-line reader's syntax
        if isinstance(got, pd.DataFrame):
            return got, None
        result = got
    elif suffix == ".json":
        frame = json_frame(path, _frame, progress=progress)  # a list of good cases, a slice at a time
        if frame is not None:
            return frame, None
        table = read_table(path)
        columns = json_columns(table)  # column by column; None: some entry must be read alone
        if columns is not None:
            if progress is not None:
                progress(table.size, table.size)
            return _frame(columns), table.policy
        result = load_table(table, progress)  # the same parse, every entry validated
    if result is None:
        result = read_cases(path, progress=progress)
    if result.problems:
        raise CaseFileError(str(path), result.problems, result.cases)
    return to_frame(result.cases), result.policy


def read_grid(path: str | Path) -> pd.DataFrame:
    """Read a grid file for a sweep (see :func:`read_grid_and_policy`; its policy is dropped).

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> read_grid(data_path("inventories", "support-desk.csv"))["bytes"].iloc[0]
        np.int64(2300)
    """
    return read_grid_and_policy(path)[0]


def load_inventory(path: str | Path) -> pd.DataFrame:
    """Read a designer's capability inventory (CSV or JSON, one row per resource or tool).

    The columns are the case fields (``data/cases.json``'s keys); describe a capability in the
    ``title`` and ``description`` columns, which are shown but never decide anything. The file is
    read as any case file is (:func:`read_grid_and_policy`): a column that is not a case field is
    reported by name rather than silently dropped, and every row is validated by
    :meth:`Case.from_dict`.

    Returns:
        A sweep frame (see :func:`to_frame`).

    Raises:
        CaseFileError: listing every problem (unknown columns, or each bad row with its line
            and field; ``.cases`` keeps the good rows), or a file that holds no rows at all.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> inv = load_inventory(data_path("inventories", "support-desk.csv"))
        >>> inv["id"].iloc[0]
        'kb-returns-policy'
    """
    return read_grid(path)


#: The characters a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): ``=``,
#: ``+``, ``-``, ``@``, a tab and a carriage return.
FORMULA_START = "=+-@\t\r"
_FORMULA = re.compile(r"[=+\-@\t\r]")
#: A text cell that is a plain decimal number (``-1``, ``+2.5``): every spreadsheet reads it as that
#: number, which runs nothing, so it is written as it is.
_PLAIN_NUMBER = r"[+-]?\d+(?:\.\d+)?"


def _neutralised(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """``frame`` with every text cell that starts a formula prefixed with ``'``, and how many were."""
    out = frame.copy()
    changed = 0
    for name in out.columns:
        column = out[name]
        if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue  # numbers and booleans are written as numbers: no text to run
        text = column.astype("string")
        starts = text.str.match(_FORMULA.pattern, na=False) & ~text.str.fullmatch(_PLAIN_NUMBER, na=False)
        hits = int(starts.sum())
        if hits:
            out[name] = text.mask(starts, "'" + text)
            changed += hits
    return out, changed


def write_csv(frame: pd.DataFrame, path: str | Path) -> int:
    """Write a frame as CSV (no index) so that no cell runs as a spreadsheet formula; returns how many
    cells were neutralised.

    A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    (:data:`FORMULA_START`; OWASP, "CSV Injection") is written with a leading ``'``, which a
    spreadsheet shows as text: ``=HYPERLINK(...)`` arrives as ``'=HYPERLINK(...)``. A text cell
    that is a plain decimal number (``-1``) is written as it is, and number and boolean columns
    are never changed. Lines end in CRLF (RFC 4180 §2), so a cell holding a line break or a bare
    carriage return is quoted. The lab's own ``sweep --out`` and notebook 06's export use it.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
        >>> write_csv(pd.DataFrame({"id": ["=1+2", "-1", "ok"], "bytes": [-1, 2, 3]}), out)
        1
        >>> out.read_text().splitlines()
        ['id,bytes', "'=1+2,-1", '-1,2', 'ok,3']
    """
    safe, changed = _neutralised(frame)
    # RFC 4180 line ends (CRLF), which the csv module also quotes a cell for: with "\n" alone a cell
    # holding a bare carriage return would be written unquoted and split its row in a reader.
    safe.to_csv(path, index=False, lineterminator="\r\n")
    return changed
