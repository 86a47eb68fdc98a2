"""The cost model: what one million units of a workload (requests, contacts, messages, hits)
cost at on-demand prices (`prices`), from the quantities measured per unit. Pure.

Lambda durations are an assumption, not measured in process (moto's timings say nothing of
DynamoDB's): a function's invocation lasts BASE_MS plus CALL_MS per DynamoDB call it makes
(single-digit-millisecond calls in one region, made one after another), billed by the
millisecond at the functions' memory (`.chalice/config.json`, the prod stage: 1,024 MB) and
architecture (`infra/runtime.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from devstack.capacity import prices
from infra import runtime

BASE_MS = {"api": 15.0, "authorizer": 5.0, "worker": 30.0}  # the function's own work per invocation
CALL_MS = 6.0  # one DynamoDB call, as the function waits for it
CHALICE_CONFIG = Path(__file__).resolve().parents[2] / ".chalice" / "config.json"
ARCHITECTURE = runtime.ARCHITECTURE


def memory_mb(stage: str = "prod") -> int:
    """The functions' memory in the deployed stage (chalice's default, 128 MB, when unset)."""
    stages = json.loads(CHALICE_CONFIG.read_text())["stages"]
    return int(stages.get(stage, {}).get("lambda_memory_size", 128))


MEMORY_MB = memory_mb()


@dataclass(frozen=True)
class Usage:
    """What one unit of a workload used, on average."""

    read_units: float
    write_units: float
    invocations: dict[str, float]  # function role (api, authorizer, worker) -> invocations
    dynamodb_calls: dict[str, float]  # function role -> DynamoDB calls
    gateway_requests: float
    sqs_requests: float
    ses_messages: float


def lambda_seconds(role: str, invocations: float, calls: float) -> float:
    """Billed seconds of a function's invocations making `calls` DynamoDB calls between them."""
    return (invocations * BASE_MS.get(role, BASE_MS["api"]) + calls * CALL_MS) / 1000.0


def per_million(usage: Usage) -> dict[str, float]:
    """Dollars per million units of the workload, by line (DynamoDB reads and writes, each
    function's Lambda, API Gateway, SQS, SES) and `total`."""
    lines = {
        "dynamodb reads": usage.read_units * prices.DYNAMODB_READ_UNIT,
        "dynamodb writes": usage.write_units * prices.DYNAMODB_WRITE_UNIT,
    }
    gb_second = prices.LAMBDA_GB_SECOND[ARCHITECTURE] * MEMORY_MB / 1024
    for role, count in sorted(usage.invocations.items()):
        seconds = lambda_seconds(role, count, usage.dynamodb_calls.get(role, 0.0))
        lines[f"lambda {role}"] = count * prices.LAMBDA_REQUEST + seconds * gb_second
    lines["api gateway"] = usage.gateway_requests * prices.API_GATEWAY_REST_REQUEST
    lines["sqs"] = usage.sqs_requests * prices.SQS_REQUEST
    lines["ses"] = usage.ses_messages * prices.SES_MESSAGE
    million = {name: value * 1e6 for name, value in lines.items()}
    million["total"] = sum(million.values())
    return million
