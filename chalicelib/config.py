"""Settings read from the environment, with the local stage's defaults."""

import os

MAUTIC_VERSION = "5.1.0"


def _flag(name: str, default: bool) -> bool:
    """A yes/no setting: 1, true, on or yes (any case) mean yes; unset or empty, the default."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "on", "yes")


STAGE = os.environ.get("STAGE", "local")
LOCAL = STAGE == "local"
RESOURCE_PREFIX = os.environ.get("RESOURCE_PREFIX", f"mautic-{STAGE}-")
FILES_BUCKET = os.environ.get("FILES_BUCKET", f"{RESOURCE_PREFIX}files")
# The AWS SDK's retries per service (docs/reliability.md): (botocore retry mode, total attempts).
# "standard": exponential backoff with jitter on throttling and 5xx, a retry quota per client;
# "adaptive" adds a client-side rate limiter, for SES's per-second send rate in long-lived workers.
AWS_RETRIES: dict[str, tuple[str, int]] = {
    "default": ("standard", 5),
    "dynamodb": ("standard", int(os.environ.get("DYNAMODB_MAX_ATTEMPTS", "5"))),
    "ses": ("adaptive", int(os.environ.get("SES_MAX_ATTEMPTS", "5"))),
    "sqs": ("standard", int(os.environ.get("SQS_MAX_ATTEMPTS", "5"))),
    "s3": ("standard", 3),
}
AWS_CONNECT_TIMEOUT = float(os.environ.get("AWS_CONNECT_TIMEOUT", "2"))
AWS_READ_TIMEOUT = float(os.environ.get("AWS_READ_TIMEOUT", "10"))
# Seconds a 503 (a dependency unavailable past its retries) tells the client to wait.
RETRY_AFTER_SECONDS = int(os.environ.get("RETRY_AFTER_SECONDS", "2"))
# A request that met AWS unavailable past the SDK's retries is run again whole when that is safe
# (api/routing.py, docs/reliability.md): REQUEST_TRIES runs in all, a jittered pause under
# REQUEST_RETRY_PAUSE seconds (doubling) between them.
REQUEST_TRIES = int(os.environ.get("REQUEST_TRIES", "3"))
REQUEST_RETRY_PAUSE = float(os.environ.get("REQUEST_RETRY_PAUSE", "0.1"))
AWS_REGION = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION") or "us-east-1"
BASE_URL = os.environ.get("BASE_URL", "").rstrip("/")
API_ENABLED = _flag("API_ENABLED", LOCAL)
BASIC_AUTH_ENABLED = _flag("BASIC_AUTH_ENABLED", LOCAL)
# Failed sign-ins (Basic auth and the login forms) in a window of SIGN_IN_WINDOW seconds: past
# SIGN_IN_FAILURES_PER_USER_ADDRESS for one username from one source address, or
# SIGN_IN_FAILURES_PER_ADDRESS from one address, that address answers 429 until the window ends; past
# SIGN_IN_FAILURES_PER_USER for a username from all addresses, its sign-ins wait SIGN_IN_DELAY
# seconds first (slowed, never refused: no one locks the owner out from elsewhere).
# The local gateway's copy of the stack parameter AuthorizerCacheSeconds (docs/deploy.md): 0 = every
# /api request runs the authorizer; N > 0 = decisions cached N s keyed by the Authorization header.
AUTHORIZER_CACHE_SECONDS = int(os.environ.get("AUTHORIZER_CACHE_SECONDS", "0"))
SIGN_IN_WINDOW = int(os.environ.get("SIGN_IN_WINDOW", "900"))
SIGN_IN_FAILURES_PER_USER_ADDRESS = int(os.environ.get("SIGN_IN_FAILURES_PER_USER_ADDRESS", "10"))
SIGN_IN_FAILURES_PER_USER = int(os.environ.get("SIGN_IN_FAILURES_PER_USER", "10"))
SIGN_IN_DELAY = float(os.environ.get("SIGN_IN_DELAY", "1"))
SIGN_IN_FAILURES_PER_ADDRESS = int(os.environ.get("SIGN_IN_FAILURES_PER_ADDRESS", "50"))
OAUTH1_TOKEN_DAYS = int(os.environ.get("OAUTH1_TOKEN_DAYS", "90"))  # OAuth1 access token lifetime; 0: no expiry
# API requests allowed per minute per user and per API client (0: no limit); past them 429
# (docs/api-contract.md). Off by default on the local stage.
RATE_LIMIT_PER_MINUTE = int(os.environ.get("RATE_LIMIT_PER_MINUTE", "0" if LOCAL else "1200"))
RATE_LIMIT_CLIENT_PER_MINUTE = int(os.environ.get("RATE_LIMIT_CLIENT_PER_MINUTE", str(5 * RATE_LIMIT_PER_MINUTE)))
DEFAULT_PAGE_LIMIT = 30
# The most items one list answer holds; `limit=0` (Mautic: no limit) asks for this many.
MAX_PAGE_LIMIT = int(os.environ.get("MAX_PAGE_LIMIT", "1000"))
BATCH_MAX = 200
# Conflicting writes (another writer changed the document since it was read: docs/reliability.md) are
# tried again on a fresh read after a random pause under a doubling ceiling (BASE, at most CAP
# seconds) until CONFLICT_RETRY_SECONDS have passed; then 409.
CONFLICT_RETRY_SECONDS = float(os.environ.get("CONFLICT_RETRY_SECONDS", "5"))
CONFLICT_RETRY_BASE = float(os.environ.get("CONFLICT_RETRY_BASE", "0.01"))
CONFLICT_RETRY_CAP = float(os.environ.get("CONFLICT_RETRY_CAP", "0.5"))
# Ids reserved in blocks per process (store/id_blocks.py, docs/storage.md "Ids"): a counter named here
# hands this process ID_BLOCKS[name] ids with one UpdateItem, used until spent or ID_BLOCK_SECONDS old.
# Only counters whose ids need not follow time across processes (no watermark or sweep reads them).
ID_BLOCKS: dict[str, int] = {
    name: int(os.environ.get(f"ID_BLOCK_{name.upper()}", "100"))
    for name in (
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
}
ID_BLOCK_SECONDS = float(os.environ.get("ID_BLOCK_SECONDS", "10"))
# Seconds a process keeps the cached kinds' versions (store/version_cache.py, docs/storage.md "Versioned
# kinds"): a write in another container is seen within this time, one of this process at once; 0: every request.
VERSIONS_TTL = float(os.environ.get("VERSIONS_TTL", "1"))
SEGMENT_REBUILD_BATCH = int(os.environ.get("SEGMENT_REBUILD_BATCH", "1000"))  # contacts per rebuild message
AUTOMATION_DUE_SHARDS = int(os.environ.get("AUTOMATION_DUE_SHARDS", "8"))  # partitions of scheduled events
# Mautic's `default_timezone`: the send windows of automation events for contacts without a `timezone`
DEFAULT_TIMEZONE = os.environ.get("DEFAULT_TIMEZONE", "UTC")


def _shard_counts(name: str, default: str) -> dict[str, int]:
    """A `kind:shards,...` setting as {kind: number of partition keys} (kinds with fewer than 2 left out)."""
    pairs = (part.partition(":") for part in os.environ.get(name, default).split(","))
    return {kind.strip(): int(n) for kind, _, n in pairs if kind.strip() and n.strip() and int(n) > 1}


# The store's key layout (docs/storage.md, "Sharded keys"); changing any of these on a stack that holds
# data needs `python -m chalicelib.cli storage reshard` (docs/deploy.md). A key takes about 1,000 write
# units/s, so 10,000 requests/s allow at most 0.1 unit per request on any key. Hot kinds are stored under
# `<kind>@<id % shards>`: the contact partition took ~1.97 units per request of issue 29's mix (at least 20
# keys; 32 leave room); devices, one per new visitor in a transaction, ~0.2 (8). Each shard costs a list
# page one Query (0.5 read unit at least), so only hot kinds are sharded. `<prefix>#*` shards a family of
# kinds, one per email: a segment send writes a contact's `emailsend#<email>` row and a send record
# `emailstat#<email>` per message (~1 unit each), so one email at 1,000 messages/s needs >= 2 keys each;
# 16 leave room (16,000 messages/s) for a list of 16 Queries when the stats API pages an email's sends.
SHARDED_KINDS = _shard_counts("SHARDED_KINDS", "contact:32,device:8,emailsend#*:16,emailstat#*:16")
# DynamoDB calls in flight at once per container (store/fanout.py: a sharded kind's shard Queries) and
# the connections kept for them: a page of the 32 contact shards is then one round trip
DYNAMODB_CONNECTIONS = int(os.environ.get("DYNAMODB_CONNECTIONS", "32"))
# Index keys per feed (`<name>@<id % FEED_SHARDS>`): a timeline bucket took ~0.34 write units per request, and
# one user importing 2,000 contacts/s writes 2,000 index items/s to their owner feed: 8 keys, 250/s each.
FEED_SHARDS = int(os.environ.get("FEED_SHARDS", "8"))
# Items per row count of a sharded kind (`count#<kind>@<id % COUNT_SHARDS>`, summed on read by one
# BatchGetItem, 0.5 read unit per item): `count#contact` took ~0.57 write units per request, so 8 (0.07 each).
COUNT_SHARDS = int(os.environ.get("COUNT_SHARDS", "8"))
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(4 * 1024 * 1024)))  # Lambda answers at most 6 MB (base64)
# Sizes (docs/security.md "Sizes are bounded"). A request body is refused (413) before it is parsed past
# BODY_MAX_BYTES on /api, PUBLIC_BODY_MAX_BYTES on the public routes (forms, tracking, OAuth, the SNS callback:
# SNS's largest message is 256 KB), and a multipart body past UPLOAD_MAX_BYTES + MULTIPART_EXTRA_BYTES (the form's
# other fields). A document's JSON and what its item stores (compressed) are bounded below DynamoDB's 400 KB item;
# an answer's JSON, escaped as Lambda's response carries it, at ANSWER_MAX_BYTES (Lambda answers at most 6 MB).
BODY_MAX_BYTES = int(os.environ.get("BODY_MAX_BYTES", str(2 * 1024 * 1024)))
PUBLIC_BODY_MAX_BYTES = int(os.environ.get("PUBLIC_BODY_MAX_BYTES", str(512 * 1024)))
MULTIPART_EXTRA_BYTES = int(os.environ.get("MULTIPART_EXTRA_BYTES", str(256 * 1024)))
DOCUMENT_JSON_MAX_BYTES = int(os.environ.get("DOCUMENT_JSON_MAX_BYTES", str(1024 * 1024)))
DOCUMENT_STORED_MAX_BYTES = int(os.environ.get("DOCUMENT_STORED_MAX_BYTES", "350000"))
ANSWER_MAX_BYTES = int(os.environ.get("ANSWER_MAX_BYTES", str(5 * 1024 * 1024)))


def _list(name: str, default: str) -> tuple[str, ...]:
    """A comma-separated setting as a tuple of stripped, non-empty strings."""
    return tuple(part.strip() for part in os.environ.get(name, default).split(",") if part.strip())


# Public endpoints, per source address (the gateway's) and PUBLIC_WINDOW seconds: form submissions
# (past them 429) and new anonymous visitors (past them a hit records no contact).
PUBLIC_WINDOW = int(os.environ.get("PUBLIC_WINDOW", "3600"))
FORM_SUBMISSIONS_PER_ADDRESS = int(os.environ.get("FORM_SUBMISSIONS_PER_ADDRESS", "60"))
VISITORS_PER_ADDRESS = int(os.environ.get("VISITORS_PER_ADDRESS", "300"))
# User-Agent prefixes of HTTP libraries tracked as visitors although crawlerdetect names them: PHP's
# Guzzle is not on Mautic's bot list (`do_not_track_bots`), and server-side tracking from PHP sites
# and Mautic's own PHP client send it (docs/public-endpoints.md).
TRACKED_CLIENTS = _list("TRACKED_CLIENTS", "GuzzleHttp/")


def _ip_mode(value: str) -> str:
    """`ANONYMIZE_IP` as one of off, truncate, none: Mautic's yes (1, true, on, yes) stores no address."""
    word = value.strip().lower()
    if word in ("", "0", "false", "off", "no"):
        return "off"
    if word in ("1", "true", "on", "yes", "none"):
        return "none"
    if word == "truncate":
        return word
    raise ValueError(f"ANONYMIZE_IP must be off, truncate or none, not {value!r}")


