"""Issues 32 and 34, form file uploads end to end: a `file` field rendered in a multipart form, the public
submission taking `mauticform[<alias>]` file parts (Mautic's extension and size checks and messages,
nothing stored on refusal), the file kept in the bucket under its form and submission, the result holding
the stored name as Mautic's; the download through the API for a caller who may view the form and the
submission's contact, binary whatever the Accept header."""

import pytest

from chalicelib import config
from tests import installed
from tests.api.test_permissions import FORBIDDEN, _as

BOUNDARY = "----formuploadboundary"
PDF = b"%PDF-1.4 a small document \x00\xff"
ACCEPTS = ({}, {"Accept": "application/json"}, {"Accept": "text/html"})
FIELDS = [
    {"label": "Email", "alias": "email", "type": "email", "mappedObject": "contact", "mappedField": "email"},
    {
        "label": "CV",
        "alias": "cv",
        "type": "file",
        "properties": {"allowed_file_extensions": ["pdf", "txt"], "allowed_file_size": "1"},
    },
]


def make_form(api, fields=None):
    response = api.post("/api/forms/new", {"name": "Jobs", "fields": fields or FIELDS})
    assert response.status_code == 201, response.json
    return response.json["form"]


def multipart(form_id, values, files):
    """A browser's multipart post of `values` and `files` ({alias: (filename, bytes)})."""
    chunks = []
    for alias, value in dict(values, formId=str(form_id)).items():
        chunks.append(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="mauticform[{alias}]"\r\n\r\n{value}\r\n'.encode()
        )
    for alias, (filename, data) in files.items():
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="mauticform[{alias}]"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        )
        chunks.append(head.encode() + data + b"\r\n")
    return b"".join(chunks) + f"--{BOUNDARY}--\r\n".encode()


def submit(api, form_id, values, files, query="&ajax=true"):
    headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    body = multipart(form_id, values, files)
    return api.call("POST", f"/form/submit?formId={form_id}{query}", headers=headers, raw=body, auth=False)


def download(client, path, headers=None):
    """An authenticated GET, the body left as bytes."""
    return client.http.request("GET", path, headers=dict(client.auth, **(headers or {})), body=b"")


def bucket_keys(prefix="form/"):
    return installed.bucket_keys(prefix)


def bucket_bytes(key):
    return installed.bucket_bytes(key)


def test_a_file_field_is_rendered_in_a_multipart_form(api):
    html = make_form(api)["cachedHtml"]
    assert 'enctype="multipart/form-data"' in html
    assert (
        '<input type="file" id="mauticform_input_jobs_cv" name="mauticform[cv]" class="mauticform-input"'
        ' accept=".pdf,.txt">' in html
    )


def test_a_file_upload_is_stored_under_its_form_and_submission_and_its_name_is_the_result(api):
    form = make_form(api)
    response = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("My CV (final).PDF", PDF)})
    assert response.status_code == 200, response.body
    submission_id = response.json["submissionId"]
    assert response.json["results"] == {"email": "ann@example.com", "cv": "my_cv_final.PDF"}
    field_id = next(f["id"] for f in form["fields"] if f["alias"] == "cv")
    key = f"form/{form['id']}/{submission_id}/{field_id}/my_cv_final.PDF"
    assert bucket_keys() == [key] and bucket_bytes(key) == PDF
    shown = api.get(f"/api/forms/{form['id']}/submissions/{submission_id}").json["submission"]
    assert shown["results"] == {"email": "ann@example.com", "cv": "my_cv_final.PDF"}  # Mautic's: the stored name
    assert "files" not in shown
    listed = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert listed[0]["results"]["cv"] == "my_cv_final.PDF"


