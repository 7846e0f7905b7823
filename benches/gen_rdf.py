#!/usr/bin/env python3
"""Realistic RDF with persistent identifiers in mixed spellings: pidcanon's corpus generator.

Usage:
    benches/gen_rdf.py --statements N [--seed S] [--format nt|nq|ttl|trig] [-o FILE] [--stats]

    --statements N   exactly N statements (--triples N is the same option)
    --seed S         the corpus is a function of (N, S) alone: the same arguments give the same
                     bytes on every machine and Python 3 version (default 1)
    --format F       nt (N-Triples, default), nq (N-Quads), ttl (Turtle) or trig (TriG: the
                     Turtle with about half the subject blocks in one of six named graphs,
                     written `GRAPH <g> { … }` or `<g> { … }`)
    -o FILE          write to FILE (default: standard output)
    --stats          print the measured mix to standard error

Python 3.7 or later, standard library only. It streams: memory stays flat (20 to 30 MB) whatever N, and
1 million statements take 3 to 5 s (N-Triples, N-Quads) and 5 to 6 s (Turtle) on one core of
the build machine.

The three formats of one (N, seed) hold the same statements in the same order: the N-Quads
file is the N-Triples file with about half the subject blocks placed in one of six named graphs
(two of them named by two spellings of one Fedora object, one by a blank node), and the Turtle
file reads back to the same triples, its `[ ]` and `( )` nodes standing for the N-Triples
`_:aN` / `_:lN` labels. Only the syntax differs (prefixed names, relative IRIs, bare numbers,
`\\u` escapes in N-Triples, long strings in Turtle), never a term.

What the corpus looks like (`--stats`, --statements 1000000 --seed 1; the shares move by a
fraction of a point for N >= 100,000):

  Size: 118 MB of N-Triples (median line 113 bytes, longest 2.3 KB), 134 MB of N-Quads,
  58 MB of Turtle.  122,119 subject blocks of 8.2 statements on average (at most 27).
  0.49% of the statements repeat one of the last 64 blocks (as in real dumps: a streaming
  rewriter keeps them, a graph store drops them).

  Subject blocks, share of blocks:
    18%  Fedora 3 objects as a resource index holds them: fedora-model:hasModel (one or
         two content models, a ',' list in Turtle), state, label, ownerId, createdDate,
         view:lastModifiedDate, view:disseminates (two to five datastream URIs of the same
         PID, each spelled on its own), rel:isMemberOfCollection and other RELS-EXT
         relations, dc:title@lang, dc:identifier "ns:id", owl:sameAs a handle or DOI (and,
         in 6%, another spelling of the same object), dcterms:hasFormat method calls.
     8%  Fedora datastreams <info:fedora/PID/DSID>: view:disseminationType
         <info:fedora/*/DSID>, mimeType, isVolatile, lastModifiedDate, length.
    40%  works described with schema.org and Dublin Core: rdf:type, names in several
         languages, identifiers (a DOI, a handle, or the DOI as a plain literal),
         dcterms:references to POIs, OAI ids, PDIs and web pages, authors as `[ ]` nodes or
         named blank nodes, Fedora thumbnails (method URIs), dates, numbers, keyword lists,
         long abstracts, and in 3% of them a collection `( … )` of parts.
     8%  persons as named blank nodes (_:pN): names, mailto:, ORCID/VIAF sameAs, foaf:knows.
    11%  handle and DOI subjects: titles, dcterms:isVersionOf, hasFormat datastreams,
         seeAlso, owl:sameAs another spelling of the same identifier (18%).
     8%  OAI items (oai: or POI subjects, owl:sameAs the other form, datestamp, setSpec).
     7%  PDI documents and fragments of them (isVersionOf, isPartOf, owl:sameAs).

  Terms: subjects 92% IRIs, 8% blank nodes; objects 47.5% IRIs, 47.5% literals, 5% blank
  nodes.  2.39 IRI occurrences per statement, 33% of them persistent identifiers (in every
  position; predicates count as vocabulary, and so do Fedora vocabulary objects such as
  info:fedora/fedora-system:def/model#Active, which pidcanon claims and leaves unchanged).
  Identifier occurrences by kind: Fedora objects 47%, datastreams 17%, method calls 1.3%
  (both pidcanon's fedora-dissemination), handles 5.6%, DOIs 10.5%, OAI 5.7%, POI 4.0%,
  PDI 8.6%.  47% of them are spelled otherwise than pidcanon's canonical form; 0.11% are
  deliberate decoys that pidcanon reports invalid (OAI: in upper case, OAI and POI escapes it
  must refuse, bare prefixes such as `hdl:` or `info:fedora/` with nothing after them).
  Literals: 28.5% language-tagged, 36.6% typed, 1.1% long (200 to 2,000 characters over
  several lines).

  Spellings, each occurrence drawn on its own:
    Fedora  info:fedora/demo:1 | demo%3A1 | demo%3a1 | INFO:fedora/ | info:FEDORA/ |
            Info:Fedora/ ; object ids holding escaped octets (caf%C3%A9) in either hex
            case; datastreams DC, RELS-EXT, title.jpg, d%C3%A9j%C3%A0-vu (also raw
            déjà-vu, and d%c3%a9…) with needless escapes (RELS%2DEXT, title%2ejpg, %44C);
            the resource index's info:fedora/*/DSID; method calls PID/bDef/method?params
            with parameters shuffled and escapes in either case.
    Handle  hdl:NA/x | hdl://NA/x | HDL:NA/x | info:hdl/ | urn:hdl:NA:x |
            http(s)://hdl.handle.net/ (upper-case host, :443 or :80, NA%2Fx) ; naming
            authorities in either case (21.T11148), 0.NA/ prefix records.
    DOI     https://doi.org/ | http://doi.org/ | http(s)://dx.doi.org/ | doi: | DOI: |
            info:doi/ | urn:doi: | hdl: | http://hdl.handle.net/ ; suffixes in the
            publisher's case, lower or upper case; SICI suffixes with ( ) raw or %28 %29 and
            %3C/%3c %3E/%3e (only in URI forms: `doi:` names are never decoded).
    PDI     urn:pdi:// | URN:PDI:// | urn:PDI:// | Urn:Pdi:// | pdi:// ; series and
            format in upper case, escaped hyphens or letters (%2D, %2d, %61) in the series;
            fragments with the format's default scheme omitted or explicit in either case
            (#37,51 | #char=37,51 | #CHAR=37,51; #(5,10),(25,30) | #rect=(5,10),(25,30),0;
            #23,57 | #sec=23,57; #sec,23,51 | #crop=sec,23,51) ; the default version 1
            omitted now and then, and dcterms:isVersionOf naming the document without a
            version (pidcanon keeps 1.text and 1.text.1 apart, as the draft asks).
    OAI     oai:arXiv.org:hep-th/9901001 and other repositories' conventions (escapes in
            upper-case hex where needed); rare decoys: OAI:, needless %2F, lower-case hex.
    POI     http://purl.org/poi/ns/x for the same items | https: | upper-case host | :80 |
            :443 ; the same rare lower-case-hex decoys.
  Other IRIs: example.org (also relative to @base in Turtle), Wikidata, DBpedia (%28 %29,
  raw non-ASCII in other languages' DBpedias), id.loc.gov, VIAF, ORCID, urn:uuid:,
  urn:isbn:, info:pmid/, mailto:, lower-case escapes a canonicalizer must leave alone, and
  look-alikes that are no identifiers: a handle proxy's REST API URL, the hld.handle.net
  typo of the handle seed document, purl.org vocabularies, info:lccn/.
  Literals: plain; eleven language tags with non-ASCII and astral characters; xsd:dateTime,
  date, gYear, integer, decimal, double, boolean, anyURI (holding identifier text, which a
  canonicalizer must not touch) and a custom datatype; strings with quotes, backslashes,
  tabs, CR and LF.

  Serialization:
    nt, nq  one statement per line, no comments; 30% of IRIs and 5% of literals that hold
            non-ASCII characters use \\uXXXX / \\UXXXXXXXX escapes; `[ ]` nodes as _:aN,
            collection nodes as _:lN, named blank nodes _:pN.
    ttl     @prefix and SPARQL-style PREFIX declarations and @base; ';' and ',' lists, 'a',
            prefixed names (fedora:demo%3A1 too), relative IRIs, bare integers, decimals,
            doubles and booleans, '…' and \"\"\"…\"\"\" strings, `[ ]` nodes nested up to
            two levels, `( … )` collections, an occasional comment line.
"""

import argparse
import random
import re
import sys
import time

