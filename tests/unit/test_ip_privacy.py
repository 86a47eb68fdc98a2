"""Issue 32, IP anonymisation: what is stored of a visitor's address under each `ANONYMIZE_IP` mode."""

import pytest

from chalicelib import config
from chalicelib.domain.contacts import ip_privacy


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("203.0.113.77", "203.0.113.0"),
        ("10.1.2.3", "10.1.2.0"),
        ("2001:db8:abcd:12:34::1", "2001:db8:abcd::"),
        ("2001:db8:abcd:ffff:ffff:ffff:ffff:ffff", "2001:db8:abcd::"),
        ("::ffff:198.51.100.9", "198.51.100.0"),  # IPv4-mapped: as its IPv4 address
        ("fe80::1%eth0", "fe80::"),
        ("not-an-ip", None),
    ],
)
def test_truncation_keeps_the_network_not_the_host(address, network):
    assert ip_privacy.truncated(address) == network
    assert ip_privacy.stored(address, ip_privacy.TRUNCATE) == network


def test_each_mode(configure):
    assert ip_privacy.stored("203.0.113.77", ip_privacy.FULL) == "203.0.113.77"
    assert ip_privacy.stored("203.0.113.77", ip_privacy.NONE) is None
    assert ip_privacy.stored(None, ip_privacy.TRUNCATE) is None
    configure(ANONYMIZE_IP="truncate")
    assert ip_privacy.stored("203.0.113.77") == "203.0.113.0"


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("", "off"),
        ("0", "off"),
        ("off", "off"),
        ("truncate", "truncate"),
        ("1", "none"),
        ("TRUE", "none"),
        ("none", "none"),
    ],
)
def test_the_setting_reads_mautics_yes_as_no_address(value, mode):
    assert config.Settings.from_environment({"ANONYMIZE_IP": value}).ANONYMIZE_IP == mode


def test_an_unknown_setting_is_refused():
    with pytest.raises(config.SettingError, match="ANONYMIZE_IP='half': must be off, truncate or none"):
        config.Settings.from_environment({"ANONYMIZE_IP": "half"})
