"""Issue 41, pages: A/B variants split visitors by weight and each visitor keeps its variant (Mautic's
cookie `mautic_page_<id>`, or the contact), `variantHits` counted; translations chosen by the contact's
`preferred_locale` or `Accept-Language` with Mautic's redirects; `noIndex` and an asset's `disallow`
reach the robots header and tag."""

import pytest

from tests.api.test_permissions import _as
from tests.conftest import set_cookies, visitor_cookie

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
HEAD = "<!DOCTYPE html><html><head><title>{t}</title></head><body>{b}</body></html>"


def fetch(api, path, headers=None):
    return api.http.request("GET", path, headers=dict({"User-Agent": BROWSER}, **(headers or {})), body=b"")


def page(api, title, body, **extra):
    response = api.post("/api/pages/new", dict({"title": title, "customHtml": HEAD.format(t=title, b=body)}, **extra))
    assert response.status_code == 201, response.json
    return response.json["page"]


def ab_test(api, weight):
    parent = page(api, "Offer", "A")
    child = page(api, "Offer B", "B", variantParent=parent["id"], variantSettings={"weight": weight})
    return parent, child


def shown(response):
    return response.body.decode().split("<body>")[1].split("</body>")[0]


def test_a_50_50_test_serves_both_and_each_visitor_keeps_its_variant(api, source_ip):
    parent, child = ab_test(api, 50)
    seen, jars = [], []
    for n in range(20):
        source_ip(f"10.1.0.{n + 1}")
        response = fetch(api, "/offer")
        assert response.status_code == 200
        seen.append(shown(response))
        jars.append(set_cookies(response))
    assert seen.count("A") == 10 and seen.count("B") == 10  # the weight deficit alternates them
    for jar, first in list(zip(jars, seen, strict=True))[:6]:
        cookie = "; ".join(f"{k}={v}" for k, v in jar.items())
        assert jar[f"mautic_page_{parent['id']}"] == str(child["id"] if first == "B" else parent["id"])
        assert [shown(fetch(api, "/offer", {"Cookie": cookie})) for _ in range(2)] == [first, first]
    counted = {p["id"]: p for p in api.get("/api/pages?limit=10").json["pages"]}
    b = api.get(f"/api/pages/{child['id']}").json["page"]
    assert counted[parent["id"]]["variantHits"] == 10 and b["variantHits"] == 10 and b["hits"] == 16
    assert counted[parent["id"]]["hits"] == 16 and counted[parent["id"]]["uniqueHits"] == 10


def test_a_known_contact_keeps_its_variant_in_any_browser(api):
    ab_test(api, 50)
    contacts = [api.post("/api/contacts/new", {"email": f"v{n}@example.com"}).json["contact"] for n in range(8)]
    first = [shown(fetch(api, "/offer", {"Cookie": visitor_cookie(c["id"])})) for c in contacts]
    again = [shown(fetch(api, "/offer", {"Cookie": visitor_cookie(c["id"])})) for c in contacts]
    assert first == again and set(first) == {"A", "B"}


def test_a_weight_100_variant_always_serves(api, source_ip):
    parent, child = ab_test(api, 100)
    for n in range(6):
        source_ip(f"10.2.0.{n + 1}")
        assert shown(fetch(api, "/offer")) == "B"
    contact = api.post("/api/contacts/new", {"email": "all@example.com"}).json["contact"]
    assert shown(fetch(api, "/offer", {"Cookie": visitor_cookie(contact["id"])})) == "B"
    assert api.get(f"/api/pages/{parent['id']}").json["page"]["hits"] == 0


def test_a_variant_url_moves_to_its_test_and_unpublished_variants_are_not_served(api):
    parent, child = ab_test(api, 100)
    moved = fetch(api, "/offer-b")
    assert moved.status_code == 301 and moved.headers["Location"].endswith("/offer")
    api.patch(f"/api/pages/{child['id']}/edit", {"isPublished": False})
    assert shown(fetch(api, "/offer")) == "A"


