"""Batch endpoints (compat section 6): `/<prefix>/batch/new`, PATCH/PUT `/<prefix>/batch/edit`,
`/<prefix>/batch/delete?ids=`, per-item `statusCodes` and `errors`, the 200-item limit."""

import pytest

from tests.api.payloads import RESOURCES, assert_error

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
NOT_FOUND = {"message": "Item was not found.", "code": 404, "type": "api"}
ID_MISSING = {"message": "ID is missing from the payload.", "code": 400, "type": "api"}
LIMIT = "A max of 200 entities are supported at a time."


def email(contact):
    return contact["fields"]["all"]["email"]


def value(contact, alias):
    return contact["fields"]["all"][alias]


def contact(api, **body):
    r = api.post("/api/contacts/new", body)
    assert r.status_code == 201, r.json
    return r.json["contact"]


def total(api, prefix="contacts"):
    r = api.get(f"/api/{prefix}")
    assert r.status_code == 200, r.json
    return int(r.json["total"])


def get(api, contact_id):
    r = api.get(f"/api/contacts/{contact_id}")
    return r.json["contact"] if r.status_code == 200 else None


def assert_validation_error(error, status, field):
    """A form-validation item error: {"code", "message", "details", "type": null}."""
    assert set(error) == {"code", "message", "details", "type"}, error
    assert error["code"] == status and error["type"] is None
    assert field in error["message"]
    assert isinstance(error["details"], dict) and error["details"][field]


# --- batch/new --------------------------------------------------------------------------------------


def test_new_creates_every_item_in_request_order(api):
    r = api.post(
        "/api/contacts/batch/new",
        [
            {"email": "a@example.com", "firstname": "A"},
            {"email": "b@example.com", "firstname": "B"},
            {"email": "c@example.com", "firstname": "C"},
        ],
    )
    assert r.status_code == 201, r.json
    assert set(r.json) == {"contacts", "statusCodes"}  # no `errors` when nothing failed
    assert r.json["statusCodes"] == [201, 201, 201]
    contacts = r.json["contacts"]
    assert isinstance(contacts, list)
    assert [email(c) for c in contacts] == ["a@example.com", "b@example.com", "c@example.com"]
    assert contacts[0]["id"] and len({c["id"] for c in contacts}) == 3
    assert "fields" in contacts[0] and value(contacts[1], "firstname") == "B"
    assert "Location" not in r.headers
    assert r.headers["Mautic-Version"]
    assert get(api, contacts[2]["id"])["fields"]["all"]["firstname"] == "C"
    assert total(api) == 3


def test_new_invalid_item_does_not_stop_the_others(api):
    r = api.post(
        "/api/contacts/batch/new", [{"email": "a@example.com"}, {"email": "not-an-email"}, {"email": "c@example.com"}]
    )
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201, 400, 201]
    # the failed item leaves a gap: the collection is keyed by input index
    contacts = r.json["contacts"]
    assert isinstance(contacts, dict) and list(contacts) == ["0", "2"]
    assert email(contacts["0"]) == "a@example.com" and email(contacts["2"]) == "c@example.com"
    assert list(r.json["errors"]) == ["1"]
    assert_validation_error(r.json["errors"]["1"], 400, "email")
    # nothing of the invalid item was written
    assert total(api) == 2
    listed = api.get("/api/contacts?search=email:not-an-email").json
    assert int(listed["total"]) == 0


def test_new_trailing_failure_keeps_an_array_and_leading_failure_an_object(api):
    r = api.post("/api/contacts/batch/new", [{"email": "a@example.com"}, {"email": "bad"}])
    assert r.json["statusCodes"] == [201, 400]
    assert isinstance(r.json["contacts"], list) and [email(c) for c in r.json["contacts"]] == ["a@example.com"]
    assert isinstance(r.json["errors"], dict) and list(r.json["errors"]) == ["1"]

    r = api.post("/api/contacts/batch/new", [{"email": "bad"}, {"email": "b@example.com"}])
    assert r.json["statusCodes"] == [400, 201]
    assert list(r.json["contacts"]) == ["1"] and email(r.json["contacts"]["1"]) == "b@example.com"
    # errors at indexes 0..n-1 only render as an array, as PHP does
    assert isinstance(r.json["errors"], list) and r.json["errors"][0]["code"] == 400


