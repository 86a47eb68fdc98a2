"""List query parameters (spec "List query parameters", compat 7): search, paging, ordering, filters."""

import base64
from urllib.parse import quote

import pytest

from tests.api.payloads import BY_PREFIX, assert_error, ids, make


def listing(api, prefix, query=""):
    r = api.get(f"/api/{prefix}?{query}")
    assert r.status_code == 200, r.json
    return r.json


def found(api, prefix, query):
    """(total, ids in response order) of a list query."""
    body = listing(api, prefix, query)
    return int(body["total"]), ids(BY_PREFIX[prefix], body)


def search(api, prefix, text, extra=""):
    return found(api, prefix, f"search={quote(text)}{extra}")


def emails(api, *names, **common):
    return [make(api, "emails", {"name": n, **common})["id"] for n in names]


# --- search: plain text, phrases, OR, wildcards ----------------------------------------------------


def test_search_plain_text(api):
    a, b, _ = emails(api, "Spring newsletter", "Autumn NEWSLETTER", "Welcome")
    assert search(api, "emails", "newsletter") == (2, [a, b])
    assert search(api, "emails", "welcome x") == (0, [])


def test_search_matches_subject_too(api):
    a = make(api, "emails", {"name": "One", "subject": "Big sale"})["id"]
    make(api, "emails", {"name": "Two", "subject": "Hello"})
    assert search(api, "emails", "sale") == (1, [a])


def test_search_two_words_must_both_match(api):
    a, _, _ = emails(api, "hello world", "hello there", "world peace")
    assert search(api, "emails", "hello world") == (1, [a])


def test_search_quoted_phrase(api):
    a, _, _ = emails(api, "big sale now", "sale big", "big  sales")
    assert search(api, "emails", '"big sale"') == (1, [a])


def test_search_or(api):
    a, b, _ = emails(api, "alpha", "beta", "gamma")
    assert search(api, "emails", "alpha OR beta") == (2, [a, b])
    assert search(api, "emails", "alpha or gamma")[0] == 2


def test_search_percent_wildcard(api):
    a, b, _ = emails(api, "report 2023 final", "report 2024 final", "final report")
    assert search(api, "emails", "report%final") == (2, [a, b])


def test_search_negation(api):
    a, b = emails(api, "keep me", "drop me")
    assert search(api, "emails", "!drop") == (1, [a])
    assert search(api, "emails", "!keep !drop") == (0, [])
    assert search(api, "emails", "!(keep OR drop)") == (0, [])
    assert search(api, "emails", "me !keep") == (1, [b])


def test_search_malformed_is_400(api):
    assert_error(api.get("/api/emails?search=" + quote("(alpha")), 400, field="search")


# --- search commands -------------------------------------------------------------------------------


def test_ids_command(api):
    a, b, c = emails(api, "a", "b", "c")
    assert search(api, "emails", f"ids:{a},{c}") == (2, [a, c])
    assert search(api, "emails", f"ids:{b}") == (1, [b])
    assert search(api, "emails", "ids:987654") == (0, [])


@pytest.mark.parametrize("prefix", ["tags", "points", "points/triggers", "categories", "forms", "assets", "hooks"])
def test_ids_command_everywhere(api, prefix):
    res = BY_PREFIX[prefix]
    first = make(api, prefix, res.create)["id"]
    second = make(api, prefix, {**res.create, res.name: "Other"})["id"]
    assert search(api, prefix, f"ids:{second}") == (1, [second])
    assert search(api, prefix, f"ids:{first},{second}")[0] == 2


def test_is_published_and_unpublished(api):
    on = make(api, "emails", {"name": "on"})["id"]
    off = make(api, "emails", {"name": "off", "isPublished": False})["id"]
    assert search(api, "emails", "is:published") == (1, [on])
    assert search(api, "emails", "is:unpublished") == (1, [off])
    assert search(api, "emails", "!is:published") == (1, [off])
    assert search(api, "emails", "!is:unpublished") == (1, [on])


