"""``pidcanon.rewrite``: paths, bytes and file objects in, paths and file objects out, the
same bytes as the command line, and its errors as Python exceptions with the CLI's messages."""

import io
import logging
import re

import pytest
from conftest import BASE, FIXTURES, PIDCANON_FORMATS, real_files, run_cli

import pidcanon

EXAMPLE_TTL = FIXTURES / "examples" / "repository.ttl"
EXAMPLE_NT = FIXTURES / "examples" / "repository.nt"
REAL = real_files()


def relabeled(data: bytes) -> bytes:
    """``data`` with blank node labels numbered in order of appearance: RDF/XML and Turtle
    parsers make up random labels for anonymous nodes, so two runs differ only in these."""
    labels: dict = {}
    return re.sub(
        rb'(_:|rdf:nodeID=")([A-Za-z0-9]+)',
        lambda m: m.group(1) + labels.setdefault(m.group(2), b"b%d" % len(labels)),
        data,
    )


def rewritten(source, **kwargs) -> bytes:
    out = io.BytesIO()
    pidcanon.rewrite(source, out, **kwargs)
    return out.getvalue()


@pytest.mark.parametrize("f", REAL, ids=[str(f.path.relative_to(FIXTURES)) for f in REAL])
@pytest.mark.parametrize("to", [None, "nq"])
def test_same_bytes_as_the_cli(pidcanon_cli, f, to):
    args = ["rewrite", "-q", "--base", BASE, "-i", PIDCANON_FORMATS[f.format], str(f.path)]
    if to:
        args += ["--to", to]
    expected = run_cli(pidcanon_cli, args, b"")
    if expected.returncode != 0:
        # The file does not parse: the same error, with the same message.
        with pytest.raises(pidcanon.RdfSyntaxError) as raised:
            rewritten(f.path, base=BASE, format=PIDCANON_FORMATS[f.format], to=to)
        assert expected.stderr.decode() == f"pidcanon: {raised.value}\n"
        return
    got = rewritten(f.path, base=BASE, format=PIDCANON_FORMATS[f.format], to=to)
    assert relabeled(got) == relabeled(expected.stdout)


def test_paths_bytes_and_file_objects_give_the_same_output(tmp_path):
    expected = rewritten(EXAMPLE_TTL, dedup=True)
    data = EXAMPLE_TTL.read_bytes()
    assert rewritten(str(EXAMPLE_TTL), dedup=True) == expected
    assert rewritten(data, format="ttl", dedup=True) == expected
    assert rewritten(bytearray(data), format="turtle", dedup=True) == expected
    assert rewritten(memoryview(data), format="text/turtle", dedup=True) == expected
    with open(EXAMPLE_TTL, "rb") as f:  # the format from the file's name
        assert rewritten(f, dedup=True) == expected
    with open(EXAMPLE_TTL, encoding="utf-8") as f:  # a text file
        assert rewritten(f, dedup=True) == expected
    assert rewritten(io.BytesIO(data), format="ttl", dedup=True) == expected
    text = io.StringIO()
    pidcanon.rewrite(EXAMPLE_TTL, text, dedup=True)
    assert text.getvalue() == expected.decode("utf-8")
    out = tmp_path / "out.ttl"
    report = pidcanon.rewrite(EXAMPLE_TTL, out, dedup=True)
    assert out.read_bytes() == expected
    assert (report.statements_read, report.statements_written, report.duplicates_dropped) == (14, 13, 1)
    assert report.rewritten == {
        "fedora-object": 7,
        "fedora-dissemination": 2,
        "handle": 2,
        "doi": 3,
        "pdi": 2,
    }


def test_compressed_sources_are_read_as_the_cli_reads_them(tmp_path):
    import bz2
    import gzip

    expected = rewritten(EXAMPLE_TTL)
    data = EXAMPLE_TTL.read_bytes()
    for suffix, compress in ((".gz", gzip.compress), (".bz2", bz2.compress)):
        path = tmp_path / ("repository.ttl" + suffix)
        path.write_bytes(compress(data))
        assert rewritten(path) == expected  # the format through the compression extension
        hidden = tmp_path / ("repository" + suffix.replace(".", "-") + ".ttl")
        hidden.write_bytes(compress(data))
        assert rewritten(hidden) == expected  # compressed, as the first bytes say
        assert rewritten(compress(data), format="ttl") == expected
        with open(path, "rb") as f:
            assert rewritten(f, format="ttl") == expected


