"""The Chalice application: the API blueprints under /api, the OAuth endpoints under /oauth,
the REQUEST authorizer of the /api routes, and the background workers (one SQS consumer per
queue, the periodic jobs). On AWS its REST API is three proxy resources and the app finds its
routes itself (`chalicelib/api/path_routing.py`)."""
import json

from chalice import Rate

from chalicelib import workers
from chalicelib.api import authorizer
from chalicelib.api.path_routing import RoutedApp
from chalicelib.api.blueprints import API_BLUEPRINTS, PUBLIC_BLUEPRINTS
from chalicelib.store.schema import queue_name

app = RoutedApp(app_name="mautic")
app.api.binary_types.append("multipart/form-data")  # uploads reach the function byte for byte on AWS
for _blueprint in API_BLUEPRINTS:
    app.register_blueprint(_blueprint, url_prefix="/api")
for _blueprint in PUBLIC_BLUEPRINTS:
    app.register_blueprint(_blueprint)


@app.on_sqs_message(queue=queue_name("segments"), batch_size=1)
def segments_worker(event):
    workers.consume("segments", [json.loads(record.body) for record in event])


@app.on_sqs_message(queue=queue_name("webhooks"), batch_size=1)
def webhooks_worker(event):
    workers.consume("webhooks", [json.loads(record.body) for record in event])


@app.on_sqs_message(queue=queue_name("automations"), batch_size=1)
def automations_worker(event):
    workers.consume("automations", [json.loads(record.body) for record in event])


@app.on_sqs_message(queue=queue_name("sends"), batch_size=1)
def sends_worker(event):
    workers.consume("sends", [json.loads(record.body) for record in event])


@app.schedule(Rate(1, unit=Rate.MINUTES))
def every_minute(event):
    workers.run_jobs("minute")


@app.schedule(Rate(1, unit=Rate.HOURS))
def every_hour(event):
    workers.run_jobs("hour")


@app.lambda_function(name="api_authorizer")
def api_authorizer(event, context):
    return authorizer.handler(event, context)
