"""Which point actions match an event (pure logic of the points engine)."""

from chalicelib.domain.points.points_engine import matches, tag_names


def action(kind, **props):
    return {"id": 1, "type": kind, "properties": props}


def test_subject_lists_restrict_and_empty_lists_match_all():
    assert matches(action("form.submit", forms=[3, "4"]), "form.submit", 4)
    assert not matches(action("form.submit", forms=[3]), "form.submit", 4)
    assert matches(action("page.hit"), "page.hit", 9)
    assert not matches(action("page.hit"), "asset.download", 9)
    assert matches(action("asset.download", assets=["2"]), "asset.download", 2)


def test_url_hit_matches_wildcards_or_contained_urls():
    assert matches(
        action("url.hit", page_url="https://site.example/pricing*"), "url.hit", "https://site.example/pricing?plan=pro"
    )
    assert matches(action("url.hit", page_url="pricing"), "url.hit", "https://site.example/pricing")
    assert not matches(action("url.hit", page_url="https://other.example/*"), "url.hit", "https://site.example/")
    assert not matches(action("url.hit"), "url.hit", "https://site.example/")


def test_tag_names_from_strings_or_lists():
    assert tag_names("a,b") == ["a", "b"]
    assert tag_names(["a"]) == ["a"]
    assert tag_names(None) == []


def test_a_trigger_save_queues_the_existing_contacts_pass_only_when_it_can_make_some_due():
    from chalicelib.domain.points.point_triggers import needed

    now = "2024-06-01T00:00:00+00:00"
    saved = {"points": 10, "triggerExistingLeads": True, "isPublished": True, "events": [{"id": 1}]}
    assert needed(saved, None, now)
    assert not needed(dict(saved, isPublished=False), None, now)
    assert not needed(dict(saved, triggerExistingLeads=False), None, now)
    assert not needed(dict(saved, publishUp="2024-07-01T00:00:00+00:00"), None, now)
    assert needed(saved, dict(saved, isPublished=False), now)
    assert needed(saved, dict(saved, triggerExistingLeads=False), now)
    assert needed(dict(saved, points=8), saved, now)
    assert needed(dict(saved, events=[{"id": 1}, {"id": 2}]), saved, now)
    assert not needed(dict(saved, points=12, name="Renamed"), saved, now)
