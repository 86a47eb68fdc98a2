"""The pure form rules: aliases, conditions, validation options and what a visitor is shown."""

from chalicelib.domain.web import form_display, form_fields, form_validation
from chalicelib.domain.web.form_display import Visitor


def test_aliases_are_cut_at_25_characters_and_reserved_words_get_f_():
    assert form_fields.clean_alias("A very long label for a field, longer than 25") == "a_very_long_label_for_a_f"
    assert form_fields.clean_alias("All") == "f_all" and form_fields.clean_alias("order") == "f_order"
    assert form_fields.clean_alias("Prénom") == "prenom" and form_fields.clean_alias("123") == "f_123"
    fields = [{"label": "Name"}, {"label": "Email"}, {"label": "Email"}, {"label": "Contact us", "alias": "contactus"}]
    assert form_fields.assign_aliases(fields, "contactus", []) == {}
    assert [f["alias"] for f in fields] == ["f_name", "email", "email1", "f_contactus"]


def test_two_given_aliases_equal_once_cut_are_refused():
    fields = [{"alias": "very_long_field_alias_12345"}, {"alias": "very_long_field_alias_123456"}]
    errors = form_fields.assign_aliases(fields, "x", [0, 1])
    assert errors == {"fields[1][alias]": [form_fields.TAKEN.format(alias="very_long_field_alias_123")]}


def test_lead_field_and_mapped_field_are_one():
    for given, expected in (
        ({"leadField": "points"}, ("contact", "points", "points")),
        ({"leadField": "companyphone"}, ("company", "companyphone", "companyphone")),
        ({"leadField": "company"}, ("contact", "company", "company")),
        ({"mappedObject": "contact", "mappedField": "email"}, ("contact", "email", "email")),
    ):
        form_fields.backfill_mapping(given)
        assert (given["mappedObject"], given["mappedField"], given["leadField"]) == expected


def test_conditions_in_not_in_and_any():
    fields = [{"id": 1, "alias": "country"}, {"id": 2, "alias": "state", "parent": 1}]
    state = fields[1]
    state["conditions"] = {"expr": "in", "values": ["US"]}
    assert form_fields.shown_by_condition(state, fields, {"country": "US"})
    assert not form_fields.shown_by_condition(state, fields, {"country": "FR"})
    assert not form_fields.shown_by_condition(state, fields, {})  # parent not posted
    assert form_fields.shown_by_condition(state, fields, {"country": ["FR", "US"]})
    state["conditions"] = {"expr": "notIn", "values": ["US"]}
    assert form_fields.shown_by_condition(state, fields, {"country": "FR"})
    assert not form_fields.shown_by_condition(state, fields, {"country": ""})
    state["conditions"] = {"expr": "in", "any": "1", "values": []}
    assert form_fields.shown_by_condition(state, fields, {"country": "FR"})
    assert not form_fields.shown_by_condition(state, fields, {"country": ""})
    assert form_fields.shown_by_condition({"alias": "free"}, fields, {})


def test_international_numbers_need_a_plus_and_a_calling_code():
    assert form_validation.international("+420444555666") and form_validation.international("+1 (402) 865-0000")
    assert not form_validation.international("0444555666") and not form_validation.international("+999 123 456")
    assert not form_validation.international("+4") and not form_validation.international("+44 abc")


def test_do_not_submit_patterns(configure):

    configure(DO_NOT_SUBMIT_EMAILS=("*@gmail.com",))
    field = {"type": "email", "validation": {"donotsubmit": "1", "donotsubmit_validationmsg": "Work email please"}}
    assert form_validation.error(field, "Me@Gmail.COM") == "Work email please"
    assert form_validation.error(field, "me@work.com") is None
    assert form_validation.error({"type": "email"}, "me@gmail.com") is None


def test_progressive_profiling_limit_and_known_values():
    fields = [
        {"alias": "email", "type": "email", "mappedField": "email", "isAutoFill": True, "showWhenValueExists": False},
        {"alias": "first", "type": "text", "mappedField": "firstname", "showWhenValueExists": False},
        {"alias": "last", "type": "text"},
        {"alias": "go", "type": "button"},
    ]
    form = {"fields": fields, "progressiveProfilingLimit": 1}
    known = Visitor(values={"email": "a@b.c", "firstname": "Ann"}, known=True)
    assert form_display.displayed(form, fields, known) == {"email": False, "last": True, "go": True}
    assert form_display.displayed(form, fields, Visitor()) == {"email": True, "go": True}
    assert form_display.displayed(dict(form, inKioskMode=True), fields, known) == {
        "email": True,
        "first": True,
        "last": True,
        "go": True,
    }
