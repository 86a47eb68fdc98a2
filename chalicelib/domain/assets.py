"""Assets: local (a file in the files bucket) or remote (a URL); file facts and public URL."""
import mimetypes
import posixpath
from urllib.parse import urlparse

from chalicelib.domain.aliases import AliasHooks


class AssetHooks(AliasHooks):
    def prepare(self, resource, doc, write):
        super().prepare(resource, doc, write)
        location, name = doc.get("storageLocation") or "local", doc.get("file")
        if location not in ("local", "remote"):
            write.errors["storageLocation"] = ["This value should be one of: local, remote."]
        if not name:
            write.errors.setdefault("file", ["File of the asset is required."])
            return
        if location == "remote" and urlparse(name).scheme not in ("http", "https"):
            write.errors["file"] = ["A remote asset needs an http or https URL."]
        path = urlparse(name).path if location == "remote" else name
        doc["storageLocation"] = location
        doc["extension"] = posixpath.splitext(path)[1].lstrip(".").lower() or None
        doc["mime"] = mimetypes.guess_type(path)[0] or "application/octet-stream"

    def present(self, resource, doc, out, ctx):
        out["downloadUrl"] = f"{ctx.base_url}/asset/{doc['id']}:{doc.get('alias')}"