def test_a_translation_is_served_for_accept_language(api):
    english = page(api, "Welcome", "Hello")
    french = page(api, "Bienvenue", "Bonjour", language="fr", translationParent=english["id"])
    sent = fetch(api, "/welcome", {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.8"})
    assert sent.status_code == 302 and sent.headers["Location"] == "http://127.0.0.1/fr/bienvenue"
    assert shown(fetch(api, "/fr/bienvenue", {"Accept-Language": "fr"})) == "Bonjour"
    assert shown(fetch(api, "/welcome", {"Accept-Language": "en-US,en;q=0.9"})) == "Hello"
    assert shown(fetch(api, "/welcome", {"Accept-Language": "de"})) == "Hello"  # no German: the page asked for
    back = fetch(api, "/bienvenue", {"Accept-Language": "en"})  # the translation's URL without its language
    assert back.status_code == 302 and back.headers["Location"] == "http://127.0.0.1/welcome"
    assert shown(fetch(api, "/welcome?ntrd=1", {"Accept-Language": "fr"})) == "Hello"
    assert fetch(api, "/de/bienvenue").status_code == 404
    assert api.get(f"/api/pages/{french['id']}").json["page"]["hits"] == 1


def test_the_contacts_preferred_locale_comes_before_the_browsers(api):
    english = page(api, "Welcome", "Hello")
    page(api, "Bienvenue", "Bonjour", language="fr", translationParent=english["id"])
    page(api, "Willkommen", "Hallo", language="de_DE", translationParent=english["id"])
    contact = api.post("/api/contacts/new", {"email": "k@example.com", "preferred_locale": "de_DE"}).json["contact"]
    sent = fetch(api, "/welcome", {"Accept-Language": "fr", "Cookie": visitor_cookie(contact["id"])})
    assert sent.headers["Location"] == "http://127.0.0.1/de_DE/willkommen"
    assert fetch(api, "/welcome", {"Accept-Language": "de-AT"}).headers["Location"].endswith("/de_DE/willkommen")


def test_no_index_page_and_disallowed_asset_tell_robots(api):
    hidden = page(api, "Hidden", "secret", noIndex=True)
    response = fetch(api, "/hidden")
    assert response.headers["X-Robots-Tag"] == "noindex"
    assert '<meta name="robots" content="noindex">\n</head>' in response.body.decode()
    public = page(api, "Open", "open")
    assert "X-Robots-Tag" not in fetch(api, "/open").headers and "robots" not in fetch(api, "/open").body.decode()
    assert hidden["noIndex"] is True and public["noIndex"] is False
    remote = {"storageLocation": "remote", "file": "https://files.example/guide.pdf"}
    kept = api.post("/api/assets/new", dict(remote, title="Kept", disallow=True)).json["asset"]
    shared = api.post("/api/assets/new", dict(remote, title="Shared")).json["asset"]
    assert fetch(api, f"/asset/{kept['id']}").headers["X-Robots-Tag"] == "noindex, nofollow, noarchive"
    assert "X-Robots-Tag" not in fetch(api, f"/asset/{shared['id']}").headers


@pytest.mark.parametrize("path", ["/api/x", "/oauth/x", "/mtc/x"])
def test_language_urls_do_not_swallow_other_paths(api, path):
    assert fetch(api, path).status_code == 404


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_costs_of_a_variant_choice_a_translation_redirect_and_a_page_view(api, source_ip, configure):
    from tests.api.test_site_tracking import event
    from tests.bench.conftest import dynamodb_calls

    configure(VERSIONS_TTL=0.0)  # the versions read by every request that reads them
    ab_test(api, 50)
    english = page(api, "Welcome", "Hello")
    page(api, "Bienvenue", "Bonjour", language="fr", translationParent=english["id"])
    plain = page(api, "Plain", "plain")
    source_ip("10.9.1.1")
    fetch(api, "/plain")  # warm: the id blocks and cached kinds a first request reads
    counts = {}
    for name, path, headers in (
        ("plain", "/plain", {}),
        ("variant, new visitor", "/offer", {}),
        ("translation redirect", "/welcome", {"Accept-Language": "fr"}),
    ):
        source_ip(f"10.9.0.{len(counts) + 1}")
        with dynamodb_calls() as calls:
            assert fetch(api, path, headers).status_code in (200, 302)
        counts[name] = sum(calls.values())
    with dynamodb_calls() as calls:
        token = event(api).json["device_id"]
    counts["mtc event, new visitor"] = sum(calls.values())
    with dynamodb_calls() as calls:
        event(api, {"mautic_device_id": token})
    counts["mtc event, tracked"] = sum(calls.values())
    with dynamodb_calls() as calls:
        event(api, headers={"User-Agent": "Googlebot/2.1"})
    counts["mtc event, bot"] = sum(calls.values())
    assert plain["id"] and counts == {
        "plain": 7,
        "variant, new visitor": 10,  # + the variants' BatchGetItem, their counters', a variantHits shard
        "translation redirect": 3,  # alias, page, the family's BatchGetItem (no contact, no hit)
        "mtc event, new visitor": 4,  # the visitor count, the contact's ids, its transaction, versions
        "mtc event, tracked": 3,  # the contact GetItem, its event id, its transaction
        "mtc event, bot": 1,  # the versions (the publicly updatable fields)
    }


def test_variant_settings_are_checked_as_mautics_form_does(api):
    parent = page(api, "Offer", "A")
    bad = {"variantParent": parent["id"], "variantSettings": {"weight": 120, "winnerCriteria": "email.openrate"}}
    refused = api.post("/api/pages/new", dict({"title": "Offer C"}, **bad))
    details = refused.json["errors"][0]["details"]
    assert refused.status_code == 400 and "variantSettings[weight]" in details
    assert "variantSettings[winnerCriteria]" in details and api.get("/api/pages").json["total"] == 1
    good = {"weight": "30", "winnerCriteria": "page.dwelltime"}
    made = api.post("/api/pages/new", {"title": "Offer D", "variantParent": parent["id"], "variantSettings": good})
    assert made.status_code == 201 and made.json["page"]["variantSettings"]["winnerCriteria"] == "page.dwelltime"


def _ab_visits(api, frozen, criteria):
    """A test judged by `criteria` and four contacts' visits: the parent's stay 10 s and bounce, the
    variant's stay 30 s and 50 s; the test's answer afterwards."""
    parent = page(api, "Offer", "A")
    settings = {"weight": 50, "winnerCriteria": criteria}
    child = page(api, "Offer B", "B", variantParent=parent["id"], variantSettings=settings)
    page(api, "Plain", "plain")
    people = [api.post("/api/contacts/new", {"email": f"ab{n}@example.com"}).json["contact"] for n in range(4)]
    for person, shown_id, stay in zip(
        people, [parent["id"], parent["id"], child["id"], child["id"]], [10, None, 30, 50], strict=True
    ):
        cookie = f"{visitor_cookie(person['id'])}; mautic_page_{parent['id']}={shown_id}"
        fetch(api, "/offer", {"Cookie": cookie})
        frozen.advance(seconds=stay or 4000)
        if stay:
            fetch(api, "/plain", {"Cookie": cookie})
        frozen.advance(seconds=4000)
    return parent, child, api.get(f"/api/pages/{child['id']}/abtest").json["abTest"]


def test_the_ab_test_result_by_bounce_rate(api, frozen):
    parent, child, test = _ab_visits(api, frozen, "page.bouncerate")
    rows = {row["id"]: row for row in test["variants"]}
    assert test["parent"] == parent["id"] and test["basedOn"] == "page.bouncerate" and test["winners"] == [child["id"]]
    assert rows[parent["id"]]["title"] == "Offer" and rows[child["id"]]["weight"] == 50
    assert (rows[parent["id"]]["variantHits"], rows[parent["id"]]["bounces"], rows[parent["id"]]["rate"]) == (
        2,
        1,
        50.0,
    )
    assert (rows[child["id"]]["bounces"], rows[child["id"]]["rate"], rows[child["id"]]["isWinner"]) == (0, 0.0, True)
    her = _as(api, "her", {"page:pages": ["viewown"]})
    assert her.get(f"/api/pages/{parent['id']}/abtest").status_code == 403
    assert api.get("/api/pages/999/abtest").status_code == 404


def test_the_ab_test_result_by_dwell_time_and_its_restart_when_the_criteria_change(api, frozen):
    parent, child, test = _ab_visits(api, frozen, "page.dwelltime")
    rows = {row["id"]: row for row in test["variants"]}
    assert rows[parent["id"]]["averageDwellTime"] == 5.0 and rows[child["id"]]["averageDwellTime"] == 40.0
    assert test["winners"] == [child["id"]] and test["basedOn"] == "page.dwelltime"
    settings = {"weight": 50, "winnerCriteria": "page.bouncerate"}
    api.patch(f"/api/pages/{child['id']}/edit", {"variantSettings": settings})  # Mautic starts the test over
    test = api.get(f"/api/pages/{parent['id']}/abtest").json["abTest"]
    assert test["variantStartDate"] == api.get(f"/api/pages/{child['id']}").json["page"]["variantStartDate"]
    assert [(row["variantHits"], row["bounces"]) for row in test["variants"]] == [(0, 0), (0, 0)]
