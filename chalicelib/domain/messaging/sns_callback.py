"""Mautic's `/mailer/callback` for SNS subscribed over HTTPS: the message's signature is checked
against the certificate SNS names (fetched only from an `sns.<region>.amazonaws.com` host over
https, cached per URL in the process), a subscription confirmation is confirmed by fetching its
SubscribeURL, and a notification is queued on the `feedback` queue, where the worker handles it as
any SES feedback (domain/messaging/feedback.py): one SendMessage answers SNS fast, and a failure
there is retried and ends in the DLQ like the rest of the path.

AWS's rules (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): the
signed text is name, newline, value, newline for the type's fields in byte order, Subject only when present;
SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA. MAILER_CALLBACK_TOPICS, when set, also limits
the topics accepted: SNS signs the messages of every AWS account's topics alike.
"""

import base64
import binascii
import json
import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from chalicelib import config
from chalicelib.channels import sns_https
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import queues

SIGNED = {
    "Notification": ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"),
    "SubscriptionConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
    "UnsubscribeConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
}
SNS_HOST = re.compile(r"^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")
QUEUE = "feedback"


class Refused(Exception):
    """The message is not one SNS signed for an accepted topic (the callback answers 403)."""


def sns_url(url: str, pem: bool = False) -> bool:
    """Whether `url` is https on an SNS host (a certificate's path also ends with `.pem`)."""
    parts = urlsplit(url)
    host_ok = parts.scheme == "https" and parts.port in (None, 443) and bool(SNS_HOST.match(parts.hostname or ""))
    return host_ok and not parts.username and (not pem or parts.path.endswith(".pem"))


def canonical(message: Doc) -> bytes:
    """The text SNS signed: each of the type's fields present, name, newline, value, newline."""
    fields = SIGNED.get(str(message.get("Type")))
    if fields is None:
        raise Refused(f"Unknown SNS message type {message.get('Type')!r}.")
    text = ""
    for name in fields:
        value = message.get(name)
        if value is None and name == "Subject":
            continue
        if not isinstance(value, str):
            raise Refused(f"The SNS message has no {name}.")
        text += f"{name}\n{value}\n"
    return text.encode("utf-8")


@lru_cache(maxsize=16)
def _public_key(url: str) -> Any:
    """The RSA key of the signing certificate at `url`, fetched once per process (the URL names the
    key: SNS publishes a new one under a new URL)."""
    from cryptography import x509

    try:
        return x509.load_pem_x509_certificate(sns_https.get(url)).public_key()
    except (OSError, ValueError) as error:
        raise Refused(f"The signing certificate cannot be read: {error}") from None


def verify(message: Doc) -> None:
    """Raise Refused unless SNS signed `message` for an accepted topic."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    algorithm = {"1": hashes.SHA1(), "2": hashes.SHA256()}.get(str(message.get("SignatureVersion")))
    if algorithm is None:
        raise Refused("Unknown SignatureVersion.")
    url = str(message.get("SigningCertURL") or "")
    if not sns_url(url, pem=True):
        raise Refused("The SigningCertURL is not an https Amazon SNS certificate.")
    topics = config.MAILER_CALLBACK_TOPICS
    if topics and message.get("TopicArn") not in topics:
        raise Refused("The topic is not one of MAILER_CALLBACK_TOPICS.")
    text = canonical(message)
    try:
        signature = base64.b64decode(str(message.get("Signature") or ""), validate=True)
    except binascii.Error:
        raise Refused("The signature is not base64.") from None
    key = _public_key(url)
    if not isinstance(key, rsa.RSAPublicKey):
        raise Refused("The signing certificate's key is not RSA.")
    try:
        key.verify(signature, text, padding.PKCS1v15(), algorithm)
    except InvalidSignature:
        raise Refused("The SNS signature does not match.") from None


def receive(raw: bytes | str) -> str:
    """One POST from SNS: what was done (`queued`, `confirmed`, `ignored`). Raises ValueError for a
    body that is not a JSON object, Refused for a message SNS did not sign, OSError when the
    subscription could not be confirmed."""
    message = json.loads(raw)
    if not isinstance(message, dict):
        raise ValueError("The body is not a JSON object.")
    verify(message)
    kind = message["Type"]
    if kind == "SubscriptionConfirmation":
        if not sns_url(message["SubscribeURL"]):
            raise Refused("The SubscribeURL is not an https Amazon SNS URL.")
        sns_https.get(message["SubscribeURL"])  # OSError: the callback answers 502 and SNS retries
        return "confirmed"
    if kind != "Notification":
        return "ignored"
    queues.send(QUEUE, [message])
    return "queued"
