"""Docs that cannot drift (issue 44): every count and list of README.md and docs/*.md that the
code or the template can tell is read from them here, and the test fails when the text disagrees.
The package size, which needs a build, is in tests/unit/test_docs_package.py."""

import ast
import configparser
import json
import re
from pathlib import Path

from chalicelib import config
from chalicelib.domain.webhooks.catalog import WEBHOOK_TRIGGERS
from chalicelib.store.schema import QUEUES
from infra import compact
from tests.conftest import TIERS

ROOT = Path(__file__).resolve().parents[2]
WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
NUMBER = {word: n for n, word in enumerate(WORDS.split())}
RESOURCES = json.loads((ROOT / "infra" / "resources.json").read_text())["Resources"]


def _doc(name: str) -> str:
    return " ".join((ROOT / name).read_text().split())  # one line: a phrase may wrap anywhere


def _counted(text: str, pattern: str) -> list[int]:
    """The numbers (words or digits) the pattern's first group finds."""
    found = re.findall(pattern, text, flags=re.IGNORECASE)
    assert found, f"the docs no longer say {pattern!r}: update this test with them"
    return [NUMBER[n.lower()] if n.lower() in NUMBER else int(n.replace(",", "")) for n in found]


def _named(resource_type: str) -> dict[str, dict]:
    return {name: r for name, r in RESOURCES.items() if r.get("Type") == resource_type}


def _suffix(resource: dict, key: str) -> str:
    """`entities` of a name `${AWS::StackName}-entities`."""
    return resource["Properties"][key]["Fn::Sub"].removeprefix("${AWS::StackName}-")


TABLES = sorted(_suffix(t, "TableName") for t in _named("AWS::DynamoDB::Table").values())


def test_webhooks_page_counts_and_lists_every_trigger():
    text = _doc("docs/webhooks.md")
    assert _counted(text, r"the (\w+) triggers of the table below") == [len(WEBHOOK_TRIGGERS)]
    rows = re.findall(r"^\| `(mautic\.[a-z_]+)` \|", (ROOT / "docs/webhooks.md").read_text(), re.MULTILINE)
    assert sorted(rows) == sorted(WEBHOOK_TRIGGERS)


def test_the_tiers_as_counted_and_named():
    """README counts the tiers `make test` runs (all but those pytest.ini keeps it from collecting);
    docs/architecture.md counts them all; each has its `make test-<tier>` target."""
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    skipped = {Path(p).name for p in ini["pytest"]["norecursedirs"].split() if p.startswith("tests/")}
    run = [tier for tier in TIERS if tier not in skipped]
    readme = _doc("README.md")
    assert _counted(readme, r"`make test` runs (\w+) tiers") == [len(run)]
    assert _counted(_doc("docs/architecture.md"), r"(\w+) tiers, each a pytest marker") == [len(TIERS)]
    makefile = (ROOT / "Makefile").read_text()
    for tier in TIERS:
        assert f"`make test-{tier}`" in readme and f"\ntest-{tier}:" in makefile


def test_the_tables_listed_counted_and_torn_down():
    deploy = _doc("docs/deploy.md")
    listed = re.search(r"DynamoDB tables `<stack>-(\w+)`((?:, `-\w+`)*)", deploy)
    assert listed, "docs/deploy.md no longer lists the tables"
    assert sorted([listed.group(1), *re.findall(r"`-(\w+)`", listed.group(2))]) == TABLES
    named = re.search(r"stack `mautic-prod` gives tables ((?:`mautic-prod-\w+`,? )+)", deploy)
    assert named and sorted(re.findall(r"`mautic-prod-(\w+)`", named.group(1))) == TABLES
    retained = sorted(_suffix(t, "TableName") for t in _named("AWS::DynamoDB::Table").values() if t["DeletionPolicy"])
    assert retained == TABLES and {t["DeletionPolicy"] for t in _named("AWS::DynamoDB::Table").values()} == {"Retain"}
    loop = re.search(r"for t in ([\w ]+); do aws dynamodb delete-table --table-name mautic-prod-\$t", deploy)
    assert loop and sorted(loop.group(1).split()) == retained
    assert _counted(deploy, r"The (\w+) tables and the files bucket are retained") == [len(retained)]
    assert _counted(deploy, r"any of the (\w+) tables") == [len(TABLES)]
    assert _counted(_doc("docs/storage.md"), r"(\w+) DynamoDB tables, declared once") == [len(TABLES)]


