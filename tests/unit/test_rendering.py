"""Rendering emails and text messages (compat 13.3 tokens), without AWS."""

from datetime import datetime, timezone

from chalicelib.domain.messaging import rendering
from chalicelib.domain.messaging.rendering import Links, Sources

NOW = datetime(2024, 3, 5, 15, 7, tzinfo=timezone.utc)


def _sources(**kw):
    links = Links(
        unsubscribe="https://m.example/email/unsubscribe/h1",
        webview="https://m.example/email/view/h1",
        pixel="https://m.example/email/h1.gif",
        asset=lambda i: f"https://m.example/asset/{i}:guide" if i == 3 else None,
        page=lambda i: "https://m.example/welcome" if i == 4 else None,
        dwc=lambda slot: "<b>Sale</b>" if slot == "promo" else None,
    )
    return Sources(
        **dict({"contact": {"firstname": "Ann", "email": "ann@example.com"}, "links": links, "now": NOW}, **kw)
    )


def _html(template, **kw):
    return rendering.render_text(template, _sources(**kw), html=True)[0]


def _text(template, **kw):
    return rendering.render_text(template, _sources(**kw))[0]


def test_contact_fields_defaults_and_missing_values():
    assert _text("Hi {contactfield=firstname|friend}") == "Hi Ann"
    assert _text("Hi {contactfield=lastname|friend}") == "Hi friend"
    assert _text("Hi {contactfield=lastname}!") == "Hi !"
    assert _text("Hi {contactfield=FirstName}") == "Hi Ann"
    assert _text("Hi {leadfield=firstname}") == "Hi Ann"


def test_values_in_html_are_escaped_but_not_in_text():
    contact = {"firstname": "<script>alert(1)</script> & co"}
    assert (
        _html("<p>{contactfield=firstname}</p>", contact=contact)
        == "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</p>"
    )
    assert _text("{contactfield=firstname}", contact=contact) == "<script>alert(1)</script> & co"
    assert _html("{contactfield=lastname|<i>you</i>}") == "&lt;i&gt;you&lt;/i&gt;"


def test_a_value_that_looks_like_a_token_is_not_expanded():
    contact = {"firstname": "{unsubscribe_url} {contactfield=email}"}
    assert _text("{contactfield=firstname}", contact=contact) == "{unsubscribe_url} {contactfield=email}"


def test_modifiers_url_encode_and_dates():
    contact = {"city": "São Paulo & co", "birthday": "1990-07-04", "seen": "2024-03-05 15:07:00"}
    assert _text("{contactfield=city|true}", contact=contact) == "S%C3%A3o%20Paulo%20%26%20co"
    assert _text("{contactfield=birthday|date}", contact=contact) == "July 4, 1990"
    assert _text("{contactfield=seen|time}", contact=contact) == "3:07 pm"
    assert _text("{contactfield=seen|datetime}", contact=contact) == "March 5, 2024 3:07 pm"
    assert _text("{contactfield=missing|date}", contact=contact) == ""


def test_url_encoded_tokens_in_links():
    template = '<a href="https://shop.example/?name=%7Bcontactfield=firstname%7D&amp;c=%7Bcontactfield=city%7D">x</a>'
    html = _html(template, contact={"firstname": "Ann Lee", "city": "a&b"})
    assert html == '<a href="https://shop.example/?name=Ann%20Lee&amp;c=a%26b">x</a>'


def test_primary_company_fallback_and_owner_fields():
    sources = {"company": {"companyname": "Acme", "city": "Brno"}, "owner": {"firstName": "Olga", "email": "o@x.com"}}
    assert _text("{contactfield=companyname} {contactfield=city|-}", **sources) == "Acme Brno"
    assert (
        _text("{ownerfield=firstname} <{ownerfield=email}> {ownerfield=position|Sales}", **sources)
        == "Olga <o@x.com> Sales"
    )


