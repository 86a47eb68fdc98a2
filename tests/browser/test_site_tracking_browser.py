"""Issue 41 in a real browser: a website carrying mtc.js records its visitor's page views on the
contact's timeline (one contact across pages, kept by mtc.js's device id), and a landing page serves
its A/B variant and the visitor's translation."""

import time

from tests.e2e.test_local_stack import _call

SNIPPET = """<script>
(function(w,d,t,u,n,a,m){{w['MauticTrackingObject']=n;
  w[n]=w[n]||function(){{(w[n].q=w[n].q||[]).push(arguments)}},a=d.createElement(t),
  m=d.getElementsByTagName(t)[0];a.async=1;a.src=u;m.parentNode.insertBefore(a,m)
}})(window,document,'script','{service}/mtc.js','mt');
mt('send', 'pageview');
</script>"""


def site_page(title, service):
    head = f"<title>{title}</title>{SNIPPET.format(service=service)}"
    return f"<!DOCTYPE html><html><head>{head}</head><body>{title}</body></html>"


def page_hits(stack, contact_id, count, timeout=15):
    """The contact's page.hit events, once there are `count` of them."""
    deadline = time.monotonic() + timeout
    while True:
        status, activity, _ = _call(stack.connection(), "GET", f"/api/contacts/{contact_id}/activity")
        found = [e for e in (activity or {}).get("events", []) if e["event"] == "page.hit"] if status == 200 else []
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_browsing_a_site_with_mtc_js_records_the_visit_on_the_contacts_timeline(stack, site, visitor):
    service = f"http://127.0.0.1:{stack.port}"
    site.pages["/"] = site_page("Home", service)
    site.pages["/pricing"] = site_page("Pricing", service)
    tab = visitor.new_page()
    tab.goto(f"{site.origin}/")
    tab.wait_for_function("() => localStorage.getItem('mtc_id')", timeout=15000)
    contact_id = int(tab.evaluate("() => localStorage.getItem('mtc_id')"))
    assert tab.evaluate("() => localStorage.getItem('mautic_device_id')").startswith(f"{contact_id}.")
    tab.goto(f"{site.origin}/pricing?utm_source=ads&utm_campaign=spring")
    hits = page_hits(stack, contact_id, 2)
    assert sorted(h["details"]["title"] for h in hits) == ["Home", "Pricing"]
    pricing = next(h for h in hits if h["details"]["title"] == "Pricing")
    assert pricing["details"]["url"] == f"{site.origin}/pricing?utm_source=ads&utm_campaign=spring"
    assert pricing["details"]["query"] == {"utm_source": "ads", "utm_campaign": "spring"}
    _, contacts, _ = _call(stack.connection(), "GET", "/api/contacts?search=is:anonymous")
    assert [int(c) for c in contacts["contacts"]] == [contact_id]  # the second page view kept the contact
    _, devices, _ = _call(stack.connection(), "GET", f"/api/contacts/{contact_id}/devices")
    assert devices["devices"][0]["device"] == "desktop"


def test_a_landing_page_serves_its_variant_and_the_visitors_translation(stack, browser):
    service = f"http://127.0.0.1:{stack.port}"
    conn = stack.connection()

    def page(title, text, **extra):
        html = f"<!DOCTYPE html><html><head><title>{title}</title></head><body><p id='text'>{text}</p></body></html>"
        status, created, _ = _call(conn, "POST", "/api/pages/new", dict({"title": title, "customHtml": html}, **extra))
        assert status == 201, created
        return created["page"]

    offer = page("Browser offer", "A")
    page("Browser offer B", "B", variantParent=offer["id"], variantSettings={"weight": 100})
    welcome = page("Browser welcome", "Hello")
    page("Browser bienvenue", "Bonjour", language="fr", translationParent=welcome["id"])
    french = browser.new_context(
        locale="fr-FR", user_agent="Mozilla/5.0 (X11; Linux x86_64) Chrome/150.0 Safari/537.36"
    )
    tab = french.new_page()
    tab.goto(f"{service}/browser-offer")
    assert tab.inner_text("#text") == "B"
    tab.reload()
    assert tab.inner_text("#text") == "B" and any(c["name"] == f"mautic_page_{offer['id']}" for c in french.cookies())
    tab.goto(f"{service}/browser-welcome")
    assert tab.url == f"{service}/fr/browser-bienvenue" and tab.inner_text("#text") == "Bonjour"
    french.close()
    _, stored, _ = _call(conn, "GET", f"/api/pages/{offer['id']}")
    assert stored["page"]["hits"] == 0  # the parent of weight 0 was never shown
