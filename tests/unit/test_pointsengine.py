"""Which point actions match an event (pure logic of the points engine)."""
from chalicelib.domain.pointsengine import matches, tag_names


def action(kind, **props):
    return {"id": 1, "type": kind, "properties": props}


def test_subject_lists_restrict_and_empty_lists_match_all():
    assert matches(action("form.submit", forms=[3, "4"]), "form.submit", 4)
    assert not matches(action("form.submit", forms=[3]), "form.submit", 4)
    assert matches(action("page.hit"), "page.hit", 9)
    assert not matches(action("page.hit"), "asset.download", 9)
    assert matches(action("asset.download", assets=["2"]), "asset.download", 2)


def test_url_hit_matches_wildcards_or_contained_urls():
    assert matches(action("url.hit", page_url="https://site.example/pricing*"), "url.hit",
                   "https://site.example/pricing?plan=pro")
    assert matches(action("url.hit", page_url="pricing"), "url.hit", "https://site.example/pricing")
    assert not matches(action("url.hit", page_url="https://other.example/*"), "url.hit", "https://site.example/")
    assert not matches(action("url.hit"), "url.hit", "https://site.example/")


def test_tag_names_from_strings_or_lists():
    assert tag_names("a,b") == ["a", "b"]
    assert tag_names(["a"]) == ["a"]
    assert tag_names(None) == []
