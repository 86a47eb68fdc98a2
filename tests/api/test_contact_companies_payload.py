"""Issue 34: a contact payload's `companies` (LeadModel::modifyCompanies): the contact ends up in exactly
the companies listed, on create, PATCH, PUT and the batch routes, with the membership routes' primary
company, `company` field, webhooks and permission; bad or unknown ids are a 400 naming `companies`, a
company the caller may not view a 403, and a refused write changes nothing."""

import pytest

from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, _as
from tests.api.test_webhook_delivery import _events, _hook

SALES = {"lead:leads": ["viewown", "editown", "create"]}


@pytest.fixture
def firms(api):
    return [api.post("/api/companies/new", {"companyname": name}).json["company"]["id"] for name in ("Acme", "Globex")]


def linked(api, contact_id):
    r = api.get(f"/api/contacts/{contact_id}/companies")
    assert r.status_code == 200, r.json
    return [(c["id"], c["companyname"], c["is_primary"]) for c in r.json["companies"]]


def company_field(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]["fields"]["all"]["company"]


def test_create_links_the_listed_companies_first_one_primary(api, firms):
    acme, globex = firms
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme, str(globex)]})
    assert r.status_code == 201, r.json
    contact_id = r.json["contact"]["id"]
    assert linked(api, contact_id) == [(acme, "Acme", 1), (globex, "Globex", 0)]
    assert company_field(api, contact_id) == "Acme"
    assert r.json["contact"]["fields"]["all"]["company"] == "Acme"


def test_edit_adds_and_removes_to_match_the_list(api, firms):
    acme, globex = firms
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme]}).json["contact"]["id"]
    r = api.patch(f"/api/contacts/{contact_id}/edit", {"companies": [globex]})
    assert r.status_code == 200, r.json
    assert linked(api, contact_id) == [(globex, "Globex", 1)]
    assert company_field(api, contact_id) == "Globex"
    r = api.put(f"/api/contacts/{contact_id}/edit", {"email": "ann@example.com", "companies": [acme, globex]})
    assert r.status_code == 200, r.json
    assert linked(api, contact_id) == [(globex, "Globex", 1), (acme, "Acme", 0)]
    assert api.patch(f"/api/contacts/{contact_id}/edit", {"companies": []}).status_code == 200
    assert linked(api, contact_id) == [] and company_field(api, contact_id) is None


def test_without_companies_or_null_the_links_stay(api, firms):
    acme, _ = firms
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme]}).json["contact"]["id"]
    api.patch(f"/api/contacts/{contact_id}/edit", {"firstname": "Ann", "companies": None})
    api.put(f"/api/contacts/{contact_id}/edit", {"email": "ann@example.com"})
    assert linked(api, contact_id) == [(acme, "Acme", 1)]


def test_objects_with_id_as_read_from_the_companies_route(api, firms):
    acme, globex = firms
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme]}).json["contact"]["id"]
    read = api.get(f"/api/contacts/{contact_id}/companies").json["companies"]
    r = api.patch(f"/api/contacts/{contact_id}/edit", {"companies": read + [{"id": globex}]})
    assert r.status_code == 200, r.json
    assert [c[0] for c in linked(api, contact_id)] == [acme, globex]


def test_a_company_value_sent_wins_over_the_primary_name(api, firms):
    acme, _ = firms
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "company": "Freelance", "companies": [acme]})
    assert r.json["contact"]["fields"]["all"]["company"] == "Freelance"
    assert linked(api, r.json["contact"]["id"]) == [(acme, "Acme", 1)]


@pytest.mark.parametrize("value", [[999], ["x"], [0], "abc", [{"name": "Acme"}]])
def test_bad_or_unknown_ids_are_a_400_and_nothing_is_written(api, firms, value):
    acme, globex = firms
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme]}).json["contact"]["id"]
    before = api.get(f"/api/contacts/{contact_id}").json["contact"]
    r = api.patch(f"/api/contacts/{contact_id}/edit", {"companies": [globex, *value], "firstname": "Changed"})
    assert_error(r, 400, "companies")
    assert api.get(f"/api/contacts/{contact_id}").json["contact"] == before
    assert linked(api, contact_id) == [(acme, "Acme", 1)]
    r = api.post("/api/contacts/new", {"email": "bob@example.com", "companies": value})
    assert_error(r, 400, "companies")
    assert int(api.get("/api/contacts?search=email:bob@example.com").json["total"]) == 0


def test_unknown_id_message_names_it(api):
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [998, 999]})
    assert assert_error(r, 400, "companies")["details"]["companies"] == ["No company found with id 998, 999."]


