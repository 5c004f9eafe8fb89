"""The what-if layer: the vectorised sweep over the same rule table, grids, flips, policy
comparison, inventories and their plots (numpy, pandas).

This package's ``__init__`` stays light: the command line imports :mod:`custody_lab.whatif.command`.
"""
