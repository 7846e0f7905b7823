//! Identifiers written as literals (`--literals`): `bibo:doi "10.1000/XYZ"`,
//! `dcterms:identifier "hdl:10013/abc"`, schema.org `PropertyValue`s and DataCite identifier
//! nodes. A literal an adapter recognizes is rewritten to its canonical spelling and stays a
//! literal of the same datatype and language.
//!
//! * A literal in one of an adapter's full forms (`doi:10.1000/X`, `info:fedora/demo%3a1`) is
//!   recognized under every selected predicate and becomes the canonical IRI's text.
//! * A bare identifier (`10.1000/X`) is recognized where the predicate says which scheme it is
//!   ([`SCHEME_PREDICATES`]: `bibo:doi`, `prism:doi`), or where another statement of the same node
//!   does (`schema:propertyID "doi"` with `schema:value`, `datacite:usesIdentifierScheme
//!   datacite:doi` with `literal:hasLiteralValue`). Such a literal keeps the bare form: those
//!   properties hold bare names.
//! * DOIs follow [`DoiCase`]; handle local names are never case-folded.
//!
//! The patterns are looked for within the statements handed over together (the *window*: a batch
//! of the rewriter), so a node's statements must be near each other, as Turtle and RDF/XML write
//! them and as N-Triples dumps usually keep them.
//!
//! ```
//! use oxrdf::{GraphName, Literal, NamedNode, Quad};
//! use pidcanon::equivalence::literals::{LiteralOptions, LiteralRewriter};
//! use pidcanon::Registry;
//!
//! let rewriter = LiteralRewriter::new(LiteralOptions::default());
//! let mut quads = vec![Quad::new(
//!     NamedNode::new("http://example.org/article")?,
//!     NamedNode::new("http://purl.org/ontology/bibo/doi")?,
//!     Literal::new_simple_literal("https://dx.doi.org/10.1000/XYZ"),
//!     GraphName::DefaultGraph,
//! )];
//! let mut stats = Default::default();
//! rewriter.rewrite_window(&Registry::default(), &mut quads, &mut stats, |_| {});
//! assert_eq!(quads[0].object.to_string(), "\"10.1000/XYZ\"");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::policy::DoiCase;
use crate::scheme::handle::DOI_PROXY;
use crate::{IdError, Kind, Registry, pct};
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The default predicates whose literals are read as identifiers (full IRIs), each with the
/// scheme its bare form is, if the predicate says.
pub const DEFAULT_PREDICATES: &[(&str, Option<&str>)] = &[
    ("http://purl.org/ontology/bibo/doi", Some("doi")),
    (
        "http://prismstandard.org/namespaces/basic/2.0/doi",
        Some("doi"),
    ),
    (
        "http://prismstandard.org/namespaces/basic/3.0/doi",
        Some("doi"),
    ),
    ("http://purl.org/dc/terms/identifier", None),
    ("http://purl.org/dc/elements/1.1/identifier", None),
    ("http://schema.org/identifier", None),
    ("https://schema.org/identifier", None),
    (SCHEMA_VALUE_HTTP, None),
    (SCHEMA_VALUE_HTTPS, None),
    (LITERAL_VALUE, None),
];

/// The predicates whose bare literals are of one scheme.
pub const SCHEME_PREDICATES: &[(&str, &str)] = &[
    ("http://purl.org/ontology/bibo/doi", "doi"),
    ("http://prismstandard.org/namespaces/basic/2.0/doi", "doi"),
    ("http://prismstandard.org/namespaces/basic/3.0/doi", "doi"),
];

