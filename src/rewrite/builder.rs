//! [`Rewriter`]: how to rewrite — formats, base IRI, the adapters, what to do with bad input.

use super::terms::map_quad;
use super::{Location, RdfFormat, RewriteError};
use crate::equivalence::literals::LiteralRewriter;
use crate::equivalence::mapping::IriMapping;
use crate::{IdError, Registry};
use oxrdf::{Quad, QuadRef};
use std::sync::Arc;

/// How to rewrite: formats, base IRI, the adapters, and what to do with bad input. Options are
/// set in the builder style of `oxttl`'s parsers; [`session`](Rewriter::session) starts a rewrite.
///
/// A rewriter is cheap to clone (its adapters, mapping and literal rules are shared), so that
/// an application can keep one configured rewriter and derive others from it.
#[derive(Debug, Clone)]
pub struct Rewriter {
    pub(crate) registry: Arc<Registry>,
    pub(crate) input_format: RdfFormat,
    pub(crate) output_format: RdfFormat,
    pub(crate) base_iri: Option<String>,
    pub(crate) fail_on_invalid: bool,
    pub(crate) skip_syntax_errors: bool,
    pub(crate) drop_duplicates: bool,
    pub(crate) fingerprint_statements: bool,
    pub(crate) strict_rdfxml: bool,
    pub(crate) keep_signed: bool,
    pub(crate) threads: usize,
    /// Renames and equivalences applied after canonicalization (`--rename`, `--collapse`).
    pub(crate) mapping: Option<Arc<IriMapping>>,
    /// Identifier literals (`--literals`).
    pub(crate) literals: Option<Arc<LiteralRewriter>>,
}

/// The statements of [`Rewriter::for_quads`], rewritten.
#[derive(Debug)]
#[must_use]
pub struct QuadRewriter<'r, I> {
    rewriter: &'r Rewriter,
    quads: I,
}