def test_a_compressed_destination_name_is_refused_and_a_compressing_file_object_taken(tmp_path):
    import gzip

    with pytest.raises(ValueError, match="compressed output"):
        pidcanon.rewrite(EXAMPLE_TTL, tmp_path / "out.nt.gz")
    assert not (tmp_path / "out.nt.gz").exists()
    with gzip.open(tmp_path / "out.nt.gz", "wb") as out:
        pidcanon.rewrite(EXAMPLE_TTL, out, to="nt")
    assert gzip.decompress((tmp_path / "out.nt.gz").read_bytes()) == rewritten(EXAMPLE_TTL, to="nt")


def test_small_reads_and_multibyte_characters_across_chunks():
    class Trickle(io.RawIOBase):
        """Gives at most 7 bytes per read."""

        def __init__(self, data):
            self.data = io.BytesIO(data)

        def readable(self):
            return True

        def read(self, n=-1):
            return self.data.read(min(7, n if n >= 0 else 7))

    data = EXAMPLE_NT.read_bytes()
    assert rewritten(Trickle(data), format="nt") == rewritten(data, format="nt")


def test_formats_from_names_and_destination():
    nt = rewritten(EXAMPLE_TTL, to="nt")
    assert nt.startswith(b"<info:fedora/demo:1> ")
    assert rewritten(EXAMPLE_TTL, to="application/n-triples") == nt
    assert rewritten(EXAMPLE_NT.read_bytes()) == rewritten(EXAMPLE_NT)  # bytes: N-Quads, as stdin
    with pytest.raises(ValueError, match='unknown RDF format "jsonld2"'):
        rewritten(EXAMPLE_TTL, to="jsonld2")
    with pytest.raises(ValueError, match="JSON-LD is not supported"):
        rewritten(EXAMPLE_TTL, to="jsonld")


def test_output_format_from_the_destination_name(tmp_path):
    out = tmp_path / "out.nt"
    pidcanon.rewrite(EXAMPLE_TTL, out)
    assert out.read_bytes() == rewritten(EXAMPLE_TTL, to="nt")


def test_threads_do_not_change_the_output():
    data = EXAMPLE_NT.read_bytes() * 2000
    assert rewritten(data, format="nt", threads=4) == rewritten(data, format="nt", threads=1)


def test_syntax_error_names_source_line_and_column():
    with pytest.raises(pidcanon.RdfSyntaxError) as raised:
        rewritten(b"<http://a> <http://b> <http://c> .\n<a> <b> <c> .\n", format="nt")
    e = raised.value
    assert isinstance(e, ValueError)
    assert str(e) == "<bytes>:2:1: syntax error: No scheme found in an absolute IRI"
    assert (e.source, e.line, e.column, e.message) == ("<bytes>", 2, 1, "No scheme found in an absolute IRI")
    with pytest.raises(pidcanon.RdfSyntaxError, match=r"^.*bad\.ttl:1:"):
        pass_through_file = FIXTURES.parent / "target" / "bad.ttl"
        pass_through_file.write_text("<http://a> <http://b> .\n")
        try:
            rewritten(pass_through_file)
        finally:
            pass_through_file.unlink()


def test_skip_syntax_errors_and_rejects(caplog):
    rejects = io.BytesIO()
    out = io.BytesIO()
    data = b"<a> <b> <c> .\n<info:fedora/demo%3a1> <http://b> <http://c> .\n"
    with caplog.at_level(logging.WARNING, logger="pidcanon"):
        report = pidcanon.rewrite(data, out, format="nt", skip_syntax_errors=True, rejects=rejects)
    assert out.getvalue() == b"<info:fedora/demo:1> <http://b> <http://c> .\n"
    assert rejects.getvalue() == b"<a> <b> <c> .\n"
    assert report.syntax_errors == 1 and report.statements_written == 1
    assert caplog.messages == [
        "<bytes>:1:1: syntax error, written to the rejects: No scheme found in an absolute IRI"
    ]


INVALID = b"<http://a> <http://b> <oai:wibble.org:ab%3ccd> .\n"


def test_invalid_identifiers_are_logged_and_counted(caplog):
    with caplog.at_level(logging.WARNING, logger="pidcanon"):
        report = pidcanon.rewrite(INVALID, io.BytesIO(), format="nt")
    assert report.invalid_identifiers == 1
    assert caplog.messages == [
        "<bytes>:1:23: invalid identifier <oai:wibble.org:ab%3ccd> left unchanged: "
        "oai: escapes must use upper-case hex digits (%3C, not %3c) (byte 17)"
    ]