# ------------------------------------------------------------------------------ vocabularies
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
DC = "http://purl.org/dc/elements/1.1/"
DCT = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
SDO = "http://schema.org/"
FMODEL = "info:fedora/fedora-system:def/model#"
FREL = "info:fedora/fedora-system:def/relations-external#"
FVIEW = "info:fedora/fedora-system:def/view#"
OAIPMH = "http://www.openarchives.org/OAI/2.0/"
EXNS = "http://example.org/ns#"
BASE = "http://example.org/"

# Turtle prefixes: (name, namespace, declared with SPARQL-style PREFIX?)
TTL_PREFIXES = [
    ("rdf", RDF, False), ("rdfs", RDFS, False), ("xsd", XSD, False), ("owl", OWL, True),
    ("dc", DC, False), ("dcterms", DCT, False), ("foaf", FOAF, True), ("schema", SDO, True),
    ("fedora-model", FMODEL, False), ("rel", FREL, False), ("view", FVIEW, True),
    ("oai", OAIPMH, False), ("ex", EXNS, True), ("fedora", "info:fedora/", False),
]

TYPE = RDF + "type"
FIRST = RDF + "first"
REST = RDF + "rest"
NIL = RDF + "nil"
SAME_AS = OWL + "sameAs"
X_STR = None
X_INT = XSD + "integer"
X_DEC = XSD + "decimal"
X_DBL = XSD + "double"
X_BOOL = XSD + "boolean"
X_DT = XSD + "dateTime"
X_DATE = XSD + "date"
X_YEAR = XSD + "gYear"
X_URI = XSD + "anyURI"
X_CALL = "http://example.org/datatype/callNumber"

# kinds of IRI occurrence, for --stats (pidcanon's kinds, datastreams and method calls apart)
(K_VOCAB, K_IRI, K_FOBJ, K_FDS, K_FMETH, K_HDL, K_DOI, K_OAI, K_POI, K_PDI, K_DECOY) = range(11)
KIND_LABELS = ["vocabulary", "other IRIs", "fedora-object", "fedora datastream",
               "fedora method call", "handle", "doi", "oai", "poi", "pdi", "decoy"]
# spelling of an identifier occurrence
CANON, VARIANT, INVALID = 0, 1, 2

# ------------------------------------------------------------------------------ word lists
VOCAB = """
atlas ballad borough canal cantata cartulary census charter chronicle codex colliery
concerto correspondence deed diary dredging engraving estate expedition facsimile ferry
foundry gazetteer glacier harbour herbarium hymnal inventory journal ledger lighthouse
lithograph logbook manuscript map marsh memoir mill minutes missal monastery motet
newsletter notebook observatory orchard parish pamphlet parchment photograph plantation
portrait quarry railway receipt register regatta sampler scrapbook sermon shipwreck
sketchbook songbook specimen survey tapestry telegram terrier textile theatre thesis
timetable tithe tramway treatise vestry viaduct village warrant watercolour weir woodcut
workhouse yearbook
""".split()
TITLE_WORDS = [w.capitalize() for w in VOCAB]
GIVEN = ["Ada", "Bertha", "Chidi", "Dmitri", "Eleni", "Farah", "Goran", "Hiroshi", "Ines",
         "Jonas", "Kavya", "Luis", "Mei", "Niamh", "Olumide", "Pia", "Quentin", "Rania",
         "Søren", "Thandiwe", "Ulla", "Vikram", "Wen", "Ximena", "Yusuf", "Zofia"]
FAMILY = ["Abara", "Bergström", "Castillo", "Dubois", "Eriksen", "Fujita", "García",
          "Haddad", "Ivanova", "Jansen", "Kowalski", "Lefèvre", "Müller", "Nakamura",
          "O'Neill", "Petrov", "Quispe", "Rossi", "Schröder", "Tanaka", "Ueda", "Varga",
          "Wójcik", "Xu", "Yilmaz", "Zhang"]
# (language tag, titles)
TITLES = [
    ("en", ["Survey of the lower river", "Letters from the lighthouse keeper",
            "Minutes of the vestry, 1843-1851", "Plans of the tramway depot",
            "A register of shipwrecks on the north coast"]),
    ("en-GB", ["Colour plates of harbour birds", "Catalogue of the regatta programmes"]),
    ("de", ["Über die Flößerei auf der Isar", "Straßenbahnpläne der Stadt Görlitz",
            "Tagebuch einer Reise nach Südtirol"]),
    ("fr", ["Mémoire sur les écluses du canal", "Lettres d'un été à Genève",
            "Relevé des moulins de la Sèvre"]),
    ("es", ["Cartografía de la costa cantábrica", "Diario del año de la peste"]),
    ("pt-BR", ["Coleção de mapas da província", "Relação das fazendas de café"]),
    ("ja", ["港湾測量図", "古文書目録 第二巻"]),
    ("zh-Hans", ["河道测量报告", "地方志稿本"]),
    ("ru", ["Карта уезда", "Записки путешественника"]),
    ("el", ["Χάρτης του λιμανιού", "Ἐπιστολαί"]),
    ("ar", ["مخطوطة في علم الفلك", "سجل الميناء"]),
]
ODD_TEXT = ["🗺 scan of sheet 12", "\U0001D11E fragment of a motet", "Ærøskøbing ferry log",
            "naïve façade sketches", "Ελληνικά, русский, 日本語 on one label",
            "emoji in a caption 📜✍"]
ESCAPED_TEXT = [
    'The curator wrote "rescan at 600 dpi" on the sleeve',
    "C:\\Fedora\\objects\\2011\\0303\\demo_17.xml",
    "shelf\tbox\tfolder",
    "first line\nsecond line",
    "written on Windows\r\nsecond line",
    'a backslash \\ next to a "quote"',
    "pattern ^\\d+\\.\\d+$ in the finding aid",
    "it's the keeper's \"best\" copy",
    "tab\tthen a literal \\n, not a newline",
]
MIME_TYPES = ["image/jpeg", "image/tiff", "image/jp2", "text/xml", "application/pdf",
              "audio/x-wav", "video/mp4", "application/rdf+xml", "text/plain"]
SET_SPECS = ["hep-th", "physics:cond-mat", "cs", "math.AG", "driver", "ec_fundedresources",
             "openaire", "theses"]

# ------------------------------------------------------------------------------ identifiers
FEDORA_NS = ["demo", "changeme", "uva-lib", "islandora", "hull", "york", "cul.ir", "TUL",
             "ir", "uuid", "etd", "mods-test"]
CONTENT_MODELS = [("fedora-system", "FedoraObject-3.0"), ("islandora", "sp_basic_image"),
                  ("islandora", "sp_large_image_cmodel"), ("islandora", "bookCModel"),
                  ("islandora", "pageCModel"), ("islandora", "collectionCModel"),
                  ("demo", "UVA_STD_IMAGE"), ("demo", "DualResImage"),
                  ("uva-lib", "eadMasterCModel"), ("hull", "compoundCModel")]
# datastream ids: (canonical spelling, raw form)
DSIDS = [("DC", "DC"), ("RELS-EXT", "RELS-EXT"), ("RELS-INT", "RELS-INT"), ("TN", "TN"),
         ("OBJ", "OBJ"), ("MODS", "MODS"), ("THUMBNAIL", "THUMBNAIL"),
         ("FULL_SIZE", "FULL_SIZE"), ("MEDIUM_SIZE", "MEDIUM_SIZE"),
         ("title.jpg", "title.jpg"), ("AUDIT", "AUDIT"), ("POLICY", "POLICY"), ("JP2", "JP2"),
         ("OCR", "OCR"), ("HOCR", "HOCR"), ("PDF", "PDF"), ("TECHMD", "TECHMD"),
         ("d%C3%A9j%C3%A0-vu", "déjà-vu")]
# service definitions and their methods
SDEFS = [(("demo", "DualResolution"), ["mediumSize", "fullSize", "thumbnail"]),
         (("demo", "ImageSDef"), ["getThumbnail", "getImage", "resize"]),
         (("fedora-system", "3"), ["viewObjectProfile", "viewMethodIndex", "viewDublinCore"]),
         (("uva-bdef-image", "1"), ["getScaled", "getCropped"]),
         (("islandora", "ViewerSDef"), ["getViewer"])]
# method parameters: name, values (canonical spelling, variant spelling)
PARAMS = [("width", [("120", "120"), ("640", "640"), ("1024", "1024")]),
          ("height", [("90", "90"), ("480", "480")]),
          ("format", [("image%2Fjpeg", "image%2fjpeg"), ("image%2Fpng", "image%2fpng"),
                      ("text%2Fxml", "text%2fxml")]),
          ("Zoom", [("1.5", "1.5"), ("2", "2")]),
          ("lang", [("en", "en"), ("fr-CA", "fr%2DCA"), ("%C3%BC", "%c3%bc")]),
          ("q", [("a%26b", "a%26b"), ("caf%C3%A9", "caf%c3%a9"), ("x%3Dy", "x%3dy")])]

