"""PynamoDB models: the tables of the service, declared once (see docs/storage.md)."""

import botocore.loaders
import botocore.session
from pynamodb.attributes import BinaryAttribute, NumberAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.connection import base as pynamodb_connection
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from chalicelib import aws, config

_LOADER = botocore.loaders.create_loader()


def _session() -> botocore.session.Session:
    """A botocore session for PynamoDB, which opens one per model, transaction and thread, sharing
    the process's one data loader: the DynamoDB service model is parsed once, not once per client
    (a cold start's first request made three clients at ~70 ms each); its clients' write calls
    counted (aws.writes)."""
    session = botocore.session.get_session()
    session.register_component("data_loader", _LOADER)
    return aws.watch_session(session)  # its writes counted: the API may then run a request again


pynamodb_connection.get_session = _session


class _Meta:
    # Bound when this module is first imported: an entry point installs the settings before (config.py).
    region = config.active().AWS_REGION
    billing_mode = "PAY_PER_REQUEST"
    # botocore's "standard" retries (PynamoDB's LEGACY setting: 1 + max_retry_attempts in all), with
    # the attempts and timeouts of config.active().AWS_RETRIES (docs/reliability.md).
    max_retry_attempts = config.active().AWS_RETRIES["dynamodb"][1] - 1
    connect_timeout_seconds = config.active().AWS_CONNECT_TIMEOUT
    read_timeout_seconds = config.active().AWS_READ_TIMEOUT
    # connections kept per container: a sharded kind's page sends one Query per shard at once
    # (store/fanout.py); botocore's default of 10 would open and drop the others' connections
    max_pool_connections = config.active().DYNAMODB_CONNECTIONS


# pynamodb leaves Index.__init_subclass__ unannotated, so declaring an index is an untyped call.
class EmailIndex(GlobalSecondaryIndex["Entity"]):  # type: ignore[no-untyped-call]
    """Entities of a partition key by lower-cased email. No longer read (`email:` searches read
    EmailHeadIndex); declared until every stored email is keyed there (`storage reshard`), since a table
    update creates or deletes one index: the deploy after drops it (docs/storage.md, its indexes)."""

    class Meta:
        """PynamoDB's settings of the index: its name and what it projects (keys only)."""

        index_name = "email"
        projection = KeysOnlyProjection()

    kind = UnicodeAttribute(hash_key=True)
    email = UnicodeAttribute(range_key=True)


class EmailHeadIndex(GlobalSecondaryIndex["Entity"]):  # type: ignore[no-untyped-call]  # see EmailIndex
    """Entities by lower-cased email under the key of its first character (`head` = `<kind>#<character>@<n>`,
    `store/keys.py` email_head): an `email:` prefix search reads the few keys of one character, not one
    Query per shard of the kind (docs/storage.md "Email search")."""

    class Meta:
        """PynamoDB's settings of the index: its name and what it projects (keys only)."""

        index_name = "emailhead"
        projection = KeysOnlyProjection()

    head = UnicodeAttribute(hash_key=True)
    email = UnicodeAttribute(range_key=True)


class FeedIndex(GlobalSecondaryIndex["Entity"]):  # type: ignore[no-untyped-call]  # see EmailIndex
    """Entities in a feed (`feed` = `<name>#<bucket>`, ids in order): the timeline events of all
    contacts, newest last, a bucket per 1,000 consecutive event ids."""

    class Meta:
        """PynamoDB's settings of the index: its name and what it projects (keys only)."""

        index_name = "feed"
        projection = KeysOnlyProjection()

    feed = UnicodeAttribute(hash_key=True)
    id = NumberAttribute(range_key=True)


class Entity(Model):
    """Every resource document: partition per resource kind, items ordered by integer id."""

    class Meta(_Meta):
        """PynamoDB's settings of the table: its name in this stage, region and billing."""

        table_name = f"{config.active().RESOURCE_PREFIX}entities"

    kind = UnicodeAttribute(hash_key=True)
    id = NumberAttribute(range_key=True)
    doc = UnicodeAttribute(null=True)  # the document's JSON, or
    z = BinaryAttribute(null=True, legacy_encoding=False)  # its JSON zlib-compressed (a large one: docs/storage.md)
    rev = NumberAttribute(null=True)  # write count: edits are conditional on the revision they read
    email = UnicodeAttribute(null=True)
    by_email = EmailIndex()
    head = UnicodeAttribute(null=True)  # set with `email` (EmailHeadIndex)
    by_email_head = EmailHeadIndex()
    feed = UnicodeAttribute(null=True)  # set on the items of a feed (FeedIndex)
    in_feed = FeedIndex()


class Counter(Model):
    """Atomic counters: next ids (`id#<kind>`) and row counts (`count#<kind>`)."""

    class Meta(_Meta):
        """PynamoDB's settings of the table: its name in this stage, region and billing."""

        table_name = f"{config.active().RESOURCE_PREFIX}counters"

    name = UnicodeAttribute(hash_key=True)
    value = NumberAttribute(default=0)


class Unique(Model):
    """Unique values (`<kind>#<field>#<value>`) pointing at the entity that holds them."""

    class Meta(_Meta):
        """PynamoDB's settings of the table: its name in this stage, region and billing."""

        table_name = f"{config.active().RESOURCE_PREFIX}uniques"

    key = UnicodeAttribute(hash_key=True)
    id = NumberAttribute()


class Token(Model):
    """Short-lived and single-use secrets by hashed key: OAuth codes, refresh and request tokens,
    nonces, login CSRF. DynamoDB deletes them after `expires` (TTL)."""

    class Meta(_Meta):
        """PynamoDB's settings of the table: its name in this stage, region and billing."""

        table_name = f"{config.active().RESOURCE_PREFIX}tokens"

    key = UnicodeAttribute(hash_key=True)
    data = UnicodeAttribute(default="{}")
    used = NumberAttribute(null=True)
    expires = TTLAttribute(null=True)


MODELS = (Entity, Counter, Unique, Token)
