"""The Lambda package built offline, for the packaging tests and the cold-start benchmark.

`chalice package` of a copy of the application with an empty requirements.txt (no wheels to
download), then the distributions `requirements.txt` names and what they require, copied from
this environment as pip installed them: the files `make package` puts in the zip, without the
network.
"""
import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
CHALICE = "import sys; from chalice.cli import main; sys.exit(main())"


def run(code, *args, cwd):
    """`python -c code args` in `cwd`, with a region and no AWS endpoint or profile."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AWS_PROFILE", "AWS_ENDPOINT_URL")}
    env["AWS_DEFAULT_REGION"] = "us-east-1"  # chalice needs a region for service principals only
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def chalice_package(folder):
    """`chalice package --stage prod --merge-template infra/resources.json` of a copy of the
    application in `folder`, with no requirements; the output folder (sam.json, deployment.zip)."""
    project = Path(folder)
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "app.py", project)
    shutil.copytree(ROOT / "chalicelib", project / "chalicelib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(ROOT / "infra", project / "infra", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (project / ".chalice").mkdir()
    shutil.copy(ROOT / ".chalice" / "config.json", project / ".chalice")
    (project / "requirements.txt").write_text("")
    result = run(CHALICE, "package", "--stage", "prod", "--merge-template", "infra/resources.json", "out", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "out"


def _required(names):
    """The installed distributions `names` require, transitively (markers evaluated here)."""
    found, pending = {}, list(names)
    while pending:
        requirement = Requirement(pending.pop())
        key = requirement.name.lower().replace("_", "-")
        if key in found or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        try:
            found[key] = distribution(requirement.name)
        except PackageNotFoundError:
            continue
        pending += found[key].requires or []
    return found.values()


def requirements():
    """The requirement lines of requirements.txt."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def add_requirements(zip_path):
    """Add the files of the required distributions to a package, as pip installs them."""
    with zipfile.ZipFile(zip_path, "a", zipfile.ZIP_DEFLATED) as package:
        for dist in _required(requirements()):
            for file in dist.files or []:
                if ".." not in file.parts and "__pycache__" not in file.parts:
                    package.write(dist.locate_file(file), file.as_posix())


def build(folder):
    """The deployment package `make package` would build, before `infra/lean.py` slims it."""
    out = chalice_package(folder)
    add_requirements(out / "deployment.zip")
    return out / "deployment.zip"
