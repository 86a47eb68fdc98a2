"""Mautic's dashboard widgets that are no time chart: their catalogue (`WIDGETS`: type -> category,
name, data builder) over the builders of `widget_content.py` (asset, email, form and page widgets)
and `widget_contacts.py` (contact and segment widgets, the lifecycle, the map), which share
`widget_base.py` (the range's events the caller may view, pies, tables). Pies (`chartType: pie`),
bars, tables (`headItems`, `bodyItems`, `raw`), the map (`{height, data: {country code:
contacts}}`) and the upcoming emails; each counts only what the caller may view."""

from chalicelib.domain.views.widget_base import ASSET, EMAIL, PAGE, Build
from chalicelib.domain.views.widget_contacts import (
    _build_times,
    _created_leads,
    _identified_pie,
    _lifetime,
    _map,
    _top_lists,
    _top_people,
)
from chalicelib.domain.views.widget_content import (
    _best_hours,
    _created,
    _devices_pie,
    _downloads_pie,
    _dwell_pie,
    _popular,
    _read_pie,
    _redirects,
    _referrers,
    _returning_pie,
    _sent_to_contacts,
    _submitters,
    _upcoming,
)

# type: (category, name, builder)
WIDGETS: dict[str, tuple[str, str, Build]] = {
    "unique.vs.repetitive.downloads": ("asset", "Unique vs repetitive downloads", _downloads_pie),
    "popular.assets": (
        "asset",
        "Popular assets",
        _popular("asset.download", "asset", ASSET, "download_count", "title", "mautic.dashboard.label.downloads"),
    ),
    "created.assets": ("asset", "Created assets", _created("asset", "title")),
    "sent.email.to.contacts": ("email", "Sent email to contacts", _sent_to_contacts),
    "most.hit.email.redirects": ("email", "Most hit email redirects", _redirects),
    "ignored.vs.read.emails": ("email", "Ignored vs read", _read_pie),
    "upcoming.emails": ("email", "Upcoming emails", _upcoming),
    "most.sent.emails": (
        "email",
        "Most sent emails",
        _popular("email.sent", "email", EMAIL, "count", "name", "mautic.email.sends"),
    ),
    "most.read.emails": (
        "email",
        "Most read emails",
        _popular("email.read", "email", EMAIL, "count", "name", "mautic.email.reads"),
    ),
    "created.emails": ("email", "Created emails", _created("email", "name")),
    "device.granularity.email": (
        "email",
        "Devices for emails read",
        _devices_pie(("email.read",), "email", EMAIL),
    ),
    "emails.best.hours": ("email", "Best email read hours", _best_hours),
    "top.submission.referrers": ("form", "Top submission referrers", _referrers),
    "top.submitters": ("form", "Top submitters", _submitters),
    "created.forms": ("form", "Created forms", _created("form", "name")),
    "anonymous.vs.identified.leads": ("lead", "Anonymous vs identified contacts", _identified_pie),
    "lead.lifetime": ("lead", "Lifecycle", _lifetime),
    "map.of.leads": ("lead", "Map", _map),
    "top.lists": ("lead", "Top segments", _top_lists),
    "segments.build.time": ("lead", "Segments build time", _build_times),
    "top.creators": (
        "lead",
        "Top contact creators",
        _top_people("createdBy", "mautic.user.account.permissions.editname"),
    ),
    "top.owners": ("lead", "Top contact owners", _top_people("owner", "mautic.user.account.permissions.editname")),
    "created.leads": ("lead", "Created contacts", _created_leads),
    "unique.vs.returning.leads": ("page", "Unique vs returning visitors", _returning_pie),
    "dwell.times": ("page", "Dwell times", _dwell_pie),
    "popular.pages": (
        "page",
        "Popular landing pages",
        _popular("page.hit", "page", PAGE, "hits", "title", "mautic.dashboard.label.hits"),
    ),
    "created.pages": ("page", "Created Landing pages", _created("page", "title")),
    "device.granularity": ("page", "Device granularity", _devices_pie(("page.hit",), "page", PAGE)),
}
