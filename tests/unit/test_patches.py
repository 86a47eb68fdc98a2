"""The patches of pinned libraries (`devstack/patches.py`) still fit what is installed: the pins
are the versions they were checked against, every target is there with the parameters it had,
and `install()` replaces exactly what `PATCHES` lists. A failure here after a version change means:
re-read each entry against the new version, then move `PINS`."""

import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from devstack import patches

ROOT = Path(__file__).resolve().parents[2]
# In a fresh interpreter (the test session has installed the patches already): the targets as
# moto ships them, then what install() changed in the classes and modules of the pinned libraries.
CHECK = """
import importlib, inspect, json, sys
from devstack import patches

def where(target):
    owner, name = patches.resolve(target)
    prefix = owner.__module__ + "." + owner.__qualname__ if inspect.isclass(owner) else owner.__name__
    return prefix + "." + name

def state():
    found = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name.split(".")[0] not in ("moto", "botocore", "chalice", "pynamodb"):
            continue
        for name, value in list(vars(module).items()):
            found[module_name + "." + name] = id(value)
            if inspect.isclass(value) and value.__module__ == module_name:
                for attribute, member in list(vars(value).items()):
                    found[module_name + "." + value.__qualname__ + "." + attribute] = id(member)
    return found

entries = patches.PATCHES + patches.ELSEWHERE
before = {e.target: {"present": patches.present(e.target),
                     "parameters": patches.parameters(e.target) if e.parameters else None} for e in entries}
listed = sorted({where(e.target) for e in patches.PATCHES})
for module in {patches.resolve(e.target)[0].__module__ for e in patches.PATCHES}:
    importlib.import_module(module)
was = state()
patches.install()
now = state()
owners = {key.rsplit(".", 1)[0] for key in was}
changed = sorted(key for key in now if key.rsplit(".", 1)[0] in owners and was.get(key) != now[key])
json.dump({"before": before, "listed": listed, "changed": changed}, sys.stdout)
"""


def _pins():
    """{distribution: version} pinned by requirements.txt and requirements-dev.txt."""
    pins = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            found = re.match(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s#]+)", line.strip())
            if found:
                pins[found.group(1).lower()] = found.group(3)
    return pins


@pytest.fixture(scope="module")
def fresh_check():
    out = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("name", sorted(patches.PINS))
def test_the_pinned_and_installed_versions_are_those_the_patches_were_checked_against(name):
    assert _pins()[name] == patches.PINS[name], f"{name} pin moved: re-check devstack/patches.py, then PINS"
    assert version(name) == patches.PINS[name], f"{name} {version(name)} installed: re-check devstack/patches.py"


def test_every_patched_target_is_there_with_the_parameters_it_had(fresh_check):
    for entry in patches.PATCHES + patches.ELSEWHERE:
        found = fresh_check["before"][entry.target]
        assert found["present"] is not entry.added, entry.target
        assert found["parameters"] == entry.parameters, entry.target


def test_install_replaces_exactly_what_patches_lists(fresh_check):
    assert fresh_check["changed"] == fresh_check["listed"]


@pytest.mark.parametrize("target", [target for target, _by, _why in patches.RELIED_ON])
def test_every_private_attribute_relied_on_is_still_there(target):
    assert patches.present(target), target
