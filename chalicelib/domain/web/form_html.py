"""A form's HTML as Mautic's form templates write it (FormBundle/Resources/views/Builder/form.html.twig
and Field/*.html.twig): the DOM ids websites and scripts rely on (`mauticform_<form name>`, rows
`mauticform_<form name>_<alias>`, inputs `mauticform_input_<form name>_<alias>`), the label, input and
container attributes, required rows (`data-validate`), conditional rows (`data-mautic-form-show-on`),
and, for a known visitor, progressive profiling and autofilled values (domain/web/form_display.py).
The form posts `mauticform[...]` to the public submit URL; /media/js/mautic-form.js drives it."""

from collections.abc import Mapping
from html import escape

from chalicelib.domain.contacts import field_choices
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import form_display, form_uploads
from chalicelib.domain.web import html_attributes as attrs
from chalicelib.domain.web.form_display import Visitor
from chalicelib.domain.web.form_fields import form_name

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
    "companyLookup": "text",
}
CHOICE_TYPES = ("select", "country", "radiogrp", "checkboxgrp")
NOT_RENDERED = ("captcha", "pagebreak", "plugin.loginSocial")
NO_LABEL = ("hidden", "button", "freetext", "freehtml")
REQUIRED = "This is required."  # Mautic's mautic.form.field.generic.required
STYLE = '<style type="text/css" scoped>.mauticform-field-hidden { display:none }</style>'
SCRIPT = "/media/js/mautic-form.js"
HONEYPOT = "hp_website"  # a field people never see nor fill: a submission filling it is a bot's
TRAP = (
    f'<div style="position:absolute;left:-10000px" aria-hidden="true"><input type="text" '
    f'name="mauticform[{HONEYPOT}]" value="" tabindex="-1" autocomplete="off"></div>'
)


def options(field: Doc) -> list[tuple[str, str]]:
    """The choices of a select/radio/checkbox field as [(value, label)], from Mautic's property shapes;
    a `country` field's are Mautic's countries (its country template is a select of them)."""
    props = field.get("properties") or {}
    if field.get("type") == "country":
        return [(name, name) for name in field_choices.countries()]
    raw = props.get("list") or props.get("optionlist") or props.get("optionList") or []
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


