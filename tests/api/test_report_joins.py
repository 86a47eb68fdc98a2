"""Issue 34, reports as Mautic answers them: its five standard reports answer on a new instance
(`GET /reports/1`...), `limit` is echoed as asked (0 when not) with `page`, the event sources carry
the columns of the documents a row names (`l.*` the contact's, custom fields included, `e.*` the
email's...: Mautic's report builder joins), under Mautic's aliases (`contactId`, `e_id`, a field's
alias), and each row is still shown only to a caller who may view what it names."""

import pytest

from tests.api.test_email_send import make_email
from tests.api.test_files_assets import make_local_asset
from tests.api.test_views_access import HER_EMAIL, VICTIM_EMAIL, _report, _run, world  # noqa: F401 - fixture
from tests.api.test_visitors import browse


def run(api, report_id, query=""):
    response = api.get(f"/api/reports/{report_id}{query}")
    assert response.status_code == 200, response.json
    return response.json


def report(api, source, **extra):
    response = api.post("/api/reports/new", dict({"name": f"J {source}", "source": source}, **extra))
    assert response.status_code == 201, response.json
    return response.json["report"]


def shoe_size_field(api):
    field = {"label": "Shoe size", "alias": "shoe_size", "type": "text", "group": "personal"}
    assert api.post("/api/fields/contact/new", field).status_code == 201


def test_mautics_standard_reports_answer_on_a_new_instance(api):
    listed = api.get("/api/reports").json["reports"]
    assert [(r["id"], r["name"], r["source"], r["system"]) for r in listed] == [
        (1, "Visits published Pages", "page.hits", True),
        (2, "Downloads of all Assets", "asset.downloads", True),
        (3, "Submissions of published Forms", "form.submissions", True),
        (4, "All Emails", "email.stats", True),
        (5, "Leads and Points", "lead.pointlog", True),
    ]
    first = run(api, 1)
    assert first["report"]["columns"][:2] == ["ph.date_hit", "ph.url"] and first["report"]["graphs"]
    assert first["report"]["filters"][1] == {"column": "p.is_published", "condition": "eq", "value": "1", "glue": "and"}
    assert (first["totalResults"], first["data"], first["limit"], first["page"]) == (0, [], 0, 1)
    for number in (2, 3, 4, 5):
        assert run(api, number)["report"]["id"] == number


def test_standard_reports_show_their_rows_with_joined_columns(api):
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann"}).json["contact"]
    mail = make_email(api, subject="Hi")
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    api.post(f"/api/contacts/{contact['id']}/points/plus/3")
    emails = run(api, 4)
    (row,) = emails["data"]
    assert set(row) == {"date_sent", "date_read", "subject", "email_address", "e_id"}
    assert (row["subject"], row["email_address"], row["e_id"]) == ("Hi", "ann@example.com", str(mail["id"]))
    assert emails["dataColumns"]["e_id"] == "e.id" and emails["dataColumns"]["contactId"] == "l.id"
    api.patch(f"/api/emails/{mail['id']}/edit", {"isPublished": False})
    assert run(api, 4)["data"] == []  # the filter on e.is_published
    points = run(api, 5)["data"]
    assert points[-1]["firstname"] == "Ann" and points[-1]["email"] == "ann@example.com"
    assert points[-1]["delta"] == "3" and "event_name" in points[-1]


def test_downloads_of_all_assets(api):
    asset, _ = make_local_asset(api)
    assert browse(api, f"/asset/{asset['id']}:notes").status_code == 200  # a visitor's browser
    (row,) = run(api, 2)["data"]
    assert set(row) == {"date_download", "title", "ip_address", "firstname", "lastname", "email", "a_id"}
    assert (row["title"], row["a_id"]) == ("Notes", str(asset["id"]))
    api.patch(f"/api/assets/{asset['id']}/edit", {"isPublished": False})
    assert run(api, 2)["data"] == []


