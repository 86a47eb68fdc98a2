"""Issue 34: a parent lists its translations and A/B variants. A document created with
`translationParent` (or `variantParent`) shows in its parent's `translationChildren`
(`variantChildren`), in a GET and in a list, as the children's summaries, published ones first
(Mautic: `CoreBundle/Entity/TranslationEntityTrait.php`, `VariantEntityTrait.php`, orderBy
`isPublished DESC`); a child moved to another parent, detached, deleted or PUT without its parent
leaves the list; a deleted parent leaves its children, which then show no parent. A limited user sees
only the id of a child she may not view, and may not attach a child to a parent she may not edit."""

import json

import pytest

from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, _as
from tests.bench.conftest import dynamodb_calls

# prefix, singular, plural, the title attribute, the children lists it has
RESOURCES = {
    "emails": ("email", "emails", "name", ("translation", "variant")),
    "pages": ("page", "pages", "title", ("translation", "variant")),
    "dynamiccontents": ("dynamicContent", "dynamicContents", "name", ("variant",)),
}
CASES = [(prefix, link) for prefix, (*_, links) in RESOURCES.items() for link in links]
EMAILS = {"email:emails": ["viewown", "editown", "create", "deleteown", "publishown"]}


def _new(api, prefix, title, **extra):
    singular, _, name, _ = RESOURCES[prefix]
    response = api.post(f"/api/{prefix}/new", {name: title, **extra})
    assert response.status_code == 201, response.json
    return response.json[singular]


def _get(api, prefix, entity_id):
    response = api.get(f"/api/{prefix}/{entity_id}")
    assert response.status_code == 200, response.json
    return response.json[RESOURCES[prefix][0]]


def _listed(api, prefix, entity_id):
    collection = api.get(f"/api/{prefix}?search=ids:{entity_id}").json[RESOURCES[prefix][1]]
    (found,) = [e for e in (collection.values() if isinstance(collection, dict) else collection)]
    return found


def _children(api, prefix, link, parent_id):
    """The ids the parent lists, read by a GET and by a list (they must agree)."""
    key = f"{link}Children"
    got = [child["id"] for child in _get(api, prefix, parent_id)[key]]
    assert [child["id"] for child in _listed(api, prefix, parent_id)[key]] == got
    return got


def _edit(api, prefix, entity_id, body, method="PATCH"):
    response = api.call(method, f"/api/{prefix}/{entity_id}/edit", body)
    assert response.status_code == 200, response.json
    return response.json[RESOURCES[prefix][0]]


@pytest.mark.parametrize(("prefix", "link"), CASES)
def test_a_parent_lists_its_children_as_they_come_move_and_go(api, prefix, link):
    parent_key = f"{link}Parent"
    parent, other = _new(api, prefix, "Parent"), _new(api, prefix, "Other")
    first = _new(api, prefix, "First", **{parent_key: parent["id"]})
    second = _new(api, prefix, "Second", **{parent_key: {"id": parent["id"]}})
    assert first[parent_key]["id"] == parent["id"]
    assert _children(api, prefix, link, parent["id"]) == [first["id"], second["id"]]

    _edit(api, prefix, first["id"], {parent_key: other["id"]})  # re-parented
    assert _children(api, prefix, link, parent["id"]) == [second["id"]]
    assert _children(api, prefix, link, other["id"]) == [first["id"]]

    _edit(api, prefix, second["id"], {parent_key: None})  # detached
    assert _children(api, prefix, link, parent["id"]) == []
    _edit(api, prefix, second["id"], {parent_key: parent["id"]})
    _edit(api, prefix, second["id"], {RESOURCES[prefix][2]: "Second, renamed"})  # the parent not named: kept
    assert _children(api, prefix, link, parent["id"]) == [second["id"]]

    assert api.delete(f"/api/{prefix}/{first['id']}/delete").status_code == 200  # a child deleted
    assert _children(api, prefix, link, other["id"]) == []

    assert api.delete(f"/api/{prefix}/{parent['id']}/delete").status_code == 200  # its parent deleted
    orphan = _get(api, prefix, second["id"])
    assert orphan[parent_key] is None
    assert _edit(api, prefix, second["id"], {RESOURCES[prefix][2]: "Orphan"})[parent_key] is None


