//! The first pass of `--collapse`: [`Collector`] reads the inputs once and gathers the
//! equivalences they assert (`owl:sameAs` and the other predicates named, between IRIs, after
//! canonicalization and renaming) and those of mapping files, into an [`EquivalencesBuilder`].
//! The rewrite proper is the second pass.
//!
//! N-Triples and N-Quads are read in the rewrite's chunks of whole lines (a CR alone ends a
//! line, as in the rewrite) and only lines that mention an equivalence predicate are parsed
//! (unless literal links feed the classes, which needs every statement), so the first pass costs
//! little more than reading the file. Other formats, given to [`Collector::read_graph`], are
//! read in full by the rewrite's own reader (legacy RDF/XML and the recovery after syntax errors
//! included). [`Collector::read_as`] reads exactly as a given rewriter reads (its base, strict
//! RDF/XML), and FOXML's statements are given parsed ([`Collector::add_statement`]), as
//! `pidcanon rewrite --collapse` does. A statement that does not parse is left to the second
//! pass to report.
//!
//! ```
//! use pidcanon::collapse::Collector;
//! use pidcanon::equivalence::{EquivalencesBuilder, RepresentativeOrder};
//! use pidcanon::equivalence::mapping::IriMapping;
//! use pidcanon::rewrite::RdfFormat;
//! use pidcanon::Registry;
//!
//! let registry = Registry::default();
//! let data = "<info:fedora/demo%3a1> <http://www.w3.org/2002/07/owl#sameAs> <hdl://10013/abc> .\n";
//! let mut collector = Collector::new(
//!     &registry,
//!     EquivalencesBuilder::new(RepresentativeOrder::default()),
//!     vec![IriMapping::OWL_SAME_AS.into()],
//! );
//! collector.read_graph(data.as_bytes(), RdfFormat::NTriples, None, 0)?;
//! let equivalences = collector.finish(1000, false);
//! assert_eq!(equivalences.representative("info:fedora/demo:1"), Some("hdl:10013/abc"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::equivalence::literals::{LiteralRewriter, LiteralStats};
use crate::equivalence::mapping::IriMapping;
use crate::equivalence::pairs::Pair;
use crate::equivalence::rename::{RenameTable, canonical_renamed};
use crate::equivalence::{
    Equivalences, EquivalencesBuilder, Origin, RepresentativeOrder, TooManyIdentifiers,
};
use crate::position::{line_breaks, line_start, lines};
use crate::read::{Checked, KnownIris, LineParser, ReadError, check, read_chunk, read_statements};
use crate::rewrite::RdfFormat;
use crate::rewrite::Rewriter;
use crate::{Kind, Policy, Registry, UnknownKind};
use oxrdf::{IriParseError, NamedNode, NamedOrBlankNode, Quad, Term};
use std::io::{BufRead, BufReader, Read, Write};

/// The number of statements in a window of the literal rewriter: the same batches the graph
/// pipeline maps, so that both passes see the same patterns.
pub const WINDOW: usize = 4096;

/// Why the first pass stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CollectError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Too many identifiers.
    #[error(transparent)]
    TooMany(#[from] TooManyIdentifiers),
    /// A bad base IRI.
    #[error("invalid base IRI: {0}")]
    Base(String),
}

/// Why [`Collector::read_graph`] stopped reading: the collector's error, or the reader's.
struct Stopped(CollectError);

impl From<ReadError> for Stopped {
    fn from(error: ReadError) -> Self {
        Self(match error {
            ReadError::Io(e) => CollectError::Io(e),
            ReadError::InvalidBaseIri { .. } => CollectError::Base(error.to_string()),
            other => CollectError::Io(std::io::Error::other(other)),
        })
    }
}

