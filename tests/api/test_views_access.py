"""Issue 27 (views): a report, a stats answer, a widget and the segment picker show a limited user
nothing of documents they may not view. `victim` and `mallory` hold the role "Sales" (contacts
viewown/editown/create, reports full, emails, forms, pages and automations full, own segments);
each owns one contact, and both contacts got an email, points and more. Tracking hashes, which
open a contact's pages as that contact, are no column of a report or of `/stats`, and the views
refuse to read without end."""

import json
from urllib.parse import urlencode

import pytest

from tests.api.payloads import assert_error
from tests.api.test_email_send import make_email, sent_messages
from tests.api.test_forms_submit import make_form, post
from tests.api.test_permissions import _as
from tests.api.test_visitors import browse

SALES = {
    "lead:leads": ["viewown", "editown", "create"],
    "report:reports": ["full"],
    "email:emails": ["full"],
    "form:forms": ["full"],
    "page:pages": ["full"],
    "campaign:campaigns": ["full"],
    "lead:lists": ["viewown", "editown", "create"],
}
HER_EMAIL, VICTIM_EMAIL = "mallory.lead@example.com", "victim.lead@example.com"


def _contact(client, email):
    response = client.post("/api/contacts/new", {"email": email, "firstname": "Lead"})
    assert response.status_code == 201, response.json
    return response.json["contact"]


def _send(api, mail, contact):
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    return sent_messages()[-1]["X-Mautic-Tracking"]


@pytest.fixture
def world(api):
    """Victim's and mallory's contacts, each sent an email and given points; a form submission and a
    page hit of an anonymous visitor (nobody's contact)."""
    victim, mallory = _as(api, "victim", SALES), _as(api, "mallory", SALES)
    theirs, hers = _contact(victim, VICTIM_EMAIL), _contact(mallory, HER_EMAIL)
    mail = make_email(api)
    hashes = {"victim": _send(api, mail, theirs), "mallory": _send(api, mail, hers)}
    for contact in (theirs, hers):
        api.post(f"/api/contacts/{contact['id']}/points/plus/5")
    post(api, make_form(api)["id"], {"email": "walkin@example.com"})
    browse(api, "/mtracking.gif?" + urlencode({"page_url": "https://site.example/p", "page_title": "P"}))
    return {"mallory": mallory, "victim": victim, "theirs": theirs, "hers": hers, "hashes": hashes, "mail": mail}


def _report(client, source, **extra):
    response = client.post("/api/reports/new", dict({"name": f"R {source}", "source": source}, **extra))
    assert response.status_code == 201, response.json
    return response.json["report"]


def _run(client, report_id, query=""):
    response = client.get(f"/api/reports/{report_id}{query}")
    assert response.status_code == 200, response.json
    return response.json


def _nothing_of_theirs(body, world):
    """No id, email or tracking hash of the victim's contact in an answer."""
    text = json.dumps(body)
    assert VICTIM_EMAIL not in text and world["hashes"]["victim"] not in text
    assert not any(
        str(world["theirs"]["id"]) == str(row.get(key)) for row in body.get("data", []) for key in ("id", "lead_id")
    )


def test_a_leads_report_shows_an_own_only_caller_her_contacts_and_counts_only_them(world):
    mallory = world["mallory"]
    plain = _report(mallory, "leads", columns=["l.id", "l.email"])
    answer = _run(mallory, plain["id"])
    assert answer["data"] == [{"id": str(world["hers"]["id"]), "email": HER_EMAIL}] and answer["totalResults"] == 1
    _nothing_of_theirs(answer, world)
    sorted_ = _report(
        mallory, "leads", columns=["l.id", "l.email"], tableOrder=[{"column": "l.email", "direction": "DESC"}]
    )
    assert _run(mallory, sorted_["id"])["totalResults"] == 1
    counted = _report(mallory, "leads", groupBy=["l.firstname"], aggregators=[{"column": "l.id", "function": "COUNT"}])
    assert _run(mallory, counted["id"])["data"] == [{"firstname": "Lead", "COUNT l.id": "1"}]


@pytest.mark.parametrize(
    "source, columns",
    [
        ("email.stats", ["es.lead_id", "es.email_address", "es.email_id"]),
        ("lead.pointlog", ["lp.lead_id", "lp.delta"]),
        ("form.submissions", ["fs.lead_id", "fs.form_id"]),
        ("page.hits", ["ph.lead_id", "ph.url"]),
    ],
)
def test_event_reports_drop_the_rows_of_contacts_she_may_not_view(api, world, source, columns):
    mallory = world["mallory"]
    made = _report(mallory, source, columns=columns)
    answer = _run(mallory, made["id"])
    lead = columns[0].split(".")[1]
    assert {row[lead] for row in answer["data"]} <= {str(world["hers"]["id"])}
    assert answer["totalResults"] == len(answer["data"])
    _nothing_of_theirs(answer, world)
    assert _run(api, made["id"])["totalResults"] > answer["totalResults"]  # the rows exist: an administrator sees them


