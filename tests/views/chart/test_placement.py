"""The label placer: beside the marker when it can, inside its row before anywhere else, never outside the plot."""

from __future__ import annotations

import pytest

from custody_lab.views.chart.placement import overlap, place

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