/// How equivalences are gathered and collapsed: what `rewrite --collapse` and `store --collapse`
/// share.
///
/// ```
/// use pidcanon::collapse::CollapseOptions;
/// use pidcanon::equivalence::mapping::IriMapping;
/// let options = CollapseOptions::default();
/// assert_eq!(options.predicates, [IriMapping::OWL_SAME_AS]);
/// assert_eq!(options.max_class, 1000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CollapseOptions {
    /// The predicates whose statements between two IRIs assert an equivalence (full IRIs):
    /// `owl:sameAs` and any others.
    pub predicates: Vec<String>,
    /// Which member represents its class.
    pub order: RepresentativeOrder,
    /// Classes of more members are reported ([`Equivalences::large_classes`]).
    pub max_class: usize,
    /// Collapse classes of more than `max_class` members too.
    pub collapse_large: bool,
    /// Drop the equivalence statements whose two sides become one IRI
    /// ([`IriMapping::drop_reflexive`]).
    pub drop_reflexive: bool,
}

impl Default for CollapseOptions {
    fn default() -> Self {
        Self {
            predicates: vec![IriMapping::OWL_SAME_AS.to_owned()],
            order: RepresentativeOrder::default(),
            max_class: 1000,
            collapse_large: false,
            drop_reflexive: false,
        }
    }
}

impl CollapseOptions {
    /// The default options with `policy`'s representative order (`representative_order`).
    ///
    /// ```
    /// use pidcanon::collapse::CollapseOptions;
    /// use pidcanon::equivalence::RepresentativeOrder;
    /// use pidcanon::{Kind, Policy};
    /// let policy = Policy::from_toml("representative_order = [\"fedora-object\"]")?;
    /// let options = CollapseOptions::for_policy(&policy)?;
    /// assert_eq!(options.order, RepresentativeOrder::new(&[Kind::FedoraObject]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_policy(policy: &Policy) -> Result<Self, UnknownKind> {
        Ok(Self {
            order: RepresentativeOrder::from_names(&policy.representative_order)?,
            ..Self::default()
        })
    }

    /// Adds `predicate` (a full IRI) to the equivalence predicates, unless it is one already.
    ///
    /// ```
    /// use pidcanon::collapse::CollapseOptions;
    /// let mut options = CollapseOptions::default();
    /// options.add_predicate("http://www.w3.org/2004/02/skos/core#exactMatch")?;
    /// options.add_predicate("http://www.w3.org/2004/02/skos/core#exactMatch")?;
    /// assert_eq!(options.predicates.len(), 2);
    /// assert!(options.add_predicate("not an IRI").is_err());
    /// # Ok::<(), oxrdf::IriParseError>(())
    /// ```
    pub fn add_predicate(&mut self, predicate: &str) -> Result<(), IriParseError> {
        NamedNode::new(predicate)?;
        if !self.predicates.iter().any(|p| p == predicate) {
            self.predicates.push(predicate.to_owned());
        }
        Ok(())
    }

    /// A collector of the equivalences of these predicates, in this order, renaming by `rename`
    /// as the rewrite does.
    #[must_use]
    pub fn collector<'r>(
        &self,
        registry: &'r Registry,
        rename: Option<&'r RenameTable>,
    ) -> Collector<'r> {
        let collector = Collector::new(
            registry,
            EquivalencesBuilder::new(self.order.clone()),
            self.predicates.clone(),
        );
        match rename {
            Some(table) => collector.with_rename(table),
            None => collector,
        }
    }

    /// The classes `collector` gathered, frozen with these limits.
    #[must_use]
    pub fn finish(&self, collector: Collector<'_>) -> Equivalences {
        collector.finish(self.max_class, self.collapse_large)
    }

    /// The mapping that renames by `rename`, then collapses `equivalences`' classes.
    #[must_use]
    pub fn mapping(&self, rename: Option<RenameTable>, equivalences: Equivalences) -> IriMapping {
        let mut mapping = IriMapping::new();
        if let Some(table) = rename {
            mapping = mapping.with_rename(table);
        }
        mapping = mapping.with_equivalences(equivalences, self.predicates.clone());
        if self.drop_reflexive {
            mapping = mapping.drop_reflexive();
        }
        mapping
    }
}

