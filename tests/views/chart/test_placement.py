"""The label placer: beside the marker when it can, inside its row before anywhere else, never outside the plot."""

from __future__ import annotations

import pytest

from custody_lab.views.chart.placement import Mark, crosses, cuts, leader, overlap, place, stack

AREA = (0.0, 0.0, 1000.0, 600.0)
SIZE = (100.0, 20.0)  # w, h
GAP = 8.0
STEP = SIZE[1] + 3


@pytest.mark.parametrize(
    ("a", "b", "area"),
    [
        ((0, 0, 10, 10), (5, 5, 15, 15), 25.0),
        ((0, 0, 10, 10), (10, 0, 20, 10), 0.0),  # edges that touch do not overlap
        ((0, 0, 10, 10), (20, 20, 30, 30), 0.0),
        ((0, 0, 10, 10), (2, 2, 4, 4), 4.0),
    ],
)
def test_overlap_is_the_area_two_boxes_share(a, b, area):
    assert overlap(a, b) == area == overlap(b, a), f"overlap({a}, {b}): expected {area}, got {overlap(a, b)}"


def test_a_free_label_sits_right_of_a_marker_on_the_left_at_its_height():
    box, side = place((200, 300), SIZE, (250, 350), AREA, [], [], GAP)
    assert (box, side) == ((208.0, 290.0, 308.0, 310.0), "right"), (box, side)


def test_a_marker_near_the_right_edge_gets_its_label_on_the_left():
    box, side = place((900, 300), SIZE, (250, 350), AREA, [], [], GAP)
    assert (box, side) == ((792.0, 290.0, 892.0, 310.0), "left"), (box, side)


def test_a_label_blocked_on_its_first_side_takes_the_other_side_before_moving_up_or_down():
    blocker = (205.0, 285.0, 320.0, 315.0)
    box, side = place((200, 300), SIZE, (250, 350), AREA, [blocker], [], GAP)
    assert (box, side) == ((92.0, 290.0, 192.0, 310.0), "left"), (box, side)


def test_a_label_blocked_on_both_sides_moves_one_label_height_and_stays_in_its_band():
    blockers = [(205.0, 289.0, 320.0, 311.0), (80.0, 289.0, 195.0, 311.0)]
    box, side = place((200, 300), SIZE, (250, 350), AREA, blockers, [], GAP)
    assert (box, side) == ((208.0, 300 + STEP - 10, 308.0, 300 + STEP + 10), "right"), (box, side)
    assert 250 <= box[1] and box[3] <= 350 and all(overlap(box, b) == 0 for b in blockers), box


def test_touching_only_a_faint_marker_inside_the_band_beats_a_clear_spot_outside_it():
    band = (290.0, 310.0)  # exactly one label high: every other height leaves the band
    soft = [(200.0, 295.0, 400.0, 305.0), (0.0, 295.0, 195.0, 305.0)]
    box, _side = place((200, 300), SIZE, band, AREA, [], soft, GAP)
    assert (box[1], box[3]) == (290.0, 310.0), f"expected the in-band spot over the faint marker, got {box}"


def test_a_label_is_never_placed_outside_the_plot_and_the_choice_is_deterministic():
    anchors = [(5, 5), (995, 595), (500, 2), (3, 590)]
    for anchor in anchors:
        first = place(anchor, SIZE, (0, 600), AREA, [], [], GAP)
        box = first[0]
        assert AREA[0] <= box[0] and box[2] <= AREA[2] and AREA[1] <= box[1] and box[3] <= AREA[3], (anchor, box)
        assert place(anchor, SIZE, (0, 600), AREA, [], [], GAP) == first, f"{anchor}: two calls chose differently"


def test_when_nothing_fits_the_least_overlapping_candidate_wins():
    everything = [(0.0, 0.0, 1000.0, 600.0)]
    box, _side = place((200, 300), SIZE, (250, 350), AREA, everything, [], GAP)
    assert AREA[0] <= box[0] and box[2] <= AREA[2], f"even a covered plot keeps the label inside it: {box}"
    assert box == (208.0, 290.0, 308.0, 310.0), f"every candidate costs the same: expected the first, got {box}"


