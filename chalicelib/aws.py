"""AWS clients by service name, one per process, created on first use (boto3 loads then, not when
the function starts)."""

from typing import Any

from chalicelib import config

_clients: dict[str, Any] = {}  # boto3 clients: boto3 ships no types


def client(service: str) -> Any:
    """The boto3 client of `service` ("sqs", "s3", "ses", "sns") in the service's region."""
    if service not in _clients:
        import boto3  # with s3transfer and multiprocessing: paid by the first call, not by every cold start

        _clients[service] = boto3.client(service, region_name=config.AWS_REGION)
    return _clients[service]
