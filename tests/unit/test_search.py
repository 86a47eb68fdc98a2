"""Unit tests for chalicelib.domain.kernel.search (Mautic list search strings)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chalicelib.domain.kernel.search import (
    And,
    Command,
    Not,
    Or,
    SearchSyntaxError,
    Term,
    evaluate,
    like,
    parse,
    split_ids,
)


def T(text, strict=False):
    return Term(text, strict)


def C(name, value, strict=False):
    return Command(name, value, strict)


# --- parsing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, "", "   ", "\t\n"])
def test_blank_is_none(text):
    assert parse(text) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("foo", T("foo")),
        ("+foo", T("foo", True)),
        ("%foo%", T("%foo%")),
        ('"big co"', T("big co")),
        ('+"big co"', T("big co", True)),
        ('""', T("")),
        ('"OR"', T("OR")),
        ("+OR", T("OR", True)),
        ("Or", T("Or")),
        ("a!b", T("a!b")),
        (":foo", T(":foo")),
    ],
)
def test_terms(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("is:published", C("is", "published")),
        ("Email:%@Gmail.com", C("email", "%@Gmail.com")),
        ('name:"Big Co"', C("name", "Big Co")),
        ('name:+"Big Co"', C("name", "Big Co", True)),
        ("email:+a@b.c", C("email", "a@b.c", True)),
        ("+email:a@b.c", C("email", "a@b.c", True)),
        ("is:", C("is", "")),
        ('name:""', C("name", "")),
        ("a:b:c", C("a", "b:c")),
        ("lead.field_1:x", C("lead.field_1", "x")),
        ("http://example.com", C("http", "//example.com")),  # unknown commands are the resource's business
    ],
)
def test_commands(text, expected):
    assert parse(text) == expected


def test_command_value_stops_at_whitespace_and_closing_paren():
    assert parse("(tag:vip) is:") == And((C("tag", "vip"), C("is", "")))
    assert parse('name:"Big Co"x') == And((C("name", "Big Co"), T("x")))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("!foo", Not(T("foo"))),
        ("! foo", Not(T("foo"))),
        ("!+foo", Not(T("foo", True))),
        ("!is:published", Not(C("is", "published"))),
        ("!email:%@gmail.com", Not(C("email", "%@gmail.com"))),
        ("!(a OR b)", Not(Or((T("a"), T("b"))))),
        ("!!foo", T("foo")),
        ("!(!foo)", T("foo")),
        ("!" * 10001 + "foo", Not(T("foo"))),
    ],
)
def test_negation(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a b", And((T("a"), T("b")))),
        ("a AND b", And((T("a"), T("b")))),
        ("a and b", And((T("a"), T("b")))),
        ("a OR b", Or((T("a"), T("b")))),
        ("a or b", Or((T("a"), T("b")))),
        ("a OR b c", Or((T("a"), And((T("b"), T("c")))))),
        ("a AND b OR c", Or((And((T("a"), T("b"))), T("c")))),
        ("a b OR c d", Or((And((T("a"), T("b"))), And((T("c"), T("d")))))),
        ("(a OR b) c", And((Or((T("a"), T("b"))), T("c")))),
        ("a (b c)", And((T("a"), T("b"), T("c")))),
        ("(a OR b) OR c", Or((T("a"), T("b"), T("c")))),
        ("((a))", T("a")),
        ("(a)(b)", And((T("a"), T("b")))),
        ("tag:vip OR !is:published", Or((C("tag", "vip"), Not(C("is", "published"))))),
    ],
)
def test_boolean_structure(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("(a", "unbalanced parenthesis"),
        ("((a)", "unbalanced parenthesis"),
        ("a)", "unbalanced parenthesis"),
        (")a(", "unbalanced parenthesis"),
        ("(", "unbalanced parenthesis"),
        ("!", "dangling '!'"),
        ("a !", "dangling '!'"),
        ("(!)", "dangling '!'"),
        ("!OR a", "dangling '!'"),
        ("a OR", "dangling OR"),
        ("a AND", "dangling AND"),
        ("a OR OR b", "dangling OR"),
        ("(a OR) b", "dangling OR"),
        ("OR a", "OR must come after"),
        ("(AND a)", "AND must come after"),
        ("()", "empty parentheses"),
        ('"abc', "unterminated quote at position 0"),
        ('name:"Big', "unterminated quote at position 5"),
        ("+", "'+' at position 0 must be followed by a term"),
        ("a + b", "'+' at position 2"),
        ("(" * 60 + "a" + ")" * 60, "nested deeper"),
    ],
)
def test_syntax_errors(text, message):
    with pytest.raises(SearchSyntaxError, match=message.replace("(", r"\(").replace("+", r"\+")):
        parse(text)


def test_syntax_error_is_value_error():
    assert issubclass(SearchSyntaxError, ValueError)


# --- evaluate ------------------------------------------------------------------------------------


def _on_term(doc, term):
    return term.text in doc["words"]


def _on_command(doc, command):
    return command.value in doc.get(command.name, ())


@pytest.mark.parametrize(
    "text, expected",
    [
        (None, True),
        ("alice", True),
        ("bob", False),
        ("!bob", True),
        ("alice bob", False),
        ("alice OR bob", True),
        ("tag:vip", True),
        ("!tag:vip", False),
        ("tag:vip (bob OR tag:new)", True),
        ("!(tag:vip OR bob)", False),
        ("unknown:x", False),
    ],
)
def test_evaluate(text, expected):
    doc = {"words": {"alice"}, "tag": {"vip", "new"}}
    assert evaluate(parse(text), doc, _on_term, _on_command) is expected


def test_evaluate_short_circuits_and_coerces_to_bool():
    seen = []

    def on_term(doc, term):
        seen.append(term.text)
        return term.text == "yes" and "truthy"

    assert evaluate(parse("no yes"), {}, on_term, _on_command) is False
    assert evaluate(parse("yes OR no"), {}, on_term, _on_command) is True
    assert seen == ["no", "yes"]


def test_evaluate_rejects_foreign_nodes():
    with pytest.raises(TypeError):
        evaluate(object(), {}, _on_term, _on_command)


# --- like / split_ids ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, pattern, contains, expected",
    [
        ("John Smith", "smith", True, True),
        ("John Smith", "smith", False, False),
        ("Smith", "SMITH", False, True),
        ("a@gmail.com", "%@gmail.com", False, True),
        ("a@gmail.com.evil", "%@gmail.com", False, False),
        ("a@gmail.com.evil", "%@gmail.com", True, False),  # an explicit '%' disables the implicit contains
        ("abc", "a%c", False, True),
        ("ac", "a%c", False, True),
        ("a", "a%a", False, False),
        ("aXbYa", "a%b%a", False, True),
        ("abab", "%ab%ab", False, True),
        ("anything", "%", False, True),
        ("", "%", False, True),
        ("", "", True, True),
        ("x", "", False, False),
        (None, "%", True, False),
        (42, "4", True, True),
        (42, "42", False, True),
        (True, "1", False, True),
        (False, "0", False, True),
        (False, "false", True, False),
        ("Straße", "STRASSE", False, True),
        ("a.b", "a_b", False, False),  # only '%' is a wildcard
    ],
)
def test_like(value, pattern, contains, expected):
    assert like(value, pattern, contains=contains) is expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1,2, 3", [1, 2, 3]),
        ("7", [7]),
        ("", []),
        (" , 4,,5 ,", [4, 5]),
    ],
)
def test_split_ids(value, expected):
    assert split_ids(value) == expected


@pytest.mark.parametrize("value, bad", [("1,x,3", "'x'"), ("1, -2", "'-2'"), ("1.5", "'1.5'"), ("²", "'²'")])
def test_split_ids_rejects_non_integers(value, bad):
    with pytest.raises(SearchSyntaxError, match=f"not an id: {bad}"):
        split_ids(value)


# --- properties ----------------------------------------------------------------------------------


def _quote(text):
    return f'"{text}"' if " " in text else text


def render(node, and_sep=" "):
    """Render a tree as search text, parenthesising every group."""
    if isinstance(node, Term):
        return ("+" if node.strict else "") + _quote(node.text)
    if isinstance(node, Command):
        return f"{node.name}:{'+' if node.strict else ''}{_quote(node.value)}"
    if isinstance(node, Not):
        return "!" + render(node.node, and_sep)
    sep = and_sep if isinstance(node, And) else " OR "
    return "(" + sep.join(render(child, and_sep) for child in node.nodes) + ")"


def leaves(node):
    if isinstance(node, (Term, Command)):
        return [node]
    if isinstance(node, Not):
        return leaves(node.node)
    return [leaf for child in node.nodes for leaf in leaves(child)]


def _matches(doc):
    return lambda _doc, leaf: leaf in doc


# Term texts avoid 'o'/'n' so they can never spell the OR/AND keywords.
leaf_nodes = st.one_of(
    st.builds(Term, st.text("abcxy ", min_size=1, max_size=4), st.booleans()),
    st.builds(Command, st.sampled_from(["tag", "is", "name"]), st.text("ab%.@ ", max_size=4), st.booleans()),
)
trees = st.recursive(
    leaf_nodes,
    lambda kids: st.one_of(
        st.builds(Not, kids),
        st.builds(And, st.lists(kids, min_size=1, max_size=3).map(tuple)),
        st.builds(Or, st.lists(kids, min_size=1, max_size=3).map(tuple)),
    ),
    max_leaves=12,
)


@given(trees, st.sampled_from([" ", " AND ", " and "]), st.data())
def test_parse_of_rendered_tree_evaluates_like_the_tree(tree, and_sep, data):
    parsed = parse(render(tree, and_sep))
    doc = data.draw(st.sets(st.sampled_from(leaves(tree))))
    expected = evaluate(tree, doc, _matches(doc), _matches(doc))
    assert evaluate(parsed, doc, _matches(doc), _matches(doc)) is expected


@given(st.lists(st.lists(leaf_nodes, min_size=1, max_size=3), min_size=1, max_size=3), st.data())
def test_and_binds_tighter_than_or_without_parentheses(clauses, data):
    text = " OR ".join(" ".join(render(leaf) for leaf in clause) for clause in clauses)
    doc = data.draw(st.sets(st.sampled_from([leaf for clause in clauses for leaf in clause])))
    expected = any(all(leaf in doc for leaf in clause) for clause in clauses)
    assert evaluate(parse(text), doc, _matches(doc), _matches(doc)) is expected


@given(trees, trees, st.data())
def test_de_morgan(a, b, data):
    doc = data.draw(st.sets(st.sampled_from(leaves(a) + leaves(b))))
    left = parse(f"!({render(a)} OR {render(b)})")
    right = parse(f"!{render(a)} !{render(b)}")
    assert evaluate(left, doc, _matches(doc), _matches(doc)) == evaluate(right, doc, _matches(doc), _matches(doc))


@given(st.one_of(st.text(), st.lists(st.sampled_from(list('ab:+!()"% ') + ["OR", "AND", "or", "tag:"])).map("".join)))
def test_parse_only_ever_raises_search_syntax_error(text):
    try:
        node = parse(text)
    except SearchSyntaxError:
        return
    assert node is None or isinstance(node, (Term, Command, Not, And, Or))


@given(st.text(max_size=20), st.text(st.characters(exclude_characters="%"), max_size=5))
def test_like_contains_equals_explicit_wildcards(value, sub):
    assert like(value, sub, contains=True) == like(value, f"%{sub}%", contains=False)
    assert like(value, sub, contains=True) == (sub.casefold() in value.casefold())


@given(st.text(st.characters(exclude_characters="%"), max_size=20))
def test_like_matches_itself_case_insensitively(value):
    assert like(value, value.upper(), contains=False) == (value.upper().casefold() == value.casefold())
    assert like(value, value, contains=False)


@given(st.lists(st.integers(min_value=0, max_value=10**12)))
def test_split_ids_round_trips(ids):
    assert split_ids(" , ".join(map(str, ids))) == ids
