"""The Lambda runtime is a setting (`infra/runtime.py`): a current Amazon Linux 2023 runtime, named
in every function with its architecture, and an interpreter of its version at hand for the build
(`infra/python.sh`). The runtime test fails by itself on the day Lambda deprecates the runtime."""

import datetime
import json
import subprocess
from pathlib import Path

import cfnlint
import pytest

from infra import build, compact, runtime

ROOT = Path(__file__).resolve().parents[2]


def test_the_pinned_runtime_is_not_deprecated():
    """Fails from the deprecation date on (a month before Lambda blocks creating functions on it):
    move RUNTIME to a newer row of the table (docs/deploy.md, "When Lambda deprecates the runtime")."""
    deprecated, block_create, block_update = runtime.lifecycle()
    assert deprecated < block_create < block_update
    assert datetime.date.today() < deprecated, (
        f"{runtime.RUNTIME} is deprecated since {deprecated}; Lambda refuses new functions on it from "
        f"{block_create} and updates from {block_update}"
    )


def test_the_runtime_table_agrees_with_cfn_lints():
    """The table's dates are those cfn-lint checks templates with (its copy of AWS's table)."""
    data = json.loads(
        (Path(cfnlint.__file__).parent / "data" / "AdditionalSpecs" / "LmbdRuntimeLifecycle.json").read_text()
    )
    for name, dates in runtime.LIFECYCLE.items():
        lint = data[name]
        assert dates == (lint["deprecated"], lint["create-block"], lint["update-block"]), name


def test_the_target_is_an_amazon_linux_2023_runtime_with_wheels_for_its_architecture():
    assert runtime.RUNTIME in runtime.AMAZON_LINUX_2023 and runtime.RUNTIME in runtime.LIFECYCLE
    machine = runtime.MACHINES[runtime.ARCHITECTURE][0]
    assert all(tag.endswith("_" + machine) for tag in runtime.platforms())
    assert f"manylinux_{runtime.GLIBC}_{machine}" in runtime.platforms()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    out = build.chalice_package(tmp_path_factory.mktemp("project"))
    return compact.finish(json.loads((out / "sam.json").read_text()))


def _functions(template):
    return {n: r["Properties"] for n, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}


def test_every_function_names_the_runtime_and_architecture(template):
    functions = _functions(template)
    assert {"APIHandler", "ApiAuthorizer", "SendsWorker", "EveryMinute"} <= set(functions)
    for name, properties in functions.items():
        assert (properties["Runtime"], properties["Architectures"]) == (runtime.RUNTIME, [runtime.ARCHITECTURE]), name


def test_workers_read_batches_and_report_partial_failures(template):
    from chalicelib import workers

    events = {
        name: event["Properties"]
        for name, properties in _functions(template).items()
        for event in properties.get("Events", {}).values()
        if event["Type"] == "SQS"
    }
    assert set(events) == {f"{queue.capitalize()}Worker" for queue in workers.SOURCES}
    for name, source in events.items():
        assert source["BatchSize"] > 1 and source["MaximumBatchingWindowInSeconds"] > 0, name
        assert source["FunctionResponseTypes"] == ["ReportBatchItemFailures"], name
    assert events["SendsWorker"]["ScalingConfig"] == {
        "MaximumConcurrency": workers.SOURCES["sends"]["maximum_concurrency"]
    }


def test_python_sh_finds_an_interpreter_of_the_target_version():
    python = build.target_python()
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version == runtime.version()
