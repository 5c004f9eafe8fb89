"""Charts that read from the back row and in the dark: themes, contrast, sizes, legend, glyphs, PNG bands."""

from __future__ import annotations

import io
import warnings
import zlib

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex, to_rgb
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from PIL import Image

import custody_lab as cl
from custody_lab.chart import CustodyMatrix, matrix_figure
from custody_lab.core.rules import outcome_look
from custody_lab.protocol.link_or_embed import compare_shapes
from custody_lab.sweep import compare, grid, sweep
from custody_lab.views.chart.png_bands import BAND_ROWS, PngBands, png
from custody_lab.views.context_costs import plot_cumulative
from custody_lab.whatif import plots
from custody_lab.whatif.theme import MIN_TEXT, THEME_VARIABLE, THEMES, ThemeError, contrast, theme_of

matplotlib.use("Agg")

CHECK_ID = "✅ ok-draft"


def _cases(fixture) -> list[cl.Case]:
    return [*fixture.all_cases, fixture.case("approve-draft").with_changes(id=CHECK_ID, bytes=2048)]


def _fast(fixture, theme: str) -> CustodyMatrix:
    m = CustodyMatrix(context_cases=fixture.all_cases, theme=theme, cache_size=0)
    m.render(fixture.case("denied-handbook").with_changes(id=CHECK_ID))
    return m


CHARTS = {
    "matrix": lambda fx, t: matrix_figure(_cases(fx), highlight="oversize-embed", theme=t),
    "matrix-2048": lambda fx, t: matrix_figure(_cases(fx), cl.Policy(embed_limit_bytes=2048), theme=t),
    "explorer-map": lambda fx, t: _fast(fx, t).figure,
    "outcome-share": lambda fx, t: plots.outcome_share(sweep(grid()), by="shape", theme=t),
    "bytes-shape-map": lambda fx, t: plots.bytes_shape_map(sweep(grid()), theme=t),
    "policy-comparison": lambda fx, t: plots.policy_comparison(
        compare(grid(), None, {"embedLimitBytes": 2048}), theme=t
    ),
    "cumulative": lambda fx, t: plot_cumulative(compare_shapes(18000, 5), theme=t),
}
CASES = [(name, theme) for name in CHARTS for theme in THEMES]


def agg(fig):
    """The figure on an Agg canvas (a plot closed by pyplot keeps only a bare canvas)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    return fig


def drawn_texts(fig) -> list[Text]:
    """Every text the figure draws (tick labels outside the axis' view are never drawn)."""
    agg(fig).canvas.draw()
    undrawn: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            pad = (hi - lo) * 1e-9
            for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels()):
                if not lo - pad <= loc <= hi + pad:
                    undrawn.add(id(label))
    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.figure is not None and id(t) not in undrawn
    ]


def _worst_contrast(text: Text, background: str) -> tuple[float, str]:
    """The text's contrast against what it is drawn on; a translucent box is judged over black and white."""
    color = to_hex(text.get_color())
    patch = text.get_bbox_patch()
    if patch is None or patch.get_facecolor()[3] == 0:
        return contrast(color, background), background
    face, alpha = np.array(patch.get_facecolor()[:3]), patch.get_facecolor()[3]
    worst = (99.0, "")
    for under in ((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)):
        seen = to_hex(alpha * face + (1 - alpha) * np.array(under))
        worst = min(worst, (contrast(color, seen), seen))
    return worst


@pytest.mark.parametrize(("name", "theme"), CASES)
def test_every_text_meets_4_5_to_1_against_its_background(fixture, name, theme):
    fig = CHARTS[name](fixture, theme)
    background = THEMES[theme].background
    assert to_hex(fig.get_facecolor()) == background, f"{name}/{theme}: figure face {to_hex(fig.get_facecolor())}"
    assert all(to_hex(ax.get_facecolor()) == background for ax in fig.axes), f"{name}/{theme}: an axes face differs"
    low = []
    for t in drawn_texts(fig):
        ratio, seen = _worst_contrast(t, background)
        if ratio < 4.5:
            low.append(f"{t.get_text()[:30]!r}: {to_hex(t.get_color())} on {seen} = {ratio:.2f}")
    assert not low, f"{name}/{theme}: expected every text >= 4.5:1, got {low}"


