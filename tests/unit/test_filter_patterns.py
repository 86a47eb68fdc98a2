"""Segment filter patterns in linear time (`segments/patterns.py`): SQL LIKE and RE2 regexp give
the answers a backtracking regex gives, without its run time on hostile patterns."""

import re
import time
from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chalicelib.domain.segments import patterns
from chalicelib.domain.segments.filters import compile_filters
from tests.unit.filtercases import F


def _reference(pattern):
    """SQL LIKE as a backtracking regex (what the filters used before)."""
    parts, chars = [], iter(pattern)
    for char in chars:
        if char == "\\":
            parts.append(re.escape(next(chars, "\\")))
        else:
            parts.append({"%": ".*", "_": "."}.get(char) or re.escape(char))
    return re.compile(rf"\A(?:{''.join(parts)})\Z", re.IGNORECASE | re.DOTALL)


@given(st.text(alphabet="ab%_\\", max_size=8), st.text(alphabet="abAB", max_size=10))
def test_like_answers_as_sql_like(pattern, text):
    assert patterns.like(pattern)(text) == (_reference(pattern).search(text) is not None)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("%Ann%", "Joanna", True),
        ("a_c", "abc", True),
        ("a_c", "abbc", False),
        ("100\\%", "100%", True),
        ("100\\%", "1000", False),
        ("%@example.com", "ann@EXAMPLE.com", True),
        ("", "", True),
        ("", "x", False),
    ],
)
def test_like_examples(pattern, text, expected):
    assert patterns.like(pattern)(text) is expected


def _elapsed(test, value):
    started = time.perf_counter()
    test(value)
    return time.perf_counter() - started


def test_a_hostile_like_pattern_takes_linear_time():
    # Backtracking took 16 s for this pattern on 200 characters (issue 22).
    assert _elapsed(patterns.like("%a%a%a%a%b"), "a" * 200) < 0.01
    assert _elapsed(patterns.like("%a%a%a%a%a%a%a%a%b"), "a" * 60000) < 0.5


def test_a_hostile_regexp_takes_linear_time():
    assert _elapsed(patterns.regexp("(a+)+$"), "a" * 50000 + "!") < 0.1
    assert _elapsed(patterns.regexp("(x+x+)+y"), "x" * 50000) < 0.1


def test_regexps_re2_cannot_run_in_linear_time_are_refused():
    with pytest.raises(ValueError, match="Invalid regular expression"):
        patterns.regexp(r"(a)\1")
    with pytest.raises(ValueError, match="Invalid regular expression"):
        patterns.regexp(r"foo(?=bar)")


def test_values_are_matched_up_to_the_text_limit():
    tail = "x" * patterns.MAX_TEXT
    assert patterns.like("%x")(tail + "y") is True  # the `y` lies beyond the limit
    assert patterns.regexp("y$")(tail + "y") is False


def test_filters_use_the_linear_matchers():
    matcher = compile_filters([F("firstname", "like", "%a%a%a%a%b")])
    started = time.perf_counter()
    assert not matcher.matches({"lead": {"firstname": "a" * 5000}, "companies": []}, datetime.now(timezone.utc))
    assert time.perf_counter() - started < 0.1
