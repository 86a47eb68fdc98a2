"""Issue 34: lists leave out what Mautic's API `listFilters` do (`kernel/unlisted.py`): an email's A/B
variants, a page's variants and translations. The unlisted count moves with the write that sets the
first such reference or clears the last, and a delete racing an edit of that reference runs again on a
fresh read, so the count moves once."""

from __future__ import annotations

import pytest

from chalicelib.domain.kernel import listing, service, unlisted
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Stale
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT, EMAIL
from chalicelib.domain.web.declarations import PAGE
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    """An administrator's request context over the seeded store."""
    return Context(user=next(store.iterate("user")), base_url="https://m.example")


def _fresh(ctx: Context) -> Context:
    return Context(user=ctx.user, base_url=ctx.base_url)


def _moves(resource, doc, existing) -> list[int]:
    return [item.n for _, _, item in unlisted.upkeep(resource, doc, existing)]


def test_the_count_moves_when_the_first_reference_is_set_or_the_last_cleared() -> None:
    plain, variant, translation = {"id": 1}, {"id": 2, "variantParent": 1}, {"id": 3, "translationParent": 1}
    both = {"id": 4, "variantParent": 1, "translationParent": 1}
    assert _moves(EMAIL, variant, None) == [1] and _moves(EMAIL, translation, None) == []
    assert _moves(PAGE, translation, None) == [1] and _moves(PAGE, both, translation) == []
    assert _moves(PAGE, translation, both) == [] and _moves(PAGE, plain, both) == [-1]
    assert _moves(EMAIL, None, variant) == [-1] and _moves(EMAIL, None, plain) == []
    assert _moves(DYNAMIC_CONTENT, variant, None) == []  # Mautic lists dynamic content variants
    assert not unlisted.listed(EMAIL, variant) and unlisted.listed(EMAIL, translation)


def test_a_delete_racing_the_edit_that_unlists_it_runs_again_and_counts_once(ctx: Context) -> None:
    parent, _ = service.create(EMAIL, {"name": "Parent"}, _fresh(ctx))
    child, _ = service.create(EMAIL, {"name": "Child"}, _fresh(ctx))
    racing = _fresh(ctx)
    service.load(EMAIL, child["id"], racing)  # the delete read it listed...
    service.edit(EMAIL, child["id"], {"variantParent": parent["id"]}, _fresh(ctx), replace=False)  # ...then
    assert unlisted.total(EMAIL) == 1
    with pytest.raises(Stale):
        service.delete(EMAIL, child["id"], racing)
    assert unlisted.total(EMAIL) == 1 and store.get("email", child["id"]) is not None
    racing.cache.clear()
    service.retrying(lambda: service.delete(EMAIL, child["id"], racing), racing)
    assert unlisted.total(EMAIL) == 1 and store.counters(["count#email#unlisted"]) == {"count#email#unlisted": 0}
    total, docs, _ = listing.list_documents(EMAIL, listing.ListQuery(), _fresh(ctx))
    assert (total, [d["id"] for d in docs]) == (1, [parent["id"]])


def test_a_page_reads_on_past_children_and_stops_at_the_last_listed(ctx: Context) -> None:
    first, _ = service.create(EMAIL, {"name": "First"}, _fresh(ctx))
    for n in range(5):
        service.create(EMAIL, {"name": f"Variant {n}", "variantParent": first["id"]}, _fresh(ctx))
    second, _ = service.create(EMAIL, {"name": "Second"}, _fresh(ctx))
    query = listing.ListQuery(limit=1)
    total, docs, after = listing.list_documents(EMAIL, query, _fresh(ctx))
    assert (total, [d["id"] for d in docs], after) == (2, [first["id"]], first["id"])
    query = listing.ListQuery(limit=1, after=after)
    total, docs, after = listing.list_documents(EMAIL, query, _fresh(ctx))
    assert (total, [d["id"] for d in docs], after) == (2, [second["id"]], None)
    query = listing.ListQuery(limit=1, order_dir="DESC", after=second["id"])
    assert [d["id"] for d in listing.list_documents(EMAIL, query, _fresh(ctx))[1]] == [first["id"]]
