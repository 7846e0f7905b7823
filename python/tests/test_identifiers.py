"""The identifier functions and classes: results, exceptions and their attributes, policies,
and the conventions of pyoxigraph's classes (repr, equality, hashing, keyword arguments)."""

import pickle

import pytest

import pidcanon
from pidcanon import Canonical, InvalidIdentifier, Policy, Registry


def test_canonicalize_returns_the_canonical_iri():
    assert pidcanon.canonicalize("INFO:FEDORA/demo%3a1") == "info:fedora/demo:1"
    assert pidcanon.canonicalize("hdl://10013/EPIC.10033") == "hdl:10013/EPIC.10033"
    assert pidcanon.canonicalize("10.1000/ABC", scheme="doi") == "https://doi.org/10.1000/abc"
    assert pidcanon.canonicalize("demo:1", scheme="fedora") == "info:fedora/demo:1"
    # Without a scheme, demo:1 is an IRI of scheme demo, passed through.
    assert pidcanon.canonicalize("demo:1") == "demo:1"


def test_an_unchanged_identifier_is_the_same_object():
    text = "".join(["info:fedora/", "demo:1"])
    assert pidcanon.canonicalize(text) is text
    assert pidcanon.canonicalize_many([text])[0] is text


def test_invalid_identifier_carries_kind_rule_offset_and_the_cli_message():
    with pytest.raises(InvalidIdentifier) as raised:
        pidcanon.canonicalize("info:fedora/demo:a b")
    e = raised.value
    assert isinstance(e, ValueError)
    # The message of `pidcanon canon --tsv`.
    assert str(e) == "fedora-object: character ' ' is not allowed in object-id (byte 18)"
    assert (e.input, e.kind, e.rule, e.offset) == (
        "info:fedora/demo:a b",
        "fedora-object",
        "character ' ' is not allowed in object-id",
        18,
    )
    assert (e.source, e.line, e.column) == (None, None, None)
    with pytest.raises(
        InvalidIdentifier, match=r"oai: escapes must use upper-case hex digits \(%3C, not %3c\) \(byte 17\)"
    ):
        pidcanon.parse("oai:wibble.org:ab%3ccd")


def test_dois_in_their_common_spellings_are_validated_on_the_fast_path():
    # The library's one-pass path for plain DOIs agrees with the full read...
    for text in ["doi:10.1371/JOURNAL.PONE.0042793", "http://dx.doi.org/10.1371/journal.PONE.0042793"]:
        assert pidcanon.canonicalize(text) == "https://doi.org/10.1371/journal.pone.0042793"
    canonical = "".join(["https://doi.org/", "10.1000/182"])
    assert pidcanon.canonicalize(canonical, scheme="doi") is canonical
    # ...and what it does not take still fails with the full read's error.
    for text, kind, offset, rule in [
        ("doi:10.1000/", "doi", 12, "local name is empty"),
        ("doi:10..1/x", "doi", 7, "a naming authority segment is empty (a leading, trailing or doubled '.')"),
        ("https://doi.org/10.1000/a%zz", "handle", 25, "'%' must be followed by two hex digits"),
    ]:
        with pytest.raises(InvalidIdentifier) as raised:
            pidcanon.canonicalize(text)
        assert (raised.value.kind, raised.value.offset, raised.value.rule) == (kind, offset, rule), text


def test_a_scheme_name_built_at_run_time_is_read_like_a_literal():
    doi = "".join(["d", "oi"])  # not the interned "doi"
    assert pidcanon.canonicalize("10.1000/ABC", scheme=doi) == "https://doi.org/10.1000/abc"
    assert pidcanon.parse("10.1000/ABC", doi).kind == "doi"
    assert pidcanon.canonicalize_many(["10.1000/ABC"], scheme=doi) == ["https://doi.org/10.1000/abc"]
    assert Registry().canonicalize("10.1000/ABC", scheme=doi) == "https://doi.org/10.1000/abc"
    with pytest.raises(ValueError, match='unknown scheme "Doi"'):
        pidcanon.canonicalize("10.1000/ABC", scheme="".join(["D", "oi"]))
    with pytest.raises(TypeError):
        pidcanon.canonicalize("10.1000/ABC", scheme=b"doi")


def test_text_that_is_not_an_iri_is_invalid_of_kind_iri():
    with pytest.raises(InvalidIdentifier) as raised:
        pidcanon.canonicalize("not an iri")
    assert raised.value.kind == "iri"


