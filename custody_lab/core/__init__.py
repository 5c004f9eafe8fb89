"""The core layer: cases, the one rule table, the router, receipts, case files, the advisor
and explanations. Standard library only.
"""

__all__: list[str] = []  # a layer package: import from its modules
