"""kernel/variants.py: Mautic's weight deficit and translation match, as pure functions."""

from chalicelib.domain.kernel import variants
from chalicelib.domain.kernel.variants import Candidate


def test_the_weight_deficit_alternates_a_50_50_test_and_never_picks_weight_0():
    hits = {1: 0, 2: 0}
    for _ in range(10):
        chosen = variants.by_deficit([Candidate(2, 50, hits[2]), Candidate(1, 50, hits[1])])
        hits[chosen] += 1
    assert hits == {1: 5, 2: 5}
    assert variants.by_deficit([Candidate(2, 100, 7), Candidate(1, 0, 0)]) == 2
    assert variants.weights(1, [(2, "30"), (3, "x"), (4, 90)]) == [(2, 30.0), (3, 0.0), (4, 90.0), (1, 0.0)]


def test_translation_by_exact_locale_then_language_in_mautics_order():
    family = {1: "en", 2: "fr", 3: "de_DE"}
    assert variants.translation(family, variants.accepted("fr-FR,fr;q=0.9,en;q=0.8")) == 2
    assert variants.translation(family, variants.accepted("de-AT")) == 3
    assert variants.translation(family, ["fr_CA", "en"]) == 1  # a later exact match wins, as in Mautic
    assert variants.translation(family, variants.accepted("es, *")) is None
    assert variants.accepted(" en-us ;q=0.5, EN, *") == ["en_US", "en"]
