"""Password hashing with argon2id, and Mautic's strength policy."""

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MIN_STRENGTH = 3  # Mautic's `PasswordStrengthEstimatorModel::MINIMUM_PASSWORD_STRENGTH_ALLOWED` (zxcvbn 0-4)
DICTIONARY = ["mautic", "user", "lead", "bundle", "campaign", "company"]  # words Mautic adds to zxcvbn's

_dummy: list[str] = []


@cache
def _hasher() -> "PasswordHasher":
    """The argon2id hasher, imported on first use: a stack with Basic auth off (production's
    default) checks no password, and its request authorizer need not load argon2."""
    from argon2 import PasswordHasher

    return PasswordHasher()


class Hashed(str):
    """A password given as its argon2 hash (`ADMIN_PASSWORD_HASH`): the user is stored with that hash.
    Only code makes one (a request's JSON holds plain strings), so no client sets a hash."""


def hashed(text: str) -> Hashed:
    """`text` as an argon2 hash to store; ValueError when it is not one (argon2's PHC string format)."""
    from argon2 import extract_parameters
    from argon2.exceptions import InvalidHashError

    try:
        extract_parameters(text)
    except InvalidHashError:
        raise ValueError("not an argon2 hash (expected $argon2id$v=19$m=...,t=...,p=...$salt$hash)") from None
    return Hashed(text)


def hash_password(password: str) -> str:
    """The argon2id hash of a password (with its salt and parameters)."""
    return _hasher().hash(password)


def strong(password: str) -> bool:
    """Whether zxcvbn scores the password at least 3 of 4, with Mautic's extra words, as Mautic's
    `NotWeakValidator` requires (`UserApiControllerFunctionalTest::testUserPasswordPolicy`). Its
    estimate looks at the first 100 characters only, which keeps its cost bounded. zxcvbn is
    imported here: its word lists take tens of ms to load, which only a password change needs."""
    from zxcvbn import zxcvbn

    return int(zxcvbn(password[:100], user_inputs=DICTIONARY)["score"]) >= MIN_STRENGTH


def verify_nobody(password: str) -> bool:
    """Spend the time a verification takes when there is no user to check (unknown usernames must
    not answer faster than wrong passwords); always False."""
    if not _dummy:
        _dummy.append(_hasher().hash("no user has this password"))
    verify(_dummy[0], password)
    return False


def verify(stored_hash: str | None, password: str) -> bool:
    """True when `password` matches; constant-time inside argon2."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _hasher().verify(stored_hash or "", password)
    except (VerificationError, InvalidHashError):
        return False