def test_unknown_scheme_and_wrong_types():
    with pytest.raises(ValueError, match='unknown scheme "isbn"'):
        pidcanon.canonicalize("x", scheme="isbn")
    with pytest.raises(TypeError):
        pidcanon.canonicalize(b"doi:10.1/x")
    with pytest.raises(TypeError):
        pidcanon.canonicalize_many(["doi:10.1/x", 3])
    with pytest.raises(ValueError, match="on_invalid"):
        pidcanon.canonicalize_many([], on_invalid="skip")


def test_parse_gives_a_canonical_with_value_semantics():
    c = pidcanon.parse("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")
    assert (c.iri, c.kind, c.changed) == ("https://doi.org/10.1371/journal.pone.0042793", "doi", True)
    assert str(c) == c.iri
    assert repr(c) == "<Canonical iri='https://doi.org/10.1371/journal.pone.0042793' kind='doi' changed=True>"
    same = Canonical(iri=c.iri, kind="doi", changed=True)
    assert c == same and hash(c) == hash(same)
    assert c != Canonical(iri=c.iri, kind="doi", changed=False)
    assert not pidcanon.parse("hdl:10013/x").changed
    assert pidcanon.parse("http://example.org/").kind == "iri"


def test_canonicalize_many_modes():
    inputs = ("doi:10.1/X", "info:fedora/demo:a b", "http://example.org/")
    assert pidcanon.canonicalize_many(inputs) == ["https://doi.org/10.1/x", None, "http://example.org/"]
    results = pidcanon.canonicalize_many(iter(inputs), on_invalid="error")
    assert isinstance(results[1], InvalidIdentifier)
    assert (results[1].kind, results[1].offset, results[1].input) == ("fedora-object", 18, inputs[1])
    with pytest.raises(InvalidIdentifier, match="byte 18"):
        pidcanon.canonicalize_many(inputs, on_invalid="raise")
    assert pidcanon.canonicalize_many(["demo:1"], scheme="fedora") == ["info:fedora/demo:1"]
    assert pidcanon.canonicalize_many([]) == []


def test_canonicalize_many_reads_any_number_of_items_in_order():
    """Items are read and handed back a chunk at a time: across chunk boundaries, from a
    generator, the results are those of one call per item, in order."""
    inputs = [f"doi:10.1/X{i}" if i % 3 else f"info:fedora/demo:{i} x" for i in range(2500)]

    def one(text):
        try:
            return pidcanon.canonicalize(text)
        except InvalidIdentifier:
            return None

    assert pidcanon.canonicalize_many(x for x in inputs) == [one(x) for x in inputs]
    unchanged = [f"https://doi.org/10.1/x{i}" for i in range(2049)]
    # Unchanged identifiers come back as the caller's own objects.
    assert all(r is x for r, x in zip(pidcanon.canonicalize_many(unchanged), unchanged))
    with pytest.raises(InvalidIdentifier, match="byte 18"):
        pidcanon.canonicalize_many(unchanged[:1024] + ["info:fedora/demo:a b"], on_invalid="raise")


def test_policy_mirrors_the_toml_keys():
    p = Policy(poi_oai="poi", fedora_bases=["http://localhost:8080/fedora"], doi_form="hdl")
    assert (p.poi_oai, p.fedora_bases, p.handle_resolvers, p.handle_form, p.doi_form) == (
        "poi",
        ("http://localhost:8080/fedora",),
        (),
        "hdl",
        "hdl",
    )
    assert repr(p) == (
        "Policy(poi_oai='poi', fedora_bases=['http://localhost:8080/fedora'], "
        "handle_resolvers=[], handle_form='hdl', doi_form='hdl')"
    )
    toml = 'poi_oai = "poi"\nfedora_bases = ["http://localhost:8080/fedora"]\ndoi_form = "hdl"\n'
    assert Policy.from_toml(toml) == p and hash(Policy.from_toml(toml)) == hash(p)
    assert p != Policy() and Policy() == Policy()
    assert pidcanon.canonicalize("doi:10.1000/ABC", policy=p) == "hdl:10.1000/abc"
    assert (
        pidcanon.canonicalize("http://localhost:8080/fedora/objects/demo%3A1", policy=p)
        == "info:fedora/demo:1"
    )
    with pytest.raises(TypeError):
        Policy("poi")  # keyword arguments only


def test_policy_file(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text('handle_form = "https"\n')
    assert Policy.from_file(path) == Policy(handle_form="https")
    assert Policy.from_file(str(path)).handle_form == "https"
    with pytest.raises(FileNotFoundError, match="cannot read policy file"):
        Policy.from_file(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"poi_oai": "merge"}, 'invalid poi_oai "merge"'),
        ({"handle_form": "url"}, "invalid handle_form"),
        ({"doi_form": "doi"}, "invalid doi_form"),
        ({"fedora_bases": ["ftp://x/fedora"]}, "Fedora base"),
        ({"handle_resolvers": ["not a url"]}, "handle resolver"),
    ],
)
def test_bad_policies_are_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Policy(**kwargs)


