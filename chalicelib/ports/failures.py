"""How a send (mail, SMS) fails, whatever carries it: refused for good, or unavailable for now."""


class Rejected(Exception):
    """The service refused the message; sending it again will not help."""


class Unavailable(Exception):
    """The service could not be reached or throttled us; the same message may be sent later."""
