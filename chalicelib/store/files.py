"""S3: the files bucket (uploaded images and the files of assets). The only code that knows S3."""

from botocore.exceptions import ClientError

from chalicelib import aws, config


def _missing(error):
    return error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")


def put(key, data, content_type):
    """Store an object. One PutObject."""
    aws.client("s3").put_object(Bucket=config.FILES_BUCKET, Key=key, Body=data, ContentType=content_type)


def get(key):
    """(bytes, content type) of an object, or None. One GetObject."""
    try:
        found = aws.client("s3").get_object(Bucket=config.FILES_BUCKET, Key=key)
    except ClientError as error:
        if _missing(error):
            return None
        raise
    return found["Body"].read(), found.get("ContentType") or "application/octet-stream"


def head(key):
    """{size, contentType} of an object, or None. One HeadObject."""
    try:
        found = aws.client("s3").head_object(Bucket=config.FILES_BUCKET, Key=key)
    except ClientError as error:
        if _missing(error):
            return None
        raise
    return {"size": found["ContentLength"], "contentType": found.get("ContentType")}


def delete(key):
    """Delete an object (S3 deletes are idempotent). One DeleteObject."""
    aws.client("s3").delete_object(Bucket=config.FILES_BUCKET, Key=key)


def listing(prefix):
    """(sub-folder names, file names) directly under `prefix` ("a/b/"), sorted. ListObjectsV2 pages."""
    folders, names = [], []
    paginator = aws.client("s3").get_paginator("list_objects_v2")
    pages = paginator.paginate(Bucket=config.FILES_BUCKET, Prefix=prefix, Delimiter="/")
    for page in pages:
        folders += [p["Prefix"][len(prefix) :].rstrip("/") for p in page.get("CommonPrefixes") or []]
        names += [o["Key"][len(prefix) :] for o in page.get("Contents") or [] if o["Key"] != prefix]
    return sorted(folders), sorted(names)