def test_new_item_that_is_not_an_object(api):
    r = api.post("/api/contacts/batch/new", [5, {"email": "b@example.com"}])
    assert r.status_code == 201
    assert r.json["statusCodes"] == [400, 201]
    assert r.json["errors"][0]["code"] == 400 and r.json["errors"][0]["type"] is None
    assert email(r.json["contacts"]["1"]) == "b@example.com"


def test_new_dedupes_each_item_with_status_200(api):
    existing = contact(api, email="ann@example.com", firstname="Ann", city="Prague")
    r = api.post(
        "/api/contacts/batch/new",
        [
            {"email": "ann@example.com", "firstname": "Anna"},
            {"email": "bob@example.com"},
            {"email": "bob@example.com", "lastname": "Builder"},
        ],
    )
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [200, 201, 200]
    ann, bob, bob_again = r.json["contacts"]
    assert ann["id"] == existing["id"]
    assert value(ann, "firstname") == "Anna" and value(ann, "city") == "Prague"  # matched: updated, not replaced
    assert bob_again["id"] == bob["id"] and value(bob_again, "lastname") == "Builder"
    assert total(api) == 2


def test_new_dedupes_whatever_the_case_and_spaces_of_the_email(api):
    existing = contact(api, email="ann@example.com")
    r = api.post(
        "/api/contacts/batch/new",
        [
            {"email": " ANN@example.com", "city": "Brno"},
            {"email": "Bob@Example.com"},
            {"email": "bob@example.com "},
            {"email": "not-an-email"},
            {"email": "cid@example.com"},
        ],
    )
    assert r.json["statusCodes"] == [200, 201, 200, 400, 201], r.json
    ann, bob, bob_again, cid = (r.json["contacts"][k] for k in ("0", "1", "2", "4"))
    assert ann["id"] == existing["id"] and value(ann, "city") == "Brno"
    assert bob_again["id"] == bob["id"] and existing["id"] < bob["id"] < cid["id"]
    assert total(api) == 3
    assert contact(api, email="dan@example.com")["id"] > cid["id"]


def test_new_contacts_get_their_own_timeline_events(api):
    r = api.post("/api/contacts/batch/new", [{"email": f"c{n}@example.com", "firstname": f"C{n}"} for n in range(4)])
    event_ids = []
    for created in r.json["contacts"]:
        events = api.get(f"/api/contacts/{created['id']}/activity").json["events"]
        assert [e["event"] for e in events] == ["lead.identified"] and events[0]["contactId"] == created["id"]
        event_ids.append(events[0]["eventId"])
    assert len(set(event_ids)) == 4


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_new_costs_a_few_calls_per_batch_whatever_its_size(api):
    from tests.bench.conftest import dynamodb_calls

    contact(api, email="existing@example.com")

    def calls_of_batch(size, name):
        body = [{"email": f"{name}{n}@example.com", "firstname": "B"} for n in range(size)]
        with dynamodb_calls() as calls:
            r = api.post("/api/contacts/batch/new", body + [{"email": "existing@example.com"}])
        assert r.json["statusCodes"] == [201] * size + [200]
        return calls

    small, large = calls_of_batch(5, "small"), calls_of_batch(25, "large")
    # the new contacts are stored together, the duplicate is edited (one item: a conditional PutItem, no
    # transaction): ids and look-ups per batch
    assert large["TransactWriteItems"] == small["TransactWriteItems"] == 1
    assert large["PutItem"] == small["PutItem"] == 1
    assert sum(large.values()) == sum(small.values())
    assert total(api) == 31


