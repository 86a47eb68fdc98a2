"""`python -m devstack.capacity [--mix NAME] [--requests N] [--json FILE]` (`make capacity`):
seed, measure and report one workload, or all of them (`--mix all`)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter

from devstack.capacity import meter, report, workloads
from devstack.capacity.stack import Stack


def measure(
    stack: Stack, name: str, count: int | None, cached: tuple[str, ...], container: tuple[float, float]
) -> report.Result:
    """Seed and run one workload in the meter."""
    workload = workloads.WORKLOADS[name]
    size = count or workload.default
    world = workloads.World()
    workload.seed(stack, world, size)
    stack.invocations.clear()
    with meter.measuring(meter.Tally(cached=cached)) as tally:
        done = workload.run(stack, world, size)
    if not tally.calls:
        raise RuntimeError("the meter saw no DynamoDB call: a botocore session was made without it")
    return report.Result(name, workload.per, done, tally, dict(Counter(stack.invocations)), container=container)


def _commit() -> str:
    """The last commit that changed the code measured (the service, not this tool)."""
    command = ["git", "log", "-1", "--format=%h", "--", "app.py", "chalicelib", ".chalice"]
    return subprocess.run(command, capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; 0 when done."""
    parser = argparse.ArgumentParser(prog="python -m devstack.capacity", description=__doc__)
    parser.add_argument("--mix", default="mix", choices=[*workloads.WORKLOADS, "all"])
    parser.add_argument("--requests", type=int, default=None, help="units of work (default: the workload's)")
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument(
        "--cached",
        action="append",
        default=[],
        help="items read at most once per interval per container (pattern of the item's name, "
        "`*` any text, e.g. 'counters[versions]'): reported apart, at the container assumption",
    )
    parser.add_argument("--cache-seconds", type=float, default=1.0, help="that interval (default 1 s)")
    parser.add_argument("--container-rate", type=float, default=20.0, help="requests/s one container serves (20)")
    options = parser.parse_args(argv)
    from chalicelib import config  # after the stack module set the run's environment defaults

    config.install(config.Settings.from_environment(os.environ))
    names = list(workloads.WORKLOADS) if options.mix == "all" else [options.mix]
    commit, results = _commit(), []
    for name in names:
        stack = Stack()
        try:
            result = measure(
                stack, name, options.requests, tuple(options.cached), (options.cache_seconds, options.container_rate)
            )
        finally:
            stack.stop()
        print(report.text(result, commit), flush=True)
        print(flush=True)
        results.append(report.as_json(result) | {"commit": commit})
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
