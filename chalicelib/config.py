"""The service's settings: one frozen, typed `Settings`, read once from the environment and installed.

An entry point installs them before anything reads them (`app.py` on Lambda, `devstack/server.py`,
the CLI, the tests: `install(Settings.from_environment(os.environ))`); code reads the active ones with
`config.active().NAME`. Each setting is the environment variable of its name (a few read others: see
`AWS_REGION`, `ID_BLOCKS` and the `*_MAX_ATTEMPTS` of `AWS_RETRIES`); a field's default is the local
stage's, and a default that follows another setting (`follows`) is worked out by `from_environment`.
A value that does not parse raises `SettingError` naming the variable. docs/deploy.md lists them all.
"""

import os
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from types import MappingProxyType
from typing import Any

MAUTIC_VERSION = "5.1.0"

Values = dict[str, Any]  # the settings worked out so far, by name (what a `follows` rule reads)
_ID_BLOCK_KINDS = (
    "contact",
    "timeline",
    "device",
    "ipaddress",
    "utmtag",
    "donotcontact",
    "emailstat",
    "smsstat",
    "submission",
)


class SettingError(ValueError):
    """An environment variable whose value is not one its setting accepts (the message names it)."""


def _flag(raw: str) -> bool:
    """A yes/no setting: 1, true, on or yes (any case) mean yes (an empty value is the default)."""
    return raw.strip().lower() in ("1", "true", "on", "yes")


def _items(raw: str) -> tuple[str, ...]:
    """A comma-separated setting as a tuple of stripped, non-empty strings."""
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _numbers(raw: str) -> tuple[float, ...]:
    """A comma-separated list of numbers (seconds)."""
    return tuple(float(item) for item in _items(raw))


def _shard_counts(raw: str) -> Mapping[str, int]:
    """A `kind:shards,...` setting as {kind: number of partition keys} (kinds with fewer than 2 left out)."""
    pairs = (part.partition(":") for part in raw.split(","))
    return MappingProxyType({kind.strip(): int(n) for kind, _, n in pairs if kind.strip() and n.strip() and int(n) > 1})


def _ip_mode(raw: str) -> str:
    """`ANONYMIZE_IP` as one of off, truncate, none: Mautic's yes (1, true, on, yes) stores no address."""
    word = raw.strip().lower()
    if word in ("", "0", "false", "off", "no"):
        return "off"
    if word in ("1", "true", "on", "yes", "none"):
        return "none"
    if word == "truncate":
        return word
    raise ValueError("must be off, truncate or none")


PARSERS: dict[Any, Callable[[str], Any]] = {
    str: str,
    int: int,
    float: float,
    bool: _flag,
    tuple[str, ...]: _items,
    tuple[float, ...]: _numbers,
    Mapping[str, int]: _shard_counts,
}


def setting(
    default: Any,
    follows: Callable[[Values], Any] | None = None,
    parse: Callable[[str], Any] | None = None,
    blank: bool = False,
) -> Any:
    """A setting whose default (`default` on the local stage) `follows` settings above it when its variable
    is unset (or empty too, with `blank`), or read with its own parser (`parse`) rather than its type's."""
    return field(default=default, metadata={"follows": follows, "parse": parse, "blank": blank})


def fixed(value: Any) -> Any:
    """A setting of the code, not of the environment (no variable reads it; tests may override it)."""
    return field(default=value, metadata={"fixed": True})


def reads(default: Any, read: Callable[[Mapping[str, str]], Any], variables: tuple[str, ...]) -> Any:
    """A setting read from other variables than its name (`variables`, for the docs' table)."""
    return field(default=default, metadata={"read": read, "variables": variables})


def table(default: Mapping[str, int], **metadata: Any) -> Any:
    """A setting that is a read-only mapping (a dataclass default must be built per instance)."""
    return field(default_factory=lambda: MappingProxyType(dict(default)), metadata=metadata)


