"""Every patch of a pinned library, in one place: what is replaced, by whom, why, and the
versions it was written and checked against (`PINS`). `tests/unit/test_patches.py` fails when an
installed or pinned version differs from `PINS`, when a target is gone or its parameters changed,
and when `install()` replaces anything `PATCHES` does not list; re-read each entry before moving
a pin.

- `PATCHES`: what `install()` replaces in moto (the local stack and the api tier's session call
  it): serialized calls and captured writes (`capture`), the ordered-key Query (`query`) and the
  writes that keep its keys in order (`tracking`), SES's mailbox simulator (`ses_simulator`:
  notifications for the very message sent, instead of moto's canned one), and the two below,
  whose code is here:
  - moto backs up every table a transaction touches with a deep copy of the whole table (once
    per item of the transaction), so each write costs time and memory in proportion to the
    table. Here a transaction saves only the items it names, and a cancelled one puts exactly
    those back: the cost of a write no longer grows with the data. Rollback behaves as before.
  - moto lexes every condition expression again on each call, about a third of the time of a
    write; the tokens of an expression text are kept and reused.
  - moto parses a condition three times per item of a write (the request's check, the transaction's
    check, the put's own), about a sixth of a contacts batch create's time; the tree of an expression
    (text, names and values) is kept and reused: it only reads the item it is evaluated on.
- `ELSEWHERE`: patches made by other code: production's one (pynamodb's botocore session), the
  local stack's of chalice, and the tests' temporary wrappers.
- `RELIED_ON`: private attributes read or set without replacing a function.
"""

from __future__ import annotations

import collections
import copy
import importlib
import inspect
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from devstack import capture, direct_reads, direct_writes, query, ses_simulator

if TYPE_CHECKING:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

# (table, hash key, range key or None, a copy of the stored item or None): what a transaction saved
Saved = tuple["Table", "DynamoType", "DynamoType | None", Any]

# The versions the entries below were written and checked against (requirements*.txt pin them).
PINS = {"moto": "5.2.5", "botocore": "1.44.5", "chalice": "1.34.0", "pynamodb": "6.1.0"}


@dataclass(frozen=True)
class Patch:
    """`target` (module path, then attributes) replaced by `by`. `parameters`: the names of the
    function's parameters at the pinned version (None: not a function, only its presence counts);
    `added`: the attribute is absent at the pinned version, `by` adds it."""

    target: str
    by: str
    why: str
    parameters: str | None = None
    added: bool = False


_TRANSACT = "self transact_items"
_PUT = (
    "self table_name item_attrs expected condition_expression expression_attribute_names "
    "expression_attribute_values overwrite return_values_on_condition_check_failure"
)
_UPDATE = (
    "self table_name key update_expression expression_attribute_names expression_attribute_values "
    "attribute_updates expected condition_expression return_values_on_condition_check_failure"
)
_DELETE = (
    "self table_name key expression_attribute_names expression_attribute_values condition_expression "
    "return_values_on_condition_check_failure"
)
_S3_PUT = (
    "self bucket_name key_name value storage etag multipart encryption kms_key_id bucket_key_enabled "
    "lock_mode lock_legal_status lock_until checksum_value request_method disable_notification"
)
_QUERY = (
    "self hash_key range_comparison range_objs limit exclusive_start_key scan_index_forward "
    "projection_expressions index_name consistent_read filter_expression hash_key_conditions "
    "range_key_conditions filter_kwargs"
)
_TABLE_PUT = (
    "self item_attrs expected condition_expression expression_attribute_names "
    "expression_attribute_values overwrite return_values_on_condition_check_failure"
)
_DYNAMODB = "moto.dynamodb.models.DynamoDBBackend."
_TABLE = "moto.dynamodb.models.table.Table."