# Privacy (docs/privacy.md). Visitor addresses stored whole (off, Mautic's default), truncated to /24
# (IPv4) or /48 (IPv6), or not at all (none: Mautic's anonymize_ip); browsers sending Sec-GPC: 1 or DNT: 1
# are not tracked unless HONOR_PRIVACY_SIGNALS is off.
ANONYMIZE_IP = _ip_mode(os.environ.get("ANONYMIZE_IP", "off"))
HONOR_PRIVACY_SIGNALS = _flag("HONOR_PRIVACY_SIGNALS", True)
# Anonymous visitors (no identifying value) inactive for this many days are deleted by the hourly sweep
# (Mautic's cleanup default, 365); 0 keeps them. The sweep stops after RETENTION_SWEEP_SECONDS and resumes.
ANONYMOUS_RETENTION_DAYS = int(os.environ.get("ANONYMOUS_RETENTION_DAYS", "365"))
RETENTION_SWEEP_SECONDS = float(os.environ.get("RETENTION_SWEEP_SECONDS", "15"))
# Page hits and asset downloads older than this many days are folded into per-day counts, then removed
# from the timelines (0, the default: kept, as Mautic keeps them).
STATS_RETENTION_DAYS = int(os.environ.get("STATS_RETENTION_DAYS", "0"))
# Seconds a container keeps the landing page (by alias) and asset (by key) a public hit reads, so one busy
# page is read about once a second per container, not on every hit (docs/public-endpoints.md); 0: every hit.
PUBLIC_DOC_SECONDS = float(os.environ.get("PUBLIC_DOC_SECONDS", "1"))
FORM_RELAY_PER_WINDOW = int(os.environ.get("FORM_RELAY_PER_WINDOW", "500"))  # form mails to submitted addresses