def test_the_queues_and_their_alarms():
    deploy = _doc("docs/deploy.md")
    listed = re.search(r"SQS queues `<stack>-(\w+)`((?:, `-\w+`)*)", deploy)
    assert listed and [listed.group(1), *re.findall(r"`-(\w+)`", listed.group(2))] == list(QUEUES)
    queues = sorted(_suffix(q, "QueueName") for q in _named("AWS::SQS::Queue").values())
    assert queues == sorted([*QUEUES, *(f"{q}-dlq" for q in QUEUES)])
    alarms = [name for name in _named("AWS::CloudWatch::Alarm") if name.endswith("DeadLetterAlarm")]
    assert _counted(deploy, r"`<Queue>DeadLetterAlarm` \((\d+)\)") == [len(alarms)] == [len(QUEUES)]


FUNCTIONS = r"What the stack creates - (.*?): Lambda functions from the same package"


def _functions() -> list[str]:
    """The Lambda functions chalice makes of app.py: each decorated handler, named in CamelCase."""
    tree = ast.parse((ROOT / "app.py").read_text())
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Attribute) and call.attr in ("on_sqs_message", "schedule"):
                    names.append("".join(part.title() for part in node.name.split("_")))
    return names


def test_every_worker_and_schedule_is_listed():
    """docs/deploy.md's list of functions; tests/unit/test_docs_package.py checks the same names in
    the template `make package` writes."""
    deploy = _doc("docs/deploy.md")
    listed = re.search(FUNCTIONS, deploy)
    assert listed, "docs/deploy.md no longer lists the functions"
    assert re.findall(r"`(\w+)`", listed.group(1)) == _functions()


def test_the_rest_api_resources_and_the_page_limit():
    resources = len(compact.PROXIES) + len(compact.OPEN_PATHS)
    rest_api = r"the REST API \(stage `api`, named after the stack\): (\w+) resources"
    assert _counted(_doc("docs/deploy.md"), rest_api) == [resources]
    assert _counted(_doc("docs/architecture.md"), r"On AWS the REST API is (\w+) resources") == [resources]
    assert _counted(_doc("README.md"), r"A list holds at most ([\d,]+) items \(`MAX_PAGE_LIMIT`") == [
        config.active().MAX_PAGE_LIMIT
    ]


def test_nothing_links_outside_the_repository():
    """A clone must not depend on a file beside it (`../shared/...`)."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert [path.name for path in docs if "../shared" in path.read_text() or "/work/shared" in path.read_text()] == []


def test_the_workers_batches_and_the_runtime():
    """docs/deploy.md's "Workers" numbers and the README's runtime, read from workers.SOURCES,
    infra/resources.json and infra/runtime.py."""
    from chalicelib import workers
    from infra import runtime

    deploy = _doc("docs/deploy.md")
    sources = workers.SOURCES
    assert _counted(deploy, r"up to (\d+) messages per invocation") == [sources["webhooks"]["batch_size"]]
    assert _counted(deploy, r"\((\d+) for segments, whose messages") == [sources["segments"]["batch_size"]]
    window = sources["webhooks"]["maximum_batching_window_in_seconds"]
    assert _counted(deploy, r"gathered for up to (\d+) second") == [window]
    feedback = sources["feedback"]["maximum_batching_window_in_seconds"]
    assert _counted(deploy, r"feedback worker gathers SES notifications for up to (\d+) seconds") == [feedback]
    sends = sources["sends"]
    assert _counted(deploy, r"The sends worker takes (\d+) messages per invocation") == [sends["batch_size"]]
    assert _counted(deploy, r"runs at most (\d+) invocations at once") == [sends["maximum_concurrency"]]
    assert _counted(deploy, r"with less than (\d+) seconds of the invocation left") == [workers.RESERVE_MS // 1000]
    queues = [q["Properties"] for q in _named("AWS::SQS::Queue").values() if "RedrivePolicy" in q["Properties"]]
    assert {q["RedrivePolicy"]["maxReceiveCount"] for q in queues} == set(
        # before and after issue 43's backoff (maxReceiveCount 5, then 50 with poison moved on its 5th receive)
        _counted(deploy, r"after (\d+)(?: receives to its dead-letter queue| \(`maxReceiveCount`)")
    )
    assert {q["VisibilityTimeout"] for q in queues} == set(_counted(deploy, r"visibility timeout is (\d+) s"))
    assert f"{runtime.RUNTIME} on {runtime.ARCHITECTURE}" in _doc("README.md")
    assert f"**`{runtime.RUNTIME}` on `{runtime.ARCHITECTURE}`**" in deploy
