"""An A/B test starts over when a version of it changes (Mautic's `VariantModelTrait::preVariantSaveEntity`
and `resetVariants`): the pages' `variantHits`, the emails' `variantSentCount`/`variantReadCount` and
their test counters go back to 0 and `variantStartDate` becomes now for the whole test, through every
edit path; an edit that changes nothing, of an unpublished variant, or refused, restarts nothing."""

import pytest

from chalicelib.domain.kernel import clock
from tests.api.test_email_send import make_contact, make_email
from tests.api.test_email_versions import _ab_test, _open
from tests.api.test_page_variants import ab_test, fetch, page
from tests.api.test_permissions import _as


def _page(api, page_id):
    return api.get(f"/api/pages/{page_id}").json["page"]


def _visits(api, source_ip, parent, shown_ids, first=1):
    """New visitors (an address each) shown the given versions of the test."""
    for n, shown_id in enumerate(shown_ids):
        source_ip(f"10.7.0.{first + n}")
        assert fetch(api, "/offer", {"Cookie": f"mautic_page_{parent['id']}={shown_id}"}).status_code == 200


def _state(api, *pages):
    return [(p["variantHits"], p["variantStartDate"]) for p in (_page(api, page["id"]) for page in pages)]


def _abtest(api, kind, doc_id):
    return api.get(f"/api/{kind}/{doc_id}/abtest").json["abTest"]


# pages


def test_a_new_variant_and_an_edit_of_one_restart_the_whole_page_test(api, source_ip, frozen):
    parent, child = ab_test(api, 50)
    started = clock.now_iso()
    assert _state(api, parent, child) == [(0, started), (0, started)]  # a new variant starts the test
    _visits(api, source_ip, parent, [parent["id"], parent["id"], child["id"]])
    assert _state(api, parent, child) == [(2, started), (1, started)]
    assert [row["variantHits"] for row in _abtest(api, "pages", parent["id"])["variants"]] == [2, 1]
    frozen.advance(minutes=5)
    edited = api.patch(f"/api/pages/{child['id']}/edit", {"title": "Offer B, cheaper"})
    now = clock.now_iso()
    shown = edited.json["page"]
    assert edited.status_code == 200 and (shown["variantHits"], shown["variantStartDate"]) == (0, now)
    assert _state(api, parent, child) == [(0, now), (0, now)]
    assert _page(api, parent["id"])["hits"] == 2  # only the test's counts start over
    test = _abtest(api, "pages", child["id"])
    assert test["variantStartDate"] == now and [row["variantHits"] for row in test["variants"]] == [0, 0]
    _visits(api, source_ip, parent, [child["id"]], first=10)
    assert _state(api, parent, child) == [(0, now), (1, now)]


def test_an_edit_of_the_parent_by_put_or_a_batch_restarts_the_test(api, source_ip, frozen):
    parent, child = ab_test(api, 50)
    _visits(api, source_ip, parent, [parent["id"], child["id"]])
    frozen.advance(minutes=1)
    whole = dict(_page(api, parent["id"]), title="Offer, new")
    whole = {k: v for k, v in whole.items() if k in ("title", "alias", "customHtml", "isPublished")}
    assert api.put(f"/api/pages/{parent['id']}/edit", whole).status_code == 200
    assert _state(api, parent, child) == [(0, clock.now_iso())] * 2
    _visits(api, source_ip, parent, [parent["id"], child["id"]], first=10)
    frozen.advance(minutes=1)
    batch = api.patch("/api/pages/batch/edit", [{"id": child["id"], "title": "B again"}])
    assert batch.json["statusCodes"] == [200]
    assert _state(api, parent, child) == [(0, clock.now_iso())] * 2