# Hosts a form's `return` (or the Referer) may send the browser back to, besides the service's own;
# `.example.com` also allows its subdomains (docs/public-endpoints.md).
FORM_RETURN_HOSTS = _list("FORM_RETURN_HOSTS", "")
# Mautic's `do_not_submit_emails`: address patterns (shell wildcards) an email field with the
# `donotsubmit` validation refuses (docs/public-endpoints.md, "Forms").
DO_NOT_SUBMIT_EMAILS = _list("DO_NOT_SUBMIT_EMAILS", "")
# Websites whose pages may post embedded forms with fetch and read the answer (CORS, with the
# visitor's cookies): origins such as https://www.example.com, or * for any.
FORM_ALLOWED_ORIGINS = _list("FORM_ALLOWED_ORIGINS", "*")

# Webhooks (docs/webhooks.md): seconds to wait before each retry, then the dead-letter queue.
WEBHOOK_RETRY_DELAYS = tuple(float(s) for s in _list("WEBHOOK_RETRY_DELAYS", "10,60,300,1800,7200,18000,36000,36000"))
WEBHOOK_TIMEOUT = float(os.environ.get("WEBHOOK_TIMEOUT", "15"))
WEBHOOK_LOG_MAX = int(os.environ.get("WEBHOOK_LOG_MAX", "1000"))  # delivery log entries kept per hook
WEBHOOK_DISABLE_LIMIT = int(os.environ.get("WEBHOOK_DISABLE_LIMIT", "100"))  # failed attempts in a row...
WEBHOOK_DISABLE_AFTER = float(os.environ.get("WEBHOOK_DISABLE_AFTER", str(2 * 86400)))  # ...over this many seconds
# Networks deliveries may reach although they are not public (CIDRs); the local stage allows loopback.
WEBHOOK_ALLOWED_NETWORKS = _list("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128" if LOCAL else "")

