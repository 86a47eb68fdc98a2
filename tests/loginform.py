"""Reading the login page the way a browser would: the first form's action and its fields."""

from html.parser import HTMLParser


class LoginForm(HTMLParser):
    """The page's first form: its action and its inputs' names and values."""

    def __init__(self, html):
        super().__init__()
        self.action, self.fields = None, {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attrs.get("action")
        elif tag == "input" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value") or ""
