"""Type stubs of ``pidcanon._pidcanon``, the compiled part of the package (re-exported by
``pidcanon``)."""

import os
from typing import (
    Any,
    BinaryIO,
    Callable,
    Dict,
    Iterable,
    List,
    Literal,
    Optional,
    Sequence,
    TextIO,
    Tuple,
    Union,
    final,
    overload,
)

__all__ = [
    "Policy",
    "Registry",
    "Canonical",
    "Report",
    "InvalidIdentifier",
    "RdfSyntaxError",
    "canonicalize",
    "parse",
    "canonicalize_many",
    "detect_kind",
    "normalize_doi",
    "normalize_handle",
    "normalize_pid",
    "is_doi",
    "is_handle",
    "_canonical_terms",
    "_mapped_terms",
    "rewrite",
]

__version__: str
"""The version of the crates the module is built from (``python/Cargo.toml``, equal to the
library's), as in the wheel's metadata."""

_Scheme = Literal["fedora", "oai", "poi", "handle", "doi", "pdi"]
_Path = Union[str, os.PathLike]
_Source = Union[_Path, bytes, bytearray, memoryview, BinaryIO, TextIO]
_Destination = Union[_Path, BinaryIO, TextIO]

class InvalidIdentifier(ValueError):
    """An identifier that its scheme claims but that breaks one of its rules.

    ``str(e)`` is the command line's message: ``fedora-object: character ' ' is not allowed in
    object-id (byte 18)`` from ``canonicalize``, prefixed with ``file:line:column: invalid
    identifier <iri>:`` from ``rewrite(..., fail_on_invalid=True)``.
    """

    input: str
    """The identifier."""
    kind: str
    """The kind of identifier it was read as (``"iri"`` for text that is not an IRI)."""
    rule: str
    """The rule it breaks, in the words of its specification."""
    offset: int
    """The byte offset in ``input`` (UTF-8) where the rule is broken."""
    source: Optional[str]
    """From ``rewrite``: the file (or ``<bytes>``, ``<stream>``); otherwise ``None``."""
    line: Optional[int]
    """From ``rewrite``: the 1-based line, if known."""
    column: Optional[int]
    """From ``rewrite``: the 1-based column in characters, if known."""

class RdfSyntaxError(ValueError):
    """RDF input that is not valid in its format.

    ``str(e)`` is the command line's message, ``file:line:column: syntax error: message``. It is
    a ``ValueError``, not Python's ``SyntaxError`` (which is about Python source and would add
    ``(line N)`` to the message).
    """

    message: str
    """The parser's message."""
    source: str
    """The file (or ``<bytes>``, ``<stream>``)."""
    line: Optional[int]
    """The 1-based line, if known (RDF/XML has no lines)."""
    column: Optional[int]
    """The 1-based column in characters, if known."""