def test_new_contacts_stored_together_are_each_whole(api):
    r = api.post("/api/contacts/batch/new", [{"email": f"g{n}@example.com", "firstname": f"G{n}"} for n in range(120)])
    assert r.json["statusCodes"] == [201] * 120
    created = r.json["contacts"]
    assert total(api) == 120 and len({c["id"] for c in created}) == 120
    for n in (0, 59, 119):
        found = get(api, created[n]["id"])
        assert email(found) == f"g{n}@example.com" and value(found, "firstname") == f"G{n}"
        events = api.get(f"/api/contacts/{created[n]['id']}/activity").json["events"]
        assert [e["event"] for e in events] == ["lead.identified"]
    assert int(api.get("/api/contacts?search=email:g119@example.com").json["total"]) == 1


def test_a_write_refused_when_the_group_is_stored_is_reported_on_its_item(api, monkeypatch):
    from chalicelib.domain.kernel import batching

    taken = contact(api, email="taken@example.com")
    real = batching.store.lookup_many
    # a concurrent request claimed the email after this batch looked it up
    monkeypatch.setattr(
        batching.store,
        "lookup_many",
        lambda kind, pairs: {
            pair: (None if pair[1] == "taken@example.com" else found) for pair, found in real(kind, pairs).items()
        },
    )
    r = api.post(
        "/api/contacts/batch/new",
        [{"email": "a1@example.com"}, {"email": "taken@example.com"}, {"email": "a2@example.com"}],
    )
    assert r.status_code == 201
    assert r.json["statusCodes"] == [201, 400, 201]
    assert r.json["errors"]["1"]["code"] == 400 and "This value is already used." in str(r.json["errors"]["1"])
    assert sorted(r.json["contacts"]) == ["0", "2"]
    assert total(api) == 3 and get(api, taken["id"]) is not None


def test_new_ignores_id_in_items(api):
    r = api.post("/api/contacts/batch/new", [{"id": 999, "email": "a@example.com"}])
    assert r.json["statusCodes"] == [201]
    assert r.json["contacts"][0]["id"] != 999
    assert get(api, 999) is None


def test_new_empty_batch(api):
    for body in ([], None):
        r = api.post("/api/contacts/batch/new", body)
        assert r.status_code == 201, r.json
        assert r.json == {"contacts": [], "statusCodes": []}


@pytest.mark.parametrize(
    "body", [{"email": "a@example.com"}, "a@example.com", 5, {"a": {"email": "a@example.com"}, "b": 5}]
)
def test_new_non_array_body_is_400(api, body):
    r = api.post("/api/contacts/batch/new", body)
    assert_error(r, 400)
    assert total(api) == 0


def test_new_associative_keys_are_echoed(api):
    r = api.post("/api/contacts/batch/new", {"first": {"email": "a@example.com"}, "second": {"email": "bad"}})
    assert r.status_code == 201
    assert r.json["statusCodes"] == {"first": 201, "second": 400}
    assert list(r.json["contacts"]) == ["first"] and list(r.json["errors"]) == ["second"]


def test_new_form_encoded_body(api):
    raw = b"0[email]=a%40example.com&0[firstname]=A&1[email]=b%40example.com"
    r = api.post("/api/contacts/batch/new", raw=raw, headers=FORM)
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201, 201]
    assert [email(c) for c in r.json["contacts"]] == ["a@example.com", "b@example.com"]
    assert value(r.json["contacts"][0], "firstname") == "A"


# --- the 200-item limit -------------------------------------------------------------------------------


