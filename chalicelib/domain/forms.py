"""Forms: field aliases unique within the form, generated from labels."""
from chalicelib.domain import aliases
from chalicelib.domain.aliases import AliasHooks


class FormHooks(AliasHooks):
    def prepare(self, resource, doc, write):
        super().prepare(resource, doc, write)
        taken = set()
        for field in doc.get("fields") or []:
            base = aliases.clean(field.get("alias") or field.get("label"), "_") or "field"
            alias, number = base, 1
            while alias in taken:
                number += 1
                alias = f"{base}{number}"
            field["alias"] = alias
            taken.add(alias)