HANDLE_NA = ["10013", "2027", "1721.1", "11858", "20.500.12345", "1813", "2142", "10427",
             "4263537", "21.T11148"]
DOI_PREFIXES = ["10.1371", "10.1038", "10.1016", "10.1093", "10.5281", "10.48550", "10.1002",
                "10.1103", "10.1145", "10.1000"]
OAI_REPOS = ["arXiv.org", "dspace.mit.edu", "eprints.soton.ac.uk", "hal.archives-ouvertes.fr",
             "CiteSeerX.psu", "foo.org", "bath.ac.uk", "repository.example.edu",
             "xtcat.oclc.org", "lib.uni-heidelberg.de"]
PDI_SERIES = [("oma.eop.gov", "us"), ("ai.mit.edu", "us"), ("w3.org", "ch"),
              ("press.whitehouse.gov", "us"), ("bib.uni-hamburg", "de"), ("docs.bl", "uk"),
              ("archives.gc", "ca"), ("reports.nasa.gov", "us"), ("ceur-ws.rwth-aachen", "de")]
# format, fragment kind
PDI_FORMATS = [("text", "char"), ("html", "char"), ("sgml", "char"), ("gif", "rect"),
               ("jpeg", "rect"), ("au", "sec"), ("mpeg", "crop"), ("pdf", "byte"), ("xml", "char")]
DBPEDIA = ["Mercury_%28planet%29", "Java_%28programming_language%29", "Geneva",
           "Albert_Einstein", "Thames", "Caf%C3%A9", "Paris_%28mythology%29", "Lighthouse",
           "Ship_canal", "Oral_history"]
NON_ASCII_IRIS = ["http://example.org/lieu/Genève", "http://ja.dbpedia.org/resource/東京",
                  "http://ru.dbpedia.org/resource/Москва", "http://example.org/score/𝄞",
                  "http://de.dbpedia.org/resource/Görlitz", "http://el.dbpedia.org/resource/Αθήνα"]
DECOY_IRIS = ["info:fedora/", "hdl:", "oai:", "http://purl.org/poi/", "https://doi.org/",
              "urn:pdi:"]
HARMLESS_IRIS = ["https://hdl.handle.net/api/handles/10013/epic.10033",
                 "http://hld.handle.net/10013/epic.10033", "http://purl.org/dc/terms/",
                 "http://purl.org/NET/mediatypes/image/jpeg", "info:lccn/n79021164",
                 "https://doi.org/api/handles/10.1000/182"]
GRAPHS = [None, None, None, None, None, "http://example.org/graph/harvest-2019",
          "http://example.org/graph/harvest-2024", "info:fedora/hull:archive",
          "INFO:fedora/hull%3Aarchive", "_:g1", "https://hdl.handle.net/10013/graph.1"]


def doi_suffix(j):
    """The DOI suffix of entity j, in its publisher's case; True when it needs %3C/%3E."""
    k = j // 10
    p = j % 10
    if p == 0:
        return "journal.pone.%07d" % (k * 37 % 10000000), False
    if p == 1:
        return "nature%05d" % (k * 7 % 100000) if k % 2 else "s41586-0%02d-%04d-%d" % (
            k % 24, k % 9973, k % 10), False
    if p == 2:
        return "S0092-8674(%02d)%05d-%d" % (k % 24, k * 13 % 100000, k % 10) if k % 3 == 0 else \
            "j.cell.20%02d.%02d.%03d" % (k % 24, 1 + k % 12, k % 997), False
    if p == 3:
        return "nar/gk%s%d" % ("aA"[k % 2], 1000 + k % 9000), False
    if p == 4:
        return "zenodo.%d" % (100000 + k * 11), False
    if p == 5:
        return "arXiv.%02d%02d.%05d" % (15 + k % 10, 1 + k % 12, k % 100000), False
    if p == 6:
        if k % 4 == 0:
            return "(SICI)1097-4571(1998%02d)49:%d<%d::AID-ASI%d>3.0.CO;2-%d" % (
                1 + k % 12, 1 + k % 14, 100 + k % 900, k % 9, k % 10), True
        return "anie.%d" % (201900000 + k), False
    if p == 7:
        return "PhysRevLett.%d.%06d" % (80 + k % 50, k % 1000000), False
    if p == 8:
        return "%d.%d" % (3000000 + k, 3000000 + k * 3), False
    return "%d" % (180 + k), False


def oai_parts(j):
    """(repository, local id) of OAI item j; the local id is valid as written."""
    repo = OAI_REPOS[j % 10]
    k = j // 10 + 1
    if repo == "arXiv.org":
        local = "hep-th/99%02d%03d" % (1 + k % 12, k % 1000) if k % 2 else "%04d.%05d" % (
            1500 + k % 900, k % 100000)
    elif repo == "dspace.mit.edu":
        local = "1721.1/%d" % (10000 + k)
    elif repo == "hal.archives-ouvertes.fr":
        local = "hal-%08d" % (k * 7)
    elif repo == "CiteSeerX.psu":
        local = "10.1.1.%d.%d" % (k % 1000, k)
    elif repo == "foo.org":
        local = "ab%%3Ccd-%d" % k  # '<' must be escaped, in upper-case hex
    elif repo == "bath.ac.uk":
        local = "etd:%d" % k
    elif repo == "repository.example.edu":
        local = "item/%d/v%d" % (k, 1 + k % 3)
    elif repo == "xtcat.oclc.org":
        local = "OCLCNo/ocm%08d" % (k * 101)
    elif repo == "lib.uni-heidelberg.de":
        local = "diglit%%5B%d%%5D" % k  # '[' and ']' must be escaped
    else:
        local = "%d" % k
    return repo, local


_HEX_ESC = re.compile(r"%[0-9A-F]{2}")


def lower_hex(s):
    return _HEX_ESC.sub(lambda m: m.group(0).lower(), s)


