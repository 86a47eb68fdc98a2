"""Themes (Mautic's ThemeApiController): zips holding a `config.json` and Twig templates, kept in
the files bucket as `themes/<key>/theme.zip` with their `themes/<key>/config.json` beside it. The
built-in theme lives in the code; deleting it hides it (`themes/.hidden/<key>`), as Mautic does.
Emails and pages name a theme by key in `template`; a theme they name is not deleted, and they are
sent and served in its frame (domain/messaging/theme_html.py)."""

import io
import json
import posixpath
import re
import zipfile
from collections.abc import Mapping, Sequence

from chalicelib import config
from chalicelib.domain.kernel.errors import DomainError, NotFound, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import theme_html
from chalicelib.ports import files as bucket
from chalicelib.store import port as store

PREFIX, HIDDEN = "themes/", "themes/.hidden/"
REQUIRED = ("config.json", "html/message.html.twig")
ALLOWED_EXTENSIONS = {
    "json",
    "twig",
    "css",
    "js",
    "htm",
    "html",
    "txt",
    "jpg",
    "jpeg",
    "png",
    "gif",
    "svg",
    "webp",
    "ico",
    "woff",
    "woff2",
    "ttf",
    "eot",
    "otf",
    "map",
}
KEY = r"[^A-Za-z0-9_\-]"

USERS = ("email", "page")  # the kinds whose `template` names a theme

BLANK_HTML = theme_html.BLANK_HTML  # the built-in theme's templates (rendered by domain/messaging/theme_html.py)
BUILT_IN = {
    "blank": {
        "name": "Blank",
        "author": "Mautic",
        "authorUrl": "https://mautic.org",
        "features": ["email", "page", "form"],
        "builder": ["legacy"],
    }
}


def unpacked_max() -> int:
    """What a theme's files may weigh unpacked (a zip bomb is refused)."""
    return 5 * config.active().UPLOAD_MAX_BYTES


def _built_in_zip(key: str) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps(BUILT_IN[key], indent=2))
        for feature in ("message",) + tuple(BUILT_IN[key]["features"]):
            archive.writestr(f"html/{feature}.html.twig", BLANK_HTML)
    return data.getvalue()


def _entry(key: str, theme_config: Mapping[str, JSON], hidden: bool) -> Doc:
    """A theme as Mautic lists it: name, key, config (`builder` legacy when unset), visibility of built-ins."""
    theme_config = dict(theme_config)
    if not isinstance(theme_config.get("builder"), list) or not theme_config["builder"]:
        theme_config["builder"] = ["legacy"]
    entry = {"name": theme_config.get("name") or key, "key": key, "config": theme_config}
    if key in BUILT_IN:
        entry["visibility"] = {"hidden": hidden}
    return entry


def listing() -> Doc:
    """`{"themes": {key: {...}}}`, by key, hidden built-ins last."""
    folders, _ = bucket.listing(PREFIX)
    _, hidden = bucket.listing(HIDDEN)
    themes = {key: _entry(key, theme_config, key in hidden) for key, theme_config in BUILT_IN.items()}
    for key in folders:
        if not key.startswith("."):
            found = bucket.get(f"{PREFIX}{key}/config.json")
            themes[key] = _entry(key, json.loads(found[0]) if found else {}, False)
    ordered = sorted(themes.values(), key=lambda t: (t.get("visibility", {}).get("hidden", False), t["key"]))
    return {"themes": {t["key"]: t for t in ordered}}


def archive(key: str) -> tuple[bytes, str]:
    """(zip bytes, file name) of a theme, or NotFound."""
    if key in BUILT_IN:
        return _built_in_zip(key), f"{key}.zip"
    found = bucket.get(f"{PREFIX}{key}/theme.zip") if _valid(key) else None
    if found is None:
        raise NotFound(f"{key} not found!")
    return found[0], f"{key}.zip"


def _valid(key: str) -> bool:
    """Whether `key` can name a stored theme (letters, digits, `-`, `_`)."""
    return bool(key) and re.sub(KEY, "", key) == key


def _key_of(filename: str | None) -> str:
    base = posixpath.basename(str(filename or "").replace("\\", "/"))
    if not base.lower().endswith(".zip"):
        extension = posixpath.splitext(base)[1].lstrip(".") or "(none)"
        raise invalid("file", f"The file extension {extension} is not allowed.")
    key = re.sub(KEY, "", base[:-4].replace(" ", "-"))
    if not key:
        raise invalid("file", "The theme's file name holds no letters or digits.")
    if key in BUILT_IN:
        raise invalid("file", f"{key} is the default theme and therefore cannot be overwritten.")
    return key