def test_bad_toml_is_a_value_error():
    with pytest.raises(ValueError, match="invalid policy"):
        Policy.from_toml('poi_oia = "oai"')


def test_registry_binds_a_policy():
    r = Registry(Policy(handle_form="https"))
    assert r.canonicalize("hdl:10013/x") == "https://hdl.handle.net/10013/x"
    assert r.parse("hdl:10013/x").changed
    assert r.canonicalize_many(["hdl:10013/x", "info:fedora/demo:a b"]) == [
        "https://hdl.handle.net/10013/x",
        None,
    ]
    assert r.detect_kind("doi:10.1/x") == "doi"
    assert r.policy == Policy(handle_form="https")
    assert r == Registry(policy=Policy(handle_form="https")) and r != Registry()
    assert hash(r) == hash(Registry(Policy(handle_form="https")))
    assert repr(Registry()) == f"Registry({Policy()!r})"


def test_idutils_style_functions():
    # As idutils: the DOI without its prefix; unlike idutils, ASCII letters lower-cased (DOI
    # names are case-insensitive) and the DOI validated.
    assert (
        pidcanon.normalize_doi("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")
        == "10.1371/journal.pone.0042793"
    )
    assert pidcanon.normalize_doi("doi:10.1000/182") == "10.1000/182"
    assert pidcanon.normalize_doi("10.1000/182") == "10.1000/182"
    assert pidcanon.normalize_doi("urn:doi:10.1000:182") == "10.1000/182"
    assert pidcanon.normalize_handle("https://hdl.handle.net/10013%2Fepic.10033") == "10013/epic.10033"
    assert pidcanon.normalize_handle("hdl://10013/X") == "10013/X"
    assert pidcanon.normalize_pid("doi:10.1000/ABC", "doi") == "10.1000/abc"
    assert pidcanon.normalize_pid("demo:1", "fedora") == "info:fedora/demo:1"
    with pytest.raises(InvalidIdentifier, match="not a DOI prefix"):
        pidcanon.normalize_doi("hdl:20.500/x")
    with pytest.raises(InvalidIdentifier, match="not a DOI"):
        pidcanon.normalize_doi("http://example.org/10.1000/x")
    assert pidcanon.is_doi("https://doi.org/10.1000/x") and not pidcanon.is_doi("hdl:20.500/x")
    assert pidcanon.is_handle("hdl:20.500/x") and pidcanon.is_handle("10.1000/x")
    assert not pidcanon.is_handle("http://example.org/a/b")


@pytest.mark.parametrize(
    "text, kind",
    [
        ("10.1000/182", "doi"),
        ("doi:10.1000/182", "doi"),
        ("10013/epic.10033", "handle"),
        ("info:fedora/demo:1", "fedora-object"),
        ("info:fedora/demo:1/DC", "fedora-dissemination"),
        ("oai:arXiv.org:hep-th/9901001", "oai"),
        ("http://purl.org/poi/arXiv.org/hep-th/9901001", "poi"),
        ("urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1", "pdi"),
        ("http://example.org/a/b", None),
        ("info:fedora/demo:a b", None),
        ("", None),
    ],
)
def test_detect_kind(text, kind):
    assert pidcanon.detect_kind(text) == kind


def test_report_is_a_value():
    r = pidcanon.Report(statements_read=3, statements_written=2, rewritten={"doi": 2}, duplicates_dropped=1)
    assert r.rewritten == {"doi": 2} and r.rewritten_total == 2
    assert r == pidcanon.Report(
        statements_read=3, statements_written=2, rewritten={"doi": 2}, duplicates_dropped=1
    )
    assert hash(r) == hash(
        pidcanon.Report(statements_read=3, statements_written=2, rewritten={"doi": 2}, duplicates_dropped=1)
    )
    assert "rewritten={'doi': 2}" in repr(r)
    r.rewritten["doi"] = 5  # a copy: the report does not change
    assert r.rewritten == {"doi": 2}


def test_classes_are_frozen():
    with pytest.raises(AttributeError):
        Policy().poi_oai = "poi"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        pidcanon.parse("hdl:1/x").iri = "x"  # type: ignore[misc]


def test_exceptions_pickle_like_value_errors():
    e = pickle.loads(pickle.dumps(InvalidIdentifier("m")))
    assert isinstance(e, ValueError) and str(e) == "m"


