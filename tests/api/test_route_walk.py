"""Issue 27 (beyond the list): a walk of every `/api` route of the route tables. Each route whose path
names a document of an own/other resource (a `Need(kind, action, param)` of the route, or one of
`EVENT_PARAMS`) is called by a user holding every own permission of every own/other level (and the
whole of the standard levels but users and roles) with, in turn, each of those parameters naming the
administrator's document and the others the walker's own: every answer is 403 or 404 and shows no
identifying value of the administrator's documents. Routes with path parameters that name no such
document are listed in `NOT_WALKED` with the reason, and a new one fails the walk until it is
classified."""

import json

from tests.api.payloads import BY_PREFIX
from tests.api.test_automations import tag
from tests.api.test_permissions import _as

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
MARK = "Zqx"  # what every identifying value of the administrator's documents contains (any case)

# Path parameters naming an automation's event: its automation decides (api/automations.py).
EVENT_PARAMS = {
    (f"/{prefix}/events/{{id}}{rest}", "id")
    for prefix in ("automations", "campaigns")  # Mautic's paths (api/campaigns.py)
    for rest in ("", "/contact/{contact_id}/edit")
}

# Routes with path parameters that name no document of an own/other resource, and why.
NOT_WALKED = {
    "/files/{dir}": "a folder of uploaded files (images, assets), not a document",
    "/files/{dir}/new": "a folder of uploaded files",
    "/files/{dir}/{file}/delete": "an uploaded file: files have no owner (asset:assets delete)",
    "/emails/reply/{hash}": "a send's tracking hash: a bearer token, as on the public tracking routes",
    "/stats/{table}": "a stats table; needs lead:leads:viewother (webhook_logs: a webhook view, own hooks only)",
    "/data/{type}": "a dashboard widget type",
    "/movein/mappings/{kind}": "a move-in's id mapping: administrators only (tests/api/test_movein_mappings.py)",
    "/movein/journeys/{contact_id}": "a moved contact's journeys: administrators only (test_movein_journeys.py)",
    "/movein/users/{user_id}/invite": "a user's invitation: administrators only (test_password_reset.py)",
    "/themes/{theme}": "a theme (core:themes)",
    "/themes/{theme}/delete": "a theme (core:themes)",
    "/stages/{id}": "stages are a standard level (no own/other)",
    "/stages/{id}/edit": "stages are a standard level",
    "/stages/{id}/delete": "stages are a standard level",
    "/points/{id}": "point actions are a standard level",
    "/points/{id}/edit": "point actions are a standard level",
    "/points/{id}/delete": "point actions are a standard level",
    "/points/triggers/{id}": "point triggers are a standard level",
    "/points/triggers/{id}/edit": "point triggers are a standard level",
    "/points/triggers/{id}/delete": "point triggers are a standard level",
    "/points/triggers/{id}/events/delete": "point triggers are a standard level",
    "/points/groups/{id}": "point groups are a standard level",
    "/points/groups/{id}/edit": "point groups are a standard level",
    "/points/groups/{id}/delete": "point groups are a standard level",
    "/fields/contact/{id}": "fields are a standard level (lead:fields)",
    "/fields/contact/{id}/edit": "fields are a standard level",
    "/fields/contact/{id}/delete": "fields are a standard level",
    "/fields/company/{id}": "fields are a standard level",
    "/fields/company/{id}/edit": "fields are a standard level",
    "/fields/company/{id}/delete": "fields are a standard level",
    "/categories/{id}": "categories are a standard level",
    "/categories/{id}/edit": "categories are a standard level",
    "/categories/{id}/delete": "categories are a standard level",
    "/roles/{id}": "roles are a standard level (user:roles)",
    "/tags/{id}": "tags have no owner: the plain lead:leads permission, as in Mautic (access.shared)",
    "/tags/{id}/edit": "tags have no owner",
    "/tags/{id}/delete": "tags have no owner",
    "/addresses/{id}": "addresses have no owner: the plain lead:leads permission (access.shared)",
    "/addresses/{id}/edit": "addresses have no owner",
    "/addresses/{id}/delete": "addresses have no owner",
    "/roles/{id}/edit": "roles are a standard level",
    "/roles/{id}/delete": "roles are a standard level",
    "/users/{id}": "users are a standard level (user:users)",
    "/users/{id}/edit": "users are a standard level",
    "/users/{id}/delete": "users are a standard level",
    "/users/{id}/permissioncheck": "users are a standard level",
}
BATCH = "/batch/{action}"  # batch routes name their documents in the body (tests/api/test_permissions.py)


