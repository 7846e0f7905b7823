//! `pidcanon rewrite`, and what it shares with `pidcanon check`: building the rewriter from the
//! arguments, feeding it the inputs, saying why a run failed.

use super::EXIT_USAGE;
use super::args::{GraphInput, RewriteArgs};
use super::files::{Input, format_of};
use super::foxml::{self, FoxmlRun, Unreadable};
use super::named::{STDIN, names_its_file, stdout_reader_gone};
use super::output::{Destination, Writer, refuse_shared_files};
use super::summary::count;
use pidcanon::collapse::Collector;
use pidcanon::foxml::FoxmlOptions;
use pidcanon::rewrite::parse_format;
use pidcanon::rewrite::{
    Location, Observer, RdfFormat, Recovery, Report, RewriteError, Rewriter, Session, SyntaxError,
};
use pidcanon::{IdError, Registry};
use std::cell::{Cell, RefCell};
use std::io::{self, Write};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

/// Exit status when invalid identifiers are found (`--strict`, `check`).
pub(super) const EXIT_INVALID: u8 = 1;

pub(crate) fn rewrite(args: &RewriteArgs) -> io::Result<ExitCode> {
    let output_format = match args.output_format.as_deref().map(parse_format).transpose() {
        Ok(format) => format.or_else(|| args.output.as_deref().and_then(format_of)),
        Err(e) => return usage_error(&e),
    };
    let mode = Mode {
        fail_on_invalid: args.strict,
        skip_syntax_errors: args.lenient,
    };
    let (rewriter, mut inputs, hints) = match build("rewrite", &args.input, mode, output_format) {
        Ok(built) => built,
        Err(e) => return usage_error(&e),
    };
    if let Some(warning) = contradiction(args) {
        writeln!(io::stderr(), "pidcanon: warning: {warning}")?;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = args.threads.unwrap_or(cores);
    // --collapse (its first pass runs here, reading as the rewrite reads), --rename, --literals.
    let policy = args.input.policy.policy().map_err(io::Error::other)?;
    let first_pass = || {
        let (reader, _, hints) = build("rewrite", &args.input, mode, Some(RdfFormat::NQuads))?;
        let (reader, hints) = threaded(reader, hints, threads);
        Ok(super::equiv::FirstPass {
            foxml: hints.reads_foxml(),
            read: Box::new(
                move |input: &Input, collector: &mut Collector<'_>, source| {
                    let input = std::slice::from_ref(input);
                    // What does not read is the rewrite's to report: it reads the same.
                    if let Some(run) = hints.foxml {
                        // The objects' statements, as the rewrite takes them.
                        let mut collected = Ok(());
                        let run = FoxmlRun { quiet: true, ..run };
                        let _ = foxml::feed(input, &run, &|_| {}, &mut |_, _| {}, &mut |quads| {
                            if collected.is_ok() {
                                collected = quads.into_iter().try_for_each(|(quad, _)| {
                                    collector.add_statement(quad, source)
                                });
                            }
                            Ok(())
                        });
                        return collected.and_then(|()| collector.end_input(source));
                    }
                    // Written as N-Quads by the rewrite's own reader, and collected.
                    let mut written = collector.written(source);
                    let session = reader.session(&mut written);
                    let _ = feed(
                        session,
                        input,
                        &Current::default(),
                        true,
                        hints,
                        &mut |_, _| {},
                    );
                    written.finish()
                },
            ),
        })
    };
    let configured = super::equiv::configure(
        &args.equivalence,
        &policy,
        rewriter,
        &mut inputs,
        args.quiet,
        first_pass,
    );
    let (rewriter, _spooled) = match configured {
        Ok(configured) => configured,
        Err(e) => return usage_error(&e),
    };
    let rewriter = if args.dedup {
        rewriter.drop_duplicates()
    } else {
        rewriter
    };
    let rewriter = if args.fingerprints {
        if !matches!(
            rewriter.output_format(),
            RdfFormat::NTriples | RdfFormat::NQuads
        ) {
            return usage_error(
                &"--fingerprints writes N-Triples or N-Quads lines (--to nt or nq)",
            );
        }
        rewriter.fingerprint_statements()
    } else {
        rewriter
    };
    let rewriter = if args.keep_signed {
        rewriter.keep_signed()
    } else {
        rewriter
    };
    let (rewriter, mut hints) = threaded(rewriter, hints, threads);
    if let Some(run) = &mut hints.foxml {
        run.named_graphs &= !args.default_graph;
    }
    let named: Vec<(&str, &std::path::Path)> = [
        ("-o", &args.output),
        ("--links", &args.links),
        ("--map", &args.map),
        ("--reject", &args.reject),
    ]
    .into_iter()
    .filter_map(|(flag, path)| Some((flag, path.as_deref()?)))
    .collect();
    if let Err(e) = refuse_shared_files(&named) {
        return usage_error(&e);
    }
    let outputs = Outputs::open(args)?;
    let mut writers = outputs.writers()?;
    let diagnostics = Rc::new(Diagnostics {
        file: Current::default(),
        quiet: args.quiet,
        stdin_hint: StdinHint::new(hints),
    });
    let started = Instant::now();
    let session = writers
        .session(&rewriter)
        .numbering_inputs_from(args.first_input.unwrap_or(1))
        .with_observer(Shared(Rc::clone(&diagnostics)));
    let mut skipped = Skipped::default();
    let mut on_skip = |name: &str, unreadable: &Unreadable| {
        skipped.count(unreadable);
        if !args.quiet {
            let _ = writeln!(
                io::stderr(),
                "pidcanon: {}",
                skipped_message(name, unreadable)
            );
        }
    };
    let fed = feed(
        session,
        &inputs,
        &diagnostics.file,
        args.quiet,
        hints,
        &mut on_skip,
    );
    let mut report = match fed {
        Ok(report) => report,
        Err(failure) => return Ok(failure.report()),
    };
    report.syntax_errors += skipped.syntax;
    outputs.commit(writers)?;
    super::equiv::print_literal_counts(&report, args.quiet);
    // `--report json` is asked for explicitly: `-q` silences the rest, not it.
    if !args.quiet || args.report.is_some() {
        print_summary(
            &report,
            skipped.files,
            started.elapsed().as_secs_f64(),
            args.report.is_some(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// FOXML files skipped under `--lenient`.
#[derive(Debug, Default)]
struct Skipped {
    files: u64,
    /// Of which not valid FOXML (the others could not be read at all).
    syntax: u64,
}

impl Skipped {
    fn count(&mut self, unreadable: &Unreadable) {
        self.files += 1;
        self.syntax += u64::from(unreadable.syntax);
    }
}

/// What is said of a FOXML file (or a directory, `name` empty) skipped under `--lenient`.
pub(super) fn skipped_message(name: &str, unreadable: &Unreadable) -> String {
    let message = &unreadable.message;
    match (name, unreadable.location) {
        ("", _) => format!("skipped: {message}"),
        (name, Some(at)) => format!("{name}:{at}: skipped: {message}"),
        (name, None) => format!("{name}: skipped: {message}"),
    }
}

/// `--to` naming another format than `-o`'s extension (`--to nt -o x.ttl`), in words.
fn contradiction(args: &RewriteArgs) -> Option<String> {
    let to = parse_format(args.output_format.as_deref()?).ok()?;
    let path = args.output.as_deref()?;
    let named = format_of(path)?;
    (named != to).then(|| {
        format!(
            "writing {} (--to) into {}, whose extension says {}",
            to.name(),
            path.display(),
            named.name()
        )
    })
}

/// `rewrite`'s outputs: the data, and the links, map and rejects asked for.
struct Outputs {
    data: Destination,
    sidecars: [Option<Destination>; 3],
}

/// Writers into [`Outputs`], in the same order.
struct Writers {
    data: Writer,
    sidecars: [Option<Writer>; 3],
}

impl Outputs {
    fn open(args: &RewriteArgs) -> io::Result<Self> {
        let data = Destination::open(args.output.as_deref())?;
        let [links, map, rejects] = [&args.links, &args.map, &args.reject].map(|path| {
            path.as_deref()
                .map(|p| Destination::open(Some(p)))
                .transpose()
        });
        Ok(Self {
            data,
            sidecars: [links?, map?, rejects?],
        })
    }

    fn writers(&self) -> io::Result<Writers> {
        let [links, map, rejects] = self
            .sidecars
            .each_ref()
            .map(|d| d.as_ref().map(Destination::writer).transpose());
        Ok(Writers {
            data: self.data.writer()?,
            sidecars: [links?, map?, rejects?],
        })
    }

    /// Finishes every output (renames the replaced files into place).
    fn commit(self, writers: Writers) -> io::Result<()> {
        self.data.commit(writers.data)?;
        for (destination, writer) in self.sidecars.into_iter().zip(writers.sidecars) {
            if let (Some(destination), Some(writer)) = (destination, writer) {
                destination.commit(writer)?;
            }
        }
        Ok(())
    }
}

impl Writers {
    /// A session of `rewriter` writing into these.
    fn session<'s>(&'s mut self, rewriter: &'s Rewriter) -> Session<'s, &'s mut Writer> {
        let mut session = rewriter.session(&mut self.data);
        let [links, map, rejects] = self.sidecars.each_mut();
        if let Some(links) = links {
            session = session.with_links(links);
        }
        if let Some(map) = map {
            session = session.with_map(map);
        }
        if let Some(rejects) = rejects {
            session = session.with_rejects(rejects);
        }
        session
    }
}

/// The rewriter and the inputs the arguments describe.
pub(super) fn build(
    command: &str,
    args: &GraphInput,
    mode: Mode,
    output_format: Option<RdfFormat>,
) -> Result<(Rewriter, Vec<Input>, Hints), String> {
    let policy = args.policy.policy().map_err(|e| e.to_string())?;
    let registry = Registry::from_policy(&policy).map_err(|e| e.to_string())?;
    let files: Vec<&str> = if args.files.is_empty() {
        vec!["-"]
    } else {
        args.files.iter().map(String::as_str).collect()
    };
    let inputs: Vec<Input> = files.into_iter().map(Input::new).collect();
    let foxml = match args.input_format.as_deref() {
        Some(name) => name.eq_ignore_ascii_case("foxml"),
        None => foxml::inputs_are_foxml(&inputs, command)?,
    };
    let input_format = match &args.input_format {
        _ if foxml => RdfFormat::NQuads,
        Some(name) => parse_format(name).map_err(|e| e.to_string())?,
        None => common_format(&inputs, command)?,
    };
    let output_format = output_format.unwrap_or(input_format);
    let mut rewriter = Rewriter::new(registry)
        .with_input_format(input_format)
        .with_output_format(output_format);
    // Without --base, each file's relative IRIs resolve against its own file:// URL (see feed).
    let hints = Hints {
        no_base: args.base.is_none() && inputs.iter().any(|input| input.base_iri().is_none()),
        own_base: args.base.is_none(),
        stdin_guessed: args.input_format.is_none() && inputs.iter().any(|i| i.path.is_none()),
        foxml: foxml.then(|| FoxmlRun {
            options: FoxmlOptions {
                properties: args.foxml_properties,
            },
            named_graphs: matches!(output_format, RdfFormat::NQuads | RdfFormat::TriG),
            lenient: mode.skip_syntax_errors,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            quiet: false,
        }),
    };
    if let Some(base) = &args.base {
        rewriter = rewriter.with_base_iri(base).map_err(|e| e.to_string())?;
    }
    if mode.fail_on_invalid {
        rewriter = rewriter.fail_on_invalid();
    }
    if mode.skip_syntax_errors {
        rewriter = rewriter.skip_syntax_errors();
    }
    if args.strict_rdfxml {
        rewriter = rewriter.strict_rdfxml();
    }
    Ok((rewriter, inputs, hints))
}

/// `rewriter` and `hints` for `threads` threads: FOXML objects are read on the threads, each
/// one's few statements rewritten on this one.
fn threaded(rewriter: Rewriter, mut hints: Hints, threads: usize) -> (Rewriter, Hints) {
    let rewriter = rewriter.with_threads(if hints.foxml.is_some() { 1 } else { threads });
    if let Some(run) = &mut hints.foxml {
        run.threads = threads;
    }
    (rewriter, hints)
}

/// What to do with bad input.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mode {
    pub(super) fail_on_invalid: bool,
    pub(super) skip_syntax_errors: bool,
}

/// What the command knows that explains a failure: whether relative IRIs had a base, whether
/// stdin's format was guessed; and whether the inputs are FOXML, and how to read them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hints {
    no_base: bool,
    /// Stdin is read as N-Quads because no `-i` said otherwise.
    pub(super) stdin_guessed: bool,
    /// Each file is its own base.
    own_base: bool,
    foxml: Option<FoxmlRun>,
}

impl Hints {
    /// The inputs are FOXML (files or object stores).
    pub(super) fn reads_foxml(&self) -> bool {
        self.foxml.is_some()
    }
}

/// The one format of all inputs, from their extensions (stdin: N-Quads, which includes
/// N-Triples); N-Triples and N-Quads inputs together are read as N-Quads. Inputs in other
/// formats are refused, naming two of them and `command`.
fn common_format(inputs: &[Input], command: &str) -> Result<RdfFormat, String> {
    let mut common: Option<(RdfFormat, &Input)> = None;
    for input in inputs {
        let format = match &input.path {
            None => RdfFormat::NQuads,
            Some(path) => format_of(path).ok_or_else(|| {
                format!(
                    "{}: cannot tell the RDF format from the name; use -i",
                    input.name
                )
            })?,
        };
        common = Some(match common {
            None => (format, input),
            Some((seen, first)) => match (seen, format) {
                _ if seen == format => (seen, first),
                (
                    RdfFormat::NTriples | RdfFormat::NQuads,
                    RdfFormat::NTriples | RdfFormat::NQuads,
                ) => (RdfFormat::NQuads, first),
                _ => {
                    return Err(format!(
                        "{} is {} and {} is {}: {command} them separately, or give one format \
                         for all with -i",
                        first.name,
                        described(first, seen),
                        input.name,
                        described(input, format),
                    ));
                }
            },
        });
    }
    common
        .map(|(format, _)| format)
        .ok_or_else(|| "no input".into())
}

/// The format an input is read in, in words: the one its name says (stdin: N-Quads).
fn described(input: &Input, format: RdfFormat) -> &'static str {
    match &input.path {
        None => "read as N-Quads",
        Some(path) => format_of(path).map_or(format.name(), RdfFormat::name),
    }
}

