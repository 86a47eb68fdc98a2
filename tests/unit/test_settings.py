"""The settings (chalicelib/config.py): read once from an environment, checked, frozen; the tests change
them only through the `configure` fixture; docs/deploy.md's table names every one."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from chalicelib import config

ROOT = Path(__file__).parents[2]
NAMES = {item.name for item in dataclasses.fields(config.Settings)}


def test_an_empty_environment_gives_the_local_stages_defaults():
    read = config.Settings.from_environment({})
    assert read.LOCAL and read.RESOURCE_PREFIX == "mautic-local-" and read.FILES_BUCKET == "mautic-local-files"
    assert read.RATE_LIMIT_PER_MINUTE == 0 and read.API_ENABLED and read.WEBHOOK_ALLOWED_NETWORKS
    assert read.MAILER_CALLBACK_TOPICS == ("arn:aws:sns:us-east-1:123456789012:mautic-local-ses-feedback",)
    assert read.OUTBOX_DIR == str(Path(read.DATA_DIR) / "outbox") and Path(read.DATA_DIR).is_absolute()
    local = dataclasses.replace(read, DATA_DIR=".data", OUTBOX_DIR=".data/outbox")
    assert _values(local) == _values(config.Settings())


def _values(settings: config.Settings) -> dict[str, object]:
    """Every setting by name (Settings has no `__eq__`: nothing but this test compares them)."""
    return {name: getattr(settings, name) for name in NAMES}


def test_defaults_follow_the_stage_and_the_settings_they_name():
    read = config.Settings.from_environment({"STAGE": "prod", "RATE_LIMIT_PER_MINUTE": "10"})
    assert not read.LOCAL and read.RESOURCE_PREFIX == "mautic-prod-" and read.FILES_BUCKET == "mautic-prod-files"
    assert (read.RATE_LIMIT_PER_MINUTE, read.RATE_LIMIT_CLIENT_PER_MINUTE) == (10, 50)
    assert (read.API_ENABLED, read.BASIC_AUTH_ENABLED, read.STACK_ACCOUNT_ID, read.OUTBOX_DIR) == (False, False, "", "")
    assert read.WEBHOOK_ALLOWED_NETWORKS == () and read.MAILER_CALLBACK_TOPICS == ()
    assert read.FEEDBACK_TOPIC == "mautic-prod-ses-feedback"
    assert config.Settings.from_environment({"STAGE": "prod"}).RATE_LIMIT_CLIENT_PER_MINUTE == 6000


def test_values_are_parsed_by_type_as_the_environment_always_gave_them():
    read = config.Settings.from_environment(
        {
            "AWS_REGION": "eu-west-1",
            "BASE_URL": "https://m.example/",
            "API_ENABLED": "",  # empty flag: the default
            "HONOR_PRIVACY_SIGNALS": "No",
            "SHARDED_KINDS": "contact:4, device:1,",
            "ID_BLOCK_CONTACT": "7",
            "DYNAMODB_MAX_ATTEMPTS": "9",
            "BROADCAST_MINUTES": "0",
            "FORM_ALLOWED_ORIGINS": "",  # an empty list is empty, not the default
            "STACK_ACCOUNT_ID": "",  # empty: the default
        }
    )
    assert read.AWS_REGION == "eu-west-1" and read.BASE_URL == "https://m.example"
    assert read.API_ENABLED is True and read.HONOR_PRIVACY_SIGNALS is False
    assert (
        dict(read.SHARDED_KINDS) == {"contact": 4}
        and read.ID_BLOCKS["contact"] == 7
        and read.ID_BLOCKS["device"] == 100
    )
    assert read.AWS_RETRIES["dynamodb"] == ("standard", 9) and read.BROADCAST_MINUTES == 1
    assert read.FORM_ALLOWED_ORIGINS == () and read.STACK_ACCOUNT_ID == "123456789012"
    both = {"AWS_DEFAULT_REGION": "eu-central-1", "AWS_REGION": "eu-west-1"}
    assert config.Settings.from_environment(both).AWS_REGION == "eu-central-1"


@pytest.mark.parametrize(
    ("variable", "value"),
    [("MAX_PAGE_LIMIT", "many"), ("EMAIL_SEND_RATE", "fast"), ("SHARDED_KINDS", "contact:x"), ("ID_BLOCK_DEVICE", "")],
)
def test_a_bad_value_names_its_variable(variable, value):
    with pytest.raises(config.SettingError, match=f"^{variable}={value!r}: "):
        config.Settings.from_environment({variable: value})


def test_settings_are_frozen_and_overridden_only_by_name():
    settings = config.Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.MAX_PAGE_LIMIT = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        dataclasses.replace(settings, NO_SUCH_SETTING=1)


def test_configure_installs_a_copy_for_the_test(configure):
    before = config.active()
    configure(MAX_PAGE_LIMIT=3, STAGE="prod")
    assert config.active().MAX_PAGE_LIMIT == 3 and not config.active().LOCAL
    assert before.MAX_PAGE_LIMIT == 1000 and config.active().EMAIL_SEND_RATE == before.EMAIL_SEND_RATE


def _test_sources() -> list[Path]:
    return sorted(path for path in (ROOT / "tests").rglob("*.py") if path.name != "test_settings.py")


def _patches(path: Path, root: Path = ROOT) -> list[str]:
    """`setattr(config, ...)`, `setattr("chalicelib.config...")`, `setattr(<anything>, "<SETTING>")` and
    `setenv("<SETTING>")` (outside tests/e2e, whose stacks are processes configured by environment)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        first, name = node.args[0], node.func.attr
        text = ast.unparse(first)
        named = len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in NAMES
        if name in ("setattr", "delattr") and (text == "config" or text.endswith(".config") or named):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
        elif name in ("setattr", "delattr") and isinstance(first, ast.Constant) and "config." in str(first.value):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
        elif name == "setenv" and "e2e" not in path.parts and isinstance(first, ast.Constant) and first.value in NAMES:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_test_patches_the_settings():
    """Tests change settings with `configure(NAME=value)` (tests/conftest.py), never by patching."""
    found = [line for path in _test_sources() for line in _patches(path)]
    assert found == [], "use the configure fixture instead:\n" + "\n".join(found)