def test_an_edit_that_changes_nothing_an_unpublished_variant_or_a_plain_page_restarts_nothing(api, source_ip, frozen):
    parent, child = ab_test(api, 50)
    plain = page(api, "Plain", "p")
    started = clock.now_iso()
    _visits(api, source_ip, parent, [parent["id"], child["id"]])
    frozen.advance(minutes=1)
    assert api.patch(f"/api/pages/{child['id']}/edit", {"title": "Offer B"}).status_code == 200
    assert api.patch(f"/api/pages/{plain['id']}/edit", {"title": "Plainer"}).status_code == 200
    assert _state(api, parent, child) == [(1, started), (1, started)]
    assert _page(api, plain["id"])["variantStartDate"] is None
    api.patch(f"/api/pages/{child['id']}/edit", {"isPublished": False})  # (un)publishing is a change
    unpublished = clock.now_iso()
    assert _state(api, parent, child) == [(0, unpublished), (0, unpublished)]
    _visits(api, source_ip, parent, [parent["id"]], first=10)
    frozen.advance(minutes=1)
    api.patch(f"/api/pages/{child['id']}/edit", {"title": "Offer B, draft"})  # unpublished, still unpublished
    assert _state(api, parent, child) == [(1, unpublished), (0, unpublished)]


def test_a_translation_of_a_variant_restarts_its_own_family_only(api, frozen):
    parent, child = ab_test(api, 50)
    started = clock.now_iso()
    frozen.advance(minutes=1)
    french = page(api, "Offre B", "B fr", translationParent=child["id"], language="fr")
    now = clock.now_iso()
    assert [p["variantStartDate"] for p in (_page(api, i) for i in (parent["id"], child["id"], french["id"]))] == [
        started,
        now,
        now,
    ]  # Mautic's getRelatedEntityIds of a translation: itself, its parent and that parent's translations


def test_a_limited_users_refused_edit_restarts_nothing(api, source_ip, frozen):
    parent, child = ab_test(api, 50)
    started = clock.now_iso()
    _visits(api, source_ip, parent, [parent["id"], child["id"]])
    viewer = _as(api, "viewer", {"page:pages": ["viewother"]})
    frozen.advance(minutes=1)
    assert viewer.patch(f"/api/pages/{child['id']}/edit", {"title": "Mine now"}).status_code == 403
    assert viewer.patch("/api/pages/batch/edit", [{"id": parent["id"], "title": "x"}]).json["statusCodes"] == [403]
    assert _state(api, parent, child) == [(1, started), (1, started)]
    assert [row["variantHits"] for row in _abtest(api, "pages", parent["id"])["variants"]] == [1, 1]


def test_a_test_too_large_to_restart_in_one_transaction_is_refused_whole(api, monkeypatch):
    from chalicelib.domain.kernel import variant_restarts

    parent, child = ab_test(api, 30)
    monkeypatch.setattr(variant_restarts, "RESTART_ITEMS", 1)  # as a test of ~80 pages would need
    refused = api.post("/api/pages/new", {"title": "Offer C", "variantParent": parent["id"]})
    assert refused.status_code == 400 and "variantParent" in refused.json["errors"][0]["details"]
    assert [c["id"] for c in _page(api, parent["id"])["variantChildren"]] == [child["id"]]
    assert api.get("/api/pages").json["total"] == 1


# emails


def _emails_state(api, *emails):
    shown = [api.get(f"/api/emails/{e['id']}").json["email"] for e in emails]
    return [(e["variantSentCount"], e["variantReadCount"], e["variantStartDate"]) for e in shown]


