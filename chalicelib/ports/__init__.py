"""The ports of everything the domain asks of the outside world besides documents: queues, files,
rate windows, tokens, outbound mail, SMS and HTTP, the SNS certificate fetch, the clock and which
failures mean "unavailable for now". Each module holds a typed Protocol and functions that forward
to the installed implementation (`adapters.install`): AWS's (`chalicelib/bootstrap.py`) or the
in-memory one (`devstack/memory/`)."""
