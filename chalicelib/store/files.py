"""S3: the files bucket (uploaded images, the files of assets, form uploads). The only code that knows S3:
the AWS implementation of the files port (`ports/files.py`)."""

import math
import time
from collections.abc import Callable

from botocore.exceptions import ClientError

from chalicelib import aws, config
from chalicelib.ports.files import Head


def _missing(error: ClientError) -> bool:
    """Whether S3 refused because the object is not there."""
    return error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")


def put(key: str, data: bytes, content_type: str) -> None:
    """Store an object. One PutObject."""
    aws.client("s3").put_object(Bucket=config.active().FILES_BUCKET, Key=key, Body=data, ContentType=content_type)


def get(key: str) -> tuple[bytes, str] | None:
    """(bytes, content type) of an object, or None. One GetObject."""
    try:
        found = aws.client("s3").get_object(Bucket=config.active().FILES_BUCKET, Key=key)
    except ClientError as error:
        if _missing(error):
            return None
        raise
    return found["Body"].read(), found.get("ContentType") or "application/octet-stream"


def head(key: str) -> Head | None:
    """{size, contentType} of an object, or None. One HeadObject."""
    try:
        found = aws.client("s3").head_object(Bucket=config.active().FILES_BUCKET, Key=key)
    except ClientError as error:
        if _missing(error):
            return None
        raise
    return {"size": found["ContentLength"], "contentType": found.get("ContentType")}


def delete(key: str) -> None:
    """Delete an object (S3 deletes are idempotent). One DeleteObject."""
    aws.client("s3").delete_object(Bucket=config.active().FILES_BUCKET, Key=key)


def purge(key: str) -> None:
    """Delete an object with every version of it: the bucket is versioned, so a plain delete would only
    hide it (its old version kept until the lifecycle expires it). ListObjectVersions pages (one for a
    key written once) + 1 DeleteObjects per 1,000 versions; an object already gone costs the listing."""
    purge_under(key, key.__eq__, math.inf)


def listing(prefix: str) -> tuple[list[str], list[str]]:
    """(sub-folder names, file names) directly under `prefix` ("a/b/"), sorted. ListObjectsV2 pages."""
    folders: list[str] = []
    names: list[str] = []
    paginator = aws.client("s3").get_paginator("list_objects_v2")
    pages = paginator.paginate(Bucket=config.active().FILES_BUCKET, Prefix=prefix, Delimiter="/")
    for page in pages:
        folders += [p["Prefix"][len(prefix) :].rstrip("/") for p in page.get("CommonPrefixes") or []]
        names += [o["Key"][len(prefix) :] for o in page.get("Contents") or [] if o["Key"] != prefix]
    return sorted(folders), sorted(names)


def purge_under(prefix: str, wanted: Callable[[str], bool], seconds: float) -> bool:
    """Delete every version (and delete marker) of the objects under `prefix` whose key `wanted` takes,
    a page at a time for up to `seconds`; True once none is left. Per 1,000 versions listed: 1
    ListObjectVersions + 1 DeleteObjects (none when the page holds nothing wanted). A run stopped early
    leaves the rest for the next, which lists again what is left."""
    client = aws.client("s3")
    deadline = time.monotonic() + seconds
    for page in client.get_paginator("list_object_versions").paginate(
        Bucket=config.active().FILES_BUCKET, Prefix=prefix
    ):
        entries = (page.get("Versions") or []) + (page.get("DeleteMarkers") or [])
        doomed = [{"Key": e["Key"], "VersionId": e["VersionId"]} for e in entries if wanted(e["Key"])]
        if doomed:
            answer = client.delete_objects(
                Bucket=config.active().FILES_BUCKET, Delete={"Objects": doomed, "Quiet": True}
            )
            if answer.get("Errors"):
                raise RuntimeError(f"S3 kept versions under {prefix}: {answer['Errors'][:3]}")
        if page.get("IsTruncated") and time.monotonic() > deadline:
            return False
    return True
