"""ADMIN_PASSWORD_HASH (issue 44): the first start stores an administrator given by an argon2 hash as it
is (no hashing at start, no password in the environment); only such a hash is accepted, and a client's
password that looks like a hash is still hashed as a password."""

import pytest

from chalicelib import bootstrap
from chalicelib.auth import passwords, users
from chalicelib.store import port as store

SECRET = "operator-secret-9"


@pytest.fixture(scope="module")
def argon2_hash():
    return passwords.hash_password(SECRET)


def test_the_first_administrator_is_stored_with_the_given_hash(memory_store, argon2_hash):
    assert bootstrap.ensure_admin("boss", passwords.hashed(argon2_hash)) is None  # nothing generated or shown
    (user,) = store.iterate("user")
    assert user["username"] == "boss" and user["passwordHash"] == argon2_hash
    assert users.check_password("boss", SECRET) is not None
    assert users.check_password("boss", argon2_hash) is None  # the hash is not the password


def test_only_an_argon2_hash_is_accepted():
    for text in ("operator-secret-9", "$2y$13$abcdefghijklmnopqrstuu", "$argon2id$v=19$broken"):
        with pytest.raises(ValueError, match="not an argon2 hash"):
            passwords.hashed(text)


def test_a_password_that_looks_like_a_hash_is_hashed_as_any_password(memory_store, argon2_hash):
    users.create_user("mallory", argon2_hash)
    (user,) = store.iterate("user")
    assert user["passwordHash"] != argon2_hash
    assert users.check_password("mallory", argon2_hash) is not None
