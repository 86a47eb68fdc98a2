"""Benchmark (`make bench`): what a Lambda cold start costs.

- the package `make package` builds (offline here: requirements from this environment), zipped
  and unpacked, after `infra/lean.py`;
- `import app`: median of fresh processes, from the unpacked package with only the runtime's
  libraries beside it (what Lambda runs) and from the source tree, with the top `-X importtime`
  entries of the package;
- a contact GET through `chalice.test.Client` in a fresh process against a moto server on
  127.0.0.1: the import, the first request and the warm ones.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from infra import lean
from tests import lambdapackage

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7
IMPORT = "import time; t = time.perf_counter(); import app; print(time.perf_counter() - t)"
SEED = """
import os
from chalicelib import config
config.install(config.Settings.from_environment(os.environ))
from chalicelib import aws_adapters, bootstrap
aws_adapters.install()
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.store import schema
schema.ensure_resources()
bootstrap.first_start()
bootstrap.ensure_admin("admin", "admin-secret")
print(service.create(CONTACT, {"email": "ann@example.com", "firstname": "Ann"}, Context())[0]["id"])
"""
FIRST_GET = """
import base64, json, statistics, sys, time
started = time.perf_counter()
import app
imported = time.perf_counter()
app.app.routes  # the API function's routes, registered on the first look (its first request on Lambda)
routed = time.perf_counter()
from chalice.test import Client
client = Client(app.app, stage_name="local")
headers = {"Authorization": "Basic " + base64.b64encode(b"admin:admin-secret").decode()}
path = "/api/contacts/" + sys.argv[1]
def get():
    began = time.perf_counter()
    response = client.http.get(path, headers=headers)
    assert response.status_code == 200, response.body
    return time.perf_counter() - began
first = get()
warm = statistics.median(get() for _ in range(50))
print(json.dumps({"import": imported - started, "routes": routed - imported, "first": first, "warm": warm}))
"""


def _median_ms(command, cwd, env=None):
    runs = [
        float(subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout)
        for _ in range(RUNS)
    ]
    return statistics.median(runs) * 1000


def _package_figures(folder):
    path = lambdapackage.build(folder / "project")
    lean.slim(path)
    unpacked = folder / "unpacked"
    with zipfile.ZipFile(path) as package:
        package.extractall(unpacked)
        infos = package.infolist()
    return path.stat().st_size, sum(i.file_size for i in infos), len(infos), unpacked


def _package_import(unpacked, runtime, extra=()):
    code = f"import sys; sys.path[:0] = [{str(unpacked)!r}, {runtime!r}]; " + IMPORT
    env = {"PATH": os.environ["PATH"], "STAGE": "prod", "AWS_DEFAULT_REGION": "us-east-1"}
    return [sys.executable, "-I", "-S", *extra, "-c", code], env


def _importtime_top(unpacked, runtime, count=12):
    command, env = _package_import(unpacked, runtime, ("-X", "importtime"))
    lines = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stderr.splitlines()[1:]
    rows = [(int(line.split("|")[0].split(":")[1]), line.split("|")[2].strip()) for line in lines]
    return sorted(rows, reverse=True)[:count]


def _first_get():
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        env = server_env(host, port)
        contact = subprocess.run(
            [sys.executable, "-c", SEED], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        ).stdout.split()[-1]
        runs = [
            json.loads(
                subprocess.run(
                    [sys.executable, "-c", FIRST_GET, contact],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(5)
        ]
    finally:
        server.stop()
    return {key: statistics.median(run[key] for run in runs) * 1000 for key in ("import", "routes", "first", "warm")}


def test_cold_start(capsys):
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as runtime:
        zipped, unpacked_size, files, unpacked = _package_figures(Path(folder))
        lean.runtime_folder(runtime)
        command, env = _package_import(unpacked, runtime)
        package_ms = _median_ms(command, folder, env)
        top = _importtime_top(unpacked, runtime)
    source_ms = _median_ms([sys.executable, "-c", IMPORT], ROOT)
    get = _first_get()
    built = ROOT / "build" / "package" / "deployment.zip"
    with capsys.disabled():
        print(
            f"\npackage (offline build, slimmed): {zipped / 1e6:.1f} MB zipped, {unpacked_size / 1e6:.1f} MB "
            f"unpacked, {files} files"
        )
        if built.exists():
            print(f"build/package/deployment.zip (make package): {built.stat().st_size / 1e6:.1f} MB")
        print(
            f"import app, median of {RUNS} fresh processes: {package_ms:.0f} ms from the package, "
            f"{source_ms:.0f} ms from the source tree"
        )
        print("-X importtime, top self times in the package (ms):")
        for micros, name in top:
            print(f"  {micros / 1000:6.1f}  {name}")
        print(
            f"contact GET in a fresh process (medians of 5): import {get['import']:.0f} ms, routes "
            f"{get['routes']:.0f} ms, first request {get['first']:.1f} ms, warm request {get['warm']:.1f} ms"
        )
    assert get["first"] <= 2 * get["warm"] + get["import"] + get["routes"]


def server_env(host: str, port: int) -> dict[str, str]:
    """The environment of a process that talks to the moto server at host:port as the local stage."""
    return dict(
        os.environ,
        AWS_ENDPOINT_URL=f"http://{host}:{port}",
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        STAGE="local",
        API_ENABLED="1",
        BASIC_AUTH_ENABLED="1",
    )
