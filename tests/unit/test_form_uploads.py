"""Issue 34, form file uploads: the rules of `domain/web/form_uploads.py` as Mautic's FormBundle has them
(stored names, extension and size checks with their messages, the limits checked when a form is saved)."""

import mimetypes

from chalicelib.domain.web import form_uploads

FIELD = {"id": 7, "alias": "cv", "type": "file", "properties": {"allowed_file_extensions": ["pdf", "TXT"]}}


def test_the_stored_name_is_mautics_sanitised_client_name():
    assert form_uploads.stored_name("My CV (final).PDF") == "my_cv_final.PDF"
    assert form_uploads.stored_name("C:\\Users\\ann\\résumé 2.pdf") == "rsum_2.pdf"
    assert form_uploads.stored_name("../../etc/passwd") == "passwd"
    assert form_uploads.stored_name("ü.pdf") == "file.pdf"


def test_the_extension_is_checked_case_insensitively_with_mautics_message():
    pending, message = form_uploads.check(FIELD, ("notes.txt", "text/plain", b"hi"))
    assert message is None and pending is not None and pending.name == "notes.txt"
    assert form_uploads.check(FIELD, ("a.Pdf", "application/pdf", b"%PDF"))[1] is None
    _, message = form_uploads.check(FIELD, ("a.php", "text/plain", b"<?php"))
    assert message == "Upload failed as the file extension, php, is not in the list of allowed extensions (pdf, TXT)."


def test_the_size_is_the_fields_megabytes_bounded_by_the_request_limit(configure):
    field = dict(FIELD, properties={"allowed_file_size": "0.5"})
    assert form_uploads.max_bytes(field) == 524_288
    _, message = form_uploads.check(field, ("a.pdf", "", b"x" * 786_432))
    assert message == "Upload failed as the file is 0.75 MB which exceeds the maximum allowed file size of 0.5 MB."
    configure(UPLOAD_MAX_BYTES=1_048_576)
    assert form_uploads.max_bytes(dict(FIELD, properties={})) == 1_048_576  # no size: the request's bound
    assert form_uploads.max_bytes(dict(FIELD, properties={"allowed_file_size": 3})) == 1_048_576


def test_no_file_sent_is_no_upload_and_no_error():
    assert form_uploads.check(FIELD, None) == (None, None)
    assert form_uploads.check(FIELD, ("", "application/octet-stream", b"")) == (None, None)


def test_a_fields_default_extensions_are_the_services_allow_list():
    assert form_uploads.extensions({"type": "file"}) == list(form_uploads.files.ALLOWED_EXTENSIONS)
    assert form_uploads.extensions({"properties": {"allowed_file_extensions": "gif, .jpg"}}) == ["gif", "jpg"]


def test_a_saved_field_may_not_allow_php_or_sh_nor_a_size_a_request_cannot_carry():
    errors = form_uploads.field_errors(
        {"properties": {"allowed_file_extensions": ["pdf", "sh"], "allowed_file_size": 5}}
    )
    assert errors == {
        "allowed_file_extensions": 'File extension contains an illegal extension: "sh".',
        "allowed_file_size": "This value should be less than or equal to 4.",
    }
    assert form_uploads.field_errors({"properties": {"allowed_file_size": "2"}}) == {}
    assert "allowed_file_size" in form_uploads.field_errors({"properties": {"allowed_file_size": "big"}})


def test_uploads_are_the_file_parts_named_by_field_alias():
    parts = {"mauticform[cv]": ("a.pdf", "", b"1"), "file": ("b.pdf", "", b"2"), "mauticform[a][b]": ("c", "", b"")}
    assert form_uploads.uploads_of(parts) == {"cv": ("a.pdf", "", b"1")}
    assert form_uploads.key(3, 41, 7, "a.pdf") == "form/3/41/7/a.pdf"


def test_an_uploads_type_is_the_tables_and_what_the_hosts_mime_types_say():
    """The fixed table (no import reads /etc/mime.types) gives the types mimetypes gives where the host
    knows the extension; other names still go to mimetypes."""
    for extension, mime in form_uploads.files.UPLOAD_TYPES.items():
        assert form_uploads.files.mime_of(f"CV.{extension.upper()}") == mime
        guessed = mimetypes.guess_type(f"file.{extension}")[0]
        assert guessed in (None, mime), extension
    assert form_uploads.files.mime_of("site/theme.css") == "text/css"
    assert form_uploads.files.mime_of("no-extension") == "application/octet-stream"