@pytest.mark.parametrize(("name", "theme"), CASES)
def test_no_text_is_smaller_than_the_projector_minimum_or_cut_off(fixture, name, theme):
    fig = agg(CHARTS[name](fixture, theme))
    renderer = fig.canvas.get_renderer()
    small = [f"{t.get_text()[:30]!r} at {t.get_fontsize()} pt" for t in drawn_texts(fig) if t.get_fontsize() < MIN_TEXT]
    assert not small, f"{name}/{theme}: expected every text >= {MIN_TEXT} pt, got {small}"
    fb = fig.bbox
    cut = [
        t.get_text()[:30]
        for t in drawn_texts(fig)
        if (b := t.get_window_extent(renderer)).x0 < fb.x0 - 1
        or b.x1 > fb.x1 + 1
        or b.y0 < fb.y0 - 1
        or b.y1 > fb.y1 + 1
    ]
    assert not cut, f"{name}/{theme}: texts outside the figure {cut}"


def test_a_glyph_the_font_lacks_draws_as_a_look_alike_without_a_warning(fixture, recwarn):
    warnings.simplefilter("always")
    fig = matrix_figure(_cases(fixture), highlight=CHECK_ID)
    labels = [t.get_text() for t in drawn_texts(fig) if t.get_gid() == f"case-label:{CHECK_ID}"]
    _fast(fixture, "light")
    fig.savefig(io.BytesIO(), format="png")
    share = plots.outcome_share(sweep(grid()).assign(flag=lambda f: np.where(f.accepted, CHECK_ID, "🦜")), by="flag")
    share.savefig(io.BytesIO(), format="png")
    glyph = [str(w.message) for w in recwarn if "Glyph" in str(w.message) or "missing from font" in str(w.message)]
    assert not glyph, f"expected no missing-glyph warning, got {glyph}"
    assert labels and labels[0].startswith("✓ ok-draft → "), f"expected '✓ ok-draft → …', got {labels}"
    ticks = {t.get_text() for t in share.axes[0].get_yticklabels()}
    assert ticks == {"✓ ok-draft", "[U+1F99C]"}, ticks


def test_no_zero_tick_sits_on_the_matrix_log_axis(fixture):
    for fig in (matrix_figure(fixture.all_cases), _fast(fixture, "light").figure):
        ax = fig.axes[0]
        assert ax.get_xscale() == "symlog"
        ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_visible()]
        assert ticks and not [t for t in ticks if t.split()[0] in ("0", "0.0")], f"expected no '0' tick, got {ticks}"


def _legend_entries(fig) -> dict[str, object]:
    (legend,) = fig.legends
    return dict(zip((t.get_text() for t in legend.get_texts()), legend.legend_handles))


def test_the_legend_shows_only_encodings_the_chart_draws(fixture):
    accepted_reads = [c for c in fixture.all_cases if c.initiator == "application" and cl.route(c).accepted]
    assert accepted_reads
    fig = matrix_figure(accepted_reads)
    ax = fig.axes[0]
    drawn_markers = {line.get_marker() for line in ax.lines if (line.get_gid() or "").startswith("case:")}
    drawn_hatches = {p.get_hatch() for p in ax.patches if (p.get_gid() or "").startswith("region:")}
    entries = _legend_entries(fig)
    for label, handle in entries.items():
        parts = handle if isinstance(handle, tuple) else (handle,)
        for part in parts:
            if isinstance(part, Patch):
                assert part.get_hatch() in drawn_hatches, (
                    f"{label!r}: hatch {part.get_hatch()!r} not in {drawn_hatches}"
                )
            elif isinstance(part, Line2D) and part.get_marker() not in ("None", "none", None, ""):
                assert part.get_marker() in drawn_markers, f"{label!r}: marker {part.get_marker()!r} not drawn"
    words = " | ".join(entries)
    assert "triangle" not in words and "hollow" not in words and "ring" not in words, words
    assert "circle" in words and "filled" in words, words


def test_the_explorer_map_legend_lists_every_marker_the_explored_case_can_wear(fixture):
    words = " | ".join(_legend_entries(CustodyMatrix(context_cases=[]).figure))
    for entry in ("circle", "triangle", "filled", "hollow", "ring"):
        assert entry in words, f"expected {entry!r} in {words}"