PATCHES = (
    Patch(
        "moto.core.botocore_stubber.BotocoreStubber.__call__",
        "devstack.capture",
        "every botocore call into moto holds one lock (moto is not thread-safe) and its writes go to the journal",
        "self event_name request kwargs",
    ),
    Patch(_DYNAMODB + "put_item", "devstack.capture", "the item a call wrote becomes a journal record", _PUT),
    Patch(
        _DYNAMODB + "update_item",
        "devstack.capture, then devstack.tracking",
        "journal record; the ordered keys of the item move",
        _UPDATE,
    ),
    Patch(_DYNAMODB + "delete_item", "devstack.capture", "journal record of the deleted item", _DELETE),
    Patch("moto.s3.models.S3Backend.put_object", "devstack.capture", "journal record of the object", _S3_PUT),
    Patch(
        "moto.s3.models.S3Backend.delete_object",
        "devstack.capture",
        "journal record of the deletion",
        "self bucket_name key_name version_id bypass",
    ),
    Patch(
        "moto.sqs.models.Queue.add_message", "devstack.capture", "journal record of a queued message", "self message"
    ),
    Patch(
        "moto.sqs.models.Queue.delete_message",
        "devstack.capture",
        "journal record of a consumed message",
        "self receipt_handle",
    ),
    Patch(
        "moto.dynamodb.comparisons.ConditionExpressionParser._lex_condition_expression",
        "devstack.patches",
        "the tokens of a condition expression are lexed once per text, not on every write",
        "self",
    ),
    Patch(
        "moto.dynamodb.comparisons.ConditionExpressionParser.parse",
        "devstack.patches",
        "the tree of a condition expression (text, names, values) is parsed once, not on every check",
        "self",
    ),
    Patch(
        _DYNAMODB + "transact_write_items",
        "devstack.patches, then devstack.tracking",
        "a transaction saves only the items it names (not a deep copy of each table); ordered keys move",
        _TRANSACT,
    ),
    Patch(
        _TABLE + "__deepcopy__",
        "devstack.patches",
        "inside a transaction a table is not copied (the transaction saved its items)",
        added=True,
    ),
    Patch(_TABLE + "query", "devstack.query", "a Query bisects ordered keys instead of sorting the table", _QUERY),
    Patch(_TABLE + "put_item", "devstack.tracking", "the ordered keys of the item move", _TABLE_PUT),
    Patch(_TABLE + "delete_item", "devstack.tracking", "the ordered keys of the item move", "self hash_key range_key"),
    Patch(
        "moto.ses.models.SESBackend.send_raw_email",
        "devstack.ses_simulator",
        "SES's mailbox simulator: a send to bounce@, complaint@, success@, ooto@ or suppressionlist@"
        "simulator.amazonses.com publishes SES's notifications for that very message to the sender's topic",
        "self source destinations raw_data",
    ),
    Patch(
        "moto.ses.models.SESBackend.__process_sns_feedback__",
        "devstack.ses_simulator",
        "moto's canned notification (for any address containing 'bounce', 'complaint' or 'success', "
        "naming a message id no send has) is not published",
        "self source destinations",
    ),
)

ELSEWHERE = (
    Patch(
        "pynamodb.connection.base.get_session",
        "chalicelib.store.models (production, on Lambda)",
        "one botocore data loader for every PynamoDB session: the DynamoDB model is parsed once per "
        "process, not once per client (cold start)",
        "env_vars",
    ),
    Patch(
        "botocore.client.BaseClient._make_api_call",
        "tests/bench/conftest.py, tests/api/test_notes.py, devstack/faults.py",
        "counts DynamoDB calls while a test runs (mock.patch.object, undone after); with FAULT_RATE set, "
        "fails that share of AWS calls with their real error codes (docs/reliability.md)",
        "self operation_name api_params",
    ),
    Patch(
        "moto.sqs.models.unix_time",
        "devstack.workers (advance)",
        "the embedded SQS's clock moved on, so a message backing off comes back without waiting (settle)",
        "dt",
    ),
    Patch(
        "moto.sqs.models.unix_time_millis",
        "devstack.workers (advance)",
        "the same clock in milliseconds (visibility, delays)",
        "dt",
    ),
    Patch(
        "chalice.local.LambdaEventConverter.LOCAL_SOURCE_IP",
        "tests/conftest.py (source_ip fixture); devstack.gateway (on one connection's converter instance)",
        "the caller's address API Gateway would report: for one test (monkeypatch), or the socket's peer "
        "address of the devserver's connection",
    ),
    Patch(
        "chalice.app.Chalice.current_request",
        "devstack.server (_per_thread_requests)",
        "the app's current request and Lambda context kept per thread, so requests run in parallel "
        "(a subclass of the app's class, set on the app)",
    ),
)

