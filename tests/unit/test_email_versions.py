"""Issue 40, the pure pieces of what a contact receives: the variant pick, the locale match, the
dynamic content token and the UTM tags (no AWS)."""

from collections import Counter

import pytest

from chalicelib.domain.kernel import variants
from chalicelib.domain.messaging import ab_tests, rendering, utm, versions

# The variant pick


def test_a_contact_always_gets_the_same_variant():
    picks = [versions.pick_variant(7, [(8, 50.0)], contact) for contact in range(1, 200)]
    assert picks == [versions.pick_variant(7, [(8, 50.0)], contact) for contact in range(1, 200)]


def test_the_parent_takes_what_the_weights_leave():
    shares = Counter(versions.pick_variant(1, [(2, 20.0), (3, 30.0)], contact) for contact in range(10_000))
    assert abs(shares[1] - 5000) < 300 and abs(shares[2] - 2000) < 250 and abs(shares[3] - 3000) < 250


def test_weights_of_100_or_more_leave_the_parent_nothing_and_share_in_proportion():
    full = Counter(versions.pick_variant(1, [(2, 100.0)], contact) for contact in range(500))
    assert full == {2: 500}
    over = Counter(versions.pick_variant(1, [(2, 150.0), (3, 50.0)], contact) for contact in range(8000))
    assert 1 not in over and abs(over[2] - 6000) < 300


def test_no_weights_keep_the_parent():
    assert {versions.pick_variant(1, [(2, 0.0)], contact) for contact in range(100)} == {1}


@pytest.mark.parametrize(
    ("settings", "expected"),
    [({"weight": 40}, 40.0), ({"weight": "25"}, 25.0), ({}, 0.0), (None, 0.0), ({"weight": "x"}, 0.0)],
)
def test_a_variants_weight(settings, expected):
    assert versions.weight({"variantSettings": settings}) == expected


# The locale match

TRANSLATIONS = {1: "en", 10: "fr", 11: "fr_CA", 12: "de_AT", 13: "pt-BR"}  # the email (en) first


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("fr_CA", 11),  # exact
        ("fr", 10),
        ("fr_BE", 10),  # same language: the first of it
        ("de_DE", 12),
        ("pt_BR", 13),  # a hyphen is the same locale
        ("FR_ca", 11),
        ("en_US", 1),  # no translation: the email itself
        ("es", None),  # no language of it: the caller keeps the email
        ("", None),
        (None, None),
    ],
)
def test_the_translation_for_a_locale(locale, expected):
    assert variants.translation(TRANSLATIONS, variants.wanted(locale)) == expected


# The dynamic content token


def _render(template, slots, html=False):
    sources = rendering.Sources(contact={"firstname": "Ann"}, links=rendering.Links(dynamic=slots.get))
    return rendering.render_text(template, sources, html=html)[0]


def test_the_dynamic_content_token_renders_its_slot_with_the_contact_tokens():
    slots = {"Offer": "<b>{contactfield=firstname}</b>"}
    assert _render('<p>{dynamiccontent="Offer"}</p>', slots, html=True) == "<p><b>Ann</b></p>"
    assert _render("{dynamiccontent=&quot;Offer&quot;}", slots, html=True) == "<b>Ann</b>"
    assert _render('Hi {dynamiccontent="Offer"}', slots) == "Hi Ann"


def test_an_unknown_slot_and_a_slot_in_a_slot_render_empty():
    slots = {"Loop": 'x{dynamiccontent="Loop"}y'}
    assert _render('[{dynamiccontent="Missing"}]', {}, html=True) == "[]"
    assert _render('{dynamiccontent="Loop"}', slots, html=True) == "xy"


# UTM tags

TAGS = {"utmSource": "news", "utmMedium": "email", "utmCampaign": "spring sale", "utmContent": "hero"}
UTM = "utm_source=news&utm_medium=email&utm_campaign=spring+sale&utm_content=hero"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://a.example/", f"https://a.example/?{UTM}"),
        ("https://a.example/p?x=1", f"https://a.example/p?x=1&{UTM}"),
        ("https://a.example/p?x=1#top", f"https://a.example/p?x=1&{UTM}#top"),
        ("https://a.example/p?", f"https://a.example/p?{UTM}"),
    ],
)
def test_utm_tags_follow_the_links_own_query(url, expected):
    assert utm.tagged(url, TAGS) == expected


def test_empty_or_missing_utm_tags_leave_the_link_alone():
    assert utm.tagged("https://a.example/p?x=1", {"utmSource": "", "utmMedium": None}) == "https://a.example/p?x=1"
    assert utm.tagged("https://a.example/p", None) == "https://a.example/p"
    assert utm.query({"utmCampaign": "c"}) == "utm_campaign=c"


# The winner


def test_the_winners_have_the_highest_rate_above_zero():
    assert ab_tests.winners({1: 10.0, 2: 25.5, 3: 25.5}) == [2, 3]
    assert ab_tests.winners({1: 0.0, 2: 0.0}) == []
    assert ab_tests.rate(1, 3) == 33.33 and ab_tests.rate(5, 0) == 0.0


def test_the_criteria_is_the_childrens_when_they_agree():
    def child(criteria):
        return {"variantSettings": {"weight": 10, "winnerCriteria": criteria}}

    assert ab_tests.criteria_of([child("email.openrate"), child("email.openrate")]) == "email.openrate"
    assert ab_tests.criteria_of([child("email.openrate"), child("email.clickthrough")]) is None
    assert ab_tests.criteria_of([child("")]) is None and ab_tests.criteria_of([]) is None
