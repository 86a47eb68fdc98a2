"""Types at every seam: at least 90 % of the functions of the shipped and local code carry full
annotations (every parameter but `self`/`cls`, and the return), and the kernel and the store all
of theirs (mypy checks them strictly: pyproject.toml). Counted from the source, no import."""

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("app.py", "chalicelib", "devstack", "infra")
STRICT = ("chalicelib/domain/kernel", "chalicelib/store")
SHARE = 0.90


def _functions(path: Path) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _annotated(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = function.args
    named = [a for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs if a.arg not in ("self", "cls")]
    starred = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return function.returns is not None and all(a.annotation is not None for a in named + starred)


def _files(*roots: str) -> list[Path]:
    paths = [ROOT / root for root in roots]
    return sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.py")))


def _unannotated(*roots: str) -> tuple[list[str], int]:
    """(`path:line name` of each function missing annotations, the number of functions)."""
    missing, total = [], 0
    for path in _files(*roots):
        for function in _functions(path):
            total += 1
            if not _annotated(function):
                missing.append(f"{path.relative_to(ROOT)}:{function.lineno} {function.name}")
    return missing, total


def test_nine_functions_in_ten_are_annotated():
    missing, total = _unannotated(*CODE)
    assert (total - len(missing)) / total >= SHARE, f"{len(missing)} of {total} unannotated, e.g. {missing[:20]}"


def test_the_kernel_and_the_store_are_annotated_whole():
    missing, _ = _unannotated(*STRICT)
    assert missing == []
