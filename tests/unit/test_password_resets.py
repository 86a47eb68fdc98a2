"""The rules of reset and invitation tokens (auth/resets.py): random and long, kept only by their hash
with the purpose's lifetime, expiring, single use, and ended by a newer password."""

import hashlib
import time

import pytest

from chalicelib.auth import resets, users
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.ports import adapters

STRONG = "Blue-heron-42-lake"


@pytest.fixture
def ada(seeded_store):
    return users.create_user("ada", "first-secret-1", "Ada", "L", "ada@example.com")


def _reason(token):
    with pytest.raises(ValidationError) as refused:
        resets.check(token)
    return refused.value.fields["token"][0]


def test_a_token_is_random_long_and_stored_only_by_its_hash_with_its_lifetime(ada):
    secrets_kept = adapters.active().tokens.secrets
    before = time.time()
    issued = [resets.issue(ada, resets.RESET) for _ in range(20)]
    assert len(set(issued)) == 20 and all(len(token) >= 43 for token in issued)  # 256 bits, url-safe
    stored = {key: secrets_kept[key] for key in secrets_kept if key.startswith(resets.KIND)}
    assert set(stored) == {f"{resets.KIND}#{hashlib.sha256(t.encode()).hexdigest()}" for t in issued}
    assert not any(token in key or token in secret.data for token in issued for key, secret in stored.items())
    assert all(before + 24 * 3600 <= s.expires <= time.time() + 24 * 3600 for s in stored.values())
    invitation = resets.issue(ada, resets.INVITATION)
    key = f"{resets.KIND}#{hashlib.sha256(invitation.encode()).hexdigest()}"
    assert secrets_kept[key].expires >= before + 7 * 86400


def test_a_token_sets_the_password_once(ada):
    token = resets.issue(ada, resets.RESET)
    assert resets.check(token)["id"] == ada["id"]
    resets.confirm(token, STRONG, STRONG, Context())
    assert users.check_password("ada", STRONG) is not None and users.check_password("ada", "first-secret-1") is None
    assert _reason(token) == resets.USED
    with pytest.raises(ValidationError):
        resets.confirm(token, "Another-42-river", "Another-42-river", Context())
    assert users.check_password("ada", STRONG) is not None


def test_a_token_expires_with_its_purpose(ada, configure):
    configure(PASSWORD_RESET_HOURS=1, INVITATION_DAYS=2)
    reset, invitation = resets.issue(ada, resets.RESET), resets.issue(ada, resets.INVITATION)
    tokens = adapters.active().tokens
    tokens.clock = lambda: time.time() + 3601
    assert _reason(reset) == resets.EXPIRED and resets.check(invitation)["id"] == ada["id"]
    tokens.clock = lambda: time.time() + 2 * 86400 + 1
    assert _reason(invitation) == resets.EXPIRED


def test_a_newer_password_ends_every_token_issued_before(ada):
    older, newer = resets.issue(ada, resets.RESET), resets.issue(ada, resets.RESET)
    resets.confirm(newer, STRONG, STRONG, Context())
    assert _reason(older) == resets.CHANGED
    users.change("ada", Context(), password="set-by-the-cli-1")
    later = resets.issue(users.by_username("ada"), resets.RESET)
    users.change("ada", Context(), password="set-again-1")
    assert _reason(later) == resets.CHANGED


def test_a_weak_password_leaves_the_token_unused(ada):
    token = resets.issue(ada, resets.RESET)
    with pytest.raises(ValidationError) as refused:
        resets.confirm(token, "password1", "password1", Context())
    assert list(refused.value.fields) == ["password"]
    assert resets.check(token)["id"] == ada["id"]


def test_unknown_tokens_and_identifiers(ada):
    assert _reason("") == resets.EXPIRED and _reason("not-a-token") == resets.EXPIRED
    assert resets.find("ADA")["id"] == ada["id"] and resets.find("Ada@Example.com")["id"] == ada["id"]
    assert resets.find("nobody") is None and resets.find("nobody@example.com") is None and resets.find(" ") is None
