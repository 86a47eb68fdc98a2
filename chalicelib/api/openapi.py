"""The OpenAPI 3.1 document of the service, generated from the route tables and the registry.

Every (path, method) of every route table becomes an operation. Routes that carry a `Contract`
(the standard operations and batch of a registry resource) get exact parameters, request bodies
and Mautic's envelopes built from the resource's declaration; the other routes get their path
parameters, a JSON body where the method takes one, and the documented error envelope. Nothing
here is written by hand per route, so a new route or attribute shows up by itself.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chalicelib import config
from chalicelib.api.routing import Contract, Handler, Routes
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import AUDIT_KEYS, Resource
from chalicelib.domain.kernel.types import Doc

BODY_METHODS = ("POST", "PUT", "PATCH")
ERROR = {"$ref": "#/components/schemas/Error"}
ANY_CONTENT = {"description": "A page, an image, a file or a redirect.", "content": {"*/*": {"schema": {}}}}
ERROR_RESPONSE = {
    "description": 'An error: `{"errors": [{"code", "message", "details", "type"}]}`.',
    "content": {"application/json": {"schema": ERROR}},
}
_TYPES: dict[Callable[..., Any], Doc] = {
    a.as_string: {"type": "string"},
    a.as_int: {"type": "integer"},
    a.as_int32: {"type": "integer", "minimum": a.INT32[0], "maximum": a.INT32[1]},
    a.as_bool: {"type": "boolean"},
    a.as_datetime: {"type": "string", "format": "date-time"},
    a.as_list: {"type": "array"},
    a.as_object: {"type": ["object", "array"], "maxItems": 0},  # an empty object may be `[]` (PHP)
    a.as_php_array: {"type": ["array", "object"]},
    a.as_id: {"type": "integer", "minimum": 1},
    a.id_list: {"type": "array", "items": {"type": "integer", "minimum": 1}},
}


def document(tables: Iterable[tuple[str, Routes]], base_url: str) -> Doc:
    """The OpenAPI document for the route `tables` [(url prefix, Routes)] served at `base_url`."""
    paths: dict[str, Doc] = {}
    resources: dict[str, Resource] = {}
    for prefix, routes in tables:
        for path, handlers in routes.table.items():
            contract = routes.contracts.get(path)
            for full, method in operations(prefix, path, handlers, contract):
                if contract is not None:
                    resources[contract.resource.kind] = contract.resource
                op = _operation(
                    full, method, handlers.get(method) or next(iter(handlers.values())), contract, routes.authenticated
                )
                if path in routes.media:
                    op["responses"]["200"] = _file(routes.media[path])
                paths.setdefault(full, {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Mautic-compatible marketing automation API",
            "version": config.MAUTIC_VERSION,
            "description": "Generated from the service's route table and resource registry.",
        },
        "servers": [{"url": base_url}],
        "security": [{"basicAuth": []}, {"oauth2": []}, {"oauth1a": []}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": _schemas(resources),
            "securitySchemes": _security(base_url),
            "parameters": _parameters(),
            "headers": _headers(),
        },
    }


def operations(
    prefix: str, path: str, handlers: Mapping[str, Handler], contract: Contract | None
) -> list[tuple[str, str]]:
    """[(full path, method)] a route answers: a batch route's `{action}` is spelled out per action."""
    if contract is not None and contract.operation == "batch":
        return [
            (prefix + path.replace("{action}", action), method)
            for action, methods in contract.actions
            for method in methods
        ]
    return [(prefix + path, method) for method in handlers if method != "HEAD"]


def _operation(path: str, method: str, handler: Handler, contract: Contract | None, authenticated: bool) -> Doc:
    """The operation object of one (path, method): parameters, body and responses."""
    names = re.findall(r"{(\w+)}", path)
    op: Doc = {
        "operationId": _operation_id(method, path),
        "summary": _summary(handler, contract, method, path),
        "tags": [_tag(path)],
        "parameters": [_path_parameter(name, contract) for name in names],
        "responses": {},
    }
    if not authenticated:
        op["security"] = []
    if contract is not None:
        _standard(op, method, contract)
    elif authenticated:
        if method in BODY_METHODS:
            op["requestBody"] = _body({"type": ["object", "array"]}, required=False)
        op["responses"]["200"] = _json("The result.", {}, _common_headers())
    else:
        op["responses"].update({"200": ANY_CONTENT, "3XX": ANY_CONTENT})
        if method == "OPTIONS":  # a CORS preflight (api/site_tracking.py)
            op["responses"]["204"] = {"description": "No content: the CORS headers of an allowed origin."}
        if path.startswith("/dwc/"):  # Mautic's answer for a slot with nothing to show
            op["responses"]["204"] = {"description": "No content: nothing to show the visitor in this slot."}
        if method in BODY_METHODS:
            op["requestBody"] = {
                "required": False,
                "content": {
                    "application/x-www-form-urlencoded": {"schema": {"type": "object"}},
                    "application/json": {"schema": {}},
                },
            }
    if method != "GET" and path.startswith("/api/"):
        op["parameters"].append({"$ref": "#/components/parameters/IdempotencyKey"})
    op["responses"]["4XX"] = ERROR_RESPONSE
    return op


