"""Issue 27 (Medium): a limited user reaches none of another's documents through a reference. A
reference summary shows only the id of a document the caller may not view; email attachments are
written and sent only by a caller who may view each asset; automation events are their
automation's. `mallory` holds own permissions only; the documents she must not reach are the
administrator's."""

import json

from tests.api.payloads import assert_error
from tests.api.test_automation_events import by_name, later_automation
from tests.api.test_automations import new_automation, tag
from tests.api.test_email_send import make_contact, make_email, sent_messages
from tests.api.test_forms_submit import FIELDS, post
from tests.api.test_permissions import FORBIDDEN, _as

SALES = {"lead:leads": ["viewown", "editown", "create"]}
VICTIM = {"email": "victim@example.com", "phone": "+420777000111", "firstname": "Victor"}


def _shows_none_of(response, *values):
    text = json.dumps(response.json)
    assert not [value for value in values if value in text], text


def _upload_asset(api, title):
    boundary = "b8"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="terms.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.4 terms\r\n"
        f"--{boundary}--\r\n"
    ).encode()
    name = api.call(
        "POST", "/api/files/assets/new", raw=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    ).json["file"]["name"]
    response = api.post("/api/assets/new", {"title": title, "file": name})
    assert response.status_code == 201, response.json
    return response.json["asset"]


# 1. Reference summaries


def test_a_note_on_a_strangers_contact_is_refused_and_echoes_nothing(api):
    """Needs the lead engineer's rule (a reference to a contact needs edit on it, kernel/service.py) for
    the 403; the presenter alone already keeps the contact's fields out of the answer."""
    mallory = _as(api, "mallory", SALES)
    victim = make_contact(api, **VICTIM)
    response = mallory.post("/api/notes/new", {"lead": victim["id"], "text": "probe"})
    _shows_none_of(response, VICTIM["email"], VICTIM["phone"], VICTIM["firstname"])
    assert_error(response, 403, message=FORBIDDEN)
    assert int(api.get(f"/api/contacts/{victim['id']}/notes").json["total"]) == 0


def test_a_summary_of_what_the_caller_may_not_view_is_its_bare_id(api):
    mallory = _as(api, "mallory", dict(SALES, **{"email:emails": ["viewown", "editown", "create"]}))
    mine = mallory.post(
        "/api/contacts/new", {"email": "mine@example.com", "firstname": "Mina", "owner": mallory.user_id}
    ).json["contact"]
    assert mine["owner"] == {"id": mallory.user_id}  # users are shown to those who may view users
    note = mallory.post("/api/notes/new", {"lead": mine["id"], "text": "hello"}).json["note"]
    assert note["lead"]["id"] == mine["id"] and note["lead"]["fields"]["all"]["email"] == "mine@example.com"
    segment = api.post("/api/segments/new", {"name": "Secret list", "alias": "secret-list"}).json["list"]
    email = api.post(
        "/api/emails/new", {"name": "Shared", "subject": "S", "emailType": "list", "lists": [segment["id"]]}
    ).json["email"]
    assert api.get(f"/api/emails/{email['id']}").json["email"]["lists"][0]["name"] == "Secret list"
    own = mallory.post(
        "/api/emails/new", {"name": "Mine", "subject": "S", "emailType": "list", "lists": [segment["id"]]}
    )
    assert own.status_code == 201 and own.json["email"]["lists"] == [{"id": segment["id"]}]
    _shows_none_of(own, "Secret list", "secret-list")


def test_a_submission_to_the_callers_form_shows_a_strangers_contact_by_id_only(api):
    mallory = _as(api, "mallory", dict(SALES, **{"form:forms": ["viewown", "editown", "create", "publishown"]}))
    victim = make_contact(api, **VICTIM)
    form = mallory.post("/api/forms/new", {"name": "Mine", "fields": FIELDS[:1]}).json["form"]
    assert post(api, form["id"], {"email": VICTIM["email"]}).status_code == 200
    listed = mallory.get(f"/api/forms/{form['id']}/submissions")
    assert [s["lead"] for s in listed.json["submissions"]] == [{"id": victim["id"]}]
    _shows_none_of(listed, VICTIM["phone"], VICTIM["firstname"])
    assert api.get(f"/api/forms/{form['id']}/submissions").json["submissions"][0]["lead"]["phone"] == VICTIM["phone"]


# 2. Email attachments


def _attachments_role(api):
    return _as(
        api,
        "mallory",
        dict(
            SALES,
            **{"email:emails": ["viewown", "viewother", "editown", "create"], "asset:assets": ["viewown", "create"]},
        ),
    )


