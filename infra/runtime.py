"""The Lambda runtime and architecture of every function: the one place that names them.

`make package` builds for them whatever Python runs the build (`infra/build.py`), and
`infra/compact.py` writes them into every function of the template. `python infra/runtime.py
version` prints the target's Python version for the Makefile. To move to another runtime, change
RUNTIME (docs/deploy.md, "Runtime and architecture").
"""

import datetime
import sys

RUNTIME = "python3.13"
ARCHITECTURE = "arm64"  # Graviton: 20 % less per GB-second; every requirement has aarch64 wheels

# Lambda's runtime table (docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html):
# runtime -> (deprecation, block function create, block function update). The deprecation dates
# are AWS's table as quoted in its docs; the block dates are those cfn-lint ships
# (cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json, cfn-lint 1.58), which
# tests/unit/test_runtime.py compares with this table; not checked against AWS's page itself.
LIFECYCLE = {
    "python3.9": ("2025-12-15", "2027-02-01", "2027-03-03"),
    "python3.10": ("2026-10-31", "2027-02-01", "2027-03-03"),
    "python3.11": ("2027-06-30", "2027-07-31", "2027-08-31"),
    "python3.12": ("2028-10-31", "2028-11-30", "2029-01-10"),
    "python3.13": ("2029-06-30", "2029-07-31", "2029-08-31"),
    "python3.14": ("2029-06-30", "2029-07-31", "2029-08-31"),
}
AMAZON_LINUX_2023 = ("python3.12", "python3.13", "python3.14")  # glibc 2.34; the others run on AL2

# Lambda architecture -> (wheel platform machine, ELF e_machine).
MACHINES = {"x86_64": ("x86_64", 62), "arm64": ("aarch64", 183)}
GLIBC = "2_34"  # Amazon Linux 2023's: manylinux wheels up to manylinux_2_34 load there


def version(runtime: str = RUNTIME) -> str:
    """`python3.13` -> `3.13`."""
    return runtime.removeprefix("python")


def lifecycle(runtime: str = RUNTIME) -> tuple[datetime.date, ...]:
    """The runtime's (deprecation, block create, block update) dates."""
    return tuple(datetime.date.fromisoformat(day) for day in LIFECYCLE[runtime])


def platforms(architecture: str = ARCHITECTURE) -> list[str]:
    """The wheel platform tags pip may install for the architecture on Amazon Linux 2023."""
    machine = MACHINES[architecture][0]
    return [f"manylinux2014_{machine}", f"manylinux_2_28_{machine}", f"manylinux_{GLIBC}_{machine}"]


if __name__ == "__main__":
    print({"version": version(), "runtime": RUNTIME, "architecture": ARCHITECTURE}[sys.argv[1]])
