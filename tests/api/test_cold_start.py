"""Each Lambda function's cold start imports its share only (issue 43, docs/deploy.md "Cold start").

The package `make package` builds (`infra/build.py`: the target's runtime and bytecode), unpacked,
with this machine's builds of its native libraries first and the runtime's libraries (boto3,
botocore, ... compiled by the target's Python) last, as Lambda lays them out. For each function of
the template, a fresh target-Python process (`-I -S`) takes the CPU time (`time.process_time`,
which the shared cores' load inflates far less than wall time) of what its cold start imports: `app`
(every function's handler module), then what its handler imports on its first call, read from
app.py itself: the imports in the handler's body, a worker's queue handler and a schedule's jobs
(`workers.HANDLERS` / `workers.JOBS`, resolved with the wiring), the API function's routes. Best of
RUNS processes (a shared 2-core machine). Skipped when the target's Python is not installed.

What is checked: no function but the API's imports a route module; a worker or a job imports the
capabilities its own modules import and no other (the registry and the subscriber table import a
capability when a lookup or a write first reaches it, not when the house is assembled), its own
queue's handler only; the authorizer no capability (nor the wiring), no boto3 and not the user
records. Shares of the modules a function imported before issue 43 (everything) beyond FLOOR's
(chalice and pynamodb, which every function needs) are asserted: the authorizer's and each worker's
and job's (counted in modules, which no load moves; their times, in CPU, were asserted once and the
best of 5 still moved by a third under the test run's own load). The times are printed beside issue
43's goals (100 ms for the authorizer, 200 ms for the others): this shared machine moves them by tens
of ms, and FLOOR alone takes 110-150 ms of it, so they are goals, not assertions (docs/deploy.md
"Cold start per function").
"""

import ast
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from infra import build, lean, runtime
from tests import lambdapackage

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
AUTHORIZER_MS = 100
FUNCTION_MS = 200
BUDGETS = {"app.api_authorizer": AUTHORIZER_MS}  # the goals of issue 43 (docs/deploy.md: not met here)
# What every function needs whatever it serves: its framework and its DynamoDB client, imported as app.py
# imports them (the garbage collector paused: chalicelib/loading.py).
FLOOR = ["from chalicelib import loading", "loading.pause()", "import chalice.app", "import pynamodb.models"]
# Shares of the modules a function imported before issue 43 beyond FLOOR's: the authorizer's 19 %
# (app.py's settings object, ports and queue names, and the auth core), a worker's or job's 27-58 % (the
# automations worker and the minute jobs the most: they reach messaging, segments, points, stages).
AUTHORIZER_SHARE = 0.35
WORKER_SHARE = 0.8
AUTHORIZER_API = {"authorizer", "errors", "path_routing", "request", "php_query"}
PERIODS = {"every_minute": "minute", "every_hour": "hour"}


def _target_python():
    """The path of the target's Python (on PATH or in pyenv's versions), or None."""
    version = runtime.version()
    home = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = [
        shutil.which(f"python{version}"),
        *sorted(glob.glob(f"{home}/versions/{version}*/bin/python{version}")),
    ]
    for candidate in filter(None, candidates):
        check = f"import sys; sys.exit(sys.version[:{len(version) + 1}] != '{version}.')"
        if subprocess.run([candidate, "-c", check], capture_output=True).returncode == 0:
            return candidate
    return None


PYTHON = _target_python()
pytestmark = pytest.mark.skipif(PYTHON is None, reason=f"no python{runtime.version()} on this machine")


def _handler_imports(name):
    """The statements of app.py's function `name` that import (an import, or a block of them with the
    collector paused: chalicelib/loading.py), as code run after `import app`."""
    tree = ast.parse((ROOT / "app.py").read_text())
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    found = [
        node
        for node in function.body
        if any(isinstance(inner, ast.Import | ast.ImportFrom) for inner in ast.walk(node))
        and not isinstance(node, ast.Return)
    ]
    return ["from app import loading", *(ast.unparse(node) for node in found)] if found else []


def _first_call(handler):
    """What the function `app.<name>` imports on its first call, as code run after `import app`."""
    name = handler.removeprefix("app.")
    if name == "app":
        return ["app.app.routes"]
    lines = _handler_imports(name)
    if name.endswith("_worker"):
        lines += ["from chalicelib import workers", f"workers.HANDLERS[{name.removesuffix('_worker')!r}]"]
    if name in PERIODS:
        lines += ["from chalicelib import workers", f"workers.JOBS[{PERIODS[name]!r}]"]
    return lines


def _own_modules(handler):
    """What a worker's or job's own modules import, without the house assembled (`workers.HANDLERS` and
    `workers.JOBS` hold their `module:name` paths), as code run after `import app`; None for the others."""
    name = handler.removeprefix("app.")
    if name.endswith("_worker"):
        table, key = "HANDLERS", name.removesuffix("_worker")
    elif name in PERIODS:
        table, key = "JOBS", PERIODS[name]
    else:
        return None
    paths = f"dict.__getitem__(workers.{table}, {key!r})"
    return [
        "import importlib",
        "from chalicelib import workers",
        f"paths = {paths} if isinstance({paths}, tuple) else ({paths},)",
        "[importlib.import_module(path.partition(':')[0]) for path in paths]",
    ]


