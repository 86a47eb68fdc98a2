"""docs/deploy.md's recipe, replayed offline (issue 44): the commands of "Deploy" and "Tear down",
read from the page, each carried out with boto3 as the AWS CLI carries it out, against moto.

The AWS CLI is not a dependency of the project, so its two rules that matter here are replayed:
`aws cloudformation package` uploads each function's code to `--s3-bucket` and writes the template
with `CodeUri` pointing there (YAML); `aws cloudformation deploy` refuses, before calling AWS, a
template over 51,200 bytes unless `--s3-bucket` is given, in which case it uploads the template and
creates and executes a change set from its URL. CloudFormation's part (the SAM transform, then the
resources) is aws-sam-translator and moto's CloudFormation, as in tests/unit/test_stack.py, with the
same resource types left out. Then the tear-down: the stack deleted, and the retained tables and
bucket deleted by the page's own commands, after which nothing of the stack is left.
"""

import hashlib
import json
import re
import shlex
import warnings
from pathlib import Path

import boto3
import pytest
import yaml

from infra import build, compact
from tests.unit.test_stack import UNSUPPORTED_BY_MOTO, _translate

ROOT = Path(__file__).resolve().parents[2]
REGION = "eu-west-2"  # apart from the session's state and tests/unit/test_stack.py's stack
ARTIFACTS = "mautic-prod-artifacts"
INLINE_LIMIT = 51_200  # the CLI's most for TemplateBody (awscli customizations/cloudformation/deploy.py)


class CliRefused(Exception):
    """What the CLI answers without calling AWS."""


def _client(service):
    return boto3.client(service, region_name=REGION)


def _section(title: str) -> str:
    text = (ROOT / "docs" / "deploy.md").read_text()
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, f"docs/deploy.md has no section {title!r}"
    return found.group(1)


