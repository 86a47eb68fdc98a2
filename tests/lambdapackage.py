"""The Lambda package built offline, for the packaging tests and the cold-start benchmark.

`chalice package` of a copy of the application with an empty requirements.txt, as `make package`
does (`infra/build.py`), then the distributions `requirements.txt` names and what they require,
copied from this environment as pip installed them: the files `make package` puts in the zip,
without the network, for this environment's Python and machine instead of the target's.

`cached` keeps a build under build/test-packages/, keyed by the hash of everything it is made from
(the sources it copies, the build's own code, requirements.txt, this Python and the installed
distributions' versions): a build takes 7-16 s, and runs of `make test` mostly change none of these.
"""

import fcntl
import hashlib
import os
import shutil
import sys
import zipfile
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, distribution, distributions
from pathlib import Path

from packaging.requirements import Requirement

from infra.build import chalice_package

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "test-packages"
# What a build reads: app.py, the packages chalice_package copies, chalice's config, the requirements,
# and this module (the offline build's recipe).
INPUTS = ("app.py", "chalicelib", "infra", ".chalice/config.json", "requirements.txt", "tests/lambdapackage.py")


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


def _inputs_hash(kind: str) -> str:
    """The hash of `kind`, this Python, the installed distributions and every file of INPUTS."""
    digest = hashlib.sha256(f"{kind}\0{sys.version}\0".encode())
    installed = sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions())
    digest.update("\n".join(installed).encode())
    for name in INPUTS:
        top = ROOT / name
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:20]


def cached(kind: str, make: Callable[[Path], None]) -> Path:
    """The folder `make(folder)` fills, built once per state of its inputs (earlier states' removed).
    Read it, never change it: the next run takes it as it is. One process builds it at a time (a lock
    file): `make test`'s workers wait for the build another started instead of building it again."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_once(kind, make)


def _build_once(kind: str, make: Callable[[Path], None]) -> Path:
    folder = CACHE / f"{kind}-{_inputs_hash(kind)}"
    if (folder / ".complete").exists():
        return folder
    for stale in CACHE.glob(f"{kind}-*"):
        shutil.rmtree(stale, ignore_errors=True)
    work = CACHE / f".{kind}.{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        make(work)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    (work / ".complete").touch()
    try:
        os.replace(work, folder)
    except OSError:  # another run in this checkout finished the same build first
        shutil.rmtree(work)
    return folder