/// Gathers equivalences from graphs and pair files.
pub struct Collector<'r> {
    registry: &'r Registry,
    builder: EquivalencesBuilder,
    predicates: Vec<String>,
    rename: Option<&'r RenameTable>,
    literals: Option<&'r LiteralRewriter>,
    /// Equivalence statements with a side that is an invalid identifier: not collected.
    skipped_invalid: u64,
    /// With literal links, the statements of the current window.
    window: Vec<Quad>,
    /// The subject of the last equivalence statement, as written, and what it became.
    subject: LastSubject,
}

/// The subject of an equivalence statement as written, and its canonical (renamed) form with
/// its kind (`None`: nothing kept, or an invalid identifier, which is checked again): a dump
/// names a class's members from one subject, line after line, which is canonicalized once.
#[derive(Default)]
struct LastSubject {
    written: String,
    canonical: String,
    kind: Option<Kind>,
}

impl std::fmt::Debug for Collector<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collector")
            .field("builder", &self.builder)
            .field("predicates", &self.predicates)
            .finish_non_exhaustive()
    }
}

impl<'r> Collector<'r> {
    /// A collector of the statements of `predicates` (full IRIs).
    #[must_use]
    pub fn new(
        registry: &'r Registry,
        builder: EquivalencesBuilder,
        predicates: Vec<String>,
    ) -> Self {
        Self {
            registry,
            builder,
            predicates,
            rename: None,
            literals: None,
            skipped_invalid: 0,
            window: Vec::new(),
            subject: LastSubject::default(),
        }
    }

    /// Renames IRIs by `table` before they join classes, as the rewrite does.
    #[must_use]
    pub fn with_rename(mut self, table: &'r RenameTable) -> Self {
        self.rename = Some(table);
        self
    }

    /// Collects the links `literals` writes too (`--literal-links` with an equivalence
    /// predicate).
    #[must_use]
    pub fn with_literal_links(mut self, literals: &'r LiteralRewriter) -> Self {
        self.literals = Some(literals);
        self
    }

    /// Equivalence statements not collected because a side is an invalid identifier (the rewrite
    /// reports each).
    #[must_use]
    pub fn skipped_invalid(&self) -> u64 {
        self.skipped_invalid
    }

    /// Adds the pairs of a mapping file (`--equivalences`), numbered `source`.
    pub fn add_pairs(&mut self, pairs: &[Pair], source: u32) -> Result<(), TooManyIdentifiers> {
        for pair in pairs {
            let left = renamed(self.rename, &pair.left.0, pair.left.1);
            let right = renamed(self.rename, &pair.right.0, pair.right.1);
            let origin = Origin {
                source,
                line: pair.line,
            };
            self.builder.add(left, right, origin)?;
        }
        Ok(())
    }

    /// Reads one graph, numbered `source` in the origins of its pairs, as the rewrite reads it
    /// (going on after syntax errors, which are the rewrite's to report): N-Triples and
    /// N-Quads in the rewrite's chunks of lines, any other format through the rewrite's own
    /// reader (the legacy RDF/XML pre-pass included).
    pub fn read_graph(
        &mut self,
        input: impl Read,
        format: RdfFormat,
        base_iri: Option<&str>,
        source: u32,
    ) -> Result<(), CollectError> {
        let input = BufReader::with_capacity(1 << 16, input);
        if matches!(format, RdfFormat::NTriples | RdfFormat::NQuads) {
            self.read_lines(input, format, source)?;
            return self.end_input(source);
        }
        read_statements(input, format, base_iri, |quad, line| {
            self.statement(quad, Origin { source, line })
                .map_err(Stopped)
        })
        .map_err(|Stopped(e)| e)?;
        self.end_input(source)
    }