def test_limit_is_echoed_as_asked_with_the_page(api):
    for n in range(3):
        api.post("/api/contacts/new", {"email": f"p{n}@example.com"})
    made = report(api, "leads", columns=["l.email"])
    everything = run(api, made["id"])
    assert (everything["limit"], everything["page"], len(everything["data"])) == (0, 1, 3)
    second = run(api, made["id"], "?limit=2&page=2")
    assert (second["limit"], second["page"], second["data"]) == (2, 2, [{"email": "p2@example.com"}])


def test_email_stats_join_the_contact_custom_fields_and_the_email(api):
    shoe_size_field(api)
    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "shoe_size": "38"}).json["contact"]
    mail = make_email(api, subject="Hello")
    api.post(f"/api/emails/{mail['id']}/contact/{ann['id']}/send")
    made = report(
        api,
        "email.stats",
        columns=["es.email_address", "l.id", "l.shoe_size", "e.subject", "e.name", "e.is_published"],
        filters=[{"column": "l.shoe_size", "condition": "eq", "value": "38"}],
        tableOrder=[{"column": "e.subject", "direction": "ASC"}],
    )
    (row,) = run(api, made["id"])["data"]
    assert row == {
        "email_address": "ann@example.com",
        "contactId": str(ann["id"]),
        "shoe_size": "38",
        "subject": "Hello",
        "e_name": "Welcome",
        "e_is_published": "1",
    }
    grouped = report(
        api, "email.stats", groupBy=["l.shoe_size"], aggregators=[{"column": "es.id", "function": "COUNT"}]
    )
    assert run(api, grouped["id"])["data"] == [{"shoe_size": "38", "COUNT es.id": "1"}]


def test_custom_contact_fields_are_columns_of_the_contacts_source(api):
    shoe_size_field(api)
    api.post("/api/contacts/new", {"email": "ann@example.com", "shoe_size": "38"})
    made = report(api, "leads", columns=["l.email", "l.shoe_size"])
    assert run(api, made["id"])["data"] == [{"email": "ann@example.com", "shoe_size": "38"}]
    assert run(api, made["id"])["dataColumns"]["shoe_size"] == "l.shoe_size"
    refused = api.post("/api/reports/new", {"name": "X", "source": "leads", "columns": ["l.no_such_field"]})
    assert refused.status_code == 400 and "columns[0]" in refused.json["errors"][0]["details"]


@pytest.mark.parametrize("source, lead", [("email.stats", "es.lead_id"), ("lead.pointlog", "lp.lead_id")])
def test_joined_columns_show_a_limited_user_nothing_of_contacts_she_may_not_view(api, world, source, lead):  # noqa: F811
    mallory = world["mallory"]
    made = _report(mallory, source, columns=[lead, "l.email", "l.firstname", "l.id"])
    answer = _run(mallory, made["id"])
    assert {row["email"] for row in answer["data"]} == {HER_EMAIL}
    assert VICTIM_EMAIL not in str(answer) and answer["totalResults"] == len(answer["data"])
    assert VICTIM_EMAIL in str(_run(api, made["id"]))  # an administrator sees the victim's rows
    standard = _run(mallory, 4)  # the standard "All Emails" report, run by her
    assert {row["email_address"] for row in standard["data"]} == {HER_EMAIL}


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_joined_columns_cost_a_batch_read_per_chunk_of_rows(api):
    from tests.api.test_views_costs import cost, sends

    sends(api, 12)
    plain = report(api, "email.stats", columns=["es.email_address"])
    joined = report(api, "email.stats", columns=["es.email_address", "l.email", "e.subject"])
    before, after = cost(api, f"/api/reports/{plain['id']}"), cost(api, f"/api/reports/{joined['id']}")
    assert after == dict(before, BatchGetItem=before["BatchGetItem"] + 2), (before, after)  # chunks of 10 and 20 rows