/// Prefixes accepted in `--literals` lists (`bibo:doi`).
pub const PREFIXES: &[(&str, &str)] = &[
    ("bibo", "http://purl.org/ontology/bibo/"),
    ("prism", "http://prismstandard.org/namespaces/basic/2.0/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("schema", "http://schema.org/"),
    ("datacite", "http://purl.org/spar/datacite/"),
    (
        "literal",
        "http://www.essepuntato.it/2010/06/literalreification/",
    ),
];

const SCHEMA_VALUE_HTTP: &str = "http://schema.org/value";
const SCHEMA_VALUE_HTTPS: &str = "https://schema.org/value";
const SCHEMA_PROPERTY_ID: [&str; 2] = [
    "http://schema.org/propertyID",
    "https://schema.org/propertyID",
];
const DATACITE_SCHEME: &str = "http://purl.org/spar/datacite/usesIdentifierScheme";
const DATACITE: &str = "http://purl.org/spar/datacite/";
const LITERAL_VALUE: &str = "http://www.essepuntato.it/2010/06/literalreification/hasLiteralValue";

/// Which literals are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicates {
    /// Every plain, `xsd:string` or `xsd:anyURI` literal (full forms; bare ones where the
    /// predicate or the node names the scheme).
    All,
    /// The literals of these predicates (full IRIs).
    Only(HashSet<String>),
}

impl Predicates {
    /// [`DEFAULT_PREDICATES`].
    #[must_use]
    pub fn default_list() -> Self {
        Self::Only(
            DEFAULT_PREDICATES
                .iter()
                .map(|(p, _)| (*p).to_owned())
                .collect(),
        )
    }

    /// From a `--literals` argument: empty for the default list, `all`, or predicates separated
    /// by commas, as IRIs or with a prefix of [`PREFIXES`].
    ///
    /// ```
    /// use pidcanon::equivalence::literals::Predicates;
    /// assert_eq!(Predicates::parse("all").unwrap(), Predicates::All);
    /// let Predicates::Only(list) = Predicates::parse("bibo:doi,http://x.example/id").unwrap() else {
    ///     panic!()
    /// };
    /// assert!(list.contains("http://purl.org/ontology/bibo/doi"));
    /// assert!(Predicates::parse("nope:x").is_err());
    /// ```
    pub fn parse(arg: &str) -> Result<Self, String> {
        match arg.trim() {
            "" | "default" => return Ok(Self::default_list()),
            "all" => return Ok(Self::All),
            _ => {}
        }
        let mut list = HashSet::new();
        for item in arg.split(',').map(str::trim) {
            let expanded = PREFIXES
                .iter()
                .find_map(|(prefix, ns)| {
                    item.strip_prefix(prefix)
                        .and_then(|rest| rest.strip_prefix(':'))
                        .filter(|local| !local.starts_with("//"))
                        .map(|local| format!("{ns}{local}"))
                })
                .unwrap_or_else(|| item.to_owned());
            // An IRI of an unknown scheme is more likely a prefixed name with a typo.
            let iri_like = expanded.contains("://")
                || ["urn:", "info:", "tag:"]
                    .iter()
                    .any(|s| expanded.starts_with(s));
            if !iri_like || crate::iri::validate(&expanded).is_err() {
                return Err(format!(
                    "--literals: {item:?} is neither an absolute IRI nor a known prefixed name \
                     ({})",
                    PREFIXES
                        .iter()
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            list.insert(expanded);
        }
        Ok(Self::Only(list))
    }

    fn contains(&self, predicate: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(list) => list.contains(predicate),
        }
    }
}

/// What [`LiteralRewriter`] does.
#[derive(Debug, Clone)]
pub struct LiteralOptions {
    /// Which literals are read.
    pub predicates: Predicates,
    /// How DOI literals are cased.
    pub doi_case: DoiCase,
    /// Also write `<s> link <canonical-IRI>` for each recognized literal (`--literal-links`).
    pub link: Option<NamedNode>,
}

impl Default for LiteralOptions {
    fn default() -> Self {
        Self {
            predicates: Predicates::default_list(),
            doi_case: DoiCase::Preserve,
            link: None,
        }
    }
}

/// Counts of one predicate's identifier literals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiteralCount {
    /// Recognized identifiers (rewritten or already canonical).
    pub recognized: u64,
    /// Literals changed.
    pub rewritten: u64,
    /// Invalid identifiers (left unchanged).
    pub invalid: u64,
    /// Links written.
    pub linked: u64,
}

/// Counts per predicate.
pub type LiteralStats = BTreeMap<String, LiteralCount>;

/// Something found in a window, for the caller to report: statement `index` of the window.
#[derive(Debug)]
pub enum LiteralEvent<'a> {
    /// A literal was rewritten.
    Rewritten {
        /// The statement's index in the window.
        index: usize,
        /// The literal's value before.
        original: String,
        /// After.
        canonical: &'a str,
        /// The kind of identifier.
        kind: Kind,
    },
    /// A literal read as an identifier is invalid; it is left unchanged.
    Invalid {
        /// The statement's index in the window.
        index: usize,
        /// The literal's value.
        value: &'a str,
        /// What is wrong with it.
        error: IdError,
    },
}

