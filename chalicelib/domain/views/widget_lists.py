"""Mautic's dashboard widgets that are no time chart: their catalogue (`WIDGETS`: type -> category,
name, data builder) over the builders of `widget_content.py` (asset, email, form and page widgets)
and `widget_contacts.py` (contact and segment widgets, the lifecycle, the map), which share
`widget_base.py` (the range's events the caller may view, pies, tables). Pies (`chartType: pie`),
bars, tables (`headItems`, `bodyItems`, `raw`), the map (`{height, data: {country code:
contacts}}`) and the upcoming emails; each counts only what the caller may view."""

from chalicelib.domain.views.widget_base import ASSET, EMAIL, PAGE, Build
from chalicelib.domain.views.widget_contacts import (
    build_times,
    created_leads,
    identified_pie,
    leads_map,
    lifetime,
    top_lists,
    top_people,
)
from chalicelib.domain.views.widget_content import (
    best_hours,
    created_list,
    devices_pie,
    downloads_pie,
    dwell_pie,
    popular,
    read_pie,
    redirects,
    referrers,
    returning_pie,
    sent_to_contacts,
    submitters,
    upcoming,
)

# type: (category, name, builder)
WIDGETS: dict[str, tuple[str, str, Build]] = {
    "unique.vs.repetitive.downloads": ("asset", "Unique vs repetitive downloads", downloads_pie),
    "popular.assets": (
        "asset",
        "Popular assets",
        popular("asset.download", "asset", ASSET, "download_count", "title", "mautic.dashboard.label.downloads"),
    ),
    "created.assets": ("asset", "Created assets", created_list("asset", "title")),
    "sent.email.to.contacts": ("email", "Sent email to contacts", sent_to_contacts),
    "most.hit.email.redirects": ("email", "Most hit email redirects", redirects),
    "ignored.vs.read.emails": ("email", "Ignored vs read", read_pie),
    "upcoming.emails": ("email", "Upcoming emails", upcoming),
    "most.sent.emails": (
        "email",
        "Most sent emails",
        popular("email.sent", "email", EMAIL, "count", "name", "mautic.email.sends"),
    ),
    "most.read.emails": (
        "email",
        "Most read emails",
        popular("email.read", "email", EMAIL, "count", "name", "mautic.email.reads"),
    ),
    "created.emails": ("email", "Created emails", created_list("email", "name")),
    "device.granularity.email": (
        "email",
        "Devices for emails read",
        devices_pie(("email.read",), "email", EMAIL),
    ),
    "emails.best.hours": ("email", "Best email read hours", best_hours),
    "top.submission.referrers": ("form", "Top submission referrers", referrers),
    "top.submitters": ("form", "Top submitters", submitters),
    "created.forms": ("form", "Created forms", created_list("form", "name")),
    "anonymous.vs.identified.leads": ("lead", "Anonymous vs identified contacts", identified_pie),
    "lead.lifetime": ("lead", "Lifecycle", lifetime),
    "map.of.leads": ("lead", "Map", leads_map),
    "top.lists": ("lead", "Top segments", top_lists),
    "segments.build.time": ("lead", "Segments build time", build_times),
    "top.creators": (
        "lead",
        "Top contact creators",
        top_people("createdBy", "mautic.user.account.permissions.editname"),
    ),
    "top.owners": ("lead", "Top contact owners", top_people("owner", "mautic.user.account.permissions.editname")),
    "created.leads": ("lead", "Created contacts", created_leads),
    "unique.vs.returning.leads": ("page", "Unique vs returning visitors", returning_pie),
    "dwell.times": ("page", "Dwell times", dwell_pie),
    "popular.pages": (
        "page",
        "Popular landing pages",
        popular("page.hit", "page", PAGE, "hits", "title", "mautic.dashboard.label.hits"),
    ),
    "created.pages": ("page", "Created Landing pages", created_list("page", "title")),
    "device.granularity": ("page", "Device granularity", devices_pie(("page.hit",), "page", PAGE)),
}
