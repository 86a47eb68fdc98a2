"""The pure parts of `make capacity` (devstack/capacity): DynamoDB's unit arithmetic, the throttle
rates, the index entries a write moves, the tally and report, and the cost model; no AWS."""

import math

import pytest

from devstack.capacity import cost, images, prices, report, units
from devstack.capacity.meter import ITEM, KEY, READ, WRITE, Tally, _index_entries


def test_item_sizes_follow_dynamodbs_rules():
    assert units.item_size({"kind": {"S": "contact"}}) == 4 + 7
    assert units.item_size({"id": {"N": "12345"}}) == 2 + 4  # 5 significant digits: 3 bytes + 1
    assert units.item_size({"n": {"N": "100"}}) == 1 + 2  # trailing zeros are not significant
    assert units.item_size({"ok": {"BOOL": True}, "no": {"NULL": True}}) == 2 + 1 + 2 + 1
    assert units.item_size({"l": {"L": [{"S": "ab"}, {"N": "1"}]}}) == 1 + 3 + (1 + 2) + (1 + 2)
    assert units.item_size({"m": {"M": {"a": {"S": "xyz"}}}}) == 1 + 3 + (1 + 1 + 3)
    assert units.item_size({"s": {"SS": ["a", "bc"]}}) == 1 + 3
    assert units.item_size({"b": {"B": "AAEC"}}) == 1 + 3  # base64 of 3 bytes
    assert units.item_size({"b": {"B": b"\x00\x01\x02"}}) == 1 + 3  # raw bytes, as moto holds a written `z`
    assert units.item_size(None) == 0
    assert units.index_entry_size({"kind": {"S": "contact"}, "doc": {"S": "x" * 500}}, ["kind"]) == 100 + 11


def test_read_units_are_4kb_steps_halved_when_eventually_consistent():
    assert units.read_units(0) == 1.0  # a miss still costs the minimum
    assert units.read_units(4096) == 1.0
    assert units.read_units(4097) == 2.0
    assert units.read_units(4097, consistent=False) == 1.0
    assert units.read_units(100, consistent=False) == 0.5


def test_write_units_are_1kb_steps():
    assert units.write_units(1) == 1.0
    assert units.write_units(1024) == 1.0
    assert units.write_units(1025) == 2.0
    assert units.write_units(0) == 1.0  # a delete of nothing, a refused write: the minimum


def test_throttle_rate_is_the_limit_over_units_per_request():
    assert units.throttle_rate(2.0, units.ITEM_WRITE_LIMIT) == 500.0
    assert units.throttle_rate(0.5, units.ITEM_READ_LIMIT) == 6000.0
    assert math.isinf(units.throttle_rate(0.0, units.ITEM_WRITE_LIMIT))
    # read once a second by each container of 20 requests/s: 3000 units/s allow 60,000 req/s at 1 unit a read
    assert units.cached_throttle_rate(1.0, units.ITEM_READ_LIMIT, 1.0, 20.0) == 60000.0


def test_index_entries_a_write_moves():
    index = images.Index("email", "kind", "email", ("kind", "id", "email"))
    old = {"kind": {"S": "contact"}, "id": {"N": "1"}, "email": {"S": "a@x"}}
    moved = dict(old, email={"S": "b@x"})
    assert _index_entries(index, None, old) == [(old, ("contact", "a@x"))]  # a new entry: 1 write
    assert _index_entries(index, old, moved) == [(old, ("contact", "a@x")), (moved, ("contact", "b@x"))]  # 2
    assert _index_entries(index, old, None) == [(old, ("contact", "a@x"))]  # deleted: 1
    assert _index_entries(index, old, dict(old, doc={"S": "changed"})) == []  # keys only, key unchanged: none
    everything = images.Index("all", "kind", None, None)
    assert len(_index_entries(everything, old, dict(old, doc={"S": "changed"}))) == 1  # projected: rewritten
    assert _index_entries(index, {"kind": {"S": "contact"}}, {"kind": {"S": "contact"}}) == []  # not in it


