"""A form's `cachedHtml`: a plain HTML form that posts `mauticform[...]` to the public submit URL."""

from html import escape

from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import form_uploads

INPUT_TYPES = {
    "text": "text",
    "email": "email",
    "tel": "tel",
    "url": "url",
    "number": "number",
    "date": "date",
    "datetime": "datetime-local",
    "hidden": "hidden",
    "password": "password",
    "country": "text",
    "companyLookup": "text",
}
CHOICE_TYPES = ("select", "radiogrp", "checkboxgrp")
NOT_RENDERED = ("captcha", "pagebreak", "plugin.loginSocial")


def options(field: Doc) -> list[tuple[str, str]]:
    """The choices of a select/radio/checkbox field as [(value, label)], from Mautic's property shapes."""
    props = field.get("properties") or {}
    raw = props.get("list") or props.get("optionlist") or []
    if isinstance(raw, dict):
        raw = raw.get("list", raw)
    if isinstance(raw, dict):
        raw = [{"value": k, "label": v} for k, v in raw.items()]
    if isinstance(raw, str):
        raw = [line for line in raw.splitlines() if line.strip()]
    pairs = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            value = item.get("value", item.get("label"))
            pairs.append((str(value), str(item.get("label", value))))
        else:
            pairs.append((str(item), str(item)))
    return pairs


def _attr(name: str, value: JSON) -> str:
    return f' {name}="{escape(str(value), quote=True)}"'


def _label(field: Doc, form_alias: str) -> str:
    if not field.get("showLabel", True) or field["type"] in ("hidden", "button", "freetext", "freehtml"):
        return ""
    marker = ' <span class="mauticform-required">*</span>' if field.get("isRequired") else ""
    return (
        f'<label class="mauticform-label" for="mauticform_input_{form_alias}_{field["alias"]}">'
        f"{escape(field.get('label') or '')}{marker}</label>"
    )


def _control(field: Doc, form_alias: str) -> str:
    alias, kind = field["alias"], field["type"]
    name, element_id = f"mauticform[{alias}]", f"mauticform_input_{form_alias}_{alias}"
    required = " required" if field.get("isRequired") else ""
    default = field.get("defaultValue") or ""
    if kind == "textarea":
        return f"<textarea{_attr('id', element_id)}{_attr('name', name)}{required}>{escape(default)}</textarea>"
    if kind == "select":
        items = "".join(
            f"<option{_attr('value', v)}{' selected' if v == default else ''}>{escape(text)}</option>"
            for v, text in options(field)
        )
        return (
            f"<select{_attr('id', element_id)}{_attr('name', name)}{required}>"
            f'<option value=""></option>{items}</select>'
        )
    if kind in ("radiogrp", "checkboxgrp"):
        box, suffix = ("radio", "") if kind == "radiogrp" else ("checkbox", "[]")
        return "".join(
            f'<label><input type="{box}"{_attr("name", name + suffix)}{_attr("value", v)}> {escape(text)}</label>'
            for v, text in options(field)
        )
    if kind == "button":
        return f'<button type="submit"{_attr("name", name)} value="1">{escape(field.get("label") or "Submit")}</button>'
    if kind == "file":
        return _file_input(field, element_id, name, required)
    if kind in ("freetext", "freehtml"):
        props = field.get("properties") or {}
        text = props.get("text") or field.get("label") or ""
        return text if kind == "freehtml" else f"<p>{escape(text)}</p>"
    return (
        f'<input type="{INPUT_TYPES.get(kind, "text")}"{_attr("id", element_id)}{_attr("name", name)}'
        f"{_attr('value', default)}{required}>"
    )


def _file_input(field: Doc, element_id: str, name: str, required: str) -> str:
    """A file chooser offering the field's allowed extensions (the server checks them again)."""
    accept = ",".join(f".{extension}" for extension in form_uploads.extensions(field))
    return f'<input type="file"{_attr("id", element_id)}{_attr("name", name)}{_attr("accept", accept)}{required}>'


HONEYPOT = "hp_website"  # a field people never see nor fill: a submission filling it is a bot's
TRAP = (
    f'<div style="position:absolute;left:-10000px" aria-hidden="true"><input type="text" '
    f'name="mauticform[{HONEYPOT}]" value="" tabindex="-1" autocomplete="off"></div>'
)


def render(form: Doc, base_url: str) -> str:
    """The HTML of a form: labels, required markers and one control per field, posting to our submit URL."""
    alias = form.get("alias") or f"form{form['id']}"
    rows = []
    for field in sorted(form.get("fields") or [], key=lambda f: (f.get("order") or 0, f.get("id") or 0)):
        if field.get("type") in NOT_RENDERED:
            continue
        help_text = (
            f'<span class="mauticform-helpmessage">{escape(field["helpMessage"])}</span>'
            if field.get("helpMessage")
            else ""
        )
        rows.append(
            f'<div class="mauticform-row mauticform-{field["type"]}">'
            f"{_label(field, alias)}{_control(field, alias)}{help_text}</div>"
        )
    if not any(f.get("type") == "button" for f in form.get("fields") or []):
        rows.append('<div class="mauticform-row"><button type="submit">Submit</button></div>')
    action = f"{base_url}/form/submit?formId={form['id']}"
    return (
        f'<form autocomplete="false" role="form" method="post"{_attr("action", action)}'
        f"{_attr('id', 'mauticform_' + alias)}{_attr('data-mautic-form', alias)}"
        ' enctype="multipart/form-data">'
        f'<input type="hidden" name="mauticform[formId]"{_attr("value", form["id"])}>'
        f'<input type="hidden" name="mauticform[formName]"{_attr("value", alias)}>'
        f'<input type="hidden" name="mauticform[return]" value="">' + "".join(rows) + TRAP + "</form>"
    )
