"""The AWS resources of the service besides the API: tables, queues (each with a DLQ), bucket.

Declared once here and in `infra/resources.json` (a test keeps the two equal); the local
stack and the test suite create them with `ensure_resources`.
"""

from chalicelib import aws, config
from chalicelib.store.models import MODELS
from chalicelib.store.queue_names import MAX_RECEIVES, QUEUES, queue_name

__all__ = ["MAX_RECEIVES", "QUEUES", "ensure_resources", "queue_name"]


def ensure_resources() -> None:
    """Create every table, queue (with its dead-letter queue) and the bucket if missing."""
    for model in MODELS:
        if not model.exists():
            model.create_table(wait=True)
    sqs = aws.client("sqs")
    for queue in QUEUES:
        dlq = sqs.create_queue(QueueName=queue_name(queue) + "-dlq")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        policy = '{"deadLetterTargetArn": "%s", "maxReceiveCount": "%d"}' % (arn, MAX_RECEIVES)
        sqs.create_queue(QueueName=queue_name(queue), Attributes={"RedrivePolicy": policy})
    _feedback_path()
    s3 = aws.client("s3")
    if config.active().AWS_REGION == "us-east-1":
        s3.create_bucket(Bucket=config.active().FILES_BUCKET)
    else:
        s3.create_bucket(
            Bucket=config.active().FILES_BUCKET,
            CreateBucketConfiguration={"LocationConstraint": config.active().AWS_REGION},
        )


def _feedback_path() -> None:
    """SES feedback for the default sender's domain -> the SNS topic -> the feedback queue, as the
    template wires it on AWS (there through the configuration set's event destination)."""
    sqs, sns, ses = aws.client("sqs"), aws.client("sns"), aws.client("ses")
    topic = sns.create_topic(Name=config.active().FEEDBACK_TOPIC)["TopicArn"]
    url = sqs.get_queue_url(QueueName=queue_name("feedback"))["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    if not any(s["Endpoint"] == arn for s in sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]):
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    domain = config.active().MAILER_FROM_EMAIL.rpartition("@")[2]
    for kind in ("Bounce", "Complaint", "Delivery"):  # the embedded SES's mailbox simulator answers here
        ses.set_identity_notification_topic(Identity=domain, NotificationType=kind, SnsTopic=topic)
