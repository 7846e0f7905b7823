//! `pidcanon check`: a lister. Every identifier that is not canonical or is invalid — and, with
//! `--lenient`, every syntax error — is one finding, listed on stdout as it is found; a summary
//! per kind of finding and per distinct IRI follows (on stderr, or as the last JSON line).
//!
//! ```text
//! data.nt:2:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>
//! data.nt:5:42: invalid doi <https://doi.org/11.1/x>: …
//! data.nt:7:1: syntax-error: …
//! ```
//!
//! Exit status: 0 nothing found, 1 findings, 2 usage or I/O errors (or a syntax error without
//! `--lenient`, after listing what came before it).

use super::EXIT_USAGE;
use super::args::CheckArgs;
use super::foxml::Unreadable;
use super::graph::{
    Current, EXIT_INVALID, Mode, StdinHint, build, feed, skipped_message, usage_error,
};
use super::named::STDOUT;
use super::output::writable_stdout;
use super::summary::count;
use pidcanon::rewrite::{Location, Observer, RdfFormat, Recovery, RewriteError, SyntaxError};
use pidcanon::{IdError, Kind};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::process::ExitCode;
use std::rc::Rc;

pub(crate) fn run(args: &CheckArgs) -> io::Result<ExitCode> {
    let mode = Mode {
        fail_on_invalid: false,
        skip_syntax_errors: args.lenient,
    };
    let (rewriter, inputs, hints) = match build("check", &args.input, mode, Some(RdfFormat::NQuads))
    {
        Ok(built) => built,
        Err(e) => return usage_error(&e),
    };
    let style = match (&args.report, args.quiet) {
        (Some(_), _) => Style::Json,
        (None, true) => Style::Quiet,
        (None, false) => Style::Text,
    };
    if style != Style::Quiet {
        writable_stdout()?;
    }
    let lister = Rc::new(RefCell::new(Lister::new(style)));
    let file = Current::default();
    let session = rewriter
        .session(Halt(Rc::clone(&lister)))
        .with_observer(Listening {
            lister: Rc::clone(&lister),
            file: &file,
            stdin_hint: (style != Style::Quiet).then(|| StdinHint::new(hints)),
        });
    let mut on_skip = |name: &str, unreadable: &Unreadable| {
        if unreadable.syntax {
            let location = unreadable.location.unwrap_or_else(Location::unknown);
            lister.borrow_mut().found(
                name,
                location,
                Finding::SyntaxError,
                None,
                &unreadable.message,
            );
        } else if style != Style::Quiet {
            let _ = writeln!(
                io::stderr(),
                "pidcanon: {}",
                skipped_message(name, unreadable)
            );
        }
    };
    let stopped = feed(session, &inputs, &file, true, hints, &mut on_skip).err();
    let mut lister = lister.borrow_mut();
    let found = if lister.total() > 0 {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    };
    match &lister.write_error {
        // The reader has gone (`| head`): what was found so far gives the status.
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(found),
        Some(e) => {
            let _ = writeln!(io::stderr(), "pidcanon: {STDOUT}: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        None => {}
    }
    let stopped = stopped.map(|failure| match &failure.error {
        // Listed and counted as a finding, so that the listing and the summary show it.
        RewriteError::Syntax(error) if style != Style::Quiet => {
            lister.found(
                failure.file(),
                error.location(),
                Finding::SyntaxError,
                None,
                error.message(),
            );
            lister.stopped = true;
            let _ = writeln!(
                io::stderr(),
                "pidcanon: {}:{}: stopped at this syntax error (--lenient lists every one and \
                 goes on)",
                failure.file(),
                error.location()
            );
            StdinHint::new(hints).after_syntax_error(failure.file());
            ExitCode::from(EXIT_USAGE)
        }
        _ => failure.report(),
    });
    lister.files = inputs.len();
    if let Err(e) = lister.summarize() {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Ok(found);
        }
        let _ = writeln!(io::stderr(), "pidcanon: {STDOUT}: {e}");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    Ok(stopped.unwrap_or(found))
}

/// The session's output: nothing is kept, but once the listing could not be written, the
/// session is stopped (at its next write) instead of reading on.
struct Halt(Rc<RefCell<Lister>>);

impl Write for Halt {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.0.borrow().write_error {
            Some(e) => Err(io::Error::new(e.kind(), "the listing could not be written")),
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How findings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// One line per finding on stdout, the summary on stderr.
    Text,
    /// One JSON object per finding on stdout, the summary last.
    Json,
    /// Nothing: the exit status tells.
    Quiet,
}

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Finding {
    NonCanonical,
    Invalid,
    SyntaxError,
}

impl Finding {
    const ALL: [Self; 3] = [Self::NonCanonical, Self::Invalid, Self::SyntaxError];

    /// The detail in words: `canonical <…>` for a non-canonical IRI, else the message.
    fn describe(self, detail: &str) -> String {
        match self {
            Self::NonCanonical => format!("canonical <{detail}>"),
            Self::Invalid | Self::SyntaxError => detail.to_owned(),
        }
    }

    /// The detail's key in JSON.
    fn json_key(self) -> &'static str {
        match self {
            Self::NonCanonical => "canonical",
            Self::Invalid | Self::SyntaxError => "message",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::NonCanonical => "non-canonical",
            Self::Invalid => "invalid",
            Self::SyntaxError => "syntax-error",
        }
    }
}

/// One distinct IRI found, for the summary.
struct Found {
    finding: Finding,
    kind: Kind,
    /// The canonical form (non-canonical) or what is wrong.
    detail: String,
    count: u64,
}

/// The findings so far: written as they come, counted for the summary.
struct Lister {
    style: Style,
    counts: BTreeMap<Finding, u64>,
    /// Per distinct IRI; memory grows with the number of distinct IRIs found, not with the input.
    iris: BTreeMap<String, Found>,
    files: usize,
    /// The first failure to write the listing: the command then exits 2.
    write_error: Option<io::Error>,
    /// The findings listed last in input `recent_input`, most recent last: an IRI that several
    /// statements share where it is written once (a Turtle subject before `;`) is heard once
    /// per statement, at the same place, and listed once.
    recent: VecDeque<(Location, Finding, String)>,
    /// The input (its number) `recent` is of.
    recent_input: u64,
    /// Stopped by a syntax error (without `--lenient`).
    stopped: bool,
}

/// How many recent findings are remembered to list each place once.
const RECENT: usize = 64;

impl Lister {
    fn new(style: Style) -> Self {
        Self {
            style,
            counts: BTreeMap::new(),
            iris: BTreeMap::new(),
            files: 0,
            write_error: None,
            recent: VecDeque::with_capacity(RECENT),
            recent_input: 0,
            stopped: false,
        }
    }

    fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Counts a finding about `iri` (none for a syntax error) and lists it.
    fn found(
        &mut self,
        file: &str,
        location: Location,
        finding: Finding,
        iri: Option<(&str, Kind)>,
        detail: &str,
    ) {
        *self.counts.entry(finding).or_default() += 1;
        if let Some((iri, kind)) = iri {
            self.iris
                .entry(iri.to_owned())
                .or_insert_with(|| Found {
                    finding,
                    kind,
                    detail: detail.to_owned(),
                    count: 0,
                })
                .count += 1;
        }
        let result = match self.style {
            Style::Quiet => Ok(()),
            Style::Text => {
                let what = match iri {
                    Some((iri, kind)) => format!("{} {kind} <{iri}>", finding.name()),
                    None => finding.name().to_owned(),
                };
                let detail = finding.describe(detail);
                let at = match location.line() {
                    Some(_) => format!("{file}:{location}"),
                    None => file.to_owned(),
                };
                writeln!(io::stdout().lock(), "{at}: {what}: {detail}")
            }
            Style::Json => {
                let mut object = json!({
                    "file": file,
                    "line": location.line(),
                    "column": location.column(),
                    "finding": finding.name(),
                });
                if let Some((iri, kind)) = iri {
                    object["iri"] = iri.into();
                    object["kind"] = kind.to_string().into();
                }
                object[finding.json_key()] = detail.into();
                writeln!(io::stdout().lock(), "{object}")
            }
        };
        if let Err(e) = result {
            self.write_error.get_or_insert(e);
        }
    }

    /// Whether `iri` was just found at the same place (a column is needed to tell places apart),
    /// remembering it as the most recent finding.
    fn heard_before(
        &mut self,
        input: u64,
        location: Location,
        finding: Finding,
        iri: &str,
    ) -> bool {
        if location.column().is_none() {
            return false;
        }
        if self.recent_input != input {
            self.recent.clear();
            self.recent_input = input;
        }
        let seen = self
            .recent
            .iter()
            .position(|(l, f, i)| *l == location && *f == finding && i == iri);
        let entry = match seen {
            Some(at) => self.recent.remove(at),
            None => None,
        };
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent
            .push_back(entry.unwrap_or_else(|| (location, finding, iri.to_owned())));
        seen.is_some()
    }

    /// Writes the summary: per kind of finding, then per distinct IRI, most frequent first.
    fn summarize(&self) -> io::Result<()> {
        let mut by_iri: Vec<(&String, &Found)> = self.iris.iter().collect();
        by_iri.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        match self.style {
            Style::Quiet => Ok(()),
            Style::Json => {
                let by_kind: serde_json::Map<String, Value> = Finding::ALL
                    .iter()
                    .map(|f| (f.name().to_owned(), self.count(*f).into()))
                    .collect();
                let by_iri: Vec<Value> = by_iri
                    .iter()
                    .map(|(iri, found)| {
                        let mut object = json!({
                            "iri": iri,
                            "finding": found.finding.name(),
                            "kind": found.kind.to_string(),
                            "count": found.count,
                        });
                        object[found.finding.json_key()] = found.detail.as_str().into();
                        object
                    })
                    .collect();
                let summary = json!({"summary": {
                    "findings": self.total(),
                    "files": self.files,
                    "stopped": self.stopped,
                    "by_finding": by_kind,
                    "by_iri": by_iri,
                }});
                let mut stdout = io::stdout().lock();
                writeln!(stdout, "{summary}")?;
                stdout.flush()
            }
            Style::Text => {
                io::stdout().flush()?;
                let mut stderr = io::stderr().lock();
                let counts: Vec<String> = Finding::ALL
                    .iter()
                    .map(|f| format!("{} {}", self.count(*f), f.name()))
                    .collect();
                writeln!(
                    stderr,
                    "pidcanon: {} in {}: {}; {}",
                    count(self.total(), "finding", "findings"),
                    count(self.files as u64, "file", "files"),
                    counts.join(", "),
                    count(by_iri.len() as u64, "distinct IRI", "distinct IRIs"),
                )?;
                for (iri, found) in by_iri {
                    writeln!(
                        stderr,
                        "{:>8}  {} {} <{iri}>: {}",
                        found.count,
                        found.finding.name(),
                        found.kind,
                        found.finding.describe(&found.detail)
                    )?;
                }
                Ok(())
            }
        }
    }

    fn count(&self, finding: Finding) -> u64 {
        self.counts.get(&finding).copied().unwrap_or(0)
    }
}

/// The session's observer: hands each finding to the lister with the current file's name.
struct Listening<'a> {
    lister: Rc<RefCell<Lister>>,
    file: &'a Current,
    /// None when nothing is said (`-q`).
    stdin_hint: Option<StdinHint>,
}

impl Listening<'_> {
    fn found(&self, location: Location, finding: Finding, iri: Option<(&str, Kind)>, detail: &str) {
        let mut lister = self.lister.borrow_mut();
        if let Some((iri, _)) = iri {
            if lister.heard_before(self.file.input(), location, finding, iri) {
                return;
            }
        }
        lister.found(&self.file.name(), location, finding, iri, detail);
    }
}

impl Observer for Listening<'_> {
    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        self.found(
            location,
            Finding::NonCanonical,
            Some((original, kind)),
            canonical,
        );
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        let detail = error.to_string();
        self.found(
            location,
            Finding::Invalid,
            Some((iri, error.kind())),
            &detail,
        );
    }

    fn syntax_error(&mut self, error: &SyntaxError, _: Recovery) {
        self.found(
            error.location(),
            Finding::SyntaxError,
            None,
            error.message(),
        );
        if let Some(hint) = &self.stdin_hint {
            hint.after_syntax_error(&self.file.name());
        }
    }
}
