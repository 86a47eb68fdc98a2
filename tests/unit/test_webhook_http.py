"""Outbound HTTP: the address guard and one POST against servers on 127.0.0.1 (no AWS)."""

import socket

import pytest

from chalicelib.channels import http
from tests.api.test_webhook_delivery import Receiver

LOOPBACK = http.networks(["127.0.0.0/8", "::1/128"])


@pytest.mark.parametrize(
    "address, reason",
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.8", "private"),
        ("192.168.1.1", "private"),
        ("172.16.0.1", "private"),
        ("169.254.10.10", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("fd12::1", "private"),
        ("100.64.0.1", "not a public"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a00:1", "private"),
        ("2002:a00:1::", "private"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("::a00:1", "private"),
        ("::7f00:1", "loopback"),
        ("64:ff9b:1::a00:1", "NAT64"),
        ("64:ff9b:1:ffff::5db8:d822", "NAT64"),
    ],
)
def test_non_public_addresses_are_refused(address, reason):
    assert reason in http.refusal(address)


def test_public_and_allowed_addresses_pass_but_metadata_never_does():
    assert http.refusal("93.184.216.34") is None and http.refusal("2606:4700::1111") is None
    assert http.refusal("127.0.0.1", LOOPBACK) is None and http.refusal("::1", LOOPBACK) is None
    assert http.refusal("169.254.169.254", http.networks(["169.254.0.0/16"])) == "a cloud metadata address"


def test_a_name_is_checked_on_every_address_it_resolves_to(monkeypatch):
    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 80)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 80)),
    ]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **kw: answers)
    with pytest.raises(http.Refused, match="rebind.example resolves to 10.0.0.1, a private address"):
        http.resolve("rebind.example", 80)
    assert http.resolve("rebind.example", 80, http.networks(["10.0.0.0/8"])) == "93.184.216.34"


def test_post_pins_the_checked_address_and_sends_the_host_name():
    receiver = Receiver(statuses=[204])
    try:
        url = receiver.url.replace("127.0.0.1", "localhost")
        result = http.request("POST", url, b'{"a":1}', {"Content-Type": "application/json"}, 5, LOOPBACK)
        assert result.ok and result.status == 204 and result.error is None and result.duration > 0
        (request,) = receiver.received
        assert request.body == b'{"a":1}' and request.headers["Host"] == f"localhost:{receiver.server.server_port}"
        refused = http.request("POST", receiver.url, b"{}", {}, 5)
        assert not refused.ok and not refused.retry and "loopback" in refused.error
        assert len(receiver.received) == 1
    finally:
        receiver.close()


def _unknown_host(*args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.mark.parametrize(
    "url, error", [("ftp://127.0.0.1/x", "not an http or https URL"), ("http://127.0.0.1:99999/", "invalid port")]
)
def test_unusable_urls_are_refused(url, error):
    result = http.request("POST", url, b"{}", {}, 1, LOOPBACK)
    assert error in result.error and not result.retry and result.status is None


def test_a_name_that_does_not_resolve_is_retried(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _unknown_host)
    result = http.request("POST", "http://no-such-host.invalid/", b"{}", {}, 1)
    assert result.error == "Connection failed: cannot resolve no-such-host.invalid (Name or service not known)"
    assert result.retry and result.status is None