def test_a_refused_extension_or_size_answers_mautics_messages_and_stores_nothing(api, configure):
    form = make_form(api)
    wrong = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("run.exe", b"MZ")})
    assert wrong.status_code == 400
    assert wrong.json["errors"][0]["details"] == {
        "cv": ["Upload failed as the file extension, exe, is not in the list of allowed extensions (pdf, txt)."]
    }
    big = b"x" * (3 * 1_048_576 // 2)
    too_big = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("big.pdf", big)})
    assert too_big.json["errors"][0]["details"] == {
        "cv": ["Upload failed as the file is 1.5 MB which exceeds the maximum allowed file size of 1 MB."]
    }
    both = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("big.zip", big)})
    assert both.json["errors"][0]["details"]["cv"][0].count("<br />") == 1
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0
    assert int(api.get("/api/contacts").json["total"]) == 0 and bucket_keys() == []
    configure(UPLOAD_MAX_BYTES=1000)  # the request's bound beats the field's
    capped = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", b"x" * 2000)})
    assert "maximum allowed file size of 0 MB" in capped.json["errors"][0]["details"]["cv"][0]


def test_a_required_file_field_without_a_file_is_refused(api):
    fields = [dict(FIELDS[0]), dict(FIELDS[1], isRequired=True)]
    form = make_form(api, fields)
    response = submit(api, form["id"], {"email": "ann@example.com"}, {})
    assert response.status_code == 400 and response.json["errors"][0]["details"] == {"cv": ["'CV' is required."]}
    optional = make_form(api)
    answer = submit(api, optional["id"], {"email": "bob@example.com"}, {}).json
    assert answer["results"] == {"email": "bob@example.com", "cv": ""} and bucket_keys() == []


def test_a_submission_refused_after_its_upload_keeps_no_file(api, monkeypatch, configure):
    from chalicelib.store import port as entities

    configure(CONFLICT_RETRY_SECONDS=0.2)  # the 409 after the retry budget, without waiting out 5 s
    form = make_form(api)

    def failing(*args, **kwargs):
        raise entities.Stale("contact")

    monkeypatch.setattr(entities, "create", failing)
    response = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", PDF)})
    assert response.status_code == 409
    monkeypatch.undo()
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0 and bucket_keys() == []


def test_a_file_fields_limits_are_checked_when_the_form_is_saved(api):
    limits = {"allowed_file_extensions": "pdf, php", "allowed_file_size": 9}
    bad = [{"label": "CV", "type": "file", "properties": limits}]
    response = api.post("/api/forms/new", {"name": "Bad", "fields": bad})
    assert response.status_code == 400
    details = response.json["errors"][0]["details"]
    assert details["fields[0][properties][allowed_file_extensions]"] == [
        'File extension contains an illegal extension: "php".'
    ]
    assert details["fields[0][properties][allowed_file_size]"] == ["This value should be less than or equal to 4."]
    assert int(api.get("/api/forms").json["total"]) == 0


def test_a_file_field_mapped_to_a_contact_field_fills_it_with_the_download_link(api):
    fields = [dict(FIELDS[0]), dict(FIELDS[1], mappedObject="contact", mappedField="website")]
    form = make_form(api, fields)
    response = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", PDF)})
    submission_id = response.json["submissionId"]
    contact = api.get("/api/contacts?search=email:ann@example.com").json["contacts"]
    (found,) = contact.values()
    assert found["fields"]["all"]["website"].endswith(f"/api/forms/{form['id']}/submissions/{submission_id}/files/cv")


def _uploaded(api, email="ann@example.com", data=PDF, filename="cv.pdf"):
    form = make_form(api)
    response = submit(api, form["id"], {"email": email}, {"cv": (filename, data)})
    assert response.status_code == 200, response.body
    return form, response.json["submissionId"]


@pytest.mark.parametrize("accept", ACCEPTS)
def test_binary_answers_whatever_the_accept_header_form_upload_download(api, accept):
    form, submission_id = _uploaded(api)
    path = f"/api/forms/{form['id']}/submissions/{submission_id}/files/cv"
    served = download(api, path, accept)
    assert served.status_code == 200 and served.body == PDF
    assert served.headers["Content-Type"] == "application/pdf"
    assert served.headers["Content-Disposition"] == "attachment; filename*=UTF-8''cv.pdf"
    assert served.headers["X-Content-Type-Options"] == "nosniff"


