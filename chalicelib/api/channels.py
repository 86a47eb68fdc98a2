"""Channels and content: emails, text messages, notifications, tweets, dynamic content, pages, assets."""
from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT, EMAIL, NOTIFICATION, SMS, TWEET
from chalicelib.domain.web.declarations import ASSET, PAGE

routes = Routes("channels")
for _resource in (EMAIL, SMS, NOTIFICATION, TWEET, DYNAMIC_CONTENT, PAGE, ASSET):
    standard.install(routes, _resource)
blueprint = routes.blueprint()