def _aws_region(environ: Mapping[str, str]) -> str:
    return environ.get("AWS_DEFAULT_REGION") or environ.get("AWS_REGION") or "us-east-1"


def _id_blocks(environ: Mapping[str, str]) -> Mapping[str, int]:
    return MappingProxyType({kind: _read_int(environ, f"ID_BLOCK_{kind.upper()}", 100) for kind in _ID_BLOCK_KINDS})


def _read_int(environ: Mapping[str, str], name: str, default: int) -> int:
    raw = environ.get(name)
    return default if raw is None else int(_parse(name, raw, int))


def _local_topic(values: Values) -> tuple[str, ...]:
    if values["STAGE"] != "local":
        return ()
    return (f"arn:aws:sns:{values['AWS_REGION']}:{values['STACK_ACCOUNT_ID']}:{values['RESOURCE_PREFIX']}ses-feedback",)


def _outbox(values: Values) -> str:
    return os.path.join(values["DATA_DIR"], "outbox") if values["STAGE"] == "local" else ""


def _when_local(local: Any, elsewhere: Any) -> Callable[[Values], Any]:
    return lambda values: local if values["STAGE"] == "local" else elsewhere


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Settings:
    """Every setting of the service, typed; the defaults are the local stage's (see the module)."""

    # `local`: the local stack (an embedded AWS, loopback webhooks, an outbox); another name: a stage on AWS.
    STAGE: str = "local"
    # Every table, queue and topic name starts with it (the template: the stack's name and `-`).
    RESOURCE_PREFIX: str = setting("mautic-local-", lambda values: f"mautic-{values['STAGE']}-")
    # The bucket of assets, uploads and themes (the template: the stack's bucket).
    FILES_BUCKET: str = setting("mautic-local-files", lambda values: f"{values['RESOURCE_PREFIX']}files")
    # The AWS SDK's attempts per service (docs/reliability.md; `AWS_RETRIES` below).
    DYNAMODB_MAX_ATTEMPTS: int = 5
    SES_MAX_ATTEMPTS: int = 5
    SQS_MAX_ATTEMPTS: int = 5
    AWS_CONNECT_TIMEOUT: float = 2.0
    AWS_READ_TIMEOUT: float = 10.0
    # Seconds a 503 (a dependency unavailable past its retries) tells the client to wait.
    RETRY_AFTER_SECONDS: int = 2
    # A request that met AWS unavailable past the SDK's retries is run again whole when that is safe
    # (api/routing.py, docs/reliability.md): REQUEST_TRIES runs in all, a jittered pause under
    # REQUEST_RETRY_PAUSE seconds (doubling) between them.
    REQUEST_TRIES: int = 3
    REQUEST_RETRY_PAUSE: float = 0.1
    AWS_REGION: str = reads("us-east-1", _aws_region, ("AWS_DEFAULT_REGION", "AWS_REGION"))
    # The service's public address for links in messages and pages; empty: the request's own.
    BASE_URL: str = setting("", parse=lambda raw: raw.rstrip("/"))
    # The API and Basic authentication's initial switches (auth/settings.py: what an administrator sets wins).
    API_ENABLED: bool = setting(True, _when_local(True, False))
    BASIC_AUTH_ENABLED: bool = setting(True, _when_local(True, False))
    # The local gateway's copy of the stack parameter AuthorizerCacheSeconds (docs/deploy.md): 0 = every
    # /api request runs the authorizer; N > 0 = decisions cached N s keyed by the Authorization header.
    AUTHORIZER_CACHE_SECONDS: int = 0
    # Failed sign-ins (Basic auth and the login forms) in a window of SIGN_IN_WINDOW seconds: past
    # SIGN_IN_FAILURES_PER_USER_ADDRESS for one username from one source address, or
    # SIGN_IN_FAILURES_PER_ADDRESS from one address, that address answers 429 until the window ends; past
    # SIGN_IN_FAILURES_PER_USER for a username from all addresses, its sign-ins wait SIGN_IN_DELAY
    # seconds first (slowed, never refused: no one locks the owner out from elsewhere).
    SIGN_IN_WINDOW: int = 900
    SIGN_IN_FAILURES_PER_USER_ADDRESS: int = 10
    SIGN_IN_FAILURES_PER_USER: int = 10
    SIGN_IN_DELAY: float = 1.0
    SIGN_IN_FAILURES_PER_ADDRESS: int = 50
    OAUTH1_TOKEN_DAYS: int = 90  # OAuth1 access token lifetime; 0: no expiry
    # Password reset and invitation links (auth/resets.py): a reset link lives PASSWORD_RESET_HOURS (Mautic's
    # 24), an invitation INVITATION_DAYS; per SIGN_IN_WINDOW, past PASSWORD_RESETS_PER_ADDRESS requests from one
    # address it answers 429, past PASSWORD_RESETS_PER_USER emails to one user the request is answered the same
    # and sends nothing.
    PASSWORD_RESET_HOURS: int = 24
    INVITATION_DAYS: int = 7
    PASSWORD_RESETS_PER_ADDRESS: int = 20
    PASSWORD_RESETS_PER_USER: int = 3
    # API requests allowed per minute per user and per API client (0: no limit); past them 429
    # (docs/api-contract.md). Off by default on the local stage.
    RATE_LIMIT_PER_MINUTE: int = setting(0, _when_local(0, 1200))
    RATE_LIMIT_CLIENT_PER_MINUTE: int = setting(0, lambda values: 5 * values["RATE_LIMIT_PER_MINUTE"])
    DEFAULT_PAGE_LIMIT: int = fixed(30)
    # The most items one list answer holds; `limit=0` (Mautic: no limit) asks for this many.
    MAX_PAGE_LIMIT: int = 1000
    BATCH_MAX: int = fixed(200)  # items (or ids) one batch request may hold (api/batch.py)
    # Conflicting writes (another writer changed the document since it was read: docs/reliability.md) are
    # tried again on a fresh read after a random pause under a doubling ceiling (BASE, at most CAP
    # seconds) until CONFLICT_RETRY_SECONDS have passed; then 409.
    CONFLICT_RETRY_SECONDS: float = 5.0
    CONFLICT_RETRY_BASE: float = 0.01
    CONFLICT_RETRY_CAP: float = 0.5
    # Ids reserved in blocks per process (store/id_blocks.py, docs/storage.md "Ids"): a counter named here
    # hands this process ID_BLOCKS[name] ids with one UpdateItem (ID_BLOCK_<NAME>, default 100), used until
    # spent or ID_BLOCK_SECONDS old. Only counters whose ids need not follow time across processes (no
    # watermark or sweep reads them).
    ID_BLOCKS: Mapping[str, int] = table(
        dict.fromkeys(_ID_BLOCK_KINDS, 100),
        read=_id_blocks,
        variables=tuple(f"ID_BLOCK_{kind.upper()}" for kind in _ID_BLOCK_KINDS),
    )
    ID_BLOCK_SECONDS: float = 10.0
    # Seconds a process keeps the cached kinds' versions (store/version_cache.py, docs/storage.md "Versioned
    # kinds"): a write in another container is seen within this time, one of this process at once; 0: every request.
    VERSIONS_TTL: float = 1.0
    SEGMENT_REBUILD_BATCH: int = 1000  # contacts per rebuild message
    AUTOMATION_DUE_SHARDS: int = 8  # partitions of scheduled events
    # Mautic's `default_timezone`: the send windows of automation events for contacts without a `timezone`
    DEFAULT_TIMEZONE: str = "UTC"
    # The store's key layout (docs/storage.md, "Sharded keys"); changing any of these on a stack that holds
    # data needs `python -m chalicelib.cli storage reshard` (docs/deploy.md). A key takes about 1,000 write
    # units/s, so 10,000 requests/s allow at most 0.1 unit per request on any key. Hot kinds are stored under
    # `<kind>@<id % shards>` (`kind:shards,...`; kinds with fewer than 2 left out): the contact partition took
    # ~1.97 units per request of issue 29's mix (at least 20 keys; 32 leave room); devices, one per new visitor
    # in a transaction, ~0.2 (8). Each shard costs a list page one Query (0.5 read unit at least), so only hot
    # kinds are sharded. `<prefix>#*` shards a family of kinds, one per email: a segment send writes a contact's
    # `emailsend#<email>` row and a send record `emailstat#<email>` per message (~1 unit each), so one email at
    # 1,000 messages/s needs >= 2 keys each; 16 leave room (16,000 messages/s) for a list of 16 Queries when
    # the stats API pages an email's sends. A text message's broadcast, in the same batches, the same for
    # `smssend#<sms>` and `smsstat#<sms>` (at 500 messages/s its one `smssend` key throttled).
    SHARDED_KINDS: Mapping[str, int] = table(
        {"contact": 32, "device": 8, "emailsend#*": 16, "emailstat#*": 16, "smssend#*": 16, "smsstat#*": 16}
    )
    # DynamoDB calls in flight at once per container (store/fanout.py: a sharded kind's shard Queries, and the
    # list's count read ahead of them) and the connections kept for them: a page of the 32 contact shards with
    # its count is then one round trip (33 calls; a call waiting for a free thread would be one round trip more)
    DYNAMODB_CONNECTIONS: int = 40
    # Index keys per feed (`<name>@<id % FEED_SHARDS>`): a timeline bucket took ~0.34 write units per request, and
    # one user importing 2,000 contacts/s writes 2,000 index items/s to their owner feed: 8 keys, 250/s each.
    FEED_SHARDS: int = 8
    # Items per row count of a sharded kind (`count#<kind>@<id % COUNT_SHARDS>`, summed on read by one
    # BatchGetItem, 0.5 read unit per item): `count#contact` took ~0.57 write units per request, so 8 (0.07 each).
    COUNT_SHARDS: int = 8
    # Keys per first character of the `emailhead` index (`<kind>#<first character>@<id % EMAIL_INDEX_SHARDS>`): an
    # `email:` search reads that many Queries instead of one per contact shard; an import of 7,937 contacts/s whose
    # emails all begin alike writes ~990 index items/s on each of 8 keys, under the 1,000 a key takes.
    EMAIL_INDEX_SHARDS: int = 8
    UPLOAD_MAX_BYTES: int = 4 * 1024 * 1024  # Lambda answers at most 6 MB (base64)
    # Sizes (docs/security.md "Sizes are bounded"). A request body is refused (413) before it is parsed past
    # BODY_MAX_BYTES on /api, PUBLIC_BODY_MAX_BYTES on the public routes (forms, tracking, OAuth, the SNS callback:
    # SNS's largest message is 256 KB), and a multipart body past UPLOAD_MAX_BYTES + MULTIPART_EXTRA_BYTES (the form's
    # other fields). A document's JSON and what its item stores (compressed) are bounded below DynamoDB's 400 KB item;
    # an answer's JSON, escaped as Lambda's response carries it, at ANSWER_MAX_BYTES (Lambda answers at most 6 MB).
    BODY_MAX_BYTES: int = 2 * 1024 * 1024
    PUBLIC_BODY_MAX_BYTES: int = 512 * 1024
    MULTIPART_EXTRA_BYTES: int = 256 * 1024
    DOCUMENT_JSON_MAX_BYTES: int = 1024 * 1024
    DOCUMENT_STORED_MAX_BYTES: int = 350000
    ANSWER_MAX_BYTES: int = 5 * 1024 * 1024
    # Public endpoints, per source address (the gateway's) and PUBLIC_WINDOW seconds: form submissions
    # (past them 429) and new anonymous visitors (past them a hit records no contact).
    PUBLIC_WINDOW: int = 3600
    FORM_SUBMISSIONS_PER_ADDRESS: int = 60
    VISITORS_PER_ADDRESS: int = 300
    # User-Agent prefixes of HTTP libraries tracked as visitors although crawlerdetect names them: PHP's
    # Guzzle is not on Mautic's bot list (`do_not_track_bots`), and server-side tracking from PHP sites
    # and Mautic's own PHP client send it (docs/public-endpoints.md).
    TRACKED_CLIENTS: tuple[str, ...] = ("GuzzleHttp/",)
    # Privacy (docs/privacy.md). Visitor addresses stored whole (off, Mautic's default), truncated to /24
    # (IPv4) or /48 (IPv6), or not at all (none: Mautic's anonymize_ip; also 1, true, on, yes); browsers
    # sending Sec-GPC: 1 or DNT: 1 are not tracked unless HONOR_PRIVACY_SIGNALS is off.
    ANONYMIZE_IP: str = setting("off", parse=_ip_mode)
    HONOR_PRIVACY_SIGNALS: bool = True
    # Anonymous visitors (no identifying value) inactive for this many days are deleted by the hourly sweep
    # (Mautic's cleanup default, 365); 0 keeps them. The sweep stops after RETENTION_SWEEP_SECONDS and resumes.
    ANONYMOUS_RETENTION_DAYS: int = 365
    RETENTION_SWEEP_SECONDS: float = 15.0
    # Page hits and asset downloads older than this many days are folded into per-day counts, then removed
    # from the timelines (0, the default: kept, as Mautic keeps them).
    STATS_RETENTION_DAYS: int = 0
    # Seconds a container keeps the landing page (by alias) and asset (by key) a public hit reads, so one busy
    # page is read about once a second per container, not on every hit (docs/public-endpoints.md); 0: every hit.
    PUBLIC_DOC_SECONDS: float = 1.0
    FORM_RELAY_PER_WINDOW: int = 500  # form mails to submitted addresses
    # Hosts a form's `return` (or the Referer) may send the browser back to, besides the service's own;
    # `.example.com` also allows its subdomains (docs/public-endpoints.md).
    FORM_RETURN_HOSTS: tuple[str, ...] = ()
    # Mautic's `do_not_submit_emails`: address patterns (shell wildcards) an email field with the
    # `donotsubmit` validation refuses (docs/public-endpoints.md, "Forms").
    DO_NOT_SUBMIT_EMAILS: tuple[str, ...] = ()
    # Websites whose pages may post embedded forms with fetch and read the answer (CORS, with the
    # visitor's cookies): origins such as https://www.example.com, or * for any.
    FORM_ALLOWED_ORIGINS: tuple[str, ...] = ("*",)
    # Webhooks (docs/webhooks.md): seconds to wait before each retry, then the dead-letter queue.
    WEBHOOK_RETRY_DELAYS: tuple[float, ...] = (10.0, 60.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0)
    WEBHOOK_TIMEOUT: float = 15.0
    WEBHOOK_LOG_MAX: int = 1000  # delivery log entries kept per hook
    WEBHOOK_DISABLE_LIMIT: int = 100  # failed attempts in a row...
    WEBHOOK_DISABLE_AFTER: float = 2 * 86400.0  # ...over this many seconds
    # Networks deliveries may reach although they are not public (CIDRs); the local stage allows loopback.
    WEBHOOK_ALLOWED_NETWORKS: tuple[str, ...] = setting(
        ("127.0.0.0/8", "::1/128"), _when_local(("127.0.0.0/8", "::1/128"), ())
    )
    # Email and SMS (docs/email.md): the default sender, the send rate (SES's quota), the outbox files.
    DATA_DIR: str = setting(".data", lambda values: os.path.abspath(".data"), os.path.abspath)
    MAILER_FROM_EMAIL: str = "no-reply@example.com"
    MAILER_FROM_NAME: str = "Mautic"
    EMAIL_SEND_RATE: float = 14.0  # messages per second, all workers together
    EMAIL_SEND_BATCH: int = 100  # contacts per segment-send message
    # A segment send's request sends to the first contacts itself (Mautic's answer counts them) for at most
    # EMAIL_SEND_INLINE_SECONDS (then it answers; the workers send the rest), and to at most EMAIL_SEND_INLINE
    # of them (a cap, as Mautic's `batch`): a request answers in well under a second whatever the segment.
    EMAIL_SEND_INLINE: int = 1000
    EMAIL_SEND_INLINE_SECONDS: float = 0.3
    # AWS calls of one segment-send batch in flight at once per worker (claims and SES calls, contact writes,
    # BatchWriteItems: domain/messaging/send_batches.py): 16 make a chunk of 25 messages two waves of each
    EMAIL_SEND_CONCURRENCY: int = 16
    SES_CONFIGURATION_SET: str = ""
    # Broadcasts (docs/email.md "Broadcasts"): Mautic's `mautic:broadcasts:send` cron, every this many minutes
    BROADCAST_MINUTES: int = setting(5, parse=lambda raw: max(1, int(raw)))
    BROADCAST_PAGE: int = 1000  # members or joins one walk step reads per segment
    # a join row is read once it is this old: its contact write has surely committed by then
    BROADCAST_JOIN_SLACK: int = 60
    # Frequency caps (docs/email.md): Mautic's `email_frequency_number` / `email_frequency_time`, the cap of
    # the contacts without an email rule of their own (DAY, WEEK or MONTH; none unless both are set)
    EMAIL_FREQUENCY_NUMBER: int = 0
    EMAIL_FREQUENCY_TIME: str = ""
    # SES feedback (docs/email.md, "Bounces and complaints"): this many transient bounces of one contact
    # within the window (hours) make it do-not-contact, bounced
    EMAIL_SOFT_BOUNCE_LIMIT: int = 3
    EMAIL_SOFT_BOUNCE_WINDOW_HOURS: float = 72.0
    # The reputation guard (docs/email.md): past these rates (percent) over the last EMAIL_GUARD_DAYS days,
    # judged once EMAIL_GUARD_MIN_SENDS sends are counted, segment sends pause until an administrator resumes
    EMAIL_GUARD_BOUNCE_RATE: float = 4.0
    EMAIL_GUARD_COMPLAINT_RATE: float = 0.08
    EMAIL_GUARD_DAYS: int = 7
    EMAIL_GUARD_MIN_SENDS: int = 500
    # SES feedback (docs/security.md, "SES feedback comes only from the stack's own account"): the account
    # the stack runs in (the template sets it; locally moto's), the only one whose SES notifications and
    # SNS topics count; and the topic ARNs `/mailer/callback` accepts (comma-separated). None unless
    # set: the template sets the stack's own topic, the local stage defaults to the local stack's.
    STACK_ACCOUNT_ID: str = setting("123456789012", _when_local("123456789012", ""), blank=True)
    MAILER_CALLBACK_TOPICS: tuple[str, ...] = setting(
        ("arn:aws:sns:us-east-1:123456789012:mautic-local-ses-feedback",), _local_topic
    )
    SMS_SENDER_ID: str = ""  # the sender id of SNS text messages
    # Text messages per second (broadcasts and single sends), all workers together (docs/email.md "Broadcasts"):
    # the account's SNS SMS rate (its quota; 0: none). Sent in batches several at once, a worker would outrun it.
    SMS_SEND_RATE: float = 20.0
    # Frequency caps of text messages (docs/email.md "Text messages"): Mautic's `sms_frequency_number` /
    # `sms_frequency_time`, the cap of the contacts without a frequency rule of their own (none unless both are set)
    SMS_FREQUENCY_NUMBER: int = 0
    SMS_FREQUENCY_TIME: str = ""
    # The local stage's outbox of sent messages as files (docs/email.md); none elsewhere unless set.
    OUTBOX_DIR: str = setting(os.path.join(".data", "outbox"), _outbox, blank=True)
    # Cross-origin requests of the scripts websites embed (`/mtc/event`, `/mtc`; docs/public-endpoints.md),
    # Mautic's `cors_restrict_domains` and `cors_valid_domains`: the origins allowed (shell patterns,
    # `https://*.example.com`); CORS_RESTRICT_DOMAINS=0 allows any origin.
    CORS_RESTRICT_DOMAINS: bool = True
    CORS_VALID_DOMAINS: tuple[str, ...] = ()

    @property
    def LOCAL(self) -> bool:  # noqa: N802 - read as the other settings are
        """The local stage (`make run`, the tests): an embedded AWS, loopback webhooks, an outbox."""
        return self.STAGE == "local"

    @property
    def FEEDBACK_TOPIC(self) -> str:  # noqa: N802
        """The SNS topic of SES notifications (SES -> SNS -> the feedback queue)."""
        return f"{self.RESOURCE_PREFIX}ses-feedback"

    @property
    def AWS_RETRIES(self) -> dict[str, tuple[str, int]]:  # noqa: N802
        """The AWS SDK's retries per service (docs/reliability.md): (botocore retry mode, total attempts).
        "standard": exponential backoff with jitter on throttling and 5xx, a retry quota per client;
        "adaptive" adds a client-side rate limiter, for SES's per-second send rate in long-lived workers."""
        return {
            "default": ("standard", 5),
            "dynamodb": ("standard", self.DYNAMODB_MAX_ATTEMPTS),
            "ses": ("adaptive", self.SES_MAX_ATTEMPTS),
            "sqs": ("standard", self.SQS_MAX_ATTEMPTS),
            "s3": ("standard", 3),
        }

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> "Settings":
        """The settings an environment gives (unset variables: their defaults), each value checked."""
        values: Values = {}
        defaults = cls()
        for item in fields(cls):
            values[item.name] = _value(item, environ, values, getattr(defaults, item.name))
        return cls(**values)


