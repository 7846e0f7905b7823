//! [`Findings`]: the one place that decides what each finding of a rewrite does — a rewrite
//! is told and recorded, an invalid identifier fails the rewrite or is reported, a syntax error
//! fails it or is recovered from — and where the counts of the [`Report`] are kept. The
//! pipelines (`line`, `graph`) report to it; the [`Session`](super::Session) above them owns it
//! with the output and hands each input to a pipeline.

use super::events::{Event, Found, Needs};
use super::fingerprint::Fingerprint;
use super::{Location, Observer, Recovery, Report, RewriteError, Rewriter, SyntaxError};
use crate::Kind;
use crate::equivalence::mapping::EquivalenceLinks;
use std::collections::HashSet;
use std::io::{self, Write};
use std::ops::Range;

/// What a rewrite found, and where it is told and recorded.
pub(crate) struct Findings<'s> {
    pub(crate) rewriter: &'s Rewriter,
    pub(crate) observer: Box<dyn Observer + 's>,
    pub(crate) links: Option<Box<dyn Write + 's>>,
    pub(crate) map: Option<Box<dyn Write + 's>>,
    pub(crate) rejects: Option<Box<dyn Write + 's>>,
    /// Originals already written to the links and map.
    recorded: HashSet<Box<str>>,
    /// Warnings already given (each is given once).
    warned: HashSet<String>,
    pub(crate) report: Report,
    /// The links of `--collapse`, gathered from every worker, written at the end.
    pub(crate) equivalence_links: EquivalenceLinks,
}

/// What the line pipeline must do with its output at an event.
pub(crate) enum Placement {
    /// A statement's bytes, to write unless they repeat an earlier statement.
    Statement(Fingerprint, Range<usize>),
    /// A line that does not parse, to write as it is at this offset of the output.
    PassThrough(Vec<u8>, usize),
}

impl<'s> Findings<'s> {
    pub(crate) fn new(rewriter: &'s Rewriter) -> Self {
        Self {
            rewriter,
            observer: Box::new(()),
            links: None,
            map: None,
            rejects: None,
            recorded: HashSet::new(),
            warned: HashSet::new(),
            report: Report::default(),
            equivalence_links: EquivalenceLinks::default(),
        }
    }

    /// What the workers must record for these findings.
    pub(crate) fn needs(&self) -> Needs {
        Needs {
            rewrite_events: self.observer.hears_rewrites()
                || self.links.is_some()
                || self.map.is_some(),
        }
    }

    /// Applies what a worker found, its locations counted after `lines_before` lines; gives back
    /// what the output must do, in order.
    pub(crate) fn apply(
        &mut self,
        found: &mut Found,
        lines_before: u64,
        mut place: impl FnMut(Placement) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        self.report.count_rewritten(&found.rewritten);
        self.report.count_literals(&found.literals);
        self.report.reflexive_dropped += found.dropped;
        self.report.signed_statements_kept += found.signed_statements_kept;
        self.equivalence_links.merge(&mut found.links);
        for event in found.events.drain(..) {
            match event {
                Event::Rewritten {
                    location,
                    original,
                    canonical,
                    kind,
                } => {
                    let location = location.after(lines_before);
                    self.rewritten(location, &original, &canonical, kind)?;
                }
                Event::Invalid {
                    location,
                    iri,
                    error,
                } => {
                    let location = location.after(lines_before);
                    self.report.invalid_identifiers += 1;
                    if self.rewriter.fail_on_invalid {
                        return Err(RewriteError::InvalidIdentifier {
                            location,
                            iri: iri.into(),
                            error,
                        });
                    }
                    self.observer.invalid(location, &iri, &error);
                }
                Event::Syntax { error, line, at } => {
                    let error =
                        SyntaxError::new(error.location().after(lines_before), error.message());
                    if self.syntax_error(error, &line)? == Recovery::PassedThrough {
                        place(Placement::PassThrough(line, at))?;
                    }
                }
                Event::Warning { location, message } => {
                    if !self.warned.contains(&message) {
                        let location = location.after(lines_before);
                        self.observer.warning(location, &message);
                        self.warned.insert(message);
                    }
                }
                Event::Statement {
                    fingerprint,
                    output,
                } => place(Placement::Statement(fingerprint, output))?,
            }
        }
        Ok(())
    }

    /// Input that does not parse: an error, or recovered from — written to the rejects if there
    /// are any, else passed through to line-based output, else skipped — and reported.
    pub(crate) fn syntax_error(
        &mut self,
        error: SyntaxError,
        text: &[u8],
    ) -> Result<Recovery, RewriteError> {
        self.report.syntax_errors += 1;
        if !self.rewriter.skip_syntax_errors {
            return Err(error.into());
        }
        let recovery = if let Some(rejects) = &mut self.rejects {
            rejects.write_all(text)?;
            Recovery::Rejected
        } else if self.rewriter.line_based() {
            self.report.lines_passed_through += 1;
            Recovery::PassedThrough
        } else {
            Recovery::Skipped
        };
        self.observer.syntax_error(&error, recovery);
        Ok(recovery)
    }

    /// Something worth a word that is not an error (legacy RDF/XML read in its compatibility
    /// mode): counted and told to the observer.
    pub(crate) fn warning(&mut self, location: Location, message: &str) {
        self.report.warnings += 1;
        self.observer.warning(location, message);
    }

    /// Tells the observer of a rewrite, and writes it to the links and map the first time.
    fn rewritten(
        &mut self,
        location: Location,
        original: &str,
        canonical: &str,
        kind: Kind,
    ) -> io::Result<()> {
        self.observer.rewritten(location, original, canonical, kind);
        if (self.links.is_some() || self.map.is_some()) && self.recorded.insert(original.into()) {
            if let Some(links) = &mut self.links {
                writeln!(
                    links,
                    "<{original}> <http://www.w3.org/2002/07/owl#sameAs> <{canonical}> ."
                )?;
            }
            if let Some(map) = &mut self.map {
                writeln!(map, "{original}\t{canonical}\t{kind}")?;
            }
        }
        Ok(())
    }
}
