"""The deploy proven offline: the packaged template, translated from SAM to plain CloudFormation
with aws-sam-translator as CloudFormation's transform would, creates a complete stack in moto's
CloudFormation whose resources exist and are wired.

What `aws cloudformation package` does first (upload deployment.zip, point every CodeUri at it)
is done here against moto's S3. Where moto's CloudFormation does not create a resource type, the
test checks that resource in the translated template instead, and says so:
- AWS::ApiGateway::RestApi is created without importing its OpenAPI Body (moto ignores Body), so
  the routes, the REQUEST authorizer, the `security` of each /api operation and the gateway
  responses are checked in the template;
- AWS::ApiGateway::Deployment: moto refuses to deploy a REST API without methods (the Body it did
  not import), so the deployment is left out of what moto creates and checked in the template;
- AWS::DynamoDB::Table: moto does not apply TimeToLiveSpecification: checked in the template;
- AWS::S3::Bucket: moto applies only its encryption (and tags): versioning, public access block
  and ownership are checked in the template;
- AWS::ApiGateway::Stage, AWS::S3::BucketPolicy and AWS::CloudWatch::Alarm are not supported by
  moto (skipped with a warning), so the stage's throttling, the TLS-only bucket policy and the
  alarms are checked in the template;
- AWS::SQS::QueuePolicy, AWS::SNS::TopicPolicy, AWS::SNS::Subscription, AWS::SES::ConfigurationSet and
  AWS::SES::ConfigurationSetEventDestination (the SES feedback path) are not created by moto's
  CloudFormation: `tests/unit/test_infra.py` checks their wiring in the template;
- AWS::Lambda::EventSourceMapping: moto keeps the batch size but not the batching window, the
  partial batch responses or the scaling: those are checked in the template.
"""

import json
import warnings

import boto3
import pytest

from chalicelib import workers
from chalicelib.store import schema
from devstack.gateway import authorizer as gateway
from infra import build, compact

REGION = "eu-west-1"  # apart from the session's moto state (us-east-1)
STACK = "mautic-stack-test"
BUCKET = "mautic-artifacts"
UNSUPPORTED_BY_MOTO = {
    "AWS::ApiGateway::Stage",
    "AWS::S3::BucketPolicy",
    "AWS::ApiGateway::Deployment",
    "AWS::CloudWatch::Alarm",
    "AWS::SQS::QueuePolicy",
    "AWS::SNS::TopicPolicy",
    "AWS::SNS::Subscription",
    "AWS::SES::ConfigurationSet",
    "AWS::SES::ConfigurationSetEventDestination",
}


class _NoManagedPolicies:
    """The translator's policy loader: chalice's functions use their own role, no managed policy."""

    def load(self):
        return {}


def _translate(sam):
    from samtranslator.translator.transform import transform

    return transform(sam, {}, _NoManagedPolicies())


