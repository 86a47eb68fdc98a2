"""Issue 34: lists answer parent-level documents only, as Mautic's API adds `listFilters` to every list
request: `GET /api/emails` leaves out A/B variants (`e.variantParent isNull`, EmailBundle
`Controller/Api/EmailApiController.php` getEntitiesAction) and keeps translations; `GET /api/pages`
leaves out variants and translations (`p.variantParent isNull`, `p.translationParent isNull`,
PageBundle `Controller/Api/PageApiController.php`); dynamic content lists all (its controller adds
none). Whatever the search, filter, order or paging, and `total` counts only listed documents (the
fast unfiltered list from counters moved in the child's own transaction). A GET by id still answers a
child."""

from urllib.parse import quote

import pytest

from chalicelib import config
from tests.api.test_permissions import _as
from tests.bench.conftest import dynamodb_calls

EMAILS = {"email:emails": ["viewown", "editown", "create", "deleteown"]}
PLURAL = {"emails": "emails", "pages": "pages", "dynamiccontents": "dynamicContents"}
TITLE = {"emails": "name", "pages": "title", "dynamiccontents": "name"}


def _new(api, prefix, title, **extra):
    response = api.post(f"/api/{prefix}/new", {TITLE[prefix]: title, **extra})
    assert response.status_code == 201, response.json
    return next(iter(response.json.values()))["id"]


def _list(api, prefix, query=""):
    """(total, ids in answer order, the answer's body) of a list request."""
    response = api.get(f"/api/{prefix}?{query}")
    assert response.status_code == 200, response.json
    collection = response.json[PLURAL[prefix]]
    docs = collection.values() if isinstance(collection, dict) else collection
    return int(response.json["total"]), [doc["id"] for doc in docs], response.json


def _found(api, prefix, query=""):
    return _list(api, prefix, query)[:2]


def _family(api):
    """Emails: two parents, a translation, three variants (one a variant of a translation)."""
    first = _new(api, "emails", "Promo A", subject="One")
    variant = _new(api, "emails", "Promo A variant", subject="One B", variantParent=first)
    translation = _new(api, "emails", "Promo A cs", subject="Jedna", translationParent=first)
    second = _new(api, "emails", "Promo B", subject="Two", isPublished=False)
    translated_variant = _new(api, "emails", "Promo A cs B", variantParent=translation, translationParent=first)
    late_variant = _new(api, "emails", "Promo B variant", variantParent=second)
    return first, translation, second, (variant, translated_variant, late_variant)


def test_an_email_list_leaves_out_variants_and_keeps_translations_whatever_it_asks(api):
    first, translation, second, variants = _family(api)
    listed = [first, translation, second]
    assert _found(api, "emails") == (3, listed)
    assert _found(api, "emails", "search=promo") == (3, listed)
    assert _found(api, "emails", "search=" + quote("Promo A")) == (2, [first, translation])
    ids = ",".join(str(i) for i in [*listed, *variants])
    assert _found(api, "emails", f"search=ids:{ids}") == (3, listed)
    assert _found(api, "emails", f"where[0][col]=id&where[0][expr]=gte&where[0][val]={first}") == (3, listed)
    assert _found(api, "emails", "where[0][col]=name&where[0][expr]=like&where[0][val]=%25variant") == (0, [])
    assert _found(api, "emails", "orderBy=name&orderByDir=desc") == (3, [second, translation, first])
    assert _found(api, "emails", "order[0][col]=subject") == (3, [translation, first, second])
    assert _found(api, "emails", "publishedOnly=1") == (2, [first, translation])
    assert _found(api, "emails", "orderByDir=desc") == (3, [second, translation, first])
    for variant in variants:  # a GET by id still answers a child
        assert api.get(f"/api/emails/{variant}").status_code == 200


def test_paging_and_cursors_count_and_skip_only_listed_emails(api):
    first, translation, second, _ = _family(api)
    assert _found(api, "emails", "start=1&limit=1") == (3, [translation])
    assert _found(api, "emails", "start=2&limit=5") == (3, [second])
    assert _found(api, "emails", "start=1&limit=1&orderByDir=desc") == (3, [translation])
    total, ids, body = _list(api, "emails", "limit=1")
    seen = ids
    while "next" in body:
        total, ids, body = _list(api, "emails", f"limit=1&after={body['next']}")
        assert total == 3
        seen += ids
    assert seen == [first, translation, second]
    _, ids, body = _list(api, "emails", "limit=2&orderByDir=desc")
    assert ids == [second, translation]
    assert _found(api, "emails", f"limit=2&orderByDir=desc&after={body['next']}") == (3, [first])


def test_a_page_list_leaves_out_variants_and_translations(api):
    home = _new(api, "pages", "Home")
    variant = _new(api, "pages", "Home B", variantParent=home)
    translation = _new(api, "pages", "Domu", translationParent=home)
    about = _new(api, "pages", "About")
    assert _found(api, "pages") == (2, [home, about])
    assert _found(api, "pages", f"search=ids:{home},{variant},{translation}") == (1, [home])
    assert _found(api, "pages", "orderBy=title") == (2, [about, home])
    assert _found(api, "pages", "limit=1&start=1") == (2, [about])
    assert _found(api, "pages", "search=o") == (2, [home, about])
    assert api.get(f"/api/pages/{translation}").json["page"]["translationParent"]["id"] == home


def test_dynamic_content_lists_its_variants_as_mautic_does(api):
    parent = _new(api, "dynamiccontents", "Banner")
    variant = _new(api, "dynamiccontents", "Banner B", variantParent=parent)
    assert _found(api, "dynamiccontents") == (2, [parent, variant])