/// Rewrites identifier literals of windows of statements.
#[derive(Debug, Clone)]
pub struct LiteralRewriter {
    options: LiteralOptions,
}

/// A literal recognized as an identifier: its new text and the canonical IRI.
struct Recognized {
    text: String,
    iri: String,
    kind: Kind,
}

impl LiteralRewriter {
    /// A rewriter with `options`.
    #[must_use]
    pub fn new(options: LiteralOptions) -> Self {
        Self { options }
    }

    /// The options.
    #[must_use]
    pub fn options(&self) -> &LiteralOptions {
        &self.options
    }

    /// Rewrites the identifier literals of `quads` in place; links (`--literal-links`) are
    /// appended after them, in the order of their statements. `report` hears each rewrite and
    /// each invalid identifier; `stats` counts them per predicate.
    pub fn rewrite_window(
        &self,
        registry: &Registry,
        quads: &mut Vec<Quad>,
        stats: &mut LiteralStats,
        mut report: impl FnMut(LiteralEvent<'_>),
    ) {
        let hints = node_schemes(quads);
        let mut links = Vec::new();
        for (index, quad) in quads.iter_mut().enumerate() {
            let predicate = quad.predicate.as_str();
            if !self.options.predicates.contains(predicate) {
                continue;
            }
            let Term::Literal(literal) = &quad.object else {
                continue;
            };
            if !is_textual(literal) {
                continue;
            }
            let hint = SCHEME_PREDICATES
                .iter()
                .find(|(p, _)| *p == predicate)
                .map(|(_, scheme)| *scheme)
                .or_else(|| {
                    [SCHEMA_VALUE_HTTP, SCHEMA_VALUE_HTTPS, LITERAL_VALUE]
                        .contains(&predicate)
                        .then(|| hints.get(&quad.subject).copied())
                        .flatten()
                });
            let value = literal.value();
            let found = match self.recognize(registry, value, hint) {
                None => continue,
                Some(Err(error)) => {
                    stats.entry(predicate.to_owned()).or_default().invalid += 1;
                    report(LiteralEvent::Invalid {
                        index,
                        value,
                        error,
                    });
                    continue;
                }
                Some(Ok(found)) => found,
            };
            let count = stats.entry(predicate.to_owned()).or_default();
            count.recognized += 1;
            if let Some(link) = &self.options.link {
                count.linked += 1;
                links.push(Quad::new(
                    quad.subject.clone(),
                    link.clone(),
                    NamedNode::new_unchecked(found.iri.clone()),
                    quad.graph_name.clone(),
                ));
            }
            if found.text != value {
                count.rewritten += 1;
                let original = value.to_owned();
                quad.object = Term::Literal(with_value(literal, found.text));
                let Term::Literal(new) = &quad.object else {
                    continue;
                };
                report(LiteralEvent::Rewritten {
                    index,
                    original,
                    canonical: new.value(),
                    kind: found.kind,
                });
            }
        }
        quads.extend(links);
    }

    /// Reads `value` as an identifier: `None` when it is none (no adapter claims it and the
    /// scheme is not known), else its canonical literal text and IRI, or why it is invalid.
    fn recognize(
        &self,
        registry: &Registry,
        value: &str,
        hint: Option<&str>,
    ) -> Option<Result<Recognized, IdError>> {
        let claimed = registry.adapter_for(value).is_some();
        let canonical = match (claimed, hint) {
            (true, _) => registry.canonicalize(value),
            (false, Some(scheme)) => registry.canonicalize_as(scheme, value)?,
            (false, None) => return None,
        };
        Some(canonical.and_then(|c| {
            if hint == Some("doi") && c.kind != Kind::Doi {
                return Err(IdError::new(
                    c.kind,
                    crate::Rule::Grammar("this property holds DOIs, and this is not one"),
                    0,
                ));
            }
            let iri = c.iri.into_owned();
            let bare = hint.is_some();
            let text = if c.kind == Kind::Doi {
                self.doi_text(value, &iri, bare)
            } else if bare {
                bare_form(&iri)
            } else {
                Some(iri.clone())
            }
            // The case written cannot be carried over (rare: escapes around letters): the
            // literal stays as it is.
            .unwrap_or_else(|| value.to_owned());
            Ok(Recognized {
                text,
                iri,
                kind: c.kind,
            })
        }))
    }

    /// The text of a DOI literal whose canonical IRI is `iri`: bare (`10.x/y`) or the IRI, in the
    /// case [`DoiCase`] says.
    fn doi_text(&self, value: &str, iri: &str, bare: bool) -> Option<String> {
        let (prefix, encoded) = split_doi(iri)?;
        let name = pct::decode(encoded).ok()?;
        Some(match (self.options.doi_case, bare) {
            (DoiCase::Lower, true) => name.into_owned(),
            (DoiCase::Lower, false) => iri.to_owned(),
            (DoiCase::Upper, true) => name.to_ascii_uppercase(),
            (DoiCase::Upper, false) => format!("{prefix}{}", pct::ascii_uppercase(encoded)),
            (DoiCase::Preserve, _) => {
                let written = written_case(value, &name)?;
                if bare {
                    written
                } else {
                    format!("{prefix}{}", recase(encoded, &written)?)
                }
            }
        })
    }
}

/// The scheme each node's identifier is of, where another statement of the node says so:
/// `schema:propertyID "doi"`, `datacite:usesIdentifierScheme datacite:doi`.
fn node_schemes(quads: &[Quad]) -> HashMap<NamedOrBlankNode, &'static str> {
    let mut schemes = HashMap::new();
    for quad in quads {
        let predicate = quad.predicate.as_str();
        let name = if SCHEMA_PROPERTY_ID.contains(&predicate) {
            match &quad.object {
                Term::Literal(l) => l.value().to_ascii_lowercase(),
                _ => continue,
            }
        } else if predicate == DATACITE_SCHEME {
            match &quad.object {
                Term::NamedNode(n) => match n.as_str().strip_prefix(DATACITE) {
                    Some(local) => local.to_ascii_lowercase(),
                    None => continue,
                },
                _ => continue,
            }
        } else {
            continue;
        };
        let scheme = match name.as_str() {
            "doi" => "doi",
            "handle" | "hdl" => "handle",
            _ => continue,
        };
        schemes.insert(quad.subject.clone(), scheme);
    }
    schemes
}

