"""The custody matrix: the lab's cases drawn on the advisor's decision map.

Seed 000, "Read the custody matrix as a decision tool", describes a map with two halves: what
the application reads sits in the *resource* region, what the model asks for sits in the
*tool-result* region, large or separately governed output leans toward a resource link, small
evidence stays embedded, and fields that code must check become a structured result. This package
draws that map from the lab's own :func:`~custody_lab.core.advisor.advise` and places each case on it
with the outcome :func:`~custody_lab.core.router.route` gives.

* Rows are the five shapes, grouped by who initiates: the application reads a resource
  (``listed-resource``, ``templated-resource``); the model calls a tool
  (``structured-tool-result``, ``embedded-resource``, ``resource-link``).
* The x axis is the payload size on a symmetric-log scale (0 B .. 1 MB; larger payloads sit on
  the right edge and their label says ``≥ 1 MB``).
* Each row is shaded where the advisor, asked about the row's typical need, recommends the row's
  own shape, and hatched differently where it would pick another one. The policy's embed limit is
  a dashed vertical line.
* Every encoding is repeated without colour (seed 000: the legend "repeats all encodings without
  color"): marker shape = initiator, filled / hollow with a cross = accepted / rejected, hatch
  pattern + in-band text = region, dashed line = embed limit. Each marker drawn has its own legend
  entry (initiator x outcome): no two meanings share a glyph.
* Each case's label sits on its own row beside its marker when the row has room; no leader line
  crosses another or runs through another case's label or marker.

Three ways in:

* :func:`matrix_figure` draws every case with a label (the notebook figure, exportable);
* :func:`matrix_table` is the same content as a table (for screen readers and tests);
* :class:`CustodyMatrix` is the fast, incremental version the case explorer uses: the static map is
  drawn once and cached as a bitmap; each change redraws only the highlighted case.

Text that comes from a case (its id) is data: mathtext is switched off and control characters are
removed, so an id such as ``"$x^2$"`` is shown literally and never changes the layout rules; a
character the chart font lacks (``✅``) is drawn as a look-alike (``✓``) or its code point.

Every drawing takes ``theme="light"`` or ``"dark"`` (without it, ``$CUSTODY_LAB_THEME``, else
light; :mod:`custody_lab.whatif.theme`): every text meets 4.5:1 against its background, no text is
under 9 pt, no text comes closer than ``MARGIN`` (0.15 in) to the figure's edge, the legend lists
only what is drawn, and case labels keep off the embed-limit line.

The package: :mod:`.regions` (rows, regions, the table, the words drawn; no matplotlib),
:mod:`.placement` (the label placer; pure geometry), :mod:`.labelling` (every case's label on
its row, leaders uncrossed), :mod:`.style`, :mod:`.legend` and
:mod:`.draw` (the matplotlib figure and :func:`export`), :mod:`.fast` (:class:`CustodyMatrix`),
:mod:`.png_bands` (its zlib PNG encoder), :mod:`.glyphs` (text drawn from kept glyph bitmaps, the same pixels),
:mod:`.tiles` (hatched regions put back from kept tiles, the same pixels).
"""

from __future__ import annotations

__all__ = [
    "REGION_KINDS",
    "ROWS",
    "XMAX",
    "ChartError",
    "CustodyMatrix",
    "Region",
    "RegionKind",
    "Row",
    "export",
    "matrix_figure",
    "matrix_regions",
    "matrix_table",
    "region_advice",
]

from .draw import export, matrix_figure
from .fast import CustodyMatrix
from .regions import (
    REGION_KINDS,
    ROWS,
    XMAX,
    ChartError,
    Region,
    RegionKind,
    Row,
    matrix_regions,
    matrix_table,
    region_advice,
)
