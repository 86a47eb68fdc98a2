"""Issue 34: the widget parameters Mautic's dashboard subscribers read besides the range, as its
WidgetApiController passes them (`filter[...]` merged into the widget's parameters, `dataset`,
`timezone`):

- `emails.in.time`: `filter[flag]` and `dataset` choose the datasets (EmailModel::getEmailsLineChartData:
  only "Sent emails" without either), `filter[companyId|campaignId|segmentId]` keep the sends of
  contacts in that company or segment, or of that automation (EmailBundle's FilterTrait), as they do
  for `sent.email.to.contacts`, `most.hit.email.redirects` and `emails.best.hours`;
- `page.hits.in.time`: `filter[flag]` `unique` / `total_and_unique` (PageModel: total visits without);
- `created.leads.in.time`: `filter[flag]` identified, anonymous, identifiedVsAnonymous, top,
  topIdentifiedVsAnonymous (LeadModel::getLeadsLineChartData: "All contacts" without);
- `lead.lifetime`: `filter[flag][]` segment ids (0: all contacts); the 4 top segments without;
- `timezone`: dates without an offset are read in it, and buckets are cut in it."""

from datetime import datetime, timezone

from tests.api.payloads import assert_error
from tests.api.test_automations import action, new_automation
from tests.api.test_dashboard_catalogue import more, widget  # noqa: F401 - the fixture
from tests.api.test_email_send import make_contact, make_email
from tests.api.test_permissions import _as
from tests.api.test_stats_catalogue import world  # noqa: F401 - the fixture

EMAIL_LABELS = ["Sent emails", "Read emails", "Failed emails", "Clicked", "Unsubscribed", "Bounced"]


def _labels(client, widget_type, query):
    return [d["label"] for d in widget(client, widget_type, query)["chartData"]["datasets"]]


def _total(client, widget_type, query, label):
    return sum(widget(client, widget_type, query + "&dataFormat=raw")[label].values())


def test_email_flags_and_datasets_choose_the_lines(api, more):  # noqa: F811 - the fixture
    assert _labels(api, "emails.in.time", "?timeUnit=d") == ["Sent emails"]
    assert _labels(api, "emails.in.time", "?filter[flag]=all") == EMAIL_LABELS
    assert _labels(api, "emails.in.time", "?filter[flag]=sent_and_opened") == ["Sent emails", "Read emails"]
    assert _labels(api, "emails.in.time", "?filter[flag]=opened") == ["Read emails"]
    assert _labels(api, "emails.in.time", "?dataset[]=clicked&dataset[]=bounced") == [
        "Sent emails",
        "Clicked",
        "Bounced",
    ]
    assert _labels(api, "emails.in.time", "?filter[flag]=failed&filter[dataset][]=opened") == [
        "Read emails",
        "Failed emails",
    ]
    assert _total(api, "emails.in.time", "?filter[flag]=clicked", "Clicked") == 1  # the email link followed
    assert_error(api.get("/api/data/emails.in.time?filter[flag]=nope"), 400, field="filter[flag]")
    assert_error(api.get("/api/data/emails.in.time?dataset[]=nope"), 400, field="dataset")
    assert_error(api.get("/api/data/emails.in.time?filter[companyId]=x"), 400, field="filter[companyId]")


def test_company_segment_and_automation_filters_keep_their_contacts_sends(api, more, drain):  # noqa: F811
    empty_company = api.post("/api/companies/new", {"companyname": "Empty"}).json["company"]
    empty_segment = api.post("/api/segments/new", {"name": "Nobody"}).json["list"]
    q = "?filter[flag]=sent_and_opened"
    assert _total(api, "emails.in.time", q, "Sent emails") == 1
    assert _total(api, "emails.in.time", f"{q}&filter[companyId]={more['company']['id']}", "Sent emails") == 1
    assert _total(api, "emails.in.time", f"{q}&filter[companyId]={empty_company['id']}", "Sent emails") == 0
    assert _total(api, "emails.in.time", f"{q}&filter[segmentId]={more['segment']['id']}", "Read emails") == 1
    assert _total(api, "emails.in.time", f"{q}&filter[segmentId]={empty_segment['id']}", "Read emails") == 0
    assert _total(api, "emails.in.time", f"{q}&filter[companyId]=9999", "Sent emails") == 0  # Mautic finds no row
    for query, rows in (
        (f"?filter[companyId]={more['company']['id']}", 1),
        (f"?filter[companyId]={empty_company['id']}", 0),
    ):
        assert len(widget(api, "sent.email.to.contacts", query)["bodyItems"]) == rows
        assert len(widget(api, "most.hit.email.redirects", query)["bodyItems"]) == rows
        assert sum(widget(api, "emails.best.hours", query)["chartData"]["datasets"][0]["data"]) == rows * 100
    mail = make_email(api, name="Automated")
    automation = new_automation(api, [action("new1", "email.send", {"email": mail["id"]})], name="Mailer")
    cid = make_contact(api, email="cid@example.com")["id"]
    assert api.post(f"/api/automations/{automation['id']}/contact/{cid}/add").status_code == 200
    drain()
    assert _total(api, "emails.in.time", "?x=1", "Sent emails") == 2
    assert _total(api, "emails.in.time", f"?filter[campaignId]={automation['id']}", "Sent emails") == 1
    assert _total(api, "emails.in.time", f"?filter[campaignId]={more['automation']['id']}", "Sent emails") == 0
    (row,) = widget(api, "sent.email.to.contacts", f"?filter[campaignId]={automation['id']}")["bodyItems"]
    assert row["contact_id"] == cid


