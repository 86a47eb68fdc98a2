"""Batch create, edit and delete of the standard resources (compat section 6, spec "Contacts:
further endpoints").

For a resource with prefix `<P>` (every registered resource with routes whose declaration has PUT and `batch`):

    POST         /<P>/batch/new      body: array of entity objects              HTTP 201, always
    PUT | PATCH  /<P>/batch/edit     body: array of entity objects, each `id`   HTTP 200, always
    DELETE       /<P>/batch/delete   `?ids=1,2,3` or `?ids[]=1&ids[]=2`         HTTP 200

The three are served by one route per resource, `/<P>/batch/{action}`, dispatching on action and
method (an unknown action is the JSON 404 of an unknown path, a wrong method a 405 naming the
allowed ones). One route instead of three keeps the route table small. The literal `batch`
segment takes precedence over `/<P>/{id}/...` (locally and in `api/path_routing.py` on AWS).
`/<P>/batch/<unknown>` and a wrong method are answered after authentication.

Items are independent. Each item is one call of `domain.service` (`create`, `edit`, `delete`),
exactly what the single-entity endpoint does (contacts deduplicate per item: statusCode 200 when
an existing contact was matched and updated; PATCH needs the entity, PUT creates a missing one
with a new id). The service validates the whole item before writing anything, so an item that
fails writes nothing and the items after it still run. Unexpected exceptions are caught per item
too (logged, item error 500); an item whose AWS dependency stayed throttled or failing past the SDK's
retries is its 503 entry when none of its write calls may have been applied (its writes are single items
or transactions), and the answer then carries `Retry-After`, as a whole request's 503 does; one that failed
after a write of it (its document stored, its follow-up work such as a segment's rebuild queued not) is a 409
of type `outcome_unknown`, so a client reads before sending it again (docs/reliability.md).

Permissions (`api/route_needs.py`, as Mautic): batch/new needs `create` (a plain 403 for the whole
batch otherwise); each edited or deleted item is checked against its own document (own/other), and
a refused item is its 403 entry in `errors` (`{"message", "code": 403, "type": "api"}`).

Response shapes (Mautic's, which come from PHP's `json_encode` of arrays keyed by input index):

* `statusCodes`: one code per input item: 201 created, 200 edited / matched, or the item's error code.
* `errors`: present only when an item failed, keyed by the item's input index.
  Id look-up failures (missing `id`, unknown id) are `{"message", "code", "type": "api"}`;
  the others (validation...) are `{"code", "message", "details", "type": null}`.
* The entity collection holds the successful items keyed by their input index.

Key-shape choice. Every one of these three maps is keyed by input index and rendered the way PHP
renders an array: a JSON array when its keys are exactly 0..n-1 in order, otherwise a JSON object
keyed by the index as a string. So when every item succeeds (and when only trailing items fail)
the collection is an array from 0 in request order, which is what the api-library reads
(`response[plural][0]`); when an earlier item failed, the collection is an object such as
`{"0": {...}, "2": {...}}`, as Mautic sends it. We do not compact the successes into an array
after a failure: `collection[i]`, `statusCodes[i]` and `errors[i]` always describe input item i,
which is what a client needs to match results to what it sent (and what Mautic clients already
handle). `errors` follows the same rule (an error at index 0 alone gives `[{...}]`), as in Mautic.

Input. The body is a JSON array (or, echoing Mautic's "associative keys" compatibility, a JSON
object whose values are all objects, which is also what a form-encoded `0[email]=...&1[email]=...`
body parses to): keys are echoed, numeric ones count as indexes. Anything else is a 400. An empty
body or `[]` is an empty batch. `id` inside an item is never written (for edit it picks the entity).
Delete takes `ids` as a comma-separated string, a `ids[]=` list or `ids[k]=` keyed list; no `ids`
is an empty batch (the api-library sends none for an empty list). Unknown ids are left out of the
collection and reported in `errors` (404, "Item was not found.") at their index. Delete answers no
`statusCodes` (Mautic sends none) and serializes the entities as they were, ids intact.

Limit. More than `config.active().BATCH_MAX` (200) items (or ids) is answered before anything is written
with HTTP 400 `A max of 200 entities are supported at a time.` (Mautic's message; Mautic answers 500,
but the API contract has no 5xx for bad input, docs/api-contract.md; the
spec says nothing on the limit). Batch responses carry no `Location` header.

Cost (DynamoDB calls, measured over moto). A batch of N items costs N times the single operation,
with the per-request look-ups made once (the versions of the cached kinds, field definitions,
owners and categories referenced). batch/new does more once for all its items
(`domain/kernel/batching.py`): it reserves the ids its items take in one counter update per counter
(the kind's ids, timeline event ids) and looks up the unique values of all its contacts in one
BatchGetItem per 100, so contacts batch/new = 1 TransactWriteItems per item + 5 = 205 for 200 new
contacts (+1 GetItem per item matching an existing contact). batch/edit and batch/delete = 2 per
item (GetItem, TransactWriteItems) + 1. The calls are sequential. For the cached kinds themselves
(custom fields, point triggers), each item runs with its own context so that it sees the writes
of the items before it, as separate requests would.

The spec's "PUT batch/edit: 200 edited, 201 created" is read as the items' `statusCodes`; the
HTTP status of batch/edit is 200 as in Mautic.
"""

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

