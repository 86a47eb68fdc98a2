"""The local stack's data at start-up: the journal under DATA_DIR loaded into the embedded AWS.

`restore` folds DATA_DIR/journal (the newest snapshot and the later segments, see `journal`)
and puts the result straight into moto's tables, bucket and queues. Data of the earlier
format (one JSON file per table under DATA_DIR/dynamodb, objects under DATA_DIR/s3) is
rewritten once as the first snapshot.
"""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib import config
from devstack import capture, journal

if TYPE_CHECKING:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.s3.models import S3Backend
    from moto.sqs.models import SQSBackend


def _backends() -> tuple[DynamoDBBackend, S3Backend, SQSBackend]:
    """The DynamoDB, S3 and SQS backends of moto for the service's account and region."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends
    from moto.sqs.models import sqs_backends

    return (
        dynamodb_backends[DEFAULT_ACCOUNT_ID][config.active().AWS_REGION],
        s3_backends[DEFAULT_ACCOUNT_ID]["aws"],
        sqs_backends[DEFAULT_ACCOUNT_ID][config.active().AWS_REGION],
    )


def _load(records: Iterable[journal.Record]) -> None:
    """Put folded journal records into moto (no capture: they are already on disk)."""
    dynamodb, s3, sqs = _backends()
    now = time.time() * 1000
    for record in records:
        if "d" in record:
            dynamodb.get_table(record["d"]).put_item(record["i"])
        elif "s" in record:
            stored = s3.put_object(config.active().FILES_BUCKET, record["s"], base64.b64decode(record["b"]))
            stored.set_metadata({"content-type": record["c"]})
        else:
            delay = min(900, max(0, math.ceil((record["t"] - now) / 1000)))
            sqs.send_message(record["q"], record["b"], delay_seconds=delay).id = record["m"]


def _legacy_records(root: Path) -> Iterator[journal.Record]:
    """Records of the earlier format's files (tables as JSON lists, objects as files)."""
    dynamodb, _, _ = _backends()
    for path in sorted((root / "dynamodb").glob("*.json")):
        table = dynamodb.get_table(path.stem)
        for item in json.loads(path.read_text()):
            yield {"d": path.stem, "k": capture.key_of(table, item), "i": item}
    index = root / "s3-index.json"
    for key in json.loads(index.read_text()) if index.exists() else []:
        yield {
            "s": key,
            "b": base64.b64encode((root / "s3" / key).read_bytes()).decode(),
            "c": "application/octet-stream",
        }


def _migrate(root: Path, directory: Path) -> None:
    """Rewrite the earlier format's files as the first snapshot, then remove them."""
    directory.mkdir(parents=True)
    journal.write_snapshot(directory, 0, _legacy_records(root))
    for name in ("dynamodb", "s3"):
        shutil.rmtree(root / name, ignore_errors=True)
    (root / "s3-index.json").unlink(missing_ok=True)


def restore(data_dir: str | os.PathLike[str]) -> int:
    """Load DATA_DIR's journal into the embedded AWS. Returns the number of records loaded."""
    root = Path(data_dir)
    directory = root / "journal"
    if not directory.exists() and (root / "dynamodb").exists():
        _migrate(root, directory)
    state = journal.fold(directory) if directory.exists() else {}
    _load(state.values())
    return len(state)
