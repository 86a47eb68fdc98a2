"""Issue 34, binary answers whatever the Accept header: the tracking pixel, the email open pixel,
asset and file downloads and theme zips answer their bytes to a client that sends no Accept header
(Guzzle's default) or one naming no binary type, locally (chalice's rule dropped,
api/path_routing.py) and on AWS (the REST API declares every type binary, infra/compact.py)."""

import pytest

from infra import compact
from tests.api.test_email_send import make_contact, make_email
from tests.api.test_email_tracking import _send
from tests.api.test_files_assets import fetch, make_local_asset, upload
from tests.api.test_themes import good
from tests.api.test_themes import upload as upload_theme

ACCEPTS = ({}, {"Accept": "application/json"}, {"Accept": "text/html"})


@pytest.mark.parametrize("accept", ACCEPTS)
def test_binary_answers_whatever_the_accept_header_tracking_pixel(api, accept):
    pixel = fetch(api, "/mtracking.gif?page_url=https%3A%2F%2Fexample.com%2F", accept)
    assert pixel.status_code == 200 and pixel.headers["Content-Type"] == "image/gif"
    assert pixel.body.startswith(b"GIF89a")


def test_binary_answers_whatever_the_accept_header_email_open_pixel(api):
    tracking, _ = _send(api, make_contact(api), make_email(api))
    for accept in ACCEPTS:
        pixel = fetch(api, f"/email/{tracking}.gif", accept)
        assert pixel.status_code == 200 and pixel.body.startswith(b"GIF89a")


def test_binary_answers_whatever_the_accept_header_asset_and_file_downloads(api):
    asset, _ = make_local_asset(api, b"\x89PNG\x00\x01", "pic.png")
    image = upload(api, "images", "logo.png", b"\x89PNG fake").json["file"]["name"]
    for accept in ACCEPTS:
        served = fetch(api, f"/asset/{asset['id']}", accept)
        assert served.status_code == 200 and served.body == b"\x89PNG\x00\x01"
        served = fetch(api, f"/media/images/{image}", accept)
        assert served.status_code == 200 and served.body == b"\x89PNG fake"


def test_binary_answers_whatever_the_accept_header_theme_zip(api):
    assert upload_theme(api, "mine.zip", good()).status_code == 200
    key = next(k for k in api.get("/api/themes").json["themes"] if k != "blank")
    for accept in ACCEPTS:
        zipped = api.http.request("GET", f"/api/themes/{key}", headers=dict(api.auth, **accept), body=b"")
        assert zipped.status_code == 200 and zipped.body.startswith(b"PK")


def test_binary_answers_whatever_the_accept_header_in_the_template():
    template = {"Resources": {"RestAPI": {"Properties": {"DefinitionBody": {"paths": {}}}}}}
    body = compact.binary(template)["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]
    assert body["x-amazon-apigateway-binary-media-types"] == ["*/*"]


def test_json_answers_stay_json_without_an_accept_header(api):
    answer = api.get("/api/contacts")
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
    assert "isBase64Encoded" not in answer.json