@final
class Policy:
    """Every choice a user can make about canonical forms; the keyword arguments are the keys of a
    TOML policy file (``pidcanon --policy FILE``).

    >>> Policy(handle_form="https")
    Policy(poi_oai='keep', fedora_bases=[], handle_resolvers=[], handle_form='https', doi_form='https')

    :param poi_oai: ``"keep"`` POIs and OAI identifiers apart, or merge them onto ``"poi"`` or ``"oai"``.
    :param fedora_bases: Fedora base URLs whose REST and API-A-Lite URLs become ``info:fedora/`` URIs.
    :param handle_resolvers: handle resolver URL prefixes besides ``hdl.handle.net`` and ``doi.org``.
    :param handle_form: ``"hdl"`` (``hdl:NA/local``) or ``"https"`` (``https://hdl.handle.net/NA/local``).
    :param doi_form: ``"https"`` (``https://doi.org/10.x/y``) or ``"hdl"`` (``hdl:10.x/y``).
    :raises ValueError: for an unknown choice or a base or resolver that is not an http(s) URL.
    """

    def __new__(
        cls,
        *,
        poi_oai: Literal["keep", "poi", "oai"] = "keep",
        fedora_bases: Iterable[str] = (),
        handle_resolvers: Iterable[str] = (),
        handle_form: Literal["hdl", "https"] = "hdl",
        doi_form: Literal["https", "hdl"] = "https",
    ) -> Policy: ...
    @staticmethod
    def from_toml(text: str) -> Policy:
        """A policy from the text of a TOML policy file.

        :raises ValueError: for invalid TOML, an unknown key or value, a bad URL.
        """
    @staticmethod
    def from_file(path: _Path) -> Policy:
        """A policy from a TOML policy file.

        :raises OSError: when the file cannot be read.
        :raises ValueError: for invalid TOML, an unknown key or value, a bad URL.
        """
    @property
    def poi_oai(self) -> str:
        """``"keep"``, ``"poi"`` or ``"oai"``."""
    @property
    def fedora_bases(self) -> Tuple[str, ...]:
        """The Fedora base URLs."""
    @property
    def handle_resolvers(self) -> Tuple[str, ...]:
        """The handle resolver URL prefixes besides ``hdl.handle.net`` and ``doi.org``."""
    @property
    def handle_form(self) -> str:
        """``"hdl"`` or ``"https"``."""
    @property
    def doi_form(self) -> str:
        """``"https"`` or ``"hdl"``."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Registry:
    """The adapters of one policy, with the identifier functions as methods (the module-level
    functions take ``policy=`` instead).

    >>> Registry(Policy(doi_form="hdl")).canonicalize("doi:10.1000/ABC")
    'hdl:10.1000/abc'
    """

    def __new__(cls, policy: Optional[Policy] = None) -> Registry: ...
    @property
    def policy(self) -> Policy:
        """The policy the adapters follow."""
    def canonicalize(self, text: str, scheme: Optional[_Scheme] = None) -> str:
        """As :func:`canonicalize`."""
    def parse(self, text: str, scheme: Optional[_Scheme] = None) -> Canonical:
        """As :func:`parse`."""
    @overload
    def canonicalize_many(
        self,
        iterable: Iterable[str],
        scheme: Optional[_Scheme] = None,
        on_invalid: Literal["none", "raise"] = "none",
    ) -> List[Optional[str]]: ...
    @overload
    def canonicalize_many(
        self, iterable: Iterable[str], scheme: Optional[_Scheme] = None, *, on_invalid: Literal["error"]
    ) -> List[Union[str, InvalidIdentifier]]:
        """As :func:`canonicalize_many`."""
    def detect_kind(self, text: str) -> Optional[str]:
        """As :func:`detect_kind`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Canonical:
    """The canonical form of one identifier (``str()`` gives it) and what it was recognized as.

    >>> parse("HDL:10013/epic.10033")
    <Canonical iri='hdl:10013/epic.10033' kind='handle' changed=True>
    """

    def __new__(cls, iri: str, kind: str, changed: bool) -> Canonical: ...
    @property
    def iri(self) -> str:
        """The canonical IRI."""
    @property
    def kind(self) -> str:
        """``fedora-object``, ``fedora-dissemination``, ``oai``, ``poi``, ``handle``, ``doi``,
        ``pdi``, or ``iri`` for an IRI no scheme claims (passed through)."""
    @property
    def changed(self) -> bool:
        """Whether the canonical IRI differs from the input."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Report:
    """What a rewrite did; ``pidcanon rewrite --report json`` prints the same numbers."""

    def __new__(
        cls,
        *,
        statements_read: int = 0,
        statements_written: int = 0,
        rewritten: Dict[str, int] = ...,
        invalid_identifiers: int = 0,
        duplicates_dropped: int = 0,
        syntax_errors: int = 0,
        lines_passed_through: int = 0,
        signed_statements_kept: int = 0,
        bytes_read: int = 0,
    ) -> Report: ...
    @property
    def statements_read(self) -> int:
        """Statements read."""
    @property
    def statements_written(self) -> int:
        """Statements written (for the graph helpers: in the result)."""
    @property
    def rewritten(self) -> Dict[str, int]:
        """IRI occurrences rewritten, per kind (a new dict each time)."""
    @property
    def rewritten_total(self) -> int:
        """IRI occurrences rewritten, all kinds together."""
    @property
    def invalid_identifiers(self) -> int:
        """Occurrences of identifiers a scheme claims but that break its rules (left unchanged)."""
    @property
    def duplicates_dropped(self) -> int:
        """Statements dropped as duplicates (``dedup=True``; for the graph helpers, the statements
        that merged with others)."""
    @property
    def syntax_errors(self) -> int:
        """Syntax errors gone past (``skip_syntax_errors=True``)."""
    @property
    def lines_passed_through(self) -> int:
        """N-Triples / N-Quads lines that do not parse, written to the output unchanged."""
    @property
    def signed_statements_kept(self) -> int:
        """Statements of trusty nanopublications left as they are (``keep_signed=True``)."""
    @property
    def bytes_read(self) -> int:
        """Bytes of input read."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def canonicalize(text: str, scheme: Optional[_Scheme] = None, policy: Optional[Policy] = None) -> str:
    """The canonical IRI of ``text``; an IRI no scheme claims comes back unchanged (the same
    object, as does an identifier that is already canonical).

    >>> canonicalize("info:fedora/demo%3a1")
    'info:fedora/demo:1'
    >>> canonicalize("10.1000/ABC", scheme="doi")
    'https://doi.org/10.1000/abc'

    :param scheme: read ``text`` as an identifier of this scheme: its full forms, then its bare
        form (``demo:1`` for ``"fedora"``, ``10.1000/182`` for ``"doi"``), as ``pidcanon canon
        --scheme``. Without it, ``demo:1`` is an IRI of URI scheme ``demo``.
    :param policy: the choices of canonical forms (default: ``Policy()``).
    :raises InvalidIdentifier: when a scheme claims ``text`` but it breaks a rule, or ``text`` is
        not an IRI (kind ``"iri"``). Without ``scheme``, a bare DOI or handle name
        (``10.1000/182``, which :func:`detect_kind` reads as one) is not an IRI: the message then
        ends with the ``scheme`` that reads it (``; a bare DOI name: pass scheme="doi"``).
    :raises ValueError: for an unknown ``scheme``.
    """

