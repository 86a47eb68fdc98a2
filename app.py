"""The Chalice application: the API blueprints under /api, the OAuth endpoints under /oauth,
the REQUEST authorizer of the /api routes, and the background workers (one SQS consumer per
queue, in batches with partial failures, and the periodic jobs). On AWS its REST API is three
proxy resources and the app finds its routes itself (`chalicelib/api/path_routing.py`).

Every function of the stack runs this module, so it imports only what declares them: each handler
imports what it runs on its first call (the authorizer its auth core, a worker its capability, the
jobs theirs), and the routes are registered on the first look at `app.routes` (the API function's
first request, `chalice package`, the local stack), not by the other functions (docs/deploy.md,
"Cold start")."""

import os
from typing import Any

from chalicelib import loading

loading.pause()  # a cold start's imports without the garbage collector's passes (chalicelib/loading.py)

from chalicelib import config  # noqa: E402

if not config.installed():  # on Lambda: its environment, read once (the local stack and the tests install theirs)
    config.install(config.Settings.from_environment(os.environ))

from chalice import Rate  # noqa: E402 - the settings first: the modules below bind table and queue names
from chalice.app import CloudWatchEvent, SQSEvent  # noqa: E402

from chalicelib import aws_adapters, workers  # noqa: E402
from chalicelib.api.path_routing import RoutedApp  # noqa: E402
from chalicelib.store.queue_names import queue_name  # noqa: E402

BatchAnswer = dict[str, list[dict[str, str]]]  # the partial batch response (ReportBatchItemFailures)


def register_routes(routed: RoutedApp) -> None:
    """The blueprints of the API under /api and of the public endpoints at the root, and the types
    answered as bytes."""
    with loading.imports():  # the route modules, and chalice's entries of their routes
        from chalicelib import bootstrap
        from chalicelib.api import downloads
        from chalicelib.api.blueprints import API_BLUEPRINTS, PUBLIC_BLUEPRINTS

        bootstrap.assemble()  # the registry and the subscriber table, before the API serves
        routed.api.binary_types.extend(downloads.EXTRA_BINARY_TYPES)  # form uploads' downloads answered as their type
        for blueprint in API_BLUEPRINTS:
            routed.register_blueprint(blueprint, url_prefix="/api")
        for blueprint in PUBLIC_BLUEPRINTS:
            routed.register_blueprint(blueprint)


aws_adapters.install()  # the Lambda functions' composition root: every port over AWS
app = RoutedApp(app_name="mautic", routes=register_routes)
app.api.binary_types.append("multipart/form-data")  # uploads reach the function byte for byte on AWS
loading.resume()


@app.on_sqs_message(queue=queue_name("segments"), **workers.SOURCES["segments"])
def segments_worker(event: SQSEvent) -> BatchAnswer:
    """The `segments` queue's messages, a batch at a time."""
    return workers.on_batch("segments", event)


@app.on_sqs_message(queue=queue_name("webhooks"), **workers.SOURCES["webhooks"])
def webhooks_worker(event: SQSEvent) -> BatchAnswer:
    """The `webhooks` queue's messages, a batch at a time."""
    return workers.on_batch("webhooks", event)


@app.on_sqs_message(queue=queue_name("automations"), **workers.SOURCES["automations"])
def automations_worker(event: SQSEvent) -> BatchAnswer:
    """The `automations` queue's messages, a batch at a time."""
    return workers.on_batch("automations", event)


@app.on_sqs_message(queue=queue_name("sends"), **workers.SOURCES["sends"])
def sends_worker(event: SQSEvent) -> BatchAnswer:
    """The `sends` queue's messages, a batch at a time."""
    return workers.on_batch("sends", event)


@app.on_sqs_message(queue=queue_name("feedback"), **workers.SOURCES["feedback"])
def feedback_worker(event: SQSEvent) -> BatchAnswer:
    """The `feedback` queue's messages (SES bounces, complaints, deliveries through SNS), a batch at a time."""
    return workers.on_batch("feedback", event)


@app.on_sqs_message(queue=queue_name("erasure"), **workers.SOURCES["erasure"])
def erasure_worker(event: SQSEvent) -> BatchAnswer:
    """The `erasure` queue's messages: the erasure of deleted contacts (docs/privacy.md)."""
    return workers.on_batch("erasure", event)


@app.schedule(Rate(1, unit=Rate.MINUTES))
def every_minute(event: CloudWatchEvent) -> None:
    """The jobs that run every minute (`workers.JOBS`)."""
    workers.run_jobs("minute", event.context)


@app.schedule(Rate(1, unit=Rate.HOURS))
def every_hour(event: CloudWatchEvent) -> None:
    """The jobs that run every hour (`workers.JOBS`)."""
    workers.run_jobs("hour", event.context)


@app.lambda_function(name="api_authorizer")
def api_authorizer(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The REQUEST authorizer of the /api routes (API Gateway calls it with its own event and context)."""
    with loading.imports():
        from chalicelib.api import authorizer
    return authorizer.handler(event, context)
