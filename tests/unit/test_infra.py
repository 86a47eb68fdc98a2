"""The AWS template: `infra/resources.json` agrees with the code, and the packaged template lints.

The tables are compared with the PynamoDB models (the same schema `create_table` uses locally),
the queues with `schema.QUEUES`, the unknown-path answer with `errors.not_found_path_json()`.
The last tests run `chalice package --merge-template infra/resources.json` on a copy of the
application with an empty requirements.txt (no wheels to download: fast and offline) and
`cfn-lint` on the result.
"""

import json
import time
from pathlib import Path

import pytest
from pynamodb.attributes import TTLAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from chalicelib import config
from chalicelib.api import errors
from chalicelib.store import schema
from chalicelib.store.models import MODELS
from infra import build, compact

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra" / "resources.json"
MAX_RECEIVE_COUNT = schema.MAX_RECEIVES  # the local queues have it too (schema.ensure_resources)
CFN_LINT = "import sys; from cfnlint.runner import main; sys.argv[0] = 'cfn-lint'; sys.exit(main())"


@pytest.fixture(scope="module")
def infra():
    return json.loads(INFRA.read_text())


def _resources(template, kind):
    return {name: r for name, r in template["Resources"].items() if r.get("Type") == kind}


def _env(template, function="APIHandler"):
    return template["Resources"][function]["Properties"]["Environment"]["Variables"]


def _name(template, suffix):
    """The name in the template of a resource called RESOURCE_PREFIX + suffix in the code."""
    return {"Fn::Sub": compact.ENVIRONMENT["RESOURCE_PREFIX"]["Fn::Sub"] + suffix}


def _suffix(name):
    assert name.startswith(config.active().RESOURCE_PREFIX), name
    return name[len(config.active().RESOURCE_PREFIX) :]


def _by(items, key):
    return sorted(items, key=lambda item: item[key])


def _index(index):
    """A pynamodb index schema as CloudFormation declares it."""
    projection = {"ProjectionType": index["projection"]["ProjectionType"]}
    if "NonKeyAttributes" in index["projection"]:
        projection["NonKeyAttributes"] = sorted(index["projection"]["NonKeyAttributes"])
    cfn = {"IndexName": index["index_name"], "KeySchema": _by(index["key_schema"], "KeyType"), "Projection": projection}
    if index.get("provisioned_throughput"):
        cfn["ProvisionedThroughput"] = index["provisioned_throughput"]
    return cfn


def _expected_table(model):
    """The CloudFormation properties that `model.create_table()` would give the table."""
    meta, model_schema = model.Meta, model._get_schema()
    expected = {
        "AttributeDefinitions": _by(model_schema["attribute_definitions"], "AttributeName"),
        "KeySchema": _by(model_schema["key_schema"], "KeyType"),
        "BillingMode": getattr(meta, "billing_mode", "PROVISIONED"),
        "GlobalSecondaryIndexes": _by([_index(i) for i in model_schema["global_secondary_indexes"]], "IndexName"),
        "LocalSecondaryIndexes": _by([_index(i) for i in model_schema["local_secondary_indexes"]], "IndexName"),
        "TimeToLiveSpecification": None,
        "StreamSpecification": None,
        "ProvisionedThroughput": None,
    }
    ttl = model._ttl_attribute()
    if ttl is not None:
        assert isinstance(ttl, TTLAttribute)
        expected["TimeToLiveSpecification"] = {"AttributeName": ttl.attr_name, "Enabled": True}
    if hasattr(meta, "stream_view_type"):
        expected["StreamSpecification"] = {"StreamViewType": meta.stream_view_type}
    if expected["BillingMode"] == "PROVISIONED":
        expected["ProvisionedThroughput"] = {
            "ReadCapacityUnits": meta.read_capacity_units,
            "WriteCapacityUnits": meta.write_capacity_units,
        }
    return expected


def _actual_table(properties):
    def indexes(key):
        found = []
        for index in properties.get(key, []):
            index = dict(index, KeySchema=_by(index["KeySchema"], "KeyType"))
            projection = dict(index["Projection"])
            if "NonKeyAttributes" in projection:
                projection["NonKeyAttributes"] = sorted(projection["NonKeyAttributes"])
            index["Projection"] = projection
            found.append(index)
        return _by(found, "IndexName")

    ttl = properties.get("TimeToLiveSpecification")
    return {
        "AttributeDefinitions": _by(properties["AttributeDefinitions"], "AttributeName"),
        "KeySchema": _by(properties["KeySchema"], "KeyType"),
        "BillingMode": properties.get("BillingMode", "PROVISIONED"),
        "GlobalSecondaryIndexes": indexes("GlobalSecondaryIndexes"),
        "LocalSecondaryIndexes": indexes("LocalSecondaryIndexes"),
        "TimeToLiveSpecification": ttl if ttl and ttl.get("Enabled") else None,
        "StreamSpecification": properties.get("StreamSpecification"),
        "ProvisionedThroughput": properties.get("ProvisionedThroughput"),
    }


