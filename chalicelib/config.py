"""Settings read from the environment, with the local stage's defaults."""
import os

MAUTIC_VERSION = "5.1.0"


def _flag(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "on", "yes")


STAGE = os.environ.get("STAGE", "local")
LOCAL = STAGE == "local"
RESOURCE_PREFIX = os.environ.get("RESOURCE_PREFIX", f"mautic-{STAGE}-")
FILES_BUCKET = os.environ.get("FILES_BUCKET", f"{RESOURCE_PREFIX}files")
AWS_REGION = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION") or "us-east-1"
BASE_URL = os.environ.get("BASE_URL", "").rstrip("/")
API_ENABLED = _flag("API_ENABLED", LOCAL)
BASIC_AUTH_ENABLED = _flag("BASIC_AUTH_ENABLED", LOCAL)
DEFAULT_PAGE_LIMIT = 30
BATCH_MAX = 200
SEGMENT_REBUILD_BATCH = int(os.environ.get("SEGMENT_REBUILD_BATCH", "1000"))  # contacts per rebuild message
