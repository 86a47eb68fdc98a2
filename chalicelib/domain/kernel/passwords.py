"""Password hashing with argon2id."""

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
_dummy: list[str] = []


def hash_password(password: str) -> str:
    """The argon2id hash of a password (with its salt and parameters)."""
    return _hasher.hash(password)


def verify_nobody(password: str) -> bool:
    """Spend the time a verification takes when there is no user to check (unknown usernames must
    not answer faster than wrong passwords); always False."""
    if not _dummy:
        _dummy.append(_hasher.hash("no user has this password"))
    verify(_dummy[0], password)
    return False


def verify(stored_hash: str | None, password: str) -> bool:
    """True when `password` matches; constant-time inside argon2."""
    try:
        return _hasher.verify(stored_hash or "", password)
    except (VerificationError, InvalidHashError):
        return False
