"""Password reset and invitation links, as Mautic's UserBundle (`PublicController::passwordResetAction`,
`passwordResetConfirmAction`, `UserModel::sendResetEmail`; docs/auth.md "Password reset and invitations").

A link carries a random 256-bit token (`secrets.token_urlsafe(32)`). The tokens port keeps it by its
SHA-256 only, with a TTL: a reset lives PASSWORD_RESET_HOURS (Mautic's 24), an invitation
INVITATION_DAYS. A token sets a password once (an atomic "used" flag), and only while the user's
password is the one it was issued against: any new password ends every link issued before. A request
answers the same whether the username or email names a user or not, and sends nothing past
PASSWORD_RESETS_PER_USER emails to one user a window; an address past PASSWORD_RESETS_PER_ADDRESS
requests gets 429. An administrator invites a user (move-in's new users) once."""

import hashlib
import logging
import secrets
from html import escape

from chalicelib import config
from chalicelib.auth import people, users
from chalicelib.auth.declarations import USER
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, Unprocessable, ValidationError
from chalicelib.domain.kernel.types import Doc
from chalicelib.ports import mail, tokens, window_counters
from chalicelib.records import record
from chalicelib.store import port as store

log = logging.getLogger(__name__)

KIND = "password-reset"  # the tokens port's kind of reset and invitation links
INVITED = "user-invited"  # the tokens port's kind of the marker "this user was invited" (no expiry)
RESET, INVITATION = "reset", "invitation"
CONFIRM_PATH = "/passwordresetconfirm"
EXPIRED = "This link has expired or is not valid. Ask for a new one on the password reset page."
USED = "This link was used already. Ask for a new one on the password reset page."
CHANGED = "The password was changed since this link was sent. Ask for a new one on the password reset page."
NO_EMAIL = "The user has no email address to send the invitation to."


class MailUnavailable(DomainError):
    """The mail service could not take the message now: 503, retry after a moment."""

    status = 503

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(config.active().RETRY_AFTER_SECONDS)}


@record
class Invitation:
    """What an invite did: `sent` False when the user had been invited before."""

    user_id: int
    sent: bool


def _lifetime(purpose: str) -> int:
    """Seconds a link of `purpose` works."""
    if purpose == INVITATION:
        return config.active().INVITATION_DAYS * 86400
    return config.active().PASSWORD_RESET_HOURS * 3600


def _fingerprint(user: Doc) -> str:
    """A short digest of the user's password hash: a token names it, so a newer password ends it."""
    return hashlib.sha256(str(user.get("passwordHash") or "").encode()).hexdigest()[:32]


def issue(user: Doc, purpose: str) -> str:
    """A new link token for `user` (kept hashed, with its TTL); the token itself, for the email only."""
    token = secrets.token_urlsafe(32)
    data = {"user": user["id"], "purpose": purpose, "password": _fingerprint(user)}
    tokens.put(KIND, token, data, seconds=_lifetime(purpose))
    return token


def find(identifier: str) -> Doc | None:
    """The user a username or email names (Mautic's `UserRepository::findByIdentifier`): the username
    first (two GetItems), then an email among the users (one Query; users are few)."""
    name = identifier.strip()
    if not name:
        return None
    user = users.by_username(name)
    if user is None and "@" in name:
        wanted = name.casefold()
        user = next((u for u in store.iterate(USER.kind) if str(u.get("email") or "").casefold() == wanted), None)
    return user


def request(identifier: str, ctx: Context, source: str | None) -> None:
    """A reset asked for `identifier`: the email sent when it names a published user with an email
    (within the per-user allowance); nothing tells the caller which. AuthError 429 past the address's
    allowance. A refused or unavailable send is logged, not told: the answer must not vary."""
    _throttle(source)
    user = find(identifier)
    if user is None or not user.get("isPublished", True) or not user.get("email"):
        return
    sent, _ = window_counters.count(f"reset-user:{user['id']}", config.active().SIGN_IN_WINDOW)
    if sent > config.active().PASSWORD_RESETS_PER_USER:
        return
    try:
        _send(user, RESET, ctx)
    except (mail.Rejected, mail.Unavailable) as error:
        log.warning("password reset email to user %s not sent: %s", user["id"], error)


def _throttle(source: str | None) -> None:
    """AuthError 429 when the address asked for more resets than its allowance this window."""
    window = config.active().SIGN_IN_WINDOW
    asked, wait = window_counters.count(f"reset-address:{source or '-'}", window)
    if asked > config.active().PASSWORD_RESETS_PER_ADDRESS:
        raise AuthError(
            429,
            f"Too many password reset requests. Try again in {wait} seconds.",
            "too_many_attempts",
            {"Retry-After": str(wait)},
        )


