"""The report of a measured workload: units per unit of work (a request, a contact...) per item
and per partition key, the rate at which each throttles, the hottest ones, the whole workload's
units and its cost per million; as text (`text`) and as JSON (`as_json`)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from devstack.capacity import cost, units
from devstack.capacity.meter import ITEM, KEY, READ, WRITE, Tally

HOTTEST = 10
APP_SQS = ("SendMessage", "SendMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch")


@dataclass(frozen=True)
class Key:
    """An item or partition key and what it spent per unit of work."""

    scope: str  # item or key (a partition key of a table or index)
    name: str
    reads: float
    writes: float

    @property
    def rate(self) -> float:
        """Units of work per second at which this key reaches DynamoDB's per-key limit."""
        return min(
            units.throttle_rate(self.writes, units.ITEM_WRITE_LIMIT),
            units.throttle_rate(self.reads, units.ITEM_READ_LIMIT),
        )


@dataclass(frozen=True)
class Cached:
    """An item read at most once per interval per container: units per read, throttle rate."""

    name: str
    units_per_read: float
    reads: int
    rate: float


@dataclass
class Result:
    """A measured workload."""

    workload: str
    per: str
    count: int
    tally: Tally
    invocations: dict[str, int]
    keys: list[Key] = field(default_factory=list)
    cached: list[Cached] = field(default_factory=list)
    container: tuple[float, float] = (1.0, 20.0)  # cache seconds, requests per second per container

    def __post_init__(self) -> None:
        spent: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: {READ: 0.0, WRITE: 0.0})
        for (scope, name, kind), amount in self.tally.units.items():
            spent[(scope, name)][kind] += amount / self.count
        self.keys = sorted(
            (Key(scope, name, both[READ], both[WRITE]) for (scope, name), both in spent.items()),
            key=lambda key: (key.rate, key.name),
        )
        seconds, rate = self.container
        for name, amount in sorted(self.tally.cached_units.items()):
            reads = self.tally.cached_reads[name]
            limit = units.cached_throttle_rate(amount / reads, units.ITEM_READ_LIMIT, seconds, rate)
            self.cached.append(Cached(name, amount / reads, reads, limit))

    def hottest(self, scope: str, count: int = HOTTEST) -> list[Key]:
        """The `count` keys of `scope` that throttle first."""
        return [key for key in self.keys if key.scope == scope][:count]

    @property
    def limit(self) -> float:
        """Units of work per second at which the first key throttles (cached items included)."""
        rates = [key.rate for key in self.keys] + [c.rate for c in self.cached]
        return min(rates, default=math.inf)

    def usage(self) -> cost.Usage:
        """What one unit of work used, for the cost model."""
        services = self.tally.services
        worker_batches = self.invocations.get("worker", 0)
        sqs = sum(services[f"sqs:{name}"] for name in APP_SQS) + 2 * worker_batches  # + Lambda's receive, delete
        ses = services["ses:SendEmail"] + services["ses:SendRawEmail"] + services["sesv2:SendEmail"]
        return cost.Usage(
            read_units=self.tally.totals[READ] / self.count,
            write_units=self.tally.totals[WRITE] / self.count,
            invocations={role: n / self.count for role, n in self.invocations.items() if n},
            dynamodb_calls={role: n / self.count for role, n in self.tally.role_calls.items()},
            gateway_requests=self.invocations.get("api", 0) / self.count,
            sqs_requests=sqs / self.count,
            ses_messages=ses / self.count,
        )


def _rate(value: float) -> str:
    return "never" if math.isinf(value) else f"{value:,.0f}/s"


def _keys_table(result: Result, scope: str) -> list[str]:
    title = "items" if scope == ITEM else "partition keys (table or table.index)"
    lines = [f"hottest {title}, units per {result.per}:", f"  {'key':<48} {'read':>8} {'write':>8}  throttles at"]
    for key in result.hottest(scope):
        lines.append(f"  {key.name[:48]:<48} {key.reads:>8.3f} {key.writes:>8.3f}  {_rate(key.rate)}")
    return lines


def _cached_table(result: Result) -> list[str]:
    if not result.cached:
        return []
    seconds, rate = result.container
    lines = [
        f"read at most once per {seconds:g} s per container (a container serving {rate:g} {result.per}s/s):",
        f"  {'item':<48} {'units/read':>10} {'reads':>6}  throttles at",
    ]
    for cached in result.cached:
        lines.append(f"  {cached.name[:48]:<48} {cached.units_per_read:>10.2f} {cached.reads:>6}  {_rate(cached.rate)}")
    return lines


def text(result: Result, commit: str = "") -> str:
    """The human report."""
    usage = result.usage()
    calls = sum(result.tally.calls.values()) / result.count
    at = f" (the service at {commit})" if commit else ""
    lines = [
        f"capacity: {result.workload}, {result.count:,} {result.per}s measured{at}",
        f"whole workload per {result.per}: {usage.read_units:.2f} read + {usage.write_units:.2f} write units, "
        f"{calls:.2f} DynamoDB calls ({sum(result.tally.refused.values())} refused); "
        f"first key throttles at {_rate(result.limit)} {result.per}s",
        *_keys_table(result, KEY),
        *_keys_table(result, ITEM),
        *_cached_table(result),
        f"cost per million {result.per}s (on-demand, us-east-1):",
    ]
    for line, dollars in cost.per_million(usage).items():
        lines.append(f"  {line:<20} ${dollars:>10,.3f}")
    return "\n".join(lines)


def as_json(result: Result) -> dict[str, Any]:
    """The report as JSON-ready data (`--json FILE`)."""
    usage = result.usage()
    return {
        "workload": result.workload,
        "per": result.per,
        "count": result.count,
        "read_units": usage.read_units,
        "write_units": usage.write_units,
        "dynamodb_calls": dict(result.tally.calls),
        "refused_calls": {name: n for name, n in result.tally.refused.items() if n},
        "limit": None if math.isinf(result.limit) else result.limit,
        "keys": [
            {
                "scope": k.scope,
                "name": k.name,
                "read": k.reads,
                "write": k.writes,
                "rate": None if math.isinf(k.rate) else k.rate,
            }
            for k in result.keys[: 5 * HOTTEST]
        ],
        "cached": [vars(c) for c in result.cached],
        "invocations": result.invocations,
        "services": dict(result.tally.services),
        "cost_per_million": cost.per_million(usage),
    }
