"""Issue 9, files and assets: uploads to the S3 bucket (random names, allowed extensions, size limit),
listing and deleting files, local and remote assets, counted public downloads, file deleted with its asset."""

import json

import pytest

from tests.conftest import visitor_cookie

BOUNDARY = "----issue9boundary"


def multipart(filename, data, field="file", content_type="application/octet-stream"):
    body = (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )
    return body, {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


def upload(api, directory, filename, data, query=""):
    body, headers = multipart(filename, data)
    return api.call("POST", f"/api/files/{directory}/new{query}", headers=headers, raw=body)


def test_image_upload_list_serve_and_delete(api):
    response = upload(api, "images", "logo.png", b"\x89PNG fake")
    assert response.status_code == 200, response.json
    record = response.json["file"]
    assert record["name"].endswith(".png") and record["name"] != "logo.png" and len(record["name"]) == 36
    assert record["link"].endswith(f"/media/images/{record['name']}")
    assert api.get("/api/files/images").json == {"files": {"2": record["name"]}}
    served = fetch(api, f"/media/images/{record['name']}", {"Accept": "*/*"})
    assert served.status_code == 200 and served.headers["Content-Type"] == "image/png"
    deleted = api.delete(f"/api/files/images/{record['name']}/delete")
    assert deleted.json == {"success": True}
    assert api.get("/api/files/images").json == {"files": {}}
    missing = api.delete(f"/api/files/images/{record['name']}/delete")
    assert missing.status_code == 404 and missing.json["errors"][0]["message"] == "File does not exist"


def test_subdirectories_of_images(api):
    name = upload(api, "images", "flag.gif", b"GIF89a", "?subdir=flags").json["file"]["name"]
    assert api.get("/api/files/images").json == {"files": {"2": "flags"}}
    assert api.get("/api/files/images?subdir=flags").json == {"files": {"2": name}}
    assert api.get("/api/files/images.flags").json == {"files": {"2": name}}
    assert api.get("/api/files/images?subdir=../x").status_code == 406


def test_assets_folder_has_two_names_and_no_subdirectories(api):
    record = upload(api, "media", "guide.pdf", b"%PDF-1.4").json["file"]
    assert "link" not in record
    assert api.get("/api/files/assets").json == {"files": {"2": record["name"]}}
    assert api.get("/api/files/assets?subdir=x").status_code == 406


@pytest.mark.parametrize("filename", ["run.exe", "script.php", "page.html", "x.svg", "noext"])
def test_refused_extensions(api, filename):
    response = upload(api, "images", filename, b"data")
    assert response.status_code == 406 and "file" in response.json["errors"][0]["details"]
    assert "not allowed" in response.json["errors"][0]["message"]


def test_unknown_folder_missing_file_and_size_limit(api, configure):
    response = upload(api, "videos", "a.png", b"x")
    assert response.status_code == 406
    assert response.json["errors"][0]["message"] == "videos not found. Only media or images options are possible."
    empty = api.call(
        "POST", "/api/files/images/new", headers={"Content-Type": "application/x-www-form-urlencoded"}, raw=b"a=1"
    )
    assert empty.status_code == 406
    configure(UPLOAD_MAX_BYTES=10)
    assert upload(api, "images", "big.png", b"x" * 11).status_code == 406
    assert api.get("/api/files/images").json == {"files": {}}


def fetch(api, path, headers=None):
    """A public GET, the body left as bytes."""
    return api.http.request("GET", path, headers=headers or {}, body=b"")


def make_local_asset(api, data=b"hello asset", filename="notes.txt"):
    name = upload(api, "assets", filename, data).json["file"]["name"]
    response = api.post("/api/assets/new", {"title": "Notes", "storageLocation": "local", "file": name})
    assert response.status_code == 201, response.json
    return response.json["asset"], name


def test_local_asset_facts_download_counting_and_timeline(api, source_ip):
    asset, _ = make_local_asset(api)
    assert (asset["extension"], asset["mime"], asset["size"]) == ("txt", "text/plain", 11)
    assert asset["downloadUrl"].endswith(f"/asset/{asset['id']}:notes")
    contact = api.post("/api/contacts/new", {"email": "dl@example.com"}).json["contact"]
    api.post(
        "/api/points/new",
        {"name": "Downloads", "type": "asset.download", "delta": 2, "properties": {"assets": [asset["id"]]}},
    )
    path = f"/asset/{asset['id']}:notes"
    first = fetch(api, path, {"Cookie": visitor_cookie(contact["id"])})
    assert first.status_code == 200 and first.body == b"hello asset"
    assert first.headers["Content-Disposition"].startswith("attachment")
    fetch(api, path, {"Cookie": visitor_cookie(contact["id"])})
    source_ip("10.0.0.9")
    fetch(api, f"/asset/{asset['id']}")
    counted = api.get(f"/api/assets/{asset['id']}").json["asset"]
    assert counted["downloadCount"] == 3 and counted["uniqueDownloadCount"] == 2
    assert counted["dateModified"] is None
    person = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert person["points"] == 2
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    downloads = [e for e in events if e["event"] == "asset.download"]
    assert len(downloads) == 2 and downloads[0]["details"]["asset"]["id"] == asset["id"]


def test_binary_asset_is_served_as_binary(api):
    asset, _ = make_local_asset(api, b"\x89PNG\x00\x01", "pic.png")
    served = fetch(api, f"/asset/{asset['id']}", {"Accept": "*/*"})
    assert served.status_code == 200 and served.body == b"\x89PNG\x00\x01"
    assert served.headers["Content-Type"] == "image/png"


def test_remote_asset_redirects_and_counts(api):
    response = api.post(
        "/api/assets/new",
        {"title": "Remote", "storageLocation": "remote", "file": "https://cdn.example/files/guide.pdf"},
    )
    asset = response.json["asset"]
    assert (asset["extension"], asset["mime"]) == ("pdf", "application/pdf")
    served = fetch(api, f"/asset/{asset['id']}:remote")
    assert served.status_code == 302 and served.headers["Location"] == "https://cdn.example/files/guide.pdf"
    assert api.get(f"/api/assets/{asset['id']}").json["asset"]["downloadCount"] == 1


def test_asset_validation(api):
    missing = api.post("/api/assets/new", {"title": "X", "storageLocation": "local", "file": "nope.pdf"})
    assert missing.status_code == 400 and "file" in missing.json["errors"][0]["details"]
    assert api.post("/api/assets/new", {"title": "X"}).json["errors"][0]["details"]["file"] == [
        "File of the asset is required."
    ]
    bad = api.post("/api/assets/new", {"title": "X", "storageLocation": "cloud", "file": "a.pdf"})
    assert "storageLocation" in bad.json["errors"][0]["details"]
    assert int(api.get("/api/assets").json["total"]) == 0


def test_deleting_a_local_asset_deletes_its_file(api):
    asset, name = make_local_asset(api)
    assert api.get("/api/files/assets").json["files"] == {"2": name}
    assert api.delete(f"/api/assets/{asset['id']}/delete").status_code == 200
    assert api.get("/api/files/assets").json["files"] == {}
    assert fetch(api, f"/asset/{asset['id']}").status_code == 404


def test_unpublished_or_unknown_asset_is_404(api):
    asset, _ = make_local_asset(api)
    api.patch(f"/api/assets/{asset['id']}/edit", {"isPublished": False})
    assert fetch(api, f"/asset/{asset['id']}").status_code == 404
    assert json.loads(fetch(api, "/asset/999").body)["errors"][0]["code"] == 404