def test_children_show_as_summaries_published_first(api):
    parent = _new(api, "emails", "Welcome", subject="Hi", language="en")
    draft = _new(
        api, "emails", "Vitejte", subject="Ahoj", language="cs", isPublished=False, translationParent=parent["id"]
    )
    live = _new(api, "emails", "Willkommen", subject="Hallo", language="de", translationParent=parent["id"])
    shown = _get(api, "emails", parent["id"])
    assert shown["translationChildren"] == [
        {"id": live["id"], "name": "Willkommen", "subject": "Hallo", "language": "de", "category": None},
        {"id": draft["id"], "name": "Vitejte", "subject": "Ahoj", "language": "cs", "category": None},
    ]
    assert shown["variantChildren"] == [] and shown["translationParent"] is None
    assert _get(api, "emails", live["id"])["translationChildren"] == []
    page = _new(api, "pages", "Home")
    variant = _new(api, "pages", "Home B", variantParent=page["id"])
    assert _get(api, "pages", page["id"])["variantChildren"] == [
        {"id": variant["id"], "title": "Home B", "alias": variant["alias"], "category": None}
    ]


def test_a_child_that_is_a_translation_and_a_variant_of_one_parent_is_in_both_lists(api):
    parent = _new(api, "emails", "Parent")
    both = _new(api, "emails", "Both", translationParent=parent["id"], variantParent=parent["id"])
    shown = _get(api, "emails", parent["id"])
    assert [c["id"] for c in shown["translationChildren"]] == [both["id"]]
    assert [c["id"] for c in shown["variantChildren"]] == [both["id"]]
    assert api.delete(f"/api/emails/{both['id']}/delete").status_code == 200
    shown = _get(api, "emails", parent["id"])
    assert shown["translationChildren"] == [] and shown["variantChildren"] == []


def test_a_put_without_the_parent_detaches_and_the_lists_are_never_written_by_clients(api):
    parent = _new(api, "pages", "Parent")
    child = _new(api, "pages", "Child", translationParent=parent["id"])
    _edit(api, "pages", parent["id"], {"title": "Parent", "translationChildren": [], "variantChildren": [999]}, "PUT")
    assert _children(api, "pages", "translation", parent["id"]) == [child["id"]]
    assert _get(api, "pages", parent["id"])["variantChildren"] == []
    _edit(api, "pages", child["id"], {"title": "Child"}, "PUT")
    assert _children(api, "pages", "translation", parent["id"]) == []


def test_a_batch_of_children_of_one_parent_lists_them_all(api):
    parent = _new(api, "emails", "Parent")
    body = [{"name": f"Child {n}", "translationParent": parent["id"]} for n in range(3)]
    response = api.post("/api/emails/batch/new", body)
    assert response.status_code == 201, response.json
    made = sorted(e["id"] for e in response.json["emails"])
    assert _children(api, "emails", "translation", parent["id"]) == made


def test_a_document_can_not_be_its_own_parent(api):
    email = _new(api, "emails", "Self")
    response = api.patch(f"/api/emails/{email['id']}/edit", {"variantParent": email["id"]})
    assert_error(response, 400, field="variantParent")
    assert _get(api, "emails", email["id"])["variantParent"] is None


def test_a_limited_user_sees_only_the_id_of_a_child_she_may_not_view(api):
    mallory = _as(api, "mallory", EMAILS)
    mine = mallory.post("/api/emails/new", {"name": "Mine", "subject": "S"}).json["email"]
    theirs = _new(api, "emails", "Secret translation", subject="Top secret", translationParent=mine["id"])
    response = mallory.get(f"/api/emails/{mine['id']}")
    assert response.json["email"]["translationChildren"] == [{"id": theirs["id"]}]
    listed = mallory.get("/api/emails")
    assert listed.json["emails"][str(mine["id"])]["translationChildren"] == [{"id": theirs["id"]}]
    for answer in (response, listed):
        assert "Secret translation" not in json.dumps(answer.json) and "Top secret" not in json.dumps(answer.json)