def parse(text: str, scheme: Optional[_Scheme] = None, policy: Optional[Policy] = None) -> Canonical:
    """As :func:`canonicalize`, with the kind and whether anything changed.

    >>> parse("http://dx.doi.org/10.1000/182").kind
    'doi'
    """

@overload
def canonicalize_many(
    iterable: Iterable[str],
    scheme: Optional[_Scheme] = None,
    policy: Optional[Policy] = None,
    on_invalid: Literal["none", "raise"] = "none",
) -> List[Optional[str]]: ...
@overload
def canonicalize_many(
    iterable: Iterable[str],
    scheme: Optional[_Scheme] = None,
    policy: Optional[Policy] = None,
    *,
    on_invalid: Literal["error"],
) -> List[Union[str, InvalidIdentifier]]:
    """The canonical IRIs of many identifiers, in one call that releases the GIL while it works
    (the items are read and canonicalized a chunk of 1,024 at a time).

    >>> canonicalize_many(["doi:10.1000/ABC", "info:fedora/demo:a b"])
    ['https://doi.org/10.1000/abc', None]

    :param on_invalid: what stands for an invalid identifier in the list: ``"none"`` (``None``),
        ``"error"`` (its :class:`InvalidIdentifier`, not raised), or ``"raise"`` (the first one is
        raised).
    :raises TypeError: when an item is not a ``str``.
    """

def detect_kind(text: str, policy: Optional[Policy] = None) -> Optional[str]:
    """The kind of a valid identifier written in any of its forms, bare DOI and handle names
    included (as idutils' ``detect_identifier_schemes`` reads them); ``None`` for anything else,
    invalid identifiers included. White space around ``text`` is ignored, and DOIs and handles
    are read as :func:`normalize_doi` reads them.

    >>> detect_kind("10.1000/182"), detect_kind("info:fedora/demo:1"), detect_kind("http://example.org/")
    ('doi', 'fedora-object', None)
    """

def normalize_doi(text: str, policy: Optional[Policy] = None) -> str:
    """A DOI without its prefix, as idutils' ``normalize_doi`` returns it, from any spelling
    (``doi:``, ``info:doi/``, ``urn:doi:``, resolver URLs, ``hdl:``, bare).

    White space around ``text`` is ignored. A text with a URI scheme is read in the scheme's full
    forms; a text without one that starts with a resolver's host (``doi.org/10.1000/182``,
    ``dx.doi.org/…``) as that resolver's ``https://`` URL, as idutils reads it; any other text as
    a bare name (``10.1000/182``). The query and fragment of a URI form (``?…``, ``#…``) are not
    part of the name and are left out: ``https://doi.org/10.1000/abc#frag`` is ``10.1000/abc``,
    while the bare name ``10.1000/abc#frag`` keeps its ``#``.

    Unlike idutils, ASCII letters are lower-cased (DOI names are case-insensitive, so
    ``10.1000/ABC`` and ``10.1000/abc`` are one DOI), a URI form is percent-decoded once as the
    DOI proxy reads it, and the DOI is validated: where idutils returns whatever its regular
    expression matched (or fails with ``AttributeError``), this raises :class:`InvalidIdentifier`.

    >>> normalize_doi("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")
    '10.1371/journal.pone.0042793'

    :raises InvalidIdentifier: when ``text`` is not a valid DOI.
    """

