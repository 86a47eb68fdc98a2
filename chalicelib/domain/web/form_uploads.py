"""Files uploaded through a form's `file` fields, as Mautic's FormBundle takes them (`UploadFieldValidator`,
`FormUploader`): each field's `allowed_file_extensions` and `allowed_file_size` (MB) checked with Mautic's
messages, the file kept in the files bucket under its form and submission, the result holding the stored
file name. A request body reaches the function whole (at most 6 MB through API Gateway and Lambda, and
base64-encoded on the way), so no field takes more than `UPLOAD_MAX_BYTES` (docs/public-endpoints.md).
"""

import posixpath
import re
from collections.abc import Iterable, Mapping

from chalicelib import config
from chalicelib.domain.kernel import files
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import files as bucket
from chalicelib.records import record
from chalicelib.store import port as entities

MB = 1_048_576  # Mautic's FileHelper::BYTES_TO_MEGABYTES_RATIO
BLACKLISTED = ("php", "sh")  # Mautic's `blacklisted_extensions`: never allowed on a field
LOOKUP = "submissionfiles"  # submission id -> its form, for a submission holding files
PREFIX = "form"  # the bucket's folder of form uploads: form/<form id>/<submission id>/<field id>/<name>
Upload = tuple[str, str, bytes]  # (client file name, content type, bytes) of a multipart part


@record
class Pending:
    """A checked upload of one field, stored once the submission has its id."""

    field: Doc
    name: str  # the stored file name, the field's result
    data: bytes


def uploads_of(parts: Mapping[str, Upload]) -> dict[str, Upload]:
    """The file parts of a multipart body by field alias (`mauticform[<alias>]`)."""
    found: dict[str, Upload] = {}
    for name, part in parts.items():
        matched = re.fullmatch(r"mauticform\[([^\[\]]+)\]", name)
        if matched:
            found[matched.group(1)] = part
    return found


def _properties(field: Doc) -> Doc:
    props = field.get("properties")
    return props if isinstance(props, dict) else {}


def extensions(field: Doc) -> list[str]:
    """The extensions a field takes: its `allowed_file_extensions` (a list or comma-separated), else this
    service's allow-list (Mautic's default is its `allowed_extensions` setting)."""
    raw = _properties(field).get("allowed_file_extensions")
    items = raw if isinstance(raw, list) else str(raw or "").split(",")
    named = [str(item).strip().lstrip(".") for item in items if str(item).strip().lstrip(".")]
    return named or list(files.ALLOWED_EXTENSIONS)


def max_bytes(field: Doc) -> int:
    """The largest file the field takes: its `allowed_file_size` in MB, never above `UPLOAD_MAX_BYTES`."""
    try:
        size = float(_properties(field).get("allowed_file_size") or 0)
    except (TypeError, ValueError):
        size = 0
    return min(int(size * MB), config.active().UPLOAD_MAX_BYTES) if size > 0 else config.active().UPLOAD_MAX_BYTES


def field_errors(field: Doc) -> dict[str, str]:
    """What a `file` field's properties get wrong, by property (checked when the form is saved): a
    blacklisted extension (Mautic's FileExtensionConstraint) or a size above what a request can carry."""
    errors: dict[str, str] = {}
    forbidden = [e for e in extensions(field) if e.lower() in BLACKLISTED]
    if forbidden:
        errors["allowed_file_extensions"] = f'File extension contains an illegal extension: "{", ".join(forbidden)}".'
    size = _properties(field).get("allowed_file_size")
    limit = round(config.active().UPLOAD_MAX_BYTES / MB, 2)
    try:
        too_big = size not in (None, "") and not 0 <= float(size) <= limit
    except (TypeError, ValueError):
        too_big = True
    if too_big:
        errors["allowed_file_size"] = f"This value should be less than or equal to {limit:g}."
    return errors


def _megabytes(size: int) -> str:
    """Bytes as Mautic shows them in its messages: MB rounded to 2 places, PHP's float printing."""
    return f"{round(size / MB, 2):g}"


