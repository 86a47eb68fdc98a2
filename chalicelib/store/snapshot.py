"""Snapshots of the embedded AWS (local stack only): tables and bucket objects under DATA_DIR.

The local stack keeps AWS in process memory (moto); these snapshots make its data survive a
restart. Files are written to a temporary name and renamed, so a snapshot is whole or absent.
"""
import json
import os
from pathlib import Path

import boto3

from chalicelib import config
from chalicelib.store.models import MODELS


def _clients():
    return (boto3.client("dynamodb", region_name=config.AWS_REGION),
            boto3.client("s3", region_name=config.AWS_REGION))


def _write_atomic(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def dump_tables():
    """{table name: [items in DynamoDB JSON]} for every table."""
    dynamodb, _ = _clients()
    return {model.Meta.table_name: [item for page in dynamodb.get_paginator("scan").paginate(
        TableName=model.Meta.table_name) for item in page["Items"]] for model in MODELS}


def load_tables(tables):
    """Put the items of `dump_tables` back. Returns the number of items."""
    dynamodb, _ = _clients()
    for table, items in tables.items():
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": item}} for item in items[start:start + 25]]
            dynamodb.batch_write_item(RequestItems={table: requests})
    return sum(len(items) for items in tables.values())


def save(data_dir):
    """Write every table's items and every bucket object under data_dir."""
    _, s3 = _clients()
    root = Path(data_dir)
    for table, items in dump_tables().items():
        _write_atomic(root / "dynamodb" / f"{table}.json", json.dumps(items).encode())
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=config.FILES_BUCKET):
        for entry in page.get("Contents", []):
            keys.append(entry["Key"])
            body = s3.get_object(Bucket=config.FILES_BUCKET, Key=entry["Key"])["Body"].read()
            _write_atomic(root / "s3" / entry["Key"], body)
    _write_atomic(root / "s3-index.json", json.dumps(keys).encode())


def restore(data_dir):
    """Load a snapshot written by `save`, if there is one. Returns the number of items loaded."""
    _, s3 = _clients()
    root = Path(data_dir)
    tables = {model.Meta.table_name: root / "dynamodb" / f"{model.Meta.table_name}.json" for model in MODELS}
    loaded = load_tables({table: json.loads(path.read_text()) for table, path in tables.items() if path.exists()})
    index = root / "s3-index.json"
    for key in json.loads(index.read_text()) if index.exists() else []:
        s3.put_object(Bucket=config.FILES_BUCKET, Key=key, Body=(root / "s3" / key).read_bytes())
    return loaded