def test_tables_match_the_models(infra):
    tables = _resources(infra, "AWS::DynamoDB::Table")
    by_name = {json.dumps(r["Properties"]["TableName"], sort_keys=True): (logical, r) for logical, r in tables.items()}
    assert len(by_name) == len(tables) == len(MODELS)
    for model in MODELS:
        key = json.dumps(_name(infra, _suffix(model.Meta.table_name)), sort_keys=True)
        assert key in by_name, f"no table for {model.__name__} ({model.Meta.table_name})"
        logical, table = by_name[key]
        assert _actual_table(table["Properties"]) == _expected_table(model), logical
        # Stateful: a stack deletion or replacement must not drop the data.
        assert table.get("DeletionPolicy") == table.get("UpdateReplacePolicy") == "Retain", logical


def test_table_comparison_sees_indexes_and_ttl():
    """The comparison above covers GSIs and TTLs, for the day a model declares one."""

    class ByEmail(GlobalSecondaryIndex):
        class Meta:
            index_name = "by-email"
            projection = KeysOnlyProjection()

        email = UnicodeAttribute(hash_key=True)

    class Sample(Model):
        class Meta:
            table_name = config.active().RESOURCE_PREFIX + "sample"
            billing_mode = "PAY_PER_REQUEST"

        pk = UnicodeAttribute(hash_key=True)
        expires = TTLAttribute()
        by_email = ByEmail()

    table = {
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "email", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by-email",
                "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": True},
    }
    assert _actual_table(table) == _expected_table(Sample)
    for key in ("GlobalSecondaryIndexes", "TimeToLiveSpecification"):
        assert _actual_table({k: v for k, v in table.items() if k != key}) != _expected_table(Sample)


def test_every_queue_has_a_dead_letter_queue(infra):
    queues = _resources(infra, "AWS::SQS::Queue")
    by_name = {json.dumps(r["Properties"]["QueueName"], sort_keys=True): logical for logical, r in queues.items()}
    assert len(by_name) == len(queues) == 2 * len(schema.QUEUES)
    for queue in schema.QUEUES:
        name = _suffix(schema.queue_name(queue))
        logical = by_name.get(json.dumps(_name(infra, name), sort_keys=True))
        dlq = by_name.get(json.dumps(_name(infra, name + "-dlq"), sort_keys=True))
        assert logical and dlq, f"queue {queue} or its dead-letter queue is missing"
        properties = queues[logical]["Properties"]
        assert properties["RedrivePolicy"] == {
            "deadLetterTargetArn": {"Fn::GetAtt": [dlq, "Arn"]},
            "maxReceiveCount": MAX_RECEIVE_COUNT,
        }
        # A message keeps its first enqueue time in the DLQ: the DLQ must keep it longer.
        assert queues[dlq]["Properties"]["MessageRetentionPeriod"] > properties.get("MessageRetentionPeriod", 345600)