def test_the_patch_check_finds_the_old_ways(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "def test_a(monkeypatch):\n"
        '    monkeypatch.setattr(config, "MAX_PAGE_LIMIT", 3)\n'
        '    monkeypatch.setattr(routing.config, "REQUEST_TRIES", 1)\n'
        '    monkeypatch.setattr("chalicelib.' + 'config.BATCH_MAX", 3)\n'  # split: no module named in this file
        '    monkeypatch.setattr(webhooks, "WEBHOOK_TIMEOUT", 1)\n'
        '    monkeypatch.setenv("VERSIONS_TTL", "5")\n'
        '    monkeypatch.setattr(timeline, "FEED_BUCKET", 4)\n'
    )
    assert [line.split(":")[1] for line in _patches(sample, tmp_path)] == ["2", "3", "4", "5", "6"]


def _reads_at_import(path: Path) -> list[int]:
    """Lines calling `config.active()` outside any function: settings read when the module is imported."""
    lines: list[int] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Call) and ast.unparse(child.func) == "config.active":
                lines.append(child.lineno)
            visit(child)

    visit(ast.parse(path.read_text()))
    return lines


def test_only_the_table_models_read_settings_when_imported():
    """Settings are installed by the entry point, after imports; store/models.py binds PynamoDB's table
    names and client options at class creation, so an entry point installs the settings before it."""
    sources = [*(ROOT / "chalicelib").rglob("*.py"), *(ROOT / "devstack").rglob("*.py")]
    found = {str(path.relative_to(ROOT)) for path in sources if _reads_at_import(path)}
    assert found == {"chalicelib/store/models.py"}


def _documented() -> dict[str, str]:
    """docs/deploy.md's settings table: each variable's default cell."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| `")]
    return {name: row[1] for row in rows for name in re.findall(r"`(\w+)`", row[0].strip("| "))}


def test_the_deploy_doc_lists_every_setting_and_its_default():
    documented = _documented()
    variables = {name for names in config.variables().values() for name in names}
    assert set(documented) == variables
    defaults = config.Settings.from_environment({})
    for name in variables & NAMES:
        cell = documented[name]
        literal = "" if cell == "(empty)" else cell[1:-1] if re.fullmatch(r"`[^`]*`", cell) else None
        if literal is not None:
            value = getattr(config.Settings.from_environment({name: literal}), name)
            assert value == getattr(defaults, name), f"docs/deploy.md gives {name} the default {cell}"