class Gen:
    """The graph: subject blocks drawn from one random stream, independent of the format."""

    def __init__(self, n, seed):
        self.rnd = random.Random(seed).random
        self.n_fed = max(60, n // 16)
        self.n_coll = max(6, n // 2500)
        self.n_hdl = max(30, n // 60)
        self.n_doi = max(30, n // 40)
        self.n_oai = max(30, n // 60)
        self.n_pdi = max(30, n // 100)
        self.n_work = max(40, n // 20)
        self.n_person = 0
        self.next_fed = 0
        self.next_work = 0
        self.sentences = self._sentences()

    def _sentences(self):
        rnd = self.rnd
        out = []
        for _ in range(160):
            k = 6 + int(rnd() * 14)
            words = [VOCAB[int(rnd() * len(VOCAB))] for _ in range(k)]
            out.append(" ".join(words).capitalize() + ".")
        return out

    # ------------------------------------------------------------------ Fedora
    def pid_parts(self, i):
        ns = FEDORA_NS[i % 12]
        n = i // 12 + 1
        if ns == "uuid":
            h = (n * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % (1 << 128)
            x = "%032x" % h
            return ns, "%s-%s-4%s-a%s-%s" % (x[:8], x[8:12], x[13:16], x[17:20], x[20:32])
        shape = n % 10
        if shape < 5:
            return ns, str(n)
        if shape == 5:
            return ns, "%s-%d" % (VOCAB[n % len(VOCAB)], n)
        if shape == 6:
            return ns, "%s.%d" % (VOCAB[n % len(VOCAB)], n)
        if shape == 7:
            return ns, "caf%%C3%%A9-%d" % n  # escaped octets are part of the PID
        if shape == 8:
            return ns, "%d_v%d" % (n, n % 4)
        return ns, "x~%d" % n

    def fed_prefix(self, ns, local):
        """info:fedora/PID in one of its spellings; (text, is-variant)."""
        x = self.rnd()
        if x < 0.58:
            s, v = "info:fedora/" + ns + ":" + local, False
        elif x < 0.72:
            s, v = "info:fedora/" + ns + "%3A" + local, True
        elif x < 0.84:
            s, v = "info:fedora/" + ns + "%3a" + local, True
        elif x < 0.90:
            s, v = "INFO:fedora/" + ns + ":" + local, True
        elif x < 0.94:
            s, v = "info:FEDORA/" + ns + "%3A" + local, True
        elif x < 0.97:
            s, v = "Info:Fedora/" + ns + ":" + local, True
        else:
            s, v = "INFO:FEDORA/" + ns + "%3a" + local, True
        if "%" in local and self.rnd() < 0.35:
            s, v = lower_hex(s), True
        return s, v

    def fobj(self, i=None):
        if i is None:
            i = int(self.rnd() * self.n_fed)
        s, v = self.fed_prefix(*self.pid_parts(i))
        return ("I", s, K_FOBJ, VARIANT if v else CANON)

    def fcoll(self, k=None):
        if k is None:
            k = int(self.rnd() * self.n_coll)
        ns = FEDORA_NS[k % 12]
        if ns == "uuid":
            ns = "islandora"
        s, v = self.fed_prefix(ns, "%sCollection%d" % (TITLE_WORDS[k % len(TITLE_WORDS)], k // 12))
        return ("I", s, K_FOBJ, VARIANT if v else CANON)

    def fmodel(self):
        s, v = self.fed_prefix(*CONTENT_MODELS[int(self.rnd() * 10)])
        return ("I", s, K_FOBJ, VARIANT if v else CANON)

    def dsid(self):
        """A datastream id in one of its spellings; (text, is-variant)."""
        rnd = self.rnd
        canon, raw = DSIDS[int(rnd() * len(DSIDS))]
        if canon != raw:  # non-ASCII: escaped in either case, or raw
            x = rnd()
            return (canon, False) if x < 0.5 else (lower_hex(canon), True) if x < 0.8 else (raw, True)
        if rnd() < 0.16:
            # a needless escape: of '-', '.' or '_' when there is one, else of the first letter
            pos = max(canon.find("-"), canon.find("."), canon.find("_"))
            if pos < 0:
                pos = 0
            esc = "%%%02X" % ord(canon[pos]) if rnd() < 0.5 else "%%%02x" % ord(canon[pos])
            return canon[:pos] + esc + canon[pos + 1:], True
        return canon, False

    def fds(self, i=None):
        if i is None:
            i = int(self.rnd() * self.n_fed)
        head, v1 = self.fed_prefix(*self.pid_parts(i))
        ds, v2 = self.dsid()
        return ("I", head + "/" + ds, K_FDS, VARIANT if v1 or v2 else CANON)

    def fmethod(self, i=None):
        rnd = self.rnd
        if i is None:
            i = int(rnd() * self.n_fed)
        head, v = self.fed_prefix(*self.pid_parts(i))
        (sns, slocal), methods = SDEFS[int(rnd() * len(SDEFS))]
        if rnd() < 0.2:
            sdef, v = sns + "%3A" + slocal, True
        else:
            sdef = sns + ":" + slocal
        s = head + "/" + sdef + "/" + methods[int(rnd() * len(methods))]
        k = int(rnd() * 4)
        if k:
            first = int(rnd() * len(PARAMS))
            names = [PARAMS[(first + 2 * m) % len(PARAMS)] for m in range(k)]
            params = []
            for name, values in names:
                good, other = values[int(rnd() * len(values))]
                if good != other and rnd() < 0.3:
                    params.append(name + "=" + other)
                    v = True
                else:
                    params.append(name + "=" + good)
            if k > 1:
                if rnd() < 0.5:
                    params.sort(key=lambda p: p.split("=", 1)[0].encode())
                else:
                    params.reverse()
                if [p.split("=", 1)[0].encode() for p in params] != sorted(
                        p.split("=", 1)[0].encode() for p in params):
                    v = True
            s += "?" + "&".join(params)
        return ("I", s, K_FMETH, VARIANT if v else CANON)

    def fds_type(self):
        return ("I", "info:fedora/*/" + DSIDS[int(self.rnd() * 17)][0], K_FDS, CANON)

    # ------------------------------------------------------------------ handles and DOIs
    def handle_parts(self, j):
        na = HANDLE_NA[j % 10]
        k = j // 10 + 1
        shape = k % 6
        if shape == 0 and j % 7 == 0:
            return "0.NA", HANDLE_NA[k % 10]  # the handle record of a prefix
        if shape < 2:
            return na, "epic.%d" % (10000 + k)
        if shape == 2:
            return na, "mdp.39015%09d" % (k * 17)
        if shape == 3:
            return na, "%d" % (1000 + k)
        if shape == 4:
            return na, "%08X%04x" % (k * 2654435761 % (1 << 32), k % 65536)
        return na, "ark-%d.v%d" % (k, 1 + k % 3)

    def handle(self, j=None):
        rnd = self.rnd
        if j is None:
            j = int(rnd() * self.n_hdl)
        na, local = self.handle_parts(j)
        v = False
        if na == "0.NA" and rnd() < 0.4:  # a prefix record: its local name is a prefix too
            na, local, v = "0.na", local.lower(), True
        elif na != na.lower() and rnd() < 0.25:
            na, v = na.lower(), True
        x = rnd()
        if x < 0.42:
            s = "hdl:" + na + "/" + local
        else:
            v = True
            if x < 0.52:
                s = "hdl://" + na + "/" + local
            elif x < 0.58:
                s = "HDL:" + na + "/" + local
            elif x < 0.70:
                s = "http://hdl.handle.net/" + na + "/" + local
            elif x < 0.81:
                s = "https://hdl.handle.net/" + na + "/" + local
            elif x < 0.85:
                s = "https://HDL.HANDLE.NET/" + na + "/" + local
            elif x < 0.88:
                s = "https://hdl.handle.net:443/" + na + "/" + local
            elif x < 0.90:
                s = "http://hdl.handle.net:80/" + na + "/" + local
            elif x < 0.93:
                s = "https://hdl.handle.net/" + na + ("%2F" if rnd() < 0.5 else "%2f") + local
            elif x < 0.96:
                s = "info:hdl/" + na + "/" + local
            else:
                s = "urn:hdl:" + na + ":" + local
        return ("I", s, K_HDL, VARIANT if v else CANON)

    def doi(self, j=None):
        rnd = self.rnd
        if j is None:
            j = int(rnd() * self.n_doi)
        prefix = DOI_PREFIXES[j % 10]
        suffix, angled = doi_suffix(j)
        x = rnd()
        if x < 0.55:
            v = suffix != suffix.lower()
        elif x < 0.9:
            suffix, v = suffix.lower(), False
        else:
            suffix = suffix.upper()
            v = suffix != suffix.lower()
        if angled:
            # only in URI forms, where escapes are decoded: '<' and '>' cannot be raw in an IRI
            if rnd() < 0.3:
                suffix, v = suffix.replace("<", "%3c").replace(">", "%3e"), True
            else:
                suffix = suffix.replace("<", "%3C").replace(">", "%3E")
            if rnd() < 0.3:
                suffix, v = suffix.replace("(", "%28").replace(")", "%29"), True
        y = rnd()
        if y < 0.40:
            s = "https://doi.org/" + prefix + "/" + suffix
        else:
            v = True
            if y < 0.48:
                s = "http://doi.org/" + prefix + "/" + suffix
            elif y < 0.60:
                s = "http://dx.doi.org/" + prefix + "/" + suffix
            elif y < 0.65:
                s = "https://dx.doi.org/" + prefix + "/" + suffix
            elif y < 0.77 and not angled:
                s = "doi:" + prefix + "/" + suffix
            elif y < 0.81 and not angled:
                s = "DOI:" + prefix + "/" + suffix
            elif y < 0.86:
                s = "info:doi/" + prefix + "/" + suffix
            elif y < 0.90:
                s = "urn:doi:" + prefix + (":" if rnd() < 0.5 else "/") + suffix
            elif y < 0.95:
                s = "hdl:" + prefix + "/" + suffix
            else:
                s = "http://hdl.handle.net/" + prefix + "/" + suffix
        return ("I", s, K_DOI, VARIANT if v else CANON)

    def doi_literal(self, j=None):
        if j is None:
            j = int(self.rnd() * self.n_doi)
        suffix, angled = doi_suffix(j)
        return ("L", DOI_PREFIXES[j % 10] + "/" + suffix, None, None)

    # ------------------------------------------------------------------ OAI and POI
    def oai(self, j=None):
        rnd = self.rnd
        if j is None:
            j = int(rnd() * self.n_oai)
        repo, local = oai_parts(j)
        x = rnd()
        if x < 0.985:
            return ("I", "oai:" + repo + ":" + local, K_OAI, CANON)
        # decoys that pidcanon reports: the scheme in upper case, needless or lower-case escapes
        if x < 0.992:
            s = "OAI:" + repo + ":" + local
        elif "%" in local:
            s = "oai:" + repo + ":" + lower_hex(local)
        elif "/" in local:
            s = "oai:" + repo + ":" + local.replace("/", "%2F", 1)
        else:
            s = "oai:" + repo + ":" + local[:-1] + "%%%02X" % ord(local[-1])
        return ("I", s, K_OAI, INVALID)

    def poi(self, j=None):
        rnd = self.rnd
        if j is None:
            j = int(rnd() * self.n_oai)
        repo, local = oai_parts(j)
        tail = "/poi/" + repo + "/" + local
        x = rnd()
        if x < 0.70:
            return ("I", "http://purl.org" + tail, K_POI, CANON)
        if x < 0.82:
            s = "https://purl.org" + tail
        elif x < 0.87:
            s = "http://PURL.ORG" + tail
        elif x < 0.90:
            s = "HTTP://purl.org" + tail
        elif x < 0.95:
            s = "http://purl.org:80" + tail
        elif x < 0.99:
            s = "https://purl.org:443" + tail
        elif "%" in local:  # decoy: lower-case hex is not a POI
            return ("I", "http://purl.org" + lower_hex(tail), K_POI, INVALID)
        else:
            s = "https://Purl.Org" + tail
        return ("I", s, K_POI, VARIANT)

    # ------------------------------------------------------------------ PDI
    def pdi(self, j=None, fragment=False, version=True):
        rnd = self.rnd
        if j is None:
            j = int(rnd() * self.n_pdi)
        series, country = PDI_SERIES[j % len(PDI_SERIES)]
        k = j // len(PDI_SERIES)
        fmt, default = PDI_FORMATS[(j * 5 + k) % len(PDI_FORMATS)]
        date = "%d/%02d/%02d" % (1994 + k % 8, 1 + (j * 7) % 12, 1 + (j * 13) % 28)
        uid = str(k + 1)
        ver = 1 + j % 3
        v = False
        x = rnd()
        if x < 0.62:
            scheme = "urn:pdi:"
        else:
            v = True
            scheme = ("pdi:" if x < 0.82 else "URN:PDI:" if x < 0.90 else "urn:PDI:"
                      if x < 0.95 else "Urn:Pdi:")
        host = series + "." + country
        y = rnd()
        if y < 0.06:
            host, v = host.upper(), True
        elif y < 0.10:
            pos = host.find("-")
            if pos >= 0:
                host = host[:pos] + ("%2D" if y < 0.08 else "%2d") + host[pos + 1:]
            else:
                host = "%%%02x" % ord(host[0]) + host[1:]
            v = True
        if rnd() < 0.08:
            fmt, v = fmt.upper(), True
        spec = uid + "." + fmt
        if version and not (ver == 1 and rnd() < 0.4):
            spec += ".%d" % ver
        s = scheme + "//" + host + "/" + date + "/" + spec
        if fragment:
            a = 10 + (j * 31 + k * 17) % 500
            b = a + 5 + (j + k) % 90
            z = rnd()
            if default == "char":
                forms = ("#char=%d,%d" % (a, b), "#%d,%d" % (a, b), "#CHAR=%d,%d" % (a, b))
            elif default == "rect":
                c, d = a + 40, b + 60
                forms = ("#rect=(%d,%d),(%d,%d),0" % (a, b, c, d),
                         "#(%d,%d),(%d,%d)" % (a, b, c, d), "#RECT=(%d,%d),(%d,%d)" % (a, b, c, d))
            elif default == "sec":
                forms = ("#sec=%d,%d" % (a, b), "#%d,%d" % (a, b), "#SEC=%d,%d" % (a, b))
            elif default == "crop":
                forms = ("#crop=sec,%d,%d" % (a, b), "#sec,%d,%d" % (a, b),
                         "#CROP=sec,%d,%d" % (a, b))
            else:  # pdf has no default fragment scheme: it is always written
                forms = ("#byte=%d,%d" % (a, b), "#byte=%d,%d" % (a, b), "#BYTE=%d,%d" % (a, b))
            if z < 0.5:
                s += forms[0]
            else:
                s += forms[1] if z < 0.85 else forms[2]
                v = v or forms[1] != forms[0] or z >= 0.85
        return ("I", s, K_PDI, VARIANT if v else CANON)

    # ------------------------------------------------------------------ other terms
    def web(self):
        rnd = self.rnd
        x = rnd()
        if x < 0.30:
            return ("I", "http://example.org/work/%d" % int(rnd() * self.n_work), K_IRI, CANON)
        if x < 0.42:
            return ("I", "http://www.wikidata.org/entity/Q%d" % (1 + int(rnd() * 9000000)), K_IRI, CANON)
        if x < 0.52:
            return ("I", "http://dbpedia.org/resource/" + DBPEDIA[int(rnd() * 10)], K_IRI, CANON)
        if x < 0.59:
            return ("I", "http://id.loc.gov/authorities/names/n%08d" % int(rnd() * 1e8), K_IRI, CANON)
        if x < 0.65:
            return ("I", "http://viaf.org/viaf/%d" % int(rnd() * 1e9), K_IRI, CANON)
        if x < 0.71:
            return ("I", "urn:uuid:%08x-%04x-4%03x-8%03x-%012x" % (
                int(rnd() * 2 ** 32), int(rnd() * 65536), int(rnd() * 4096),
                int(rnd() * 4096), int(rnd() * 2 ** 48)), K_IRI, CANON)
        if x < 0.76:
            return ("I", "urn:isbn:978%010d" % int(rnd() * 1e10), K_IRI, CANON)
        if x < 0.80:
            return ("I", "info:pmid/%d" % (1 + int(rnd() * 39000000)), K_IRI, CANON)
        if x < 0.87:
            return ("I", NON_ASCII_IRIS[int(rnd() * len(NON_ASCII_IRIS))], K_IRI, CANON)
        if x < 0.92:
            return ("I", "http://example.org/caf%%c3%%a9/%d" % int(rnd() * 1000), K_IRI, CANON)
        if x < 0.96:
            return ("I", "https://www.example.com/collections/%s/%d?page=%d" % (
                VOCAB[int(rnd() * len(VOCAB))], int(rnd() * 5000), 1 + int(rnd() * 9)), K_IRI, CANON)
        if x < 0.9985:
            return ("I", HARMLESS_IRIS[int(rnd() * len(HARMLESS_IRIS))], K_IRI, CANON)
        return ("I", DECOY_IRIS[int(rnd() * len(DECOY_IRIS))], K_DECOY, INVALID)

    def work_iri(self, j):
        return ("I", "http://example.org/work/%d" % j, K_IRI, CANON)

    def person_ref(self):
        if self.n_person == 0:
            return ("B", "p0")
        return ("B", "p%d" % int(self.rnd() * self.n_person))

    def title(self):
        rnd = self.rnd
        lang, texts = TITLES[int(rnd() * len(TITLES))]
        return ("L", texts[int(rnd() * len(texts))], lang, None)

    def label(self):
        rnd = self.rnd
        x = rnd()
        if x < 0.08:
            return ("L", ESCAPED_TEXT[int(rnd() * len(ESCAPED_TEXT))], None, None)
        if x < 0.12:
            return ("L", ODD_TEXT[int(rnd() * len(ODD_TEXT))], None, None)
        k = 2 + int(rnd() * 4)
        return ("L", " ".join([TITLE_WORDS[int(rnd() * len(TITLE_WORDS))] for _ in range(k)]),
                None, None)

    def person_name(self):
        rnd = self.rnd
        return ("L", GIVEN[int(rnd() * len(GIVEN))] + " " + FAMILY[int(rnd() * len(FAMILY))],
                None, None)

    def long_text(self):
        rnd = self.rnd
        sent = self.sentences
        target = 200 + int(rnd() * 1800)
        parts = []
        size = 0
        while size < target:
            s = sent[int(rnd() * len(sent))]
            parts.append(s)
            size += len(s) + 1
            if rnd() < 0.2:
                parts.append("\n\n" if rnd() < 0.5 else "\n")
            else:
                parts.append(" ")
        if rnd() < 0.3:
            parts.append('See "Notes", §4 \\ appendix.')
        return ("L", "".join(parts).rstrip(), "en" if rnd() < 0.5 else None, None)

    def datetime(self):
        rnd = self.rnd
        return ("L", "%d-%02d-%02dT%02d:%02d:%02d%sZ" % (
            2004 + int(rnd() * 20), 1 + int(rnd() * 12), 1 + int(rnd() * 28), int(rnd() * 24),
            int(rnd() * 60), int(rnd() * 60), ".%03d" % int(rnd() * 1000) if rnd() < 0.6 else ""),
                None, X_DT)

    def date(self):
        rnd = self.rnd
        if rnd() < 0.15:
            return ("L", "%d" % (1700 + int(rnd() * 320)), None, X_YEAR)
        return ("L", "%d-%02d-%02d" % (1800 + int(rnd() * 224), 1 + int(rnd() * 12),
                                       1 + int(rnd() * 28)), None, X_DATE)

    def integer(self, hi):
        return ("L", str(int(self.rnd() * hi)), None, X_INT)

    def misc_typed(self):
        rnd = self.rnd
        x = rnd()
        if x < 0.25:
            return ("L", "%d.%02d" % (int(rnd() * 500), int(rnd() * 100)), None, X_DEC)
        if x < 0.45:
            return ("L", "%d.%dE%d" % (1 + int(rnd() * 9), int(rnd() * 1000), int(rnd() * 12) - 3),
                    None, X_DBL)
        if x < 0.60:
            return ("L", "true" if rnd() < 0.5 else "false", None, X_BOOL)
        if x < 0.80:
            # identifier text in an xsd:anyURI literal: a literal, never rewritten
            t = (self.fobj, self.handle, self.doi, self.oai)[int(rnd() * 4)]()
            return ("L", t[1], None, X_URI)
        if x < 0.92:
            return ("L", "MS %s %d/%d" % (TITLE_WORDS[int(rnd() * len(TITLE_WORDS))],
                                         int(rnd() * 300), int(rnd() * 40)), None, X_CALL)
        return ("L", "-%d" % int(rnd() * 1000), None, X_INT)

    # ------------------------------------------------------------------ subject blocks
    def block(self):
        x = self.rnd()
        if x < 0.18:
            return self.b_fedora()
        if x < 0.26:
            return self.b_datastream()
        if x < 0.66:
            return self.b_work()
        if x < 0.74:
            return self.b_person()
        if x < 0.85:
            return self.b_handle_doi()
        if x < 0.93:
            return self.b_oai()
        return self.b_pdi()

    def b_fedora(self):
        rnd = self.rnd
        i = self.next_fed % self.n_fed
        self.next_fed += 1
        models = [self.fmodel()]
        if rnd() < 0.6:
            s, v = self.fed_prefix("fedora-system", "FedoraObject-3.0")
            models.append(("I", s, K_FOBJ, VARIANT if v else CANON))
        po = [(FMODEL + "hasModel", models),
              (FMODEL + "state", [("I", FMODEL + ("Active" if rnd() < 0.9 else "Inactive"),
                                   K_VOCAB, CANON)]),
              (FMODEL + "label", [self.label()])]
        if rnd() < 0.7:
            po.append((FMODEL + "ownerId", [("L", "user%d" % int(rnd() * 40), None, None)]))
        po.append((FMODEL + "createdDate", [self.datetime()]))
        if rnd() < 0.8:
            po.append((FVIEW + "lastModifiedDate", [self.datetime()]))
        po.append((FVIEW + "disseminates", [self.fds(i) for _ in range(2 + int(rnd() * 4))]))
        if rnd() < 0.75:
            po.append((FREL + "isMemberOfCollection", [self.fcoll()]))
        k = int(rnd() * 3)
        for _ in range(k):
            rel = ("isMemberOf", "isPartOf", "hasPart", "isDerivationOf", "isConstituentOf",
                   "hasAnnotation", "isDescriptionOf")[int(rnd() * 7)]
            po.append((FREL + rel, [self.fobj()]))
        po.append((DC + "title", [self.title()]))
        if rnd() < 0.5:
            ns, local = self.pid_parts(i)
            po.append((DC + "identifier", [("L", ns + ":" + local, None, None)]))
        if rnd() < 0.4:
            po.append((SAME_AS, [self.handle() if rnd() < 0.5 else self.doi()]))
        if rnd() < 0.06:
            po.append((SAME_AS, [self.fobj(i)]))  # a link between two spellings
        if rnd() < 0.2:
            po.append((DCT + "hasFormat", [self.fmethod(i)]))
        if rnd() < 0.06:
            po.append((DC + "description", [self.long_text()]))
        s, v = self.fed_prefix(*self.pid_parts(i))
        return ("I", s, K_FOBJ, VARIANT if v else CANON), po

    def b_datastream(self):
        rnd = self.rnd
        subj = self.fds()
        ds = subj[1].rsplit("/", 1)[1]
        po = [(FVIEW + "disseminationType", [self.fds_type()]),
              (FVIEW + "mimeType", [("L", MIME_TYPES[int(rnd() * len(MIME_TYPES))], None, None)]),
              (FVIEW + "isVolatile", [("L", "false" if rnd() < 0.9 else "true", None, X_BOOL)]),
              (FVIEW + "lastModifiedDate", [self.datetime()])]
        if rnd() < 0.6:
            po.append((FMODEL + "length", [self.integer(50000000)]))
        if rnd() < 0.3:
            po.append((FMODEL + "label", [("L", "Datastream " + ds, None, None)]))
        return subj, po

    def b_work(self):
        rnd = self.rnd
        j = self.next_work % self.n_work
        self.next_work += 1
        types = [("I", SDO + ("CreativeWork", "Book", "ScholarlyArticle", "Map", "Photograph",
                              "Dataset", "Thesis")[int(rnd() * 7)], K_VOCAB, CANON)]
        if rnd() < 0.15:
            types.append(("I", DCT + "BibliographicResource", K_VOCAB, CANON))
        po = [(TYPE, types), (SDO + "name", [self.title() for _ in range(1 + int(rnd() * 3))])]
        x = rnd()
        if x < 0.45:
            po.append((SDO + "identifier", [self.doi()]))
        elif x < 0.65:
            po.append((SDO + "identifier", [self.handle()]))
        elif x < 0.75:
            po.append((SDO + "identifier", [self.doi_literal()]))
        if rnd() < 0.35:
            po.append((SAME_AS, [self.web()]))
        k = int(rnd() * 4)
        if k:
            refs = []
            for _ in range(k):
                y = rnd()
                refs.append(self.poi() if y < 0.2 else self.oai() if y < 0.38 else
                            self.pdi(fragment=rnd() < 0.4) if y < 0.62 else
                            self.doi() if y < 0.72 else self.web())
            po.append((DCT + "references", refs))
        y = rnd()
        if y < 0.45:
            inner = [(FOAF + "name", [self.person_name()])]
            if rnd() < 0.4:
                inner.append((FOAF + "mbox", [("I", "mailto:%s%d@example.org" % (
                    VOCAB[int(rnd() * len(VOCAB))], int(rnd() * 1000)), K_IRI, CANON)]))
            if rnd() < 0.15:
                inner.append((SDO + "affiliation", [("A", [
                    (TYPE, [("I", SDO + "Organization", K_VOCAB, CANON)]),
                    (SDO + "name", [self.label()])])]))
            po.append((SDO + "author", [("A", inner)]))
        elif y < 0.7:
            po.append((SDO + "author", [self.person_ref() for _ in range(1 + int(rnd() * 2))]))
        po.append((SDO + "datePublished", [self.date()]))
        if rnd() < 0.35:
            po.append((SDO + "numberOfPages", [self.integer(900)]))
        if rnd() < 0.25:
            po.append((SDO + "keywords", [("L", VOCAB[int(rnd() * len(VOCAB))], None, None)
                                          for _ in range(1 + int(rnd() * 3))]))
        if rnd() < 0.2:
            po.append((DCT + "isPartOf", [self.fobj()]))
        if rnd() < 0.1:
            po.append((SDO + "thumbnailUrl", [self.fmethod()]))
        if rnd() < 0.15:
            po.append((RDFS + "comment", [self.label()]))
        if rnd() < 0.3:
            po.append((EXNS + "measure", [self.misc_typed()]))
        if rnd() < 0.03:
            items = []
            for _ in range(2 + int(rnd() * 3)):
                items.append(self.work_iri(int(rnd() * self.n_work)) if rnd() < 0.7 else
                             self.fobj())
            po.append((SDO + "hasPart", [("C", items)]))
        if rnd() < 0.09:
            po.append((SDO + "abstract", [self.long_text()]))
        return self.work_iri(j), po

    def b_person(self):
        rnd = self.rnd
        b = self.n_person
        self.n_person += 1
        po = [(TYPE, [("I", FOAF + "Person", K_VOCAB, CANON)]),
              (FOAF + "name", [self.person_name()])]
        if rnd() < 0.5:
            po.append((FOAF + "mbox", [("I", "mailto:person%d@example.org" % b, K_IRI, CANON)]))
        if rnd() < 0.4:
            po.append((SDO + "affiliation", [self.web()]))
        if rnd() < 0.4:
            po.append((SAME_AS, [("I", "https://orcid.org/0000-000%d-%04d-%04d" % (
                b % 10, b * 7 % 10000, b * 13 % 10000), K_IRI, CANON) if rnd() < 0.6 else
                ("I", "http://viaf.org/viaf/%d" % (1000 + b), K_IRI, CANON)]))
        if b and rnd() < 0.3:
            po.append((FOAF + "knows", [("B", "p%d" % int(rnd() * b))]))
        return ("B", "p%d" % b), po

    def b_handle_doi(self):
        rnd = self.rnd
        is_doi = rnd() < 0.55
        j = int(rnd() * (self.n_doi if is_doi else self.n_hdl))
        ident = self.doi if is_doi else self.handle
        po = [(DCT + "title", [self.title() if rnd() < 0.6 else self.label()])]
        if rnd() < 0.45:
            po.append((DCT + "isVersionOf", [self.doi()]))
        if rnd() < 0.18:
            po.append((SAME_AS, [ident(j)]))  # a link between two spellings
        if rnd() < 0.35:
            po.append((DCT + "hasFormat", [self.fds() if rnd() < 0.7 else self.fmethod()]))
        po.append((RDFS + "seeAlso", [self.web() for _ in range(1 + int(rnd() * 2))]))
        if is_doi and rnd() < 0.5:
            po.append((DCT + "identifier", [self.doi_literal(j)]))
        if rnd() < 0.3:
            po.append((DCT + "relation", [self.pdi()]))
        po.append((DCT + "modified", [self.datetime()]))
        if rnd() < 0.2:
            po.append((EXNS + "measure", [self.misc_typed()]))
        return ident(j), po

    def b_oai(self):
        rnd = self.rnd
        j = int(rnd() * self.n_oai)
        as_oai = rnd() < 0.7
        po = []
        if rnd() < 0.65:
            po.append((SAME_AS, [self.poi(j) if as_oai else self.oai(j)]))
        po.append((OAIPMH + "datestamp", [self.datetime()]))
        po.append((OAIPMH + "setSpec", [("L", SET_SPECS[int(rnd() * len(SET_SPECS))], None, None)]))
        po.append((DC + "title", [self.title()]))
        if rnd() < 0.25:
            po.append((DC + "relation", [self.fobj()]))
        if rnd() < 0.3:
            po.append((DC + "identifier", [self.doi()]))
        if rnd() < 0.25:
            po.append((DCT + "isPartOf", [("I", "http://example.org/oai/set/" +
                                           SET_SPECS[int(rnd() * len(SET_SPECS))], K_IRI, CANON)]))
        return (self.oai(j) if as_oai else self.poi(j)), po

    def b_pdi(self):
        rnd = self.rnd
        j = int(rnd() * self.n_pdi)
        fragment = rnd() < 0.45
        po = [(DCT + "format", [("L", MIME_TYPES[int(rnd() * len(MIME_TYPES))], None, None)])]
        if rnd() < 0.5:
            po.append((DCT + "isVersionOf", [self.pdi(j, version=False)]))
        if fragment:
            po.append((DCT + "isPartOf", [self.pdi(j)]))
        if rnd() < 0.12:
            po.append((SAME_AS, [self.pdi(j, fragment=fragment)]))
        po.append((RDFS + "comment", [self.label()]))
        po.append((DCT + "created", [self.date()]))
        if rnd() < 0.3:
            po.append((DCT + "references", [self.web() if rnd() < 0.6 else self.pdi()]))
        return self.pdi(j, fragment=fragment), po


def size(po):
    """The statements of a predicate-object list, nested nodes and collections included."""
    n = 0
    for _, objs in po:
        for o in objs:
            t = o[0]
            n += 1 if t in "ILB" else 1 + size(o[1]) if t == "A" else 1 + 2 * len(o[1])
    return n


def trim(po, budget):
    """The first statements of a block that fit in `budget` (whole nested nodes only)."""
    out = []
    for p, objs in po:
        kept = []
        for o in objs:
            c = size([(p, [o])])
            if c <= budget:
                kept.append(o)
                budget -= c
        if kept:
            out.append((p, kept))
    return out


# ------------------------------------------------------------------------------ writers
_NT_ESCAPE = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r",
              ord("\t"): "\\t"}
_SHORT_ESCAPE = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r"}
_SINGLE_ESCAPE = {ord("\\"): "\\\\", ord("'"): "\\'", ord("\n"): "\\n", ord("\r"): "\\r"}
_LONG_ESCAPE = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\r"): "\\r"}
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r\t]')
_LOCAL_NAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_\-:]|%[0-9A-Fa-f]{2}|\.(?!\Z))*\Z")
_RELATIVE = re.compile(r"[a-z]+/[A-Za-z0-9_\-./]*\Z")
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?[0-9]*\.[0-9]+\Z")
_DOUBLE = re.compile(r"[+-]?[0-9]+\.[0-9]*[eE][+-]?[0-9]+\Z")


def u_escape(s):
    return "".join(c if c < "\x80" else "\\u%04X" % ord(c) if c < "\U00010000"
                   else "\\U%08X" % ord(c) for c in s)


class NTriples:
    """One statement per line; with `quads`, blocks go to the default or a named graph."""

    def __init__(self, srnd, quads):
        self.srnd = srnd
        self.quads = quads
        self.anon = 0
        self.lists = 0

    def header(self, n, seed):
        return ""

    def term(self, t):
        tag = t[0]
        if tag == "I":
            s = t[1]
            if not s.isascii() and self.srnd() < 0.3:
                s = u_escape(s)
            return "<" + s + ">"
        if tag == "L":
            lex = t[1]
            if _NEEDS_ESCAPE.search(lex):
                lex = lex.translate(_NT_ESCAPE)
            if not lex.isascii() and self.srnd() < 0.05:
                lex = u_escape(lex)
            if t[2]:
                return '"' + lex + '"@' + t[2]
            if t[3]:
                return '"' + lex + '"^^<' + t[3] + ">"
            return '"' + lex + '"'
        return "_:" + t[1]

    def block(self, subj, po, out):
        if self.quads:
            g = GRAPHS[int(self.srnd() * len(GRAPHS))]
            end = " .\n" if g is None else (" " + g + " .\n" if g[0] == "_" else " <" + g + "> .\n")
        else:
            end = " .\n"
        self.po(self.term(subj), po, out, end)

    def po(self, s, po, out, end):
        term = self.term
        nested = []
        for p, objs in po:
            head = s + " <" + p + "> "
            for o in objs:
                tag = o[0]
                if tag == "A":
                    self.anon += 1
                    label = "_:a%d" % self.anon
                    out.append(head + label + end)
                    nested.append((label, o[1]))
                elif tag == "C":
                    self.lists += 1
                    label = "_:l%d" % self.lists
                    out.append(head + label + end)
                    items = o[1]
                    for k, item in enumerate(items):
                        out.append(label + " <" + FIRST + "> " + term(item) + end)
                        if k + 1 < len(items):
                            self.lists += 1
                            nxt = "_:l%d" % self.lists
                        else:
                            nxt = "<" + NIL + ">"
                        out.append(label + " <" + REST + "> " + nxt + end)
                        label = nxt
                else:
                    out.append(head + term(o) + end)
        for label, inner in nested:
            self.po(label, inner, out, end)


class Turtle:
    def __init__(self, srnd):
        self.srnd = srnd
        self.prefix_of = {ns: name for name, ns, _ in TTL_PREFIXES}

    def header(self, n, seed):
        lines = ["# A repository dump with persistent identifiers in mixed spellings\n",
                 "# (benches/gen_rdf.py --statements %d --seed %d --format ttl)\n" % (n, seed),
                 "@base <%s> .\n" % BASE]
        for name, ns, sparql in TTL_PREFIXES:
            lines.append("PREFIX %s: <%s>\n" % (name, ns) if sparql else
                         "@prefix %s: <%s> .\n" % (name, ns))
        lines.append("\n")
        return "".join(lines)

    def iri(self, s, predicate=False):
        srnd = self.srnd
        if predicate or srnd() < 0.7:
            cut = s.rfind("#")
            if cut < 0:
                cut = s.rfind("/")
            if cut > 0:
                name = self.prefix_of.get(s[:cut + 1])
                if name is not None and _LOCAL_NAME.match(s, cut + 1):
                    return name + ":" + s[cut + 1:]
        if s.startswith(BASE) and srnd() < 0.5 and _RELATIVE.match(s, len(BASE)):
            return "<" + s[len(BASE):] + ">"
        return "<" + s + ">"

    def literal(self, t):
        lex, lang, dt = t[1], t[2], t[3]
        if dt is not None and self.srnd() < 0.85:
            if dt == X_INT and _INTEGER.match(lex) or dt == X_DEC and _DECIMAL.match(lex) or \
                    dt == X_DBL and _DOUBLE.match(lex) or dt == X_BOOL:
                return lex
        if "\n" in lex and len(lex) > 60:
            q = '"""' + lex.translate(_LONG_ESCAPE) + '"""'
        elif self.srnd() < 0.06:
            q = "'" + lex.translate(_SINGLE_ESCAPE) + "'"
        elif _NEEDS_ESCAPE.search(lex):
            q = '"' + lex.translate(_SHORT_ESCAPE) + '"'
        else:
            q = '"' + lex + '"'
        if lang:
            return q + "@" + lang
        if dt:
            return q + "^^" + self.iri(dt)
        return q

    def term(self, t, depth):
        tag = t[0]
        if tag == "I":
            return self.iri(t[1])
        if tag == "L":
            return self.literal(t)
        if tag == "B":
            return "_:" + t[1]
        if tag == "C":
            return "( " + " ".join(self.term(i, depth) for i in t[1]) + " )"
        pad = "\n" + "    " * (depth + 2)
        return "[" + pad + (" ;" + pad).join(self.pred(p, objs, depth + 1) for p, objs in t[1]) + \
            "\n" + "    " * (depth + 1) + "]"

    def pred(self, p, objs, depth):
        if p == TYPE and self.srnd() < 0.9:
            name = "a"
        else:
            name = self.iri(p, True)
        return name + " " + " , ".join([self.term(o, depth) for o in objs])

    def block(self, subj, po, out):
        s = "_:" + subj[1] if subj[0] == "B" else self.iri(subj[1])
        if self.srnd() < 0.01:
            out.append("# harvested %d\n" % int(self.srnd() * 100000))
        out.append(s + " " + " ;\n    ".join([self.pred(p, objs, 0) for p, objs in po]) + " .\n\n")


class TriG(Turtle):
    """Turtle, with subject blocks in the default graph or in a named one, as N-Quads has them."""

    def header(self, n, seed):
        return super().header(n, seed).replace("--format ttl", "--format trig")

    def block(self, subj, po, out):
        g = GRAPHS[int(self.srnd() * len(GRAPHS))]
        if g is None:
            super().block(subj, po, out)
            return
        name = g if g[0] == "_" else self.iri(g)
        out.append(("GRAPH " if self.srnd() < 0.5 else "") + name + " {\n")
        super().block(subj, po, out)
        out.append("}\n\n")


# ------------------------------------------------------------------------------ --stats
class Tally:
    def __init__(self):
        self.statements = 0
        self.blocks = 0
        self.biggest = 0
        self.duplicates = 0
        self.subj_blank = 0
        self.obj_iri = 0
        self.obj_lit = 0
        self.obj_blank = 0
        self.lit_lang = 0
        self.lit_typed = 0
        self.lit_long = 0
        self.kinds = [0] * len(KIND_LABELS)
        self.spelling = [0, 0, 0]

    def iri(self, t, times=1):
        self.kinds[t[2]] += times
        if t[2] >= K_FOBJ:
            self.spelling[t[3]] += times

    def block(self, subj, po, duplicate):
        n = size(po)
        self.statements += n
        self.blocks += 1
        self.biggest = max(self.biggest, n)
        if duplicate:
            self.duplicates += n
        self.walk(subj, po)

    def walk(self, subj, po):
        if subj is None or subj[0] != "I":
            self.subj_blank += sum(len(objs) for _, objs in po)
        else:
            self.iri(subj, sum(len(objs) for _, objs in po))
        for _, objs in po:
            self.kinds[K_VOCAB] += len(objs)
            for o in objs:
                tag = o[0]
                if tag == "I":
                    self.obj_iri += 1
                    self.iri(o)
                elif tag == "L":
                    self.literal(o)
                elif tag == "B":
                    self.obj_blank += 1
                elif tag == "A":
                    self.obj_blank += 1
                    self.walk(None, o[1])
                else:
                    self.obj_blank += 1
                    for item in o[1]:  # rdf:first item ; rdf:rest next-or-nil
                        self.subj_blank += 2
                        self.kinds[K_VOCAB] += 2
                        self.obj_blank += 1
                        if item[0] == "I":
                            self.obj_iri += 1
                            self.iri(item)
                        else:
                            self.literal(item)
                    self.obj_blank -= 1
                    self.obj_iri += 1
                    self.kinds[K_VOCAB] += 1

    def literal(self, o):
        self.obj_lit += 1
        if o[2]:
            self.lit_lang += 1
        elif o[3]:
            self.lit_typed += 1
        if len(o[1]) > 200:
            self.lit_long += 1

    def report(self, nbytes, seconds, fmt, e):
        n = max(1, self.statements)
        iris = sum(self.kinds)
        ids = sum(self.kinds[K_FOBJ:K_DECOY + 1])
        w = e.write
        w("statements   %d in %d subject blocks (%.2f on average, at most %d); %.2f%% repeat "
          "an earlier statement\n" % (self.statements, self.blocks, self.statements /
                                      max(1, self.blocks), self.biggest, 100 * self.duplicates / n))
        w("output       %d bytes of %s (%.1f MB) in %.1f s\n" % (
            nbytes, fmt, nbytes / 1e6, seconds))
        w("subjects     %.1f%% blank nodes; objects: IRIs %.1f%%, literals %.1f%%, blank nodes "
          "%.1f%%\n" % (100 * self.subj_blank / n, 100 * self.obj_iri / n, 100 * self.obj_lit / n,
                        100 * self.obj_blank / n))
        lits = max(1, self.obj_lit)
        w("literals     %.1f%% language-tagged, %.1f%% typed, %.2f%% longer than 200 "
          "characters\n" % (100 * self.lit_lang / lits, 100 * self.lit_typed / lits,
                            100 * self.lit_long / lits))
        w("IRIs         %d occurrences (%.2f a statement), %.1f%% of them identifiers\n" % (
            iris, iris / n, 100 * ids / max(1, iris)))
        for k, label in enumerate(KIND_LABELS):
            share = "  %5.1f%% of identifiers" % (100 * self.kinds[k] / max(1, ids)) \
                if k >= K_FOBJ else ""
            w("  %-20s %10d  %5.1f%% of IRIs%s\n" % (label, self.kinds[k],
                                                    100 * self.kinds[k] / max(1, iris), share))
        w("identifiers  %.1f%% canonical, %.1f%% other valid spellings, %.2f%% decoys "
          "(invalid on purpose)\n" % tuple(100 * c / max(1, ids) for c in self.spelling))


# ------------------------------------------------------------------------------ main
def generate(n, seed, fmt, fh, tally=None):
    """Writes exactly n statements to the binary file fh; returns the bytes written."""
    gen = Gen(n, seed)
    srnd = random.Random(seed * 7 + 0x5EED).random  # serialization choices only
    writers = {"ttl": Turtle, "trig": TriG}
    writer = writers[fmt](srnd) if fmt in writers else NTriples(srnd, fmt == "nq")
    out = [writer.header(n, seed)]
    recent = []  # the last 64 blocks: duplicates repeat one of their statements
    left = n
    nbytes = 0
    rnd = gen.rnd
    while left > 0:
        duplicate = False
        if recent and rnd() < 0.042:
            subj, po = recent[int(rnd() * len(recent))]
            p, objs = po[int(rnd() * len(po))]
            o = objs[int(rnd() * len(objs))]
            if o[0] not in "ILB":
                continue
            po = [(p, [o])]
            duplicate = True
        else:
            subj, po = gen.block()
            recent.append((subj, po))
            if len(recent) > 64:
                del recent[0]
        c = size(po)
        if c > left:
            po = trim(po, left)
            c = size(po)
            if c == 0:
                continue
        left -= c
        writer.block(subj, po, out)
        if tally is not None:
            tally.block(subj, po, duplicate)
        if len(out) > 2000:
            data = "".join(out).encode("utf-8")
            fh.write(data)
            nbytes += len(data)
            out.clear()
    data = "".join(out).encode("utf-8")
    fh.write(data)
    return nbytes + len(data)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Realistic RDF with persistent identifiers in mixed spellings "
                    "(see the module docstring for what it holds).")
    ap.add_argument("--statements", "--triples", dest="statements", type=int, required=True,
                    metavar="N", help="exactly N statements (--triples is the same option)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--format", choices=("nt", "nq", "ttl", "trig"), default="nt",
                    help="N-Triples (default), N-Quads or Turtle")
    ap.add_argument("-o", "--output", default="-", metavar="FILE",
                    help="output file (default: standard output)")
    ap.add_argument("--stats", action="store_true", help="print the measured mix to stderr")
    a = ap.parse_args(argv)
    if a.statements < 0:
        ap.error("--statements must be >= 0")
    tally = Tally() if a.stats else None
    start = time.monotonic()
    if a.output == "-":
        nbytes = generate(a.statements, a.seed, a.format, sys.stdout.buffer, tally)
        sys.stdout.buffer.flush()
    else:
        with open(a.output, "wb") as fh:
            nbytes = generate(a.statements, a.seed, a.format, fh, tally)
    if tally is not None:
        tally.report(nbytes, time.monotonic() - start, a.format, sys.stderr)


if __name__ == "__main__":
    main()