def test_files_bucket_is_private_and_encrypted(infra):
    buckets = _resources(infra, "AWS::S3::Bucket")
    assert list(buckets) == [compact.ENVIRONMENT["FILES_BUCKET"]["Ref"]]
    properties = next(iter(buckets.values()))["Properties"]
    assert properties["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert properties["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert properties["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert "AccessControl" not in properties and "WebsiteConfiguration" not in properties


def _references(node):
    """Logical ids a policy document points at through Fn::GetAtt or ${X.Arn} substitutions."""
    if isinstance(node, list):
        return set().union(*map(_references, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    if "Fn::GetAtt" in node:
        return {node["Fn::GetAtt"][0]}
    if "Fn::Sub" in node and isinstance(node["Fn::Sub"], str):
        text = node["Fn::Sub"]
        return {part.split("}")[0].split(".")[0] for part in text.split("${")[1:]} - {"AWS::Partition"}
    return set().union(*map(_references, node.values())) if node else set()


def test_function_may_use_exactly_the_service_resources(infra):
    policies = _resources(infra, "AWS::IAM::Policy")
    assert len(policies) == 1
    policy = next(iter(policies.values()))["Properties"]
    assert policy["Roles"] == [{"Ref": "DefaultRole"}]  # the role chalice gives the function
    statements = policy["PolicyDocument"]["Statement"]
    assert all(s["Effect"] == "Allow" and s.get("Resource") != "*" for s in statements)
    # SMS to phone numbers has no resource ARN: SNS Publish to anything but a topic, and nothing else.
    (texts,) = [s for s in statements if "NotResource" in s]
    assert texts["Action"] == ["sns:Publish"] and texts["NotResource"] == {"Fn::Sub": "arn:${AWS::Partition}:sns:*:*:*"}
    granted = _references(statements)
    wanted = (
        set(_resources(infra, "AWS::DynamoDB::Table"))
        | set(_resources(infra, "AWS::S3::Bucket"))
        | {r for r in _resources(infra, "AWS::SQS::Queue") if not r.endswith("DeadLetterQueue")}
        | {"WebhooksDeadLetterQueue"}
    )  # the webhook worker dead-letters deliveries itself
    assert granted == wanted


def _gateway_response(template):
    body = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]
    return body["x-amazon-apigateway-gateway-responses"]["MISSING_AUTHENTICATION_TOKEN"]


def test_unknown_paths_answer_the_json_404(infra):
    # In the API's OpenAPI body, not a separate AWS::ApiGateway::GatewayResponse: the body is
    # re-imported on every deployment, which would silently drop a separate gateway response.
    response = _gateway_response(infra)
    assert response["statusCode"] == "404"
    template = response["responseTemplates"]["application/json"]
    assert template == errors.not_found_path_json()
    assert "$" not in template and "#" not in template  # nothing for the template engine
    assert response["responseParameters"] == {
        f"gatewayresponse.header.{name}": f"'{value}'" for name, value in errors.headers().items()
    }
    assert response["responseParameters"]["gatewayresponse.header.Mautic-Version"] == f"'{config.MAUTIC_VERSION}'"


@pytest.fixture(scope="module")
def packaged(tmp_path_factory):
    """`chalice package --stage prod --merge-template infra/resources.json` of a lean copy."""
    out = build.chalice_package(tmp_path_factory.mktemp("project"))
    result = build.run(
        "import runpy, sys; sys.argv = ['compact', 'out/sam.json']; "
        "runpy.run_module('infra.compact', run_name='__main__')",
        cwd=out.parent,
    )
    assert result.returncode == 0, result.stderr
    return out / "sam.json"


def test_packaged_template_merges_infra(packaged):
    template = json.loads(packaged.read_text())
    resources = template["Resources"]
    assert resources["DefaultRole"]["Type"] == "AWS::IAM::Role"
    handler = resources["APIHandler"]
    assert handler["Type"] == "AWS::Serverless::Function"
    assert handler["Properties"]["Role"] == {"Fn::GetAtt": ["DefaultRole", "Arn"]}
    variables = _env(template)
    assert variables["STAGE"] == "prod"
    # The API starts switched off (initial settings); an administrator turns it on with the CLI.
    assert variables["API_ENABLED"] == "0" and variables["BASIC_AUTH_ENABLED"] == "0"
    assert variables["RESOURCE_PREFIX"] == {"Fn::Sub": "${AWS::StackName}-"}
    assert variables["FILES_BUCKET"] == {"Ref": "FilesBucket"}
    assert set(resources["RestAPI"]["Properties"]["DefinitionBody"]["paths"]) == {*compact.PROXIES, *compact.OPEN_PATHS}
    assert _gateway_response(template)["responseTemplates"]["application/json"] == errors.not_found_path_json()
    # Lambda refuses an SQS event source whose visibility timeout is below the function's.
    longest = max(
        r["Properties"].get("Timeout", 3) for r in resources.values() if r["Type"] == "AWS::Serverless::Function"
    )
    for queue in _resources(template, "AWS::SQS::Queue").values():
        assert queue["Properties"].get("VisibilityTimeout", 30) >= longest


def test_the_api_stage_is_throttled(packaged):
    """API Gateway answers 429 past a steady rate and burst on every method, before any function runs."""
    (setting,) = json.loads(packaged.read_text())["Resources"]["RestAPI"]["Properties"]["MethodSettings"]
    assert (setting["ResourcePath"], setting["HttpMethod"]) == ("/*", "*")
    assert 0 < setting["ThrottlingRateLimit"] < setting["ThrottlingBurstLimit"]


def test_every_function_reaches_the_service_resources(packaged):
    template = json.loads(packaged.read_text())
    resources = template["Resources"]
    functions = _resources(template, "AWS::Serverless::Function")
    assert {"APIHandler", "SegmentsWorker", "EveryMinute", "EveryHour"} <= set(functions)
    sources = []
    for name, function in functions.items():
        assert _env(template, name) == {**_env(template), **compact.ENVIRONMENT}
        assert "ServicePolicy" in function["DependsOn"]
        sources += [
            e["Properties"]["Queue"] for e in function["Properties"].get("Events", {}).values() if e["Type"] == "SQS"
        ]
    assert {"Fn::GetAtt": ["SegmentsQueue", "Arn"]} in sources
    assert all(source["Fn::GetAtt"][0] in resources for source in sources)


def test_packaged_template_passes_cfn_lint(packaged):
    started = time.monotonic()
    result = build.run(CFN_LINT, "--", str(packaged), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 120


def test_authorizer_refusals_answer_the_local_gateways_json(infra):
    """API Gateway's UNAUTHORIZED and ACCESS_DENIED answers are the local gateway's (devstack/gateway)."""
    from devstack.gateway import authorizer as local

    responses = infra["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["x-amazon-apigateway-gateway-responses"]
    unauthorized, denied = local.unauthorized(), local.access_denied({"error": "$context.authorizer.error"})
    for name, expected in (("UNAUTHORIZED", unauthorized), ("ACCESS_DENIED", denied)):
        response = responses[name]
        assert int(response["statusCode"]) == expected["statusCode"]
        assert response["responseTemplates"]["application/json"] == expected["body"]
        assert response["responseParameters"] == {
            f"gatewayresponse.header.{header}": f"'{value}'" for header, value in expected["headers"].items()
        }


def test_a_body_over_api_gateways_quota_answers_the_local_gateways_json_413(infra):
    """API Gateway's REQUEST_TOO_LARGE answer is the local gateway's (devstack/gateway, docs/security.md)."""
    from devstack import gateway

    responses = infra["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["x-amazon-apigateway-gateway-responses"]
    expected, response = gateway.request_too_large(), responses["REQUEST_TOO_LARGE"]
    assert int(response["statusCode"]) == expected["statusCode"] == 413
    assert response["responseTemplates"]["application/json"] == expected["body"]
    assert response["responseParameters"] == {
        f"gatewayresponse.header.{header}": f"'{value}'" for header, value in expected["headers"].items()
    }


def test_ses_feedback_reaches_the_feedback_queue(infra):
    """Issue 28: the configuration set's bounce, complaint and delivery events go to the feedback
    topic, which SES may publish to; the topic's subscription feeds the feedback queue, which only
    that topic may send to; every function sends with that configuration set."""
    resources = infra["Resources"]
    destination = resources["MailFeedbackDestination"]["Properties"]
    assert destination["ConfigurationSetName"] == {"Ref": "MailConfigurationSet"}
    event = destination["EventDestination"]
    assert event["Enabled"] and set(event["MatchingEventTypes"]) == {"bounce", "complaint", "delivery"}
    assert event["SnsDestination"]["TopicARN"] == {"Ref": "FeedbackTopic"}
    [publish] = resources["FeedbackTopicPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert publish["Principal"] == {"Service": "ses.amazonaws.com"} and publish["Action"] == "sns:Publish"
    subscription = resources["FeedbackSubscription"]["Properties"]
    assert subscription["Protocol"] == "sqs"
    assert subscription["Endpoint"] == {"Fn::GetAtt": ["FeedbackQueue", "Arn"]}
    [send] = resources["FeedbackQueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert send["Condition"]["ArnEquals"]["aws:SourceArn"] == {"Ref": "FeedbackTopic"}
    assert compact.ENVIRONMENT["SES_CONFIGURATION_SET"] == {"Ref": "MailConfigurationSet"}
    # /mailer/callback accepts the stack's own topic and account only (issue 39)
    assert compact.ENVIRONMENT["MAILER_CALLBACK_TOPICS"] == {"Ref": "FeedbackTopic"}
    assert compact.ENVIRONMENT["STACK_ACCOUNT_ID"] == {"Ref": "AWS::AccountId"}


@pytest.mark.parametrize("failure", ["AUTHORIZER_FAILURE", "INTEGRATION_FAILURE"])
def test_a_failed_authorizer_or_invocation_answers_the_json_503_with_retry_after(infra, failure):
    # API Gateway's default is a 500 ("AuthorizerConfigurationException"/"Internal server error"):
    # issue 30 wants a dependency that failed past its retries to be a 503 the client may retry.
    body = infra["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]
    response = body["x-amazon-apigateway-gateway-responses"][failure]
    assert response["statusCode"] == "503"
    assert response["responseTemplates"]["application/json"] == errors.unavailable_json()
    headers = {f"gatewayresponse.header.{name}": f"'{value}'" for name, value in errors.headers().items()}
    assert response["responseParameters"] == dict(
        headers, **{"gatewayresponse.header.Retry-After": f"'{config.active().RETRY_AFTER_SECONDS}'"}
    )
