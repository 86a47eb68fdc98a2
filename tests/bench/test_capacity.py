"""`make capacity` at a small scale (`make bench`): every workload of devstack/capacity runs in a
process of its own (the meter hooks botocore sessions before the first one exists) and prints its
table; asserts the report holds what docs/capacity.md reads from it."""

import json
import os
import subprocess
import sys

import pytest

SIZES = {"mix": 200, "import": 400, "segment-send": 100, "tracking": 100}


@pytest.mark.parametrize("workload", list(SIZES))
def test_capacity_report(workload, tmp_path, capsys):
    out = tmp_path / "capacity.json"
    command = [sys.executable, "-m", "devstack.capacity", "--mix", workload, "--requests", str(SIZES[workload])]
    done = subprocess.run(
        [*command, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with capsys.disabled():
        print("\n" + done.stdout)
    (result,) = json.loads(out.read_text())
    assert result["count"] == SIZES[workload]
    assert result["write_units"] > 0 and result["cost_per_million"]["total"] > 0
    assert result["keys"] and result["limit"] > 0
    if workload == "segment-send":
        assert result["services"].get("ses:SendRawEmail", 0) + result["services"].get("ses:SendEmail", 0) == 100
    if workload in ("mix", "tracking"):
        assert any(key["name"].startswith("entities.feed[timeline#") for key in result["keys"])
