"""The theme frame of emails and pages (domain/messaging/theme_html.py) without a bucket: content at
the placeholders, blocks of an extended base, other Twig left out, in time linear in the template."""

import time

import pytest

from chalicelib.domain.messaging import theme_html

BASE = (
    "<html><head>{% block head %}<title>{subject}</title>{% endblock %}</head>"
    "<body>{% block content %}d{% endblock %}</body></html>"
)


@pytest.fixture
def theme(monkeypatch):
    def install(**texts):
        monkeypatch.setitem(theme_html.BUILT_IN, "t", {f"html/{name}.html.twig": text for name, text in texts.items()})

    return install


@pytest.mark.parametrize(
    "frame",
    [
        "<body>{{ content }}</body>",
        "<body>{{content|raw}}</body>",
        "<body>{{ slot('body', 'x') }}</body>",
        "<body>{content}</body>",
    ],
)
def test_the_fragment_goes_at_the_placeholder(theme, frame):
    theme(email=frame)
    assert theme_html.themed({"template": "t", "customHtml": "<p>Hi</p>"}, "email") == "<body><p>Hi</p></body>"


def test_blocks_of_the_base_are_filled_and_other_twig_is_left_out(theme):
    child = (
        '{% extends "@themes/"~template~"/html/base.html.twig" %}'
        '{% block content %}<i>{{ slot("footer") }}{{ content }}</i>{# c #}{% endblock %}'
    )
    theme(base=BASE, email=child)
    html = theme_html.themed({"template": "t", "customHtml": "<p>{{ kept }}</p>"}, "email")
    assert html == "<html><head><title>{subject}</title></head><body><i><p>{{ kept }}</p></i></body></html>"


def test_without_a_placeholder_the_content_goes_before_the_end_of_the_body(theme):
    theme(page="<html><body><h1>Frame</h1></body></html>")
    assert (
        theme_html.themed({"template": "t", "customHtml": "<p>x</p>"}, "page")
        == "<html><body><h1>Frame</h1><p>x</p></body></html>"
    )


def test_a_whole_document_no_theme_or_a_missing_template_leave_the_html(theme):
    theme(email="<body>{{ content }}</body>")
    assert (
        theme_html.themed({"template": "t", "customHtml": "<HTML><p>x</p></HTML>"}, "email") == "<HTML><p>x</p></HTML>"
    )
    assert theme_html.themed({"template": None, "customHtml": "<p>x</p>"}, "email") == "<p>x</p>"
    assert theme_html.themed({"template": "t", "customHtml": "<p>x</p>"}, "page") == "<p>x</p>"  # no page template


def test_unclosed_tags_are_text_and_cost_linear_time(theme):
    theme(email="a {{ b {% block x %}{content}")
    assert theme_html.themed({"template": "t", "customHtml": "C"}, "email") == "a {{ b C"
    hostile = "{{{%{#" * 100_000
    theme(email=hostile)
    started = time.perf_counter()
    theme_html.themed({"template": "t", "customHtml": "C"}, "email")
    assert time.perf_counter() - started < 2.0
