"""Every module the documentation and the code's own comments name exists: a path such as
`chalicelib/gateway/authorizer.py`, `api/route_needs.py` or `kernel/service.py` (relative to the
repository, `chalicelib/` or `chalicelib/domain/`), a bare `name.py`, and a dotted
`chalicelib.x.y` name (a module, or a name defined in one); the tests are held to their dotted
names only (their paths name files inside packages of the Lambda zip). Pure Python: no AWS."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASES = (ROOT, ROOT / "chalicelib", ROOT / "chalicelib" / "domain")
PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.py)\b")
DOTTED = re.compile(r"(?<![\w.])(chalicelib(?:\.\w+)+)")
SKIPPED = {"app.py", "setup.py", "conftest.py", "__init__.py"}  # named generically (Chalice's own, any package's)


def _sources():
    """The documentation, and the comments and docstrings of the code (where module names drift)."""
    yield from sorted((ROOT / "docs").glob("*.md"))
    yield ROOT / "README.md"
    yield from sorted((ROOT / "chalicelib").rglob("*.py"))
    yield from sorted((ROOT / "tests").rglob("*.py"))


def _file_names():
    return {path.name for path in ROOT.rglob("*.py") if ".venv" not in path.parts}


def _path_exists(name, names):
    if "/" not in name:
        return name in names or name in SKIPPED
    return any((base / name).exists() for base in BASES)


def _defines(module, name):
    text = module.read_text()
    return (
        re.search(rf"^(?:def |class |async def )?{re.escape(name)}\b", text, re.M) is not None
        or re.search(rf"^(?:from \S+ )?import .*\b{re.escape(name)}\b", text, re.M) is not None
    )


def _dotted_exists(dotted):
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        module = base.with_suffix(".py")
        if base.is_dir() or module.exists():
            rest = parts[end:]
            if not rest:
                return True
            return module.exists() and _defines(module, rest[0])
    return False


def stale_references():
    """[(file, line number, reference)] of every name above that names nothing."""
    names = _file_names()
    stale = []
    for source in _sources():
        if source == Path(__file__).resolve():
            continue
        for number, line in enumerate(source.read_text().splitlines(), 1):
            for match in PATH.finditer(line) if ROOT / "tests" not in source.parents else ():
                if "://" in line[max(0, match.start() - 60) : match.start()]:
                    continue  # a URL's path
                if not _path_exists(match.group(1), names):
                    stale.append((str(source.relative_to(ROOT)), number, match.group(1)))
            for match in DOTTED.finditer(line):
                if not _dotted_exists(match.group(1).rstrip(".")):
                    stale.append((str(source.relative_to(ROOT)), number, match.group(1)))
    return stale


def test_every_module_named_exists():
    assert stale_references() == []