    /// Reads `input`, numbered `source`, exactly as `reader` reads it in the second pass (its
    /// format, base, recovery from syntax errors, legacy RDF/XML): N-Triples and N-Quads line by
    /// line, as the rewrite cuts them; any other format rewritten by `reader` to N-Quads and
    /// collected from that output ([`Self::written`]). What does not read is left to the
    /// second pass to report.
    ///
    /// ```
    /// use pidcanon::collapse::CollapseOptions;
    /// use pidcanon::rewrite::{RdfFormat, Rewriter};
    /// use pidcanon::Registry;
    /// let rewriter = Rewriter::new(Registry::default()).with_input_format(RdfFormat::Turtle);
    /// let options = CollapseOptions::default();
    /// let mut collector = options.collector(rewriter.registry(), None);
    /// let data = "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n\
    ///             <info:fedora/demo%3a1> owl:sameAs <hdl://10013/abc> .";
    /// collector.read_as(&rewriter, data.as_bytes(), 0)?;
    /// let equivalences = options.finish(collector);
    /// assert_eq!(equivalences.representative("info:fedora/demo:1"), Some("hdl:10013/abc"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_as(
        &mut self,
        reader: &Rewriter,
        input: impl Read,
        source: u32,
    ) -> Result<(), CollectError> {
        let format = reader.input_format();
        if matches!(format, RdfFormat::NTriples | RdfFormat::NQuads) {
            return self.read_graph(input, format, None, source);
        }
        let reader = reader.clone().with_output_format(RdfFormat::NQuads);
        let mut written = self.written(source);
        let mut session = reader.session(&mut written);
        // What does not read is the rewrite's to report: it reads the same.
        let _ = session
            .rewrite(BufReader::with_capacity(1 << 16, input))
            .and_then(|()| session.finish().map(drop));
        written.finish()
    }

    /// A writer of N-Quads lines of the input numbered `source` — the output of a rewrite that
    /// reads as the second pass does — collected as they are written; [`Written::finish`]
    /// ends the input.
    pub fn written(&mut self, source: u32) -> Written<'_, 'r> {
        Written {
            collector: self,
            source,
            pending: Vec::new(),
            failed: None,
        }
    }

    /// Reads `lines`, whole N-Triples / N-Quads lines of the input numbered `source` as a
    /// reader wrote them (the statements a rewrite reads, written by a rewrite to N-Quads), in
    /// as many calls as it takes; [`Self::end_input`] ends the input.
    pub fn read_written(&mut self, lines: &[u8], source: u32) -> Result<(), CollectError> {
        self.read_lines(lines, RdfFormat::NQuads, source)
    }

    /// Adds a statement an application holds, of the input numbered `source`: an equivalence
    /// statement between IRIs joins the classes (with literal links, every statement joins the
    /// window its links are computed in; [`Self::end_input`] ends the input).
    ///
    /// ```
    /// use oxrdf::{GraphName, NamedNode, Quad};
    /// use pidcanon::collapse::Collector;
    /// use pidcanon::equivalence::{EquivalencesBuilder, RepresentativeOrder};
    /// use pidcanon::equivalence::mapping::IriMapping;
    /// use pidcanon::Registry;
    /// let registry = Registry::default();
    /// let mut collector = Collector::new(
    ///     &registry,
    ///     EquivalencesBuilder::new(RepresentativeOrder::default()),
    ///     vec![IriMapping::OWL_SAME_AS.into()],
    /// );
    /// collector.add_statement(Quad::new(
    ///     NamedNode::new("info:fedora/demo%3a1")?,
    ///     NamedNode::new(IriMapping::OWL_SAME_AS)?,
    ///     NamedNode::new("hdl://10013/abc")?,
    ///     GraphName::DefaultGraph,
    /// ), 0)?;
    /// collector.end_input(0)?;
    /// let equivalences = collector.finish(1000, false);
    /// assert_eq!(equivalences.representative("info:fedora/demo:1"), Some("hdl:10013/abc"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_statement(&mut self, quad: Quad, source: u32) -> Result<(), CollectError> {
        self.statement(quad, Origin { source, line: 0 })
    }

    /// Ends the input numbered `source` (the links of literals in its last statements).
    pub fn end_input(&mut self, source: u32) -> Result<(), CollectError> {
        let mut window = std::mem::take(&mut self.window);
        let flushed = self.flush_window(&mut window, Origin { source, line: 0 });
        self.window = window;
        flushed
    }

    /// N-Triples / N-Quads, in the chunks of whole lines the rewrite reads; only lines that
    /// mention an equivalence predicate (found in the whole chunk at once) are parsed, unless
    /// literal links need every statement.
    fn read_lines(
        &mut self,
        mut input: impl BufRead,
        format: RdfFormat,
        source: u32,
    ) -> Result<(), CollectError> {
        let finders: Vec<memchr::memmem::Finder<'static>> = self
            .predicates
            .iter()
            .map(|p| memchr::memmem::Finder::new(format!("<{p}>").as_bytes()).into_owned())
            .collect();
        let quads = format == RdfFormat::NQuads;
        let (mut chunk, mut hits) = (Vec::new(), Vec::new());
        let mut known = KnownIris::new();
        // Lines before the chunk's line `counted` starts.
        let mut lines_before = 0;
        while read_chunk(&mut input, &mut chunk)? > 0 {
            hits.clear();
            if self.literals.is_some() {
                hits.extend(lines(&chunk).scan(0, |start, line| {
                    let at = *start;
                    *start += line.len();
                    Some(at)
                }));
            } else {
                hits.extend(finders.iter().flat_map(|f| f.find_iter(&chunk)));
                // A line with an escape too: its predicate may be one written with `\u` or
                // `\U` (`owl\u0023sameAs`), which only a parser reads as it is.
                let escape = |&at: &usize| matches!(chunk.get(at + 1), Some(b'u' | b'U'));
                hits.extend(memchr::memchr_iter(b'\\', &chunk).filter(escape));
                // Runs already in order (each finder's, the escapes'), which a stable sort merges.
                hits.sort();
            }
            // `counted`: where the lines counted in `lines_before` end; `next`: where the
            // line after the last one read starts.
            let (mut counted, mut next) = (0, 0);
            for &at in &hits {
                if at < next {
                    continue;
                }
                let start = line_start(&chunk, at);
                let line = lines(&chunk[start..]).next().unwrap_or_default();
                lines_before += line_breaks(&chunk[counted..start]);
                counted = start;
                next = start + line.len();
                let origin = Origin {
                    source,
                    line: lines_before + 1,
                };
                if self.literals.is_none() {
                    if let Some([s, p, o]) = scanned_iri_statement(line, quads, &mut known) {
                        self.equivalence_of(s, p, o, origin)?;
                        continue;
                    }
                    if !may_be_iri_statement_with_escaped_predicate(line)
                        && !finders.iter().any(|f| f.find(line).is_some())
                    {
                        continue;
                    }
                }
                let mut parser = LineParser::for_lines(quads);
                parser.extend(line);
                parser.end();
                while let Some(parsed) = parser.next() {
                    if let Ok(quad) = parsed {
                        self.statement(quad, origin)?;
                    }
                }
            }
            lines_before += line_breaks(&chunk[counted..]);
        }
        Ok(())
    }

    /// One statement: an equivalence is added; with literal links, the statement joins the
    /// window.
    fn statement(&mut self, quad: Quad, origin: Origin) -> Result<(), CollectError> {
        self.equivalence(&quad, origin)?;
        if self.literals.is_some() {
            self.window.push(quad);
            if self.window.len() >= WINDOW {
                let mut window = std::mem::take(&mut self.window);
                let flushed = self.flush_window(&mut window, origin);
                self.window = window;
                flushed?;
            }
        }
        Ok(())
    }

    /// The links the literal rewriter writes for a window, collected.
    fn flush_window(&mut self, window: &mut Vec<Quad>, origin: Origin) -> Result<(), CollectError> {
        let Some(literals) = self.literals else {
            return Ok(());
        };
        let read = window.len();
        literals.rewrite_window(self.registry, window, &mut LiteralStats::new(), |_| {});
        for link in window.drain(read..) {
            self.equivalence(&link, origin)?;
        }
        window.clear();
        Ok(())
    }

    /// Adds `quad` if it is an equivalence statement between two IRIs.
    fn equivalence(&mut self, quad: &Quad, origin: Origin) -> Result<(), TooManyIdentifiers> {
        let (NamedOrBlankNode::NamedNode(s), Term::NamedNode(o)) = (&quad.subject, &quad.object)
        else {
            return Ok(());
        };
        self.equivalence_of(s.as_str(), quad.predicate.as_str(), o.as_str(), origin)
    }

    /// Adds `<s> <p> <o>` if `p` is an equivalence predicate.
    fn equivalence_of(
        &mut self,
        s: &str,
        p: &str,
        o: &str,
        origin: Origin,
    ) -> Result<(), TooManyIdentifiers> {
        if !self.predicates.iter().any(|predicate| predicate == p) {
            return Ok(());
        }
        let side = |iri| canonical_renamed(self.registry, self.rename, iri);
        let subject = &mut self.subject;
        if subject.kind.is_none() || subject.written != s {
            subject.written.clear();
            subject.written.push_str(s);
            subject.canonical.clear();
            subject.kind = side(s).ok().map(|(canonical, kind)| {
                subject.canonical.push_str(&canonical);
                kind
            });
        }
        let (Some(kind), Ok(o)) = (subject.kind, side(o)) else {
            self.skipped_invalid += 1;
            return Ok(());
        };
        self.builder
            .add((&subject.canonical, kind), (&o.0, o.1), origin)
    }

    /// Pairs added so far.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.builder.pairs()
    }

    /// The classes; those of more than `max_class` members are listed, and left uncollapsed
    /// unless `collapse_large`.
    #[must_use]
    pub fn finish(self, max_class: usize, collapse_large: bool) -> Equivalences {
        self.builder.freeze_with(max_class, collapse_large)
    }
}