/// A plain, `xsd:string`, language-tagged or `xsd:anyURI` literal.
fn is_textual(literal: &Literal) -> bool {
    let datatype = literal.datatype();
    datatype == xsd::STRING || datatype == xsd::ANY_URI || datatype == rdf::LANG_STRING
}

/// `literal` with another value, the same datatype and language.
fn with_value(literal: &Literal, value: String) -> Literal {
    match literal.language() {
        Some(language) => Literal::new_language_tagged_literal_unchecked(value, language),
        None => Literal::new_typed_literal(value, literal.datatype().into_owned()),
    }
}

/// A DOI IRI split into its prefix (`https://doi.org/` or `hdl:`) and its encoded name.
fn split_doi(iri: &str) -> Option<(&str, &str)> {
    [DOI_PROXY, "hdl:"]
        .into_iter()
        .find_map(|prefix| iri.strip_prefix(prefix).map(|name| (prefix, name)))
}

/// The bare form of a canonical handle IRI (`NA/local`, decoded); other kinds keep their IRI.
fn bare_form(iri: &str) -> Option<String> {
    match iri
        .strip_prefix("hdl:")
        .or_else(|| iri.strip_prefix(crate::scheme::handle::HANDLE_PROXY))
    {
        Some(name) => pct::decode(name).ok().map(std::borrow::Cow::into_owned),
        None => Some(iri.to_owned()),
    }
}