def test_tally_and_report_per_request_and_cached_items():
    tally = Tally(cached=("counters[version#*]",))
    for _ in range(10):
        tally.bill(WRITE, 2.0, "counters[count#contact]", "counters[count#contact]")
        tally.bill(READ, 0.5, "counters[version#segment]", "counters[version#segment]")
        tally.bill(READ, 1.0, None, "entities[contact]")
    result = report.Result("mix", "request", 5, tally, {"api": 5, "authorizer": 5}, container=(1.0, 20.0))
    hottest = result.hottest(KEY)[0]
    assert (hottest.name, hottest.writes, hottest.rate) == ("counters[count#contact]", 4.0, 250.0)
    assert [key.name for key in result.hottest(ITEM)] == ["counters[count#contact]"]  # a Query bills no item
    assert result.tally.totals[READ] == 10.0  # the cached item's reads are apart
    assert [(c.name, c.units_per_read, c.reads, c.rate) for c in result.cached] == [
        ("counters[version#segment]", 0.5, 10, 120000.0)
    ]
    assert result.limit == 250.0
    usage = result.usage()
    assert (usage.read_units, usage.write_units, usage.gateway_requests) == (2.0, 4.0, 1.0)
    shown = report.text(result)
    assert "counters[count#contact]" in shown and "250/s" in shown and "once per 1 s per container" in shown


def test_lambda_memory_and_architecture_come_from_the_deployment():
    assert cost.memory_mb("prod") == 1024 == cost.MEMORY_MB  # .chalice/config.json
    assert cost.memory_mb("local") == 128  # unset: chalice's default
    assert cost.ARCHITECTURE == "arm64"  # infra/runtime.py


def test_cost_per_million():
    usage = cost.Usage(
        read_units=4.0,
        write_units=2.0,
        invocations={"api": 1.0, "authorizer": 1.0},
        dynamodb_calls={"api": 3.0, "authorizer": 1.0},
        gateway_requests=1.0,
        sqs_requests=0.5,
        ses_messages=0.0,
    )
    lines = cost.per_million(usage)
    assert lines["dynamodb reads"] == pytest.approx(0.5)  # 4 million units at $0.125
    assert lines["dynamodb writes"] == pytest.approx(1.25)
    assert lines["api gateway"] == pytest.approx(3.5)
    assert lines["sqs"] == pytest.approx(0.2)
    gb_second = prices.LAMBDA_GB_SECOND[cost.ARCHITECTURE] * cost.MEMORY_MB / 1024
    api_seconds = (cost.BASE_MS["api"] + 3 * cost.CALL_MS) / 1000
    assert lines["lambda api"] == pytest.approx(0.2 + api_seconds * gb_second * 1e6)
    assert lines["total"] == pytest.approx(sum(v for k, v in lines.items() if k != "total"))


def test_reference_workloads_monthly():
    from devstack.capacity import reference

    per_million = {"segment-send": 100.0, "tracking": 10.0, "mix": 10.0, "import": 10.0}
    lines = reference.monthly(1_000_000, per_million)
    assert lines["segment-send"] == pytest.approx(400.0)  # 4M emails at $100 a million
    assert lines["tracking"] == pytest.approx(50.0) and lines["mix"] == pytest.approx(20.0)
    assert lines["import"] == pytest.approx(0.5)
    stored = 1_000_000 * (reference.STORED_PER_CONTACT + 4 * 12 * reference.STORED_PER_EMAIL) / 1e9
    assert lines["storage"] == pytest.approx(stored * 0.25)
    assert lines["total"] == pytest.approx(sum(v for k, v in lines.items() if k != "total"))
    results = [{"workload": "mix", "cost_per_million": {"total": 9.5}}]
    assert reference.costs(results) == {"mix": 9.5}