def test_batch_routes(api, firms):
    acme, globex = firms
    r = api.post(
        "/api/contacts/batch/new",
        [{"email": "a@example.com", "companies": [acme]}, {"email": "b@example.com", "companies": [999]}],
    )
    assert r.status_code == 201, r.json
    first = r.json["contacts"][0]["id"]
    assert [e["code"] for e in r.json["errors"].values()] == [400]
    assert "companies" in next(iter(r.json["errors"].values()))["details"]
    assert linked(api, first) == [(acme, "Acme", 1)]
    r = api.patch("/api/contacts/batch/edit", [{"id": first, "companies": [globex]}])
    assert r.status_code == 200, r.json
    assert linked(api, first) == [(globex, "Globex", 1)]
    r = api.put("/api/contacts/batch/edit", [{"id": first, "email": "a@example.com", "companies": [acme, globex]}])
    assert r.status_code == 200, r.json
    assert [c[0] for c in linked(api, first)] == [globex, acme]


def test_webhooks_fire_as_for_the_membership_routes(api, firms, drain, receiver):
    acme, globex = firms
    _hook(api, receiver.url, ["mautic.lead_company_change"])
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com", "companies": [acme]}).json["contact"]["id"]
    api.patch(f"/api/contacts/{contact_id}/edit", {"companies": [globex]})
    drain()
    events = _events(receiver, "mautic.lead_company_change")
    changes = [(e["added"], e["company"]["id"], e["contact"]["id"]) for e in events]
    assert sorted(changes) == sorted([(True, acme, contact_id), (True, globex, contact_id), (False, acme, contact_id)])


def test_a_limited_user_links_only_companies_it_may_view(api, firms):
    admins_acme, _ = firms
    mallory = _as(api, "mallory", SALES)
    own = mallory.post("/api/companies/new", {"companyname": "Mallory Ltd"}).json["company"]["id"]
    r = mallory.post("/api/contacts/new", {"email": "m@example.com", "companies": [own]})
    assert r.status_code == 201, r.json
    mine = r.json["contact"]["id"]
    assert linked(api, mine) == [(own, "Mallory Ltd", 1)]
    # someone else's company: refused as POST /companies/<id>/contact/<id>/add refuses it, nothing written
    assert_error(mallory.post(f"/api/companies/{admins_acme}/contact/{mine}/add"), 403, message=FORBIDDEN)
    r = mallory.patch(f"/api/contacts/{mine}/edit", {"companies": [own, admins_acme], "firstname": "X"})
    assert_error(r, 403, message=FORBIDDEN)
    assert "Acme" not in str(r.json)
    assert linked(api, mine) == [(own, "Mallory Ltd", 1)]
    assert api.get(f"/api/contacts/{mine}").json["contact"]["fields"]["all"]["firstname"] is None
    r = mallory.post("/api/contacts/new", {"email": "n@example.com", "companies": [admins_acme]})
    assert_error(r, 403, message=FORBIDDEN)
    assert int(api.get("/api/contacts?search=email:n@example.com").json["total"]) == 0
    # nor may it take the contact out of a company it may not view
    api.post(f"/api/companies/{admins_acme}/contact/{mine}/add")
    assert_error(mallory.patch(f"/api/contacts/{mine}/edit", {"companies": [own]}), 403, message=FORBIDDEN)
    assert [c[0] for c in linked(api, mine)] == [own, admins_acme]


def test_a_limited_user_changes_no_others_contact(api, firms):
    acme, _ = firms
    mallory = _as(api, "mallory", SALES)
    own = mallory.post("/api/companies/new", {"companyname": "Mallory Ltd"}).json["company"]["id"]
    victim = api.post("/api/contacts/new", {"email": "v@example.com", "companies": [acme]}).json["contact"]["id"]
    assert_error(mallory.patch(f"/api/contacts/{victim}/edit", {"companies": [own]}), 403, message=FORBIDDEN)
    r = mallory.patch("/api/contacts/batch/edit", [{"id": victim, "companies": [own]}])
    assert [e["code"] for e in r.json["errors"]] == [403]  # errors at 0..n-1: an array, as PHP
    assert linked(api, victim) == [(acme, "Acme", 1)]


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_cost_one_batch_get_when_the_links_change(api, firms):
    from tests.bench.conftest import dynamodb_calls

    acme, globex = firms
    contact_id = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]["id"]
    api.patch(f"/api/contacts/{contact_id}/edit", {"firstname": "warm"})

    def cost(payload):
        with dynamodb_calls() as calls:
            assert api.patch(f"/api/contacts/{contact_id}/edit", payload).status_code == 200
        return dict(calls)

    plain = cost({"firstname": "Ann"})
    assert cost({"firstname": "Anna", "companies": [acme]}) == dict(plain, BatchGetItem=1)
    assert cost({"firstname": "Anne", "companies": [globex]}) == dict(plain, BatchGetItem=1)  # Acme out, Globex in
    assert cost({"firstname": "Ana", "companies": [globex]}) == plain  # the links as they are: nothing read