# --- leaders and stacks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "meet"),
    [
        ((0, 0, 10, 10), (0, 10, 10, 0), True),  # an X
        ((0, 0, 10, 0), (0, 5, 10, 5), False),  # parallel
        ((0, 0, 10, 0), (10, 0, 20, 5), True),  # a shared end point
        ((0, 0, 4, 4), (6, 6, 10, 0), False),  # they would meet only if extended
        ((0, 0, 10, 0), (15, -5, 15, 5), False),  # one straddles the other's line beyond its end
    ],
)
def test_two_leaders_cross_when_they_share_any_point(a, b, meet):
    assert crosses(a, b) is meet and crosses(b, a) is meet, f"crosses({a}, {b}): expected {meet}"


@pytest.mark.parametrize(
    ("seg", "through"),
    [
        ((0, 5, 20, 5), True),  # straight across
        ((0, 0, 7.9, 5), False),  # stops short
        ((0, 11, 20, 11), False),  # passes above
        ((10, 5, 10, 5.5), True),  # wholly inside
        ((8, 0, 8, 10), False),  # runs along the left edge
    ],
)
def test_a_leader_runs_through_a_box_only_through_its_inside(seg, through):
    assert cuts(seg, (8, 0, 12, 10)) is through, f"cuts({seg}): expected {through}"


def _marks(ys, x=200.0, w=100.0, h=20.0):
    return [Mark((x, y), (w, h), 8.0, (x - 6, y - 6, x + 6, y + 6)) for y in ys]


def test_a_cluster_stacks_in_its_markers_order_inside_the_band_with_uncrossed_leaders():
    marks = _marks([312.0, 300.0, 288.0])  # display y grows upward: the first mark is the top one
    found = stack(marks, (260.0, 340.0), AREA, [])
    assert found is not None, "three 20 px labels fit an 80 px band"
    tops = [box[3] for box, _ in found]
    assert tops == sorted(tops, reverse=True), f"labels in marker order, top first: {tops}"
    assert all(260 <= box[1] and box[3] <= 340 for box, _ in found), found
    segs = [leader(m.anchor, m.gap - 2, box, side) for m, (box, side) in zip(marks, found)]
    assert not any(crosses(a, b) for i, a in enumerate(segs) for b in segs[i + 1 :]), segs


def test_a_cluster_too_tall_for_one_side_splits_over_both_sides_in_order():
    marks = _marks([312.0, 300.0, 288.0])
    found = stack(marks, (285.0, 330.0), AREA, [])  # two labels a side at most
    assert found is not None
    sides = [side for _, side in found]
    assert set(sides) == {"left", "right"}, sides
    assert sides[0] != sides[2] and sides.count(sides[0]) in (1, 2), sides


def test_a_cluster_its_band_cannot_hold_is_refused():
    assert stack(_marks([300.0] * 5), (285.0, 330.0), AREA, []) is None


def test_a_stacked_label_keeps_its_leader_off_another_leader_and_another_box():
    marks = _marks([300.0])
    wall = (190.0, 250.0, 1000.0, 299.0)  # below the marker, right across the plot
    ahead = (215.0, 290.0, 216.0, 320.0)  # a leader just right of the marker, up through its height
    found = stack(marks, (200.0, 400.0), AREA, [wall], leaders=[ahead])
    assert found is not None
    ((box, side),) = found
    seg = leader(marks[0].anchor, 6.0, box, side)
    assert not crosses(seg, ahead) and overlap(box, wall) == 0, (box, side)


def test_one_label_takes_a_spot_whose_leader_crosses_nothing():
    across = (207.0, 250.0, 207.0, 350.0)  # a leader rising just right of the marker
    box, side = place((200, 300), SIZE, (0, 600), AREA, [], [], GAP, leaders=[across])
    seg = leader((200, 300), GAP - 2, box, side)
    assert not crosses(seg, across), f"the leader to {box} ({side}) crosses {across}"