def test_is_published_on_categories(api):
    on = make(api, "categories", {"title": "On", "bundle": "email"})["id"]
    off = make(api, "categories", {"title": "Off", "bundle": "email", "isPublished": False})["id"]
    assert search(api, "categories", "is:published") == (1, [on])
    assert search(api, "categories", "is:unpublished") == (1, [off])


def _basic(username, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def test_is_mine(api):
    from chalicelib.auth import users

    users.create_user("bob", "bob-secret", first_name="Bob", last_name="Builder")
    bob = _basic("bob", "bob-secret")
    mine = make(api, "emails", {"name": "admin's"})["id"]
    r = api.post("/api/emails/new", {"name": "bob's"}, headers=bob)
    assert r.status_code == 201, r.json
    theirs = r.json["email"]["id"]
    assert r.json["email"]["createdByUser"] == "Bob Builder"
    assert r.json["email"]["createdBy"] != 1
    assert search(api, "emails", "is:mine") == (1, [mine])
    assert search(api, "emails", "!is:mine") == (1, [theirs])
    r = api.get("/api/emails?search=is:mine", headers=bob)
    assert int(r.json["total"]) == 1 and list(r.json["emails"]) == [str(theirs)]


def test_category_and_uncategorized(api):
    news = make(api, "categories", {"title": "Company News", "bundle": "email"})
    assert news["alias"] == "company-news"
    other = make(api, "categories", {"title": "Other", "bundle": "email"})
    a = make(api, "emails", {"name": "a", "category": news["id"]})["id"]
    b = make(api, "emails", {"name": "b", "category": other["id"]})["id"]
    c = make(api, "emails", {"name": "c"})["id"]
    assert search(api, "emails", "category:company-news") == (1, [a])
    assert search(api, "emails", "category:other") == (1, [b])
    assert search(api, "emails", "category:nope") == (0, [])
    assert search(api, "emails", "is:uncategorized") == (1, [c])
    assert search(api, "emails", "!is:uncategorized") == (2, [a, b])


@pytest.mark.parametrize("prefix", ["emails", "pages"])
def test_lang_command(api, prefix):
    res = BY_PREFIX[prefix]
    en = make(api, prefix, {**res.create, res.name: "English"})
    assert en["language"] == "en"
    fr = make(api, prefix, {**res.create, res.name: "French", "language": "fr"})["id"]
    assert search(api, prefix, "lang:fr") == (1, [fr])
    assert search(api, prefix, "lang:en") == (1, [en["id"]])


def test_commands_combine_with_text(api):
    a = make(api, "emails", {"name": "promo one"})["id"]
    make(api, "emails", {"name": "promo two", "isPublished": False})
    make(api, "emails", {"name": "other"})
    assert search(api, "emails", "promo is:published") == (1, [a])
    assert search(api, "emails", "is:unpublished OR other")[0] == 2


def test_form_name_command(api):
    a = make(api, "forms", {"name": "Contact us"})["id"]
    make(api, "forms", {"name": "Newsletter"})
    assert search(api, "forms", "name:contact%") == (1, [a])


# --- contacts: field aliases, name:, plain text ----------------------------------------------------


@pytest.fixture
def people(api):
    rows = [
        {"firstname": "John", "lastname": "Smith", "email": "john@example.com", "city": "Prague"},
        {"firstname": "Joanna", "lastname": "Brown", "email": "joanna@example.org", "city": "Brno"},
        {"firstname": "Bob", "lastname": "Johnson", "email": "bob@example.com", "city": "Pragueville"},
    ]
    return [make(api, "contacts", row)["id"] for row in rows]


def test_contacts_email_command_exact(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "email:john@example.com") == (1, [john])
    assert search(api, "contacts", "email:JOHN@example.com") == (1, [john])


def test_contacts_email_command_wildcard(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "email:%@example.com") == (2, [john, bob])
    assert search(api, "contacts", "!email:%@example.com") == (1, [joanna])


def test_contacts_email_command_prefix(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "email:jo") == (2, [john, joanna])


def test_contacts_firstname_wildcard(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "firstname:Jo%") == (2, [john, joanna])
    assert search(api, "contacts", "firstname:%n") == (1, [john])


def test_contacts_field_command_is_prefix_match(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "city:Prague") == (2, [john, bob])
    assert search(api, "contacts", "city:+Prague") == (1, [john])
    assert search(api, "contacts", "city:brno") == (1, [joanna])
    assert search(api, "contacts", "city:rague") == (0, [])


def test_contacts_name_command(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "name:Bob") == (1, [bob])
    assert search(api, "contacts", "name:john") == (2, [john, bob])  # first or last name


def test_contacts_plain_text(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "Joanna") == (1, [joanna])
    assert search(api, "contacts", "joanna@") == (1, [joanna])
    assert search(api, "contacts", "example.org") == (0, [])  # free text matches from the start
    assert search(api, "contacts", "Smith") == (1, [john])


def test_contacts_plain_text_is_prefix_match(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", "Jo") == (3, [john, joanna, bob])  # Johnson
    assert search(api, "contacts", "anna") == (0, [])


def test_contacts_ids_and_is_mine(api, people):
    john, joanna, bob = people
    assert search(api, "contacts", f"ids:{john},{bob}") == (2, [john, bob])
    assert search(api, "contacts", "is:mine")[0] == 3


def test_contacts_search_empty_result_is_object(api, people):
    assert listing(api, "contacts", "search=nobody") == {"total": "0", "contacts": {}}


def test_companies_field_command(api):
    acme = make(api, "companies", {"companyname": "Acme", "companycity": "Prague"})["id"]
    make(api, "companies", {"companyname": "Globex", "companycity": "Brno"})
    assert search(api, "companies", "companycity:Pra") == (1, [acme])
    assert search(api, "companies", "acme") == (1, [acme])


# --- start, limit ----------------------------------------------------------------------------------


@pytest.fixture
def tags(api):
    return [make(api, "tags", {"tag": f"tag{n:02d}"})["id"] for n in range(32)]


def test_default_limit_is_30(api, tags):
    total, page = found(api, "tags", "")
    assert total == 32
    assert page == tags[:30]


def test_limit_and_start(api, tags):
    assert found(api, "tags", "limit=5") == (32, tags[:5])
    assert found(api, "tags", "start=30") == (32, tags[30:])
    assert found(api, "tags", "start=10&limit=3") == (32, tags[10:13])
    assert found(api, "tags", "start=100") == (32, [])


def test_limit_zero_means_no_limit(api, tags):
    assert found(api, "tags", "limit=0") == (32, tags)


def test_paging_with_search_counts_all_matches(api, tags):
    total, page = found(api, "tags", "search=tag1&limit=4")
    assert total == 10  # tag10..tag19
    assert page == tags[10:14]


def test_large_limit_and_start(api, tags):
    assert found(api, "tags", "limit=10000000000") == (32, tags)
    assert found(api, "tags", "start=10000000000") == (32, [])


@pytest.mark.parametrize("query, expected", [(f"limit={10**40}", 3), (f"start={10**40}", 0)])
def test_huge_limit_and_start_are_not_500(api, query, expected):
    for n in range(3):
        make(api, "tags", {"tag": f"t{n}"})
    r = api.get(f"/api/tags?{query}")
    assert r.status_code == 200, r.json
    assert int(r.json["total"]) == 3 and len(r.json["tags"]) == expected


@pytest.mark.parametrize(
    "query, field", [("limit=x", "limit"), ("start=-1", "start"), ("orderByDir=sideways", "orderByDir")]
)
def test_bad_paging_parameters_are_400(api, query, field):
    assert_error(api.get(f"/api/tags?{query}"), 400, field=field)


# --- orderBy, orderByDir ---------------------------------------------------------------------------


def test_order_by_name(api):
    b, a, c = emails(api, "banana", "Apple", "cherry")
    assert found(api, "emails", "orderBy=name")[1] == [a, b, c]
    assert found(api, "emails", "orderBy=name&orderByDir=asc")[1] == [a, b, c]
    assert found(api, "emails", "orderBy=name&orderByDir=desc")[1] == [c, b, a]
    assert found(api, "emails", "orderBy=name&orderByDir=DESC&limit=1") == (3, [c])


def test_order_by_date_added_and_id(api):
    first, second, third = emails(api, "x", "y", "z")
    assert found(api, "emails", "orderBy=dateAdded&orderByDir=desc")[1] == [third, second, first]
    assert found(api, "emails", "orderBy=id&orderByDir=desc")[1] == [third, second, first]
    assert found(api, "emails", "orderByDir=desc")[1] == [third, second, first]
    assert found(api, "emails", "orderBy=id")[1] == [first, second, third]


def test_order_by_any_response_column(api):
    a = make(api, "emails", {"name": "a", "subject": "3"})["id"]
    b = make(api, "emails", {"name": "b", "subject": "1"})["id"]
    c = make(api, "emails", {"name": "c", "subject": "2"})["id"]
    assert found(api, "emails", "orderBy=subject")[1] == [b, c, a]
    first = make(api, "points", {"name": "p1", "type": "email.open", "delta": 5})["id"]
    second = make(api, "points", {"name": "p2", "type": "email.open", "delta": -3})["id"]
    assert found(api, "points", "orderBy=delta")[1] == [second, first]
    assert found(api, "points", "orderBy=delta&orderByDir=desc")[1] == [first, second]


def test_order_by_with_search_and_paging(api):
    b, a, c, _ = emails(api, "promo b", "promo a", "promo c", "other")
    assert found(api, "emails", "search=promo&orderBy=name&orderByDir=desc&start=1&limit=1") == (3, [b])
    assert found(api, "emails", "search=promo&orderBy=name") == (3, [a, b, c])


def test_order_by_unknown_column_is_400(api):
    assert_error(api.get("/api/emails?orderBy=nope"), 400, field="orderBy")


def test_contacts_order_by_field_alias(api, people):
    john, joanna, bob = people
    assert found(api, "contacts", "orderBy=firstname")[1] == [bob, joanna, john]
    assert found(api, "contacts", "orderBy=city&orderByDir=desc")[1] == [bob, john, joanna]


def test_contacts_order_by_camel_or_snake(api):
    late = make(api, "contacts", {"email": "late@example.com", "lastActive": "2024-03-01 10:00:00"})["id"]
    early = make(api, "contacts", {"email": "early@example.com", "lastActive": "2024-01-01 10:00:00"})["id"]
    middle = make(api, "contacts", {"email": "mid@example.com", "lastActive": "2024-02-01 10:00:00"})["id"]
    assert found(api, "contacts", "orderBy=lastActive")[1] == [early, middle, late]
    assert found(api, "contacts", "orderBy=date_added&orderByDir=desc")[1] == [middle, early, late]
    assert found(api, "contacts", "orderBy=dateAdded&orderByDir=desc")[1] == [middle, early, late]
    assert found(api, "contacts", "orderBy=date_identified")[1] == [late, early, middle]


def test_contacts_order_by_last_active_snake(api):
    late = make(api, "contacts", {"email": "late@example.com", "lastActive": "2024-03-01 10:00:00"})["id"]
    early = make(api, "contacts", {"email": "early@example.com", "lastActive": "2024-01-01 10:00:00"})["id"]
    middle = make(api, "contacts", {"email": "mid@example.com", "lastActive": "2024-02-01 10:00:00"})["id"]
    assert found(api, "contacts", "orderBy=last_active")[1] == [early, middle, late]
    assert found(api, "contacts", "orderBy=last_active&orderByDir=desc")[1] == [late, middle, early]


# --- publishedOnly / published ---------------------------------------------------------------------


@pytest.fixture
def publish_states(api):
    return {
        "plain": make(api, "emails", {"name": "plain"})["id"],
        "off": make(api, "emails", {"name": "off", "isPublished": False})["id"],
        "started": make(
            api, "emails", {"name": "started", "publishUp": "2001-01-01 00:00:00", "publishDown": "2999-01-01 00:00:00"}
        )["id"],
        "future": make(api, "emails", {"name": "future", "publishUp": "2999-01-01 00:00:00"})["id"],
        "expired": make(api, "emails", {"name": "expired", "publishDown": "2001-01-01 00:00:00"})["id"],
    }


@pytest.mark.parametrize("query", ["publishedOnly=1", "publishedOnly=true", "published=1"])
def test_published_only(api, publish_states, query):
    assert found(api, "emails", query) == (2, [publish_states["plain"], publish_states["started"]])


def test_published_only_off_lists_everything(api, publish_states):
    assert found(api, "emails", "publishedOnly=0")[0] == 5
    assert found(api, "emails", "")[0] == 5


def test_published_only_with_search_and_paging(api, publish_states):
    assert found(api, "emails", "publishedOnly=1&search=started") == (1, [publish_states["started"]])
    assert found(api, "emails", "publishedOnly=1&limit=1") == (2, [publish_states["plain"]])


def test_automations_published(api):
    on = make(api, "automations", {"name": "on"})["id"]
    make(api, "automations", {"name": "off", "isPublished": False})
    make(api, "automations", {"name": "later", "publishUp": "2999-01-01 00:00:00"})
    assert found(api, "automations", "published=1") == (1, [on])
    assert found(api, "automations", "publishedOnly=1") == (1, [on])


def test_published_only_bad_value_is_400(api):
    assert_error(api.get("/api/emails?publishedOnly=maybe"), 400, field="publishedOnly")


# --- minimal ---------------------------------------------------------------------------------------


def test_minimal_drops_heavy_keys_of_emails(api):
    make(api, "emails", {"name": "m", "customHtml": "<p>big</p>", "plainText": "big"})
    full = list(listing(api, "emails")["emails"].values())[0]
    assert full["customHtml"] == "<p>big</p>"
    small = list(listing(api, "emails", "minimal=1")["emails"].values())[0]
    assert "customHtml" not in small and "plainText" not in small
    assert small["name"] == "m" and small["id"] == full["id"]


def test_minimal_drops_fields_and_actions_of_forms(api):
    make(
        api,
        "forms",
        {
            "name": "f",
            "fields": [{"label": "Email", "type": "email"}],
            "actions": [{"name": "Notify", "type": "form.email", "properties": {"to": "a@example.com"}}],
        },
    )
    full = listing(api, "forms")["forms"][0]
    assert len(full["fields"]) == 1 and len(full["actions"]) == 1 and "cachedHtml" in full
    small = listing(api, "forms", "minimal=true")["forms"][0]
    assert "fields" not in small and "actions" not in small and "cachedHtml" not in small
    assert small["name"] == "f"


def test_minimal_drops_events_of_automations_and_triggers(api):
    make(
        api, "automations", {"name": "a", "events": [{"name": "e", "type": "lead.changepoints", "eventType": "action"}]}
    )
    assert "events" in list(listing(api, "automations")["automations"].values())[0]
    assert "events" not in list(listing(api, "automations", "minimal=1")["automations"].values())[0]
    make(api, "points/triggers", {"name": "t", "events": [{"type": "email.send"}]})
    assert "events" not in listing(api, "points/triggers", "minimal=1")["triggers"][0]


def test_minimal_does_not_change_get(api):
    form = make(api, "forms", {"name": "f", "fields": [{"label": "Email", "type": "email"}]})
    r = api.get(f"/api/forms/{form['id']}?minimal=1")
    assert len(r.json["form"]["fields"]) == 1