/// Rewrites every input into the session, telling `current` which one it is, and `on_skip`
/// of each FOXML file skipped under `--lenient`; on failure, says which input and why.
pub(super) fn feed<W: Write>(
    mut session: Session<'_, W>,
    inputs: &[Input],
    current: &Current,
    quiet: bool,
    hints: Hints,
    on_skip: &mut dyn FnMut(&str, &Unreadable),
) -> Result<Report, Box<Failure>> {
    let failure = |file: &str, error| {
        Box::new(Failure {
            file: file.to_owned(),
            error,
            hints,
        })
    };
    if let Some(run) = hints.foxml {
        let run = FoxmlRun { quiet, ..run };
        let on_object = |name: &str| current.start(name);
        let bytes = foxml::feed(inputs, &run, &on_object, on_skip, &mut |quads| {
            session.rewrite_located_quads(quads)
        })
        .map_err(|e| failure(&current.name(), e))?;
        let mut report = session.finish().map_err(|e| failure(&current.name(), e))?;
        report.bytes_read += bytes;
        return Ok(report);
    }
    for input in inputs {
        current.start(&input.name);
        let result = input
            .open(quiet)
            .map_err(RewriteError::Io)
            .and_then(|(reader, bar)| {
                let base = input.base_iri().filter(|_| hints.own_base);
                let result = match base {
                    Some(base) => session.rewrite_with_base_iri(reader, &base),
                    None => session.rewrite(reader),
                };
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
                result
            });
        result.map_err(|e| failure(&input.name, e))?;
    }
    let last = inputs.last().map_or(STDIN, |input| input.name.as_str());
    session.finish().map_err(|e| failure(last, e))
}