def check(field: Doc, upload: Upload | None) -> tuple[Pending | None, str | None]:
    """(the upload to store, or None when none was sent; the error message, or None), as Mautic's
    FileUploadValidator: the extension and the size, both messages joined with `<br />`."""
    if upload is None or not upload[0]:
        return None, None
    filename, _, data = upload
    extension = posixpath.splitext(filename)[1].lstrip(".")
    allowed = extensions(field)
    errors = []
    if extension.lower() not in [e.lower() for e in allowed]:
        errors.append(
            f"Upload failed as the file extension, {extension}, is not in the list of allowed extensions "
            f"({', '.join(allowed)})."
        )
    if len(data) > max_bytes(field):
        errors.append(
            f"Upload failed as the file is {_megabytes(len(data))} MB which exceeds the maximum allowed file size "
            f"of {_megabytes(max_bytes(field))} MB."
        )
    if errors:
        return None, "<br />".join(errors)
    return Pending(field, stored_name(filename), data), None


def stored_name(filename: str) -> str:
    """Mautic's stored name of an upload (`InputHelper::filename`, `FilePathResolver`): the client's name
    lower-cased, spaces as `_`, only `a-z0-9._-` kept, with the client's extension as sent; `file` when
    nothing of the name is left. One submission's field holds one file, so the name is unique in its folder."""
    base, extension = posixpath.splitext(posixpath.basename(filename.replace("\\", "/")))
    clean = re.sub(r"[^a-z0-9._-]", "", base.replace(" ", "_").lower()).lstrip(".") or "file"
    return clean + extension


def key(form_id: int, submission_id: int, field_id: JSON, name: str) -> str:
    """The bucket key of an uploaded file: per form, per submission, per field."""
    return f"{PREFIX}/{int(form_id)}/{int(submission_id)}/{field_id}/{name}"


def store(form_id: int, submission_id: int, pending: list[Pending]) -> dict[str, str]:
    """Put each checked upload in the bucket (1 PutObject each); {field alias: key}. A failure removes
    what this call stored and raises."""
    stored: dict[str, str] = {}
    try:
        for upload in pending:
            where = key(form_id, submission_id, upload.field.get("id"), upload.name)
            bucket.put(where, upload.data, files.mime_of(upload.name))
            stored[upload.field["alias"]] = where
    except Exception:
        remove(stored.values())
        raise
    return stored


def remove(keys: Iterable[str]) -> None:
    """Delete these uploads from the bucket, every version of each (the bucket is versioned: 1
    ListObjectVersions + 1 DeleteObjects each); deleting twice is harmless."""
    for where in list(keys):
        bucket.purge(where)


def lookup(submission: Doc) -> list[tuple[str, int, Doc]]:
    """The item a submission with files adds to its transaction: its form, by submission id, so Mautic's
    public address (`/forms/results/file/<submissionId>/<field>`, which names no form) finds the file."""
    if not submission.get("files"):
        return []
    return [(LOOKUP, int(submission["id"]), {"id": int(submission["id"]), "formId": submission["formId"]})]


def form_of(submission_id: JSON) -> int | None:
    """The form of a submission that holds files (1 GetItem), or None."""
    try:
        found = entities.get(LOOKUP, int(str(submission_id)))
    except ValueError:
        return None
    return int(found["formId"]) if found else None


def is_public(field: Doc) -> bool:
    """Whether a `file` field's files are served to anyone (Mautic's `public` property)."""
    value = _properties(field).get("public")
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


def read(submission: Doc, alias: str) -> tuple[bytes, str, str]:
    """(bytes, content type, stored name) of a submission's file, or NotFound: no such field, no file
    sent, or the file gone (1 GetObject)."""
    where = (submission.get("files") or {}).get(alias)
    if not where:
        raise NotFound("The submission holds no file for that field.")
    found = bucket.get(where)
    if found is None:
        raise NotFound("The file does not exist.")
    name = posixpath.basename(where)
    return found[0], files.mime_of(name), name


def link(base_url: str, form_id: JSON, submission_id: JSON, alias: str) -> str:
    """The API URL that downloads a submission's file."""
    return f"{base_url}/api/forms/{form_id}/submissions/{submission_id}/files/{alias}"


def links(base_url: str, submission: Doc) -> list[Doc]:
    """A submission's files as `{field, name, link}` (the export's links to the download)."""
    return [
        {
            "field": alias,
            "name": posixpath.basename(where),
            "link": link(base_url, submission.get("formId"), submission["id"], alias),
        }
        for alias, where in sorted((submission.get("files") or {}).items())
    ]
