"""SMS transport: Amazon SNS `Publish` to a phone number (E.164), and a copy in the local outbox
(`.json`). Failures are `Rejected` (not deliverable to that number) or `Unavailable` (try later)."""

import json
import re

from chalicelib import aws, config
from chalicelib.channels import outbox
from chalicelib.channels.failures import Rejected, Unavailable, translated  # noqa: F401 (re-exported)

E164 = re.compile(r"^\+[1-9][0-9]{6,14}$")
PERMANENT = {"InvalidParameter", "InvalidParameterValue", "OptedOut", "AuthorizationError"}


def e164(number: object) -> str | None:
    """The number in E.164 (`+` and 7 to 15 digits; spaces, dots, dashes, brackets and a leading 00
    allowed), or None."""
    digits = re.sub(r"[\s().\-/]", "", str(number or ""))
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    return digits if E164.match(digits) else None


def send(number: str, text: str) -> str:
    """Publish a transactional SMS; returns SNS's message id. Raises Rejected or Unavailable."""
    attributes = {"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}}
    if config.active().SMS_SENDER_ID:
        attributes["AWS.SNS.SMS.SenderID"] = {"DataType": "String", "StringValue": config.active().SMS_SENDER_ID}
    with translated(PERMANENT):
        answer = aws.client("sns").publish(PhoneNumber=number, Message=text, MessageAttributes=attributes)
    outbox.write(
        answer["MessageId"],
        "json",
        json.dumps({"to": number, "message": text, "messageId": answer["MessageId"]}, indent=2),
    )
    return answer["MessageId"]
