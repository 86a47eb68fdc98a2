"""The Lambda package built offline, for the packaging tests and the cold-start benchmark.

`chalice package` of a copy of the application with an empty requirements.txt, as `make package`
does (`infra/build.py`), then the distributions `requirements.txt` names and what they require,
copied from this environment as pip installed them: the files `make package` puts in the zip,
without the network, for this environment's Python and machine instead of the target's.
"""

import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

from infra.build import chalice_package

ROOT = Path(__file__).resolve().parents[1]


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
