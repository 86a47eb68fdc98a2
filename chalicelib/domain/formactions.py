"""What a form submission does to the submitting contact: the form's submit actions (points,
tags, segments, UTM tags, do-not-contact removal), applied to the contact document before it is
stored, returning their timeline events."""
from urllib.parse import parse_qsl, urlparse

from chalicelib.domain import attributes as a
from chalicelib.domain import contactactions, contacts, pointsengine


def run(form, doc, visit, ctx):
    """Apply the form's submit actions to the contact document; their timeline events."""
    events = []
    for action in sorted(form.get("actions") or [], key=lambda x: x.get("order") or 0):
        props = action.get("properties") or {}
        kind_ = action.get("type")
        if kind_ == "lead.pointschange":
            event = _points_action(doc, action, props)
            events += [event] if event else []
        elif kind_ == "lead.changetags":
            contacts.change_tags(doc, pointsengine.tag_names(props.get("add_tags")),
                                       pointsengine.tag_names(props.get("remove_tags")), ctx)
        elif kind_ == "lead.changelist":
            pointsengine.change_segments(doc, props.get("addToLists"), props.get("removeFromLists"), ctx)
        elif kind_ == "lead.remove_do_not_contact":
            channel = str(props.get("channel") or "email")
            doc["doNotContact"] = [e for e in doc.get("doNotContact") or [] if e.get("channel") != channel]
        elif kind_ == "lead.addutmtags":
            events += _utm_action(doc, visit, ctx)
    return events


def _points_action(doc, action, props):
    operator = {"+": "plus", "-": "minus", "*": "times", "/": "divide"}.get(props.get("operator"),
                                                                         props.get("operator") or "plus")
    try:
        delta = a.as_int(props.get("points") or 0)
    except a.Invalid:
        delta = 0
    if operator not in contactactions.OPERATORS:
        return None
    return contactactions.adjust_points(doc, operator, delta, action.get("name") or "Form submitted",
                                        {"action": action.get("name"), "type": "form.submit"})


def _utm_action(doc, visit, ctx):
    query = dict(parse_qsl(urlparse(visit.referer or "").query))
    query.update({k: v for k, v in visit.query.items() if isinstance(v, str)})
    entry = {"id": None, "dateAdded": ctx.now, "query": query, "url": visit.referer, "referer": visit.referer,
             "remoteHost": visit.ip, "userAgent": None}
    entry.update({key: query.get(name) for name, key in contactactions.UTM_FIELDS.items()
                  if name.startswith("utm_")})
    return [contactactions.record_utm(doc, entry)]