def _tag(path: str) -> str:
    """The group of an operation: the resource family under /api, `oauth`, or `public`."""
    parts = path.split("/")
    return parts[2] if parts[1] == "api" else "oauth" if parts[1] == "oauth" else "public"


def _operation_id(method: str, path: str) -> str:
    """`getContactsId` for GET /api/contacts/{id}: the method and the path's words in camel case."""
    words = [w.strip("{}") for w in re.split(r"[/.]", path) if w and w != "api"]
    return method.lower() + "".join(w[:1].upper() + w[1:] for w in re.sub(r"[^\w/]", "_", "/".join(words)).split("/"))


def _summary(handler: Handler, contract: Contract | None, method: str, path: str) -> str:
    """The operation's summary: the standard operation, else the first line of the handler's docstring."""
    if contract is not None:
        return f"{contract.operation.capitalize()} {contract.resource.plural} ({method} {path})"
    doc = (handler.__doc__ or "").strip().split("\n")[0]
    return doc or f"{method} {path}"


def _path_parameter(name: str, contract: Contract | None) -> Doc:
    """A path parameter: an integer id for a standard operation, else a string."""
    schema = {"type": "integer", "minimum": 1} if name == "id" and contract is not None else {"type": "string"}
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _standard(op: Doc, method: str, contract: Contract) -> None:
    """Parameters, body and responses of a registry resource's standard operation."""
    resource, ref = contract.resource, _ref(contract.resource)
    single = {"type": "object", "required": [resource.singular], "properties": {resource.singular: ref}}
    if contract.operation == "list":
        op["parameters"] += [
            {"$ref": f"#/components/parameters/{name}"} for name in (*LIST_PARAMETERS, "where", "order")
        ]
        op["responses"]["200"] = _json(
            f"A page of {resource.plural}.",
            _list_schema(resource),
            dict(_common_headers(), Link={"$ref": "#/components/headers/Link"}),
        )
    elif contract.operation == "get":
        op["responses"]["200"] = _json(f"The {resource.singular}.", single, _common_headers())
    elif contract.operation in ("create", "edit"):
        op["requestBody"] = _body(_write_ref(resource, contract.operation == "create" or method == "PUT"))
        op["responses"]["200"] = _json(f"The {resource.singular} as stored.", single, _common_headers())
        op["responses"]["201"] = _json(
            f"The {resource.singular}, created.",
            single,
            dict(_common_headers(), Location={"schema": {"type": "string"}}),
        )
    elif contract.operation == "delete":
        op["responses"]["200"] = _json(f"The deleted {resource.singular} (its id null).", single, _common_headers())
    else:
        _batch(op, method, resource)


def _batch(op: Doc, method: str, resource: Resource) -> None:
    """Parameters, body and responses of a batch operation."""
    collection = {"type": ["array", "object"]}
    body = {
        "type": "object",
        "properties": {resource.plural: collection, "errors": collection, "statusCodes": collection},
    }
    if method == "DELETE":
        op["parameters"].append(
            {
                "name": "ids",
                "in": "query",
                "schema": {"type": "string"},
                "description": "Comma-separated ids (or `ids[]=`).",
            }
        )
    else:
        op["requestBody"] = _body(
            {"type": "array", "maxItems": config.active().BATCH_MAX, "items": _write_ref(resource, False)},
            required=False,
        )
    status = "201" if method == "POST" else "200"
    op["responses"][status] = _json("One result per item, keyed by input index.", body, _common_headers())


def _ref(resource: Resource) -> Doc:
    """A reference to the resource's read schema."""
    return {"$ref": f"#/components/schemas/{_name(resource)}"}


