"""Benchmark (`make bench`): the API function's cold start and warm request at Lambda's memory
sizes, with the target runtime's Python (`infra/runtime.py`), to choose the memory in
.chalice/config.json (docs/deploy.md, "Memory").

Lambda gives a function CPU in proportion to its memory, one full vCPU at 1769 MB. This machine
cannot run Lambda, and its two cores are shared, so wall times here measure the neighbours as
much as the code (a cgroup CPU quota was tried: under a load average of 8 its figures were noise).
So each fresh process measures its own CPU time (`time.process_time`), which waiting for a core
does not inflate, and a size's estimate is that CPU time divided by the size's share of a vCPU
(memory / 1769 MB): the work is CPU-bound but for the DynamoDB calls, which a quota does not slow.
The process imports `app` from the package (built for this machine's architecture, with the
target's Python), then answers a contact GET with Basic credentials (the first pays argon2) and
30 warm ones against a moto server. Needs the network for the target's wheels.
"""

import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from infra import build, lean, runtime
from tests.bench.test_cold_start import SEED, server_env

SIZES = (512, 1024, 1769)
FULL_VCPU_MB = 1769
RUNS = 7
REQUEST = """
import base64, json, sys, time
started = time.process_time()
import app
imported = time.process_time()
class Context:
    aws_request_id = "bench"
def event():
    return {"resource": "/api/contacts/{id}", "path": "/api/contacts/" + sys.argv[1], "httpMethod": "GET",
            "headers": {"Authorization": "Basic " + base64.b64encode(b"admin:admin-secret").decode(),
                        "Host": "localhost"}, "multiValueHeaders": {}, "queryStringParameters": None,
            "multiValueQueryStringParameters": None, "pathParameters": {"id": sys.argv[1]},
            "stageVariables": None, "body": None, "isBase64Encoded": False,
            "requestContext": {"resourcePath": "/api/contacts/{id}", "httpMethod": "GET", "stage": "api",
                               "requestId": "r", "identity": {"sourceIp": "127.0.0.1"}, "path": "/api/contacts"}}
def get():
    began = time.process_time()
    answer = app.app(event(), Context())
    assert answer["statusCode"] == 200, answer
    return time.process_time() - began
first = get()
warm = sorted(get() for _ in range(30))[15]
print(json.dumps({"import": imported - started, "first": first, "warm": warm}))
"""


def _package(folder, python):
    """The package for the target's Python on this machine's architecture, unpacked."""
    out = build.chalice_package(folder / "project")
    host = build.LAMBDA_ARCHITECTURES[platform.machine()]
    build.pip_install(folder / "wheels", ["-r", str(build.ROOT / "requirements.txt")], host)
    build.add_folder(out / "deployment.zip", folder / "wheels")
    lean.slim(out / "deployment.zip", python)
    with zipfile.ZipFile(out / "deployment.zip") as package:
        package.extractall(folder / "unpacked")
    return folder / "unpacked"


def _runtime_libraries(folder, python):
    """Copies of the runtime's libraries compiled by the target's Python, as the runtime has them."""
    links = Path(folder) / "links"
    links.mkdir()
    copies = Path(folder) / "copies"
    shutil.copytree(lean.runtime_folder(links), copies, symlinks=False)
    lean.compile_all(copies, python)
    return str(copies)


def test_memory_sizes(capsys):
    from moto.server import ThreadedMotoServer

    python = build.target_python()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        env = server_env(host, port)
        contact = subprocess.run(
            [sys.executable, "-c", SEED], cwd=build.ROOT, env=env, capture_output=True, text=True, check=True
        ).stdout.split()[-1]
        with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as libraries:
            unpacked = _package(Path(folder), python)
            paths = [str(unpacked), _runtime_libraries(libraries, python)]
            code = f"import sys; sys.path[:0] = {paths!r}; " + REQUEST
            runs = [
                json.loads(
                    subprocess.run(
                        [python, "-I", "-S", "-B", "-c", code, contact],
                        env=env,
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                )
                for _ in range(RUNS)
            ]
    finally:
        server.stop()
    cpu = {key: statistics.median(run[key] for run in runs) * 1000 for key in runs[0]}
    with capsys.disabled():
        print(
            f"\n{runtime.RUNTIME} ({python}), CPU time, medians of {RUNS} fresh processes: import app "
            f"{cpu['import']:.0f} ms, first GET {cpu['first']:.0f} ms, warm GET {cpu['warm']:.1f} ms"
        )
        print("estimated on Lambda (CPU time / (memory / 1769 MB)):")
        for memory in SIZES:
            share = min(1.0, memory / FULL_VCPU_MB)
            print(
                f"  {memory:5d} MB ({share:.2f} vCPU): cold start (import + first GET) "
                f"{(cpu['import'] + cpu['first']) / share:.0f} ms, warm GET {cpu['warm'] / share:.1f} ms"
            )
    assert cpu["warm"] < cpu["first"]
