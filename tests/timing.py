"""How long a test may wait: every timeout a test passes is scaled by one factor CI can raise.

A test never depends on how fast the machine is. It waits for a *condition* (a server that says it
is ready, a port that answers, a page element that appears), and the deadline it gives that wait
is only a guard against hanging for ever. Machines are shared: on a loaded two-core machine a
step that takes 2 s on a quiet one can take 20 s, so every such deadline goes through
:func:`scaled`, and ``CUSTODY_LAB_TIMEOUT_FACTOR`` (default 1; ``.ci/run`` sets 4) stretches them
all at once.

A timeout that is itself the behaviour under test (the audit gives up on a server that never
answers) is scaled too: the server under test must never answer at all, so a longer wait changes
how long the test takes, not what it sees.
"""

from __future__ import annotations

import os

__all__ = ["FACTOR", "scaled", "scaled_ms"]


def _factor() -> float:
    raw = os.environ.get("CUSTODY_LAB_TIMEOUT_FACTOR", "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise SystemExit(f"CUSTODY_LAB_TIMEOUT_FACTOR must be a number such as 4; got {raw!r}") from None
    if not value >= 1:
        raise SystemExit(f"CUSTODY_LAB_TIMEOUT_FACTOR must be 1 or more; got {raw!r}")
    return value


#: The factor every test deadline is multiplied by (``CUSTODY_LAB_TIMEOUT_FACTOR``, at least 1).
FACTOR: float = _factor()


def scaled(seconds: float) -> float:
    """``seconds`` stretched by :data:`FACTOR`: the deadline of a wait, never a pause."""
    return seconds * FACTOR


def scaled_ms(milliseconds: float) -> float:
    """The same for Playwright, whose timeouts are milliseconds."""
    return milliseconds * FACTOR
