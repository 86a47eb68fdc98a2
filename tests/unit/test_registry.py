"""One place per resource (issue 44): a declaration alone gives a resource its registry entry, its
standard and batch routes in the route table it names, what each route needs of the caller's role, and
its operations and schemas in the OpenAPI document; installing the registry and the subscriber table is
a call of the composition root (`bootstrap.assemble()`), never a side effect of an import."""

import importlib
import re
import subprocess
import sys

import pytest

from chalicelib import bootstrap
from chalicelib.api import blueprints, standard
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Routes
from chalicelib.domain import wiring
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import permission_catalog, registry, subscribers
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.resources import STANDARD_OPERATIONS, Resource

ROUTED = [r for r in bootstrap.resources() if r.routes]
TABLES = {routes.name: routes for routes in blueprints.API_ROUTES}
DOCUMENT = blueprints.openapi_document("http://127.0.0.1")
# operation -> (path under the prefix, methods, the action its route needs, whether it names the document)
SHAPES = {
    "list": ("", ("GET",), Action.VIEW, False),
    "create": ("/new", ("POST",), Action.CREATE, False),
    "get": ("/{id}", ("GET",), Action.VIEW, True),
    "edit": ("/{id}/edit", ("PATCH",), Action.EDIT, True),
    "delete": ("/{id}/delete", ("DELETE",), Action.DELETE, True),
}


def _schema_name(resource):
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]", resource.kind))


def _expected(resource):
    """(path, method, operation, needs) of every standard route the declaration asks for."""
    for operation in sorted(resource.operations):
        tail, methods, action, by_id = SHAPES[operation]
        if operation == "edit" and resource.put:
            methods = ("PATCH", "PUT")
        need = Need(resource.kind, action, "id" if by_id else None)
        for method in methods:
            yield f"/{resource.prefix}{tail}", method, operation, need


def test_every_resource_is_registered_once_by_kind():
    kinds = [r.kind for r in bootstrap.resources()]
    assert len(kinds) == len(set(kinds))
    assert registry.resources() == bootstrap.resources()
    assert all(registry.resource(r.kind) is r for r in bootstrap.resources())
    assert {"user", "role", "contact", "report"} <= set(kinds)  # auth's and the capabilities'


@pytest.mark.parametrize("resource", ROUTED, ids=lambda r: r.kind)
def test_a_declaration_gives_its_routes_and_their_needs(resource):
    assert resource.permission in permission_catalog.CATALOG  # the Mautic level its routes' needs check
    routes = TABLES[resource.routes]
    for path, method, operation, need in _expected(resource):
        assert method in routes.table.get(path, {}), f"{method} {path}"
        assert routes.contracts[path].operation == operation and routes.contracts[path].resource is resource
        assert routes.needs[path][method] == (need,)


@pytest.mark.parametrize("resource", ROUTED, ids=lambda r: r.kind)
def test_a_declaration_gives_its_openapi_operations_and_schemas(resource):
    paths = DOCUMENT["paths"]
    for path, method, _, _ in _expected(resource):
        assert method.lower() in paths.get(f"/api{path}", {}), f"{method} /api{path}"
    if resource.batch and resource.put:
        assert "post" in paths[f"/api/{resource.prefix}/batch/new"]
        assert "delete" in paths[f"/api/{resource.prefix}/batch/delete"]
    else:
        assert f"/api/{resource.prefix}/batch/new" not in paths
    schemas = DOCUMENT["components"]["schemas"]
    assert {_schema_name(resource) + suffix for suffix in ("", "Create", "Edit")} <= set(schemas)


def test_operations_left_out_are_served_by_the_table_itself():
    report = registry.resource("report")
    assert report.operations == STANDARD_OPERATIONS - {"get"}
    routes = TABLES["reports"]
    assert "GET" in routes.table["/reports/{id}"] and "/reports/{id}" not in routes.contracts


def test_a_resource_without_a_route_table_gets_no_standard_route():
    assert registry.resource("user").routes is None
    modules = {
        handler.__module__
        for routes in blueprints.API_ROUTES
        for path, contract in routes.contracts.items()
        if contract.resource.kind == "user"
        for handler in routes.table[path].values()
    }
    assert modules == {"chalicelib.api.users"}  # its own routes only, none of api/standard.py


def test_each_route_table_is_listed_once_and_named_by_its_resources():
    names = [routes.name for routes in blueprints.API_ROUTES]
    assert len(names) == len(set(names))
    assert {r.routes for r in ROUTED} <= set(names)
    assert len(blueprints.API_BLUEPRINTS) == len(blueprints.API_ROUTES) + 1  # and the OpenAPI document's


def test_a_new_declaration_is_one_place(monkeypatch):
    gadget = Resource(
        kind="gadget",
        prefix="gadgets",
        singular="gadget",
        plural="gadgets",
        routes="gadgets",
        permission="gadget:gadgets",
        attrs=(a.text("name", required=True),),
    )
    declared = (*bootstrap.resources(), gadget)
    monkeypatch.setattr(bootstrap, "resources", lambda: declared)
    routes = Routes("gadgets")
    standard.install_declared(routes)
    assert sorted(routes.table) == [
        "/gadgets",
        "/gadgets/new",
        "/gadgets/{id}",
        "/gadgets/{id}/delete",
        "/gadgets/{id}/edit",
    ]
    assert routes.needs["/gadgets/{id}/edit"]["PUT"] == (Need("gadget", Action.EDIT, "id"),)


def test_importing_the_wiring_installs_nothing_and_assembling_imports_no_capability():
    code = (
        "import sys\n"
        "def capabilities():\n"
        "    found = {m.split('.')[2] for m in sys.modules if m.startswith('chalicelib.domain.')}\n"
        "    return sorted(found - {'kernel', 'wiring'})\n"
        "from chalicelib.domain import wiring\n"
        "from chalicelib.domain.kernel import registry, subscribers\n"
        "for lookup in (lambda: registry.resource('contact'), subscribers.erase_steps):\n"
        "    try:\n"
        "        lookup()\n"
        "    except LookupError as error:\n"
        "        print(type(error).__name__)\n"
        "from chalicelib import bootstrap\n"
        "bootstrap.assemble()\n"
        "print(capabilities())\n"
        "print(registry.resource('tag').prefix)\n"
        "print(capabilities())\n"
        "print(registry.resource('contact').prefix, len(subscribers.erase_steps()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:3] == ["NotInstalled", "NotInstalled", "[]"]  # assembled, and not one capability imported yet
    assert out[3:5] == ["tags", "[]"]  # the kernel's own kinds import no capability
    assert out[5] == f"contacts {len(wiring.SUBSCRIBERS.erase)}"


def _paths(table):
    """Every `capability.module:name` path of the subscriber table, with what it must be."""
    for handlers in (*table.write.values(), table.announce, *table.stored.values(), table.committed):
        yield from ((path, callable) for path in handlers)
    yield from ((path, callable) for _, path in table.erase)
    yield from ((path, callable) for path in table.actions.values())
    yield from ((path, lambda found: isinstance(found, subscribers.Command)) for path in table.commands.values())


def test_every_subscriber_path_names_a_handler():
    for path, fits in _paths(wiring.SUBSCRIBERS):
        assert fits(subscribers.resolved(path)), path


def test_the_index_lists_the_kinds_each_declarations_module_declares():
    for module, kinds in bootstrap.DECLARATIONS.items():
        assert tuple(r.kind for r in importlib.import_module(module).RESOURCES) == kinds, module