def _write_ref(resource: Resource, full: bool) -> Doc:
    """A reference to the resource's create (`full`) or edit schema."""
    return {"$ref": f"#/components/schemas/{_name(resource)}{'Create' if full else 'Edit'}"}


def _name(resource: Resource) -> str:
    """The resource's schema name: its kind in camel case, capitalised."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]", resource.kind))


def _file(media: str) -> Doc:
    """A 200 answering a file of type `media` (`*/*`: the file's own), named by Content-Disposition."""
    return {
        "description": "The file, as an attachment (`Content-Disposition` names it).",
        "headers": {"Content-Disposition": {"schema": {"type": "string"}}},
        "content": {media: {"schema": {"type": "string", "contentMediaType": media}}},
    }


def _json(description: str, schema: Doc, headers: Doc) -> Doc:
    """A JSON response object."""
    return {"description": description, "headers": headers, "content": {"application/json": {"schema": schema}}}


def _body(schema: Doc, required: bool = True) -> Doc:
    """A JSON request body object."""
    return {
        "required": required,
        "description": "JSON; the same fields form-encoded (PHP brackets) are accepted too.",
        "content": {"application/json": {"schema": schema}},
    }


def _list_schema(resource: Resource) -> Doc:
    """The list envelope: `total`, the collection (keyed by id or an array) and `next`."""
    items: Doc = {"type": "array", "items": _ref(resource)}
    if resource.keyed_list:
        items = {
            "oneOf": [{"type": "object", "additionalProperties": _ref(resource)}, {"type": "array", "maxItems": 0}]
        }
    return {
        "type": "object",
        "required": ["total", resource.plural],
        "properties": {
            "total": (
                {"type": "string", "pattern": "^[0-9]+$", "description": "A count, as digits: Mautic's raw SQL count."}
                if resource.total_as_text
                else {"type": "integer"}
            ),
            resource.plural: items,
            "next": {"type": "string", "description": "Cursor of the next page (`after=`)."},
        },
    }


def _schemas(resources: Mapping[str, Resource]) -> Doc:
    """The error schema, and the read, create and edit schemas of each resource."""
    schemas: Doc = {
        "Error": {
            "type": "object",
            "required": ["errors"],
            "properties": {
                "errors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["code", "message"],
                        "properties": {
                            "code": {"type": "integer"},
                            "message": {"type": "string"},
                            "details": {},
                            "type": {"type": ["string", "null"]},
                        },
                    },
                }
            },
        }
    }
    for resource in sorted(resources.values(), key=_name):
        schemas[_name(resource)] = _read_schema(resource)
        schemas[_name(resource) + "Create"] = _write_schema(resource, required=True)
        schemas[_name(resource) + "Edit"] = _write_schema(resource, required=False)
    return schemas


def _attr_schema(attr: a.Attr) -> Doc:
    """The schema of an attribute's values, from the function that coerces them."""
    if attr.ref == "category" or attr.ref and attr.coerce is a.as_id:
        return {}  # presented as the referenced entity or its id, as Mautic does
    choices = getattr(attr.coerce, "choices", None)
    return {"type": "string", "enum": list(choices)} if choices else dict(_TYPES.get(attr.coerce, {}))


def _nullable(schema: Doc) -> Doc:
    """The schema also accepting null."""
    if "type" not in schema:
        return schema
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    out = dict(schema, type=types + ["null"])
    if "enum" in out:
        out["enum"] = out["enum"] + [None]
    return out


def _read_schema(resource: Resource) -> Doc:
    """What the API answers of a resource: id, audit keys, visible attributes, nested collections."""
    props: Doc = {"id": {"type": ["integer", "null"]}}
    if resource.audit:
        props.update({key: {} for key in AUDIT_KEYS})
    for attr in resource.all_attrs:
        if not attr.hidden:
            props[attr.name] = _nullable(_attr_schema(attr))
            if attr.ref and attr.coerce is a.id_list:  # answered as the referenced documents' summaries
                props[attr.name] = {"type": "array", "items": {"type": "object", "required": ["id"]}}
    for spec in resource.nested:
        props[spec.name] = {"type": "array", "items": {"type": "object"}}
    return {"type": "object", "required": ["id"], "properties": props, "additionalProperties": True}


