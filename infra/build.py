"""`make package` (`python -m infra.build build/package`): the stack's template and Lambda package
for the runtime and architecture of `infra/runtime.py`, whatever Python runs the build.

- `chalice package` of a copy of the application with an empty requirements.txt (chalice would
  resolve wheels for, and name the runtime of, the Python running it): the template and the code;
- `infra/compact.py` finishes the template, naming the target runtime and architecture in every
  function;
- pip installs requirements.txt for the target: its Python version, CPython, wheels only, for the
  architecture's manylinux platforms up to Amazon Linux 2023's glibc;
- `infra/lean.py` leaves out the runtime's libraries, compiles the bytecode with the target's
  Python (`infra/python.sh` finds it, or installs it from Debian), refuses any native library built
  for another ABI or machine, and imports `app` with the target's Python.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from infra import compact, lean, runtime

ROOT = Path(__file__).resolve().parents[1]
CHALICE = "import sys; from chalice.cli import main; sys.exit(main())"
LAMBDA_ARCHITECTURES = {machine: name for name, (machine, _) in runtime.MACHINES.items()}


def run(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -c code args` in `cwd`, with a region and no AWS endpoint or profile."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AWS_PROFILE", "AWS_ENDPOINT_URL")}
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")  # chalice needs a region for service principals only
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def chalice_package(folder: str | Path) -> Path:
    """`chalice package --stage prod --merge-template infra/resources.json` of a copy of the
    application in `folder`, with no requirements; the output folder (sam.json, deployment.zip)."""
    project = Path(folder)
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "app.py", project)
    for package in ("chalicelib", "infra"):  # not devstack/: the local stack never ships (docs/deploy.md)
        shutil.copytree(ROOT / package, project / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (project / ".chalice").mkdir()
    shutil.copy(ROOT / ".chalice" / "config.json", project / ".chalice")
    (project / "requirements.txt").write_text("")
    result = run(CHALICE, "package", "--stage", "prod", "--merge-template", "infra/resources.json", "out", cwd=project)
    if result.returncode:
        raise SystemExit(f"chalice package failed:\n{result.stdout}{result.stderr}")
    return project / "out"


def target_python(version: str | None = None) -> str:
    """The path of an interpreter of the target's version (`infra/python.sh`)."""
    script = ROOT / "infra" / "python.sh"
    return subprocess.run(
        [str(script), version or runtime.version()], check=True, capture_output=True, text=True
    ).stdout.strip()


def pip_install(
    folder: Path, requirements: Sequence[str], architecture: str = runtime.ARCHITECTURE, version: str | None = None
) -> None:
    """Install requirements (pip arguments) into `folder` as the target runtime loads them."""
    platforms = [f"--platform={tag}" for tag in runtime.platforms(architecture)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--target",
            str(folder),
            "--python-version",
            version or runtime.version(),
            "--implementation",
            "cp",
            "--only-binary=:all:",
            *platforms,
            *requirements,
        ],
        check=True,
    )


def add_folder(zip_path: Path, folder: Path) -> None:
    """Add an installed folder's libraries to the package (not the scripts pip puts in `bin`)."""
    with zipfile.ZipFile(zip_path, "a", zipfile.ZIP_DEFLATED) as package:
        for path in sorted(Path(folder).rglob("*")):
            relative = path.relative_to(folder)
            if path.is_file() and relative.parts[0] != "bin" and "__pycache__" not in relative.parts:
                package.write(path, relative.as_posix())


def native_distributions(folder: Path) -> list[str]:
    """`name==version` of each installed distribution that ships a shared object."""
    pinned = []
    for record in sorted(Path(folder).glob("*.dist-info/RECORD")):
        if ".so" in record.read_text():
            metadata = dict(
                line.split(": ", 1)
                for line in (record.parent / "METADATA").read_text().splitlines()
                if line.startswith(("Name: ", "Version: "))
            )
            pinned.append(f"{metadata['Name']}=={metadata['Version']}")
    return pinned


def host_natives(wheels: Path, folder: Path) -> Path | None:
    """When this machine is not the target's architecture: the same native distributions built
    for this machine, in `folder`, for the import check (the target's cannot load here)."""
    host = LAMBDA_ARCHITECTURES.get(platform.machine())
    if host is None:
        raise SystemExit(f"no Lambda architecture builds for this machine ({platform.machine()})")
    if host == runtime.ARCHITECTURE:
        return None
    pip_install(folder, ["--no-deps", *native_distributions(wheels)], host)
    return folder


def build(out: str | Path) -> None:
    """Write `out`/sam.json and `out`/deployment.zip for the target; prints the package's sizes."""
    target = Path(out)
    work = target.with_name(target.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    packaged = chalice_package(work / "project")
    python = target_python()
    pip_install(work / "wheels", ["-r", str(ROOT / "requirements.txt")])
    add_folder(packaged / "deployment.zip", work / "wheels")
    compact.compact(packaged / "sam.json")
    was, now = lean.slim(packaged / "deployment.zip", python)
    foreign = lean.foreign_libraries(
        packaged / "deployment.zip", runtime.version(), runtime.MACHINES[runtime.ARCHITECTURE][0]
    )
    if foreign:
        raise SystemExit(f"native libraries not built for {runtime.RUNTIME} on {runtime.ARCHITECTURE}: {foreign}")
    lean.check(packaged / "deployment.zip", python, host_natives(work / "wheels", work / "host"))
    target.mkdir(parents=True, exist_ok=True)
    for name in ("sam.json", "deployment.zip"):
        shutil.move(packaged / name, target / name)
    shutil.rmtree(work)
    print(
        json.dumps(
            {
                "runtime": runtime.RUNTIME,
                "architecture": runtime.ARCHITECTURE,
                "python": python,
                "zipped MB": round(now / 1e6, 2),
                "before slimming MB": round(was / 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    build(sys.argv[1])
