"""The stage resource (Mautic's StageBundle `Stage`)."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.stages.stages import StageHooks

STAGE = Resource(
    kind="stage",
    prefix="stages",
    singular="stage",
    plural="stages",
    routes="stages",
    keyed_list=False,
    category="object",
    permission="stage:stages",
    attrs=(a.text("name", required=True), a.integer("weight"), a.text("description")),
    commands=frozenset({"ids"}),
    summary=("id", "name", "category", "weight", "description"),
    hooks=StageHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (STAGE,)
