"""The AWS resources of the service besides the API: tables, queues (each with a DLQ), bucket.

Declared once here and in `infra/resources.json` (a test keeps the two equal); the local
stack and the test suite create them with `ensure_resources`.
"""

from chalicelib import aws, config
from chalicelib.store.models import MODELS

QUEUES = ("webhooks", "segments", "automations", "sends")


def queue_name(queue: str) -> str:
    """The SQS name of a queue of `QUEUES` in this stage."""
    return f"{config.RESOURCE_PREFIX}{queue}"


def ensure_resources() -> None:
    """Create every table, queue (with its dead-letter queue) and the bucket if missing."""
    for model in MODELS:
        if not model.exists():
            model.create_table(wait=True)
    sqs = aws.client("sqs")
    for queue in QUEUES:
        dlq = sqs.create_queue(QueueName=queue_name(queue) + "-dlq")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        policy = '{"deadLetterTargetArn": "%s", "maxReceiveCount": "5"}' % arn
        sqs.create_queue(QueueName=queue_name(queue), Attributes={"RedrivePolicy": policy})
    s3 = aws.client("s3")
    if config.AWS_REGION == "us-east-1":
        s3.create_bucket(Bucket=config.FILES_BUCKET)
    else:
        s3.create_bucket(
            Bucket=config.FILES_BUCKET, CreateBucketConfiguration={"LocationConstraint": config.AWS_REGION}
        )
