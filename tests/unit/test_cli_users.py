"""`python -m chalicelib.cli users create`: the new user gets the role asked for, by name or id, and
an administrator only when `--role administrator` says so (issue 44)."""

import json

import pytest

from chalicelib import cli, config
from chalicelib.auth import users
from chalicelib.auth.declarations import ROLE
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context


@pytest.fixture
def sales(seeded_store):
    """A limited role, for the CLI acting on the active store (given the tests' settings)."""
    role, _ = service.create(ROLE, {"name": "Sales", "rawPermissions": {"lead:leads": ["viewown"]}}, Context())
    return role


def _create(capsys, *role):
    argv = ["--json", "users", "create", "--username", "jane", "--password", "jane-secret-1", *role]
    code = cli.main(argv, config.active())
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


@pytest.mark.parametrize("given", ["Sales", "sales", "id"])
def test_the_role_is_the_one_named_or_numbered(sales, capsys, given):
    code, user = _create(capsys, "--role", str(sales["id"]) if given == "id" else given)
    assert code == 0 and user["role"]["id"] == sales["id"]
    stored = users.by_username("jane")
    assert stored is not None and stored["role"] == sales["id"]
    assert users.role_named("Sales", Context())["isAdmin"] is False


def test_an_administrator_only_when_asked(sales, capsys):
    code, user = _create(capsys, "--role", "administrator")
    assert code == 0 and user["role"]["isAdmin"] is True


def test_no_role_or_an_unknown_one_creates_nobody(sales, capsys):
    with pytest.raises(SystemExit) as refused:  # argparse: --role is required
        _create(capsys)
    assert refused.value.code == 2 and "--role" in capsys.readouterr().err
    code, message = _create(capsys, "--role", "Marketing")
    assert code == 1 and "no role named Marketing" in message and "Sales" in message
    assert users.by_username("jane") is None
