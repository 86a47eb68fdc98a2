"""The Lambda package (`make package`): without the libraries the Lambda runtime provides, with
bytecode of the target's Python, native libraries for the target's ABI and machine only, and
importable with only the runtime's libraries beside it (`infra/lean.py`).

The package built here is offline (this environment's Python and machine); the target's own
checks run on it with this environment as the target, on hand-made ELF headers, and on the
package `make package` built, when build/package holds one."""

import importlib.util
import platform
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from infra import build, lean, runtime

BUILT = Path(__file__).resolve().parents[2] / "build" / "package"
HERE = "%d.%d" % sys.version_info[:2]


def _zip(path, names):
    with zipfile.ZipFile(path, "w") as package:
        for name in names:
            package.writestr(name, "VALUE = 1\n" if name.endswith(".py") else "")
    return path


def test_the_runtime_libraries_are_recognised_by_module_and_distribution():
    provided = [
        "botocore/client.py",
        "botocore-1.44.5.dist-info/METADATA",
        "boto3/__init__.py",
        "six.py",
        "python_dateutil-2.9.0.post0.dist-info/RECORD",
        "dateutil/parser.py",
        "urllib3/util/url.py",
        "jmespath/parser.py",
        "s3transfer/manager.py",
    ]
    kept = [
        "pynamodb/models.py",
        "pynamodb-6.1.0.dist-info/METADATA",
        "app.py",
        "chalicelib/store/models.py",
        "sixty.py",
        "jwt/api_jwt.py",
        "botocore_extra/x.py",
    ]
    assert [name for name in provided if not lean.runtime_provided(name)] == []
    assert [name for name in kept if lean.runtime_provided(name)] == []


def test_slimming_drops_the_runtime_libraries_and_adds_bytecode(tmp_path):
    path = _zip(
        tmp_path / "deployment.zip",
        ["app.py", "botocore/__init__.py", "botocore-1.44.5.dist-info/RECORD", "pynamodb/__init__.py", "six.py"],
    )
    before, after = lean.slim(path)
    names = set(zipfile.ZipFile(path).namelist())
    assert {"app.py", "pynamodb/__init__.py"} <= names
    assert not any(name.startswith(("botocore", "six")) for name in names)
    assert {n.split("/")[-1].split(".")[0] for n in names if n.endswith(".pyc")} == {"app", "__init__"}
    assert after < before or before < 1000  # a tiny zip may grow by its bytecode


@pytest.fixture(scope="module")
def package(lambda_package, tmp_path_factory):
    """The package `make package` builds (offline: requirements from this environment), slimmed."""
    path = lambda_package
    folder = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(path) as unpacked:
        unpacked.extractall(folder)
    return folder


def test_the_package_holds_no_runtime_library_and_every_module_compiled(package):
    tops = {path.name for path in package.iterdir()}
    assert not {name for name in tops if lean.runtime_provided(name)}
    assert {"app.py", "chalicelib", "chalice", "pynamodb", "argon2", "jwt", "oauthlib"} <= tops
    sources = {p.relative_to(package) for p in package.rglob("*.py")}
    compiled = {
        p.parent.parent.relative_to(package) / (p.name.split(".")[0] + ".py")
        for p in package.rglob("__pycache__/*.pyc")
    }
    assert sources <= compiled


def test_the_package_imports_with_only_the_runtime_libraries(package):
    result = lean.imports_alone(package)
    assert result.returncode == 0, result.stderr


# The local stack and the in-memory store (devstack/) and where they lived before under chalicelib.
LOCAL_ONLY = (
    "devstack/",
    "chalicelib/devserver.py",
    "chalicelib/gateway/",
    "chalicelib/workers/local.py",
    *(f"chalicelib/store/{name}.py" for name in ("journal", "capture", "snapshot", "localquery", "localaws", "memory")),
)


def _local_only(names):
    return sorted(name for name in names if name.startswith(LOCAL_ONLY) or "/devstack/" in name)


def test_the_package_leaves_out_the_local_stack_and_the_memory_store(package):
    """devstack/ stays on the developer's machine (chalice packages app.py and chalicelib/ only), and
    `import app` from the package works without it."""
    names = {path.relative_to(package).as_posix() for path in package.rglob("*") if path.is_file()}
    assert _local_only(names) == []
    assert {"chalicelib/store/port.py", "chalicelib/workers/__init__.py"} <= names
    result = lean.imports_alone(package)
    assert result.returncode == 0, result.stderr