@pytest.mark.parametrize(("prefix", "link"), [("emails", "variantParent"), ("pages", "translationParent")])
def test_a_child_detached_is_listed_again_and_a_deleted_one_uncounted(api, prefix, link):
    parent = _new(api, prefix, "Parent")
    child = _new(api, prefix, "Child", **{link: parent})
    other = _new(api, prefix, "Other child", **{link: parent})
    assert _found(api, prefix) == (1, [parent])
    assert api.patch(f"/api/{prefix}/{child}/edit", {link: None}).status_code == 200
    assert _found(api, prefix) == (2, [parent, child])
    assert api.patch(f"/api/{prefix}/{child}/edit", {link: parent}).status_code == 200  # attached again
    assert api.patch(f"/api/{prefix}/{child}/edit", {TITLE[prefix]: "Renamed"}).status_code == 200
    assert _found(api, prefix) == (1, [parent])
    assert api.put(f"/api/{prefix}/{child}/edit", {TITLE[prefix]: "Put"}).status_code == 200  # PUT: no parent
    assert _found(api, prefix) == (2, [parent, child])
    assert api.delete(f"/api/{prefix}/{other}/delete").status_code == 200  # an unlisted child deleted
    assert _found(api, prefix) == (2, [parent, child])
    assert api.delete(f"/api/{prefix}/{child}/delete").status_code == 200  # a listed one
    assert _found(api, prefix) == (1, [parent])
    assert _found(api, prefix, "search=ids:" + ",".join(map(str, (parent, child, other)))) == (1, [parent])


def test_a_batch_of_variants_is_counted_out(api):
    parent = _new(api, "emails", "Parent")
    body = [{"name": f"Variant {n}", "variantParent": parent} for n in range(3)] + [{"name": "Lone"}]
    response = api.post("/api/emails/batch/new", body)
    assert response.status_code == 201, response.json
    lone = max(e["id"] for e in response.json["emails"])
    assert _found(api, "emails") == (2, [parent, lone])


def test_a_limited_user_sees_only_her_own_listed_emails(api):
    mallory = _as(api, "mallory", EMAILS)
    mine = _new(mallory, "emails", "Mine")
    _new(mallory, "emails", "My variant", variantParent=mine)
    my_translation = _new(mallory, "emails", "My translation", translationParent=mine)
    theirs = _new(api, "emails", "Theirs")
    _new(api, "emails", "Their variant", variantParent=theirs)
    assert _found(mallory, "emails") == (2, [mine, my_translation])
    assert _found(mallory, "emails", "limit=1&start=1") == (2, [my_translation])
    assert _found(mallory, "emails", "search=m") == (2, [mine, my_translation])
    assert _found(api, "emails") == (3, [mine, my_translation, theirs])


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_an_email_list_page_reads_only_up_to_its_last_listed_email(api):
    """The unfiltered first page: one Query of the page (and the one email after it, for `next`) when
    no variant is among them, the total from the kind's count and the unlisted count in one
    BatchGetItem; variants among them cost a Query more per doubling of what is read, never a read of
    the kind."""

    def cost(query):
        with dynamodb_calls() as calls:
            total, ids, body = _list(api, "emails", query)
        return total, ids, dict(calls), body.get("next")

    parents = [_new(api, "emails", f"Parent {n}") for n in range(2)]
    # versions; the page; the kind's and the unlisted count in one BatchGetItem (was a GetItem); the
    # emails' counters and their send runs, as any email list page
    assert cost("limit=1")[:3] == (2, parents[:1], {"GetItem": 1, "Query": 1, "BatchGetItem": 3})
    for parent in parents:
        for n in range(3):
            _new(api, "emails", f"Variant {n}", variantParent=parent)  # ids 3 to 8
    parents.append(_new(api, "emails", "Parent 2"))  # id 9
    for n in range(30):
        _new(api, "emails", f"Late {n}", variantParent=parents[2])  # ids 10 to 39
    parents.append(_new(api, "emails", "Parent 3"))  # id 40

    total, ids, calls, cursor = cost("limit=1")  # reads ids 1 and 2: the page and the next
    assert (total, ids, calls["Query"]) == (4, parents[:1], 1)
    total, ids, calls, cursor = cost("limit=2")  # 1 to 3, then 4 to 9
    assert (total, ids, calls["Query"]) == (4, parents[:2], 2)
    total, ids, calls, _ = cost("limit=10")  # 1 to 11, then 12 to 40 (all of them: the read ends)
    assert (total, ids, calls["Query"]) == (4, parents, 2)
    total, ids, calls, _ = cost(f"limit=1&after={cursor}")  # 3-4, 5-8, 9-20, 21-40
    assert (total, ids, calls["Query"]) == (4, parents[2:3], 4)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_recount_counts_children_stored_before_lists_left_them_out(api, monkeypatch, capsys):
    from chalicelib import cli
    from chalicelib.store.models import Counter

    parent = _new(api, "emails", "Parent")
    for n in range(2):
        _new(api, "emails", f"Variant {n}", variantParent=parent)
    home = _new(api, "pages", "Home")
    _new(api, "pages", "Domu", translationParent=home)
    for name in ("count#email#unlisted", "count#page#unlisted"):  # as stored before the count existed
        Counter(name, value=0).save()
    assert _found(api, "emails") == (3, [parent])  # the total counts the variants
    assert cli.main(["--json", "storage", "recount-unlisted"], config.active()) == 0
    assert '"moved": 2' in capsys.readouterr().out
    assert _found(api, "emails") == (1, [parent]) and _found(api, "pages") == (1, [home])
    assert cli.main(["--json", "storage", "recount-unlisted"], config.active()) == 0
    out = capsys.readouterr().out
    assert '"moved": 0' in out and '"moved": 2' not in out and '"moved": 1' not in out