def _commands(title: str) -> list[str]:
    """The shell commands of a section's `sh` blocks, continuation lines joined."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", _section(title), re.MULTILINE | re.DOTALL)
    joined = "\n".join(blocks).replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def _options(command: str) -> dict[str, str]:
    words = shlex.split(command.replace("<artifacts-bucket>", ARTIFACTS))
    return {word: words[i + 1] for i, word in enumerate(words) if word.startswith("--") and i + 1 < len(words)}


def package(options: dict[str, str], folder: Path) -> Path:
    """`aws cloudformation package`: each function's code to the bucket (keyed by its MD5, as the CLI
    does), its CodeUri rewritten, the template written as YAML."""
    template = json.loads((folder / Path(options["--template-file"]).name).read_text())
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            code = folder / Path(resource["Properties"]["CodeUri"]).name
            key = hashlib.md5(code.read_bytes()).hexdigest()
            _client("s3").upload_file(str(code), options["--s3-bucket"], key)
            resource["Properties"]["CodeUri"] = f"s3://{options['--s3-bucket']}/{key}"
    out = folder / Path(options["--output-template-file"]).name
    out.write_text(yaml.safe_dump(template, default_flow_style=False))
    return out


def deploy(options: dict[str, str], folder: Path) -> None:
    """`aws cloudformation deploy`: refused over the inline limit without a bucket; otherwise the
    template uploaded and a change set created and executed (CloudFormation's SAM transform done
    here with aws-sam-translator, since moto has none)."""
    body = (folder / Path(options["--template-file"]).name).read_bytes()
    if len(body) > INLINE_LIMIT and "--s3-bucket" not in options:
        raise CliRefused("Templates with a size greater than 51,200 bytes must be deployed via an S3 Bucket.")
    translated = _translate(yaml.safe_load(body))
    translated["Resources"] = {  # moto cannot deploy an API whose OpenAPI body it did not import
        name: r for name, r in translated["Resources"].items() if r["Type"] != "AWS::ApiGateway::Deployment"
    }
    key = f"templates/{hashlib.md5(body).hexdigest()}.template"
    _client("s3").put_object(Bucket=options["--s3-bucket"], Key=key, Body=json.dumps(translated).encode())
    url = f"https://s3.{REGION}.amazonaws.com/{options['--s3-bucket']}/{key}"
    cloudformation = _client("cloudformation")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # moto warns for each type it does not create
        change = cloudformation.create_change_set(
            StackName=options["--stack-name"],
            ChangeSetName="deploy",
            ChangeSetType="CREATE",
            TemplateURL=url,
            Capabilities=[options["--capabilities"]],
        )
        cloudformation.execute_change_set(ChangeSetName=change["Id"])


def tear_down(command: str, bucket: str) -> None:
    """One command of "Tear down", as the CLI (or the page's Python line) carries it out."""
    command = command.replace("<FilesBucketName>", bucket)
    loop = re.match(r"for t in ([\w ]+); do (aws dynamodb delete-table --table-name \S+\$t); done$", command)
    if loop:
        for name in loop.group(1).split():
            tear_down(loop.group(2).replace("$t", name), bucket)
        return
    words = shlex.split(command)
    if words[:2] == [".venv/bin/python", "-c"]:
        exec(words[2], {})  # the page's boto3 line, in this process: against moto
        return
    options = _options(command)
    call = tuple(words[1:3])
    if call == ("cloudformation", "delete-stack"):
        _client("cloudformation").delete_stack(StackName=options["--stack-name"])
    elif call == ("cloudformation", "wait"):
        assert words[3] == "stack-delete-complete"
        _client("cloudformation").get_waiter("stack_delete_complete").wait(
            StackName=options["--stack-name"], WaiterConfig={"Delay": 1}
        )
    elif call == ("dynamodb", "delete-table"):
        _client("dynamodb").delete_table(TableName=options["--table-name"])
    elif call == ("s3api", "delete-bucket"):
        _client("s3").delete_bucket(Bucket=options["--bucket"])
    else:
        raise AssertionError(f"docs/deploy.md's tear-down has a command this replay does not know: {command}")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """build/package as `make package` writes it (sam.json compacted, deployment.zip)."""
    out = build.chalice_package(tmp_path_factory.mktemp("project"))
    (out / "sam.json").write_text(json.dumps(compact.finish(json.loads((out / "sam.json").read_text()))))
    return out


def _bucket_names() -> list[str]:
    return [bucket["Name"] for bucket in _client("s3").list_buckets()["Buckets"]]


def _stack_names(stack: str) -> dict[str, list[str]]:
    """What of the stack exists, by service."""
    return {
        "tables": [t for t in _client("dynamodb").list_tables()["TableNames"] if t.startswith(f"{stack}-")],
        "queues": [u for u in _client("sqs").list_queues().get("QueueUrls", []) if f"/{stack}-" in u],
        "buckets": [b for b in _bucket_names() if b.startswith(f"{stack}-files")],
    }


def test_the_recipe_deploys_and_tears_down_to_nothing(built, aws, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)  # the page's Python line names no region
    _client("s3").create_bucket(Bucket=ARTIFACTS, CreateBucketConfiguration={"LocationConstraint": REGION})
    package_command, deploy_command = _commands("Deploy")[:2]
    assert package_command.startswith("aws cloudformation package") and deploy_command.startswith(
        "aws cloudformation deploy"
    )
    packaged = package(_options(package_command), built)
    size = packaged.stat().st_size
    assert size > INLINE_LIMIT, f"the packaged template is {size} bytes: the page's --s3-bucket reason is gone"
    without_bucket = {k: v for k, v in _options(deploy_command).items() if k != "--s3-bucket"}
    with pytest.raises(CliRefused):
        deploy(without_bucket, built)

    options = _options(deploy_command)
    deploy(options, built)
    stack = options["--stack-name"]
    (described,) = _client("cloudformation").describe_stacks(StackName=stack)["Stacks"]
    assert described["StackStatus"] == "CREATE_COMPLETE"
    template = _translate(yaml.safe_load(packaged.read_text()))
    created = {n for n, r in template["Resources"].items() if r["Type"] not in UNSUPPORTED_BY_MOTO}
    pages = _client("cloudformation").get_paginator("list_stack_resources").paginate(StackName=stack)
    made = {r["LogicalResourceId"] for page in pages for r in page["StackResourceSummaries"]}
    assert created - {"AlarmEmailSubscription"} <= made  # a subscription only when AlarmEmail is given
    existing = _stack_names(stack)
    assert len(existing["tables"]) == 4 and len(existing["queues"]) == 12 and len(existing["buckets"]) == 1
    (bucket,) = existing["buckets"]
    _client("s3").put_object(Bucket=bucket, Key="form/1/1/file/cv.pdf", Body=b"%PDF")  # data in it
    _client("s3").put_object(Bucket=bucket, Key="form/1/1/file/cv.pdf", Body=b"%PDF v2")  # versioned

    for command in _commands("Tear down"):
        tear_down(command, bucket)
        if command.startswith("aws cloudformation wait"):  # the stack is gone; what it retains is not
            assert _stack_names(stack) == dict(existing, queues=[])
    assert _stack_names(stack) == {"tables": [], "queues": [], "buckets": []}
