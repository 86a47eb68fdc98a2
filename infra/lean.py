"""Slim and check the deployment package for the Lambda runtime (`infra/build.py` runs it).

chalice's package plus the requirements' wheels hold everything pynamodb pulls in, botocore
included: the AWS SDK that the Lambda Python runtime already provides (about 90% of the package).
This step leaves out what the runtime provides (RUNTIME_PROVIDED), adds the bytecode of every
module compiled by the target Python (Lambda cannot write `__pycache__`, and a runtime ignores
another version's bytecode, so without it each cold start compiles the whole code), checks that
every native library is built for the target's Python ABI and machine, and that the package
imports `app` with the target Python and only the runtime's libraries beside it.
"""

import importlib.util
import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PathLike = str | os.PathLike[str]

# Top-level modules of the Lambda Python runtime's AWS SDK and its dependencies (docs/deploy.md).
RUNTIME_PROVIDED = frozenset({"boto3", "botocore", "s3transfer", "jmespath", "urllib3", "dateutil", "six"})
DISTRIBUTION_MODULES = {"python_dateutil": "dateutil"}  # distribution names that differ from their module
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
# `_re2.cpython-313-aarch64-linux-gnu.so`, `_cffi_backend.abi3.so`: the ABI a module was built for.
EXTENSION_TAG = re.compile(r"\.(cpython-\d+-[a-z0-9_]+|abi3)(-linux-gnu)?\.so$")


def runtime_provided(name: str) -> bool:
    """Whether a path of the package belongs to a library the runtime provides."""
    top = name.split("/")[0]
    if top.endswith((".dist-info", ".data")):
        module = top.split("-")[0]
        module = DISTRIBUTION_MODULES.get(module, module)
    else:
        module = top.removesuffix(".py")
    return module in RUNTIME_PROVIDED


def compile_all(folder: PathLike, python: str = sys.executable) -> None:
    """Compile every module under `folder` with `python` (unchecked-hash `.pyc`, valid whatever the
    file times), so the bytecode is the one that interpreter's version loads."""
    subprocess.run(
        [python, "-I", "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(folder)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def slim(zip_path: PathLike, python: str = sys.executable) -> tuple[int, int]:
    """Rewrite the package without the runtime's libraries and with `python`'s bytecode; (before,
    after) sizes."""
    before = os.path.getsize(zip_path)
    with tempfile.TemporaryDirectory() as folder:
        with zipfile.ZipFile(zip_path) as package:
            package.extractall(folder, [n for n in package.namelist() if not runtime_provided(n)])
        compile_all(folder, python)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
            for path in sorted(Path(folder).rglob("*")):
                if path.is_file():
                    package.write(path, path.relative_to(folder).as_posix())
    return before, os.path.getsize(zip_path)


def elf_machine(data: bytes) -> str | int | None:
    """The machine an ELF file's header names (`x86_64`, `aarch64`, or the e_machine number)."""
    if data[:4] != b"\x7fELF":
        return None
    byte_order = "<" if data[5] == 1 else ">"
    (machine,) = struct.unpack(byte_order + "H", data[18:20])
    return ELF_MACHINES.get(machine, machine)


def foreign_libraries(zip_path: PathLike, version: str, machine: str) -> list[tuple[str, str]]:
    """The shared objects of a package not built for Python `version` (`3.13`) on `machine`
    (`aarch64`), each as (name, what it is built for): its ELF header's machine, and for a Python
    extension its file name's tag (`cpython-313-aarch64`; `abi3` suits every version). A library
    vendored by a wheel (`google_re2.libs/libabsl...so.1`) has no tag: only its machine counts."""
    wanted = f"cpython-{version.replace('.', '')}-{machine}"
    foreign = []
    with zipfile.ZipFile(zip_path) as package:
        for name in package.namelist():
            if not re.search(r"\.so(\.\d+)*$", name):
                continue
            built_for = elf_machine(package.open(name).read(64))
            tag = EXTENSION_TAG.search(name)
            if built_for != machine:
                foreign.append((name, f"ELF machine {built_for}"))
            elif tag and tag.group(1) not in (wanted, "abi3"):
                foreign.append((name, tag.group(1)))
    return foreign


def runtime_folder(folder: str) -> str:
    """A folder holding only links to the build environment's copies of the runtime's libraries
    (pure Python: the target's interpreter imports them as well)."""
    for module in sorted(RUNTIME_PROVIDED):
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise SystemExit(f"{module}, a library the Lambda runtime provides, is not installed here")
        origin = Path(spec.origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (Path(folder) / source.name).symlink_to(source)
    return folder


def imports_alone(
    package_folder: PathLike, python: str = sys.executable, native: PathLike | None = None
) -> subprocess.CompletedProcess[str]:
    """Import `app` from an unpacked package with `python`, with nothing but the standard library
    and the runtime's libraries on the path (`-I -S`; `-B`: nothing written). `native`: a folder of
    this machine's builds of the package's native distributions, put first when the package is for
    another architecture. Returns the completed process."""
    with tempfile.TemporaryDirectory() as runtime:
        paths = [str(native)] if native else []
        paths += [str(package_folder), runtime_folder(runtime)]
        code = f"import sys; sys.path[:0] = {paths!r}; import app; assert app.app.routes and app.segments_worker"
        env = {"PATH": os.environ.get("PATH", ""), "STAGE": "prod", "AWS_DEFAULT_REGION": "us-east-1"}
        return subprocess.run([python, "-I", "-S", "-B", "-c", code], env=env, capture_output=True, text=True)


def check(zip_path: PathLike, python: str = sys.executable, native: PathLike | None = None) -> None:
    """Unpack the package and import it alone; raises SystemExit with the error when it fails."""
    with tempfile.TemporaryDirectory() as folder:
        with zipfile.ZipFile(zip_path) as package:
            package.extractall(folder)
        result = imports_alone(folder, python, native)
    if result.returncode:
        raise SystemExit(f"the package does not import with only the runtime's libraries:\n{result.stderr}")