impl<I: Iterator<Item = Quad>> Iterator for QuadRewriter<'_, I> {
    type Item = Result<Quad, RewriteError>;

    fn next(&mut self) -> Option<Self::Item> {
        let quad = self.quads.next()?;
        Some(self.rewriter.rewritten_quad(quad, Location::unknown()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.quads.size_hint()
    }
}

impl Rewriter {
    /// A rewriter with `registry`'s adapters, N-Triples in and out.
    #[must_use]
    pub fn new(registry: Registry) -> Self {
        Self {
            registry: Arc::new(registry),
            input_format: RdfFormat::NTriples,
            output_format: RdfFormat::NTriples,
            base_iri: None,
            fail_on_invalid: false,
            skip_syntax_errors: false,
            drop_duplicates: false,
            fingerprint_statements: false,
            strict_rdfxml: false,
            keep_signed: false,
            threads: 1,
            mapping: None,
            literals: None,
        }
    }

    /// Reads and writes `format`.
    #[must_use]
    pub fn with_format(mut self, format: RdfFormat) -> Self {
        self.input_format = format;
        self.output_format = format;
        self
    }

    /// Reads `format` (the output format stays as it was).
    #[must_use]
    pub fn with_input_format(mut self, format: RdfFormat) -> Self {
        self.input_format = format;
        self
    }

    /// Writes `format`.
    #[must_use]
    pub fn with_output_format(mut self, format: RdfFormat) -> Self {
        self.output_format = format;
        self
    }

    /// Resolves relative IRIs of Turtle, TriG and RDF/XML input against `base_iri`.
    pub fn with_base_iri(mut self, base_iri: impl Into<String>) -> Result<Self, RewriteError> {
        let base_iri = base_iri.into();
        if let Err(error) = crate::iri::validate(&base_iri) {
            return Err(RewriteError::InvalidBaseIri {
                iri: base_iri,
                error: error.into(),
            });
        }
        self.base_iri = Some(base_iri);
        Ok(self)
    }

    /// Makes an invalid identifier an error, instead of leaving it unchanged and reporting it.
    #[must_use]
    pub fn fail_on_invalid(mut self) -> Self {
        self.fail_on_invalid = true;
        self
    }

    /// Goes on after a syntax error instead of stopping, losing only what does not parse: an
    /// N-Triples/N-Quads line is passed through unchanged (or written to the rejects), a
    /// Turtle/TriG/RDF/XML statement skipped; each is reported.
    #[must_use]
    pub fn skip_syntax_errors(mut self) -> Self {
        self.skip_syntax_errors = true;
        self
    }

    /// Drops statements that are exact duplicates of one written before (after rewriting).
    #[must_use]
    pub fn drop_duplicates(mut self) -> Self {
        self.drop_duplicates = true;
        self
    }

    /// Writes before each N-Triples / N-Quads output line the fingerprint of its statement —
    /// the 128-bit fingerprint [`drop_duplicates`](Self::drop_duplicates) compares, as 32
    /// lower-case hex digits — and a tab; before a line that holds no statement (a blank line,
    /// a comment, a line that does not parse, passed through), a tab alone. Two lines have the
    /// same fingerprint exactly when `drop_duplicates` in one session would keep only the
    /// first: the same statement however it is spelled, blank nodes included as the session
    /// labels them (so that a job that rewrites its inputs in several sessions, each numbered
    /// as it would be in one — [`Session::numbering_inputs_from`] — can drop the duplicates
    /// across them itself). No byte-order mark is written. A session whose output is another
    /// format fails at its first statement.
    ///
    /// ```
    /// use pidcanon::rewrite::Rewriter;
    /// use pidcanon::Registry;
    ///
    /// let input = "<hdl://10013/x> <http://p> \"a\" .\n# note\n<hdl:10013/x> <http://p> \"\\u0061\" .\n";
    /// let mut output = Vec::new();
    /// let rewriter = Rewriter::new(Registry::default()).fingerprint_statements();
    /// let mut session = rewriter.session(&mut output);
    /// session.rewrite(input.as_bytes())?;
    /// session.finish()?;
    /// let output = String::from_utf8(output)?;
    /// let lines: Vec<(&str, &str)> = output.lines().map(|l| l.split_once('\t').unwrap()).collect();
    /// assert_eq!(lines[0].1, "<hdl:10013/x> <http://p> \"a\" .");
    /// assert_eq!(lines[1], ("", "# note"));
    /// assert_eq!(lines[2].1, "<hdl:10013/x> <http://p> \"\\u0061\" .");
    /// assert_eq!(lines[0].0.len(), 32);
    /// assert_eq!(lines[0].0, lines[2].0); // one statement, two spellings
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Session::numbering_inputs_from`]: super::Session::numbering_inputs_from
    #[must_use]
    pub fn fingerprint_statements(mut self) -> Self {
        self.fingerprint_statements = true;
        self
    }

    /// Reads RDF/XML strictly: by default, legacy RDF/XML (unqualified `about`, `resource`, …
    /// attributes, `base` on `rdf:RDF`, stray references between elements) is read as rapper,
    /// rdflib and Jena read it, with a warning for each kind of legacy use (see
    /// [`crate::rdfxml`]); strictly, it is a syntax error.
    #[must_use]
    pub fn strict_rdfxml(mut self) -> Self {
        self.strict_rdfxml = true;
        self
    }

    /// Leaves the statements of trusty (and so signed) nanopublications as they are: their IRIs
    /// are fixed by a hash of their content, and rewriting one invalidates them. Without it, a
    /// rewrite inside one is reported as a warning. N-Quads are then parsed and serialized
    /// rather than rewritten line by line.
    #[must_use]
    pub fn keep_signed(mut self) -> Self {
        self.keep_signed = true;
        self
    }

    /// Rewrites on `threads` threads (1 by default): N-Triples / N-Quads chunk by chunk, Turtle
    /// parsed piece by piece, other formats with parsing and serializing on separate threads.
    /// The output is the same whatever the number.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Maps every canonical IRI through `mapping` (renames, then equivalence classes); the
    /// statements of its equivalence predicates are written from their class's representative.
    /// Each IRI so changed is told and recorded as a rewrite.
    #[must_use]
    pub fn with_mapping(mut self, mapping: IriMapping) -> Self {
        self.mapping = Some(Arc::new(mapping));
        self
    }

    /// Rewrites identifier literals with `literals`. N-Triples and N-Quads are then parsed and
    /// serialized like the other formats, in batches that are the literal rewriter's windows.
    #[must_use]
    pub fn with_literals(mut self, literals: LiteralRewriter) -> Self {
        self.literals = Some(Arc::new(literals));
        self
    }

    /// The format read.
    #[must_use]
    pub fn input_format(&self) -> RdfFormat {
        self.input_format
    }

    /// The base IRI of relative IRIs, if one was given.
    #[must_use]
    pub fn base_iri(&self) -> Option<&str> {
        self.base_iri.as_deref()
    }

    /// The format written.
    #[must_use]
    pub fn output_format(&self) -> RdfFormat {
        self.output_format
    }

    /// The adapters.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Whether output lines are input lines with IRIs spliced in.
    pub(crate) fn line_based(&self) -> bool {
        self.literals.is_none()
            && !self.keep_signed
            && matches!(
                (self.input_format, self.output_format),
                (RdfFormat::NTriples, RdfFormat::NTriples | RdfFormat::NQuads)
                    | (RdfFormat::NQuads, RdfFormat::NQuads)
            )
    }

    /// The statement with every IRI canonicalized, then renamed and collapsed as the mapping
    /// given with [`with_mapping`](Rewriter::with_mapping) says, as a session maps it; invalid
    /// identifiers are left as they are (see [`try_canonical_quad`](Rewriter::try_canonical_quad)
    /// to hear of them). An equivalence statement is mapped as any other (both sides become the
    /// representative); a session instead keeps each member it names as a link.
    ///
    /// ```
    /// use oxrdf::{GraphName, NamedNodeRef, QuadRef};
    /// use pidcanon::{rewrite::Rewriter, Registry};
    /// let rewriter = Rewriter::new(Registry::default());
    /// let quad = QuadRef::new(
    ///     NamedNodeRef::new("info:fedora/demo%3a1")?,
    ///     NamedNodeRef::new("http://purl.org/dc/terms/relation")?,
    ///     NamedNodeRef::new("doi:10.1000/ABC")?,
    ///     GraphName::DefaultGraph.as_ref(),
    /// );
    /// let canonical = rewriter.canonical_quad(quad);
    /// assert_eq!(canonical.subject.to_string(), "<info:fedora/demo:1>");
    /// assert_eq!(canonical.object.to_string(), "<https://doi.org/10.1000/abc>");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn canonical_quad<'a>(&self, quad: impl Into<QuadRef<'a>>) -> Quad {
        self.map_canonical(quad.into().into_owned(), |_, _| {})
    }

    /// The statement with every IRI canonicalized, or the first identifier an adapter claims and
    /// finds invalid.
    ///
    /// ```
    /// use oxrdf::{GraphName, NamedNodeRef, QuadRef};
    /// use pidcanon::{rewrite::{RewriteError, Rewriter}, Registry};
    /// let rewriter = Rewriter::new(Registry::default());
    /// let quad = QuadRef::new(
    ///     NamedNodeRef::new("info:fedora/demo:1")?,
    ///     NamedNodeRef::new("http://purl.org/dc/terms/relation")?,
    ///     NamedNodeRef::new("info:fedora/no-colon")?,
    ///     GraphName::DefaultGraph.as_ref(),
    /// );
    /// let Err(RewriteError::InvalidIdentifier { iri, .. }) = rewriter.try_canonical_quad(quad) else {
    ///     panic!("a PID needs a colon");
    /// };
    /// assert_eq!(iri, "info:fedora/no-colon");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_canonical_quad<'a>(
        &self,
        quad: impl Into<QuadRef<'a>>,
    ) -> Result<Quad, RewriteError> {
        self.try_canonical_quad_at(quad.into().into_owned(), Location::unknown())
    }

    /// [`try_canonical_quad`](Rewriter::try_canonical_quad) of a statement found at `location`.
    fn try_canonical_quad_at(&self, quad: Quad, location: Location) -> Result<Quad, RewriteError> {
        let mut invalid = None;
        let quad = self.map_canonical(quad, |iri, error| {
            invalid.get_or_insert_with(|| RewriteError::InvalidIdentifier {
                location,
                iri: iri.to_owned(),
                error,
            });
        });
        invalid.map_or(Ok(quad), Err)
    }

    /// A statement found at `location`, as [`for_quads`](Rewriter::for_quads) and
    /// [`for_reader`](Rewriter::for_reader) give it: canonicalized and mapped, or, with
    /// [`fail_on_invalid`](Rewriter::fail_on_invalid), the error of its first invalid
    /// identifier.
    pub(super) fn rewritten_quad(
        &self,
        quad: Quad,
        location: Location,
    ) -> Result<Quad, RewriteError> {
        if self.fail_on_invalid {
            self.try_canonical_quad_at(quad, location)
        } else {
            Ok(self.map_canonical(quad, |_, _| {}))
        }
    }

    /// Rewrites statements an application already holds (parsed by itself, taken from a
    /// store), in `oxttl`'s habit of parsers over a source: each statement as
    /// [`canonical_quad`](Rewriter::canonical_quad) gives it (canonicalized and mapped), or, with
    /// [`fail_on_invalid`](Rewriter::fail_on_invalid), the error of its first invalid
    /// identifier (the iteration can go on past it).
    ///
    /// ```
    /// use oxrdf::{GraphName, NamedNode, Quad};
    /// use pidcanon::{rewrite::Rewriter, Registry};
    /// let rewriter = Rewriter::new(Registry::default());
    /// let quads = vec![Quad::new(
    ///     NamedNode::new("hdl://10013/X")?,
    ///     NamedNode::new("http://purl.org/dc/terms/relation")?,
    ///     NamedNode::new("info:fedora/demo%3a1")?,
    ///     GraphName::DefaultGraph,
    /// )];
    /// for quad in rewriter.for_quads(quads) {
    ///     assert_eq!(quad?.to_string(), "<hdl:10013/X> <http://purl.org/dc/terms/relation> <info:fedora/demo:1>");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_quads<I: IntoIterator<Item = Quad>>(
        &self,
        quads: I,
    ) -> QuadRewriter<'_, I::IntoIter> {
        QuadRewriter {
            rewriter: self,
            quads: quads.into_iter(),
        }
    }

    /// `quad` with every IRI canonicalized, then mapped as [`Self::with_mapping`] says; each
    /// invalid identifier goes to `on_invalid`.
    fn map_canonical(&self, mut quad: Quad, mut on_invalid: impl FnMut(&str, IdError)) -> Quad {
        let unmapped = IriMapping::new();
        let mapping = self.mapping.as_deref().unwrap_or(&unmapped);
        map_quad(
            &mut quad,
            &mut |iri| match mapping.rewrite_iri(&self.registry, iri) {
                Ok(rewritten) => rewritten.map(|(iri, _)| iri),
                Err(error) => {
                    on_invalid(iri, error);
                    None
                }
            },
        );
        quad
    }
}
