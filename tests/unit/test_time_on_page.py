"""Time on page derived from ordered hits (`contacts/time_on_page.py`): a hit is left when its
visitor's next hit comes within Mautic's 1800 s session (the `mautic_referer_id` cookie), read
newest first or oldest first with the other items keeping their places."""

from datetime import datetime, timedelta, timezone

from chalicelib.domain.contacts import time_on_page

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def at(seconds):
    return T0 + timedelta(seconds=seconds)


HITS = [("ann", at(0)), ("bob", at(10)), ("ann", at(70)), ("ann", at(70 + 1799)), ("ann", at(70 + 1799 + 1800))]
EXPECTED = [at(70), None, at(1869), None, None]  # bob leaves no trace; 1800 s later is a new visit


def test_a_hit_is_left_when_the_same_visitor_hits_again_within_the_session():
    assert time_on_page.dates_left(HITS) == EXPECTED
    seconds = [time_on_page.seconds(when, left) for (_, when), left in zip(HITS, EXPECTED, strict=True)]
    assert seconds == [70, None, 1799, None, None]


def test_a_lone_hit_and_an_empty_list():
    assert time_on_page.dates_left([("ann", at(0))]) == [None]
    assert time_on_page.dates_left([]) == []


def test_a_hit_in_the_same_second_is_left_after_zero_seconds():
    assert time_on_page.dates_left([("ann", at(5)), ("ann", at(5))]) == [at(5), None]
    assert time_on_page.seconds(at(5), at(5)) == 0


def test_out_of_order_times_leave_nothing():
    assert time_on_page.dates_left([("ann", at(30)), ("ann", at(20))]) == [None, None]


def _key(item):
    kind, visitor, when = item
    return (visitor if kind == "hit" else None), when


STREAM = [
    ("hit", "ann", at(0)),
    ("point", "ann", at(1)),
    ("hit", "bob", at(2)),
    ("hit", "ann", at(40)),
    ("note", "bob", at(4000)),
    ("hit", "bob", at(4001)),
]


def test_newest_first_and_oldest_first_agree_and_keep_every_item_in_place():
    lefts = {STREAM[0]: at(40)}
    newest = list(time_on_page.newest_first(reversed(STREAM), _key))
    oldest = list(time_on_page.oldest_first(STREAM, _key))
    assert [item for item, _ in newest] == STREAM[::-1] and [item for item, _ in oldest] == STREAM
    assert dict(newest) == dict(oldest) == {item: lefts.get(item) for item in STREAM}


def test_oldest_first_lets_an_unsettled_hit_go_once_the_stream_is_a_session_past_it():
    taken = []

    def stream():
        for item in STREAM:
            taken.append(item)
            yield item

    reader = time_on_page.oldest_first(stream(), _key)
    assert [next(reader)[0] for _ in range(4)] == STREAM[:4]  # bob's first hit waited for the note
    assert taken == STREAM[:5]  # read no further than the note, a session past bob's hit
    assert list(reader) == [(STREAM[4], None), (STREAM[5], None)]


def test_moments_parse_both_database_and_iso_forms():
    assert time_on_page.moment("2026-03-01 12:00:00") == T0 == time_on_page.moment("2026-03-01T12:00:00+00:00")
