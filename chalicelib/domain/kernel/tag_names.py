"""Tags are found by name: Mautic trims a tag's name and answers an existing tag of that name for a
create (`TagRepository::getTagByNameOrCreateNewOne`), so posting a tag twice never duplicates it."""

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store


def clean(name: str) -> str:
    """A tag's name as Mautic stores it: without surrounding whitespace (tabs included)."""
    return name.strip()


class TagHooks(Hooks):
    """A tag's name is trimmed; a create naming an existing tag answers that tag (200)."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Trim the name (`tag`); an empty one stays for the required check to refuse."""
        if isinstance(doc.get("tag"), str):
            doc["tag"] = clean(doc["tag"])

    def duplicate_of(self, doc: Doc, ctx: Context) -> Doc | None:
        """The stored tag of the same name, which a create answers instead of a duplicate."""
        name = doc.get("tag")
        holder = store.lookup(self.resource.kind, "tag", name) if name else None
        return store.get(self.resource.kind, holder) if holder not in (None, doc.get("id")) else None