def normalize_handle(text: str, policy: Optional[Policy] = None) -> str:
    """A handle without its prefix, as idutils' ``normalize_handle`` returns it, from any
    spelling (read as :func:`normalize_doi` reads a DOI: ``hdl.handle.net/10013/x`` is a
    resolver URL, the query and fragment of a URI form such as ``?noredirect`` are left out);
    the naming authority upper-cased, the local name kept as it is, URI forms percent-decoded
    once. A DOI is a handle too (and is case-folded as in :func:`normalize_doi`).

    >>> normalize_handle("https://hdl.handle.net/10013%2Fepic.10033")
    '10013/epic.10033'

    :raises InvalidIdentifier: when ``text`` is not a valid handle.
    """

def normalize_pid(text: str, scheme: _Scheme, policy: Optional[Policy] = None) -> str:
    """idutils' ``normalize_pid``: :func:`normalize_doi` or :func:`normalize_handle` for those
    schemes, the canonical IRI (:func:`canonicalize` with ``scheme``) for the others."""

def is_doi(text: str, policy: Optional[Policy] = None) -> bool:
    """Whether ``text`` is a valid DOI in any spelling, bare included, read as
    :func:`normalize_doi` reads it."""

def is_handle(text: str, policy: Optional[Policy] = None) -> bool:
    """Whether ``text`` is a valid handle (DOIs included) in any spelling, bare included, read as
    :func:`normalize_handle` reads it; unlike idutils, a URL of another host is not a handle."""

