"""Password hashing with argon2id."""
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def hash_password(password):
    return _hasher.hash(password)


def verify(stored_hash, password):
    """True when `password` matches; constant-time inside argon2."""
    try:
        return _hasher.verify(stored_hash or "", password)
    except (VerificationError, InvalidHashError):
        return False