def _clean_name(name: str) -> str:
    """The entry name when it is a clean relative POSIX path, else a 400 naming it: no leading `/`,
    backslash, drive or other colon, empty, `.` or `..` segment, or control character (a name that
    another unzipper could place outside the theme's folder)."""
    segments = name[:-1].split("/") if name.endswith("/") else name.split("/")
    if (
        "\\" in name
        or ":" in name
        or any(ord(c) < 32 or c == "\x7f" for c in name)
        or any(segment in ("", ".", "..") for segment in segments)
    ):
        raise invalid(
            "file",
            f"The theme holds a file named {name!r}: only relative paths without '..', '\\' or ':' are accepted.",
        )
    return name


def _read_zip(data: bytes) -> dict[str, bytes]:
    """{entry name: bytes} of the allowed files of the zip (every name clean: `_clean_name`); a zip
    that unpacks to more than unpacked_max() bytes is refused, whatever its entries declare."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries, left = {}, unpacked_max()
            for info in archive.infolist():
                name = _clean_name(info.filename)
                extension = posixpath.splitext(name)[1].lstrip(".").lower()
                if info.is_dir() or (extension and extension not in ALLOWED_EXTENSIONS):
                    continue
                with archive.open(info) as member:
                    entries[name] = member.read(left + 1)
                left -= len(entries[name])
                if left < 0:
                    raise invalid("file", f"The theme unpacks to more than {unpacked_max()} bytes.")
            return entries
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, NotImplementedError):
        raise invalid("file", "The file is not a valid zip archive.") from None


def _config(entries: Mapping[str, bytes]) -> Doc:
    try:
        theme_config = json.loads(entries["config.json"])
    except (KeyError, ValueError, UnicodeDecodeError):
        theme_config = None
    if not isinstance(theme_config, dict):
        raise invalid("file", "The theme's config.json is not a JSON object.")
    features = theme_config.get("features") or []
    if not isinstance(features, list):
        raise invalid("file", "The theme's config.json `features` is not a list.")
    return theme_config


def install(upload_file: tuple[str, str, bytes] | None) -> Doc:
    """Store an uploaded (filename, content type, bytes) theme zip: `{"success": true}`."""
    if upload_file is None:
        raise invalid("file", "No theme was uploaded (send a multipart part named 'file').")
    filename, _, data = upload_file
    key = _key_of(filename)
    if len(data or b"") > config.active().UPLOAD_MAX_BYTES:
        raise invalid("file", f"The file is larger than {config.active().UPLOAD_MAX_BYTES} bytes.")
    entries = _read_zip(data or b"")
    missing = [name for name in REQUIRED if name not in entries]
    theme_config = _config(entries) if "config.json" in entries else {}
    missing += [
        f"html/{str(f).lower()}.html.twig"
        for f in theme_config.get("features") or []
        if f"html/{str(f).lower()}.html.twig" not in entries
    ]
    if missing:
        raise invalid(
            "file",
            "The theme you tried to install is missing the following required files and "
            f"thus could not be installed: {', '.join(missing)}",
        )
    kept = io.BytesIO()
    with zipfile.ZipFile(kept, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    bucket.put(f"{PREFIX}{key}/theme.zip", kept.getvalue(), "application/zip")
    bucket.put(f"{PREFIX}{key}/config.json", json.dumps(theme_config).encode(), "application/json")
    theme_html.forget()  # this container renders the new templates at once (others within theme_html.TTL)
    return {"success": True}


def _users(key: str) -> list[str]:
    """`kind ids` of the emails and pages whose `template` names the theme (reads both kinds)."""
    named = {kind: [doc["id"] for doc in store.iterate(kind) if doc.get("template") == key] for kind in USERS}
    return [f"{kind}s {', '.join(map(str, ids))}" for kind, ids in named.items() if ids]


class InUse(DomainError):
    """A theme that emails or pages name is kept."""

    def __init__(self, key: str, users: Sequence[str]) -> None:
        message = f"The theme {key} is used by {' and '.join(users)}; change their template first."
        super().__init__(message, {"theme": [message]})


def delete(key: str) -> Doc:
    """Delete a theme (hide a built-in one): `{"success": true}`; NotFound, or InUse."""
    if key not in BUILT_IN and (not _valid(key) or bucket.head(f"{PREFIX}{key}/config.json") is None):
        raise NotFound(f"{key} not found!")
    users = _users(key)
    if users:
        raise InUse(key, users)
    if key in BUILT_IN:
        bucket.put(HIDDEN + key, b"", "text/plain")
    else:
        bucket.delete(f"{PREFIX}{key}/theme.zip")
        bucket.delete(f"{PREFIX}{key}/config.json")
        theme_html.forget()
    return {"success": True}