from chalicelib import aws, bootstrap, config
from chalicelib.api import route_needs
from chalicelib.api.errors import NOT_FOUND_PATH, UNAVAILABLE, UNEXPECTED, ApiError
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import METHODS, Answer, Contract, Handler, Reply, Routes
from chalicelib.domain.kernel import access, batching, cache_keys, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, Forbidden, NotFound
from chalicelib.domain.kernel.present import present
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import outages
from chalicelib.store.common import TooLarge

log = logging.getLogger(__name__)

ID_MISSING = "ID is missing from the payload."
NOT_FOUND = "Item was not found."
PATH_NOT_FOUND = NOT_FOUND_PATH["errors"][0]["message"]
OUTCOME_UNKNOWN = (
    "The item failed after a write of it may have been applied; it is not a 503 to send again: read the "
    "resource to see what was stored first."
)
_PHP_INT = r"^(0|-?[1-9][0-9]{0,17})$"
Key = int | str  # an item's key in the request: its index, or the key it was sent with
ItemCall = Callable[[Context], tuple[Doc, int]]  # one item's operation: (document, status code)


def php_key(key: Key) -> Key:
    """A key as PHP holds it in an array: a decimal integer string is an int."""
    if isinstance(key, int):
        return key
    return int(key) if re.match(_PHP_INT, key) else key


def php_array(pairs: Iterable[tuple[Key, Any]]) -> list[Any] | dict[str, Any]:
    """(key, value) pairs as PHP's json_encode renders the array: a list if the keys are 0..n-1 in
    order, else an object keyed by the keys as strings."""
    pairs = list(pairs)
    if all(isinstance(key, int) and key == n for n, (key, _) in enumerate(pairs)):
        return [value for _, value in pairs]
    return {str(key): value for key, value in pairs}


def check_limit(count: int) -> None:
    """400 past BATCH_MAX items, before anything is written."""
    if count > config.active().BATCH_MAX:
        raise ApiError(400, f"A max of {config.active().BATCH_MAX} entities are supported at a time.")


def body_items(body: JSON) -> list[tuple[Key, JSON]]:
    """The (key, item) pairs of a batch body, in order."""
    if isinstance(body, list):
        pairs: list[tuple[Key, JSON]] = list(enumerate(body))
    elif isinstance(body, dict) and all(isinstance(value, dict) for value in body.values()):
        pairs = [(php_key(key), value) for key, value in body.items()]
    else:
        raise ApiError(
            400,
            "The request body should be an array of objects, one per entity.",
            {"body": ["This value should be an array of objects."]},
        )
    check_limit(len(pairs))
    return pairs


def query_ids(query: Doc) -> list[tuple[Key, JSON]]:
    """The (key, id) pairs of `ids`: `1,2,3`, `ids[]=1&ids[]=2` or `ids[a]=1`."""
    ids = query.get("ids")
    pairs: list[tuple[Key, JSON]]
    if ids is None or ids == "":
        pairs = []
    elif isinstance(ids, list):
        pairs = list(enumerate(ids))
    elif isinstance(ids, dict):
        pairs = [(php_key(key), value) for key, value in ids.items()]
    else:
        pairs = list(enumerate(part.strip() for part in str(ids).split(",")))
    check_limit(len(pairs))
    return pairs


def api_error(status: int, message: str) -> Doc:
    """An id look-up or permission failure of one item."""
    return {"message": message, "code": status, "type": "api"}