def test_a_text_upload_downloads_as_text_and_unknown_fields_or_submissions_are_404(api):
    form, submission_id = _uploaded(api, data="naïve résumé\n".encode(), filename="notes.txt")
    base = f"/api/forms/{form['id']}/submissions"
    served = download(api, f"{base}/{submission_id}/files/cv")
    assert served.status_code == 200 and served.body.decode() == "naïve résumé\n"
    assert served.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert api.get(f"{base}/{submission_id}/files/email").status_code == 404
    assert api.get(f"{base}/999/files/cv").status_code == 404
    assert api.get(f"/api/forms/999/submissions/{submission_id}/files/cv").status_code == 404


def test_a_limited_user_downloads_files_only_of_contacts_she_may_view(api):
    form, theirs = _uploaded(api, data=b"%PDF their secret")
    dora = _as(api, "dora", {"form:forms": ["viewother"], "lead:leads": ["viewown", "create"]})
    refused = dora.get(f"/api/forms/{form['id']}/submissions/{theirs}/files/cv")
    assert refused.status_code == 403 and refused.json["errors"][0]["message"] == FORBIDDEN
    assert b"secret" not in refused.body and b"cv.pdf" not in refused.body
    mine = dora.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    own = submit(api, form["id"], {"email": "mine@example.com"}, {"cv": ("mine.pdf", b"%PDF mine")})
    assert own.status_code == 200
    downloaded = download(dora, f"/api/forms/{form['id']}/submissions/{own.json['submissionId']}/files/cv")
    assert downloaded.status_code == 200 and downloaded.body == b"%PDF mine" and mine["id"]
    nora = _as(api, "nora", {"lead:leads": ["viewother"]})  # may view the contact, not the form
    assert nora.get(f"/api/forms/{form['id']}/submissions/{theirs}/files/cv").status_code == 403


def _aws_calls():
    """Count every AWS call by (service, operation) while in the block (the authorizer's included)."""
    from collections import Counter
    from contextlib import contextmanager
    from unittest import mock

    import botocore.client

    original = botocore.client.BaseClient._make_api_call

    @contextmanager
    def counting():
        calls = Counter()

        def count(self, operation, params):
            calls[(self.meta.service_model.service_name, operation)] += 1
            return original(self, operation, params)

        with mock.patch.object(botocore.client.BaseClient, "_make_api_call", count):
            yield calls

    return counting()


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_file_costs_one_s3_put_and_no_dynamodb_call_and_its_download_one_get(api):
    form = make_form(api)
    submit(api, form["id"], {"email": "warm@example.com"}, {})  # the cached kinds warm
    with _aws_calls() as without_file:
        submit(api, form["id"], {"email": "ann@example.com"}, {})
    with _aws_calls() as with_file:
        response = submit(api, form["id"], {"email": "bob@example.com"}, {"cv": ("cv.pdf", PDF)})
    dynamodb = lambda calls: sum(n for (service, _), n in calls.items() if service == "dynamodb")  # noqa: E731
    assert dynamodb(with_file) == dynamodb(without_file)
    assert {k: n for k, n in with_file.items() if k[0] == "s3"} == {("s3", "PutObject"): 1}
    path = f"/api/forms/{form['id']}/submissions/{response.json['submissionId']}/files/cv"
    from tests.bench.conftest import dynamodb_calls

    with dynamodb_calls() as function_calls, _aws_calls() as fetched:  # DynamoDB: the function's, not the authorizer's
        assert download(api, path).status_code == 200
    assert {k: n for k, n in fetched.items() if k[0] == "s3"} == {("s3", "GetObject"): 1}
    assert dict(function_calls) == {"GetItem": 4}  # the versions item; form, submission, contact