def test_the_import_check_fails_when_a_requirement_is_missing(package, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(package, broken, symlinks=True)
    shutil.rmtree(broken / "pynamodb")
    result = lean.imports_alone(broken)
    assert result.returncode != 0 and "pynamodb" in result.stderr


def _elf(machine):
    """The start of a little-endian 64-bit ELF header naming `machine` (e_machine)."""
    return b"\x7fELF\x02\x01\x01" + bytes(11) + struct.pack("<H", machine) + bytes(44)


def test_foreign_libraries_are_found_by_elf_machine_and_python_tag(tmp_path):
    path = tmp_path / "deployment.zip"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("re2/_re2.cpython-313-aarch64-linux-gnu.so", _elf(183))
        package.writestr("_argon2_cffi_bindings/_ffi.abi3.so", _elf(183))
        package.writestr("google_re2.libs/libabsl.so.1", _elf(183))
        package.writestr("_cffi_backend.cpython-311-aarch64-linux-gnu.so", _elf(183))
        package.writestr("x/_speedups.cpython-313-x86_64-linux-gnu.so", _elf(62))
        package.writestr("y.libs/libz.so.1", _elf(62))
        package.writestr("notes.so.txt", b"")
    assert lean.foreign_libraries(path, "3.13", "aarch64") == [
        ("_cffi_backend.cpython-311-aarch64-linux-gnu.so", "cpython-311-aarch64"),
        ("x/_speedups.cpython-313-x86_64-linux-gnu.so", "ELF machine x86_64"),
        ("y.libs/libz.so.1", "ELF machine x86_64"),
    ]


def test_the_offline_package_is_for_this_python_and_not_for_another(package, tmp_path):
    path = shutil.make_archive(str(tmp_path / "again"), "zip", package)
    assert lean.foreign_libraries(path, HERE, platform.machine()) == []
    foreign = {name for name, _ in lean.foreign_libraries(path, "3.99", "aarch64")}
    assert {"_cffi_backend", "_re2"} <= {Path(name).name.split(".")[0] for name in foreign}


def test_the_bytecode_is_compiled_by_the_targets_python(tmp_path):
    """The target's interpreter (infra/python.sh) writes its own tag and magic number: the bytecode
    Lambda's runtime loads instead of compiling the sources at each cold start."""
    python = build.target_python()
    (tmp_path / "module.py").write_text("VALUE = 1\n")
    lean.compile_all(tmp_path, python)
    (compiled,) = (tmp_path / "__pycache__").iterdir()
    tag = "cpython-" + runtime.version().replace(".", "")
    assert compiled.name == f"module.{tag}.pyc"
    magic = subprocess.run(
        [python, "-c", "import importlib.util, sys; sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert compiled.read_bytes()[:4].hex() == magic
    if HERE != runtime.version():
        assert magic != importlib.util.MAGIC_NUMBER.hex()


@pytest.mark.skipif(not (BUILT / "deployment.zip").exists(), reason="no build/package: run `make package`")
def test_the_built_package_is_for_the_target():
    """`make package`'s output: every native library for the target's ABI and machine, and the
    bytecode of the target's Python beside every module."""
    zip_path = BUILT / "deployment.zip"
    assert lean.foreign_libraries(zip_path, runtime.version(), runtime.MACHINES[runtime.ARCHITECTURE][0]) == []
    names = zipfile.ZipFile(zip_path).namelist()
    tag = "cpython-" + runtime.version().replace(".", "")
    assert {n for n in names if n.endswith(".pyc")} == {n for n in names if n.endswith(f".{tag}.pyc")}
    # 6 MB before cryptography (SNS signatures of /mailer/callback: +4.9 MB zipped), 10.4 MB with the code
    # of issues 29, 32 and 34 and tzdata (docs/deploy.md), 11.7 MB with zxcvbn's word lists (Mautic's
    # password strength rule, issue 39: +0.8 MB) and the code of issues 40-45
    assert zip_path.stat().st_size <= 12e6
    assert _local_only(names) == []