def _line_x(fig) -> float:
    ax = fig.axes[0]
    (line,) = [ln for ln in ax.lines if ln.get_gid() == "limit-line"]
    return float(ax.transData.transform((line.get_xdata()[0], 0))[0])


@pytest.mark.parametrize("limit", [300, 1800, 2048, 4096])
def test_no_case_label_crosses_the_embed_limit_line(fixture, limit):
    fig = matrix_figure(_cases(fixture), cl.Policy(embed_limit_bytes=limit))
    drawn_texts(fig)
    renderer = fig.canvas.get_renderer()
    x = _line_x(fig)
    labels = {t.get_gid(): t.get_window_extent(renderer) for t in drawn_texts(fig) if "label:" in (t.get_gid() or "")}
    assert len(labels) > len(_cases(fixture))
    crossing = [gid for gid, b in labels.items() if b.x0 - 1 < x < b.x1 + 1 and gid != "limit-label"]
    assert not crossing, f"limit {limit} B at x={x:.1f}px: labels across it {crossing}"


def test_the_explored_case_label_keeps_off_the_limit_line(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    x = _line_x(m.figure)
    renderer = m.canvas.get_renderer()
    for nbytes in (3000, 3800, 4096, 4097, 4500, 6000):
        m.render(fixture.case("approve-draft").with_changes(bytes=nbytes))
        b = m._label.get_window_extent(renderer)
        assert not (b.x0 - 1 < x < b.x1 + 1), f"{nbytes} B: label {b} crosses the limit line at {x:.1f}"


@pytest.mark.parametrize("theme", list(THEMES))
def test_a_rejected_marker_stands_clear_of_the_crosshatch_it_sits_in(fixture, theme):
    # An application case declared embedded-resource at 9000 B: rejected, a circle in "xx" hatching.
    case = fixture.case("approve-draft").with_changes(id="x", initiator="application", bytes=9000)
    assert not cl.route(case).accepted
    fig = matrix_figure([case], theme=theme)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    img = np.asarray(Image.open(buf).convert("RGB")).astype(int)
    ax = fig.axes[0]
    (marker,) = [ln for ln in ax.lines if ln.get_gid() == "case:x"]
    cx, cy = ax.transData.transform((marker.get_xdata()[0], marker.get_ydata()[0]))
    cy = img.shape[0] - cy
    r = marker.get_markersize() / 2 * fig.dpi / 72  # the marker's radius, px
    bg = np.array([round(255 * c) for c in to_rgb(THEMES[theme].background)])

    def off(radius: float, angle: float) -> int:
        return int(np.abs(img[round(cy + radius * np.sin(angle)), round(cx + radius * np.cos(angle))] - bg).max())

    # Per direction, the clearest pixel just outside the marker's edge (1.5 to 3 px out).
    far = [min(off(r + d, a) for d in (1.5, 2.0, 2.5, 3.0)) for a in np.linspace(0, 2 * np.pi, 48, endpoint=False)]
    # Without the halo every sample shows the region's fill (>= 28 off the background) or a hatch line.
    clear = sum(d <= 12 for d in far)
    assert clear >= 0.85 * len(far), f"{theme}: expected a background-coloured halo around the marker, got {far}"


def test_the_effects_and_denied_swatches_differ_in_hatch_and_lightness():
    effects, denied = outcome_look("side-effects-unknown"), outcome_look("permission-denied")
    assert not set(effects.hatch) & set(denied.hatch), (effects.hatch, denied.hatch)
    ratio = contrast(effects.color, denied.color)
    assert ratio >= 3.0, f"expected fills at least 3:1 apart in lightness, got {ratio:.2f}"


def test_the_theme_follows_the_environment_variable_and_refuses_an_unknown_name(monkeypatch, fixture):
    monkeypatch.setenv(THEME_VARIABLE, "dark")
    assert to_hex(matrix_figure([]).get_facecolor()) == THEMES["dark"].background
    assert CustodyMatrix(context_cases=[]).theme is THEMES["dark"]
    assert to_hex(plots.outcome_share(sweep(grid()), theme="light").get_facecolor()) == "#ffffff"
    monkeypatch.setenv(THEME_VARIABLE, "sepia")
    with pytest.raises(ThemeError, match=THEME_VARIABLE) as err:
        theme_of()
    assert "sepia" in str(err.value) and isinstance(err.value, ValueError)
    monkeypatch.delenv(THEME_VARIABLE)
    assert theme_of().name == "light"


def test_the_dark_explorer_map_is_not_a_white_block(fixture):
    pix = np.asarray(Image.open(io.BytesIO(_fast(fixture, "dark").render(fixture.case("handbook")))).convert("L"))
    assert np.median(pix) < 80, f"expected a dark image, got median grey {np.median(pix)}"


# --- the banded PNG --------------------------------------------------------------------------


def _idat(data: bytes) -> bytes:
    assert data[12:16] == b"IHDR"
    pos, out = 8, b""
    while pos < len(data):
        n = int.from_bytes(data[pos : pos + 4], "big")
        if data[pos + 4 : pos + 8] == b"IDAT":
            out += data[pos + 8 : pos + 8 + n]
        pos += 12 + n
    return out


@pytest.mark.parametrize("shape", [(1, 1), (BAND_ROWS, 7), (BAND_ROWS * 3 + 5, 33)])
def test_the_banded_png_is_a_valid_zlib_stream_of_the_pixels(shape):
    rgba = np.random.default_rng(7).integers(0, 256, (*shape, 4), dtype=np.uint8)
    data = png(rgba)
    raw = zlib.decompress(_idat(data))  # checks the combined adler32 too
    rows = np.frombuffer(raw, np.uint8).reshape(shape[0], 1 + 3 * shape[1])
    assert (rows[:, 0] == 0).all() and np.array_equal(rows[:, 1:].reshape(*shape, 3), rgba[:, :, :3])
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), rgba[:, :, :3])