/// `name` (a case-folded DOI name) in the case it is written in `value`, found in `value` or in
/// its decoded form; `None` if it is in neither.
fn written_case(value: &str, name: &str) -> Option<String> {
    let find = |text: &str| {
        let folded = text.to_ascii_lowercase();
        folded
            .find(&name.to_ascii_lowercase())
            .map(|at| text[at..at + name.len()].to_owned())
    };
    find(value).or_else(|| find(&pct::decode(value).ok()?))
}

/// `encoded` (a name as the canonical IRI writes it, escapes and all) with its letters in the case
/// of `name` (the same name decoded); `None` if they do not line up.
fn recase(encoded: &str, name: &str) -> Option<String> {
    let mut out = String::with_capacity(encoded.len());
    let mut rest = encoded;
    for c in name.chars() {
        if rest.starts_with('%') {
            let escaped = rest.get(..3 * c.len_utf8())?;
            out.push_str(escaped);
            rest = &rest[escaped.len()..];
        } else {
            let next = rest.chars().next()?;
            if !next.eq_ignore_ascii_case(&c) {
                return None;
            }
            out.push(c);
            rest = &rest[next.len_utf8()..];
        }
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{BlankNode, GraphName};

    fn quad(s: &str, p: &str, o: Term) -> Quad {
        let subject: NamedOrBlankNode = match s.strip_prefix("_:") {
            Some(id) => BlankNode::new_unchecked(id).into(),
            None => NamedNode::new_unchecked(s).into(),
        };
        Quad::new(
            subject,
            NamedNode::new_unchecked(p),
            o,
            GraphName::DefaultGraph,
        )
    }

    fn lit(v: &str) -> Term {
        Literal::new_simple_literal(v).into()
    }

    fn run(options: LiteralOptions, quads: &mut Vec<Quad>) -> (LiteralStats, Vec<String>) {
        let mut stats = LiteralStats::new();
        let mut invalid = Vec::new();
        LiteralRewriter::new(options).rewrite_window(
            &Registry::default(),
            quads,
            &mut stats,
            |event| {
                if let LiteralEvent::Invalid { value, error, .. } = event {
                    invalid.push(format!("{value}: {error}"));
                }
            },
        );
        (stats, invalid)
    }

    const BIBO_DOI: &str = "http://purl.org/ontology/bibo/doi";
    const DCT_ID: &str = "http://purl.org/dc/terms/identifier";

    #[test]
    fn doi_literals_keep_their_form_class_and_follow_the_case_policy() {
        let inputs = [
            (BIBO_DOI, "doi:10.1000/AbC"),
            (BIBO_DOI, "10.1000/AbC"),
            (DCT_ID, "http://dx.doi.org/10.1000/AbC"),
            (DCT_ID, "10.1000/AbC"), // bare, and the predicate does not say: not read
        ];
        let expected = [
            (
                DoiCase::Preserve,
                ["10.1000/AbC", "10.1000/AbC", "https://doi.org/10.1000/AbC"],
            ),
            (
                DoiCase::Lower,
                ["10.1000/abc", "10.1000/abc", "https://doi.org/10.1000/abc"],
            ),
            (
                DoiCase::Upper,
                ["10.1000/ABC", "10.1000/ABC", "https://doi.org/10.1000/ABC"],
            ),
        ];
        for (case, outputs) in expected {
            let mut quads: Vec<Quad> = inputs
                .iter()
                .map(|(p, v)| quad("http://x/a", p, lit(v)))
                .collect();
            let options = LiteralOptions {
                doi_case: case,
                ..LiteralOptions::default()
            };
            let (stats, invalid) = run(options, &mut quads);
            assert!(invalid.is_empty(), "{invalid:?}");
            let values: Vec<String> = quads
                .iter()
                .map(|q| match &q.object {
                    Term::Literal(l) => l.value().to_owned(),
                    other => other.to_string(),
                })
                .collect();
            assert_eq!(&values[..3], &outputs, "{case:?}");
            assert_eq!(values[3], "10.1000/AbC");
            assert_eq!(stats[BIBO_DOI].recognized, 2);
            assert_eq!(stats[DCT_ID].recognized, 1);
        }
    }

    #[test]
    fn datatype_and_language_are_kept_and_other_datatypes_ignored() {
        let tagged = Literal::new_language_tagged_literal_unchecked("hdl://10013/AbC", "en");
        let any_uri = Literal::new_typed_literal("info:fedora/demo%3a1", xsd::ANY_URI);
        let int = Literal::new_typed_literal("info:fedora/demo%3a1", xsd::INTEGER);
        let mut quads = vec![
            quad("http://x/a", DCT_ID, tagged.into()),
            quad("http://x/a", DCT_ID, any_uri.into()),
            quad("http://x/a", DCT_ID, int.clone().into()),
        ];
        run(LiteralOptions::default(), &mut quads);
        assert_eq!(quads[0].object.to_string(), "\"hdl:10013/AbC\"@en");
        assert_eq!(
            quads[1].object.to_string(),
            "\"info:fedora/demo:1\"^^<http://www.w3.org/2001/XMLSchema#anyURI>"
        );
        assert_eq!(quads[2].object, Term::Literal(int));
    }

    #[test]
    fn property_value_and_datacite_nodes_name_the_scheme() {
        let mut quads = vec![
            quad("_:pv", "http://schema.org/propertyID", lit("DOI")),
            quad("_:pv", "http://schema.org/value", lit("10.5555/ABC")),
            quad(
                "_:id",
                DATACITE_SCHEME,
                NamedNode::new_unchecked("http://purl.org/spar/datacite/doi").into(),
            ),
            quad("_:id", LITERAL_VALUE, lit("10.5555/Def")),
            quad("_:other", "http://schema.org/value", lit("10.5555/ghi")),
        ];
        let options = LiteralOptions {
            doi_case: DoiCase::Lower,
            link: Some(NamedNode::new_unchecked(
                "http://www.w3.org/2002/07/owl#sameAs",
            )),
            ..LiteralOptions::default()
        };
        let (stats, _) = run(options, &mut quads);
        assert_eq!(quads[1].object.to_string(), "\"10.5555/abc\"");
        assert_eq!(quads[3].object.to_string(), "\"10.5555/def\"");
        assert_eq!(quads[4].object.to_string(), "\"10.5555/ghi\"");
        assert_eq!(quads.len(), 7, "two links appended");
        assert_eq!(
            quads[5].to_string(),
            "_:pv <http://www.w3.org/2002/07/owl#sameAs> <https://doi.org/10.5555/abc>"
        );
        assert_eq!(stats[LITERAL_VALUE].linked, 1);
    }

    #[test]
    fn invalid_identifiers_are_reported_and_left_alone() {
        let mut quads = vec![
            quad("http://x/a", BIBO_DOI, lit("10.1000")),
            quad("http://x/a", BIBO_DOI, lit("hdl:10013/abc")),
            quad("http://x/a", DCT_ID, lit("info:fedora/bad pid")),
            quad("http://x/a", DCT_ID, lit("just a title")),
        ];
        let before = quads.clone();
        let (stats, invalid) = run(LiteralOptions::default(), &mut quads);
        assert_eq!(quads, before);
        assert_eq!(invalid.len(), 3, "{invalid:?}");
        assert_eq!(stats[BIBO_DOI].invalid, 2);
        assert!(invalid[1].contains("holds DOIs"), "{invalid:?}");
    }

    #[test]
    fn handles_keep_their_local_case_and_escapes_line_up() {
        let mut quads = vec![
            quad(
                "http://x/a",
                DCT_ID,
                lit("https://hdl.handle.net/10013/EPIC.x"),
            ),
            quad("http://x/a", DCT_ID, lit("doi:10.1000/A<B>")),
        ];
        let options = LiteralOptions {
            predicates: Predicates::All,
            ..LiteralOptions::default()
        };
        run(options, &mut quads);
        assert_eq!(quads[0].object.to_string(), "\"hdl:10013/EPIC.x\"");
        assert_eq!(
            quads[1].object.to_string(),
            "\"https://doi.org/10.1000/A%3CB%3E\""
        );
    }
}
