"""The Lambda package (`make package`): without the libraries the Lambda runtime provides, with
bytecode, and importable with only the runtime's libraries beside it (`infra/lean.py`)."""
import shutil
import zipfile

import pytest

from infra import lean
from tests import lambdapackage


def _zip(path, names):
    with zipfile.ZipFile(path, "w") as package:
        for name in names:
            package.writestr(name, "VALUE = 1\n" if name.endswith(".py") else "")
    return path


def test_the_runtime_libraries_are_recognised_by_module_and_distribution():
    provided = ["botocore/client.py", "botocore-1.44.5.dist-info/METADATA", "boto3/__init__.py", "six.py",
                "python_dateutil-2.9.0.post0.dist-info/RECORD", "dateutil/parser.py", "urllib3/util/url.py",
                "jmespath/parser.py", "s3transfer/manager.py"]
    kept = ["pynamodb/models.py", "pynamodb-6.1.0.dist-info/METADATA", "app.py", "chalicelib/store/models.py",
            "sixty.py", "jwt/api_jwt.py", "botocore_extra/x.py"]
    assert [name for name in provided if not lean.runtime_provided(name)] == []
    assert [name for name in kept if lean.runtime_provided(name)] == []


def test_slimming_drops_the_runtime_libraries_and_adds_bytecode(tmp_path):
    path = _zip(tmp_path / "deployment.zip", ["app.py", "botocore/__init__.py", "botocore-1.44.5.dist-info/RECORD",
                                              "pynamodb/__init__.py", "six.py"])
    before, after = lean.slim(path)
    names = set(zipfile.ZipFile(path).namelist())
    assert {"app.py", "pynamodb/__init__.py"} <= names
    assert not any(name.startswith(("botocore", "six")) for name in names)
    assert {n.split("/")[-1].split(".")[0] for n in names if n.endswith(".pyc")} == {"app", "__init__"}
    assert after < before or before < 1000  # a tiny zip may grow by its bytecode


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The package `make package` builds (offline: requirements from this environment), slimmed."""
    path = lambdapackage.build(tmp_path_factory.mktemp("project"))
    lean.slim(path)
    folder = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(path) as unpacked:
        unpacked.extractall(folder)
    return folder


def test_the_package_holds_no_runtime_library_and_every_module_compiled(package):
    tops = {path.name for path in package.iterdir()}
    assert not {name for name in tops if lean.runtime_provided(name)}
    assert {"app.py", "chalicelib", "chalice", "pynamodb", "argon2", "jwt", "oauthlib"} <= tops
    sources = {p.relative_to(package) for p in package.rglob("*.py")}
    compiled = {p.parent.parent.relative_to(package) / (p.name.split(".")[0] + ".py")
                for p in package.rglob("__pycache__/*.pyc")}
    assert sources <= compiled


def test_the_package_imports_with_only_the_runtime_libraries(package):
    result = lean.imports_alone(package)
    assert result.returncode == 0, result.stderr


def test_the_import_check_fails_when_a_requirement_is_missing(package, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(package, broken, symlinks=True)
    shutil.rmtree(broken / "pynamodb")
    result = lean.imports_alone(broken)
    assert result.returncode != 0 and "pynamodb" in result.stderr
