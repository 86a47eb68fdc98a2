"""Background workers: which handler consumes which queue, and the periodic jobs.

On AWS each queue feeds a Lambda function through the `on_sqs_message` handlers of `app.py`
and the jobs run from its `schedule` handlers; locally `workers.local` runs the very same
handlers in threads (and `drain` runs them synchronously in tests).
"""
from chalicelib.domain import wiring  # noqa: F401 - installs the registry and the subscriber table
from chalicelib.domain.automations import automation_runs
from chalicelib.domain.contacts import contact_merge
from chalicelib.domain.web import form_followups
from chalicelib.domain.segments import rebuilds
from chalicelib.domain.stages import stages
from chalicelib.domain.webhooks import webhook_events
from chalicelib.workers import automations, segments, sends, webhooks

HANDLERS = {"segments": segments.handle, "webhooks": webhooks.handle, "automations": automations.handle,
            "sends": sends.handle}
JOBS = {"minute": (rebuilds.resend_stuck, webhook_events.sweep, automation_runs.dispatch, contact_merge.resend_lost,
                   form_followups.sweep, stages.resend_lost),
        "hour": (rebuilds.refresh_relative,)}


def consume(queue, bodies):
    """Handle the decoded messages of one queue, in order; an exception leaves them to SQS's retry."""
    for body in bodies:
        HANDLERS[queue](body)


def run_jobs(period):
    """Run the periodic jobs of a period (`minute` or `hour`)."""
    for job in JOBS[period]:
        job()