def rewrite(
    source: _Source,
    destination: _Destination,
    *,
    format: Optional[str] = None,
    to: Optional[str] = None,
    base: Optional[str] = None,
    dedup: bool = False,
    policy: Optional[Policy] = None,
    fail_on_invalid: bool = False,
    skip_syntax_errors: bool = False,
    keep_signed: bool = False,
    threads: Optional[int] = None,
    links: Optional[_Destination] = None,
    map: Optional[_Destination] = None,
    rejects: Optional[_Destination] = None,
    collapse: bool = False,
    equivalence_predicates: Optional[Sequence[str]] = None,
    max_class: int = 1000,
    allow_large_classes: bool = False,
    drop_reflexive: bool = False,
    equivalences: Optional[Sequence[_Path]] = None,
    rename: Optional[_Path] = None,
) -> Report:
    """Streams RDF from ``source`` into ``destination`` with every identifier canonicalized, as
    ``pidcanon rewrite`` does (the same output, byte for byte), with the GIL released.

    >>> import io
    >>> out = io.BytesIO()
    >>> rewrite(b"<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .\\n", out).rewritten
    {'fedora-object': 1, 'handle': 1}
    >>> out.getvalue()
    b'<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .\\n'

    :param source: a path (``str`` or ``os.PathLike``), ``bytes``-like data, or a file object
        opened in binary or text mode, read in 64 KiB chunks; decompressed (gzip, bzip2, zstd)
        when its name's extension or its first bytes say it is compressed.
    :param destination: a path, written through a temporary file in the same directory renamed
        at the end (a failed rewrite leaves no partial file and an existing one untouched), or a
        file object opened in binary or text mode (not closed). A path with a compression
        extension is refused: pass ``gzip.open(path, "wb")`` instead.
    :param format: the input format: ``nt``, ``nq``, ``ttl``, ``trig``, ``rdfxml``, an extension
        or a media type. Default: from the path's (or the file object's ``name``) extension;
        ``bytes`` and nameless streams are read as N-Quads, which includes N-Triples.
    :param to: the output format; default: from the destination path's extension, else the input
        format.
    :param base: the base IRI of relative IRIs in Turtle, TriG and RDF/XML.
    :param dedup: drop statements that became exact duplicates (``--dedup``).
    :param fail_on_invalid: raise :class:`InvalidIdentifier` at the first invalid identifier
        instead of leaving it unchanged (``--strict``).
    :param skip_syntax_errors: go on after syntax errors (``--lenient``).
    :param keep_signed: leave trusty nanopublications as they are (``--keep-signed``).
    :param threads: threads for N-Triples/N-Quads (default: the number of cores).
    :param links: where to write ``<original> owl:sameAs <canonical> .`` once per rewritten IRI.
    :param map: where to write ``original<TAB>canonical<TAB>kind`` once per rewritten IRI.
    :param rejects: with ``skip_syntax_errors``, where N-Triples/N-Quads lines that do not parse go.
    :param collapse: collapse equivalent IRIs onto one representative per class (``--collapse``):
        a first pass reads ``source`` as the rewrite reads it and gathers the classes of its
        ``owl:sameAs`` statements (and of ``equivalence_predicates``); a file object is first
        copied to a temporary file, so that it can be read twice. See docs/equivalence.md.
    :param equivalence_predicates: other predicates (full IRIs) whose statements assert
        equivalence, such as ``skos:exactMatch``'s.
    :param max_class: classes of more identifiers are refused (``ValueError``, nothing written)
        unless ``allow_large_classes``.
    :param allow_large_classes: collapse classes larger than ``max_class`` too.
    :param drop_reflexive: drop equivalence statements whose two sides become one IRI.
    :param equivalences: with ``collapse``, files of equivalent IRIs (``--equivalences``), a
        pair ``iri<TAB>iri`` a line (as ``map`` writes them), joined to the classes.
    :param rename: a file of renames (``--rename``), ``old<TAB>new`` a line (any spelling of
        ``old``): every occurrence of ``old`` becomes ``new``, before the classes are gathered.
    :raises RdfSyntaxError: when the input is not valid in its format.
    :raises InvalidIdentifier: with ``fail_on_invalid``.
    :raises OSError: when a file cannot be read or written; an exception raised by a file
        object's ``read`` or ``write`` comes through as it is.
    :raises ValueError: for an unknown format, a bad base IRI, named graphs into a triple format,
        classes larger than ``max_class``, a ``rename`` or ``equivalences`` file with bad lines
        (``path:line: problem`` each).

    Invalid identifiers left unchanged, syntax errors skipped and warnings are logged on the
    ``pidcanon`` logger (``logging.getLogger("pidcanon")``) with the command line's messages.
    """

def _canonical_terms(
    terms: Iterable[Any], iri_type: type, policy: Optional[Policy] = None
) -> Tuple[Dict[Any, Tuple[Any, str]], Dict[Any, str]]:
    """For the graph helpers: ``({term: (canonical term, kind)}, {term: message})`` for the
    terms of ``iri_type`` (rdflib's ``URIRef``) that a scheme claims and that change or are
    invalid; the keys are the given objects, and a canonical term already among ``terms`` is
    that object."""

def _mapped_terms(
    terms: Iterable[Any],
    statements_of: Callable[[Any], Iterable[Tuple[Any, ...]]],
    iri_type: type,
    policy: Optional[Policy] = None,
    *,
    rename: Optional[_Path] = None,
    collapse: bool = False,
    equivalence_predicates: Optional[Sequence[str]] = None,
    equivalences: Optional[Sequence[_Path]] = None,
    max_class: int = 1000,
    allow_large_classes: bool = False,
    drop_reflexive: bool = False,
) -> Tuple[Dict[Any, Tuple[Any, str]], Dict[Any, str], List[Tuple[Any, ...]], List[Tuple[Any, ...]]]:
    """For the graph helpers, with ``rename``, ``collapse`` or ``equivalences``: ``(changed,
    invalid, replaced, links)``. ``changed`` and ``invalid`` are ``_canonical_terms``'s, each IRI
    canonicalized, renamed and collapsed as ``pidcanon rewrite`` maps it. With ``collapse``, the
    classes are gathered from the statements ``statements_of(predicate)`` gives for each
    equivalence predicate (``(s, p, o)`` or ``(s, p, o, graph)`` tuples) and from the
    ``equivalences`` files; ``replaced`` lists those of the statements that the rewrite does not
    write where they stand, and ``links`` the statements ``(representative, p, member[, graph])``
    it writes instead (the graph as given: not mapped)."""