/// The input being read, for the diagnostics: its name, and how many inputs were started (the
/// same file given twice is two inputs).
#[derive(Debug, Default)]
pub(super) struct Current {
    name: RefCell<String>,
    inputs: Cell<u64>,
}

impl Current {
    fn start(&self, name: &str) {
        name.clone_into(&mut self.name.borrow_mut());
        self.inputs.set(self.inputs.get() + 1);
    }

    pub(super) fn name(&self) -> std::cell::Ref<'_, String> {
        self.name.borrow()
    }

    /// The number of the input being read, from 1.
    pub(super) fn input(&self) -> u64 {
        self.inputs.get()
    }
}

/// What is said after a syntax error in stdin read as N-Quads for want of `-i`.
const STDIN_HINT: &str = "<stdin> is read as N-Quads (or N-Triples) when -i is not given; for \
                          Turtle, TriG or RDF/XML give -i ttl, -i trig or -i rdfxml";

/// Says [`STDIN_HINT`] once, after the first syntax error in stdin read as N-Quads for want of
/// `-i`, when the run goes on after syntax errors.
#[derive(Debug)]
pub(super) struct StdinHint(Cell<bool>);

impl StdinHint {
    pub(super) fn new(hints: Hints) -> Self {
        Self(Cell::new(hints.stdin_guessed))
    }

