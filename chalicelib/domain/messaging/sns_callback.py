"""Mautic's `/mailer/callback` for SNS subscribed over HTTPS. SNS signs the messages of every AWS
account's topics alike, so a valid signature proves only that some topic sent the message: the
callback fails closed and checks, in this order, before anything is fetched:

1. the topic is one of MAILER_CALLBACK_TOPICS (none unless configured; the template sets the
   stack's own) and of the stack's account (STACK_ACCOUNT_ID);
2. SigningCertURL is `https://sns.<the topic's region>.amazonaws.com/SimpleNotificationService-….pem`
   exactly (a SubscribeURL, the same host with Action=ConfirmSubscription for that topic);
3. a notification's SES message is a JSON object (feedback.loads: else 400, once) whose
   `mail.sendingAccountId` is the stack's account.

Then the signing certificate is fetched (no redirects; its key kept per URL, a failure remembered
for FAILURE_SECONDS of wall time, which goes on while a Lambda is frozen) and the signature checked
(AWS's rules, https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html: the
signed text is name, newline, value, newline for the type's fields in byte order, Subject only when
present; SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA). Every refusal answers the same 403
(`REFUSED`) and logs its reason: a fetch error is never echoed. A confirmation is confirmed by
fetching its SubscribeURL; a notification is queued on the `feedback` queue, where the worker
handles it as any SES feedback (domain/messaging/feedback.py).
"""

import base64
import binascii
import logging
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

from chalicelib import config
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import feedback
from chalicelib.ports import certificates, queues

SIGNED = {
    "Notification": ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"),
    "SubscriptionConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
    "UnsubscribeConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
}
TOPIC_ARN = r"^arn:(aws|aws-cn|aws-us-gov):sns:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):[A-Za-z0-9_-]{1,256}$"
CERT_PATH = r"^/SimpleNotificationService-[A-Za-z0-9]{1,64}\.pem$"
REFUSED = "The message is not one Amazon SNS signed for a topic this service accepts."
QUEUE = "feedback"
FAILURE_SECONDS = 300.0  # a certificate URL that could not be fetched is not asked for again for this long
KEYS_KEPT, FAILURES_KEPT = 16, 256
log = logging.getLogger(__name__)
_keys: dict[str, Any] = {}  # certificate URL -> its RSA public key (SNS publishes a new key under a new URL)
_failed: dict[str, float] = {}  # certificate URL -> wall time until which it is not fetched again


class Refused(Exception):
    """The message is not one SNS signed for an accepted topic (the callback answers 403, REFUSED;
    the reason is only logged)."""


def forget() -> None:
    """Drop the kept keys and remembered failures (tests)."""
    _keys.clear()
    _failed.clear()


def regional_host(topic_arn: str) -> str:
    """The SNS host of an accepted topic's region (Refused for a topic not accepted)."""
    found = re.match(TOPIC_ARN, topic_arn)
    if topic_arn not in config.active().MAILER_CALLBACK_TOPICS or found is None:
        raise Refused(f"topic {topic_arn[:300]!r} is not one of MAILER_CALLBACK_TOPICS")
    partition, region, account = found.groups()
    if account != config.active().STACK_ACCOUNT_ID:
        raise Refused(f"topic {topic_arn!r} is not of the stack's account {config.active().STACK_ACCOUNT_ID!r}")
    return f"sns.{region}.amazonaws.com" + (".cn" if partition == "aws-cn" else "")


def certificate_url(url: str, host: str) -> bool:
    """Whether `url` is `https://<host>/SimpleNotificationService-<name>.pem` and nothing else."""
    parts = urlsplit(url)
    exact = parts.scheme == "https" and parts.netloc == host and not parts.query and not parts.fragment
    return exact and bool(re.match(CERT_PATH, parts.path))


