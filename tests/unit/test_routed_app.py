"""The API function's routes are registered on the first look at `app.routes` (issue 43's cold start);
requests arriving at once on other threads (the local stack serves several at once) must wait for
the whole table, never read a partial one (they answered 404 for routes not yet registered)."""

import threading
import time

from chalice import Blueprint

from chalicelib.api.path_routing import RoutedApp

PATHS = [f"/r{n}" for n in range(40)]


def _slow_routes(app: RoutedApp) -> None:
    """Registers PATHS one by one, slowly enough for other threads to look meanwhile."""
    for path in PATHS:
        blueprint = Blueprint(__name__)
        blueprint.route(path)(lambda: {})
        app.register_blueprint(blueprint)
        time.sleep(0.002)


def test_threads_looking_while_the_routes_register_see_the_whole_table():
    app = RoutedApp("t", routes=_slow_routes)
    seen: list[int] = []
    lookers = [threading.Thread(target=lambda: seen.append(len(app.routes))) for _ in range(8)]
    for looker in lookers:
        looker.start()
    for looker in lookers:
        looker.join()
    assert seen == [len(PATHS)] * 8


def test_routes_register_once():
    calls: list[int] = []
    app = RoutedApp("t", routes=lambda routed: calls.append(1))
    assert app.routes == {} and app.routes == {} and calls == [1]