def test_more_than_200_items_is_an_error_and_writes_nothing(api):
    body = [{"email": f"c{n}@example.com"} for n in range(201)]
    r = api.post("/api/contacts/batch/new", body)
    assert_error(r, 400, message=LIMIT)
    assert r.json["errors"][0]["details"] == [] and r.json["errors"][0]["type"] is None
    assert total(api) == 0
    c = contact(api, email="keep@example.com")
    r = api.patch("/api/contacts/batch/edit", [{"id": c["id"], "firstname": "X"}] * 201)
    assert_error(r, 400, message=LIMIT)
    r = api.put("/api/contacts/batch/edit", [{"id": c["id"], "email": "keep@example.com"}] * 201)
    assert_error(r, 400, message=LIMIT)
    r = api.delete("/api/contacts/batch/delete?ids=" + ",".join([str(c["id"])] * 201))
    assert_error(r, 400, message=LIMIT)
    kept = get(api, c["id"])
    assert kept is not None and value(kept, "firstname") is None


def test_limit_boundary(api, configure):

    configure(BATCH_MAX=3)
    r = api.post("/api/contacts/batch/new", [{"email": f"c{n}@example.com"} for n in range(3)])
    assert r.status_code == 201 and r.json["statusCodes"] == [201, 201, 201]
    r = api.post("/api/contacts/batch/new", [{"email": f"d{n}@example.com"} for n in range(4)])
    assert_error(r, 400, message="A max of 3 entities are supported at a time.")
    assert total(api) == 3


# --- batch/edit -------------------------------------------------------------------------------------


def test_patch_edits_each_item(api):
    a = contact(api, email="a@example.com", city="Prague")
    b = contact(api, email="b@example.com", city="Brno")
    r = api.patch("/api/contacts/batch/edit", [{"id": a["id"], "firstname": "A"}, {"id": b["id"], "firstname": "B"}])
    assert r.status_code == 200, r.json
    assert set(r.json) == {"contacts", "statusCodes"}
    assert r.json["statusCodes"] == [200, 200]
    assert [c["id"] for c in r.json["contacts"]] == [a["id"], b["id"]]
    assert value(r.json["contacts"][0], "firstname") == "A" and value(r.json["contacts"][0], "city") == "Prague"
    assert value(get(api, b["id"]), "firstname") == "B" and value(get(api, b["id"]), "city") == "Brno"
    assert "Location" not in r.headers


def test_patch_unknown_id_is_an_item_404(api):
    a = contact(api, email="a@example.com")
    r = api.patch("/api/contacts/batch/edit", [{"id": 9999, "firstname": "X"}, {"id": a["id"], "firstname": "A"}])
    assert r.status_code == 200, r.json
    assert r.json["statusCodes"] == [404, 200]
    assert r.json["errors"] == [NOT_FOUND]
    assert list(r.json["contacts"]) == ["1"] and r.json["contacts"]["1"]["id"] == a["id"]
    assert total(api) == 1


def test_put_unknown_id_creates_with_201(api):
    a = contact(api, email="a@example.com", city="Prague")
    r = api.put(
        "/api/contacts/batch/edit",
        [{"id": a["id"], "email": "a@example.com", "firstname": "A"}, {"id": 9999, "email": "new@example.com"}],
    )
    assert r.status_code == 200, r.json
    assert r.json["statusCodes"] == [200, 201]
    edited, created = r.json["contacts"]
    assert edited["id"] == a["id"] and value(edited, "city") is None  # PUT clears what it does not send
    assert created["id"] not in (a["id"], 9999) and email(created) == "new@example.com"
    assert get(api, created["id"]) is not None and get(api, 9999) is None
    assert "errors" not in r.json


@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_edit_item_without_id_is_an_item_400(api, method):
    a = contact(api, email="a@example.com")
    body = [{"email": "x@example.com"}, {"id": a["id"], "email": "a@example.com", "firstname": "A"}, {"id": ""}]
    r = api.call(method, "/api/contacts/batch/edit", body)
    assert r.status_code == 200, r.json
    assert r.json["statusCodes"] == [400, 200, 400]
    assert r.json["errors"] == {"0": ID_MISSING, "2": ID_MISSING}
    assert list(r.json["contacts"]) == ["1"]
    assert total(api) == 1  # a PUT without id creates nothing


