"""What the embedded form's requests cost in DynamoDB calls (measured over moto, cached kinds warm;
docs/public-endpoints.md and docs/storage.md quote these numbers)."""

import pytest

from tests.api.test_form_embed import get, make
from tests.api.test_forms_submit import post
from tests.bench.conftest import dynamodb_calls
from tests.conftest import visitor_cookie

FIELDS = [
    {"label": "Email", "type": "email", "alias": "email", "mappedField": "email", "isAutoFill": True},
    {"label": "First", "type": "text", "alias": "first", "mappedField": "firstname", "showWhenValueExists": False},
]


def measured(request):
    request()  # warm: the versions item and the cached kinds
    with dynamodb_calls() as calls:
        assert request().status_code == 200
    return dict(calls)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_form_page_and_script_cost_a_form_read_and_for_a_known_visitor_its_contact_and_timeline(api):
    form = make(api, fields=FIELDS)
    contact = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]
    cookie = {"Cookie": visitor_cookie(contact["id"])}
    assert measured(lambda: get(api, f"/form/{form['id']}")) == {"GetItem": 1}
    assert measured(lambda: get(api, f"/form/generate.js?id={form['id']}")) == {"GetItem": 1}
    assert measured(lambda: get(api, f"/form/{form['id']}", cookie)) == {"GetItem": 3, "Query": 1}  # + versions (token)
    assert measured(lambda: get(api, "/media/js/mautic-form.js")) == {}


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_progressive_forms_submission_adds_the_contacts_timeline_query(api):
    plain = make(api, name="Plain", fields=[FIELDS[0]])
    progressive = make(api, name="Progressive", fields=FIELDS)
    contact = api.post("/api/contacts/new", {"email": "bob@example.com"}).json["contact"]
    cookie = {"Cookie": visitor_cookie(contact["id"])}
    base = measured(lambda: post(api, plain["id"], {"email": "bob@example.com"}, headers=cookie))
    more = measured(lambda: post(api, progressive["id"], {"email": "bob@example.com"}, headers=cookie))
    assert more.get("Query", 0) == base.get("Query", 0) + 1 and more["GetItem"] == base["GetItem"] + 1