# (target, who reads or sets it, why): private attributes, no function replaced. An attribute
# that instances get in `__init__` is checked in its class's source (`self.<name>`).
RELIED_ON = (
    (
        "moto.sqs.models.Queue._messages",
        "devstack.capture, tests/motostate.py",
        "the messages a delete consumes (journal); emptying queues between tests (PurgeQueue: once a minute)",
    ),
    ("moto.sqs.models.Queue._pending_messages", "tests/motostate.py", "messages in flight, emptied between tests"),
    ("moto.ses.models.SESBackend.sns_topics", "devstack.ses_simulator", "the notification topics set per identity"),
    ("moto.sqs.models.Message.had_receipt_handle", "devstack.capture", "which messages a delete consumes"),
    (
        "moto.dynamodb.models.table.Table.items",
        "devstack.patches, devstack.ordered_keys",
        "a transaction's saved items are put back; Query reads the page's items",
    ),
    ("moto.dynamodb.models.table.Table._generate_attr_to_sort_by", "devstack.ordered_keys", "moto's own sort order"),
    ("chalice.local.LambdaEventConverter._route_matcher", "devstack.gateway", "unknown paths answer our JSON 404"),
    (
        "chalice.local.LocalGateway._authorizer",
        "devstack.gateway",
        "our REQUEST authorizer instead of chalice's local one",
    ),
    (
        "chalice.test.TestHTTPClient._local_gateway",
        "tests/conftest.py (local_http)",
        "the tests' client uses our gateway",
    ),
    ("chalice.test.TestHTTPClient._config", "tests/conftest.py (local_http)", "the config our gateway is built with"),
    (
        "moto.core.responses.BaseResponse.current_account",
        "devstack.direct_reads, devstack.direct_writes",
        "set on moto's DynamoDB handler (with region, headers, params, body) as its HTTP dispatch sets them",
    ),
    (
        "moto.core.models.BotocoreStubber.enabled",
        "devstack.direct_reads, devstack.direct_writes",
        "reads and writes are answered directly only while moto mocks AWS in process",
    ),
    (
        "chalice.app.Chalice._get_middleware_handlers",
        "chalicelib.api.path_routing (production code: ships to Lambda)",
        "RoutedApp builds its own AnyAccept handler with the app's HTTP middleware",
    ),
    (
        "chalice.app.RestAPIEventHandler._validate_binary_response",
        "chalicelib.api.path_routing (production code: ships to Lambda)",
        "AnyAccept overrides it: a binary answer whatever the Accept header",
    ),
)


def resolve(target: str) -> tuple[Any, str]:
    """(owner, attribute name) of a dotted target: the longest importable module, then attributes."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(target)


def present(target: str) -> bool:
    """Whether the target exists: an attribute, a class annotation, or set on instances in its
    class's source (`self.<name>`)."""
    owner, name = resolve(target)
    if hasattr(owner, name) or name in getattr(owner, "__annotations__", {}):
        return True
    return inspect.isclass(owner) and re.search(rf"self\.{name}\s*[:=]", inspect.getsource(owner)) is not None


def parameters(target: str) -> str:
    """The names of the target function's parameters, space-separated."""
    owner, name = resolve(target)
    return " ".join(inspect.signature(getattr(owner, name)).parameters)


_state = threading.local()