def test_naming_a_company_segment_or_automation_needs_its_view(api, more):  # noqa: F811
    mailer = _as(api, "mailer", {"email:emails": ["viewother"]})
    for key, doc in (("companyId", "company"), ("segmentId", "segment"), ("campaignId", "automation")):
        answer = mailer.get(f"/api/data/emails.in.time?filter[{key}]={more[doc]['id']}")
        assert_error(answer, 403)
        assert "VIP" not in str(answer.json) and "Acme" not in str(answer.json)
    assert _total(mailer, "emails.in.time", "?x=1", "Sent emails") == 1  # her own view is unchanged
    seeing = _as(api, "seeing", {"email:emails": ["viewother"], "lead:lists": ["viewother"]})
    assert _total(seeing, "emails.in.time", f"?filter[segmentId]={more['segment']['id']}", "Sent emails") == 1


def test_page_hit_flags(api, more):  # noqa: F811
    assert _labels(api, "page.hits.in.time", "?x=1") == ["Total visits"]
    assert _labels(api, "page.hits.in.time", "?filter[flag]=unique") == ["Unique visits"]
    assert _labels(api, "page.hits.in.time", "?filter[flag]=total_and_unique") == ["Total visits", "Unique visits"]
    assert_error(api.get("/api/data/page.hits.in.time?filter[flag]=all"), 400, field="filter[flag]")


def test_contact_flags(api, more):  # noqa: F811
    everyone = int(api.get("/api/contacts").json["total"])
    assert _labels(api, "created.leads.in.time", "?x=1") == ["All contacts"]
    split = widget(api, "created.leads.in.time", "?filter[flag]=identifiedVsAnonymous&dataFormat=raw")
    assert list(split) == ["Identified", "Anonymous"]
    assert sum(split["Identified"].values()) + sum(split["Anonymous"].values()) == everyone
    assert sum(split["Anonymous"].values()) >= 1  # the tracking pixel's visitor
    assert _labels(api, "created.leads.in.time", "?filter[flag]=identified") == ["Identified"]
    top = widget(api, "created.leads.in.time", "?filter[flag]=top&dataFormat=raw")
    assert list(top) == ["VIP: All contacts"] and sum(top["VIP: All contacts"].values()) == 2
    assert _labels(api, "created.leads.in.time", "?filter[flag]=topIdentifiedVsAnonymous") == [
        "VIP: Identified",
        "VIP: Anonymous",
    ]


def test_lifecycle_segments(api, more):  # noqa: F811
    segment = more["segment"]["id"]
    chosen = widget(api, "lead.lifetime", f"?filter[flag][]={segment}&filter[flag][]=0")
    everyone = int(api.get("/api/contacts").json["total"])
    assert (chosen["columnName"], chosen["value"], chosen["width"]) == (["VIP", "All Contacts"], [2, everyone], 50)
    assert len(chosen["chartItems"]) == 2 and chosen["link"][0].endswith(f"segment:{more['segment']['alias']}")
    assert_error(api.get("/api/data/lead.lifetime?filter[flag][]=x"), 400, field="filter[flag]")
    own = _as(api, "owncontacts", {"lead:leads": ["viewother"]})  # no segment view: no segment column
    assert widget(own, "lead.lifetime", f"?filter[flag][]={segment}")["columnName"] == ["All contacts"]


def test_timezone_reads_the_dates_and_cuts_the_buckets(api, frozen):
    frozen.moment = datetime(2025, 3, 10, 23, 30, tzinfo=timezone.utc)  # 00:30 on the 11th in Prague
    api.post("/api/contacts/new", {"email": "late@example.com"})
    query = "?timeUnit=d&dateFrom=2025-03-10&dateTo=2025-03-11 23:59:59&dataFormat=raw"
    utc = widget(api, "created.leads.in.time", query)["All contacts"]
    assert utc == {"Mar 10, 25": 1, "Mar 11, 25": 0}
    prague = widget(api, "created.leads.in.time", query + "&timezone=Europe/Prague")["All contacts"]
    assert prague == {"Mar 10, 25": 0, "Mar 11, 25": 1}
    hours = widget(
        api,
        "created.leads.in.time",
        "?timeUnit=H&dateFrom=2025-03-11 00:00&dateTo=2025-03-11 01:00&dataFormat=raw&timezone=Europe/Prague",
    )["All contacts"]
    assert hours == {"Mar 11, 00:00": 1, "Mar 11, 01:00": 0}
    assert_error(api.get("/api/data/created.leads.in.time?timezone=Mars/Olympus"), 400, field="timezone")


def test_a_timezone_naming_a_region_of_zones_is_refused_naming_it(api):
    """`America` or `Etc` name directories of the zone database, not zones: a 400, not a 500."""
    for name in ("America", "Etc"):
        assert_error(api.get(f"/api/data/created.leads.in.time?timezone={name}"), 400, field="timezone")