    /// After a syntax error in `file`, said on stderr.
    pub(super) fn after_syntax_error(&self, file: &str) {
        if file == STDIN && self.0.replace(false) {
            let _ = writeln!(io::stderr(), "pidcanon: hint: {STDIN_HINT}");
        }
    }
}

/// Why [`feed`] stopped: in which input, and what explains it.
pub(super) struct Failure {
    file: String,
    pub(super) error: RewriteError,
    hints: Hints,
}

impl Failure {
    /// Whether stdout's reader has gone (`| head`): the run ends quietly.
    pub(super) fn stdout_reader_gone(&self) -> bool {
        matches!(&self.error, RewriteError::Io(e) if stdout_reader_gone(e))
    }

    /// The input it stopped in.
    pub(super) fn file(&self) -> &str {
        &self.file
    }

    /// Prints the error, naming the file, with a hint where one helps, and gives its exit
    /// status; stdout's reader gone is a quiet stop.
    pub(super) fn report(&self) -> ExitCode {
        if self.stdout_reader_gone() {
            return ExitCode::SUCCESS;
        }
        let (file, error) = (&self.file, &self.error);
        let code = match error {
            RewriteError::InvalidIdentifier { .. } => EXIT_INVALID,
            _ => EXIT_USAGE,
        };
        let message = match error {
            RewriteError::Io(e) if names_its_file(e) => e.to_string(),
            RewriteError::Io(e) => format!("{file}: {e}"),
            // Both begin with their location in the file.
            RewriteError::InvalidIdentifier { location, .. } if location.line().is_some() => {
                format!("{file}:{error}")
            }
            RewriteError::Syntax(e) => format!("{file}:{e}"),
            e => format!("{file}: {e}"),
        };
        let hint = match error {
            RewriteError::Syntax(e) if self.hints.no_base && e.message().contains("No scheme") => {
                Some("a relative IRI and no base to resolve it against: give one with --base IRI")
            }
            RewriteError::Syntax(_) if self.hints.stdin_guessed && file == STDIN => {
                Some(STDIN_HINT)
            }
            RewriteError::NoNamedGraphs { .. } => {
                Some("--to nq or --to trig writes the named graphs")
            }
            _ => None,
        };
        let mut stderr = io::stderr().lock();
        let _ = writeln!(stderr, "pidcanon: {message}");
        if let Some(hint) = hint {
            let _ = writeln!(stderr, "pidcanon: hint: {hint}");
        }
        ExitCode::from(code)
    }
}