@pytest.fixture(scope="module")
def translated(tmp_path_factory):
    out = build.chalice_package(tmp_path_factory.mktemp("project"))
    sam = compact.finish(json.loads((out / "sam.json").read_text()))
    for resource in sam["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":  # as `aws cloudformation package` rewrites it
            resource["Properties"]["CodeUri"] = f"s3://{BUCKET}/deployment.zip"
    return _translate(sam), out / "deployment.zip"


def _client(service):
    return boto3.client(service, region_name=REGION)


@pytest.fixture(scope="module")
def stack(translated, aws):
    template, package = translated
    _client("s3").create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    _client("s3").upload_file(str(package), BUCKET, "deployment.zip")
    for_moto = dict(
        template,
        Resources={name: r for name, r in template["Resources"].items() if r["Type"] != "AWS::ApiGateway::Deployment"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # moto warns for each type it does not create
        _client("cloudformation").create_stack(
            StackName=STACK, TemplateBody=json.dumps(for_moto), Capabilities=["CAPABILITY_IAM"]
        )
    (described,) = _client("cloudformation").describe_stacks(StackName=STACK)["Stacks"]
    pages = _client("cloudformation").get_paginator("list_stack_resources").paginate(StackName=STACK)
    resources = {r["LogicalResourceId"]: r for page in pages for r in page["StackResourceSummaries"]}
    return described, resources, template


def _of_type(template, kind):
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def test_the_stack_is_complete(stack):
    described, resources, template = stack
    assert described["StackStatus"] == "CREATE_COMPLETE"
    # A resource under a condition (the alarm mail subscription) is not created with the defaults.
    created = {
        name
        for name, r in template["Resources"].items()
        if r["Type"] not in UNSUPPORTED_BY_MOTO and "Condition" not in r
    }
    assert created <= set(resources)
    assert all(r["ResourceStatus"] == "CREATE_COMPLETE" for r in resources.values())
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described["Outputs"]}
    assert outputs["ResourcePrefix"] == f"{STACK}-"


def test_tables_have_their_keys_indexes_and_ttl(stack):
    _, resources, template = stack
    dynamodb = _client("dynamodb")
    for name, declared in _of_type(template, "AWS::DynamoDB::Table").items():
        table = dynamodb.describe_table(TableName=resources[name]["PhysicalResourceId"])["Table"]
        properties = declared["Properties"]
        assert table["TableName"] == properties["TableName"]["Fn::Sub"].replace("${AWS::StackName}", STACK)
        assert table["KeySchema"] == properties["KeySchema"]
        assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        indexes = {i["IndexName"]: i["KeySchema"] for i in table.get("GlobalSecondaryIndexes", [])}
        assert indexes == {i["IndexName"]: i["KeySchema"] for i in properties.get("GlobalSecondaryIndexes", [])}
    # moto's CloudFormation does not apply TimeToLiveSpecification: checked in the template (the
    # tokens expire; test_infra.py compares every table's TTL with its model).
    ttl = template["Resources"]["TokensTable"]["Properties"]["TimeToLiveSpecification"]
    assert ttl == {"AttributeName": "expires", "Enabled": True}
    names = {resources[n]["PhysicalResourceId"] for n in _of_type(template, "AWS::DynamoDB::Table")}
    assert {f"{STACK}-{suffix}" for suffix in ("entities", "counters", "uniques", "tokens")} <= names


def test_queues_dead_letter_after_max_receives(stack):
    _, resources, _ = stack
    sqs = _client("sqs")
    for queue in schema.QUEUES:
        url = sqs.get_queue_url(QueueName=f"{STACK}-{queue}")["QueueUrl"]
        dlq = sqs.get_queue_url(QueueName=f"{STACK}-{queue}-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert json.loads(attributes["RedrivePolicy"]) == {
            "deadLetterTargetArn": dlq_arn,
            "maxReceiveCount": schema.MAX_RECEIVES,
        }
        # Lambda's advice for a queue feeding a function: 6 x its timeout plus the batching window.
        assert (
            int(attributes["VisibilityTimeout"])
            >= 6 * 30 + workers.SOURCES[queue]["maximum_batching_window_in_seconds"]
        )


def test_files_bucket_is_private_versioned_and_encrypted(stack):
    _, resources, template = stack
    s3 = _client("s3")
    bucket = resources["FilesBucket"]["PhysicalResourceId"]
    s3.head_bucket(Bucket=bucket)
    (rule,) = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    # moto's CloudFormation applies only a bucket's encryption and tags: the rest in the template.
    properties = template["Resources"]["FilesBucket"]["Properties"]
    assert properties["VersioningConfiguration"] == {"Status": "Enabled"}
    assert all(properties["PublicAccessBlockConfiguration"].values())
    assert properties["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    # AWS::S3::BucketPolicy: not created by moto; checked in the template.
    (statement,) = template["Resources"]["FilesBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Effect"] == "Deny" and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_functions_have_handler_environment_and_role(stack):
    _, resources, template = stack
    lambda_ = _client("lambda")
    role = resources["DefaultRole"]["PhysicalResourceId"]
    handlers = {}
    for name in _of_type(template, "AWS::Lambda::Function"):
        config = lambda_.get_function(FunctionName=resources[name]["PhysicalResourceId"])["Configuration"]
        handlers[name] = config["Handler"]
        variables = config["Environment"]["Variables"]
        assert variables["RESOURCE_PREFIX"] == f"{STACK}-" and variables["STAGE"] == "prod"
        assert variables["FILES_BUCKET"] == resources["FilesBucket"]["PhysicalResourceId"]
        assert config["Role"].endswith(f"/{role}")
    assert handlers["APIHandler"] == "app.app" and handlers["ApiAuthorizer"] == "app.api_authorizer"
    assert handlers["SegmentsWorker"] == "app.segments_worker"


def test_each_queue_feeds_its_worker_in_batches(stack):
    _, resources, template = stack
    lambda_, sqs = _client("lambda"), _client("sqs")
    mappings = lambda_.list_event_source_mappings()["EventSourceMappings"]
    sources = {m["EventSourceArn"].rsplit(":", 1)[-1]: m["FunctionArn"].rsplit(":", 1)[-1] for m in mappings}
    for queue in schema.QUEUES:
        worker = resources[f"{queue.capitalize()}Worker"]["PhysicalResourceId"]
        assert sources[f"{STACK}-{queue}"] == worker
        url = sqs.get_queue_url(QueueName=f"{STACK}-{queue}")["QueueUrl"]
        assert url  # the mapping's source exists
    batches = {m["EventSourceArn"].rsplit("-", 1)[-1]: m["BatchSize"] for m in mappings}
    assert batches == {queue: workers.SOURCES[queue]["batch_size"] for queue in schema.QUEUES}
    for name, mapping in _of_type(template, "AWS::Lambda::EventSourceMapping").items():
        assert mapping["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"], name
        assert mapping["Properties"]["MaximumBatchingWindowInSeconds"] >= 1, name


def test_schedules_invoke_their_jobs(stack):
    _, resources, template = stack
    events = _client("events")
    expressions = {}
    for name, _rule in _of_type(template, "AWS::Events::Rule").items():
        described = events.describe_rule(Name=resources[name]["PhysicalResourceId"])
        targets = events.list_targets_by_rule(Rule=described["Name"])["Targets"]
        (target,) = targets
        function = target["Arn"].rsplit(":", 1)[-1]
        expressions[function] = described["ScheduleExpression"]
    assert expressions[resources["EveryMinute"]["PhysicalResourceId"]] == "rate(1 minute)"
    assert expressions[resources["EveryHour"]["PhysicalResourceId"]] == "rate(1 hour)"


def test_the_rest_api_exists_with_its_authorizer(stack):
    _, resources, template = stack
    apis = _client("apigateway").get_rest_apis()["items"]
    assert resources["RestAPI"]["PhysicalResourceId"] in {api["id"] for api in apis}
    # moto creates the REST API without importing its OpenAPI Body: checked in the template.
    body = template["Resources"]["RestAPI"]["Properties"]["Body"]
    definition = body["securityDefinitions"][compact.AUTHORIZER]["x-amazon-apigateway-authorizer"]
    assert definition["type"] == "request"
    assert "${ApiAuthorizer.Arn}" in definition["authorizerUri"]["Fn::Sub"]
    assert definition["authorizerResultTtlInSeconds"] == {"Ref": "AuthorizerCacheSeconds"}
    for path, operations in body["paths"].items():
        for method, operation in operations.items():
            guarded = operation.get("security") == [{compact.AUTHORIZER: []}]
            assert guarded == (path.startswith("/api/") and path not in compact.OPEN_PATHS), f"{method} {path}"
    assert set(body["paths"]) == {*compact.PROXIES, *compact.OPEN_PATHS} and compact.OPEN_PATHS == gateway.OPEN_PATHS
    responses = body["x-amazon-apigateway-gateway-responses"]
    assert {"UNAUTHORIZED", "ACCESS_DENIED", "MISSING_AUTHENTICATION_TOKEN"} <= set(responses)
    permission = resources["ApiAuthorizerInvokePermission"]
    assert permission["ResourceStatus"] == "CREATE_COMPLETE"
    # AWS::ApiGateway::Stage: not created by moto; checked in the template.
    (stage,) = _of_type(template, "AWS::ApiGateway::Stage").values()
    assert stage["Properties"]["StageName"] == "api" and stage["Properties"]["MethodSettings"]
    (deployment,) = _of_type(template, "AWS::ApiGateway::Deployment").values()
    assert deployment["Properties"]["RestApiId"] == {"Ref": "RestAPI"}
    assert stage["Properties"]["DeploymentId"] == {"Ref": next(iter(_of_type(template, "AWS::ApiGateway::Deployment")))}


def test_alarms_watch_dead_letters_errors_throttles_and_email_reputation(stack):
    """AWS::CloudWatch::Alarm: not created by moto; checked in the template. Each alarm notifies
    the alarm topic, which moto creates."""
    _, resources, template = stack
    alarms = {name: r["Properties"] for name, r in _of_type(template, "AWS::CloudWatch::Alarm").items()}
    assert all(a["AlarmActions"] == [{"Ref": "AlarmTopic"}] for a in alarms.values())
    assert resources["AlarmTopic"]["ResourceStatus"] == "CREATE_COMPLETE"
    watched = {a["MetricName"]: a for a in alarms.values() if "MetricName" in a}
    dead_letters = {
        a["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for a in alarms.values()
        if a.get("MetricName") == "ApproximateNumberOfMessagesVisible"
    }
    assert dead_letters == {f"{queue.capitalize()}DeadLetterQueue" for queue in schema.QUEUES}
    assert all(
        a["Threshold"] == 0 and a["ComparisonOperator"] == "GreaterThanThreshold"
        for a in alarms.values()
        if a.get("MetricName") == "ApproximateNumberOfMessagesVisible"
    )
    assert watched["5XXError"]["Namespace"] == "AWS/ApiGateway" and watched["5XXError"]["Statistic"] == "Average"
    assert (
        watched["Reputation.BounceRate"]["Namespace"] == watched["Reputation.ComplaintRate"]["Namespace"] == "AWS/SES"
    )
    summed = {
        name: {m["MetricStat"]["Metric"]["MetricName"] for m in a["Metrics"] if "MetricStat" in m}
        for name, a in alarms.items()
        if "Metrics" in a
    }
    assert summed == {
        "TableThrottlesAlarm": {"ReadThrottleEvents", "WriteThrottleEvents"},
        "FunctionErrorsAlarm": {"Errors"},
        "FunctionThrottlesAlarm": {"Throttles"},
    }
    functions = {
        m["MetricStat"]["Metric"]["Dimensions"][0]["Value"]["Ref"]
        for m in alarms["FunctionErrorsAlarm"]["Metrics"]
        if "MetricStat" in m
    }
    assert functions == set(_of_type(template, "AWS::Lambda::Function"))
    tables = {
        m["MetricStat"]["Metric"]["Dimensions"][0]["Value"]["Ref"]
        for m in alarms["TableThrottlesAlarm"]["Metrics"]
        if "MetricStat" in m
    }
    assert tables == set(_of_type(template, "AWS::DynamoDB::Table"))
