"""An asset's file: read through the source's public `downloadUrl` (Mautic's API gives neither the
file nor a remote asset's URL). A 302 (Mautic's `RedirectResponse`) is a remote asset, copied with
that URL; a 301 is Mautic's redirect to the canonical URL, followed; a file is uploaded here
(`/files/media/new`) and the copy points at it. The download counts as one on the source (Mautic
records it, possibly with an anonymous visitor)."""

from __future__ import annotations

import urllib.parse

from chalicelib.movein.payloads import Doc
from chalicelib.movein.run import Run, idempotency_key


class NoFile(Exception):
    """The asset's file cannot be read from the source (unpublished, or gone)."""


def with_file(run: Run, doc: Doc, payload: Doc) -> Doc:
    """`payload` with `storageLocation` and `file` of the copy; NoFile when the file is unreadable."""
    url = doc.get("downloadUrl")
    if not url:
        raise NoFile("the source gives no downloadUrl")
    status, location, body = run.source.download(str(url))
    for _ in range(3):  # Mautic's 301 to the asset's canonical URL (AssetBundle PublicController)
        if status != 301 or not location:
            break
        status, location, body = run.source.download(urllib.parse.urljoin(str(url), location))
    if status in (302, 303, 307, 308) and location:
        return dict(payload, storageLocation="remote", file=location)
    if status != 200:
        raise NoFile(f"its downloadUrl answered {status} (an unpublished asset cannot be downloaded)")
    if run.dry_run:
        return payload
    name = f"{doc.get('alias') or doc['id']}.{doc.get('extension') or 'bin'}"
    key = idempotency_key("file", doc["id"], doc.get("dateModified"), name)
    uploaded = run.target.upload("/files/media/new", name, body, key)
    return dict(payload, storageLocation="local", file=uploaded["file"]["name"])