def test_edit_invalid_item_is_not_written_and_others_are(api):
    a = contact(api, email="a@example.com", firstname="A")
    b = contact(api, email="b@example.com", firstname="B")
    r = api.patch(
        "/api/contacts/batch/edit",
        [{"id": a["id"], "email": "broken", "firstname": "Changed"}, {"id": b["id"], "firstname": "Bee"}],
    )
    assert r.status_code == 200
    assert r.json["statusCodes"] == [400, 200]
    assert_validation_error(r.json["errors"][0], 400, "email")
    assert list(r.json["contacts"]) == ["1"] and value(r.json["contacts"]["1"], "firstname") == "Bee"
    unchanged = get(api, a["id"])
    assert email(unchanged) == "a@example.com" and value(unchanged, "firstname") == "A"


def test_edit_non_array_body_is_400(api):
    a = contact(api, email="a@example.com")
    r = api.patch("/api/contacts/batch/edit", {"id": a["id"], "firstname": "X"})
    assert_error(r, 400)
    assert value(get(api, a["id"]), "firstname") is None


def test_edit_empty_batch(api):
    r = api.patch("/api/contacts/batch/edit", [])
    assert r.status_code == 200 and r.json == {"contacts": [], "statusCodes": []}


# --- batch/delete -----------------------------------------------------------------------------------


def test_delete_comma_separated_ids(api):
    a, b, c = (contact(api, email=f"{n}@example.com") for n in "abc")
    r = api.delete(f"/api/contacts/batch/delete?ids={c['id']},{a['id']}")
    assert r.status_code == 200, r.json
    assert set(r.json) == {"contacts"}  # no statusCodes on delete, no errors when all were found
    deleted = r.json["contacts"]
    assert [d["id"] for d in deleted] == [c["id"], a["id"]]  # ids intact, request order
    assert email(deleted[0]) == "c@example.com"
    assert get(api, a["id"]) is None and get(api, c["id"]) is None and get(api, b["id"]) is not None


def test_delete_array_ids(api):
    a, b = (contact(api, email=f"{n}@example.com") for n in "ab")
    r = api.delete(f"/api/contacts/batch/delete?ids[]={a['id']}&ids[]={b['id']}")
    assert r.status_code == 200, r.json
    assert [d["id"] for d in r.json["contacts"]] == [a["id"], b["id"]]
    assert total(api) == 0


def test_delete_unknown_ids_are_omitted_and_reported(api):
    a, b = (contact(api, email=f"{n}@example.com") for n in "ab")
    r = api.delete(f"/api/contacts/batch/delete?ids={a['id']},9999,{b['id']},abc")
    assert r.status_code == 200, r.json
    assert r.json["contacts"] == {"0": r.json["contacts"]["0"], "2": r.json["contacts"]["2"]}
    assert r.json["contacts"]["0"]["id"] == a["id"] and r.json["contacts"]["2"]["id"] == b["id"]
    assert r.json["errors"] == {"1": NOT_FOUND, "3": NOT_FOUND}
    assert total(api) == 0
    # a second delete of the same ids finds nothing
    r = api.delete(f"/api/contacts/batch/delete?ids[]={a['id']}")
    assert r.status_code == 200 and r.json == {"contacts": [], "errors": [NOT_FOUND]}


def test_delete_without_ids_is_an_empty_batch(api):
    contact(api, email="a@example.com")
    for query in ("", "?ids="):
        r = api.delete(f"/api/contacts/batch/delete{query}")
        assert r.status_code == 200 and r.json == {"contacts": []}
    assert total(api) == 1


# --- routing ----------------------------------------------------------------------------------------


