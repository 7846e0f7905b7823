//! `pidcanon rewrite` and `pidcanon check`: the graph commands.

use super::EXIT_USAGE;
use super::args::{CheckArgs, GraphInput, RewriteArgs};
use super::files::{AtomicFile, Input, Output, format_of, parse_format};
use super::foxml::{self, FoxmlRun};
use pidcanon::foxml::FoxmlOptions;
use pidcanon::rewrite::{
    Location, Observer, RdfFormat, Recovery, Report, RewriteError, Rewriter, Session, SyntaxError,
};
use pidcanon::{IdError, Kind, Registry};
use std::cell::{Cell, RefCell};
use std::io::{self, Write};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

/// Exit status when invalid identifiers are found (`--strict`, `check`).
const EXIT_INVALID: u8 = 1;

pub(crate) fn rewrite(args: &RewriteArgs) -> io::Result<ExitCode> {
    let output_format = match args.output_format.as_deref().map(parse_format).transpose() {
        Ok(format) => format.or_else(|| args.output.as_deref().and_then(format_of)),
        Err(e) => return usage_error(&e),
    };
    let (rewriter, inputs, foxml) = match build(&args.input, output_format) {
        Ok(built) => built,
        Err(e) => return usage_error(&e),
    };
    let rewriter = if args.dedup {
        rewriter.drop_duplicates()
    } else {
        rewriter
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = args.threads.unwrap_or(cores);
    let named_graphs = matches!(
        rewriter.output_format(),
        RdfFormat::NQuads | RdfFormat::TriG
    );
    let foxml = foxml.then(|| foxml_run(&args.input, threads, named_graphs && !args.default_graph));
    // FOXML objects are read on the threads, each one's few statements rewritten on this one.
    let rewriter = rewriter.with_threads(if foxml.is_some() { 1 } else { threads });
    let output = Output::new(args.output.as_deref())?;
    let sidecars = [&args.links, &args.map, &args.reject]
        .map(|p| p.as_deref().map(AtomicFile::create).transpose());
    let [links, map, reject] = match sidecars {
        [Ok(links), Ok(map), Ok(reject)] => [links, map, reject],
        [Err(e), ..] | [_, Err(e), _] | [.., Err(e)] => return Err(e),
    };
    let diagnostics = Rc::new(Diagnostics::new(args.input.quiet, false));
    let started = Instant::now();
    let mut session = rewriter
        .session(output.writer()?)
        .with_observer(Shared(Rc::clone(&diagnostics)));
    if let Some(file) = &links {
        session = session.with_links(file.writer()?);
    }
    if let Some(file) = &map {
        session = session.with_map(file.writer()?);
    }
    if let Some(file) = &reject {
        session = session.with_rejects(file.writer()?);
    }
    let report = match feed(
        session,
        &inputs,
        foxml.as_ref(),
        &diagnostics,
        args.input.quiet,
    ) {
        Ok(report) => report,
        Err(code) => return Ok(code),
    };
    output.commit()?;
    for file in [links, map, reject].into_iter().flatten() {
        file.commit()?;
    }
    // `--report json` is asked for explicitly: `-q` silences the rest, not it.
    if !args.input.quiet || args.report.is_some() {
        print_summary(
            &report,
            started.elapsed().as_secs_f64(),
            args.report.is_some(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn check(args: &CheckArgs) -> io::Result<ExitCode> {
    let (rewriter, inputs, foxml) = match build(&args.input, Some(RdfFormat::NQuads)) {
        Ok(built) => built,
        Err(e) => return usage_error(&e),
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let foxml = foxml.then(|| foxml_run(&args.input, cores, true));
    let diagnostics = Rc::new(Diagnostics::new(args.input.quiet, true));
    let session = rewriter
        .session(io::sink())
        .with_observer(Shared(Rc::clone(&diagnostics)));
    if let Err(code) = feed(session, &inputs, foxml.as_ref(), &diagnostics, true) {
        return Ok(code);
    }
    io::stdout().flush()?;
    Ok(if diagnostics.found.get() > 0 {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// How FOXML input is read, from the arguments.
fn foxml_run(args: &GraphInput, threads: usize, named_graphs: bool) -> FoxmlRun {
    FoxmlRun {
        options: FoxmlOptions {
            properties: args.foxml_properties,
        },
        named_graphs,
        lenient: args.lenient,
        threads,
        quiet: args.quiet,
    }
}

/// The rewriter and the inputs the arguments describe, and whether they are FOXML (read into
/// N-Quads for the rewriter).
fn build(
    args: &GraphInput,
    output_format: Option<RdfFormat>,
) -> Result<(Rewriter, Vec<Input>, bool), String> {
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
        None => foxml::inputs_are_foxml(&inputs)?,
    };
    let input_format = match &args.input_format {
        _ if foxml => RdfFormat::NQuads,
        Some(name) => parse_format(name)?,
        None => common_format(&inputs)?,
    };
    let mut rewriter = Rewriter::new(registry)
        .with_input_format(input_format)
        .with_output_format(output_format.unwrap_or(input_format));
    if let Some(base) = &args.base {
        rewriter = rewriter
            .with_base_iri(base.as_str())
            .map_err(|e| e.to_string())?;
    }
    if args.strict {
        rewriter = rewriter.fail_on_invalid();
    }
    if args.lenient {
        rewriter = rewriter.skip_syntax_errors();
    }
    if args.strict_rdfxml {
        rewriter = rewriter.strict_rdfxml();
    }
    Ok((rewriter, inputs, foxml))
}

/// The one format of all inputs, from their extensions (stdin: N-Quads, which includes N-Triples).
fn common_format(inputs: &[Input]) -> Result<RdfFormat, String> {
    let mut common = None;
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
        match common {
            Some(f) if f != format => {
                return Err("the inputs are in different formats; rewrite them separately".into());
            }
            _ => common = Some(format),
        }
    }
    common.ok_or_else(|| "no input".into())
}

/// Rewrites every input into the session; on failure prints why and gives the exit status.
fn feed<W: Write>(
    mut session: Session<'_, W>,
    inputs: &[Input],
    foxml: Option<&FoxmlRun>,
    diagnostics: &Diagnostics,
    quiet: bool,
) -> Result<Report, ExitCode> {
    if let Some(run) = foxml {
        let on_object = |name: &str| drop(diagnostics.file.replace(name.to_owned()));
        foxml::feed(&mut session, inputs, run, &on_object).map_err(|e| failure("<foxml>", e))?;
        return session.finish().map_err(|e| failure("<output>", e));
    }
    for input in inputs {
        diagnostics.file.replace(input.name.clone());
        let result = input
            .open(quiet)
            .map_err(RewriteError::Io)
            .and_then(|(reader, bar)| {
                let result = session.rewrite(reader);
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
                result
            });
        result.map_err(|e| failure(&input.name, e))?;
    }
    session.finish().map_err(|e| failure("<output>", e))
}

/// Prints a fatal error and gives its exit status; a closed stdout is a quiet stop.
fn failure(file: &str, error: RewriteError) -> ExitCode {
    let code = match &error {
        RewriteError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        RewriteError::InvalidIdentifier { .. } => EXIT_INVALID,
        _ => EXIT_USAGE,
    };
    let _ = match &error {
        RewriteError::Io(e) => writeln!(io::stderr(), "pidcanon: {e}"),
        e => writeln!(io::stderr(), "pidcanon: {file}:{e}"),
    };
    ExitCode::from(code)
}

fn usage_error(e: &dyn std::fmt::Display) -> io::Result<ExitCode> {
    writeln!(io::stderr(), "pidcanon: {e}")?;
    Ok(ExitCode::from(EXIT_USAGE))
}

/// Prints diagnostics as the rewrite goes: on stderr for `rewrite`; for `check`, a listing of
/// every non-canonical and invalid identifier on stdout.
struct Diagnostics {
    file: RefCell<String>,
    quiet: bool,
    listing: bool,
    found: Cell<u64>,
}

impl Diagnostics {
    fn new(quiet: bool, listing: bool) -> Self {
        Self {
            file: RefCell::new(String::new()),
            quiet,
            listing,
            found: Cell::new(0),
        }
    }

    fn say(&self, to_stdout: bool, message: std::fmt::Arguments<'_>) {
        let file = self.file.borrow();
        let _ = if to_stdout {
            writeln!(io::stdout().lock(), "{file}:{message}")
        } else {
            writeln!(io::stderr().lock(), "pidcanon: {file}:{message}")
        };
    }
}

/// The session's handle on the diagnostics, which the command keeps too (for the file name).
struct Shared(Rc<Diagnostics>);

impl Observer for Shared {
    fn hears_rewrites(&self) -> bool {
        self.0.listing
    }

    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        if self.0.listing {
            self.0.found.set(self.0.found.get() + 1);
            self.0.say(
                true,
                format_args!("{location}: <{original}> is not canonical: <{canonical}> ({kind})"),
            );
        }
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        self.0.found.set(self.0.found.get() + 1);
        if self.0.listing {
            self.0.say(
                true,
                format_args!("{location}: <{iri}> is invalid: {error}"),
            );
        } else if !self.0.quiet {
            self.0.say(
                false,
                format_args!("{location}: invalid identifier <{iri}> left unchanged: {error}"),
            );
        }
    }

    fn warning(&mut self, location: Location, message: &str) {
        if !self.0.quiet {
            self.0
                .say(false, format_args!("{location}: warning: {message}"));
        }
    }

    fn syntax_error(&mut self, error: &SyntaxError, recovery: Recovery) {
        if !self.0.quiet || self.0.listing {
            self.0.say(
                false,
                format_args!(
                    "{}: syntax error, {recovery}: {}",
                    error.location(),
                    error.message()
                ),
            );
        }
    }
}

fn print_summary(report: &Report, seconds: f64, json: bool) -> io::Result<()> {
    let seconds = seconds.max(1e-9);
    let megabytes_per_second = report.bytes_read as f64 / 1e6 / seconds;
    let statements_per_second = report.statements_read as f64 / seconds;
    let mut stderr = io::stderr().lock();
    if json {
        let rewritten: serde_json::Map<String, serde_json::Value> = report
            .rewritten
            .iter()
            .map(|(kind, n)| (kind.to_string(), (*n).into()))
            .collect();
        let value = serde_json::json!({
            "statements_read": report.statements_read,
            "statements_written": report.statements_written,
            "rewritten": rewritten,
            "rewritten_total": report.rewritten_total(),
            "invalid_identifiers": report.invalid_identifiers,
            "duplicates_dropped": report.duplicates_dropped,
            "syntax_errors": report.syntax_errors,
            "lines_passed_through": report.lines_passed_through,
            "bytes_read": report.bytes_read,
            "seconds": seconds,
            "megabytes_per_second": megabytes_per_second,
            "statements_per_second": statements_per_second,
        });
        return writeln!(stderr, "{value}");
    }
    let kinds: Vec<String> = report
        .rewritten
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    writeln!(
        stderr,
        "pidcanon: {} statements read, {} written; {} IRIs rewritten{}; {} invalid identifiers; \
         {} duplicates dropped; {} syntax errors{}; {:.1} MB/s, {:.0} statements/s",
        report.statements_read,
        report.statements_written,
        report.rewritten_total(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        report.invalid_identifiers,
        report.duplicates_dropped,
        report.syntax_errors,
        match report.lines_passed_through {
            0 => String::new(),
            n => format!(" ({n} unparsable lines passed through unchanged)"),
        },
        megabytes_per_second,
        statements_per_second,
    )
}
