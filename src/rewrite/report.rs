//! What a rewrite tells as it goes ([`Observer`]) and at the end ([`Report`]).

use crate::position::Location;
use crate::{IdError, Kind};
use std::collections::BTreeMap;
use std::fmt;

/// What became of input that does not parse, when the rewrite goes on after syntax errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Recovery {
    /// Left out of the output (a Turtle, TriG or RDF/XML statement).
    Skipped,
    /// Written to the output as it was (an N-Triples / N-Quads line, to line-based output).
    PassedThrough,
    /// Written to the rejects instead of the output.
    Rejected,
}

impl fmt::Display for Recovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Skipped => "skipped",
            Self::PassedThrough => "passed through unchanged",
            Self::Rejected => "written to the rejects",
        })
    }
}

/// Told about what a rewrite finds, as it goes (the CLI prints these on stderr).
pub trait Observer {
    /// Whether [`rewritten`](Observer::rewritten) wants to hear of every rewrite; when it does
    /// not, the rewriter saves locating each one (the default hears them).
    fn hears_rewrites(&self) -> bool {
        true
    }

    /// An IRI was rewritten.
    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        let _ = (location, original, canonical, kind);
    }

    /// An IRI that an adapter claims is invalid; it is left unchanged.
    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        let _ = (location, iri, error);
    }

    /// Input that does not parse, and what became of it (the rewrite goes on after syntax
    /// errors).
    fn syntax_error(&mut self, error: &super::SyntaxError, recovery: Recovery) {
        let _ = (error, recovery);
    }

    /// Something worth a word that is not an error (input read in a compatibility mode, a
    /// statement left untouched on purpose).
    fn warning(&mut self, location: Location, message: &str) {
        let _ = (location, message);
    }
}

/// An observer lent to a session: what it hears, its owner keeps.
///
/// ```
/// use pidcanon::Registry;
/// use pidcanon::rewrite::{Location, Observer, RdfFormat, Rewriter};
/// #[derive(Default)]
/// struct Warnings(Vec<String>);
/// impl Observer for Warnings {
///     fn warning(&mut self, _: Location, message: &str) {
///         self.0.push(message.to_owned());
///     }
/// }
/// let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
/// let mut warnings = Warnings::default();
/// let mut session = rewriter.session(Vec::new()).with_observer(&mut warnings);
/// session.rewrite(&b"<http://e/s> <http://e/p> <http://e/o> .\n"[..])?;
/// session.finish()?;
/// assert!(warnings.0.is_empty());
/// # Ok::<(), pidcanon::rewrite::RewriteError>(())
/// ```
impl<T: Observer + ?Sized> Observer for &mut T {
    fn hears_rewrites(&self) -> bool {
        (**self).hears_rewrites()
    }

    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        (**self).rewritten(location, original, canonical, kind);
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        (**self).invalid(location, iri, error);
    }

    fn syntax_error(&mut self, error: &super::SyntaxError, recovery: Recovery) {
        (**self).syntax_error(error, recovery);
    }

    fn warning(&mut self, location: Location, message: &str) {
        (**self).warning(location, message);
    }
}

/// An observer that ignores everything.
impl Observer for () {
    fn hears_rewrites(&self) -> bool {
        false
    }
}

/// What a rewrite did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Statements read.
    pub statements_read: u64,
    /// Statements written.
    pub statements_written: u64,
    /// IRI occurrences rewritten, per kind of identifier.
    pub rewritten: BTreeMap<Kind, u64>,
    /// Occurrences of claimed but invalid identifiers (left unchanged).
    pub invalid_identifiers: u64,
    /// Statements dropped as exact duplicates ([`drop_duplicates`](super::Rewriter::drop_duplicates)).
    pub duplicates_dropped: u64,
    /// Syntax errors gone past ([`skip_syntax_errors`](super::Rewriter::skip_syntax_errors)), of
    /// which `lines_passed_through` were written to the output as they were.
    pub syntax_errors: u64,
    /// N-Triples / N-Quads lines that do not parse, written to the output unchanged.
    pub lines_passed_through: u64,
    /// Warnings told to the [`Observer`] (legacy RDF/XML read in its compatibility mode).
    pub warnings: u64,
    /// Statements of trusty nanopublications left as they are
    /// ([`keep_signed`](super::Rewriter::keep_signed)).
    pub signed_statements_kept: u64,
    /// Bytes of input read.
    pub bytes_read: u64,
    /// Equivalence statements dropped because both sides became one IRI, a class's
    /// representative or one in no class
    /// ([`IriMapping::drop_reflexive`](crate::equivalence::mapping::IriMapping::drop_reflexive)).
    pub reflexive_dropped: u64,
    /// Equivalence statements between members of one collapsed class, not written where they
    /// stood: their members are linked from the representative instead (`--collapse`).
    pub equivalence_statements_linked: u64,
    /// Links `<representative> P <member>` written after the rest of the output, once per
    /// graph, equivalence predicate and member (counted in `statements_written` too).
    pub equivalence_links_written: u64,
    /// Identifier literals found, rewritten and invalid, per predicate
    /// ([`with_literals`](super::Rewriter::with_literals)).
    pub literals: crate::equivalence::literals::LiteralStats,
}

impl Report {
    /// IRI occurrences rewritten, all kinds together.
    #[must_use]
    pub fn rewritten_total(&self) -> u64 {
        self.rewritten.values().sum()
    }

    /// Adds `rewritten` occurrences per kind.
    pub(crate) fn count_rewritten(&mut self, rewritten: &BTreeMap<Kind, u64>) {
        for (kind, n) in rewritten {
            *self.rewritten.entry(*kind).or_default() += n;
        }
    }

    /// Adds the counts of identifier literals.
    pub(crate) fn count_literals(&mut self, literals: &crate::equivalence::literals::LiteralStats) {
        for (predicate, n) in literals {
            let count = self.literals.entry(predicate.clone()).or_default();
            count.recognized += n.recognized;
            count.rewritten += n.rewritten;
            count.invalid += n.invalid;
            count.linked += n.linked;
        }
    }
}
