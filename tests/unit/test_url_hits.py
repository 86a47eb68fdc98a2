"""The `url.hit` point action's options (Mautic's PointActionHelper::validateUrlHit), pure."""

from datetime import datetime, timedelta, timezone

from chalicelib.domain.points.url_hits import Hit, counted, holds, seconds

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
PRICING = "https://site.example/pricing"


def hits(*spec):
    return [Hit(url, T0 + timedelta(minutes=minutes)) for url, minutes in spec]


def test_options_are_counted_on_matching_urls_this_hit_included():
    props = {"page_url": "pricing", "page_hits": 2}
    assert not holds(props, PRICING, hits(("https://site.example/about", 0)), T0 + timedelta(minutes=1))
    assert holds(props, PRICING, hits((PRICING + "?a=1", 0)), T0 + timedelta(minutes=1))
    assert holds({"page_url": "pricing"}, PRICING, [], T0)  # no option: the URL match decides (the caller's)


def test_first_time_holds_only_for_the_first_matching_hit():
    props = {"page_url": "pricing", "first_time": True}
    assert holds(props, PRICING, hits(("https://site.example/", 0)), T0)
    assert not holds(props, PRICING, hits((PRICING, 0)), T0)


def test_returns_within_and_after_measure_from_the_previous_matching_hit():
    within = {"page_url": "pricing", "returns_within": 30, "returns_within_unit": "i"}
    after = {"page_url": "pricing", "returns_after": 1, "returns_after_unit": "H"}
    earlier = hits((PRICING, 0), ("https://site.example/about", 50))
    assert holds(within, PRICING, earlier, T0 + timedelta(minutes=30))
    assert not holds(within, PRICING, earlier, T0 + timedelta(minutes=31))
    assert holds(after, PRICING, earlier, T0 + timedelta(minutes=60)) and not holds(
        after, PRICING, earlier, T0 + timedelta(minutes=59)
    )
    assert not holds(within, PRICING, [], T0) and not holds(after, PRICING, [], T0)


def test_accumulated_time_counts_each_hit_until_the_next_within_the_session():
    props = {"page_url": "pricing", "accumulative_time": 600, "accumulative_time_unit": "s"}
    assert holds(props, PRICING, hits((PRICING, 0), ("https://site.example/", 10)), T0 + timedelta(minutes=11))
    assert not holds(props, PRICING, hits((PRICING, 0), ("https://site.example/", 9)), T0 + timedelta(minutes=11))
    long_gone = hits((PRICING, 0))  # the next hit came past the 30-minute session: not left, 0 seconds
    assert not holds(props, PRICING, long_gone, T0 + timedelta(hours=2))


def test_units_as_mauticss_form_reads_them():
    assert seconds({"t": 2}, "t") == 7200  # hours by default
    assert seconds({"t": "3", "t_unit": "d"}, "t") == 259200 and seconds({"t": 5, "t_unit": "s"}, "t") == 5
    assert seconds({"t": "x"}, "t") == 0 and seconds({"t": "inf"}, "t") == 0 and seconds({"t": "nan"}, "t") == 0
    assert counted({"page_hits": 2}) and not counted({"page_url": "x", "page_hits": 0})


def test_weights_that_are_not_numbers_count_nothing():
    from chalicelib.domain.messaging.versions import pick_variant, weight

    for raw in ("x", "inf", "nan"):
        assert weight({"variantSettings": {"weight": raw}}) == 0
        assert all(pick_variant(1, [(2, weight({"variantSettings": {"weight": raw}}))], n) == 1 for n in range(50))