def _payloads(mark):
    """(kind, create prefix, payload) of one document of each own/other kind, identified by `mark`."""
    plain = [
        (prefix, {BY_PREFIX[prefix].name: f"{mark} {prefix}"})
        for prefix in (
            "hooks",
            "forms",
            "addresses",
            "emails",
            "dynamiccontents",
            "notifications",
            "pages",
            "smses",
            "tweets",
            "assets",
        )
    ]
    return [(prefix, dict(BY_PREFIX[prefix].create, **extra)) for prefix, extra in plain] + [
        ("contacts", {"email": f"{mark.lower()}@example.com", "firstname": mark}),
        ("companies", {"companyname": f"{mark} company"}),
        # private: a global segment is seen by every viewer of segments (issue 41, docs/segments.md)
        ("segments", {"name": f"{mark} segment", "alias": f"{mark.lower()}-segment", "isGlobal": False}),
        ("tags", {"tag": f"{mark} tag"}),
        (
            "automations",
            {"name": f"{mark} automation", "events": [dict(tag("new1", f"{mark} tag"), name=f"{mark} event")]},
        ),
        ("focus", {"name": f"{mark} focus", "type": "notice", "style": "bar"}),
        ("messages", {"name": f"{mark} message"}),
        ("reports", {"name": f"{mark} report", "source": "leads"}),
    ]


def _documents(api, mark):
    """{kind: document} of one document of each own/other kind, written by `api`'s user."""
    from chalicelib.domain.kernel import registry

    docs = {}
    for prefix, payload in _payloads(mark):
        response = api.post(f"/api/{prefix}/new", payload)
        assert response.status_code == 201, (prefix, response.json)
        kind = next(r.kind for r in registry.resources() if r.prefix == prefix)
        docs[kind] = next(v for k, v in response.json.items() if isinstance(v, dict))
    contact = docs["contact"]["id"]
    for prefix, kind, payload in (
        ("notes", "note", {"lead": contact, "text": f"{mark} note"}),
        ("devices", "device", {"lead": contact, "device": "desktop", "deviceBrand": f"{mark} brand"}),
    ):
        response = api.post(f"/api/{prefix}/new", payload)
        assert response.status_code == 201, (prefix, response.json)
        docs[kind] = response.json[kind]
    docs["event"] = docs["automation"]["events"][0]
    return docs


def _walker_permissions():
    """Every own permission of every own/other level; the standard levels whole, but users and roles."""
    from chalicelib.domain.kernel import permission_catalog

    raw = {}
    for level, names in permission_catalog.CATALOG.items():
        if permission_catalog.extended(level):
            raw[level] = [n for n in names if n != "full" and not n.endswith("other")]
        elif not level.startswith("user:"):
            raw[level] = list(names)
    return raw


def _routes():
    """(path, method, {param: kind}) of every /api route with path parameters: the own/other
    documents each names (empty: names none)."""
    from chalicelib.api.blueprints import API_ROUTES
    from chalicelib.api.route_needs import Need
    from chalicelib.domain.kernel import access, permission_catalog, registry

    for routes in API_ROUTES:
        for path, methods in routes.needs.items():
            for method, needs in methods.items():
                if "{" not in path or method not in METHODS:
                    continue
                kinds = {
                    need.param: need.kind
                    for need in needs
                    if isinstance(need, Need)
                    and need.param
                    and permission_catalog.extended(registry.resource(need.kind).permission)
                    and not access.shared(registry.resource(need.kind))
                }
                kinds.update({param: "event" for route, param in EVENT_PARAMS if route == path})
                yield path, method, kinds


def _fillers(api):
    """Values of the path parameters that name no own/other document (visible to the walker)."""
    group = api.post("/api/points/groups/new", {"name": "Group"}).json["pointGroup"]
    stage = api.post("/api/stages/new", {"name": "Stage", "weight": 1}).json["stage"]
    category = api.post("/api/categories/new", {"title": "Category", "bundle": "global"}).json["category"]
    return {
        "operator": "plus",
        "delta": "1",
        "value": "1",
        "channel": "email",
        "utm_id": "1",
        "submission_id": "1",
        "field": "cv",
        "groupId": str(group["id"]),
        "category_id": str(category["id"]),
        "id": str(stage["id"]),
    }


def _leaks(body):
    return MARK.lower() in json.dumps(body).lower()


def test_an_own_only_user_reaches_no_document_of_anothers_through_any_route(api):
    walker = _as(api, "walker", _walker_permissions())
    theirs, mine = _documents(api, MARK), _documents(walker, "Mine")
    fillers = _fillers(api)
    walked, not_walked, holes, refused_own = 0, set(), [], []
    for path, method, kinds in _routes():
        if not kinds:
            not_walked.add(path)
            continue
        for stranger in kinds:
            params = dict(fillers, **{p: str((theirs if p == stranger else mine)[k]["id"]) for p, k in kinds.items()})
            response = walker.call(method, "/api" + path.format(**params), body={})
            walked += 1
            if response.status_code not in (403, 404) or _leaks(response.json):
                holes.append((method, path, stranger, response.status_code, response.json))
        own = dict(fillers, **{p: str(mine[k]["id"]) for p, k in kinds.items()})
        if method == "GET" and walker.get("/api" + path.format(**own)).status_code == 403:
            refused_own.append(path)  # the walk's 403s would then prove nothing
    assert holes == []
    assert refused_own == []
    assert {p for p in not_walked if not p.endswith(BATCH)} == set(NOT_WALKED)
    assert walked > 120
