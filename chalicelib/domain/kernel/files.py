"""Uploaded files in the bucket: `images` (with sub-folders) and the assets folder (`assets`, or
Mautic's newer name `media`). Stored names are random; only allowed extensions are taken."""

import mimetypes
import posixpath
import re
import secrets

from chalicelib import config
from chalicelib.domain.kernel.errors import DomainError, NotFound
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import files as bucket

FOLDERS = {"images": "images", "assets": "media", "media": "media"}
# The extensions an upload may have and the type each is stored and answered with: a fixed table, so the
# types are the same wherever the code runs (mimetypes reads the host's /etc/mime.types, which Lambda's image
# may lack: docx, epub, odt... would be application/octet-stream there), and no import reads that file.
UPLOAD_TYPES = {
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "epub": "application/epub+zip",
    "gif": "image/gif",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "mpg": "video/mpeg",
    "mpeg": "video/mpeg",
    "mp3": "audio/mpeg",
    "mp4": "video/mp4",
    "odt": "application/vnd.oasis.opendocument.text",
    "odp": "application/vnd.oasis.opendocument.presentation",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "pdf": "application/pdf",
    "png": "image/png",
    "ppt": "application/vnd.ms-powerpoint",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "tif": "image/tiff",
    "tiff": "image/tiff",
    "txt": "text/plain",
    "webp": "image/webp",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "wav": "audio/x-wav",
    "zip": "application/zip",
}
ALLOWED_EXTENSIONS = tuple(UPLOAD_TYPES)
SEGMENT = r"^[A-Za-z0-9_\-]+$"


class NotAcceptable(DomainError):
    """Mautic answers 406 for an unknown folder, a refused extension or a missing file."""

    status = 406

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message, {field: [message]})


def folder(directory: JSON, subdir: JSON = None) -> str:
    """The bucket prefix ("images/flags/") of `dir` (dots name sub-folders: `images.flags`) and `subdir`."""
    head, *rest = str(directory).split(".")
    if head not in FOLDERS:
        raise NotAcceptable(f"{directory} not found. Only media or images options are possible.", "dir")
    parts = rest + [p for p in str(subdir or "").strip("/").split("/") if p]
    if parts and head != "images":
        raise NotAcceptable("Assets do not support subdirectories.", "subdir")
    if any(not re.match(SEGMENT, p) for p in parts):
        raise NotAcceptable("A subdirectory name may hold letters, digits, '-' and '_' only.", "subdir")
    return "/".join([FOLDERS[head]] + parts) + "/"


def listing(directory: JSON, subdir: JSON = None) -> dict[str, dict[str, str]]:
    """`{"files": {"2": name, ...}}`: sub-folders then files, keyed from 2 as Mautic's scandir listing."""
    folders, names = bucket.listing(folder(directory, subdir))
    return {"files": {str(index): name for index, name in enumerate(folders + names, start=2)}}


def extension_of(filename: JSON) -> str:
    """The lower-case extension of a file name ('' without one)."""
    return posixpath.splitext(str(filename or ""))[1].lstrip(".").lower()


def mime_of(name: str) -> str:
    """The content type a file name implies: an upload's extension's from the table, another's from mimetypes."""
    return UPLOAD_TYPES.get(extension_of(name)) or mimetypes.guess_type(name)[0] or "application/octet-stream"


def upload(
    directory: JSON, subdir: JSON, upload_file: tuple[str, str | None, bytes | None] | None, base_url: str
) -> dict[str, dict[str, str]]:
    """Store an uploaded (filename, content type, bytes) under a random name; the `file` record."""
    if upload_file is None:
        raise NotAcceptable("No file was uploaded (send a multipart part named 'file').", "file")
    filename, _, data = upload_file
    prefix = folder(directory, subdir)
    extension = extension_of(filename)
    if extension not in ALLOWED_EXTENSIONS:
        raise NotAcceptable(
            f"The extension '{extension or '(none)'}' is not allowed; allowed: {', '.join(ALLOWED_EXTENSIONS)}.", "file"
        )
    if len(data or b"") > config.active().UPLOAD_MAX_BYTES:
        raise NotAcceptable(f"The file is larger than {config.active().UPLOAD_MAX_BYTES} bytes.", "file")
    name = f"{secrets.token_hex(16)}.{extension}"
    bucket.put(prefix + name, data or b"", mime_of(name))
    record = {"name": name}
    if prefix.startswith("images/"):
        record["link"] = f"{base_url}/media/{prefix}{name}"
    return {"file": record}


def delete(directory: JSON, subdir: JSON, name: JSON) -> dict[str, bool]:
    """Delete a stored file, or NotFound."""
    key = folder(directory, subdir) + _plain(name)
    if bucket.head(key) is None:
        raise NotFound("File does not exist")
    bucket.delete(key)
    return {"success": True}


def _plain(name: JSON) -> str:
    """A file name without a folder in it, or NotFound."""
    plain = str(name or "")
    if not plain or "/" in plain or plain.startswith("."):
        raise NotFound("File does not exist")
    return plain


def read(directory: JSON, subdir: JSON, name: JSON) -> tuple[bytes, str]:
    """(bytes, mime) of a stored file, or NotFound."""
    found = bucket.get(folder(directory, subdir) + _plain(name))
    if found is None:
        raise NotFound("File does not exist")
    return found[0], mime_of(name)


def asset_facts(name: JSON) -> Doc | None:
    """{size, extension, mime} of an uploaded asset file, or None when it is not in the assets folder."""
    found = bucket.head(folder("media") + _plain(name))
    if found is None:
        return None
    return {"size": found["size"], "extension": extension_of(name), "mime": mime_of(name)}


def delete_asset_file(name: JSON) -> None:
    """Delete an uploaded asset's file from the assets folder."""
    bucket.delete(folder("media") + _plain(name))


def read_asset_file(name: JSON) -> tuple[bytes, str]:
    """(bytes, mime) of an uploaded asset's file, or NotFound."""
    return read("media", None, name)