def test_a_file_fields_token_in_a_form_email_is_the_download_link(api, drain):
    from tests.api.test_email_send import parts, sent_messages

    action = {
        "name": "Notify",
        "type": "form.email",
        "properties": {"to": "hr@example.com", "subject": "CV", "message": "<p>CV: {formfield=cv}</p>"},
    }
    response = api.post("/api/forms/new", {"name": "Jobs", "fields": FIELDS, "actions": [action]})
    form = response.json["form"]
    answer = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", PDF)})
    drain()
    (message,) = sent_messages()
    link = f"/api/forms/{form['id']}/submissions/{answer.json['submissionId']}/files/cv</p>"
    assert link in parts(message)[1]


def test_s3_unavailable_answers_503_and_keeps_no_file_nor_submission(api, monkeypatch):
    from botocore.exceptions import ClientError

    from chalicelib.ports import files as bucket

    fields = FIELDS + [{"label": "Photo", "alias": "photo", "type": "file"}]
    form = make_form(api, fields)
    put = bucket.put

    def second_fails(key, data, content_type):
        if "photo" in key or key.endswith(".png"):
            raise ClientError({"Error": {"Code": "SlowDown"}, "ResponseMetadata": {"HTTPStatusCode": 503}}, "PutObject")
        put(key, data, content_type)

    monkeypatch.setattr(bucket, "put", second_fails)
    files = {"cv": ("cv.pdf", PDF), "photo": ("me.png", b"\x89PNG")}
    response = submit(api, form["id"], {"email": "ann@example.com"}, files)
    assert response.status_code == 503 and response.headers["Retry-After"] == str(config.active().RETRY_AFTER_SECONDS)
    assert bucket_keys() == []  # the first file, stored, was removed again
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0
    assert int(api.get("/api/contacts").json["total"]) == 0


@pytest.fixture
def versioned(aws):
    """The files bucket versioned, as the stack's is (infra/resources.json): a delete only hides an object."""
    import boto3

    s3 = boto3.client("s3", region_name=config.active().AWS_REGION)
    s3.put_bucket_versioning(Bucket=config.active().FILES_BUCKET, VersioningConfiguration={"Status": "Enabled"})
    yield s3
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=config.active().FILES_BUCKET):
        for entry in (page.get("Versions") or []) + (page.get("DeleteMarkers") or []):
            s3.delete_object(Bucket=config.active().FILES_BUCKET, Key=entry["Key"], VersionId=entry["VersionId"])
    s3.put_bucket_versioning(Bucket=config.active().FILES_BUCKET, VersioningConfiguration={"Status": "Suspended"})


def _all_versions(s3):
    pages = s3.get_paginator("list_object_versions").paginate(Bucket=config.active().FILES_BUCKET, Prefix="form/")
    return sorted(e["Key"] for page in pages for e in (page.get("Versions") or []) + (page.get("DeleteMarkers") or []))


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_erasure_deletes_the_contacts_uploads_from_the_bucket_resumably(api, drain, monkeypatch, versioned):
    from chalicelib.domain.contacts import erasure
    from chalicelib.ports import files as bucket
    from chalicelib.store import port as entities

    form, theirs = _uploaded(api, email="erin@example.com", data=b"%PDF erin's passport")
    _, kept = _uploaded(api, email="other@example.com", data=b"%PDF another person's")
    (cid,) = [c["id"] for c in api.get("/api/contacts?search=email:erin@example.com").json["contacts"].values()]
    other_key = [k for k in bucket_keys() if k.split("/")[2] == str(kept)]
    assert api.delete(f"/api/contacts/{cid}/delete").status_code == 200
    [job] = list(entities.iterate("erasure"))
    purge, calls = bucket.purge, []

    def cut_short(key):  # the worker stops inside the step: the message is delivered again
        calls.append(key)
        raise RuntimeError("the function timed out")

    monkeypatch.setattr(bucket, "purge", cut_short)
    with pytest.raises(RuntimeError):
        erasure.run(job["id"])
    assert len(calls) == 1 and len(bucket_keys()) == 2  # nothing deleted yet
    monkeypatch.setattr(bucket, "purge", purge)
    drain()  # the job resumes from the step that did not finish
    assert list(entities.iterate("erasure")) == []
    assert bucket_keys() == other_key  # the bucket holds nothing of the erased contact
    assert not any(b"erin" in bucket_bytes(key) for key in bucket_keys())
    assert _all_versions(versioned) == other_key  # no earlier version of it kept either
    stored = entities.get(f"submission#{form['id']}", theirs)
    assert stored["files"] == {} and stored["results"] == {} and stored["contactId"] is None
    gone = download(api, f"/api/forms/{form['id']}/submissions/{theirs}/files/cv")
    assert gone.status_code == 404


