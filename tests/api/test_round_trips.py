"""Round-trip budgets (issue 43): with every AWS call delayed as on AWS, a list page and a cursor page of
the sharded contacts wait on at most two sequential round trips (the versions, then the shards' Queries
with the count), however many shards the kind has, an email search on three; a GET by id on two. The
latency model is tests/round_trips.py; `make bench` prints it for more routes (tests/bench/test_latency.py)."""

import pytest

from tests.round_trips import modelled

pytestmark = pytest.mark.aws  # about AWS's round trips: over moto (over memory there are none to count)

BUDGETS = {
    "/api/contacts/1": 2,  # the versions item (read once a second per container on AWS), the contact
    "/api/contacts?limit=30": 2,  # the versions; the shards' Queries with the count read ahead (list_documents)
    "/api/contacts?limit=30&start=60": 2,
    "/api/contacts?search=email:c7@example.com": 3,  # the versions, the emailhead Queries, the matches
    "/api/contacts?search=email:c1%": 3,
}


@pytest.fixture
def filled(api):
    for n in range(100):
        assert api.post("/api/contacts/new", {"email": f"c{n}@example.com"}).status_code == 201
    return api


@pytest.mark.parametrize("path", list(BUDGETS))
def test_a_route_waits_on_at_most_its_budget_of_round_trips(filled, path):
    filled.get(path)  # warm: cached kinds and credentials
    with modelled() as trips:
        answer = filled.get(path)
    assert answer.status_code == 200
    assert trips.rounds <= BUDGETS[path], trips.waves


def test_a_cursor_page_waits_on_at_most_two_round_trips(filled):
    after = filled.get("/api/contacts?limit=30").json["next"]
    filled.get(f"/api/contacts?limit=30&after={after}")
    with modelled() as trips:
        page = filled.get(f"/api/contacts?limit=30&after={after}")
    assert page.status_code == 200 and len(page.json["contacts"]) == 30
    assert trips.rounds <= 2, trips.waves


def test_a_list_page_reads_every_shard_at_once(filled):
    from chalicelib import config

    with modelled(delay=0.25) as trips:  # the shards' 32 threads all start before one ends, even on a loaded machine
        filled.get("/api/contacts?limit=30")
    queries = [wave.count("Query") for wave in trips.waves]
    assert max(queries) == config.active().SHARDED_KINDS["contact"], trips.waves


def test_an_email_search_queries_the_index_keys_of_one_character_not_every_shard(filled):
    from chalicelib import config

    with modelled() as trips:
        found = filled.get("/api/contacts?search=email:C1").json
    assert sorted(c["fields"]["all"]["email"] for c in found["contacts"].values()) == sorted(
        ["c1@example.com"] + [f"c{n}@example.com" for n in range(10, 20)]
    )
    queries = [wave.count("Query") for wave in trips.waves]
    assert sum(queries) == max(queries) == config.active().EMAIL_INDEX_SHARDS, trips.waves