def test_an_edit_of_a_variant_email_restarts_the_counts_and_the_result(api, drain, frozen):
    parent, child, a, b = _ab_test(api, drain, "email.openrate", "<html><body>Hi</body></html>", contacts=12)
    started = clock.now_iso()
    for message in a[:2] + b[:1]:
        _open(api, message)
    assert _emails_state(api, parent, child) == [(len(a), 2, started), (len(b), 1, started)]
    frozen.advance(minutes=5)
    edited = api.patch(f"/api/emails/{child['id']}/edit", {"subject": "B, better"})
    now = clock.now_iso()
    shown = edited.json["email"]
    assert (shown["variantSentCount"], shown["variantReadCount"], shown["variantStartDate"]) == (0, 0, now)
    assert _emails_state(api, parent, child) == [(0, 0, now), (0, 0, now)]
    assert api.get(f"/api/emails/{parent['id']}").json["email"]["sentCount"] == len(a)  # its own sends stay
    test = _abtest(api, "emails", parent["id"])
    assert test["variantStartDate"] == now and test["winners"] == []
    assert [(row["sent"], row["read"], row["rate"]) for row in test["variants"]] == [(0, 0, 0.0), (0, 0, 0.0)]
    _open(api, a[2])  # a read after the restart counts for the new test (Mautic's variant_read_count)
    assert _emails_state(api, parent, child)[0] == (0, 1, now)
    ann = make_contact(api, email="ann.after@example.com")
    assert api.post(f"/api/emails/{parent['id']}/contact/{ann['id']}/send").status_code == 200
    assert sum(sent for sent, _, _ in _emails_state(api, parent, child)) == 1  # sends count from 0 again
    assert sum(row["sent"] for row in _abtest(api, "emails", parent["id"])["variants"]) == 1


def test_an_email_edit_that_changes_nothing_a_translation_or_a_refused_edit_restarts_nothing(api, drain, frozen):
    parent, child, a, b = _ab_test(api, drain, "email.openrate", "<html><body>Hi</body></html>", contacts=6)
    started = clock.now_iso()
    before = [(len(a), 0, started), (len(b), 0, started)]
    frozen.advance(minutes=1)
    assert api.patch(f"/api/emails/{child['id']}/edit", {"subject": "B", "readCount": 40}).status_code == 200
    make_email(api, name="B fr", subject="B fr", language="fr", translationParent=child["id"])  # EmailModel: no
    viewer = _as(api, "viewer", {"email:emails": ["viewother"]})
    assert viewer.patch(f"/api/emails/{child['id']}/edit", {"subject": "Mine"}).status_code == 403
    assert viewer.put("/api/emails/batch/edit", [{"id": parent["id"], "subject": "x"}]).json["statusCodes"] == [403]
    assert _emails_state(api, parent, child) == before
    assert [row["sent"] for row in _abtest(api, "emails", parent["id"])["variants"]] == [len(a), len(b)]


def test_a_batch_edit_of_an_email_restarts_its_test(api, drain, frozen):
    parent, child, a, b = _ab_test(api, drain, "email.openrate", "<html><body>Hi</body></html>", contacts=4)
    frozen.advance(minutes=1)
    batch = api.patch("/api/emails/batch/edit", [{"id": parent["id"], "subject": "A2"}])
    assert batch.json["statusCodes"] == [200]
    assert _emails_state(api, parent, child) == [(0, 0, clock.now_iso())] * 2


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_restart_costs_a_counter_read_and_rides_in_the_edits_transaction(api, source_ip):
    from tests.bench.conftest import dynamodb_calls

    parent, child = ab_test(api, 50)
    _visits(api, source_ip, parent, [parent["id"], child["id"]])
    costs = {}
    for name, title in (("warm", "Offer B"), ("unchanged", "Offer B"), ("restart", "Offer B, new")):
        with dynamodb_calls() as calls:
            assert api.patch(f"/api/pages/{child['id']}/edit", {"title": title}).status_code == 200
        costs[name] = dict(calls)
    assert _state(api, parent, child)[0][0] == 0
    ops = set(costs["restart"]) | set(costs["unchanged"])
    more = {op: costs["restart"].get(op, 0) - costs["unchanged"].get(op, 0) for op in ops}
    # the parent (read anyway for the answer's `variantParent`) and the child put with the edit in one
    # TransactWriteItems, the test's `variantHits` shards read in one BatchGetItem
    assert {op: n for op, n in more.items() if n} == {"BatchGetItem": 1, "PutItem": -1, "TransactWriteItems": 1}, costs