def test_mautics_public_address_serves_only_a_public_fields_files(api):
    fields = [dict(FIELDS[0]), dict(FIELDS[1], properties=dict(FIELDS[1]["properties"], public=True))]
    public_form = make_form(api, fields)
    shown = submit(api, public_form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", PDF)}).json["submissionId"]
    private_form, hidden = _uploaded(api, email="bob@example.com", data=b"%PDF bob's secret")
    for accept in ACCEPTS:
        served = api.http.request("GET", f"/forms/results/file/{shown}/cv", headers=accept, body=b"")
        assert served.status_code == 200 and served.body == PDF
        assert served.headers["Content-Disposition"] == "attachment; filename*=UTF-8''cv.pdf"
    refused = api.http.request("GET", f"/forms/results/file/{hidden}/cv", headers={}, body=b"")
    assert refused.status_code == 403 and b"secret" not in refused.body and b"cv.pdf" not in refused.body
    for path in (f"/forms/results/file/{shown}/email", "/forms/results/file/999/cv", "/forms/results/file/x/cv"):
        assert api.http.request("GET", path, headers={}, body=b"").status_code == 404


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_public_address_costs_three_reads_and_one_s3_get(api):
    from tests.bench.conftest import dynamodb_calls

    fields = [dict(FIELDS[0]), dict(FIELDS[1], properties={"public": "1"})]
    form = make_form(api, fields)
    shown = submit(api, form["id"], {"email": "ann@example.com"}, {"cv": ("cv.pdf", PDF)}).json["submissionId"]
    with dynamodb_calls() as calls, _aws_calls() as s3:
        assert api.http.request("GET", f"/forms/results/file/{shown}/cv", headers={}, body=b"").status_code == 200
    assert dict(calls) == {"GetItem": 3} and s3[("s3", "GetObject")] == 1


TWO_FILES = FIELDS + [
    {"label": "Photo", "alias": "photo", "type": "file", "properties": {"allowed_file_extensions": ["jpg"]}}
]


def _purge_jobs():
    from chalicelib.store import port as entities

    return list(entities.iterate("uploadpurge"))


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_deleting_a_form_purges_every_version_of_its_uploads(api, drain, versioned):
    from chalicelib.store import port as entities

    form, first = _uploaded(api, data=b"%PDF first")
    second = submit(api, form["id"], {"email": "bo@example.com"}, {"cv": ("cv.pdf", b"%PDF second")}).json
    other, kept = _uploaded(api, email="cy@example.com")
    theirs = [k for k in bucket_keys() if k.startswith(f"form/{other['id']}/")]
    assert len(bucket_keys(f"form/{form['id']}/")) == 2
    from tests.bench.conftest import dynamodb_calls

    with dynamodb_calls() as deleting:
        assert api.delete(f"/api/forms/{form['id']}/delete").status_code == 200
    assert len(_purge_jobs()) == 1  # written with the delete, queued after it
    assert dict(deleting) == {"GetItem": 2, "UpdateItem": 1, "TransactWriteItems": 1}  # versions item, form
    with dynamodb_calls() as job, _aws_calls() as aws:
        drain()
    # the job (GetItem), its place (UpdateItem), the submissions (1 Query; per submission 1 UpdateItem and 1
    # DeleteItem of its `submissionfiles` item), the job deleted; S3: one page of versions listed and deleted
    assert dict(job) == {"GetItem": 1, "UpdateItem": 3, "Query": 1, "DeleteItem": 3}
    assert {k[1]: n for k, n in aws.items() if k[0] == "s3"} == {"ListObjectVersions": 1, "DeleteObjects": 1}
    assert _all_versions(versioned) == theirs  # nothing of the deleted form's files, no earlier version
    assert _purge_jobs() == []
    for submission_id in (first, second["submissionId"]):
        stored = entities.get(f"submission#{form['id']}", submission_id)
        assert stored["files"] == {} and "cv" not in stored["results"] and stored["results"]["email"]
        assert entities.get("submissionfiles", submission_id) is None
    assert download(api, f"/api/forms/{other['id']}/submissions/{kept}/files/cv").status_code == 200


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_removing_a_file_field_purges_only_its_files_resumably(api, drain, versioned, monkeypatch):
    from chalicelib.domain.web import upload_purge

    form = make_form(api, TWO_FILES)
    ids = []
    for n in range(3):
        files = {"cv": (f"cv{n}.pdf", PDF), "photo": (f"me{n}.jpg", b"\xff\xd8 photo")}
        ids.append(submit(api, form["id"], {"email": f"p{n}@example.com"}, files).json["submissionId"])
    fields = {f["alias"]: f["id"] for f in form["fields"]}
    photos = [k for k in bucket_keys() if k.split("/")[3] == str(fields["photo"])]
    ticks = iter(range(0, 10_000, 100))  # every reading of the clock is past the budget: one submission a delivery
    monkeypatch.setattr(upload_purge, "TIMER", lambda: next(ticks))
    monkeypatch.setattr(upload_purge, "PAGE", 1)
    removed = api.delete(f"/api/forms/{form['id']}/fields/delete?fields[]={fields['cv']}")
    assert removed.status_code == 200 and [f["alias"] for f in removed.json["form"]["fields"]] == ["email", "photo"]
    drain()
    assert _all_versions(versioned) == photos and len(photos) == 3
    assert _purge_jobs() == []
    base = f"/api/forms/{form['id']}/submissions"
    for submission_id in ids:
        results = api.get(f"{base}/{submission_id}").json["submission"]["results"]
        assert "cv" not in results and results["photo"].endswith(".jpg")
        assert download(api, f"{base}/{submission_id}/files/photo").status_code == 200
        assert api.get(f"{base}/{submission_id}/files/cv").status_code == 404
    assert api.patch(f"/api/forms/{form['id']}/edit", {"name": "Renamed"}).status_code == 200
    assert _purge_jobs() == []  # an edit that removes no file field purges nothing


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_limited_user_cannot_purge_the_uploads_of_anothers_form(api, drain, versioned):
    form, submission_id = _uploaded(api, data=b"%PDF theirs")
    dora = _as(api, "dora", {"form:forms": ["viewother", "editown", "deleteown", "create", "publishown"]})
    field = [f["id"] for f in form["fields"] if f["alias"] == "cv"][0]
    assert dora.delete(f"/api/forms/{form['id']}/delete").status_code == 403
    assert dora.delete(f"/api/forms/{form['id']}/fields/delete?fields[]={field}").status_code == 403
    assert dora.put(f"/api/forms/{form['id']}/edit", {"name": "Jobs", "fields": []}).status_code == 403
    drain()
    assert _purge_jobs() == [] and len(bucket_keys(f"form/{form['id']}/")) == 1
    assert download(api, f"/api/forms/{form['id']}/submissions/{submission_id}/files/cv").body == b"%PDF theirs"
    mine = dora.post("/api/forms/new", {"name": "Mine", "fields": FIELDS, "isPublished": True}).json["form"]
    own = submit(api, mine["id"], {"email": "d@example.com"}, {"cv": ("cv.pdf", PDF)})
    assert own.status_code == 200 and dora.delete(f"/api/forms/{mine['id']}/delete").status_code == 200
    drain()
    assert bucket_keys(f"form/{mine['id']}/") == [] and len(bucket_keys(f"form/{form['id']}/")) == 1
