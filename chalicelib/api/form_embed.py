"""What websites embed of a form (Mautic's FormBundle PublicController): the form page `/form/{id}`
(for iframes), the embed script `/form/generate.js?id=N` (writes the form where its `<script>` tag
stands), the bare form `/form/embed/{id}`, and the script that drives every form,
`/media/js/mautic-form.js`. All of them no /api prefix, no authentication; docs/public-endpoints.md."""

from functools import cache
from pathlib import Path

from chalicelib.api import cross_site
from chalicelib.api.public import visit
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import form_pages

routes = Routes("form_embed", authenticated=False)
SCRIPT = Path(__file__).with_name("assets") / "mautic-form.js"
PERSONAL = {"Cache-Control": "no-store"}  # a form shown to a known visitor carries that visitor's values
HTML = "text/html; charset=utf-8"
JAVASCRIPT = "text/javascript; charset=utf-8"


@cache
def _script() -> str:
    """The form script's text (read once per container)."""
    return SCRIPT.read_text(encoding="utf-8")


def _visitor(request: ApiRequest, ctx: Context) -> Doc | None:
    """The contact the browser's signed visitor token names (never created here: viewing a form records
    no visit, as Mautic's generate.js); none for a browser that asked not to be tracked."""
    visitor = visit(request, ctx)
    return None if visitor.private else form_pages.tracked(visitor.contact_id)


@routes.route("/form/{form_id}", "GET")
def form_page(request: ApiRequest, ctx: Context, form_id: str) -> Answer:
    """The public form page (Mautic's previewAction): the form alone, for iframes, filled from GET
    parameters named by field alias; 404 for an unknown or unpublished form."""
    form = form_pages.published(form_id, ctx)
    query = {k: v for k, v in request.query.items() if isinstance(v, str)}
    robots = {"X-Robots-Tag": "noindex"} if form.get("noIndex") else {}
    page = form_pages.page(form, _visitor(request, ctx), query, ctx)
    return Reply(page, 200, dict(PERSONAL, **robots), HTML)


@routes.route("/form/embed/{form_id}", "GET")
def form_embed(request: ApiRequest, ctx: Context, form_id: str) -> Answer:
    """The form's HTML with its script tag (Mautic's embedAction); 404 for an unknown or unpublished form."""
    form = form_pages.published(form_id, ctx)
    html = form_pages.content(form, _visitor(request, ctx), {}, ctx)
    return Reply(html, 200, dict(PERSONAL, **cross_site.headers(request)), HTML)


@routes.route("/form/generate.js", "GET")
def generate_js(request: ApiRequest, ctx: Context) -> Answer:
    """Mautic's embed script `<script src=".../form/generate.js?id=N">`: writes the form after its own tag;
    an unknown or unpublished form is an empty script (200), as Mautic answers."""
    try:
        form = form_pages.published(request.query.get("id"), ctx)
    except NotFound:
        return Reply("", 200, PERSONAL, JAVASCRIPT)
    return Reply(form_pages.embed_script(form, _visitor(request, ctx), ctx), 200, PERSONAL, JAVASCRIPT)


@routes.route("/media/js/mautic-form.js", "GET")
def form_script(request: ApiRequest, ctx: Context) -> Answer:
    """The script of every form: conditional rows, validation messages, posting (api/assets/mautic-form.js)."""
    return Reply(_script(), 200, {"Cache-Control": "public, max-age=3600"}, JAVASCRIPT)


blueprint = routes.blueprint()