class Writer:
    """Writes one form's fields for one visitor: the form's name, its fields by id and the values."""

    def __init__(self, form: Doc, values: Mapping[str, JSON]) -> None:
        self.name = form_name(form)
        self.fields = sorted(form.get("fields") or [], key=lambda f: (f.get("order") or 0, f.get("id") or 0))
        self.by_id = {str(f.get("id")): f for f in self.fields}
        self.values = values

    def value(self, field: Doc) -> str:
        """The value a control starts with: the visitor's (autofill, GET parameters) else the default."""
        given = self.values.get(field["alias"])
        return str(given if given not in (None, "") else field.get("defaultValue") or "")

    def input_id(self, field: Doc) -> str:
        """Mautic's id of a field's control (its label's `for`)."""
        return f"mauticform_input_{self.name}_{field['alias']}"

    def row(self, field: Doc, as_hidden: bool = False) -> str:
        """One field's container with its label, help, control and error message."""
        kind = "hidden" if as_hidden else field["type"]
        if kind == "hidden":
            return self.control(dict(field, type="hidden"))
        message = field.get("validationMessage") or REQUIRED
        label = "" if kind in NO_LABEL or not field.get("showLabel", True) else self.label(field)
        help_text = (
            f'<span class="mauticform-helpmessage">{escape(field["helpMessage"])}</span>'
            if field.get("helpMessage")
            else ""
        )
        error = f'<span class="mauticform-errormsg" style="display:none;">{escape(message)}</span>'
        tail = "" if kind in ("button", "freetext", "freehtml") else error
        return f"<div{attrs.render(self.container(field))}>{label}{help_text}{self.control(field)}{tail}</div>"

    def container(self, field: Doc) -> attrs.Attrs:
        """The row's attributes: id, classes, and the required and conditional markers."""
        wrapper = {"button": "button-wrapper", "country": "select"}.get(field["type"], field["type"])
        own: attrs.Attrs = {
            "id": f"mauticform_{self.name}_{field['alias']}",
            "class": ["mauticform-row", f"mauticform-{wrapper}", f"mauticform-field-{field.get('order') or 0}"],
        }
        parent = self.by_id.get(str(field.get("parent"))) if field.get("parent") not in (None, "") else None
        if parent is not None:
            own.update(self.condition(field, parent))
            own["class"] = list(own["class"]) + ["mauticform-field-hidden"]
        if field.get("isRequired"):
            own["class"] = list(own["class"]) + ["mauticform-required"]
            own.update({"data-validate": field["alias"], "data-validation-type": field["type"]})
        return attrs.merged(attrs.parse(field.get("containerAttributes")), own)

    def condition(self, field: Doc, parent: Doc) -> attrs.Attrs:
        """Mautic's conditional row: `data-mautic-form-show-on="<parent alias>:<v1|v2>"` (`*`: any)."""
        conditions = field.get("conditions") or {}
        expr = conditions.get("expr") or "in"
        values = "|".join(str(v) for v in conditions.get("values") or [])
        if conditions.get("any") not in (None, False, 0, "0", "") and expr != "notIn":
            values = "*"
        return {
            "data-mautic-form-show-on": f"{parent['alias']}:{values}",
            "data-mautic-form-expr": expr,
        }

    def label(self, field: Doc) -> str:
        """The field's label, with its `labelAttributes` and the required marker."""
        marker = ' <span class="mauticform-required">*</span>' if field.get("isRequired") else ""
        own: attrs.Attrs = {
            "id": f"mauticform_label_{self.name}_{field['alias']}",
            "for": self.input_id(field),
            "class": ["mauticform-label"],
        }
        merged = attrs.merged(attrs.parse(field.get("labelAttributes")), own)
        return f"<label{attrs.render(merged)}>{escape(field.get('label') or '')}{marker}</label>"

    def input_attrs(self, field: Doc, css: str, **extra: JSON) -> str:
        """The control's attributes: the field's `inputAttributes` with Mautic's id, name and class."""
        own: attrs.Attrs = {"id": self.input_id(field), "name": f"mauticform[{field['alias']}]", "class": [css]}
        placeholder = (field.get("properties") or {}).get("placeholder")
        own.update({"placeholder": str(placeholder)} if placeholder else {})
        own.update({k.replace("_", "-"): str(v) for k, v in extra.items() if v is not None})
        return attrs.render(attrs.merged(attrs.parse(field.get("inputAttributes")), own))

    def control(self, field: Doc) -> str:
        """The field's control: input, textarea, select, choices, button, file chooser or free text."""
        kind = field["type"]
        if kind in CHOICE_TYPES:
            return self.choices(field)
        if kind in ("freetext", "freehtml"):
            text = (field.get("properties") or {}).get("text") or field.get("label") or ""
            return text if kind == "freehtml" else f'<div class="mauticform-freetext">{escape(text)}</div>'
        required = "required" if field.get("isRequired") else None
        if kind == "textarea":
            return f"<textarea{self.input_attrs(field, 'mauticform-textarea')}>{escape(self.value(field))}</textarea>"
        if kind == "button":
            label = escape(field.get("label") or "Submit")
            button = self.input_attrs(field, "mauticform-button btn btn-default", value="1")
            return f'<button type="submit"{button}>{label}</button>'
        if kind == "file":
            accept = ",".join(f".{extension}" for extension in form_uploads.extensions(field))
            return f'<input type="file"{self.input_attrs(field, "mauticform-input", accept=accept)}>'
        css = "mauticform-hidden" if kind == "hidden" else "mauticform-input"
        own = self.input_attrs(field, css, value=self.value(field), aria_required=required)
        return f'<input type="{INPUT_TYPES.get(kind, "text")}"{own}>'

    def choices(self, field: Doc) -> str:
        """A select, or a group of radio buttons or checkboxes."""
        chosen = set(self.value(field).split("|"))
        return self.select(field, chosen) if field["type"] in ("select", "country") else self.group(field, chosen)

    def select(self, field: Doc, chosen: set[str]) -> str:
        """A select: a blank first choice unless it is multiple (`properties.multiple`, posted as a list)."""
        props = field.get("properties") or {}
        multiple = bool(props.get("multiple"))
        items = "".join(
            f'<option value="{escape(v, quote=True)}"{" selected" if v in chosen else ""}>{escape(text)}</option>'
            for v, text in options(field)
        )
        blank = "" if multiple else f'<option value="">{escape(str(props.get("placeholder") or ""))}</option>'
        name = {"name": f"mauticform[{field['alias']}][]", "multiple": "multiple"} if multiple else {}
        return f"<select{self.input_attrs(field, 'mauticform-selectbox', **name)}>{blank}{items}</select>"

    def group(self, field: Doc, chosen: set[str]) -> str:
        """Radio buttons or checkboxes (posted as a list), one row per choice, as Mautic's group template."""
        kind, alias = field["type"], escape(field["alias"])
        box = "radio" if kind == "radiogrp" else "checkbox"
        name = f"mauticform[{alias}]" + ("" if box == "radio" else "[]")
        rows = []
        for index, (v, text) in enumerate(options(field)):
            item_id = f"mauticform_{kind}_{box}_{alias}_{index}"
            checked = " checked" if v in chosen else ""
            rows.append(
                f'<div class="mauticform-{kind}-row"><input type="{box}" class="mauticform-{kind}-{box}"'
                f' name="{name}" id="{item_id}" value="{escape(v, quote=True)}"{checked}>'
                f' <label for="{item_id}" class="mauticform-{kind}-label">{escape(text)}</label></div>'
            )
        return "".join(rows)