# Email and SMS (docs/email.md): the default sender, the send rate (SES's quota), the outbox files.
DATA_DIR = os.path.abspath(os.environ.get("DATA_DIR", ".data"))
MAILER_FROM_EMAIL = os.environ.get("MAILER_FROM_EMAIL", "no-reply@example.com")
MAILER_FROM_NAME = os.environ.get("MAILER_FROM_NAME", "Mautic")
EMAIL_SEND_RATE = float(os.environ.get("EMAIL_SEND_RATE", "14"))  # messages per second, all workers together
EMAIL_SEND_BATCH = int(os.environ.get("EMAIL_SEND_BATCH", "100"))  # contacts per segment-send message
# A segment send's request sends to the first contacts itself (Mautic's answer counts them) for at most
# EMAIL_SEND_INLINE_SECONDS (then it answers; the workers send the rest), and to at most EMAIL_SEND_INLINE
# of them (a cap, as Mautic's `batch`): a request answers in well under a second whatever the segment.
EMAIL_SEND_INLINE = int(os.environ.get("EMAIL_SEND_INLINE", "1000"))
EMAIL_SEND_INLINE_SECONDS = float(os.environ.get("EMAIL_SEND_INLINE_SECONDS", "0.3"))
# AWS calls of one segment-send batch in flight at once per worker (claims and SES calls, contact writes,
# BatchWriteItems: domain/messaging/send_batches.py): 16 make a chunk of 25 messages two waves of each
EMAIL_SEND_CONCURRENCY = int(os.environ.get("EMAIL_SEND_CONCURRENCY", "16"))
SES_CONFIGURATION_SET = os.environ.get("SES_CONFIGURATION_SET", "")
# Broadcasts (docs/email.md "Broadcasts"): Mautic's `mautic:broadcasts:send` cron, every this many minutes
BROADCAST_MINUTES = max(1, int(os.environ.get("BROADCAST_MINUTES", "5")))
BROADCAST_PAGE = int(os.environ.get("BROADCAST_PAGE", "1000"))  # members or joins one walk step reads per segment
# a join row is read once it is this old: its contact write has surely committed by then
BROADCAST_JOIN_SLACK = int(os.environ.get("BROADCAST_JOIN_SLACK", "60"))
# Frequency caps (docs/email.md): Mautic's `email_frequency_number` / `email_frequency_time`, the cap of
# the contacts without an email rule of their own (DAY, WEEK or MONTH; none unless both are set)
EMAIL_FREQUENCY_NUMBER = int(os.environ.get("EMAIL_FREQUENCY_NUMBER", "0"))
EMAIL_FREQUENCY_TIME = os.environ.get("EMAIL_FREQUENCY_TIME", "")
# SES feedback (docs/email.md, "Bounces and complaints"): this many transient bounces of one contact
# within the window (hours) make it do-not-contact, bounced
EMAIL_SOFT_BOUNCE_LIMIT = int(os.environ.get("EMAIL_SOFT_BOUNCE_LIMIT", "3"))
EMAIL_SOFT_BOUNCE_WINDOW_HOURS = float(os.environ.get("EMAIL_SOFT_BOUNCE_WINDOW_HOURS", "72"))
# The reputation guard (docs/email.md): past these rates (percent) over the last EMAIL_GUARD_DAYS days,
# judged once EMAIL_GUARD_MIN_SENDS sends are counted, segment sends pause until an administrator resumes
EMAIL_GUARD_BOUNCE_RATE = float(os.environ.get("EMAIL_GUARD_BOUNCE_RATE", "4"))
EMAIL_GUARD_COMPLAINT_RATE = float(os.environ.get("EMAIL_GUARD_COMPLAINT_RATE", "0.08"))
EMAIL_GUARD_DAYS = int(os.environ.get("EMAIL_GUARD_DAYS", "7"))
EMAIL_GUARD_MIN_SENDS = int(os.environ.get("EMAIL_GUARD_MIN_SENDS", "500"))
# SES feedback (docs/security.md, "SES feedback comes only from the stack's own account"): the account
# the stack runs in (the template sets it; locally moto's), the only one whose SES notifications and
# SNS topics count; and the topic ARNs `/mailer/callback` accepts (comma-separated). None unless
# set: the template sets the stack's own topic, the local stage defaults to the local stack's.
STACK_ACCOUNT_ID = os.environ.get("STACK_ACCOUNT_ID") or ("123456789012" if LOCAL else "")
FEEDBACK_TOPIC = f"{RESOURCE_PREFIX}ses-feedback"  # SES notifications -> SNS -> the feedback queue
_LOCAL_TOPIC = f"arn:aws:sns:{AWS_REGION}:{STACK_ACCOUNT_ID}:{FEEDBACK_TOPIC}" if LOCAL else ""
MAILER_CALLBACK_TOPICS = _list("MAILER_CALLBACK_TOPICS", _LOCAL_TOPIC)
SMS_SENDER_ID = os.environ.get("SMS_SENDER_ID", "")
OUTBOX_DIR = os.environ.get("OUTBOX_DIR") or (os.path.join(DATA_DIR, "outbox") if LOCAL else "")

# Cross-origin requests of the scripts websites embed (`/mtc/event`, `/mtc`; docs/public-endpoints.md),
# Mautic's `cors_restrict_domains` and `cors_valid_domains`: the origins allowed (shell patterns,
# `https://*.example.com`); CORS_RESTRICT_DOMAINS=0 allows any origin.
CORS_RESTRICT_DOMAINS = _flag("CORS_RESTRICT_DOMAINS", True)
CORS_VALID_DOMAINS = _list("CORS_VALID_DOMAINS", "")