def _key(table: Table, key: dict[str, Any]) -> tuple[DynamoType, DynamoType | None]:
    """The (hash, range or None) DynamoTypes of an item's key attributes."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


def _saved(table: Table, hash_value: DynamoType, range_value: DynamoType | None) -> Saved:
    """(table, keys, a copy of the stored item or None)."""
    partition: Any = table.items.get(hash_value)
    if range_value is not None:
        partition = (partition or {}).get(range_value)
    return table, hash_value, range_value, copy.deepcopy(partition)


def _restore(table: Table, hash_value: DynamoType, range_value: DynamoType | None, item: Any) -> None:
    """Put back what `_saved` copied (None: the item did not exist, so it is removed)."""
    if range_value is None:
        if item is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = item
        return
    partition: Any = table.items.setdefault(hash_value, {})
    if item is None:
        partition.pop(range_value, None)
        if not partition:
            table.items.pop(hash_value, None)
    else:
        partition[range_value] = item


def _table_deepcopy(table: Table, memo: dict[int, Any]) -> Table:
    """A table's deep copy, except inside a transaction (which saved its items itself)."""
    if getattr(_state, "in_transaction", False):
        return table  # the transaction saved its items itself
    clone = copy.copy(table)
    clone.__dict__ = copy.deepcopy(table.__dict__, memo)
    return clone


def _cache_condition_tokens() -> None:
    """Lex each condition expression text once (a bounded cache of its tokens)."""
    from moto.dynamodb.comparisons import ConditionExpressionParser

    lex = ConditionExpressionParser._lex_condition_expression
    tokens: dict[str | None, tuple[Any, ...]] = {}

    def cached(self: ConditionExpressionParser) -> collections.deque[Any]:
        text = self.condition_expression
        if text not in tokens:
            if len(tokens) >= 4096:
                tokens.clear()
            tokens[text] = tuple(lex(self))
        return collections.deque(tokens[text])

    capture.replace(ConditionExpressionParser, "_lex_condition_expression", cached)


def _cache_condition_trees() -> None:
    """Parse each condition expression (text, names, values) once: a bounded cache of its tree and of
    the names and values it uses (moto's validation reads them off the parser)."""
    from moto.dynamodb.comparisons import ConditionExpressionParser

    parse = ConditionExpressionParser.parse
    trees: dict[tuple[str, str, str], tuple[Any, list[str], list[str]]] = {}

    def cached(self: ConditionExpressionParser) -> Any:
        if not self.condition_expression:
            return parse(self)
        # repr: plain dicts of strings, a tenth of json.dumps's time (another order is another entry)
        key = (self.condition_expression, repr(self.expression_attribute_names), repr(self.expression_attribute_values))
        if key not in trees:
            if len(trees) >= 4096:
                trees.clear()
            tree = parse(self)
            trees[key] = (tree, list(self.expr_attr_names_found), list(self.expr_attr_values_found))
            return tree
        tree, names_found, values_found = trees[key]
        self.expr_attr_names_found.extend(names_found)
        self.expr_attr_values_found.extend(values_found)
        return tree

    capture.replace(ConditionExpressionParser, "parse", cached)


def install() -> None:
    """Apply `PATCHES` (idempotent): serialize calls and capture writes, cache condition tokens and
    trees, light transaction backups, ordered-key Query; DynamoDB reads and writes without the HTTP detour."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    if getattr(DynamoDBBackend.transact_write_items, "light_backup", False):
        return
    capture.install()
    ses_simulator.install()
    _cache_condition_tokens()
    _cache_condition_trees()
    original = DynamoDBBackend.transact_write_items

    def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        saved: list[Saved] = []
        for entry in transact_items:
            operation = next(iter(entry.values()))
            table = self.tables.get(operation.get("TableName"))
            if table is not None:
                saved.append(_saved(table, *_key(table, operation.get("Key") or operation.get("Item"))))
        _state.in_transaction = True
        try:
            return original(self, transact_items)
        except Exception:
            for item in reversed(saved):
                _restore(*item)
            raise
        finally:
            _state.in_transaction = False

    capture.replace(DynamoDBBackend, "transact_write_items", capture.marked(transact_write_items, light_backup=True))
    capture.replace(Table, "__deepcopy__", _table_deepcopy)
    query.install()
    direct_reads.install()
    direct_writes.install()
