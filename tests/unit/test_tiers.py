"""The unit tier's promise: the domain, the composition root's modules and the in-memory store load
without moto or boto3 (the session-end check in tests/conftest.py covers what the tests import)."""

import subprocess
import sys

from chalicelib.store import port
from devstack.memory import MemoryStore


def test_the_domain_and_the_memory_store_import_without_moto_or_boto3():
    code = (
        "import os, sys; from chalicelib import config; config.install(config.Settings.from_environment(os.environ)); "
        "import chalicelib.domain.wiring, chalicelib.bootstrap, devstack.memory; "
        "print(sorted(m for m in ('moto', 'boto3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unit_tests_run_over_the_memory_store(memory_store):
    assert isinstance(port.active(), MemoryStore) and port.active() is memory_store


def test_the_default_store_is_dynamodb_when_nothing_was_chosen():
    chosen = port.use(None)
    try:
        assert port.active().__name__ == "chalicelib.store.entities"
    finally:
        port.use(chosen)
