"""The ``custody-lab sweep`` subcommand: route a whole grid or inventory file at once.

    custody-lab sweep GRID.(csv|json) [--policy POLICY.json] [--out results.csv|results.parquet]

The file is read exactly as ``custody-lab route`` reads it (one reader, :mod:`custody_lab.core.tables`).
A bad row refuses the whole sweep: its counts cover every row of the file or none, so the command
says that nothing was swept or written and lists the same lines and fields ``route`` prints (exit 2).
Without ``--out`` it prints how many rows got each outcome, each line marked ``accepted`` or
``rejected``; with it, it also writes every row with its ``accepted``, ``selected``, ``rejection``
and ``outcome`` columns. An ``--out`` whose folder does not exist, or that cannot be written, is one
line naming the path (exit 2), checked before the file is read. A CSV is written by
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
    from ..core.errors import CaseFileError
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
        if not out.parent.is_dir():
            print(
                f"error: --out {visible(out)}: the folder {visible(out.parent)} does not exist; "
                "create it first or write somewhere else",
                file=sys.stderr,
            )
            return 2
    given = load_policy(args.policy) if args.policy else None  # first, as ``route`` reads it
    try:
        frame, file_policy = read_grid_and_policy(args.grid, progress=progress_line(args.grid))
    except CaseFileError as e:  # every row or none: counts of the good rows alone would mislead
        written = f" and nothing written to {out}" if out is not None else ""
        print(
            visible(
                f"{e.path}: {len(e.problems)} problem(s); nothing swept{written} (a sweep counts every row "
                f"of the file or none): fix the rows below and run it again"
            ),
            file=sys.stderr,
        )
        for p in e.problems:
            print(f"  - {visible(p)}", file=sys.stderr)
        return 2
    policy = given or file_policy
    swept = sweep(frame, policy)
    counts = outcome_counts(swept)
    rejected = set(swept.loc[~swept["accepted"].astype(bool), "outcome"])
    width = max((len(str(o)) for o in counts.index), default=0)
    for outcome, row in counts.iterrows():
        verdict = "rejected" if outcome in rejected else "accepted"
        print(f"{verdict:<8}  {str(outcome):<{width}}  {int(row['cases']):>9,}  {row['share']:6.1%}")
    n_rejected = int(counts.loc[[o for o in counts.index if o in rejected], "cases"].sum())
    print(
        f"{'total':<8}  {'':<{width}}  {len(swept):>9,}  "
        f"({len(swept) - n_rejected:,} accepted, {n_rejected:,} rejected)"
    )
    if out is not None:
        changed = 0
        try:
            if out.suffix.lower() == ".csv":
                changed = write_csv(swept, out)
            else:
                swept.to_parquet(out, index=False)
        except OSError as e:
            why = e.strerror or str(e)
            print(f"error: --out {visible(out)}: cannot write it ({visible(why)})", file=sys.stderr)
            return 2
        print(f"wrote {len(swept):,} rows to {visible(out)}")
        if changed:
            print(
                f"{changed:,} cell(s) began with =, +, -, @, a tab or a carriage return and are written with a "
                "leading ' so a spreadsheet shows them as text, never runs them as formulas"
            )
    return 0
