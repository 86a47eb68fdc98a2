"""The automation event graph without AWS: validation, navigation, when events fall due."""

from datetime import datetime, timezone

import pytest

from chalicelib.domain.automations import automation_graph as graph

REACHED = datetime(2026, 1, 31, 10, 0, tzinfo=timezone.utc)


def ev(ref, event_type="action", type_="lead.changetags", parent=None, path=None, order=0, **timing):
    return dict(
        {
            "id": ref,
            "name": f"event {ref}",
            "eventType": event_type,
            "type": type_,
            "parent": parent,
            "decisionPath": path,
            "order": order,
        },
        **timing,
    )


def names(events):
    return {e["id"]: f"events[{e['id']}]" for e in events}


def problems(events):
    keys = names(events)
    return graph.problems(events, lambda e: keys[e["id"]])


def test_a_valid_graph_has_no_problems():
    events = [
        ev(1, "decision", "email.open"),
        ev(2, parent=1, path="yes"),
        ev(3, parent=1, path="no"),
        ev(4, "condition", "lead.points", parent=2),
        ev(5, parent=4, path="no", triggerMode="interval", triggerInterval=3, triggerIntervalUnit="h"),
    ]
    assert problems(events) == {}


@pytest.mark.parametrize(
    "events, key",
    [
        ([ev(1, type_="email.open")], "events[1][type]"),  # a decision type used as an action
        ([ev(1, "decision", "lead.changetags")], "events[1][type]"),
        ([ev(1, "condition", "email.open")], "events[1][type]"),
        ([ev(1, "decision", "form.submit"), ev(2, parent=1)], "events[2][decisionPath]"),
        ([ev("new1", parent="new3"), ev("new2", parent="new1"), ev("new3", parent="new2")], "events[new1][parent]"),
        ([ev(1, triggerMode="interval", triggerInterval=-1)], "events[1][triggerInterval]"),
        ([ev(1, triggerMode="date")], "events[1][triggerDate]"),
    ],
)
def test_problems_name_the_event(events, key):
    found = problems(events)
    assert key in found


def test_a_cycle_names_every_event_in_it_but_not_those_hanging_off_it():
    events = [ev("a", parent="b"), ev("b", parent="a"), ev("c", parent="a")]
    assert set(problems(events)) == {"events[a][parent]", "events[b][parent]"}


def test_roots_and_children_follow_order_and_paths():
    automation = {
        "events": [
            ev(3, parent=None, order=2),
            ev(1, "decision", "email.open", order=1),
            ev(4, parent=1, path="no"),
            ev(5, parent=1, path="yes"),
            ev(6, parent=3),
        ]
    }
    assert [e["id"] for e in graph.roots(automation)] == [1, 3]
    assert [e["id"] for e in graph.children(automation, 1, "yes")] == [5]
    assert [e["id"] for e in graph.children(automation, 1, "no")] == [4]
    assert [e["id"] for e in graph.children(automation, 3)] == [6]
    assert graph.event(automation, 6)["parent"] == 3 and graph.event(automation, 99) is None


@pytest.mark.parametrize(
    "timing, expected",
    [
        ({}, REACHED),
        ({"triggerMode": "immediate"}, REACHED),
        ({"triggerMode": "interval", "triggerInterval": 90, "triggerIntervalUnit": "i"}, datetime(2026, 1, 31, 11, 30)),
        ({"triggerMode": "interval", "triggerInterval": 2, "triggerIntervalUnit": "h"}, datetime(2026, 1, 31, 12, 0)),
        ({"triggerMode": "interval", "triggerInterval": 1, "triggerIntervalUnit": "d"}, datetime(2026, 2, 1, 10, 0)),
        ({"triggerMode": "interval", "triggerInterval": 1, "triggerIntervalUnit": "m"}, datetime(2026, 2, 28, 10, 0)),
        ({"triggerMode": "interval", "triggerInterval": 1, "triggerIntervalUnit": "y"}, datetime(2027, 1, 31, 10, 0)),
        ({"triggerMode": "date", "triggerDate": "2026-03-01T08:00:00+01:00"}, datetime(2026, 3, 1, 7, 0)),
        ({"triggerMode": "date", "triggerDate": "2020-01-01 00:00:00"}, REACHED),  # a past date: at once
    ],
)
def test_due_at(timing, expected):
    assert graph.due_at(ev(1, **timing), REACHED, timezone.utc) == expected.replace(tzinfo=timezone.utc)
