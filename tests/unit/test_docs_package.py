"""Docs that cannot drift (issue 44), the part that needs a build: README.md's package size and
docs/deploy.md's list of functions, read from the package and template `make package` makes (built
offline here as tests/unit/test_package.py builds it; and `build/package`, when there is one)."""

import json
import re
import zipfile
from pathlib import Path

import pytest

from tests.unit.test_docs_numbers import FUNCTIONS, _doc

pytestmark = pytest.mark.aws  # a build of half a minute: the api tier, not the unit tier's seconds

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "build" / "package"
TOLERANCE = 0.05  # this environment's wheels and bytecode against the target's: 1.3 % apart on 2026-11-28


@pytest.fixture(scope="module")
def built(lambda_package):
    """(deployment.zip slimmed as `make package` slims it, sam.json), built offline."""
    return lambda_package, lambda_package.parent / "sam.json"


def _readme_megabytes() -> float:
    found = re.search(r"package \(([\d.]+) MB zipped", _doc("README.md"))
    assert found, "README.md no longer gives the package's size"
    return float(found.group(1))


def test_the_readme_gives_the_package_size_as_built(built):
    package, _ = built
    size = package.stat().st_size / 1e6
    assert abs(size - _readme_megabytes()) <= TOLERANCE * size, f"the package is {size:.2f} MB"


@pytest.mark.skipif(not (BUILT / "deployment.zip").exists(), reason="no build/package: run `make package`")
def test_the_readme_gives_the_size_of_make_package():
    size = (BUILT / "deployment.zip").stat().st_size / 1e6
    assert abs(size - _readme_megabytes()) <= TOLERANCE * size, f"build/package/deployment.zip is {size:.2f} MB"
    assert zipfile.ZipFile(BUILT / "deployment.zip").testzip() is None


def test_deploy_lists_the_functions_of_the_template(built):
    _, template = built
    resources = json.loads(template.read_text())["Resources"]
    functions = {name for name, r in resources.items() if r["Type"] == "AWS::Serverless::Function"}
    listed = re.search(FUNCTIONS, _doc("docs/deploy.md"))
    assert listed
    named = set(re.findall(r"`(\w+)`", listed.group(1)))
    assert named | {"APIHandler", "ApiAuthorizer"} == functions
    for other in ("APIHandler", "ApiAuthorizer"):  # described in bullets of their own
        assert f"- `{other}`: " in _doc("docs/deploy.md")
