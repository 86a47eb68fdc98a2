"""The build's fallback interpreter (`infra/python.sh --debian`): Debian 13's python packages unpacked
into build/ and started through their own loader. It downloads from the Debian archive, so it runs
only on demand (`make check-python`), never in `make test`."""

import subprocess
from pathlib import Path

from infra import runtime

ROOT = Path(__file__).resolve().parents[2]


def test_python_sh_installs_debians_python_when_none_is_found():
    """The fallback (`--debian`: no search): Debian 13's packages unpacked into build/, started
    through their own loader. Reaches the Debian archive of this machine's apt
    sources, so it is not in `make test` (whose tests talk only to this machine): `make check-python`."""
    result = subprocess.run(
        [str(ROOT / "infra" / "python.sh"), "--debian", runtime.version()], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    python = result.stdout.strip()
    assert python.startswith(str(ROOT / "build"))
    probe = "import sys, ssl, zlib, ctypes, hashlib; print('%d.%d' % sys.version_info[:2])"
    assert (
        subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
        == runtime.version()
    )
