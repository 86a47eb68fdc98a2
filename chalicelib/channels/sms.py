"""SMS transport: Amazon SNS `Publish` to a phone number (E.164), and a copy in the local outbox
(`.json`). Failures are `Rejected` (not deliverable to that number) or `Unavailable` (try later).
The AWS implementation of the SMS port (`ports/sms.py`)."""

import json

from chalicelib import aws, config
from chalicelib.channels import outbox
from chalicelib.channels.failures import translated
from chalicelib.ports.sms import Rejected, Unavailable, e164

__all__ = ["Rejected", "Unavailable", "e164", "send"]

PERMANENT = {"InvalidParameter", "InvalidParameterValue", "OptedOut", "AuthorizationError"}


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