def test_each_source_needs_the_permission_of_its_list_api(api, world):
    contacts_only = _as(api, "contacts", {"lead:leads": ["viewown"], "report:reports": ["full"]})
    assert _run(contacts_only, _report(contacts_only, "lead.pointlog")["id"])["totalResults"] == 0
    for source in ("emails", "email.stats", "form.submissions", "page.hits", "campaign_lead.event_log"):
        assert_error(contacts_only.get(f"/api/reports/{_report(contacts_only, source)['id']}"), 403)
    reports_only = _as(api, "reports", {"report:reports": ["full"], "email:emails": ["full"]})
    for source in ("leads", "email.stats", "lead.pointlog"):
        assert_error(reports_only.get(f"/api/reports/{_report(reports_only, source)['id']}"), 403)
    assert _run(reports_only, _report(reports_only, "emails", columns=["e.id"])["id"])["totalResults"] == 1


def test_an_emails_report_shows_an_own_only_caller_her_emails(api, world):
    writer = _as(api, "writer", {"email:emails": ["viewown", "create"], "report:reports": ["full"]})
    mine = make_email(writer, name="Mine")
    answer = _run(writer, _report(writer, "emails", columns=["e.id", "e.name"])["id"])
    assert answer["data"] == [{"id": str(mine["id"]), "name": "Mine"}] and answer["totalResults"] == 1


def test_no_report_or_stats_answer_gives_a_hash_the_web_view_accepts(api, world):
    victim_hash = world["hashes"]["victim"]
    assert api.http.request("GET", f"/email/view/{victim_hash}", headers={"Accept": "*/*"}, body=b"").status_code == 200
    asked = api.post("/api/reports/new", {"name": "H", "source": "email.stats", "columns": ["es.tracking_hash"]})
    assert_error(asked, 400, field="columns[0]")
    every = _report(api, "email.stats", columns=["es.id"])
    answer = _run(api, every["id"])
    assert "es.tracking_hash" not in answer["dataColumns"]
    grouped = _report(api, "email.stats", groupBy=["es.lead_id"], aggregators=[{"column": "es.id", "function": "MAX"}])
    texts = [json.dumps(answer), json.dumps(_run(api, grouped["id"])), json.dumps(api.get("/api/stats").json)]
    for table in ("email_stats", "lead_event_log"):
        texts.append(json.dumps(api.get(f"/api/stats/{table}").json))
    assert "tracking_hash" not in texts[2] and not any(victim_hash in text or "trackingHash" in text for text in texts)


def test_a_report_stored_with_a_hash_column_is_refused_naming_it(api, world):
    from chalicelib.store import port as store

    made = _report(api, "email.stats", columns=["es.id"])
    stored = store.get("report", made["id"])
    store.replace("report", dict(stored, columns=["es.id", "es.tracking_hash"]))  # written before hashes left
    response = api.get(f"/api/reports/{made['id']}")
    assert_error(response, 400, field="columns[1]")
    assert world["hashes"]["victim"] not in json.dumps(response.json)


def test_the_created_contacts_widget_counts_only_her_contacts(api, world):
    def created(client):
        answer = client.get("/api/data/created.leads.in.time?dataFormat=raw&timeUnit=Y")
        assert answer.status_code == 200, answer.json
        return sum(answer.json["data"]["All contacts"].values())

    assert created(world["mallory"]) == 1
    assert created(api) >= 3  # hers, the victim's, the visitor's


def test_the_segment_picker_lists_her_segments_and_global_ones(api, world):
    """Mautic's LeadListRepository::getLists: without viewother, the published global segments and her own."""
    private = {"name": "Victim VIPs", "isPublished": True, "isGlobal": False}
    assert world["victim"].post("/api/segments/new", private).status_code == 201
    shared = world["victim"].post("/api/segments/new", {"name": "Shared", "isPublished": True}).json["list"]
    hers = world["mallory"].post("/api/segments/new", {"name": "Mine", "isPublished": True}).json["list"]
    picked = world["mallory"].get("/api/contacts/list/segments")
    assert picked.status_code == 200 and list(picked.json) == [str(hers["id"]), str(shared["id"])]
    assert "Victim VIPs" not in json.dumps(picked.json)
    assert len(api.get("/api/contacts/list/segments").json) == 3


def test_the_stats_refuse_to_read_past_their_ceiling(api, world, monkeypatch):
    from chalicelib.domain.messaging import stats_tables

    monkeypatch.setattr(stats_tables, "MAX_EVENTS_READ", 3)
    never = api.get("/api/stats/lead_event_log?where[0][col]=bundle&where[0][val]=nothing")
    assert_error(never, 400, field="where")
    assert_error(api.get("/api/stats/lead_event_log?start=1000000"), 400, field="start")
    assert api.get("/api/stats/lead_event_log?limit=1").status_code == 200  # a page within the ceiling
    report = _report(
        api, "lead.pointlog", columns=["lp.id"], filters=[{"column": "lp.delta", "condition": "eq", "value": "99"}]
    )
    assert_error(api.get(f"/api/reports/{report['id']}"), 400, field="dateFrom")