def variables() -> dict[str, tuple[str, ...]]:
    """The environment variables that give each setting read from the environment (docs/deploy.md's table)."""
    return {
        item.name: item.metadata.get("variables", (item.name,))
        for item in fields(Settings)
        if not item.metadata.get("fixed")
    }


def _value(item: "Field[Any]", environ: Mapping[str, str], values: Values, default: Any) -> Any:
    """One setting's value: parsed from its variable, or its default (which may follow the values above it).
    An empty variable counts as unset for a flag and a `blank` setting only, as it always did."""
    meta = item.metadata
    if meta.get("fixed"):
        return default
    if meta.get("read"):
        return meta["read"](environ)
    raw = environ.get(item.name)
    if raw is None or (raw == "" and (meta.get("blank") or item.type is bool)):
        return meta["follows"](values) if meta.get("follows") else default
    return _parse(item.name, raw, meta.get("parse") or PARSERS[item.type])


def _parse(name: str, raw: str, parse: Callable[[str], Any]) -> Any:
    """The value of one variable, or a `SettingError` naming it."""
    try:
        return parse(raw)
    except ValueError as error:
        raise SettingError(f"{name}={raw!r}: {error}") from None


_active: list[Settings] = []


def install(settings: Settings) -> None:
    """Make these the settings every `active()` returns from now on."""
    _active[:] = [settings]


def installed() -> bool:
    """Whether an entry point installed settings yet."""
    return bool(_active)


def active() -> Settings:
    """The settings an entry point installed (`install`)."""
    if not _active:
        raise RuntimeError(
            "no settings installed: the entry point calls config.install(Settings.from_environment(...))"
        )
    return _active[0]
