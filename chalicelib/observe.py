"""What the functions tell CloudWatch: JSON log lines carrying the invocation's request id and
caller, and metrics in the Embedded Metric Format (EMF: a JSON line in the log that CloudWatch
turns into metrics, with no API call and no client to create).

aws-lambda-powertools (Logger, Metrics, BatchProcessor) does this and more, but importing it costs
about 110 ms with python3.13 against a 200 ms budget for `import app` (docs/deploy.md); these few
lines cost nothing measurable. Off Lambda the log stays as configured and metrics are not written.
"""

import contextvars
import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from chalicelib import config

NAMESPACE = "Mautic"
UNITS = {"QueueLag": "Milliseconds", "BounceRate": "Percent", "ComplaintRate": "Percent"}  # the rest are counts
ON_LAMBDA = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
_OUTSIDE: Mapping[str, Any] = MappingProxyType({})  # the log fields outside an invocation: none
_invocation: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("invocation", default=_OUTSIDE)


def begin(request_id: str | None, **fields: Any) -> None:
    """Start an invocation's log context (the request id, and e.g. the API request's id)."""
    _invocation.set({"requestId": request_id, **{k: v for k, v in fields.items() if v}})


def identify(caller: Mapping[str, Any]) -> None:
    """Name the caller (`{"user": ..., "client": ...}`) in the rest of the invocation's log lines."""
    _invocation.set({**_invocation.get(), "caller": caller})


def context() -> dict[str, Any]:
    """The current invocation's log fields."""
    return dict(_invocation.get())


class JsonFormatter(logging.Formatter):
    """One JSON object per log record, with the invocation's fields."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line: time, level, logger, message, the invocation's fields, any traceback."""
        line = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_invocation.get(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def install() -> None:
    """On Lambda, format the runtime's log handlers as JSON lines at INFO."""
    root = logging.getLogger()
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
    root.setLevel(logging.INFO)


def metrics(dimensions: Mapping[str, str], **values: float) -> None:
    """Write values (e.g. `Messages=10, QueueLag=1200`) as one EMF record under the stack and the
    given dimensions (e.g. `{"Queue": "sends"}`)."""
    named = {"Stack": config.active().RESOURCE_PREFIX.rstrip("-"), **dimensions}
    record = {
        "_aws": {
            "Timestamp": int(time.time() * 1000),
            "CloudWatchMetrics": [
                {
                    "Namespace": NAMESPACE,
                    "Dimensions": [list(named)],
                    "Metrics": [{"Name": name, "Unit": UNITS.get(name, "Count")} for name in values],
                }
            ],
        },
        **named,
        **values,
        **_invocation.get(),
    }
    _write(json.dumps(record, default=str))


def _write(line: str) -> None:
    """Print a line to the function's log on Lambda (CloudWatch reads stdout); nothing elsewhere."""
    if ON_LAMBDA:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


if ON_LAMBDA:
    install()
