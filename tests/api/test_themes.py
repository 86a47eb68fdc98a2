"""Themes: listed by key with their config, downloaded as a zip, uploaded as a multipart zip holding
config.json and the templates its features need (other files dropped), deleted unless an email or page
names it; the built-in theme cannot be overwritten and is hidden, not deleted."""

import io
import json
import zipfile

import pytest

from tests.api.payloads import assert_error
from tests.api.test_files_assets import multipart

MESSAGE = "html/message.html.twig"
ZIP = {"Accept": "application/zip"}  # what a client asks; any Accept gets the zip (test_binary_answers.py)


def theme_zip(files):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return data.getvalue()


def good(name="Mine", features=("email",)):
    files = {"config.json": json.dumps({"name": name, "features": list(features)}), MESSAGE: "m", "evil.php": "<?php"}
    files.update({f"html/{f}.html.twig": f for f in features})
    return theme_zip(files)


def download(api, key):
    """GET /themes/<key>, the body left as bytes."""
    return api.http.request("GET", f"/api/themes/{key}", headers=dict(api.auth, **ZIP), body=b"")


def upload(api, filename, data):
    body, headers = multipart(filename, data)
    return api.call("POST", "/api/themes/new", headers=headers, raw=body)


def test_upload_list_download_and_delete(api):
    response = upload(api, "my theme.zip", good())
    assert response.status_code == 200 and response.json == {"success": True}
    listed = api.get("/api/themes").json["themes"]
    assert listed["my-theme"] == {
        "name": "Mine",
        "key": "my-theme",
        "config": {"name": "Mine", "features": ["email"], "builder": ["legacy"]},
    }
    assert listed["blank"]["visibility"] == {"hidden": False}
    served = download(api, "my-theme")
    assert served.status_code == 200 and served.headers["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(served.body)).namelist()
    assert sorted(names) == ["config.json", "html/email.html.twig", MESSAGE]
    assert api.delete("/api/themes/my-theme/delete").json == {"success": True}
    assert "my-theme" not in api.get("/api/themes").json["themes"]
    assert_error(api.get("/api/themes/my-theme"), 404)
    assert_error(api.delete("/api/themes/my-theme/delete"), 404)


@pytest.mark.parametrize(
    "filename, data, message",
    [
        ("theme.tar", b"x", "extension"),
        ("theme.zip", b"not a zip", "valid zip"),
        ("theme.zip", theme_zip({MESSAGE: "m"}), "config.json"),
        ("theme.zip", theme_zip({"config.json": "{}", "html/email.html.twig": "e"}), MESSAGE),
        ("theme.zip", theme_zip({"config.json": '{"features": ["page"]}', MESSAGE: "m"}), "html/page.html.twig"),
        ("blank.zip", good(), "cannot be overwritten"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_stored(api, filename, data, message):
    response = upload(api, filename, data)
    assert_error(response, 400)
    assert message in response.json["errors"][0]["message"] and "file" in response.json["errors"][0]["details"]
    assert list(api.get("/api/themes").json["themes"]) == ["blank"]


def test_missing_file_part(api):
    response = api.call(
        "POST", "/api/themes/new", headers={"Content-Type": "application/x-www-form-urlencoded"}, raw=b"a=b"
    )
    assert_error(response, 400)


def test_a_theme_in_use_is_kept_and_the_built_in_is_hidden(api):
    upload(api, "used.zip", good(features=("email", "page")))
    email = api.post("/api/emails/new", {"name": "E", "subject": "S", "template": "used"}).json["email"]
    page = api.post("/api/pages/new", {"title": "P", "template": "used"}).json["page"]
    refused = api.delete("/api/themes/used/delete")
    assert_error(refused, 400)
    assert f"emails {email['id']}" in refused.json["errors"][0]["message"]
    api.patch(f"/api/emails/{email['id']}/edit", {"template": "blank"})
    api.patch(f"/api/pages/{page['id']}/edit", {"template": None})
    assert api.delete("/api/themes/used/delete").status_code == 200
    assert_error(api.delete("/api/themes/blank/delete"), 400)  # the email names it
    api.delete(f"/api/emails/{email['id']}/delete")
    assert api.delete("/api/themes/blank/delete").json == {"success": True}
    assert api.get("/api/themes").json["themes"]["blank"]["visibility"] == {"hidden": True}
    assert download(api, "blank").status_code == 200


def test_a_zip_that_unpacks_too_large_is_refused(api):
    from chalicelib.domain.views import themes

    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps({"name": "Bomb"}))
        archive.writestr(MESSAGE, "m")
        archive.writestr("html/padding.txt", b"\0" * (themes.unpacked_max() + 1))
    assert len(data.getvalue()) < 100_000
    response = upload(api, "bomb.zip", data.getvalue())
    assert response.status_code == 400 and "unpacks to more than" in response.json["errors"][0]["message"]
    assert "bomb" not in api.get("/api/themes").json["themes"]
