from devstack.server import redact


def test_secret_parameters_are_hidden_in_access_log_lines():
    line = "GET /api/contacts?limit=3&access_token=eyJ.abc.def&search=x HTTP/1.1"
    assert redact(line) == "GET /api/contacts?limit=3&access_token=[hidden]&search=x HTTP/1.1"
    assert redact("GET /cb?code=QQ&state=s HTTP/1.1") == "GET /cb?code=[hidden]&state=s HTTP/1.1"
    assert (
        redact("GET /oauth/v1/authorize?oauth_token=T HTTP/1.1")
        == "GET /oauth/v1/authorize?oauth_token=[hidden] HTTP/1.1"
    )
    assert redact("GET /api/emails?barcode=1 HTTP/1.1") == "GET /api/emails?barcode=1 HTTP/1.1"
    assert redact("GET /passwordresetconfirm?token=T HTTP/1.1") == "GET /passwordresetconfirm?token=[hidden] HTTP/1.1"
    assert (
        redact("POST /oauth/v2/token?code_verifier=V&x=1 HTTP/1.1")
        == "POST /oauth/v2/token?code_verifier=[hidden]&x=1 HTTP/1.1"
    )
    assert (
        redact("GET /r/abc?url=https%3A%2F%2Fa.example&sig=S HTTP/1.1")
        == "GET /r/abc?url=https%3A%2F%2Fa.example&sig=[hidden] HTTP/1.1"
    )
