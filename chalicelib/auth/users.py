"""Users: the API's owners, who authenticate with their username and password."""
from chalicelib.auth import passwords
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.basics import USER
from chalicelib.domain.kernel.context import Context
from chalicelib.store import entities as store


def create_user(username, password, first_name=None, last_name=None, email=None):
    """Store a new user with an argon2id password hash; returns the user document."""
    payload = {"username": username, "firstName": first_name, "lastName": last_name, "email": email}
    doc, _ = service.create(USER, payload, Context(), system={"passwordHash": passwords.hash_password(password)})
    return doc


def by_username(username):
    """The user document for a username (case-insensitive), or None. Two GetItems."""
    user_id = store.lookup(USER.kind, "username", username)
    return store.get(USER.kind, user_id) if user_id is not None else None


def active():
    """Published users in id order (one Query)."""
    return [u for u in store.iterate(USER.kind) if u.get("isPublished", True)]


def count():
    return store.count(USER.kind)


def check_password(username, password):
    """The published user with these credentials, or None (argon2id verification)."""
    user = by_username(username) if username else None
    if user is None or not user.get("isPublished", True) or not passwords.verify(user.get("passwordHash"), password):
        return None
    return user