def subscribe_url(url: str, host: str, topic_arn: str) -> bool:
    """Whether `url` confirms a subscription to `topic_arn` on `host` (as SNS writes SubscribeURL)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    exact = parts.scheme == "https" and parts.netloc == host and parts.path == "/" and not parts.fragment
    return exact and query.get("Action") == ["ConfirmSubscription"] and query.get("TopicArn") == [topic_arn]


def canonical(message: Doc) -> bytes:
    """The text SNS signed: each of the type's fields present, name, newline, value, newline."""
    fields = SIGNED.get(str(message.get("Type")))
    if fields is None:
        raise Refused(f"unknown SNS message type {str(message.get('Type'))[:50]!r}")
    text = ""
    for name in fields:
        value = message.get(name)
        if value is None and name == "Subject":
            continue
        if not isinstance(value, str):
            raise Refused(f"the SNS message has no {name}")
        text += f"{name}\n{value}\n"
    return text.encode("utf-8")


def _addressed(message: Doc) -> None:
    """The checks made before any fetch: the topic, the certificate's and SubscribeURL's host, and
    a notification's SES message and sending account (Poison, a ValueError, for a message that is
    no SES notification)."""
    host = regional_host(str(message["TopicArn"]))
    if not certificate_url(str(message.get("SigningCertURL") or ""), host):
        raise Refused(f"SigningCertURL is not an SNS certificate of {host}")
    if message["Type"] != "Notification":
        if not subscribe_url(message["SubscribeURL"], host, message["TopicArn"]):
            raise Refused(f"SubscribeURL does not confirm this topic on {host}")
        return
    sender = (feedback.loads(message["Message"]).get("mail") or {}).get("sendingAccountId")
    if str(sender) != config.active().STACK_ACCOUNT_ID:
        raise Refused(f"sendingAccountId {str(sender)[:20]!r} is not the stack's account")


def _signing_key(url: str) -> Any:
    """The RSA key of the certificate at `url`: kept per URL; a failed fetch is remembered for
    FAILURE_SECONDS, during which the URL is refused without asking again."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import rsa

    if url in _keys:
        return _keys[url]
    if _failed.get(url, 0.0) > time.time():
        raise Refused(f"the certificate {url} failed less than {FAILURE_SECONDS:g} s ago")
    try:
        key = x509.load_pem_x509_certificate(certificates.get(url)).public_key()
        if not isinstance(key, rsa.RSAPublicKey):
            raise ValueError("its key is not RSA")
    except (OSError, ValueError) as error:
        _keep(_failed, url, time.time() + FAILURE_SECONDS, FAILURES_KEPT)
        raise Refused(f"the certificate {url} cannot be used: {error}") from None
    return _keep(_keys, url, key, KEYS_KEPT)


def _keep(kept: dict[str, Any], url: str, value: Any, most: int) -> Any:
    """Keep `value` under `url`, dropping the oldest entries past `most`; the value."""
    kept.pop(url, None)
    kept[url] = value
    while len(kept) > most:
        kept.pop(next(iter(kept)))
    return value


def verify(message: Doc) -> None:
    """Raise Refused unless SNS signed `message` for an accepted topic (Poison for a notification
    whose message is not an SES notification); nothing is fetched before the topic and hosts pass."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    text = canonical(message)
    algorithm = {"1": hashes.SHA1(), "2": hashes.SHA256()}.get(str(message.get("SignatureVersion")))
    if algorithm is None:
        raise Refused("unknown SignatureVersion")
    _addressed(message)
    try:
        signature = base64.b64decode(str(message.get("Signature") or ""), validate=True)
    except binascii.Error:
        raise Refused("the signature is not base64") from None
    try:
        _signing_key(message["SigningCertURL"]).verify(signature, text, padding.PKCS1v15(), algorithm)
    except InvalidSignature:
        raise Refused("the SNS signature does not match") from None


def receive(message: Doc) -> str:
    """One POST from SNS, its body parsed: what was done (`queued`, `confirmed`, `ignored`). Raises
    ValueError for a body that is no SNS message of SES feedback (400), Refused for a message SNS
    did not sign for an accepted topic (403), OSError when the subscription could not be confirmed
    (502: SNS tries again)."""
    if not isinstance(message, dict):
        raise ValueError("The body is not a JSON object.")
    try:
        verify(message)
    except Refused as error:
        log.warning("mailer callback refused: %s", error)
        raise
    kind = message["Type"]
    if kind == "SubscriptionConfirmation":
        certificates.get(message["SubscribeURL"])
        return "confirmed"
    if kind != "Notification":
        return "ignored"
    queues.send(QUEUE, [message])
    return "queued"