def test_sending_an_email_with_assets_the_caller_may_not_view_is_refused(api):
    mallory = _attachments_role(api)
    secret = _upload_asset(api, "Secret terms")
    attached = make_email(api, assetAttachments=[secret["id"]])
    plain = make_email(api, name="Plain")
    mine = mallory.post("/api/contacts/new", {"email": "drop@evil.example"}).json["contact"]
    for path, body in (
        (f"/api/emails/{attached['id']}/contact/{mine['id']}/send", {}),
        (f"/api/emails/{plain['id']}/contact/{mine['id']}/send", {"assetAttachments": [secret["id"]]}),
        (f"/api/emails/{attached['id']}/send", {}),
    ):
        response = mallory.post(path, body)
        assert_error(response, 403, message=FORBIDDEN)
        _shows_none_of(response, "Secret terms")
    assert sent_messages() == []
    assert mallory.post(f"/api/emails/{plain['id']}/contact/{mine['id']}/send").json == {"success": True}


def test_writing_attachments_needs_the_view_of_each_asset(api):
    mallory = _attachments_role(api)
    secret, own = _upload_asset(api, "Secret terms"), _upload_asset(mallory, "My terms")
    before = api.get("/api/emails").json["total"]
    refused = mallory.post("/api/emails/new", {"name": "Mine", "subject": "S", "assetAttachments": [secret["id"]]})
    assert_error(refused, 403, message=FORBIDDEN)
    assert int(api.get("/api/emails").json["total"]) == before
    email = mallory.post("/api/emails/new", {"name": "Mine", "subject": "S", "assetAttachments": [own["id"]]})
    assert email.status_code == 201 and email.json["email"]["assetAttachments"][0]["title"] == "My terms"
    path = f"/api/emails/{email.json['email']['id']}/edit"
    assert_error(mallory.patch(path, {"assetAttachments": [own["id"], secret["id"]]}), 403, message=FORBIDDEN)
    assert [a["id"] for a in api.get(path.replace("/edit", "")).json["email"]["assetAttachments"]] == [own["id"]]
    assert mallory.patch(path, {"name": "Renamed", "assetAttachments": [own["id"]]}).status_code == 200


# 3. Automation events

CAMPAIGNS = {"campaign:campaigns": ["viewown", "editown", "create"]}


def test_automation_events_list_and_show_only_the_callers_automations(api):
    mallory = _as(api, "mallory", dict(SALES, **CAMPAIGNS))
    theirs = later_automation(api)
    mine = new_automation(mallory, [tag("new1", "mine")], name="Mine")
    listed = mallory.get("/api/automations/events")
    assert int(listed.json["total"]) == 1 and [e["automation"]["id"] for e in listed.json["events"]] == [mine["id"]]
    _shows_none_of(listed, "Welcome", "tomorrow")
    assert int(api.get("/api/automations/events").json["total"]) == 3
    one = mallory.get(f"/api/automations/events/{theirs['events'][0]['id']}")
    assert_error(one, 403, message=FORBIDDEN)
    _shows_none_of(one, "Welcome")
    assert mallory.get(f"/api/automations/events/{mine['events'][0]['id']}").json["event"]["name"] == "new1"


def test_editing_a_contacts_event_needs_the_automations_edit_and_the_contacts(api):
    mallory = _as(api, "mallory", dict(SALES, **CAMPAIGNS))
    theirs = later_automation(api)
    contact = mallory.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    stranger = make_contact(api, **VICTIM)
    for member in (contact, stranger):
        assert api.post(f"/api/automations/{theirs['id']}/contact/{member['id']}/add").status_code == 200
    log = f"/api/automations/{theirs['id']}/events/contact/{contact['id']}"
    pending = by_name(api.get(log).json["events"])["new2"]
    refused = mallory.put(
        f"/api/automations/events/{pending['id']}/contact/{contact['id']}/edit",
        {"dateTriggered": "2030-01-01 00:00:00"},
    )
    assert_error(refused, 403, message=FORBIDDEN)
    _shows_none_of(refused, "Welcome", "tomorrow")
    assert by_name(api.get(log).json["events"])["new2"]["contactLog"] == pending["contactLog"]

    mine = new_automation(
        mallory,
        [
            tag("new1", "now"),
            tag("new2", "later", parent="new1", triggerMode="interval", triggerInterval=1, triggerIntervalUnit="d"),
        ],
        name="Mine",
    )
    assert api.post(f"/api/automations/{mine['id']}/contact/{stranger['id']}/add").status_code == 200
    stranger_log = f"/api/automations/{mine['id']}/events/contact/{stranger['id']}"
    before = api.get(stranger_log).json
    event = by_name(mine["events"])["new2"]
    response = mallory.put(
        f"/api/automations/events/{event['id']}/contact/{stranger['id']}/edit", {"dateTriggered": "2030-01-01 00:00:00"}
    )
    assert_error(response, 403, message=FORBIDDEN)
    _shows_none_of(response, VICTIM["email"])
    assert api.get(stranger_log).json == before
