"""Assets: local (a file uploaded to the assets folder of the bucket) or remote (a URL); file facts,
public download URL, counted downloads, and the local file deleted with its asset."""

import posixpath
from urllib.parse import urlparse

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import files, registry, timeline
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import clickthrough
from chalicelib.domain.web import page_successes, public_docs
from chalicelib.domain.web.hits import Visit, record_hit
from chalicelib.domain.web.pages import scored
from chalicelib.store import port as store


class AssetHooks(AliasHooks):
    """Assets: an alias from the title, the facts of the file, its download URL, the local file removed with it."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The file's facts (extension, MIME type, size) when it changed; a local file must be uploaded first."""
        super().prepare(doc, write)
        if write.existing is not None and "file" not in write.payload:
            _keep_file(doc, write.existing, write.payload)
        location, name = doc.get("storageLocation") or "local", doc.get("file")
        if location not in ("local", "remote"):
            write.errors["storageLocation"] = ["This value should be one of: local, remote."]
            return
        if not name:
            write.errors.setdefault("file", ["File of the asset is required."])
            return
        doc["storageLocation"] = location
        unchanged = (
            write.existing and write.existing.get("file") == name and write.existing.get("storageLocation") == location
        )
        if unchanged:
            return
        if location == "remote":
            _remote_facts(doc, write)
        else:
            _local_facts(doc, write)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`downloadUrl`: the public download address."""
        out["downloadUrl"] = f"{ctx.base_url}/asset/{doc['id']}:{doc.get('alias')}"

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """A deleted local asset's file goes with it; downloads here see the change at once (`public_docs`)."""
        public_docs.forget("asset")
        if doc is None and existing is not None and existing.get("storageLocation") == "local" and existing.get("file"):
            files.delete_asset_file(existing["file"])


def _keep_file(doc: Doc, existing: Doc, payload: Doc) -> None:
    """An edit without `file` keeps the asset's file, as Mautic's AssetApiController requires one only of a
    new asset: a PUT of the asset as read (which never shows `file`) keeps it (issue 34)."""
    doc["file"] = existing.get("file")
    if "storageLocation" not in payload:
        doc["storageLocation"] = existing.get("storageLocation")
    for fact in ("extension", "mime", "size"):
        doc[fact] = existing.get(fact)


def _remote_facts(doc: Doc, write: Write) -> None:
    parts = urlparse(doc["file"])
    if parts.scheme not in ("http", "https") or not parts.netloc:
        # Mautic's field and words (`AssetApiControllerFunctionalTest::testCreateNewRemoteAssetWithVulnerableFile`)
        write.errors["remotePath"] = ["The remote should be a valid URL."]
        return
    doc.update(
        extension=files.extension_of(posixpath.basename(parts.path)) or None, mime=files.mime_of(parts.path), size=None
    )


def _local_facts(doc: Doc, write: Write) -> None:
    try:
        facts = files.asset_facts(doc["file"])
    except NotFound:
        facts = None
    if facts is None:
        write.errors["file"] = [
            f"The file '{doc['file']}' is not in the assets folder; upload it first with POST /api/files/assets/new."
        ]
        return
    doc.update(facts)


def _stored(key: str) -> Doc | None:
    head = str(key).split(":", 1)[0]
    asset_id = int(head) if a.digits(head) else store.lookup("asset", "alias", key)
    return store.get("asset", asset_id) if asset_id else None


def find(key: str) -> Doc:
    """The asset named by a download key: `<id>:<alias>`, `<id>` or `<alias>` (kept per container for
    `PUBLIC_DOC_SECONDS`, `public_docs`)."""
    asset = public_docs.read("asset", str(key), lambda: _stored(key))
    if asset is None:
        raise NotFound()
    return asset


def download(key: str, visit: Visit, ctx: Context) -> tuple[Doc, bytes | None]:
    """Count a download of a published asset (`asset.download` on the visitor's contact, scored), and
    for the A/B test of the email whose tracked link led here (`ct`, `clickthrough.py`) or of the
    landing page whose `{assetlink}` did (`page_successes.py`).
    Returns (asset, bytes or None for a remote asset)."""
    asset = find(key)
    if not is_published(asset, ctx.now):
        raise NotFound()
    data = None
    if asset.get("storageLocation") == "local":
        data = files.read_asset_file(asset["file"])[0]
    details = {
        "asset": {"id": asset["id"], "title": asset.get("title"), "alias": asset.get("alias")},
        "referer": visit.referer,
    }
    record_hit(
        visit,
        registry.resource("asset"),
        asset,
        ("downloadCount", "uniqueDownloadCount"),
        lambda doc: scored(
            doc, timeline.event("asset.download", asset.get("title"), details), "asset.download", asset["id"], ctx
        ),
        ctx,
    )
    if not clickthrough.count("download", visit.query.get("ct"), ctx):
        page_successes.count("download", page_successes.page_of(visit.query.get("ct"), ctx), visit.visitor, ctx)
    return asset, data