pub(super) fn usage_error(e: &dyn std::fmt::Display) -> io::Result<ExitCode> {
    writeln!(io::stderr(), "pidcanon: {e}")?;
    Ok(ExitCode::from(EXIT_USAGE))
}

/// Prints `rewrite`'s diagnostics on stderr as the rewrite goes, naming the current input.
struct Diagnostics {
    file: Current,
    quiet: bool,
    stdin_hint: StdinHint,
}

impl Diagnostics {
    fn say(&self, location: Location, message: std::fmt::Arguments<'_>) {
        if !self.quiet {
            let file = self.file.name();
            let _ = writeln!(
                io::stderr().lock(),
                "pidcanon: {file}:{location}: {message}"
            );
        }
    }
}

/// The session's handle on the diagnostics, which the command keeps too (for the file name).
struct Shared(Rc<Diagnostics>);

impl Observer for Shared {
    fn hears_rewrites(&self) -> bool {
        false
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        self.0.say(
            location,
            format_args!("invalid identifier <{iri}> left unchanged: {error}"),
        );
    }

    fn warning(&mut self, location: Location, message: &str) {
        self.0.say(location, format_args!("warning: {message}"));
    }

    fn syntax_error(&mut self, error: &SyntaxError, recovery: Recovery) {
        self.0.say(
            error.location(),
            format_args!("syntax error, {recovery}: {}", error.message()),
        );
        if !self.0.quiet {
            self.0.stdin_hint.after_syntax_error(&self.0.file.name());
        }
    }
}