def render(form: Doc, base_url: str, visitor: Visitor | None = None, values: Mapping[str, JSON] | None = None) -> str:
    """The form's HTML (Mautic's `cachedHtml` without a visitor): its fields as the visitor sees them,
    the conditional ones after their parent, with `values` filled in."""
    writer = Writer(form, values or {})
    shown = form_display.displayed(form, writer.fields, visitor or Visitor())
    rows = []
    for field in writer.fields:
        if field["alias"] not in shown or field["type"] in NOT_RENDERED:
            continue
        rows.append(writer.row(field, as_hidden=not shown[field["alias"]]))
        if field["type"] != "hidden":
            children = [f for f in writer.fields if str(f.get("parent")) == str(field.get("id"))]
            rows += [writer.row(child) for child in children if child["type"] not in NOT_RENDERED]
    if not any(f.get("type") == "button" for f in writer.fields):
        rows.append(
            '<div class="mauticform-row mauticform-button-wrapper"><button type="submit"'
            ' class="mauticform-button btn btn-default"'
            f' id="mauticform_input_{writer.name}_submit">Submit</button></div>'
        )
    return _frame(form, base_url, writer.name, "".join(rows))


def _frame(form: Doc, base_url: str, name: str, rows: str) -> str:
    """Mautic's wrapper, form tag, message areas and hidden inputs around the rows."""
    own: attrs.Attrs = {
        "autocomplete": "false",
        "role": "form",
        "method": "post",
        "action": f"{base_url}/form/submit?formId={form['id']}",
        "id": f"mauticform_{name}",
        "data-mautic-form": name,
        "enctype": "multipart/form-data",
    }
    form_attrs = attrs.render(attrs.merged(attrs.parse(form.get("formAttributes")), own))
    hidden = (
        f'<input type="hidden" name="mauticform[formId]" id="mauticform_{name}_id" value="{form["id"]}">'
        f'<input type="hidden" name="mauticform[return]" id="mauticform_{name}_return" value="">'
        f'<input type="hidden" name="mauticform[formName]" id="mauticform_{name}_name" value="{escape(name)}">'
    )
    return (
        f'{STYLE}<div id="mauticform_wrapper_{name}" class="mauticform_wrapper"><form{form_attrs}>'
        f'<div class="mauticform-error" id="mauticform_{name}_error"></div>'
        f'<div class="mauticform-message" id="mauticform_{name}_message"></div>'
        '<div class="mauticform-innerform">'
        '<div class="mauticform-page-wrapper mauticform-page-1" data-mautic-form-page="1">'
        f"{rows}</div></div>{hidden}{TRAP}</form></div>"
    )


def script(base_url: str) -> str:
    """The script tag that drives every Mautic form of a page (loaded once, whatever the forms)."""
    return f'<script type="text/javascript" src="{escape(base_url + SCRIPT, quote=True)}" defer></script>'
