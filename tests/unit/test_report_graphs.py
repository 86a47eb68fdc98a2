"""Report graphs drawn from rows (no store): Mautic's time unit per range, time on site from a hit's
`date_left` (hits without one are unknown and left out), Mautic's new-vs-returning count, and the
table graphs' order and limit."""

from datetime import datetime, timedelta, timezone

import pytest

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views.report_graph_base import Rows, top, unit
from chalicelib.domain.views.report_graphs_visits import PAGE_GRAPHS
from chalicelib.domain.views.report_sources import SOURCES
from chalicelib.domain.views.time_range import Range

START = datetime(2024, 3, 1, tzinfo=timezone.utc)


def hit(at, left=None, page="7", hit_id="1"):
    return {"id": hit_id, "date_hit": at, "date_left": left, "page_id": page, "referer": None}


def rows(*found, days=10):
    return Rows(list(found), Range(START, START + timedelta(days=days)), SOURCES["page.hits"], Context())


def draw(name, data):
    return PAGE_GRAPHS[name].draw(data, name)


@pytest.mark.parametrize(
    "length, expected",
    [(timedelta(hours=5), "H"), (timedelta(days=1), "H"), (timedelta(days=2), "d"), (timedelta(days=31), "d")]
    + [(timedelta(days=32), "W"), (timedelta(days=101), "m"), (timedelta(days=1001), "Y")],
)
def test_the_time_unit_follows_the_range_as_mautics(length, expected):
    assert unit(Range(START, START + length)) == expected


def test_time_on_site_reads_date_left_and_leaves_out_unknown_hits():
    found = rows(
        hit("2024-03-02 10:00:00", "2024-03-02 10:00:30"),
        hit("2024-03-02 11:00:00", "2024-03-02 11:02:00"),
        hit("2024-03-03 09:00:00", "2024-03-03 09:20:00"),
        hit("2024-03-03 09:30:00"),  # never left: unknown
    )
    line = draw("mautic.page.graph.line.time.on.site", found)
    (dataset,) = line["datasets"]
    assert dataset["label"] == "Average time on site in seconds"
    assert dict(zip(line["labels"], dataset["data"], strict=True))["Mar 02, 24"] == 150  # Mautic adds them
    assert sum(dataset["data"]) == 30 + 120 + 1200
    pie = draw("mautic.page.graph.pie.time.on.site", found)["data"]
    assert pie["datasets"][0]["data"] == [1, 1, 0, 1]
    assert pie["labels"][0] == "< 1m; 1x, 33.33%"


def test_new_vs_returning_counts_hits_alone_in_their_second_on_their_page():
    found = rows(
        hit("2024-03-02 10:00:00"),
        hit("2024-03-02 10:00:00", hit_id="2"),
        hit("2024-03-02 10:00:00", page="8", hit_id="3"),
        hit("2024-03-02 10:05:00", hit_id="4"),
    )
    pie = draw("mautic.page.graph.pie.new.vs.returning", found)["data"]
    assert pie["datasets"][0]["data"] == [2, 2]


def test_tables_keep_the_ten_largest_ties_by_key():
    counts = {f"k{i:02}": i % 3 for i in range(15)}
    ranked = top(counts)
    assert len(ranked) == 10 and ranked[0] == ("k02", 2) and ranked[-1][1] == 1


def test_a_report_range_runs_to_the_end_of_its_last_day_in_the_widgets_zone():
    from zoneinfo import ZoneInfo

    from chalicelib.domain.views.report_widget import through_the_day

    prague = ZoneInfo("Europe/Prague")
    asked = Range(START, START + timedelta(hours=1), prague)  # 02:00 on 1 March in Prague
    assert through_the_day(asked).end == datetime(2024, 3, 1, 22, 59, 59, tzinfo=timezone.utc)
    assert through_the_day(asked).start == START
