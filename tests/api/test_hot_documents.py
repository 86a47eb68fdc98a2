"""Issue 29, documents rewritten for one counter: a landing page hit, an asset download and a dynamic
content resolved move sharded counter items (`domain/kernel/counters.py`) and write no document, while
the page's `hits`, the asset's `downloadCount` and the content's `sentCount` show the same numbers as
before: GET, lists, report columns. The page (asset) a hit reads is kept per container for
`PUBLIC_DOC_SECONDS` (`domain/web/public_docs.py`), forgotten when written here."""

from types import SimpleNamespace
from unittest import mock

import botocore.client
import pytest

from chalicelib.domain.web import public_docs
from chalicelib.store import port as store
from tests.api.test_files_assets import make_local_asset
from tests.api.test_pages_public import fetch, make_page
from tests.api.test_report_joins import report, run
from tests.api.test_visitors import browse, cookie_of

_original = botocore.client.BaseClient._make_api_call


class Writes:
    """The DynamoDB items written while it is active: (table, hash key value)."""

    def __init__(self):
        self.keys = []
        self.reads = []

    def __enter__(self):
        def recording(client, operation, params):
            if client.meta.service_model.service_name == "dynamodb":
                self._note(operation, params)
            return _original(client, operation, params)

        self.patch = mock.patch.object(botocore.client.BaseClient, "_make_api_call", recording)
        self.patch.start()
        return self

    def __exit__(self, *exc):
        self.patch.stop()

    def _note(self, operation, params):
        if operation == "GetItem":
            self.reads.append((params["TableName"], _hash(params["Key"])))
        if operation in ("PutItem", "UpdateItem", "DeleteItem"):
            item = params.get("Item") or params.get("Key")
            self.keys.append((params["TableName"], _hash(item)))
        elif operation == "TransactWriteItems":
            for entry in params["TransactItems"]:
                (action,) = entry.values()
                self.keys.append((action["TableName"], _hash(action.get("Item") or action.get("Key"))))

    def entity_kinds(self):
        return {kind for table, kind in self.keys if table.endswith("entities")}

    def counters(self):
        return [name for table, name in self.keys if table.endswith("counters")]


def _hash(item):
    for name in ("kind", "name", "key"):
        if name in item:
            return next(iter(item[name].values()))
    return None


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_page_hit_writes_no_page_document(api):
    page = make_page(api)
    with Writes() as writes:
        cookie = cookie_of(browse(api, "/spring-offer"))  # a new visitor
        browse(api, "/spring-offer", cookie=cookie)
        fetch(api, "/spring-offer")  # a bot, counted by address
    assert "page" not in writes.entity_kinds()
    assert {name.rsplit("#", 1)[0] for name in writes.counters() if name.startswith("doccount#")} == {
        f"doccount#page#{page['id']}#hits",
        f"doccount#page#{page['id']}#uniqueHits",
    }
    shown = api.get(f"/api/pages/{page['id']}").json["page"]
    assert (shown["hits"], shown["uniqueHits"], shown["revision"], shown["dateModified"]) == (3, 2, 1, None)
    listed = api.get("/api/pages?orderBy=hits").json["pages"][0]
    assert (listed["hits"], listed["uniqueHits"]) == (3, 2)


def test_an_asset_download_writes_no_asset_document(api):
    asset, _ = make_local_asset(api)
    with Writes() as writes:
        cookie = cookie_of(browse(api, f"/asset/{asset['id']}"))
        browse(api, f"/asset/{asset['id']}", cookie=cookie)
    assert "asset" not in writes.entity_kinds()
    shown = api.get(f"/api/assets/{asset['id']}").json["asset"]
    assert (shown["downloadCount"], shown["uniqueDownloadCount"]) == (2, 1)


def test_dynamic_content_resolved_writes_no_document(api):
    item = api.post(
        "/api/dynamiccontents/new",
        {"name": "Generic", "content": "<b>Hello</b>", "slotName": "hero", "isCampaignBased": False},
    ).json["dynamicContent"]
    with Writes() as writes:
        assert browse(api, "/dwc/hero").body.decode() == "<b>Hello</b>"
    assert "dynamiccontent" not in writes.entity_kinds()
    assert api.get(f"/api/dynamiccontents/{item['id']}").json["dynamicContent"]["sentCount"] == 1


