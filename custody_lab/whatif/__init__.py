"""The what-if layer: the vectorised sweep over the same rule table, grids, flips, policy
comparison, inventories and their plots (numpy, pandas).

- :mod:`~custody_lab.whatif.columns`: the columns as the rules see them, :class:`VectorOps`, blocks
- :mod:`~custody_lab.whatif.validation`: a frame's columns checked, one error naming column and rows
- :mod:`~custody_lab.whatif.sweep`: :func:`sweep` and :func:`outcome_counts`
- :mod:`~custody_lab.whatif.grid`, :mod:`~custody_lab.whatif.flips`, :mod:`~custody_lab.whatif.compare`
- :mod:`~custody_lab.whatif.io`: frames from cases and files (the core's one reader)
- :mod:`~custody_lab.whatif.inventory_csv`: inventory CSVs read column by column (pyarrow), with
  the row-by-row reader for any file it cannot prove good
- :mod:`~custody_lab.whatif.inventory_json`: JSON inventories checked column by column, with the
  row-by-row loader for any file it cannot prove good
- :mod:`~custody_lab.whatif.arrow_text`: text columns reduced from Arrow buffers (missing, blank)
- :mod:`~custody_lab.whatif.object_columns`: columns of Python objects reduced in C (codes, missing, blank)
- :mod:`~custody_lab.whatif._identity` (private): the only facts kept by object identity — marks on Arrow
  arrays and object addresses — with what each survives written down and tested
- :mod:`~custody_lab.whatif.plots` and :mod:`~custody_lab.whatif.sweep_command` (``custody-lab sweep``)

This package's ``__init__`` stays light (it imports nothing): the command line imports
:mod:`custody_lab.whatif.sweep_command`, which loads pandas only when the command runs.
"""

__all__ = ()  # a namespace: every name lives in a submodule
