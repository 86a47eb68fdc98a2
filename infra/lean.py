"""Slim chalice's deployment package (`python infra/lean.py build/package/deployment.zip`).

chalice installs `requirements.txt` with everything it pulls in: pynamodb brings botocore, the
AWS SDK that the Lambda Python runtime already provides (about 90% of the package). This step
leaves out what the runtime provides (RUNTIME_PROVIDED), adds the bytecode of every module (Lambda
cannot write `__pycache__`, so without it each cold start compiles the whole code), and checks that
the package imports `app` with only the runtime's libraries beside it. `make package` runs it.
"""
import compileall
import importlib.util
import os
import py_compile
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# Top-level modules of the Lambda Python runtime's AWS SDK and its dependencies (docs/deploy.md).
RUNTIME_PROVIDED = frozenset({"boto3", "botocore", "s3transfer", "jmespath", "urllib3", "dateutil", "six"})
DISTRIBUTION_MODULES = {"python_dateutil": "dateutil"}  # distribution names that differ from their module


def runtime_provided(name):
    """Whether a path of the package belongs to a library the runtime provides."""
    top = name.split("/")[0]
    if top.endswith((".dist-info", ".data")):
        module = top.split("-")[0]
        module = DISTRIBUTION_MODULES.get(module, module)
    else:
        module = top.removesuffix(".py")
    return module in RUNTIME_PROVIDED


def slim(zip_path):
    """Rewrite the package without the runtime's libraries and with bytecode; (before, after) sizes."""
    before = os.path.getsize(zip_path)
    with tempfile.TemporaryDirectory() as folder:
        with zipfile.ZipFile(zip_path) as package:
            package.extractall(folder, [n for n in package.namelist() if not runtime_provided(n)])
        compileall.compile_dir(folder, quiet=1, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
            for path in sorted(Path(folder).rglob("*")):
                if path.is_file():
                    package.write(path, path.relative_to(folder).as_posix())
    return before, os.path.getsize(zip_path)


def runtime_folder(folder):
    """A folder holding only this interpreter's copies of the runtime's libraries (links)."""
    for module in sorted(RUNTIME_PROVIDED):
        origin = Path(importlib.util.find_spec(module).origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (Path(folder) / source.name).symlink_to(source)
    return folder


def imports_alone(package_folder):
    """Import `app` from an unpacked package with nothing but the standard library and the runtime's
    libraries on the path (`python -I -S`). Returns the completed process."""
    with tempfile.TemporaryDirectory() as runtime:
        code = (f"import sys; sys.path[:0] = [{str(package_folder)!r}, {runtime_folder(runtime)!r}]; "
                "import app; assert app.app.routes and app.segments_worker")
        env = {"PATH": os.environ.get("PATH", ""), "STAGE": "prod", "AWS_DEFAULT_REGION": "us-east-1"}
        return subprocess.run([sys.executable, "-I", "-S", "-c", code], env=env, capture_output=True, text=True)


def check(zip_path):
    """Unpack the package and import it alone; raises SystemExit with the error when it fails."""
    with tempfile.TemporaryDirectory() as folder:
        with zipfile.ZipFile(zip_path) as package:
            package.extractall(folder)
        result = imports_alone(folder)
    if result.returncode:
        raise SystemExit(f"the package does not import with only the runtime's libraries:\n{result.stderr}")


if __name__ == "__main__":
    package_path = sys.argv[1]
    was, now = slim(package_path)
    check(package_path)
    print(f"{package_path}: {was / 1e6:.1f} MB -> {now / 1e6:.1f} MB, imports with the runtime's libraries only")
