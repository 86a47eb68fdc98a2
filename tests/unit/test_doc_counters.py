"""Numbers public events move (issue 29: documents rewritten for one counter): a page's `hits`, an
asset's downloads and a dynamic content's `sentCount` live in sharded counter items
(`domain/kernel/counters.py`), never in the document, and add up across shards on read."""

from __future__ import annotations

import random
from typing import Any

import pytest

from chalicelib.domain.kernel import counters, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import ListQuery, list_documents
from chalicelib.domain.kernel.present import present_one
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT
from chalicelib.domain.web.declarations import ASSET, PAGE
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    return Context(user=next(store.iterate("user")), base_url="https://m.example")


def fresh(ctx: Context) -> Context:
    return Context(user=ctx.user, base_url=ctx.base_url)


def new_page(ctx: Context, title: str = "Offer", alias: str = "offer") -> dict[str, Any]:
    return service.create(PAGE, {"title": title, "alias": alias}, fresh(ctx))[0]


def test_hits_spread_over_the_shards_and_add_up(ctx: Context) -> None:
    page = new_page(ctx)
    random.seed(29)
    for n in range(200):
        counters.count_hit(PAGE, page, "hits", "uniqueHits", f"ip198.51.100.{n % 50}")
    values = store.counters(counters.shard_names("page", page["id"], "hits"))  # the 150 repeat visits
    firsts = store.counters(counters.shard_names("page", page["id"], "uniqueHits"))  # the 50 first ones
    assert sum(values.values()) == 150 and sum(firsts.values()) == 50
    assert sum(v > 0 for v in values.values()) == counters.SHARDS
    assert max(values.values()) < 150 / counters.SHARDS * 2  # spread: no shard takes them all
    shown = present_one(PAGE, store.get("page", page["id"]), fresh(ctx))
    assert (shown["hits"], shown["uniqueHits"]) == (200, 50)


def test_a_hit_writes_no_document(ctx: Context) -> None:
    page = new_page(ctx)
    before = store.get("page", page["id"])
    counters.count_hit(PAGE, page, "hits", "uniqueHits", "c7", new_visitor=True)
    counters.count_hit(PAGE, page, "hits", "uniqueHits", "c7")
    assert store.get("page", page["id"]) == before  # same revision, no `hits` key written
    assert "hits" not in before or before["hits"] in (None, 0)
    assert counters.live(PAGE, [page["id"]]) == {page["id"]: {"hits": 2, "uniqueHits": 1, "variantHits": 0}}
    one_each = [store.counters(counters.shard_names("page", page["id"], n)) for n in ("hits", "uniqueHits")]
    assert [sum(found.values()) for found in one_each] == [1, 1]  # each hit is one counter write


def test_a_stored_count_from_before_adds_to_the_shards(ctx: Context) -> None:
    page = new_page(ctx)
    stored = dict(store.get("page", page["id"]), hits=40, uniqueHits=30)  # counted in the document before
    store.replace("page", stored)
    counters.count_hit(PAGE, stored, "hits", "uniqueHits", "c1", new_visitor=True)
    shown = present_one(PAGE, store.get("page", page["id"]), fresh(ctx))
    assert (shown["hits"], shown["uniqueHits"]) == (41, 31)


def test_lists_order_and_filter_by_the_counted_numbers(ctx: Context) -> None:
    quiet, busy = new_page(ctx, "Quiet", "quiet"), new_page(ctx, "Busy", "busy")
    for _ in range(3):
        counters.add("page", busy["id"], "hits")
    counters.add("page", quiet["id"], "hits")
    _, ordered, _ = list_documents(PAGE, ListQuery(order_by="hits", order_dir="DESC"), fresh(ctx))
    assert [d["id"] for d in ordered] == [busy["id"], quiet["id"]]
    where = [{"col": "hits", "expr": "gt", "val": 2}]
    total, found, _ = list_documents(PAGE, ListQuery(where=where), fresh(ctx))
    assert total == 1 and found[0]["id"] == busy["id"]
    one = fresh(ctx)
    listed = list_documents(PAGE, ListQuery(order_by="hits"), one)[1]
    assert [present_one(PAGE, d, one)["hits"] for d in listed] == [1, 3]  # not counted twice


def test_asset_downloads_are_counters_too(ctx: Context) -> None:
    asset = {"id": 5}
    counters.count_hit(ASSET, asset, "downloadCount", "uniqueDownloadCount", "c3", new_visitor=True)
    counters.count_hit(ASSET, asset, "downloadCount", "uniqueDownloadCount", "c3")
    assert counters.live(ASSET, [5]) == {5: {"downloadCount": 2, "uniqueDownloadCount": 1}}


def test_a_written_sent_count_is_what_the_client_then_sees(ctx: Context) -> None:
    item = service.create(DYNAMIC_CONTENT, {"name": "Slot", "content": "x", "sentCount": 4}, fresh(ctx))[0]
    for _ in range(3):
        counters.count_hit(DYNAMIC_CONTENT, item, "sentCount")
    assert present_one(DYNAMIC_CONTENT, store.get("dynamiccontent", item["id"]), fresh(ctx))["sentCount"] == 7
    edited = service.edit(DYNAMIC_CONTENT, item["id"], {"sentCount": 10}, fresh(ctx), replace=False)[0]
    assert store.get("dynamiccontent", item["id"])["sentCount"] == 7  # 10 less the 3 counted
    assert present_one(DYNAMIC_CONTENT, edited, fresh(ctx))["sentCount"] == 10