def invite(user_id: str, ctx: Context) -> Invitation:
    """Send `user_id` the invitation to set a password, unless they were invited before (a marker
    set before the send, removed when the send fails). NotFound for no such user; 422 for a user
    without an email or an address the mail service refuses; 503 when it is unavailable."""
    from chalicelib.domain.kernel import service  # the API function only: the authorizer never invites

    user = service.load(USER, user_id, ctx)
    if not user.get("email"):
        raise Unprocessable({"email": [NO_EMAIL]})
    if not tokens.put(INVITED, str(user["id"]), {"at": ctx.now}, only_new=True):
        return Invitation(int(user["id"]), False)
    try:
        _send(user, INVITATION, ctx)
    except Exception as error:
        tokens.delete(INVITED, str(user["id"]))  # not invited: a later call sends it
        if isinstance(error, mail.Rejected):
            raise Unprocessable({"email": [f"The invitation could not be sent: {error}"]}) from None
        if isinstance(error, mail.Unavailable):
            raise MailUnavailable("The mail service is unavailable; try again in a moment.") from None
        raise
    return Invitation(int(user["id"]), True)


def _send(user: Doc, purpose: str, ctx: Context) -> str:
    """Issue a token and email its link to the user, worded for `purpose`; the message id."""
    link = f"{ctx.base_url}{CONFIRM_PATH}?token={issue(user, purpose)}"
    subject, text = _wording(user, purpose, link)
    sender, sender_name = _sender(ctx)
    html = "<p>" + escape(text).replace("\n\n", "</p><p>").replace("\n", "<br>") + "</p>"
    html = html.replace(escape(link), f'<a href="{escape(link)}">{escape(link)}</a>')
    message = mail.Mail(
        sender=sender,
        sender_name=sender_name,
        to=str(user["email"]),
        to_name=_name(user),
        subject=subject,
        html=html,
        text=text,
        headers={"Auto-Submitted": "auto-generated"},
    )
    return mail.send(message)


def _wording(user: Doc, purpose: str, link: str) -> tuple[str, str]:
    """(subject, text) of the email: Mautic's reset words, or an invitation's."""
    greeting = f"Hi {user.get('firstName') or user.get('username')},"
    if purpose == INVITATION:
        days = config.active().INVITATION_DAYS
        body = (
            f"An account was made for you (username: {user.get('username')}). Click the link below to choose "
            f"your password. The link works once, for {days} days.\n\n{link}"
        )
        return "Your invitation: choose your password", f"{greeting}\n\n{body}"
    hours = config.active().PASSWORD_RESET_HOURS
    body = (
        "You requested a password reset. Click the link below to reset your password. "
        f"The link works once, for {hours} hours.\n\n{link}"
    )
    return "Mautic password reset", f"{greeting}\n\n{body}"  # Mautic's `mautic.user.user.passwordreset.*`


def _sender(ctx: Context) -> tuple[str, str]:
    """The instance's sender: the `mailerFromEmail`/`mailerFromName` settings, else MAILER_FROM_*."""
    docs = cached.documents("setting", ctx)
    stored = docs[0] if docs else {}
    return (
        stored.get("mailerFromEmail") or config.active().MAILER_FROM_EMAIL,
        stored.get("mailerFromName") or config.active().MAILER_FROM_NAME,
    )


def _name(user: Doc) -> str:
    return f"{user.get('firstName') or ''} {user.get('lastName') or ''}".strip()


def check(token: str) -> Doc:
    """The user whose password the token may still set (one GetItem of the token, one of the user);
    ValidationError (400) naming `token` otherwise: unknown or expired, used, or issued before the
    user's current password."""
    data, used = tokens.get(KIND, token) if token else (None, False)
    if not isinstance(data, dict):
        raise ValidationError({"token": [EXPIRED]})
    if used:
        raise ValidationError({"token": [USED]})
    user = store.get(USER.kind, int(data["user"]))
    if user is None:
        raise ValidationError({"token": [EXPIRED]})
    if _fingerprint(user) != data.get("password"):
        raise ValidationError({"token": [CHANGED]})
    return user


def confirm(token: str, password: object, confirmation: object, ctx: Context) -> Doc:
    """Set the password a valid token allows, by the service's password rules (6 characters, strong
    by zxcvbn: Mautic's), then spend the token; the user. ValidationError (400) naming the field otherwise."""
    user = check(token)
    try:
        plain = people.plain_password({"password": password, "confirm": confirmation}, strong=True)
    except a.Invalid as error:
        raise ValidationError({"password": [str(error)]}) from None
    if not tokens.use(KIND, token):
        raise ValidationError({"token": [USED]})
    changed = users.change(str(user["username"]), ctx, password=plain)
    if changed is None:  # deleted since it was read
        raise ValidationError({"token": [EXPIRED]})
    return changed