/// The first pass's view of one input: the N-Quads a rewrite writes of it, collected a line at a
/// time ([`Collector::written`]).
pub struct Written<'c, 'r> {
    collector: &'c mut Collector<'r>,
    source: u32,
    /// Written and not yet collected: the start of a line.
    pending: Vec<u8>,
    failed: Option<CollectError>,
}

impl std::fmt::Debug for Written<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Written")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Written<'_, '_> {
    /// Collects what is left and ends the input; the error that stopped the collecting, if
    /// one did.
    pub fn finish(mut self) -> Result<(), CollectError> {
        if let Some(failed) = self.failed.take() {
            return Err(failed);
        }
        self.collector.read_written(&self.pending, self.source)?;
        self.collector.end_input(self.source)
    }
}

impl Write for Written<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let stopped = || std::io::Error::other("the first pass of the collapse stopped");
        if self.failed.is_some() {
            return Err(stopped());
        }
        self.pending.extend_from_slice(bytes);
        if let Some(end) = memchr::memrchr(b'\n', &self.pending) {
            let collected = self
                .collector
                .read_written(&self.pending[..=end], self.source);
            self.pending.drain(..=end);
            if let Err(e) = collected {
                self.failed = Some(e);
                return Err(stopped());
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The subject, predicate and object of a line the rewrite's scanner finds to be one valid
/// statement whose three first terms are IRIs, as a parser reads them (the scanner takes no
/// IRI with an escape: each is its text); `None` for any other line (a parser decides on it).
fn scanned_iri_statement<'l>(
    line: &'l [u8],
    quads: bool,
    known: &mut KnownIris,
) -> Option<[&'l str; 3]> {
    let text = std::str::from_utf8(line).ok()?;
    let Checked::Statement(spans) = check(text, quads, known) else {
        return None;
    };
    Some(spans.iri_statement()?.map(|span| &text[span]))
}

/// Whether `line` may be a statement `<s> <p> …` whose predicate IRI holds a `\` (an escape):
/// the first two terms are written `<…>` (an `IRIREF` holds no `>`), the second with a `\`.
/// An equivalence between IRIs has an IRI subject; with one whose predicate is written with an
/// escape, this is true.
///
/// ```text
/// <http://s> <http://p\u0023q> <http://o> .     true
/// <http://s> <http://p> "\u0023" .              false
/// _:b <http://p\u0023q> <http://o> .            false: the subject is no IRI
/// ```
fn may_be_iri_statement_with_escaped_predicate(line: &[u8]) -> bool {
    let iri_at = |text: &[u8]| -> Option<usize> {
        let start = text.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
        (text[start] == b'<').then_some(start + 1)
    };
    let predicate = iri_at(line).and_then(|subject| {
        let rest = &line[subject..];
        let after = subject + memchr::memchr(b'>', rest)? + 1;
        let start = after + iri_at(&line[after..])?;
        Some(&line[start..start + memchr::memchr(b'>', &line[start..])?])
    });
    predicate.is_some_and(|p| p.contains(&b'\\'))
}

/// `iri` renamed by `table`, if it is.
fn renamed<'a>(table: Option<&'a RenameTable>, iri: &'a str, kind: Kind) -> (&'a str, Kind) {
    table
        .and_then(|r| r.target_with_kind(iri))
        .unwrap_or((iri, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of the joins of the one large class collected from `data`.
    fn join_lines(data: &[u8], format: RdfFormat) -> Vec<u64> {
        let registry = Registry::default();
        let mut collector = Collector::new(
            &registry,
            EquivalencesBuilder::new(RepresentativeOrder::default()),
            vec![IriMapping::OWL_SAME_AS.into()],
        );
        collector.read_graph(data, format, None, 3).unwrap();
        let equivalences = collector.finish(1, false);
        let [class] = equivalences.large_classes() else {
            panic!("one large class");
        };
        class
            .joins
            .iter()
            .inspect(|join| assert_eq!(join.origin.source, 3))
            .map(|join| join.origin.line)
            .collect()
    }

    #[test]
    fn an_escaped_predicate_is_found_in_its_place() {
        for (line, expected) in [
            ("<http://s> <http://p\\u0023q> <http://o> .\n", true),
            ("\t<http://s>\t<http://p\\U00000023q> \"o\" .", true),
            ("<http://s> <http://p> \"\\u0023\" .\n", false),
            ("<http://s> <http://p> <http://o\\u0023> .\n", false),
            ("<http://s\\u0023> <http://p> <http://o> .\n", false),
            ("_:b <http://p\\u0023q> <http://o> .\n", false),
            ("<http://s> <http://p\\u0023q", false),
            ("", false),
        ] {
            assert_eq!(
                may_be_iri_statement_with_escaped_predicate(line.as_bytes()),
                expected,
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_scanned_statement_is_what_the_parser_reads() {
        let same_as = IriMapping::OWL_SAME_AS;
        let lines = [
            format!("<http://a> <{same_as}> <http://b> .\n"),
            format!("<http://a>\t<{same_as}>  <http://b>.# c\r\n"),
            format!("<http://\\u00E9> <{same_as}> <http://\\U0001F600> .\n"),
            format!("<http://a> <{same_as}> <http://b> <http://g> .\n"),
            format!("<http://a> <{same_as}> <http://b> _:g .\n"),
            format!("_:a <{same_as}> <http://b> .\n"),
            format!("<http://a> <{same_as}> _:b .\n"),
            format!("<http://a> <{same_as}> \"<http://b>\" .\n"),
            format!("<http://a> <{same_as}> \"b\"^^<http://b> .\n"),
            format!("<http://a> <{same_as}> <http://b> <http://c> <http://d> .\n"),
            format!("<http://a> <{same_as}> <http://b>\n"),
            format!("<http://a b> <{same_as}> <http://b> .\n"),
        ];
        let mut scanned = 0;
        for line in &lines {
            for quads in [false, true] {
                let parsed: Vec<_> = {
                    let mut parser = LineParser::for_lines(quads);
                    parser.extend(line.as_bytes());
                    parser.end();
                    std::iter::from_fn(|| parser.next()).collect()
                };
                let Some([s, p, o]) =
                    scanned_iri_statement(line.as_bytes(), quads, &mut KnownIris::new())
                else {
                    continue;
                };
                scanned += 1;
                let [Ok(quad)] = &parsed[..] else {
                    panic!("{line:?} (quads: {quads}) scanned, parsed as {parsed:?}");
                };
                assert_eq!(
                    (
                        quad.subject.to_string(),
                        quad.predicate.to_string(),
                        quad.object.to_string()
                    ),
                    (format!("<{s}>"), format!("<{p}>"), format!("<{o}>")),
                    "{line:?}"
                );
            }
        }
        assert!(scanned >= 6, "{scanned} lines scanned");
    }

    #[test]
    fn a_subject_kept_from_the_line_before_is_what_it_would_be_found_again() {
        // A subject written again, in another spelling, invalid twice in a row, between
        // others: each line joins what it would alone.
        let same_as = IriMapping::OWL_SAME_AS;
        let data: String = [
            ("hdl://10013/x", "http://a/1"),
            ("hdl://10013/x", "http://a/2"),
            ("hdl:10013/x", "http://a/3"),
            ("info:fedora/no-colon", "http://b/1"),
            ("info:fedora/no-colon", "http://b/2"),
            ("http://a/3", "http://c/1"),
            ("http://a/3", "info:fedora/no-colon"),
            ("http://d/1", "http://d/2"),
        ]
        .iter()
        .map(|(s, o)| format!("<{s}> <{same_as}> <{o}> .\n"))
        .collect();
        let registry = Registry::default();
        let mut collector = Collector::new(
            &registry,
            EquivalencesBuilder::new(RepresentativeOrder::default()),
            vec![same_as.into()],
        );
        collector
            .read_graph(data.as_bytes(), RdfFormat::NTriples, None, 0)
            .unwrap();
        assert_eq!(collector.skipped_invalid(), 3);
        let members =
            |iris: &[&str]| -> Vec<String> { iris.iter().map(|iri| (*iri).to_owned()).collect() };
        assert_eq!(
            collector.finish(1000, false).listing(),
            [
                (
                    "hdl:10013/x".to_owned(),
                    members(&[
                        "hdl:10013/x",
                        "http://a/1",
                        "http://a/2",
                        "http://a/3",
                        "http://c/1"
                    ])
                ),
                (
                    "http://d/1".to_owned(),
                    members(&["http://d/1", "http://d/2"])
                ),
            ]
        );
    }

    #[test]
    fn equivalences_are_found_on_the_lines_the_rewrite_counts() {
        // LF, CRLF and a CR alone each end a line; lines between chunks are counted too: the
        // filler makes the document several chunks long.
        let filler = "<http://e/s> <http://e/p> \"a long enough literal to fill a chunk\" .\n";
        let same_as = |a: u32| {
            format!(
                "<http://e/{a}> <{}> <http://e/{}>",
                IriMapping::OWL_SAME_AS,
                a + 1
            )
        };
        let mut data = String::new();
        let mut expected = Vec::new();
        let mut line = 0;
        for n in 0..40u32 {
            for _ in 0..(n * 97 % 1000) {
                data.push_str(filler);
                line += 1;
            }
            let end = ["\n", "\r\n", "\r", " . # a comment\r"][n as usize % 4];
            let statement = same_as(n);
            if end.starts_with(" .") {
                data.push_str(&format!("{statement}{end}"));
            } else {
                data.push_str(&format!("{statement} .{end}"));
            }
            line += 1;
            expected.push(line);
        }
        assert!(
            data.len() > 3 << 18,
            "longer than three chunks of the rewrite"
        );
        assert_eq!(join_lines(data.as_bytes(), RdfFormat::NTriples), expected);
        assert_eq!(join_lines(data.as_bytes(), RdfFormat::NQuads), expected);
    }
}