def test_batch_paths_do_not_shadow_the_single_entity_routes(api):
    a = contact(api, email="a@example.com")
    r = api.patch(f"/api/contacts/{a['id']}/edit", {"firstname": "Single"})
    assert r.status_code == 200 and value(r.json["contact"], "firstname") == "Single"
    r = api.delete(f"/api/contacts/{a['id']}/delete")
    assert r.status_code == 200
    r = api.get("/api/contacts/batch")
    assert_error(r, 404)


def test_batch_wrong_method_is_405(api):
    r = api.post("/api/contacts/batch/edit", [])
    assert_error(r, 405)
    assert set(r.headers["Allow"].split(", ")) == {"PATCH", "PUT"}
    r = api.get("/api/contacts/batch/new")
    assert_error(r, 405)


def test_batch_requires_authentication(api):
    r = api.post("/api/contacts/batch/new", [{"email": "a@example.com"}], auth=False)
    assert r.status_code == 401
    assert total(api) == 0


# --- other resources --------------------------------------------------------------------------------


def test_companies_batch(api):
    r = api.post("/api/companies/batch/new", [{"companyname": "Acme"}, {"companyname": "Beta"}])
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201, 201]
    acme, beta = r.json["companies"]
    assert acme["fields"]["all"]["companyname"] == "Acme"
    r = api.patch("/api/companies/batch/edit", [{"id": beta["id"], "companycity": "Brno"}, {"id": 9999}])
    assert r.status_code == 200 and r.json["statusCodes"] == [200, 404]
    assert r.json["companies"][0]["fields"]["all"]["companycity"] == "Brno"
    assert r.json["errors"] == {"1": NOT_FOUND}
    r = api.delete(f"/api/companies/batch/delete?ids={acme['id']},{beta['id']}")
    assert r.status_code == 200 and [c["id"] for c in r.json["companies"]] == [acme["id"], beta["id"]]
    assert total(api, "companies") == 0


@pytest.mark.parametrize("res", [r for r in RESOURCES if r.put], ids=str)
def test_every_standard_resource_has_batch(api, res):
    r = api.post(f"{res.base}/batch/new", [res.create])
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201], r.json
    created = r.json[res.plural][0]
    r = api.patch(f"{res.base}/batch/edit", [{"id": created["id"], res.name: "Renamed"}])
    assert r.status_code == 200 and r.json["statusCodes"] == [200], r.json
    assert res.value(r.json[res.plural][0], res.name) == "Renamed"
    r = api.delete(f"{res.base}/batch/delete?ids[]={created['id']}")
    assert r.status_code == 200 and [e["id"] for e in r.json[res.plural]] == [created["id"]], r.json
    assert api.get(f"{res.base}/{created['id']}").status_code == 404


def test_contact_fields_created_in_one_batch_see_each_other(api):
    """Custom field definitions (a cached kind): each item sees the writes of the items before it,
    and the new fields are writable on contacts at once."""
    r = api.post(
        "/api/fields/contact/batch/new",
        [
            {"label": "Shoe size", "type": "number"},
            {"label": "Shoe size", "type": "text"},
            {"label": "Hat size", "alias": "hat", "type": "text"},
        ],
    )
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201, 201, 201]
    first, second, hat = r.json["fields"]
    assert (first["alias"], second["alias"], hat["alias"]) == ("shoe_size", "shoe_size1", "hat")
    c = contact(api, email="a@example.com", hat="big", **{first["alias"]: 42})
    assert value(c, "hat") == "big" and value(c, first["alias"]) == 42


def _create_failing(monkeypatch, email, error):
    """`service.create` raising `error` for the contact of `email`, creating the others."""
    from chalicelib.domain.kernel import service

    real = service.create

    def failing(resource, payload, ctx, system=None):
        if payload.get("email") == email:
            raise error
        return real(resource, payload, ctx, system)

    monkeypatch.setattr(service, "create", failing)


