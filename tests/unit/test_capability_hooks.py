"""The `Hooks` base narrowed to what every resource needs (issue 44): a hook one capability alone uses is
a kind of `kernel/capability_hooks.py` its resource mixes in, and every other resource gets the plain
behaviour through that module's functions."""

import pytest

from chalicelib import bootstrap
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import capability_hooks as kinds
from chalicelib.domain.kernel import search
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Merge, Resource

MOVED = {
    kinds.Listed: {"fast_ids", "command", "term_values", "sort_value", "sort_columns"},
    kinds.Deduplicated: {"email", "lookup_fields", "merge"},
    kinds.Summarized: {"summary"},
    kinds.Shared: {"seen_by_viewers", "choosable"},
    kinds.Assembled: {"stamp_created", "link"},
}
USERS = {
    kinds.Listed: {"contact", "company", "note", "user", "role"},
    kinds.Deduplicated: {"contact"},
    kinds.Summarized: {"contact"},
    kinds.Shared: {"segment"},
    kinds.Assembled: {"automation"},
}
GADGET = Resource(
    kind="gadget",
    prefix="gadgets",
    singular="gadget",
    plural="gadgets",
    attrs=(a.text("name"), a.text("code")),
    text_columns=("name", "code"),
    summary=("id", "name"),
)
DOC = {"id": 7, "name": "Blue", "code": "b-1", "createdBy": 3}


def _ctx() -> Context:
    return Context(user={"id": 3, "firstName": "Ada"}, now="2026-01-01 00:00:00")


def test_the_base_holds_none_of_the_moved_hooks() -> None:
    moved = set().union(*MOVED.values()) | {"shares_with_viewers"}
    assert not moved & set(dir(Hooks))
    for kind, names in MOVED.items():
        assert names <= set(dir(kind)), kind


@pytest.mark.parametrize("kind", list(USERS), ids=lambda kind: kind.__name__)
def test_each_kind_is_mixed_in_by_the_resources_that_use_it(kind: type[Hooks]) -> None:
    assert {r.kind for r in bootstrap.resources() if isinstance(r.hooks, kind)} == USERS[kind]


def test_a_resource_without_the_kinds_gets_the_plain_behaviour() -> None:
    ctx = _ctx()
    assert kinds.email(GADGET, DOC) is None
    assert kinds.lookup_fields(GADGET, ctx) == []
    assert kinds.summary(GADGET, DOC, ctx) == {"id": 7, "name": "Blue"}
    assert not kinds.shares_with_viewers(GADGET)
    assert not kinds.seen_by_viewers(GADGET, DOC)
    assert kinds.choosable(GADGET, DOC, ctx)
    stamped = dict(DOC)
    kinds.stamp_created(GADGET, stamped, ctx)
    kinds.link(GADGET, stamped, {("events", "new1"): 4})
    assert stamped == DOC
    with pytest.raises(NotImplementedError, match="gadget documents do not merge"):
        kinds.merge(GADGET, Merge(DOC, DOC, DOC, ctx, []))


def test_a_resource_without_listing_hooks_lists_by_its_declaration() -> None:
    listed = kinds.listed(GADGET)
    assert listed.resource is GADGET
    assert listed.term_values(DOC) == ["Blue", "b-1"]
    assert listed.sort_value(DOC, "code") == "b-1"
    assert listed.sort_columns(_ctx()) == set()
    assert listed.fast_ids(None, _ctx()) is None
    assert listed.command(DOC, search.Command("lead", "1", False), _ctx()) is None


def test_a_kind_mixed_in_without_its_hooks_cannot_be_made() -> None:
    class HalfShared(kinds.Shared):
        def seen_by_viewers(self, doc: dict) -> bool:
            return True

    with pytest.raises(TypeError, match="choosable"):
        HalfShared()
