"""The custody matrix chart: the table, the regions, the label placer, the legend, the fast map."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
from xml.etree import ElementTree

import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from PIL import Image

import custody_lab as cl
from custody_lab.chart import (
    REGION_KINDS,
    ROWS,
    XMAX,
    ChartError,
    CustodyMatrix,
    export,
    matrix_figure,
    matrix_regions,
    matrix_table,
    region_advice,
)
from custody_lab.core.rules import RULES, rule
from custody_lab.views.chart.regions import caption_text

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HOSTILE_ID = "$x^2$ <img src=x onerror=alert(1)>"


# --- helpers ---------------------------------------------------------------------------------


def visible_texts(fig) -> list[Text]:
    """Every drawn, non-empty text of a figure (titles, ticks, legend, labels, notes)."""
    fig.canvas.draw()
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.figure is not None]


def boxes_by_gid(fig, prefix: str) -> dict[str, object]:
    renderer = fig.canvas.get_renderer()
    return {
        t.get_gid(): t.get_window_extent(renderer) for t in visible_texts(fig) if (t.get_gid() or "").startswith(prefix)
    }


def overlapping_pairs(named_boxes: dict[str, object]) -> list[tuple[str, str]]:
    """Pairs of boxes that share more than a hairline (0.5 px) of area."""
    out = []
    for (a, ba), (b, bb) in itertools.combinations(named_boxes.items(), 2):
        w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
        h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
        if w > 0.5 and h > 0.5:
            out.append((a, b))
    return out


def pixels(png: bytes) -> np.ndarray:
    assert png[:8] == PNG_MAGIC, f"not a PNG: starts with {png[:8]!r}"
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def crowd(fixture, n: int = 6) -> list[cl.Case]:
    """n cases on the very same spot of one row, plus the fixture around them."""
    base = fixture.case("approve-draft")
    same = [base.with_changes(id=f"crowd-{i}", allowed=bool(i % 2)) for i in range(n)]
    return fixture.all_cases + same


# --- the table --------------------------------------------------------------------------------


def test_the_table_gives_the_routers_outcome_for_every_fixture_case(fixture):
    table = matrix_table(fixture.all_cases)
    assert len(table) == len(fixture.all_cases) == 10
    for row, case in zip(table, fixture.all_cases):
        d = cl.route(case)
        expected = {
            "id": case.id,
            "accepted": d.accepted,
            "outcome": d.outcome,
            "rejected_by": d.rejection or "",
            "shape": case.shape,
            "bytes": case.bytes,
        }
        actual = {k: row[k] for k in expected}
        assert actual == expected, f"{case.id}: expected {expected}, got {actual}"


def test_rejected_cases_are_flagged_with_their_rule_code(fixture):
    by_id = {row["id"]: row for row in matrix_table(fixture.all_cases)}
    rejected = [i for i, row in by_id.items() if not row["accepted"]]
    assert sorted(rejected) == sorted(fixture.expected), rejected
    for case_id, code in fixture.expected.items():
        assert by_id[case_id]["rejected_by"] == code == by_id[case_id]["outcome"], by_id[case_id]
    assert all(row["rejected_by"] == "" for row in by_id.values() if row["accepted"]), by_id


def test_the_advisor_region_under_each_seed_case_recommends_its_declared_shape(fixture):
    table = matrix_table(fixture.cases)
    assert len(table) == 6
    wrong = [{k: row[k] for k in ("id", "shape", "advisor_shape")} for row in table if not row["agrees"]]
    assert not wrong, f"seed cases outside their own region: {wrong}"


def test_the_oversized_embed_sits_where_the_advisor_prefers_a_link(fixture):
    row = matrix_table([fixture.case("oversize-embed")]).rows[0]
    assert (row["advisor_shape"], row["agrees"]) == ("resource-link", False), row


def test_the_table_accepts_camelcase_mappings_and_names_a_bad_field(seed_cases):
    table = matrix_table([seed_cases["handbook"]])
    assert table.rows[0]["outcome"] == "listed-resource", table.rows
    with pytest.raises(cl.CaseError) as err:
        matrix_table([{**seed_cases["handbook"], "bytes": "1800"}])
    assert err.value.field == "bytes"


def test_an_empty_list_gives_an_empty_table_with_every_column():
    table = matrix_table([])
    assert len(table) == 0 and list(table.columns) == [
        "id",
        "initiator",
        "shape",
        "bytes",
        "accepted",
        "outcome",
        "advisor_shape",
        "agrees",
        "rejected_by",
    ]


# --- the regions ------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [0, 512, 4096, 20000, XMAX, 5 * XMAX])
def test_every_row_is_covered_from_0_bytes_to_1_mb_without_gaps(limit):
    regions = matrix_regions(cl.Policy(embed_limit_bytes=limit))
    for row in ROWS:
        mine = [r for r in regions if r.shape == row.shape]
        assert mine, f"no region on {row.shape}"
        spans = [(r.x0, r.x1) for r in mine]
        assert spans[0][0] == 0 and spans[-1][1] == XMAX, spans
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), f"{row.shape}: {spans}"


@pytest.mark.parametrize("limit", [512, 4096, 20000])
def test_the_embed_and_link_rows_change_exactly_at_the_policy_limit(limit):
    policy = cl.Policy(embed_limit_bytes=limit)
    regions = matrix_regions(policy)
    embedded = [(r.x0, r.x1, r.kind) for r in regions if r.shape == "embedded-resource"]
    link = [(r.x0, r.x1, r.kind) for r in regions if r.shape == "resource-link"]
    assert embedded == [(0, limit, "tool"), (limit, XMAX, "prefer-link")], embedded
    assert link == [(0, limit, "prefer-embed"), (limit, XMAX, "tool")], link
    assert region_advice("embedded-resource", limit, policy) == "embedded-resource"
    assert region_advice("embedded-resource", limit + 1, policy) == "resource-link"


@pytest.mark.parametrize(
    ("shape", "kind"),
    [("listed-resource", "resource"), ("templated-resource", "resource"), ("structured-tool-result", "tool")],
)
def test_the_resource_rows_and_the_structured_row_are_one_region_each(shape, kind):
    mine = [r for r in matrix_regions() if r.shape == shape]
    assert [(r.kind, r.advised) for r in mine] == [(kind, shape)], mine


def test_each_region_is_drawn_with_its_hatch():
    fig = matrix_figure([])
    drawn = {p.get_gid(): p.get_hatch() for p in fig.axes[0].patches if (p.get_gid() or "").startswith("region:")}
    assert len(drawn) == len(matrix_regions()) == 7, drawn
    for gid, hatch in drawn.items():
        kind = gid.rsplit(":", 1)[1]
        assert hatch == REGION_KINDS[kind].hatch, f"{gid}: expected {REGION_KINDS[kind].hatch!r}, got {hatch!r}"


# --- the labels -------------------------------------------------------------------------------

LAYOUTS = {
    "fixture": lambda fx: matrix_figure(fx.all_cases),
    "fixture-highlight": lambda fx: matrix_figure(fx.all_cases, highlight="denied-handbook"),
    "fixture-small-figure": lambda fx: matrix_figure(fx.all_cases, figsize=(9, 5.4), dpi=96),
    "six-on-one-spot": lambda fx: matrix_figure(crowd(fx)),
    "strict-policy": lambda fx: matrix_figure(fx.all_cases, cl.Policy(embed_limit_bytes=300)),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_case_labels_do_not_overlap_any_text_and_stay_inside_the_figure(fixture, name):
    fig = LAYOUTS[name](fixture)
    renderer = fig.canvas.get_renderer()
    texts = visible_texts(fig)
    labels = boxes_by_gid(fig, "case-label:")
    n_cases = len({c.id for c in (crowd(fixture) if name == "six-on-one-spot" else fixture.all_cases)})
    assert len(labels) == n_cases, f"{name}: expected {n_cases} case labels, got {sorted(labels)}"
    named = {}
    for i, t in enumerate(texts):
        named[t.get_gid() or f"{type(t).__name__}#{i}:{t.get_text()[:20]}"] = t.get_window_extent(renderer)
    pairs = [p for p in overlapping_pairs(named) if any(k.startswith(("case-label:", "region-label:")) for k in p)]
    assert not pairs, f"{name}: overlapping labels {pairs}"
    fb = fig.bbox
    outside = [k for k, b in named.items() if b.x0 < fb.x0 or b.y0 < fb.y0 or b.x1 > fb.x1 or b.y1 > fb.y1]
    assert not outside, f"{name}: texts outside the figure {outside}"


def test_the_fixtures_crowded_listed_row_keeps_every_label_inside_the_plot(fixture):
    fig = matrix_figure(fixture.all_cases)
    ax_box = fig.axes[0].get_window_extent(fig.canvas.get_renderer())
    labels = boxes_by_gid(fig, "case-label:")
    crowded = ["handbook", "denied-handbook", "mislabeled-mutation", "live-status", "stale-status"]
    for case_id in crowded:
        b = labels[f"case-label:{case_id}"]
        assert ax_box.x0 <= b.x0 and b.x1 <= ax_box.x1 and ax_box.y0 <= b.y0 and b.y1 <= ax_box.y1, case_id
    assert not overlapping_pairs({k: labels[f"case-label:{k}"] for k in crowded})


def test_each_label_names_the_case_and_its_outcome(fixture):
    fig = matrix_figure(fixture.all_cases)
    texts = {t.get_gid(): t.get_text() for t in visible_texts(fig)}
    for case in fixture.all_cases:
        d = cl.route(case)
        label = texts[f"case-label:{case.id}"]
        assert label.startswith(case.id) and label.endswith(d.outcome), f"{case.id}: {label!r}"
        assert ("✕" in label) == (not d.accepted), label


def test_a_case_whose_initiator_does_not_fit_its_row_still_sits_on_its_declared_row(seed_cases):
    case = {**seed_cases["handbook"], "id": "model-lists", "initiator": "model"}
    assert cl.route(case).rejection == "control-shape-mismatch"
    fig = matrix_figure([case])
    (marker,) = [a for a in fig.axes[0].lines if a.get_gid() == "case:model-lists"]
    row_y = next(r.y for r in ROWS if r.shape == "listed-resource")
    assert abs(marker.get_ydata()[0] - row_y) < 0.5 and marker.get_marker() == "^"


def test_a_payload_above_1_mb_is_drawn_on_the_right_edge_with_a_note(seed_cases):
    fig = matrix_figure([{**seed_cases["generated-report"], "bytes": 50_000_000}])
    (marker,) = [a for a in fig.axes[0].lines if a.get_gid() == "case:generated-report"]
    assert marker.get_xdata()[0] == XMAX
    label = next(t.get_text() for t in visible_texts(fig) if t.get_gid() == "case-label:generated-report")
    assert "≥ 1 MB" in label, label


# --- the legend -------------------------------------------------------------------------------


def test_the_legend_repeats_every_encoding_without_colour(fixture):
    fig = matrix_figure(fixture.all_cases, highlight=None)
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    handles = legend.legend_handles
    assert len(labels) == len(handles) >= 9, labels
    by_label = dict(zip(labels, handles))

    def find(*words):
        hits = [lab for lab in labels if all(w in lab for w in words)]
        assert len(hits) == 1, f"legend entry with {words}: found {hits} in {labels}"
        return by_label[hits[0]]

    for shape, marker, initiator in (("circle", "o", "application"), ("triangle", "^", "model")):
        accepted = find(f"filled {shape}", initiator, "accepted")
        assert accepted.get_marker() == marker and to_hex(accepted.get_markerfacecolor()) != "#ffffff", accepted
        rejected = find(f"hollow {shape}", initiator, "rejected")  # drawn under a cross (next test)
        assert rejected.get_marker() == marker and to_hex(rejected.get_markerfacecolor()) == "#ffffff", rejected
    hatches = {h.get_hatch() for h in handles if isinstance(h, Patch)}
    expected = {k.hatch for k in REGION_KINDS.values() if k.key != "prefer-other"}
    assert hatches == expected, f"legend hatches {hatches}, regions {expected}"
    for kind in REGION_KINDS.values():
        if kind.key != "prefer-other":
            assert find(kind.legend).get_hatch() == kind.hatch
    limit = find("embed limit")
    assert isinstance(limit, Line2D) and limit.get_linestyle() == "--"


def test_the_rejected_legend_entry_draws_a_hollow_marker_under_a_cross(fixture):
    fig = matrix_figure(fixture.all_cases)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("hollow" in t and "rejected" in t for t in texts), texts
    # The tuple handle is drawn as two overlaid markers: a white-faced one and an "x".
    drawn = [a for a in fig.legends[0].findobj(Line2D) if a.get_marker() == "x"]
    assert drawn, "no cross marker in the legend"


def test_the_caption_names_the_first_rule_of_the_table_in_its_own_words():
    fig = matrix_figure([])
    caption = next(t.get_text() for t in visible_texts(fig) if t.get_gid() == "caption")
    first = RULES[0]
    assert f"({first.code})" in caption and first.test in caption, f"rule {first.code!r}: caption {caption!r}"


def test_the_caption_follows_the_rule_table_when_another_rule_is_checked_first():
    reordered = (rule("stale-content"), *(r for r in RULES if r.code != "stale-content"))
    caption = caption_text(reordered)
    expected = rule("stale-content").test
    assert "(stale-content)" in caption and expected in caption, f"expected {expected!r} in {caption!r}"
    assert "custody-incomplete" not in caption, caption


def test_a_highlight_adds_a_ring_to_the_plot_and_to_the_legend(fixture):
    fig = matrix_figure(fixture.all_cases, highlight="oversize-embed")
    assert any("ring" in t.get_text() for t in fig.legends[0].get_texts())
    assert [a for a in fig.axes[0].lines if a.get_gid() == "highlight-ring"]
    status = next(t.get_text() for t in visible_texts(fig) if t.get_gid() == "status")
    assert "embed-over-budget" in status and "resource-link" in status, status


def test_highlighting_an_unknown_id_is_refused_with_the_known_ids(fixture):
    with pytest.raises(ChartError, match="handbook") as err:
        matrix_figure(fixture.all_cases, highlight="nope")
    assert isinstance(err.value, ValueError) and "nope" in str(err.value)


# --- hostile text -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case_id", "shown"),
    [
        (HOSTILE_ID, "$x^2$ <img src=x onerror=…"),
        ("two\nlines\tand\x00nul", "two lines and nul"),
        ("x" * 80, "x" * 25 + "…"),
        ("$\\frac{1}{0}$", "$\\frac{1}{0}$"),
    ],
)
def test_case_ids_are_drawn_literally_on_one_line_and_truncated(seed_cases, case_id, shown, tmp_path):
    case = {**seed_cases["handbook"], "id": case_id}
    fig = matrix_figure([case], title=case_id, highlight=case_id)
    label = next(t for t in visible_texts(fig) if (t.get_gid() or "").startswith("case-label:"))
    assert label.get_text().startswith(shown + " → "), f"expected {shown!r}, got {label.get_text()!r}"
    assert label.get_parse_math() is False and not label.get_usetex()
    export(fig, tmp_path / "hostile.png")
    export(fig, tmp_path / "hostile.svg")
    png = CustodyMatrix(context_cases=[case]).render(case)
    assert pixels(png).shape[2] == 3


# --- export -----------------------------------------------------------------------------------


def test_export_writes_a_png_and_an_svg(fixture, tmp_path):
    fig = matrix_figure(fixture.all_cases)
    png = export(fig, tmp_path / "matrix.png")
    svg = export(fig, tmp_path / "matrix.SVG")
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert Image.open(png).size == (1100, 660)
    root = ElementTree.fromstring(svg.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 50, "the SVG holds almost no drawing"


@pytest.mark.parametrize("name", ["matrix.pdf", "matrix.jpg", "matrix"])
def test_export_refuses_other_file_types_and_names_the_suffix(tmp_path, name):
    fig = matrix_figure([])
    with pytest.raises(ChartError) as err:
        export(fig, tmp_path / name)
    suffix = name.partition(".")[2]
    assert (f".{suffix}" if suffix else "no suffix") in str(err.value), str(err.value)
    assert not (tmp_path / name).exists()


# --- the fast interactive map -----------------------------------------------------------------


@pytest.fixture()
def matrix(fixture) -> CustodyMatrix:
    return CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)


def test_render_returns_a_png_of_the_figures_size(matrix, fixture):
    png = matrix.render(fixture.case("handbook"))
    width, height = matrix.canvas.get_width_height()
    assert pixels(png).shape == (height, width, 3)


def test_the_png_holds_exactly_the_canvas_pixels(matrix, fixture):
    png = matrix.render(fixture.case("risk-score"))
    canvas = np.asarray(matrix.canvas.buffer_rgba())[:, :, :3]
    assert np.array_equal(pixels(png), canvas)


def test_moving_a_case_across_the_limit_changes_the_image_and_moving_it_back_restores_it(matrix, fixture):
    at_1800 = fixture.case("handbook")
    at_9000 = at_1800.with_changes(bytes=9000)
    first = pixels(matrix.render(at_1800))
    moved = pixels(matrix.render(at_9000))
    back = pixels(matrix.render(at_1800))
    changed = int((first != moved).any(axis=2).sum())
    assert changed > 100, f"only {changed} pixels changed when bytes went 1800 -> 9000"
    assert np.array_equal(first, back), "returning to 1800 bytes did not give the same image"


def test_a_fresh_map_draws_the_same_image_as_one_that_has_rendered_before(matrix, fixture):
    for case in fixture.all_cases:
        matrix.render(case)
    again = matrix.render(fixture.case("approve-draft"))
    fresh = CustodyMatrix(context_cases=fixture.all_cases).render(fixture.case("approve-draft"))
    assert again == fresh


def test_the_png_cache_returns_the_same_bytes_for_the_same_case_and_policy(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases)
    a = m.render(fixture.case("handbook"))
    m.render(fixture.case("risk-score"))
    assert m.render(fixture.case("handbook")) is a


def test_render_accepts_a_decision_and_draws_it(matrix, fixture):
    case = fixture.case("oversize-embed")
    assert matrix.render(case, cl.route(case)) == matrix.render(case)


def test_set_policy_with_a_new_limit_redraws_the_map_and_changes_the_image(matrix, fixture):
    case = fixture.case("approve-draft")
    before = pixels(matrix.render(case))
    draws = matrix.background_draws
    matrix.set_policy(cl.Policy(embed_limit_bytes=500))
    after = pixels(matrix.render(case))
    assert matrix.background_draws == draws + 1
    assert (before != after).any(axis=2).sum() > 100, "the image did not change with the limit"
    assert len(matrix.figure.legends) == 1 and len(matrix.figure.axes) == 1, "the old map was not cleared"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_moved_limit_redraws_only_the_policys_layer_and_gives_a_fresh_maps_pixels(fixture, theme):
    # The limit goes across context cases (500: the live-status pair), to both ends and back.
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0, theme=theme)
    case = fixture.case("approve-draft")
    for n, limit in enumerate([500, 4097, 0, 20000, 100, 1056, 1725, 1437, 951, 4096], start=1):
        m.set_policy(cl.Policy(embed_limit_bytes=limit))
        moved = m.render(case)
        fresh = CustodyMatrix(cl.Policy(embed_limit_bytes=limit), context_cases=fixture.all_cases, theme=theme)
        assert m.policy_draws == n and m.background_draws == n + 1
        differ = int((pixels(moved) != pixels(fresh.render(case))).any(axis=2).sum())
        assert differ == 0, f"limit {limit}: {differ} pixels differ from a map drawn whole"


def test_a_moved_limit_keeps_the_unchanged_regions_and_markers_in_a_fresh_layers_order(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    listed = next(a for a in m._layout.artists if a.get_gid() == "region:listed-resource:resource")
    marker = next(a for a in m._layout.artists if a.get_gid() == "case:handbook")
    for limit in (3037, 3074, 500, 7000):  # 500 changes a context case's outcome: markers made anew
        m.set_policy(cl.Policy(embed_limit_bytes=limit))
        fresh = CustodyMatrix(cl.Policy(embed_limit_bytes=limit), context_cases=fixture.all_cases, cache_size=0)
        for drawn in (m, fresh):  # the whole figure drawn again: the axes' own order decides
            drawn.canvas.draw()
        order = [str(a.get_gid()) for a in m._layout.ax.get_children() if a in m._layout.artists]
        assert order == [str(a.get_gid()) for a in fresh._layout.ax.get_children() if a in fresh._layout.artists]
        whole = np.asarray(m.canvas.buffer_rgba())
        differ = int((whole != np.asarray(fresh.canvas.buffer_rgba())).any(axis=2).sum())
        assert differ == 0, f"limit {limit}: {differ} pixels of the whole figure differ from a fresh map's"
    assert listed in m._layout.artists, "an unchanged region was made anew"
    assert marker not in m._layout.artists, "a case whose outcome changed kept its old marker"


def test_set_policy_with_the_same_limit_does_not_redraw(matrix, fixture):
    case = fixture.case("approve-draft")
    before = matrix.render(case)
    draws = matrix.background_draws
    matrix.set_policy(cl.Policy())
    matrix.set_policy(cl.Policy(now="2030-01-01T00:00:00.000Z"))
    assert matrix.background_draws == draws
    assert matrix.render(case) == before


def test_a_policy_that_changes_a_context_outcome_redraws_even_at_the_same_limit(fixture):
    stale = fixture.case("live-status").with_changes(id="old-status", current=False)
    m = CustodyMatrix(context_cases=[stale])
    draws = m.background_draws
    m.set_policy(cl.Policy(require_current=True))
    assert m.background_draws == draws + 1


def test_render_refuses_a_bad_mapping_with_the_field_named(matrix, seed_cases):
    with pytest.raises(cl.CaseError) as err:
        matrix.render({**seed_cases["handbook"], "shape": "attachment"})
    assert err.value.field == "shape"


def test_the_highlight_label_stays_inside_the_plot_and_clear_of_the_maps_words(matrix, fixture):
    sweep = [
        fixture.case("approve-draft").with_changes(id="sweep", bytes=b)
        for b in (0, 9, 300, 4096, 4097, 60000, XMAX, 10 * XMAX)
    ]
    sweep += [fixture.case("handbook").with_changes(id="app", bytes=b) for b in (0, 580, 1800, XMAX)]
    renderer = matrix.canvas.get_renderer()
    fixed = {
        t.get_gid(): t.get_window_extent(renderer)
        for t in matrix.figure.findobj(Text)
        if t.get_visible() and t.get_text().strip() and (t.get_gid() or "").startswith("region-label:")
    }
    assert fixed
    ax_box = matrix.figure.axes[0].get_window_extent(renderer)
    for case in sweep:
        matrix.render(case)
        box = matrix._label.get_window_extent(renderer)
        assert ax_box.x0 <= box.x0 and box.x1 <= ax_box.x1 and ax_box.y0 <= box.y0 and box.y1 <= ax_box.y1, (
            f"{case.bytes} B: label {box} outside the plot {ax_box}"
        )
        hits = overlapping_pairs({"label": box, **fixed})
        assert not [p for p in hits if "label" in p], f"{case.bytes} B on {case.shape}: {hits}"


# --- no global state --------------------------------------------------------------------------


def test_drawing_the_matrix_never_imports_pyplot():
    code = (
        "import sys, custody_lab as cl\n"
        "from custody_lab.chart import matrix_figure, CustodyMatrix\n"
        "fx = cl.load_fixture()\n"
        "matrix_figure(fx.all_cases).canvas.draw()\n"
        "CustodyMatrix(context_cases=fx.all_cases).render(fx.case('handbook'))\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr
