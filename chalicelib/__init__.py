"""Application package: HTTP API, domain rules, storage and workers of the service."""
