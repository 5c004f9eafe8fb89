"""A big sweep's memory goes back to the machine once its frames are deleted (issue 42 §1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from custody_lab.whatif.memory import release_memory, resident_bytes

ROOT = Path(__file__).resolve().parents[2]


def test_release_memory_reports_what_it_gave_back_and_never_a_negative_figure():
    freed = release_memory()
    assert freed is None or freed >= 0, freed
    if sys.platform.startswith("linux"):
        assert isinstance(freed, int) and (resident_bytes() or 0) > 1_000_000, (freed, resident_bytes())


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="resident memory is read from /proc (Linux)")
def test_a_deleted_million_row_sweep_gives_its_kept_memory_back_in_a_fresh_interpreter():
    # Notebook 06 sweeps a million rows and deletes them; the allocators would keep about 15 MB.
    code = (
        "from custody_lab.whatif.memory import release_memory, resident_bytes\n"
        "import custody_lab.sweep as sw\n"
        "million = sw.grid(bytes=range(0, 4167 * 48, 48))\n"
        "swept = sw.sweep(million)\n"
        "del million, swept\n"
        "before = resident_bytes()\n"
        "freed = release_memory()\n"
        "print(freed, before - resident_bytes())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    freed, measured = (int(v) for v in out.stdout.split())
    assert freed >= 4_000_000, f"expected at least 4 MB given back after the sweep was deleted, got {freed:,} bytes"
    assert abs(freed - measured) < 1_000_000, f"reported {freed:,} bytes, the process shrank by {measured:,}"