@pytest.mark.parametrize(
    "text, name",
    [
        ("https://doi.org/10.1000/abc#frag", "10.1000/abc"),
        ("https://doi.org/10.1000/ABC?noredirect", "10.1000/abc"),
        ("http://dx.doi.org/10.1000/abc?x=1#y", "10.1000/abc"),
        ("info:doi/10.1000/abc#frag", "10.1000/abc"),
        # A `#` or `?` escaped in a URI form, in a bare name or after `doi:` (which is not a URI
        # form: docs/canonical-forms.md) is part of the name.
        ("https://doi.org/10.1000/a%23b", "10.1000/a#b"),
        ("10.1000/a#b", "10.1000/a#b"),
        ("doi:10.1000/abc#frag", "10.1000/abc#frag"),
    ],
)
def test_the_query_and_fragment_of_a_doi_url_are_not_part_of_the_name(text, name):
    assert pidcanon.normalize_doi(text) == name
    # Fed back, the name is the same DOI.
    assert pidcanon.normalize_doi(name) == name
    assert pidcanon.normalize_pid(text, "doi") == name


@pytest.mark.parametrize(
    "text, name",
    [
        ("https://hdl.handle.net/10013/x?noredirect", "10013/x"),
        ("hdl:10013/x?noredirect", "10013/x"),
        ("hdl:10013/x#part", "10013/x"),
        ("https://hdl.handle.net/10013/a%3Fb", "10013/a?b"),
    ],
)
def test_the_query_and_fragment_of_a_handle_url_are_not_part_of_the_name(text, name):
    assert pidcanon.normalize_handle(text) == name
    assert pidcanon.normalize_handle(name) == name


@pytest.mark.parametrize(
    "text, kind, name",
    [
        ("doi.org/10.1000/ABC", "doi", "10.1000/abc"),
        ("dx.doi.org/10.1000/abc", "doi", "10.1000/abc"),
        ("hdl.handle.net/10013/x", "handle", "10013/x"),
        (" 10.1000/abc ", "doi", "10.1000/abc"),
        ("\t https://doi.org/10.1000/abc\n", "doi", "10.1000/abc"),
        (" 10013/x ", "handle", "10013/x"),
    ],
)
def test_resolver_hosts_without_a_scheme_and_surrounding_white_space(text, kind, name):
    # Before: `doi.org/10.1000/abc` and ` 10.1000/abc ` were handles (`hdl:DOI.ORG/10.1000%2Fabc`).
    assert pidcanon.detect_kind(text) == kind
    assert pidcanon.normalize_handle(text) == name
    assert pidcanon.is_handle(text)
    assert pidcanon.is_doi(text) == (kind == "doi")
    if kind == "doi":
        assert pidcanon.normalize_doi(text) == name


def test_errors_of_the_idutils_functions_point_into_the_text_as_given():
    with pytest.raises(InvalidIdentifier) as raised:
        pidcanon.normalize_doi("  doi:10.1000/")
    assert (raised.value.input, raised.value.offset) == ("  doi:10.1000/", 14)
    with pytest.raises(InvalidIdentifier) as raised:
        pidcanon.normalize_doi("doi.org/10.1000/")
    assert (raised.value.kind, raised.value.offset) == ("doi", 16)
    # A host that is not a resolver is not a URL: the text is read as a bare name.
    assert pidcanon.normalize_handle("example.org/a/b") == "EXAMPLE.ORG/a/b"


@pytest.mark.parametrize("text, scheme", [("10.1000/182", "doi"), ("10013/epic.10033", "handle")])
def test_a_bare_name_without_scheme_says_which_scheme_reads_it(text, scheme):
    # detect_kind reads it; canonicalize without a scheme does not (it takes IRIs), and says so.
    assert pidcanon.detect_kind(text) == scheme
    what = "DOI" if scheme == "doi" else "handle"
    hint = f'; a bare {what} name: pass scheme="{scheme}"'
    for call in (pidcanon.canonicalize, pidcanon.parse, Registry().canonicalize):
        with pytest.raises(InvalidIdentifier) as raised:
            call(text)
        assert str(raised.value).startswith("iri: not a valid IRI") and str(raised.value).endswith(hint)
        assert (raised.value.kind, raised.value.input) == ("iri", text)
    [error] = pidcanon.canonicalize_many([text], on_invalid="error")
    assert str(error).endswith(hint)
    assert pidcanon.canonicalize(text, scheme=scheme) == pidcanon.parse(text, scheme=scheme).iri
    # Text that no scheme reads as a bare name gets no hint.
    with pytest.raises(InvalidIdentifier) as raised:
        pidcanon.canonicalize("not an iri")
    assert "scheme=" not in str(raised.value)
