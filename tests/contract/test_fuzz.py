"""Fuzzing every operation of the OpenAPI document against the app in process (schemathesis).

Each operation gets a few derandomized examples (FUZZ_EXAMPLES, default 3) sent as the
administrator through the local API Gateway: no answer may be a 5xx, and every answer must conform
to the document (status, content type, headers, body schema). `make fuzz` asks for more examples
and adds schemathesis' coverage phase (FUZZ_COVERAGE=1: boundary values, wrong types, missing and
oversize values for every parameter and body), which takes minutes.
"""

import base64
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from chalicelib.api.blueprints import openapi_document
from chalicelib.store import port as store
from tests.conftest import ADMIN, forget_process_state, over_memory
from tests.contract.wsgi import wsgi_app

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "3"))
PHASES = [Phase.explicit, Phase.generate] if os.environ.get("FUZZ_COVERAGE") == "1" else [Phase.generate]
AUTH = {"Authorization": "Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_dict(openapi_document("http://127.0.0.1"))
ACTING = ("/api/users/{id}", "/api/roles/{id}")  # the administrator (user 1) and its role (role 1)


@schema.hook("map_case")
def spare_the_acting_administrator(context, case):
    """The fuzz acts as the administrator: its writes never target that user or its role (a new
    password, a disabled user or a role without `isAdmin` would lock the harness out)."""
    if case.method == "GET":
        return case
    if case.path.startswith(ACTING) and str((case.path_parameters or {}).get("id")) == "1":
        case.path_parameters["id"] = 2
    if case.path == "/api/roles/batch/{action}":
        if isinstance(case.body, list):
            case.body = [item for item in case.body if not (isinstance(item, dict) and str(item.get("id")) == "1")]
        if case.query and "ids" in case.query:
            case.query = {k: v for k, v in case.query.items() if k != "ids"}
    return case


@pytest.fixture(scope="module")
def app(chalice_app, memory_seeded):
    """The app from the first-start state, over the in-memory store and adapters; the operations'
    writes then pile up, as on a live stack."""
    with over_memory(memory_seeded.copy()):
        forget_process_state()
        yield wsgi_app(chalice_app)
    forget_process_state()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    phases=PHASES,
    suppress_health_check=list(HealthCheck),
)
def test_operation(case, app):
    case.call_and_validate(headers=AUTH, checks=CHECKS, app=app)


@pytest.mark.skipif(os.environ.get("FUZZ_STATEFUL") != "1", reason="the long run only (make fuzz)")
def test_sequences_of_operations(app, memory_seeded):
    """Schemathesis' stateful phase: sequences that create a document and use its id in the next calls
    (links inferred from the answers and path parameters), FUZZ_EXAMPLES scenarios of up to
    FUZZ_STEPS calls from the first-start state, with the checks of `test_operation`."""

    class Sequences(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self):
            store.use(memory_seeded.copy())  # each scenario from the first start: the same calls draw the same cases
            forget_process_state()

        def get_call_kwargs(self, case):
            return {"headers": AUTH, "app": app}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    Sequences.run(
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=int(os.environ.get("FUZZ_STEPS", "10")),
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_the_harness_routes_and_authenticates_like_the_gateway(app):
    from werkzeug.test import Client

    client = Client(app)
    assert client.get("/api/no/such/path", headers=AUTH).status_code == 404
    assert client.get("/api/contacts").status_code == 401
    assert client.get("/api/contacts", headers=AUTH).status_code == 200
    assert client.delete("/api/contacts", headers=AUTH).status_code == 405
