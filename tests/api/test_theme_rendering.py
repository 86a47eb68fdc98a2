"""Themes rendered into emails and pages (Mautic's MailHelper::setEmail and the page PublicController
render the theme's `html/email.html.twig` / `html/page.html.twig` with the content in its slots):
an email or page naming a `template` is sent, shown in the browser and served in the theme's frame,
its `customHtml` fragment at the theme's content placeholder; a whole document (the builder's
output) is used as it is; an unknown theme changes nothing."""

import json

from tests.api.test_email_send import make_contact, parts, sent_messages
from tests.api.test_themes import theme_zip, upload
from tests.api.test_visitors import browse

BASE = (
    "<!DOCTYPE html><html><head><title>{% block title %}{subject}{% endblock %}</title>"
    "{{ outputHeadDeclarations() }}</head><body><header>Acme header</header>"
    "{% block content %}{% endblock %}<footer>Acme footer {# a comment #}</footer></body></html>"
)
EMAIL = (
    '{% extends "@themes/"~template~"/html/base.html.twig" %}'
    "{% block content %}<div class=\"body\">{{ slot('body') }}</div>"
    "<img src=\"{{ getAssetUrl('themes/'~template~'/assets/logo.png', null, null, true) }}\">{% endblock %}"
)
PAGE = (
    '{% extends "@themes/"~template~"/html/base.html.twig" %}'
    "{% block title %}{pagetitle}{% endblock %}{% block content %}<main>{{ content|raw }}</main>{% endblock %}"
)


def install(api, key="acme"):
    files = {
        "config.json": json.dumps({"name": "Acme", "features": ["email", "page"]}),
        "html/message.html.twig": "m",
        "html/base.html.twig": BASE,
        "html/email.html.twig": EMAIL,
        "html/page.html.twig": PAGE,
    }
    r = upload(api, f"{key}.zip", theme_zip(files))
    assert r.status_code == 200, r.json


def send(api, **email):
    body = dict({"name": "Welcome", "subject": "Hello {contactfield=firstname}"}, **email)
    mail = api.post("/api/emails/new", body)
    assert mail.status_code == 201, mail.json
    contact = make_contact(api)
    r = api.post(f"/api/emails/{mail.json['email']['id']}/contact/{contact['id']}/send")
    assert r.status_code == 200, r.json
    (message,) = sent_messages()
    return message, parts(message)


def test_an_email_naming_a_theme_is_sent_in_its_frame(api):
    install(api)
    message, (text, html, _) = send(api, template="acme", customHtml="<p>Hi {contactfield=firstname}, {{ raw }}</p>")
    assert html.index("<header>Acme header</header>") < html.index('<div class="body"><p>Hi Ann, {{ raw }}</p></div>')
    assert "<footer>Acme footer </footer>" in html and "<title>Hello Ann</title>" in html  # tokens still rendered
    assert "{%" not in html and "outputHeadDeclarations" not in html and 'src=""' in html  # other Twig left out
    assert "Acme header" in text and "Hi Ann, {{ raw }}" in text
    tracking = message["X-Mautic-Tracking"]
    assert f"/email/{tracking}.gif" in html  # the open pixel, before </body>
    web = browse(api, f"/email/view/{tracking}").body.decode()
    assert "Acme header" in web and "<p>Hi Ann, {{ raw }}</p>" in web  # the browser view is themed too


def test_the_built_in_blank_theme_wraps_a_fragment(api):
    _, (_, html, _) = send(api, template="blank", customHtml="<p>Plain {contactfield=firstname}</p>")
    assert html.startswith("<!DOCTYPE html>") and "<body><p>Plain Ann</p>" in html


def test_a_whole_document_or_an_unknown_theme_is_sent_as_it_is(api):
    install(api)
    whole = "<html><body><p>Built by the builder</p></body></html>"
    _, (_, html, _) = send(api, template="acme", customHtml=whole)
    assert "Acme header" not in html and "Built by the builder" in html


def test_an_email_with_an_unknown_theme_is_sent_unthemed(api):
    _, (_, html, _) = send(api, template="nowhere", customHtml="<p>Only me</p>")
    assert html.startswith("<p>Only me</p>")


def test_a_theme_without_custom_html_sends_the_themes_own_html(api):
    install(api)
    _, (_, html, _) = send(api, template="acme")
    assert "<header>Acme header</header>" in html and '<div class="body"></div>' in html


def test_a_page_naming_a_theme_is_served_in_its_frame(api):
    install(api)
    r = api.post(
        "/api/pages/new",
        {
            "title": "Spring <sale>",
            "alias": "spring",
            "template": "acme",
            "customHtml": "<h1>Hi {contactfield=firstname|friend}</h1>",
        },
    )
    assert r.status_code == 201, r.json
    assert r.json["page"]["customHtml"] == "<h1>Hi {contactfield=firstname|friend}</h1>"  # stored as sent
    served = browse(api, "/spring").body.decode()
    assert "<title>Spring &lt;sale&gt;</title>" in served and "<main><h1>Hi friend</h1></main>" in served
    assert served.index("Acme header") < served.index("<main>") < served.index("Acme footer")


def test_a_page_taken_off_its_theme_is_served_unthemed(api):
    install(api)
    page = api.post("/api/pages/new", {"title": "P", "alias": "p", "template": "acme", "customHtml": "<b>x</b>"})
    assert "Acme header" in browse(api, "/p").body.decode()
    api.patch(f"/api/pages/{page.json['page']['id']}/edit", {"template": None})
    api.delete("/api/themes/acme/delete")
    assert browse(api, "/p").body.decode() == "<b>x</b>"