def _runtime_libraries(folder):
    """Copies of the libraries the runtime provides (boto3, botocore, ...), compiled by the target's
    Python as Lambda's are (this environment's have no bytecode of it)."""
    folder.mkdir()
    for module in sorted(lean.RUNTIME_PROVIDED):
        origin = Path(importlib.util.find_spec(module).origin)
        if origin.name == "__init__.py":
            shutil.copytree(origin.parent, folder / origin.parent.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(origin, folder / origin.name)
    lean.compile_all(folder, PYTHON)
    return folder


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """(sys.path of a function, template) of the package `make package` builds (kept between runs while
    its inputs are unchanged: tests/lambdapackage.py)."""
    folder = tmp_path_factory.mktemp("coldstart")
    built = lambdapackage.cached("target", lambda out: build.build(out / "package")) / "package"
    unpacked = folder / "unpacked"
    with zipfile.ZipFile(built / "deployment.zip") as zipped:
        zipped.extractall(unpacked)
    natives = build.host_natives(unpacked, folder / "natives")
    provided = _runtime_libraries(folder / "runtime")
    if natives:
        lean.compile_all(natives, PYTHON)
    paths = [str(p) for p in (natives, unpacked, provided) if p]
    template = json.loads((built / "sam.json").read_text())
    return paths, template


def _run(paths, lines, runs=RUNS):
    """(best time in ms of `lines` over `runs` fresh processes, modules imported)."""
    code = "\n".join(
        [
            "import json, sys, time",
            f"sys.path[:0] = {paths!r}",
            "started = time.process_time()",
            *lines,
            "print((time.process_time() - started) * 1000)",
            "print(json.dumps(sorted(sys.modules)))",
        ]
    )
    env = {"PATH": os.environ["PATH"], "STAGE": "prod", "AWS_DEFAULT_REGION": "us-east-1"}
    command = [PYTHON, "-I", "-S", "-c", code]
    done = [subprocess.run(command, env=env, capture_output=True, text=True) for _ in range(runs)]
    failed = [run.stderr for run in done if run.returncode]
    assert not failed, failed[0]
    outputs = [run.stdout.splitlines() for run in done]
    return min(float(output[0]) for output in outputs), set(json.loads(outputs[0][1]))


def _capabilities(modules):
    """The domain capabilities among imported modules (the wiring, which imports none, aside)."""
    return {m.split(".")[2] for m in modules if m.startswith("chalicelib.domain.")} - {"kernel", "wiring"}


def _route_modules(modules):
    """The route modules of chalicelib.api among imported modules (the authorizer's own excepted)."""
    return {m for m in modules if m.startswith("chalicelib.api.") and m.split(".")[2] not in AUTHORIZER_API}


def _share(modules, floor, everything):
    """The part of what everything imports beyond the floor that `modules` import."""
    return len(modules - floor) / len(everything - floor)


def test_each_function_imports_its_share_within_its_budget(package, capsys):
    paths, template = package
    handlers = sorted(
        resource["Properties"]["Handler"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::Serverless::Function"
    )
    assert "app.app" in handlers and "app.api_authorizer" in handlers
    found = {handler: _run(paths, ["import app", *_first_call(handler)]) for handler in handlers}
    floor, floor_modules = _run(paths, FLOOR)
    everything, all_modules = _run(paths, ["import app", *(line for h in handlers for line in _first_call(h))])
    with capsys.disabled():
        print(
            f"\ncold start imports on python{runtime.version()}, best of {RUNS}",
            "(ms; share of the modules beyond the floor):",
        )
        print(f"  {'everything (before issue 43)':32} {everything:6.0f}")
        print(f"  {'chalice and pynamodb (the floor)':32} {floor:6.0f}")
        for handler, (ms, modules) in found.items():
            share = _share(modules, floor_modules, all_modules)
            goal = BUDGETS.get(handler, FUNCTION_MS)
            print(f"  {handler:32} {ms:6.0f}  {share:4.0%}  {len(modules)} modules (goal {goal} ms)")
    authorizer = found["app.api_authorizer"][1]
    assert _capabilities(authorizer) == set() and _route_modules(authorizer) == set() and "boto3" not in authorizer
    assert "chalicelib.domain.wiring" not in authorizer
    assert "chalicelib.auth.users" not in authorizer  # the user records: Basic credentials' only
    assert _share(authorizer, floor_modules, all_modules) <= AUTHORIZER_SHARE
    for handler, (_, modules) in found.items():
        if handler != "app.app":
            assert _route_modules(modules) == set(), handler
        own = _own_modules(handler)
        if own is not None:
            _, imported = _run(paths, ["import app", *own], runs=1)
            assert _capabilities(modules) == _capabilities(imported), handler  # none from the wiring
            assert _share(modules, floor_modules, all_modules) <= WORKER_SHARE, handler
    shared = {"chalicelib.workers.redelivery"}  # every worker's backoff and poison handling, no capability
    worker_modules = {h: {m for m in found[h][1] if m.startswith("chalicelib.workers.")} - shared for h in handlers}
    assert all(len(modules) <= 1 for modules in worker_modules.values()), worker_modules