def test_a_limited_user_may_not_attach_a_child_to_a_parent_she_may_not_edit(api):
    mallory = _as(api, "mallory", EMAILS)
    theirs = _new(api, "emails", "Theirs")
    before = _get(api, "emails", theirs["id"])
    response = mallory.post("/api/emails/new", {"name": "Probe", "translationParent": theirs["id"]})
    assert_error(response, 403, message=FORBIDDEN)
    mine = mallory.post("/api/emails/new", {"name": "Mine"}).json["email"]
    response = mallory.patch(f"/api/emails/{mine['id']}/edit", {"variantParent": theirs["id"]})
    assert_error(response, 403, message=FORBIDDEN)
    assert _get(api, "emails", theirs["id"]) == before
    assert mallory.get(f"/api/emails/{mine['id']}").json["email"]["variantParent"] is None
    # her own child of a parent of hers, then moved to theirs: refused; detached from hers: allowed
    parent = mallory.post("/api/emails/new", {"name": "My parent"}).json["email"]
    child = mallory.post("/api/emails/new", {"name": "My child", "translationParent": parent["id"]})
    assert child.status_code == 201, child.json
    child_id = child.json["email"]["id"]
    assert_error(mallory.patch(f"/api/emails/{child_id}/edit", {"translationParent": theirs["id"]}), 403)
    assert mallory.patch(f"/api/emails/{child_id}/edit", {"translationParent": None}).status_code == 200
    assert mallory.get(f"/api/emails/{parent['id']}").json["email"]["translationChildren"] == []


def _new_form(api):
    response = api.post("/api/forms/new", {"name": "Unsubscribe"})
    assert response.status_code == 201, response.json
    return response.json["form"]["id"]


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_what_children_cost_in_dynamodb_calls(api):
    """Reading a parent costs what reading any email that references something costs (its children
    are read in the one BatchGetItem of what it references); a child's write puts its parents in its
    transaction and reads the parent it leaves (the one it joins is read by the reference check);
    a write that moves no parent reference, or a parent's delete, writes what it did."""
    parent, other = _new(api, "emails", "Parent"), _new(api, "emails", "Other")

    def calls(method, path, body=None):
        with dynamodb_calls() as counted:
            assert api.call(method, path, body).status_code in (200, 201)
        return dict(counted)

    def more(counts, **extra):
        return {op: n for op in {*counts, *extra} if (n := counts.get(op, 0) + extra.get(op, 0))}

    referencing = _new(api, "emails", "Referencing", unsubscribeForm=_new_form(api))
    referencing_get = calls("GET", f"/api/emails/{referencing['id']}")  # versions, email, its counts, the form
    plain_create = calls("POST", "/api/emails/new", {"name": "Plain", "unsubscribeForm": _new_form(api)})
    for n in range(5):
        _new(api, "emails", f"Child {n}", translationParent=parent["id"])
    assert calls("GET", f"/api/emails/{parent['id']}") == referencing_get
    assert calls("POST", "/api/emails/new", {"name": "Sixth", "translationParent": parent["id"]}) == plain_create
    first, second = (c["id"] for c in _get(api, "emails", parent["id"])["translationChildren"][:2])
    renamed = calls("PATCH", f"/api/emails/{first}/edit", {"name": "Renamed"})  # one PutItem, as before
    assert renamed == {"GetItem": 2, "BatchGetItem": 4, "PutItem": 1}
    moved = calls("PATCH", f"/api/emails/{first}/edit", {"translationParent": other["id"]})
    assert moved == more(renamed, BatchGetItem=1, PutItem=-1, TransactWriteItems=1)
    lone = _new(api, "emails", "Lone")
    lone_delete = calls("DELETE", f"/api/emails/{lone['id']}/delete")
    assert calls("DELETE", f"/api/emails/{second}/delete") == more(lone_delete, BatchGetItem=1)
    parent_delete = calls("DELETE", f"/api/emails/{parent['id']}/delete")  # no child written
    assert parent_delete == more(lone_delete, BatchGetItem=1)  # the answer shows its children