def test_links_pixel_today_assets_pages_and_dynamic_content():
    html = _html(
        "{unsubscribe_url}|{webview_url}|{tracking_pixel}|{assetlink=3}|{pagelink=4}|{pagelink=9}|"
        "{dwc=promo}|{dwc=none}|{today}|{today|Y-m-d}"
    )
    assert html.split("|") == [
        "https://m.example/email/unsubscribe/h1",
        "https://m.example/email/view/h1",
        '<img height="1" width="1" src="https://m.example/email/h1.gif" alt="" />',
        "https://m.example/asset/3:guide",
        "https://m.example/welcome",
        "",
        "<b>Sale</b>",
        "",
        "March 5, 2024",
        "2024-03-05",
    ]
    assert (
        _html("{unsubscribe_text}")
        == '<a href="https://m.example/email/unsubscribe/h1">Unsubscribe</a> to no longer receive emails from us.'
    )
    assert _text("{unsubscribe_text}").endswith(": https://m.example/email/unsubscribe/h1")
    assert _text("{tracking_pixel}") == ""


def test_send_tokens_braces_optional_unknown_tokens_and_css_untouched():
    tokens = rendering.normalise_tokens({"code": "X-1", "{link}": "<a href='#'>go</a>"})
    assert (
        _html("{code} {link} {unknown} p { color: red; }", tokens=tokens)
        == "X-1 <a href='#'>go</a> {unknown} p { color: red; }"
    )
    assert rendering.normalise_tokens([]) == {}


def test_plain_text_tokens_are_escaped_in_html_only():
    tokens = rendering.normalise_tokens({"{formfield=topic}": rendering.Text("<b>Tom & Jerry</b>")})
    assert _html("<p>{formfield=topic}</p>", tokens=tokens) == "<p>&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;</p>"
    assert _text("Topic: {formfield=topic}", tokens=tokens) == "Topic: <b>Tom & Jerry</b>"


def test_email_subject_html_text_tracking_and_used_tokens():
    email = {
        "subject": "Hello {contactfield=firstname}",
        "customHtml": '<html><body><h1>{subject}</h1><a href="https://shop.example/a?b=1&amp;c=2">Shop</a>'
        '<a href="{unsubscribe_url}">Leave</a>'
        '<a href="https://no.example/" class="mautic:disable-tracking">No</a></body></html>',
    }
    rendered = rendering.render_email(email, _sources(), track=lambda url: f"https://m.example/r/h1?url={url}")
    assert rendered.subject == "Hello Ann"
    assert "<h1>Hello Ann</h1>" in rendered.html
    assert 'href="https://m.example/r/h1?url=https://shop.example/a?b=1&amp;c=2"' in rendered.html
    assert 'href="https://m.example/email/unsubscribe/h1"' in rendered.html
    assert 'href="https://no.example/"' in rendered.html
    pixel = '<img height="1" width="1" src="https://m.example/email/h1.gif" alt="" />'
    assert rendered.html.endswith(pixel + "</body></html>")
    assert rendered.text.startswith("Hello Ann\nShop (https://shop.example/a?b=1&c=2)")
    assert rendered.tokens == {
        "{contactfield=firstname}": "Ann",
        "{subject}": "Hello Ann",
        "{unsubscribe_url}": "https://m.example/email/unsubscribe/h1",
    }


def test_plain_text_template_wins_and_sms():
    email = {"subject": "S", "customHtml": "<p>html</p>", "plainText": "Hi {contactfield=firstname}"}
    assert rendering.render_email(email, _sources()).text == "Hi Ann"
    assert rendering.render_sms("Hi {contactfield=firstname|there}, <3", _sources(contact={})) == "Hi there, <3"


def test_php_date_formats():
    assert rendering.php_date(NOW, "D, d M Y H:i:s") == "Tue, 05 Mar 2024 15:07:00"
    assert rendering.php_date(NOW, "j/n/y g:i A 100%") == "5/3/24 3:07 PM 100%"
