"""The ``custody-lab sweep`` subcommand: route a whole grid or inventory file at once.

    custody-lab sweep GRID.(csv|json) [--policy POLICY.json] [--out results.csv|results.parquet]

The file is read exactly as ``custody-lab route`` reads it (one reader, :mod:`custody_lab.core.tables`;
a bad row refuses the sweep with the same list of lines and fields ``route`` prints). Without
``--out`` it prints how many rows got each outcome; with it, it also writes every row with
its ``accepted``, ``selected``, ``rejection`` and ``outcome`` columns. A CSV is written by
:func:`~custody_lab.whatif.io.write_csv`: a text cell that begins with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return gets a leading ``'`` so a spreadsheet shows it as text instead of running
it as a formula, and the command says how many cells it changed. Writing Parquet uses
``pyarrow`` (a dependency of the lab); on an install that lacks it the command says so and exits
with status 2.
"""

from __future__ import annotations

__all__ = ["configure", "run"]

import argparse
import importlib.util
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the sweep arguments to ``parser``."""
    parser.add_argument("grid", help="a grid or inventory: .csv (case-field columns) or .json (case objects)")
    parser.add_argument("--policy", help='a policy JSON file, e.g. {"embedLimitBytes": 2048, "requireCurrent": true}')
    parser.add_argument("--out", help="write every row with its decision to a .csv or .parquet file")


def run(args: argparse.Namespace) -> int:
    """Sweep the file; returns the exit code (2 for a bad file, policy or output format)."""
    from ..core.loading import progress_line
    from ..core.tables import load_policy
    from ..core.text import visible
    from .io import read_grid_and_policy, write_csv
    from .sweep import outcome_counts, sweep

    out = Path(args.out) if args.out else None
    if out is not None:
        suffix = out.suffix.lower()
        if suffix not in (".csv", ".parquet"):
            print(f"error: --out must end in .csv or .parquet; got {out.name!r}", file=sys.stderr)
            return 2
        if suffix == ".parquet" and importlib.util.find_spec("pyarrow") is None:
            print(
                "error: writing .parquet needs the package pyarrow, which is not installed; "
                "reinstall the lab (pip install -e .) or write .csv instead",
                file=sys.stderr,
            )
            return 2
    given = load_policy(args.policy) if args.policy else None  # first, as ``route`` reads it
    frame, file_policy = read_grid_and_policy(args.grid, progress=progress_line(args.grid))
    policy = given or file_policy
    swept = sweep(frame, policy)
    counts = outcome_counts(swept)
    width = max((len(str(o)) for o in counts.index), default=0)
    for outcome, row in counts.iterrows():
        print(f"{str(outcome):<{width}}  {int(row['cases']):>9,}  {row['share']:6.1%}")
    print(f"{'total':<{width}}  {len(swept):>9,}")
    if out is not None:
        changed = 0
        if out.suffix.lower() == ".csv":
            changed = write_csv(swept, out)
        else:
            swept.to_parquet(out, index=False)
        print(f"wrote {len(swept):,} rows to {visible(out)}")
        if changed:
            print(
                f"{changed:,} cell(s) began with =, +, -, @, a tab or a carriage return and are written with a "
                "leading ' so a spreadsheet shows them as text, never runs them as formulas"
            )
    return 0