def item_error(error: DomainError) -> Doc:
    """The `errors` entry of an item refused by the domain."""
    if isinstance(error, (NotFound, Forbidden)):
        return api_error(error.status, error.message)
    return {"code": error.status, "message": error.message, "details": error.details, "type": None}


def without_id(item: JSON) -> JSON:
    """An item without its `id`, which picks the entity and is never written."""
    return {k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item


class Outcome:
    """The results of a batch, by input key."""

    def __init__(self, resource: Resource, ctx: Context) -> None:
        self.resource = resource
        self.ctx = ctx
        self.docs: list[tuple[Key, Doc]] = []  # (key, document)
        self.codes: list[tuple[Key, int]] = []  # (key, status)
        self.errors: list[tuple[Key, Doc]] = []  # (key, error entry)

    def item_ctx(self) -> Context:
        """The context an item runs with: the request's, or a fresh one for cached kinds, whose
        writes must be seen by the next item (their definitions are memoised per context)."""
        if self.resource.cached:
            return Context(user=self.ctx.user, base_url=self.ctx.base_url, now=self.ctx.now)
        # an item may refer to an entity of its own kind that an earlier item created
        self.ctx.cache.pop(cache_keys.ref(self.resource.kind), None)
        return self.ctx

    def run(self, key: Key, call: ItemCall) -> None:
        """Run one item: call(ctx) -> (document, status); its failure is recorded, never raised,
        also when its write was deferred and the store refuses it later."""
        writes = aws.writes()
        try:
            item_ctx = self.item_ctx()
            with batching.item(lambda error: self.refuse(key, error)):
                doc, status = service.retrying(lambda: call(item_ctx), item_ctx)
        except Exception as error:  # noqa: BLE001 - one item's failure must not spoil the others
            self.fail(key, self._error(key, error, wrote=aws.writes() != writes))
        else:
            self.docs.append((key, doc))
            self.codes.append((key, status))

    def _error(self, key: Key, error: BaseException, wrote: bool = False) -> Doc:
        """The `errors` entry of a failed item (an unexpected failure is logged and a 500). An unavailable
        dependency is a 503 to send again, unless a write call of the item may have been applied (`wrote`:
        its document stored, then its follow-up work failed): a 409 of unknown outcome, as a single request's
        under an `Idempotency-Key` (api/idempotency.py), so a resend does not store it twice."""
        if isinstance(error, DomainError):
            return item_error(error)
        if isinstance(error, TooLarge):  # over what an item may hold (store/documents.py): not written
            return {"code": 413, "message": str(error), "details": {"body": [str(error)]}, "type": None}
        if outages.unavailable(error) and wrote:
            log.warning("batch item %s of %s: unavailable after a write: %s", key, self.resource.kind, error)
            return {"code": 409, "message": OUTCOME_UNKNOWN, "details": [], "type": "outcome_unknown"}
        if outages.unavailable(error):  # AWS throttled or failing past the SDK's retries: not a bug
            log.warning("batch item %s of %s: dependency unavailable: %s", key, self.resource.kind, error)
            return {"code": 503, "message": UNAVAILABLE, "details": [], "type": None}
        log.error("batch item %s of %s failed", key, self.resource.kind, exc_info=error)
        return {"code": 500, "message": UNEXPECTED, "details": [], "type": None}

    def fail(self, key: Key, error: Doc) -> None:
        """Record an item's failure: its error entry and code."""
        self.errors.append((key, error))
        self.codes.append((key, error["code"]))

    def refuse(self, key: Key, error: BaseException) -> None:
        """An item reported done whose deferred write was refused: its error replaces its document."""
        entry = self._error(key, error)
        self.docs = [(k, doc) for k, doc in self.docs if k != key]
        self.codes = [(k, entry["code"] if k == key else code) for k, code in self.codes]
        self.errors.append((key, entry))

    def reply(self, status: int, codes: bool = True) -> Reply:
        """The batch answer: the documents, `statusCodes` (unless `codes` is False) and `errors`, by key."""
        ctx = self.item_ctx() if self.resource.cached else self.ctx
        reprs = present(self.resource, [doc for _, doc in self.docs], ctx)
        body: Doc = {self.resource.plural: php_array(zip([key for key, _ in self.docs], reprs, strict=True))}
        if codes:
            body["statusCodes"] = php_array(self.codes)
        if self.errors:
            body["errors"] = php_array(self.errors)
        retry = any(code == 503 for _, code in self.codes)
        return Reply(body, status, {"Retry-After": str(config.active().RETRY_AFTER_SECONDS)} if retry else {})


def _batch_new(resource: Resource) -> Handler:
    """The handler of `batch/new`: one create per item, ids and unique look-ups prepared for all."""
    writes = resource.writes or service

    def batch_new(request: ApiRequest, ctx: Context) -> Answer:
        access.require(ctx, resource, Action.CREATE)
        outcome = Outcome(resource, ctx)
        items = [(key, without_id(item)) for key, item in body_items(request.body)]
        with batching.prepared(resource, [item for _, item in items], ctx, group=not resource.cached):
            for key, item in items:

                def create(item_ctx: Context, item: JSON = item) -> tuple[Doc, int]:
                    doc, was_created = writes.create(resource, item, item_ctx)
                    return doc, 201 if was_created else 200

                outcome.run(key, create)
        return outcome.reply(201)

    return batch_new


def _batch_edit(resource: Resource) -> Handler:
    """The handler of `batch/edit`: one PATCH or PUT per item, each checked against its document."""
    writes = resource.writes or service

    def batch_edit(request: ApiRequest, ctx: Context) -> Answer:
        replace = request.method == "PUT"
        outcome = Outcome(resource, ctx)
        for key, item in body_items(request.body):
            entity_id = item.get("id") if isinstance(item, dict) else None
            if entity_id is None or entity_id == "":
                outcome.fail(key, api_error(400, ID_MISSING))
                continue

            def edit(item_ctx: Context, item: JSON = item, entity_id: JSON = entity_id) -> tuple[Doc, int]:
                route_needs.check_document(resource, Action.EDIT, entity_id, item_ctx, request.method)
                doc, was_created = writes.edit(resource, entity_id, without_id(item), item_ctx, replace=replace)
                return doc, 201 if was_created else 200

            outcome.run(key, edit)
        return outcome.reply(200)

    return batch_edit


def _batch_delete(resource: Resource) -> Handler:
    """The handler of `batch/delete`: one delete per id of `ids`, each checked against its document."""
    writes = resource.writes or service

    def batch_delete(request: ApiRequest, ctx: Context) -> Answer:
        outcome = Outcome(resource, ctx)
        for key, entity_id in query_ids(request.query):

            def delete(item_ctx: Context, entity_id: JSON = entity_id) -> tuple[Doc, int]:
                route_needs.check_document(resource, Action.DELETE, entity_id, item_ctx, request.method)
                return writes.delete(resource, entity_id, item_ctx), 200

            outcome.run(key, delete)
        return outcome.reply(200, codes=False)

    return batch_delete


def install(routes: Routes, resource: Resource) -> None:
    """Register `batch/new` (POST), `batch/edit` (PATCH, and PUT when the resource has it) and
    `batch/delete` (DELETE) for the resource, as one route `/<prefix>/batch/{action}`."""
    batch_edit = _batch_edit(resource)
    actions: dict[str, dict[str, Handler]] = {
        "new": {"POST": _batch_new(resource)},
        "edit": dict.fromkeys(("PATCH", "PUT") if resource.put else ("PATCH",), batch_edit),
        "delete": {"DELETE": _batch_delete(resource)},
    }

    contract = Contract(
        "batch", resource, tuple((action, tuple(sorted(methods))) for action, methods in actions.items())
    )

    @routes.route(
        f"/{resource.prefix}/batch/{{action}}",
        *METHODS,
        contract=contract,
        access=(route_needs.Need(resource.kind, Action.VIEW),),
    )
    def batch(request: ApiRequest, ctx: Context, action: str) -> Answer:
        """Batch create, edit or delete, by the `{action}` segment and the method."""
        if action not in actions:
            raise ApiError(404, PATH_NOT_FOUND)
        handler = actions[action].get(request.method)
        if handler is None:
            raise ApiError(
                405,
                f"Method {request.method} is not allowed here.",
                headers={"Allow": ", ".join(sorted(actions[action]))},
            )
        return handler(request, ctx)


routes = Routes("batch")
for _resource in bootstrap.resources():
    if _resource.routes and _resource.batch and _resource.put:
        install(routes, _resource)

blueprint = routes.blueprint()