fn print_summary(report: &Report, skipped: u64, seconds: f64, json: bool) -> io::Result<()> {
    let seconds = seconds.max(1e-9);
    let megabytes_per_second = report.bytes_read as f64 / 1e6 / seconds;
    let statements_per_second = report.statements_read as f64 / seconds;
    let mut stderr = io::stderr().lock();
    if json {
        let rewritten = super::summary::kinds_json(&report.rewritten);
        let value = serde_json::json!({
            "statements_read": report.statements_read,
            "statements_written": report.statements_written,
            "rewritten": rewritten,
            "rewritten_total": report.rewritten_total(),
            "invalid_identifiers": report.invalid_identifiers,
            "duplicates_dropped": report.duplicates_dropped,
            "syntax_errors": report.syntax_errors,
            "files_skipped": skipped,
            "lines_passed_through": report.lines_passed_through,
            "signed_statements_kept": report.signed_statements_kept,
            "reflexive_dropped": report.reflexive_dropped,
            "equivalence_statements_linked": report.equivalence_statements_linked,
            "equivalence_links_written": report.equivalence_links_written,
            "bytes_read": report.bytes_read,
            "seconds": seconds,
            "megabytes_per_second": megabytes_per_second,
            "statements_per_second": statements_per_second,
        });
        return writeln!(stderr, "{value}");
    }
    writeln!(
        stderr,
        "pidcanon: {} read, {} written; {} rewritten{}; {}; {} dropped; {}{}{}; {:.1} MB/s, \
         {:.0} statements/s",
        count(report.statements_read, "statement", "statements"),
        report.statements_written,
        count(report.rewritten_total(), "IRI", "IRIs"),
        super::summary::kinds_text(&report.rewritten),
        count(
            report.invalid_identifiers,
            "invalid identifier",
            "invalid identifiers"
        ),
        count(report.duplicates_dropped, "duplicate", "duplicates"),
        count(report.syntax_errors, "syntax error", "syntax errors"),
        match report.lines_passed_through {
            0 => String::new(),
            n => format!(
                " ({} passed through unchanged)",
                count(n, "unparsable line", "unparsable lines")
            ),
        },
        match skipped {
            0 => String::new(),
            n => format!(" ({} skipped)", count(n, "FOXML file", "FOXML files")),
        },
        megabytes_per_second,
        statements_per_second,
    )
}