def test_fail_on_invalid_raises_with_location():
    with pytest.raises(pidcanon.InvalidIdentifier) as raised:
        rewritten(INVALID, format="nt", fail_on_invalid=True)
    e = raised.value
    assert str(e) == (
        "<bytes>:1:23: invalid identifier <oai:wibble.org:ab%3ccd>: "
        "oai: escapes must use upper-case hex digits (%3C, not %3c) (byte 17)"
    )
    assert (e.input, e.kind, e.offset, e.source, e.line, e.column) == (
        "oai:wibble.org:ab%3ccd",
        "oai",
        17,
        "<bytes>",
        1,
        23,
    )


def test_a_failed_rewrite_leaves_no_output_file(tmp_path):
    out = tmp_path / "out.nt"
    out.write_bytes(b"before")
    with pytest.raises(pidcanon.RdfSyntaxError):
        pidcanon.rewrite(b"<a> <b> <c> .\n", out, format="nt")
    assert out.read_bytes() == b"before"
    assert [p.name for p in tmp_path.iterdir()] == ["out.nt"]


def test_io_errors_are_os_errors_and_python_errors_pass_through(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.ttl"):
        rewritten(tmp_path / "missing.ttl")
    with pytest.raises(ValueError, match="cannot tell the RDF format"):
        rewritten(tmp_path / "data.unknown")

    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def read(self, n=-1):
            raise KeyError("from the reader")

    with pytest.raises(KeyError, match="from the reader"):
        rewritten(Failing(), format="nt")

    class BadWriter:
        def write(self, data):
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        pidcanon.rewrite(EXAMPLE_NT, BadWriter())

    with pytest.raises(ValueError, match="invalid base IRI"):
        rewritten(EXAMPLE_TTL, base="not an iri")
    with pytest.raises(TypeError):
        rewritten(12)


def test_links_and_map(tmp_path):
    links, mapping = io.BytesIO(), tmp_path / "map.tsv"
    pidcanon.rewrite(EXAMPLE_NT, io.BytesIO(), links=links, map=mapping)
    rows = mapping.read_text().splitlines()
    assert "info:fedora/demo%3a1\tinfo:fedora/demo:1\tfedora-object" in rows
    assert (
        b"<info:fedora/demo%3a1> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo:1> .\n"
        in links.getvalue()
    )
    assert len(rows) == len(links.getvalue().splitlines())


SAME_AS = b"""@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<http://example.org/a> owl:sameAs <info:fedora/demo%3Ab> .
<info:fedora/demo%3Ab> owl:sameAs <hdl://10013/c> .
<hdl:10013/c> owl:sameAs <http://dx.doi.org/10.5555/R> .
<http://example.org/a> <http://purl.org/dc/terms/title> "A" .
<http://example.org/p> skos:exactMatch <http://example.org/q> .
<http://example.org/q> <http://purl.org/dc/terms/title> "Q" .
"""

COLLAPSE_OPTIONS = ["--collapse", "--equivalence-predicate", "http://www.w3.org/2004/02/skos/core#exactMatch"]


@pytest.mark.parametrize("kind", ["path", "bytes", "stream"])
def test_collapse_gives_the_cli_output(pidcanon_cli, tmp_path, kind):
    path = tmp_path / "same.ttl"
    path.write_bytes(SAME_AS)
    source = {"path": path, "bytes": SAME_AS, "stream": io.BytesIO(SAME_AS)}[kind]
    out = io.BytesIO()
    report = pidcanon.rewrite(
        source,
        out,
        format="ttl",
        to="nt",
        collapse=True,
        equivalence_predicates=["http://www.w3.org/2004/02/skos/core#exactMatch"],
    )
    cli = run_cli(pidcanon_cli, ["rewrite", "-q", "--to", "nt", *COLLAPSE_OPTIONS, str(path)], b"")
    assert cli.returncode == 0, cli.stderr
    assert out.getvalue() == cli.stdout
    # Collapsed: the DOI represents the first class, the least IRI the second.
    assert b'<https://doi.org/10.5555/r> <http://purl.org/dc/terms/title> "A" .' in out.getvalue()
    assert b'<http://example.org/p> <http://purl.org/dc/terms/title> "Q" .' in out.getvalue()
    assert b"<http://example.org/a> <http://purl.org/dc/terms/title>" not in out.getvalue()
    assert report.statements_read == 6


def test_collapse_refuses_classes_over_max_class_and_writes_nothing(tmp_path):
    destination = tmp_path / "out.nt"
    with pytest.raises(
        ValueError,
        match=r"1 equivalence classes larger than max_class=3 \(4 \(representative <https://doi.org/10.5555/r>\)\): nothing written",
    ):
        pidcanon.rewrite(SAME_AS, destination, format="ttl", collapse=True, max_class=3)
    assert not destination.exists()
    out = io.BytesIO()
    pidcanon.rewrite(
        SAME_AS, out, format="ttl", to="nt", collapse=True, max_class=3, allow_large_classes=True
    )
    assert b'<https://doi.org/10.5555/r> <http://purl.org/dc/terms/title> "A" .' in out.getvalue()
    with pytest.raises(ValueError, match="equivalence predicate <not an iri>"):
        pidcanon.rewrite(
            SAME_AS, io.BytesIO(), format="ttl", collapse=True, equivalence_predicates=["not an iri"]
        )


def test_rename_equivalences_and_the_policys_order_give_the_cli_output(pidcanon_cli, tmp_path):
    path = tmp_path / "same.ttl"
    path.write_bytes(SAME_AS)
    rename = tmp_path / "rename.tsv"
    rename.write_text("http://example.org/p\thttp://example.org/renamed\n", encoding="utf-8")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("http://example.org/q\thttp://example.org/a\n", encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('representative_order = ["fedora-object"]\n', encoding="utf-8")
    cases = [
        (["--rename", str(rename)], {"rename": rename}),
        (
            [
                *COLLAPSE_OPTIONS,
                "--equivalences",
                str(pairs),
                "--rename",
                str(rename),
                "--policy",
                str(policy),
            ],
            {
                "collapse": True,
                "equivalence_predicates": ["http://www.w3.org/2004/02/skos/core#exactMatch"],
                "equivalences": [str(pairs)],
                "rename": str(rename),
                "policy": pidcanon.Policy.from_file(policy),
            },
        ),
    ]
    for flags, kwargs in cases:
        out = io.BytesIO()
        pidcanon.rewrite(io.BytesIO(SAME_AS), out, format="ttl", to="nt", **kwargs)
        cli = run_cli(pidcanon_cli, ["rewrite", "-q", "--to", "nt", *flags, str(path)], b"")
        assert cli.returncode == 0, cli.stderr
        assert out.getvalue() == cli.stdout, flags
        assert out.getvalue() != rewritten(SAME_AS, format="ttl", to="nt"), flags
    # Renamed, joined to the first class by the pairs file, which the Fedora PID represents.
    assert b'<info:fedora/demo:b> <http://purl.org/dc/terms/title> "Q" .' in out.getvalue()
    assert (
        b"<info:fedora/demo:b> <http://www.w3.org/2004/02/skos/core#exactMatch> <http://example.org/renamed> ."
        in out.getvalue()
    )


@pytest.mark.parametrize("argument", ["rename", "equivalences"])
def test_a_bad_pairs_file_names_the_file_and_its_lines_and_nothing_is_written(tmp_path, argument):
    bad = tmp_path / "bad.tsv"
    bad.write_text("# old\tnew\nhttp://e/a\thttp://e/b\nhttp://e/a\thttp://e/c\n", encoding="utf-8")
    destination = tmp_path / "out.nt"
    value = bad if argument == "rename" else [bad]
    if argument == "rename":
        match = rf"^{re.escape(str(bad))}:3: <http://e/a> is renamed to <http://e/c> here but to <http://e/b> on line 2$"
    else:
        bad.write_text("http://e/a\thttp://e/b\nhttp://e/a\n", encoding="utf-8")
        match = rf"^{re.escape(str(bad))}:2: expected two IRIs separated by a tab"
    with pytest.raises(ValueError, match=match):
        pidcanon.rewrite(SAME_AS, destination, format="ttl", collapse=True, **{argument: value})
    assert not destination.exists()
    missing = tmp_path / "missing.tsv"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        pidcanon.rewrite(
            SAME_AS,
            destination,
            format="ttl",
            collapse=True,
            **{argument: missing if argument == "rename" else [missing]},
        )
    assert not destination.exists()
    with pytest.raises(ValueError, match="pass collapse=True"):
        pidcanon.rewrite(SAME_AS, destination, format="ttl", equivalences=[bad])
