"""Page A/B tests judged by downloads (`asset.downloads`) and form submissions (`form.submissions`), as
Mautic's AssetBundle and FormBundle `DetermineWinnerSubscriber` judge a landing page's test: the
downloads from the page's `{assetlink}` over its hits, the submissions of its `{form}` over its
variant hits, since the parent's `variantStartDate`."""

import json
import re
from urllib.parse import urlsplit

import pytest

from tests.api.test_email_versions import _guide
from tests.api.test_forms_submit import post
from tests.api.test_page_variants import HEAD, fetch, page
from tests.api.test_permissions import _as
from tests.conftest import set_cookies

START = "2020-01-01 00:00:00"


def _form(api):
    fields = [{"label": "Email", "alias": "email", "type": "email"}]
    return api.post("/api/forms/new", {"name": "Signup", "fields": fields}).json["form"]


def _test(api, criteria, body, start=START):
    parent = page(api, "Offer", body, variantStartDate=start)
    settings = {"weight": 50, "winnerCriteria": criteria}
    child = page(api, "Offer B", body, variantParent=parent["id"], variantSettings=settings)
    return parent, child


def _visit(api, source_ip, n, parent, shown_id):
    """A new visitor (its own address) shown the variant `shown_id`: the rendered HTML."""
    source_ip(f"10.9.0.{n + 1}")
    response = fetch(api, "/offer", {"Cookie": f"mautic_page_{parent['id']}={shown_id}"})
    assert response.status_code == 200
    return response.body.decode()


def _download(api, html):
    url = re.search(r'href="([^"]+/asset/[^"]+)"', html).group(1)
    return api.http.request("GET", urlsplit(url).path + "?" + urlsplit(url).query)


def _result(api, page_id):
    return api.get(f"/api/pages/{page_id}/abtest").json["abTest"]


def test_downloads_from_the_page_decide_the_winner(api, source_ip):
    guide = _guide(api)
    parent, child = _test(api, "asset.downloads", f'<a href="{{assetlink={guide["id"]}}}">Guide</a>')
    assert (_result(api, parent["id"])["winners"], _result(api, parent["id"])["support"]) == ([], {})
    shown = [parent["id"]] * 4 + [child["id"]] * 2
    pages = [_visit(api, source_ip, n, parent, shown_id) for n, shown_id in enumerate(shown)]
    assert f"ct=page.{parent['id']}." in pages[0] and f"ct=page.{child['id']}." in pages[4]
    source_ip("10.9.0.1")
    for _ in range(2):  # a visitor counts once however often it downloads
        download = _download(api, pages[0])
        assert download.status_code == 302 and download.headers["Location"] == "https://cdn.example/guide.pdf"
    for n, html in enumerate(pages[4:], start=5):
        source_ip(f"10.9.0.{n}")
        _download(api, html)
    forged = re.sub(r"ct=page\.(\d+)\.\w+", lambda m: f"ct=page.{m.group(1)}.{'0' * 32}", pages[1])
    _download(api, forged)
    api.http.request("GET", f"/asset/{guide['id']}:{guide['alias']}")  # a download from no page
    test = _result(api, child["id"])
    rows = {row["id"]: row for row in test["variants"]}
    assert (test["basedOn"], test["winners"]) == ("asset.downloads", [child["id"]])
    assert (rows[parent["id"]]["downloads"], rows[parent["id"]]["hits"], rows[parent["id"]]["rate"]) == (1, 4, 25.0)
    assert (rows[child["id"]]["downloads"], rows[child["id"]]["hits"], rows[child["id"]]["rate"]) == (2, 2, 100.0)
    assert rows[child["id"]]["isWinner"] and not rows[parent["id"]]["isWinner"]
    data = {"Number of downloads": [1, 2], "Number of unique asset downloads": [4, 2]}
    labels = [f"{parent['id']}:Offer (25.0%)", f"{child['id']}:Offer B (100.0%)"]
    assert test["support"] == {"labels": labels, "data": data, "step_width": 10}
    assert api.get(f"/api/assets/{guide['id']}").json["asset"]["downloadCount"] == 6


