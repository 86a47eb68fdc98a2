"""What the catalogues cost in DynamoDB calls (docs/storage.md): one table or widget of each family
over the stats world (test_stats_catalogue.py) and the dashboard's additions."""

import pytest

from chalicelib import config
from tests.api.test_dashboard_catalogue import more  # noqa: F401 - the fixture
from tests.api.test_stats_catalogue import world  # noqa: F401 - the fixture
from tests.bench.conftest import dynamodb_calls

PATHS = {
    "event table": "/api/stats/asset_downloads",
    "event table, one contact": "/api/stats/lead_stages_change_log?where[0][col]=lead_id&where[0][val]={ann}",
    "contact table": "/api/stats/lead_lists_leads",
    "contact table, one contact": "/api/stats/lead_lists_leads?where[0][col]=lead_id&where[0][val]={ann}",
    "webhook logs": "/api/stats/webhook_logs",
    "empty table": "/api/stats/video_hits",
    "focus stats": "/api/stats/focus_stats",
    "unknown table": "/api/stats/no_such_table",
    "event pie": "/api/data/ignored.vs.read.emails",
    "event table widget": "/api/data/most.sent.emails",
    "document table widget": "/api/data/created.emails",
    "contact widget": "/api/data/map.of.leads",
    "emails in time": "/api/data/emails.in.time?filter[flag]=all",
    "emails in time, a company's": "/api/data/emails.in.time?filter[flag]=all&filter[companyId]={company}",
    "emails in time, an automation's": "/api/data/emails.in.time?filter[flag]=all&filter[campaignId]={automation}",
}


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_each_family_costs_a_few_calls(api, more):  # noqa: F811 - the fixture
    measured = {}
    for family, path in PATHS.items():
        with dynamodb_calls() as calls:
            response = api.get(
                path.format(ann=more["ann"]["id"], company=more["company"]["id"], automation=more["automation"]["id"])
            )
        assert response.status_code == 200, response.json
        measured[family] = sum(calls.values())
    print(measured)
    assert measured["empty table"] <= 1 and measured["contact table, one contact"] <= 3
    assert measured["unknown table"] <= 1
    contacts = ("contact table", "contact widget")  # the contacts in id order: a Query per shard (docs/storage.md)
    assert all(measured[family] <= 2 + config.active().SHARDED_KINDS["contact"] for family in contacts), measured
    # the others: the versions, a Query per feed shard, a few BatchGetItem (events, the documents they name)
    assert all(
        count <= 5 + config.active().FEED_SHARDS for family, count in measured.items() if family not in contacts
    ), measured