def test_reusing_unchanged_bands_gives_the_same_bytes_as_a_full_encode():
    rng = np.random.default_rng(3)
    background = rng.integers(0, 256, (BAND_ROWS * 4 + 3, 20, 4), dtype=np.uint8)
    bands = PngBands()
    bands.set_reference(background)
    frame = background.copy()
    frame[BAND_ROWS + 2, 5] = (1, 2, 3, 255)  # one pixel in the second band
    frame[-1, -1] = (9, 9, 9, 255)  # and one in the last
    assert bands.encode(frame) == png(frame)
    assert bands.encode(background) == png(background)
    assert bands.encode(frame) != png(background)


def test_a_new_backgrounds_bands_are_encoded_when_a_frame_first_needs_them():
    rng = np.random.default_rng(5)
    old = rng.integers(0, 256, (BAND_ROWS * 4, 20, 4), dtype=np.uint8)
    bands = PngBands()
    bands.set_reference(old)
    assert bands.encode(old) == png(old)
    new = old.copy()
    new[BAND_ROWS + 1, 3] = (1, 2, 3, 255)  # the background changes in the second band
    bands.set_reference(new, rows=[(BAND_ROWS + 1, BAND_ROWS + 2)])
    frame = new.copy()
    frame[BAND_ROWS + 4, 6] = (7, 7, 7, 255)  # a frame that covers that band with its own pixels
    assert bands.encode(frame) == png(frame)
    for _ in range(2):  # the plain background: its second band encoded once, then kept
        assert bands.encode(new) == png(new)
    assert bands.encode(old) == png(old)


def test_the_explorer_map_bytes_equal_a_full_encode_of_its_canvas(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    for case in (fixture.case("oversize-embed"), fixture.case("handbook").with_changes(bytes=9000)):
        data = m.render(case)
        assert data == png(np.asarray(m.canvas.buffer_rgba())), f"{case.id}: banded bytes differ from a full encode"


@pytest.mark.parametrize("limit", [4096, 2048])
def test_no_cell_label_of_the_bytes_shape_map_crosses_the_limit_line(limit):
    policy = cl.Policy(embed_limit_bytes=limit)
    fig = agg(plots.bytes_shape_map(sweep(grid(bytes=list(range(0, 8001, 500))), policy), policy))
    drawn_texts(fig)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    x = float(ax.transData.transform((limit + 0.5, 0))[0])
    cells = [t for t in ax.texts if "accepted" in t.get_text() or t.get_text().endswith("%")]
    assert len(cells) >= 5, [t.get_text() for t in ax.texts]
    crossing = [t.get_text()[:20] for t in cells if (b := t.get_window_extent(renderer)).x0 - 1 < x < b.x1 + 1]
    assert not crossing, f"limit {limit} B at x={x:.1f}px: cell labels across it {crossing}"