def test_submissions_on_the_page_decide_the_winner(api, source_ip):
    form = _form(api)
    parent, child = _test(api, "form.submissions", f"{{form={form['id']}}}")
    shown = [parent["id"], parent["id"], child["id"], child["id"]]
    pages = [_visit(api, source_ip, n, parent, shown_id) for n, shown_id in enumerate(shown)]
    hidden = '<input type="hidden" name="mauticform[mauticpage]" value="{}">'
    assert hidden.format(parent["id"]) in pages[0] and hidden.format(child["id"]) in pages[2]
    for n, html in enumerate(pages[1:]):
        page_id = re.search(r'name="mauticform\[mauticpage\]" value="(\d+)"', html).group(1)
        sent = post(api, form["id"], {"email": f"v{n}@example.com", "mauticpage": page_id})
        assert sent.status_code == 200
    again = {"Cookie": "; ".join(f"{k}={v}" for k, v in set_cookies(sent).items())}
    post(api, form["id"], {"email": "v2@example.com", "mauticpage": page_id}, headers=again)  # once each
    post(api, form["id"], {"email": "direct@example.com"})  # the form page itself: no landing page
    post(api, form["id"], {"email": "odd@example.com", "mauticpage": "99999"})  # no such page
    test = _result(api, parent["id"])
    rows = {row["id"]: row for row in test["variants"]}
    assert (test["basedOn"], test["winners"]) == ("form.submissions", [child["id"]])
    assert (rows[parent["id"]]["submissions"], rows[parent["id"]]["variantHits"], rows[parent["id"]]["rate"]) == (
        1,
        2,
        50.0,
    )
    assert (rows[child["id"]]["submissions"], rows[child["id"]]["rate"]) == (2, 100.0)
    data = {"Number of submissions": [1, 2], "Number of unique page hits": [2, 2]}
    assert test["support"]["data"] == data
    assert test["support"]["labels"] == [f"{parent['id']}:Offer (50.0%)", f"{child['id']}:Offer B (100.0%)"]
    listed = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert sorted(str(s["page"]) for s in listed) == sorted(["None", "None", str(child["id"]), *map(str, shown[1:])])


def test_a_variant_without_submissions_is_labelled_by_title_and_no_start_date_judges_nothing(api, source_ip):
    form = _form(api)
    parent, child = _test(api, "form.submissions", f"{{form={form['id']}}}")
    html = _visit(api, source_ip, 0, parent, child["id"])
    _visit(api, source_ip, 1, parent, parent["id"])
    post(api, form["id"], {"email": "b@example.com", "mauticpage": str(child["id"])})
    assert "mauticpage" in html
    test = _result(api, parent["id"])
    assert test["support"]["labels"] == [f"{child['id']}:Offer B (100.0%)", "Offer (0%)"]
    assert test["support"]["data"] == {"Number of submissions": [1, 0], "Number of unique page hits": [1, 0]}
    api.patch(f"/api/pages/{parent['id']}/edit", {"isPublished": False})  # restarts the test (Mautic's rule)
    api.patch(f"/api/pages/{parent['id']}/edit", {"variantStartDate": None})  # unpublished: kept as written
    test = _result(api, parent["id"])
    assert (test["winners"], test["support"]) == ([], {})  # Mautic reads nothing without a start date


def test_a_limited_user_sees_only_her_own_page_by_title(api, source_ip):
    mallory = _as(api, "mallory", {"page:pages": ["viewown", "editown", "create"]})
    form = _form(api)
    body = HEAD.format(t="Mine", b=f"{{form={form['id']}}}")
    mine = mallory.post("/api/pages/new", {"title": "Mine", "customHtml": body, "variantStartDate": START})
    mine = mine.json["page"]
    api.patch(f"/api/pages/{mine['id']}/edit", {"isPublished": True})
    settings = {"weight": 100, "winnerCriteria": "form.submissions"}
    theirs = page(api, "Secret", "s", variantParent=mine["id"], variantSettings=settings)
    source_ip("10.9.1.1")
    fetch(api, "/mine")
    post(api, form["id"], {"email": "s@example.com", "mauticpage": str(theirs["id"])})
    test = mallory.get(f"/api/pages/{mine['id']}/abtest").json["abTest"]
    assert test["winners"] == [theirs["id"]] and "Secret" not in json.dumps(test)
    assert test["support"]["labels"] == [f"{theirs['id']}: (100.0%)", "Mine (0%)"]
    refused = mallory.get(f"/api/pages/{theirs['id']}/abtest")
    assert refused.status_code == 403 and "Number of" not in json.dumps(refused.json)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_visitors_first_download_from_a_test_page_costs_a_marker_and_a_counter_write(api, source_ip, configure):
    from tests.bench.conftest import dynamodb_calls

    configure(PUBLIC_DOC_SECONDS=60.0, VERSIONS_TTL=60.0)  # as deployed: a container keeps pages and versions

    guide = _guide(api)
    parent, child = _test(api, "asset.downloads", f'<a href="{{assetlink={guide["id"]}}}">Guide</a>')
    html = _visit(api, source_ip, 0, parent, child["id"])
    url = urlsplit(re.search(r'href="([^"]+/asset/[^"]+)"', html).group(1))
    costs = []
    for path in (url.path, url.path, f"{url.path}?{url.query}", f"{url.path}?{url.query}"):
        with dynamodb_calls() as calls:
            assert api.http.request("GET", path).status_code == 302
        costs.append(dict(calls))
    _, plain, first, again = costs
    more = [{op: n - plain.get(op, 0) for op, n in cost.items() if n != plain.get(op, 0)} for cost in (first, again)]
    # the visitor's first: its marker read and claimed, one counter shard (and the page, not kept yet)
    assert (more[0]["PutItem"], more[0]["UpdateItem"], more[0]["GetItem"]) == (1, 1, 2), costs
    assert more[1] == {"GetItem": 1}, costs  # later ones: the marker read, nothing written
    assert _result(api, parent["id"])["winners"] == [child["id"]]
