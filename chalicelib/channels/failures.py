"""How a send through SES or SNS fails: boto errors as the ports' `Rejected` (for good) or `Unavailable` (for now)."""

from collections.abc import Collection, Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError

from chalicelib.ports.failures import Rejected, Unavailable


@contextmanager
def translated(permanent: Collection[str]) -> Iterator[None]:
    """Turn boto errors into Rejected (an error code in `permanent`) or Unavailable."""
    try:
        yield
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code")
        message = error.response.get("Error", {}).get("Message") or code
        raise (Rejected if code in permanent else Unavailable)(message) from None
    except BotoCoreError as error:
        raise Unavailable(str(error)) from None