def test_report_columns_of_pages_show_the_counted_hits(api):
    make_page(api)
    cookie = cookie_of(browse(api, "/spring-offer"))
    browse(api, "/spring-offer", cookie=cookie)
    hits = report(api, "page.hits", columns=["ph.date_hit", "p.hits", "p.unique_hits"])
    rows = run(api, hits["id"])["data"]
    assert [(r["hits"], r["unique_hits"]) for r in rows] == [("2", "1"), ("2", "1")]


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_busy_page_is_read_once_per_container_and_interval(configure, api, monkeypatch):
    configure(PUBLIC_DOC_SECONDS=1.0)  # the tests' default is 0 (tests/conftest.py)
    clock = [1000.0]
    monkeypatch.setattr(public_docs, "time", SimpleNamespace(time=lambda: clock[0]))
    page = make_page(api)
    browse(api, "/spring-offer")  # read, kept
    with Writes() as calls:
        for _ in range(3):
            clock[0] += 0.3
            assert browse(api, "/spring-offer").status_code == 200
    assert not [key for key in calls.reads if key[1] in ("page", "page#alias#spring-offer")]
    clock[0] += 0.2  # a second after the read
    with Writes() as calls:
        browse(api, "/spring-offer")
    assert [key[1] for key in calls.reads if key[1] in ("page", "page#alias#spring-offer")] == [
        "page#alias#spring-offer",
        "page",
    ]
    assert api.get(f"/api/pages/{page['id']}").json["page"]["hits"] == 5


def test_a_page_or_asset_written_here_is_served_fresh_at_once(api, configure):
    configure(PUBLIC_DOC_SECONDS=60.0)
    page = make_page(api)
    asset, _ = make_local_asset(api)
    assert browse(api, "/spring-offer").status_code == 200 and browse(api, f"/asset/{asset['id']}").status_code == 200
    api.patch(f"/api/pages/{page['id']}/edit", {"customHtml": "<p>New</p>"})
    assert browse(api, "/spring-offer").body.decode() == "<p>New</p>"
    api.patch(f"/api/pages/{page['id']}/edit", {"isPublished": False})
    assert browse(api, "/spring-offer").status_code == 404
    api.patch(f"/api/assets/{asset['id']}/edit", {"isPublished": False})
    assert browse(api, f"/asset/{asset['id']}").status_code == 404


def _edit_elsewhere(page_id, html):
    """Write the page as another container would: this one is not told."""
    doc = store.get("page", page_id)
    store.put("page", dict(doc, customHtml=html))


def test_a_container_frozen_between_hits_reads_the_page_again(configure, api, monkeypatch):
    """Issue 39: the cache expired by `time.monotonic`, which stands still while a Lambda container
    is frozen, so a container thawed an hour later served its old copy. Wall time expires it."""
    configure(PUBLIC_DOC_SECONDS=1.0)
    wall = [1000.0]
    frozen_lambda = SimpleNamespace(time=lambda: wall[0], monotonic=lambda: 5.0)  # monotonic stands still
    monkeypatch.setattr(public_docs, "time", frozen_lambda)
    page = make_page(api)
    assert browse(api, "/spring-offer").status_code == 200  # read and kept
    _edit_elsewhere(page["id"], "<p>Edited elsewhere</p>")
    assert browse(api, "/spring-offer").body.decode() != "<p>Edited elsewhere</p>"  # kept within the second
    wall[0] += 3600  # frozen for an hour, thawed
    assert browse(api, "/spring-offer").body.decode() == "<p>Edited elsewhere</p>"
    wall[0] -= 7200  # a clock set back reads again too
    _edit_elsewhere(page["id"], "<p>Again</p>")
    assert browse(api, "/spring-offer").body.decode() == "<p>Again</p>"
