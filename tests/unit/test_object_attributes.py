"""Object attributes keep an empty value as sent (`[]` from PHP clients, or `{}`); readers see `{}`."""

import pytest

from chalicelib.domain.kernel import attributes as a


@pytest.mark.parametrize("empty", [[], {}], ids=["list", "object"])
def test_an_empty_object_is_kept_as_sent(empty):
    kept = a.obj("properties").clean(empty)
    assert kept == empty and type(kept) is type(empty)


def test_a_non_empty_object_is_unchanged_and_other_values_are_refused():
    assert a.as_object({"a": 1}) == {"a": 1}
    for bad in ([1], "x", 3, True):
        with pytest.raises(a.Invalid):
            a.as_object(bad)


def test_no_value_is_null_and_the_default_an_empty_object():
    assert a.obj("properties").clean(None) is None and a.obj("properties").clean("") is None
    assert a.obj("properties").fresh_default() == {}


@pytest.mark.parametrize("stored", [[], {}, None])
def test_readers_see_an_empty_object_for_any_empty_value(stored):
    assert a.object_in(stored) == {}


def test_readers_see_the_object_itself():
    held = {"email": 3}
    assert a.object_in(held) is held