def test_unexpected_failure_of_one_item_spoils_nothing_else(api, monkeypatch):
    _create_failing(monkeypatch, "boom@example.com", RuntimeError("boom"))
    r = api.post("/api/contacts/batch/new", [{"email": "boom@example.com"}, {"email": "b@example.com"}])
    assert r.status_code == 201
    assert r.json["statusCodes"] == [500, 201]
    assert r.json["errors"][0]["code"] == 500 and "boom" not in r.json["errors"][0]["message"]
    assert list(r.json["contacts"]) == ["1"]
    assert total(api) == 1


def test_unknown_batch_action_is_the_unknown_path_404(api):
    from chalicelib.api.errors import NOT_FOUND_PATH

    for method in ("GET", "POST", "DELETE"):
        r = api.call(method, "/api/contacts/batch/remove")
        assert r.status_code == 404 and r.json == NOT_FOUND_PATH


def test_an_item_whose_dependency_is_unavailable_is_its_503_and_the_answer_says_when_to_retry(api, monkeypatch):
    from chalicelib import config
    from chalicelib.api.errors import UNAVAILABLE
    from devstack.memory.faults import Outage

    _create_failing(monkeypatch, "busy@example.com", Outage("DynamoDB throttled past the SDK's retries"))
    r = api.post("/api/contacts/batch/new", [{"email": "busy@example.com"}, {"email": "b@example.com"}])
    assert r.status_code == 201 and r.headers["Retry-After"] == str(config.active().RETRY_AFTER_SECONDS)
    assert r.json["statusCodes"] == [503, 201]
    assert r.json["errors"][0] == {"code": 503, "message": UNAVAILABLE, "details": [], "type": None}
    assert list(r.json["contacts"]) == ["1"] and total(api) == 1


def test_a_grouped_write_the_store_could_not_make_for_now_is_its_items_503(api, monkeypatch):
    from chalicelib.domain.kernel import batching
    from devstack.memory.faults import Outage

    real = batching.store.create_many

    def one_throttled(entries):
        down = [entry.get("email") == "busy@example.com" for entry in entries]
        stored = iter(real([entry for entry, no in zip(entries, down, strict=True) if not no]))
        return [Outage("throttled") if no else next(stored) for no in down]

    monkeypatch.setattr(batching.store, "create_many", one_throttled)
    r = api.post("/api/contacts/batch/new", [{"email": "a@example.com"}, {"email": "busy@example.com"}])
    assert r.status_code == 201 and r.json["statusCodes"] == [201, 503] and r.json["errors"]["1"]["code"] == 503
    assert r.headers["Retry-After"]
    assert total(api) == 1


def test_a_batch_without_an_unavailable_item_has_no_retry_after(api):
    r = api.post("/api/contacts/batch/new", [{"email": "a@example.com"}, {"email": "not-an-email"}])
    assert r.json["statusCodes"] == [201, 400] and "Retry-After" not in r.headers


@pytest.mark.aws  # about AWS (its write calls counted, a throttled SQS call): over moto
def test_an_item_stored_before_its_dependency_failed_is_not_a_503_to_send_again(api, monkeypatch):
    """A segment's create is stored, then queueing its rebuild stays throttled: answering its item 503
    (send it again, `Retry-After`) would make the client's resend a second segment. Its outcome is
    unknown to the client, as a single request's under an `Idempotency-Key`: a 409 to read first."""
    from botocore.exceptions import ClientError

    from chalicelib.domain.segments import rebuilds
    from tests.api.test_segments import city_filter

    def throttled(segment_id, generation):
        raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "SendMessage")

    monkeypatch.setattr(rebuilds, "enqueue", throttled)
    r = api.post("/api/segments/batch/new", [{"name": "Pragueans", "filters": [city_filter()]}])
    assert total(api, "segments") == 1  # stored before the queue failed
    assert r.json["statusCodes"] == [409] and "Retry-After" not in r.headers, r.json
    assert r.json["errors"][0]["type"] == "outcome_unknown"