def _written(attr: a.Attr) -> Doc:
    """The schema of the values an attribute takes: a string's with its cap (docs/security.md)."""
    schema = _attr_schema(attr)
    return dict(schema, maxLength=attr.text_limit()) if schema.get("type") == "string" else schema


def _write_schema(resource: Resource, required: bool) -> Doc:
    """What a create (`required`: its required attributes) or an edit accepts."""
    props: Doc = {}
    for attr in resource.all_attrs:
        if attr.writable and not attr.hidden:
            props[attr.name] = _nullable(_written(attr)) if attr.nullable else _written(attr)
    for spec in resource.nested:
        props[spec.name] = {"type": ["array", "object"]}
    schema: Doc = {"type": "object", "properties": props, "additionalProperties": True}
    names = [attr.name for attr in resource.all_attrs if attr.required and attr.writable]
    if required and names:
        schema["required"] = names
    return schema


LIST_PARAMETERS = {
    "search": ({"type": "string"}, "Mautic search: free text and commands (`ids:1,2`, `is:published`...)."),
    "start": ({"type": "integer", "minimum": 0}, "Offset of the first item."),
    "limit": ({"type": "integer", "minimum": 0}, "Items per page (0: the most, {most})."),
    "orderBy": ({"type": "string"}, "Column to order by."),
    "orderByDir": ({"type": "string", "enum": ["asc", "desc", "ASC", "DESC"]}, "Order direction."),
    "publishedOnly": ({"type": "boolean"}, "Only published items."),
    "minimal": ({"type": "boolean"}, "Leave out the large properties."),
    "after": ({"type": "string"}, "Cursor from a previous page's `next`: the page after it, in key order."),
}


def _parameters() -> Doc:
    """The shared parameters: the list's, `where`, `order` and `Idempotency-Key`."""
    most = config.active().MAX_PAGE_LIMIT
    params: Doc = {
        name: {"name": name, "in": "query", "required": False, "schema": schema, "description": text.format(most=most)}
        for name, (schema, text) in LIST_PARAMETERS.items()
    }
    params["where"] = {
        "name": "where",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "schema": {"type": "object"},
        "description": "Filters: `where[0][col]=email&where[0][expr]=eq&where[0][val]=a@b.c`.",
    }
    params["order"] = {
        "name": "order",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "schema": {"type": "object"},
        "description": "Orders: `order[0][col]=id&order[0][dir]=desc`.",
    }
    params["IdempotencyKey"] = {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "maxLength": 255},
        "description": "Replays the first answer to this key (24 h, per credential); see docs/api-contract.md.",
    }
    return params


def _headers() -> Doc:
    """The shared response headers: rate limits, idempotent replay and `Link`."""
    text = {"schema": {"type": "string"}}
    return {
        "RateLimit": dict(
            text,
            description='`"user";r=<remaining>;t=<seconds>` per policy (IETF RateLimit '
            "fields), when rate limits are on.",
        ),
        "RateLimit-Policy": dict(text, description='`"user";q=<quota>;w=60` per policy (and `"client"`).'),
        "Idempotent-Replayed": dict(text, description="`true` on the stored answer to a repeated Idempotency-Key."),
        "Link": dict(text, description='`<url>; rel="next"` when more items follow in key order.'),
    }


def _common_headers() -> Doc:
    """References to the headers every /api answer may carry."""
    return {
        name: {"$ref": f"#/components/headers/{name}"}
        for name in ("RateLimit", "RateLimit-Policy", "Idempotent-Replayed")
    }


def _security(base_url: str) -> Doc:
    """The security schemes: Basic, OAuth2 and OAuth1a."""
    return {
        "basicAuth": {"type": "http", "scheme": "basic", "description": "A user's name and password."},
        "oauth2": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": f"{base_url}/oauth/v2/authorize",
                    "tokenUrl": f"{base_url}/oauth/v2/token",
                    "refreshUrl": f"{base_url}/oauth/v2/token",
                    "scopes": {},
                },
                "clientCredentials": {"tokenUrl": f"{base_url}/oauth/v2/token", "scopes": {}},
            },
            "description": "Bearer tokens in the Authorization header or `access_token`.",
        },
        "oauth1a": {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "OAuth 1.0a, HMAC-SHA1 signed (`Authorization: OAuth ...`): temporary credentials "
            f"at {base_url}/oauth/v1/request_token, user authorization at /oauth/v1/authorize, "
            "token credentials at /oauth/v1/access_token.",
        },
    }
