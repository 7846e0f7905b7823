//! `pidcanon store`: normalize a live triple store over the SPARQL 1.1 protocol.

use super::EXIT_USAGE;
use super::args::PolicyArgs;
use super::summary::count;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use pidcanon::equivalence::Equivalences;
use pidcanon::store::{
    AuthScheme, Client, ClientOptions, Credentials, Graphs, Normalizer, Observer, StoreError,
    StoreReport,
};
use pidcanon::{Canonical, Registry};
use std::fmt::Display;
use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, LineWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Exit status when the store failed (unreachable, refused a request): rerun to finish.
const EXIT_STORE: u8 = 3;

#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    /// The SPARQL query endpoint.
    #[arg(long, value_name = "URL")]
    endpoint: String,
    /// The SPARQL update endpoint [default: --endpoint].
    #[arg(long, value_name = "URL")]
    update_endpoint: Option<String>,
    /// Normalize this named graph (repeatable) instead of the default graph; for stores whose
    /// default graph is the union of the named graphs (Virtuoso).
    #[arg(long, value_name = "IRI", conflicts_with = "all_graphs")]
    graph: Vec<String>,
    /// Normalize the default graph, every named graph and the names of the named graphs (on
    /// Virtuoso: every named graph and their names; the default graph is their union).
    #[arg(long)]
    all_graphs: bool,
    /// Print the SPARQL updates and the counts; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Old IRIs per update request (each request also stays under 64 KiB of IRIs) [default:
    /// 1000; 20 on Virtuoso]. Halved after an update slower than 5 s; an update that times out
    /// is sent again as two halves.
    #[arg(long, value_name = "N")]
    batch: Option<usize>,
    /// Find the candidate IRIs in pages of N (each page costs a scan of the store and a sort),
    /// or with --snapshot read the statements in pages of N, for stores that cut responses
    /// short (Virtuoso: 10000) [default: one query per pass, its results read as they arrive].
    #[arg(long, value_name = "N")]
    page: Option<usize>,
    /// Read every statement in scope once and replace each one that changes (if the store
    /// still holds it), --batch statements per update [default: 2000; 500 on Virtuoso], instead
    /// of scanning for candidate IRIs: faster on large stores (docs/store.md, "The snapshot").
    #[arg(long)]
    snapshot: bool,
    /// Append `original<TAB>canonical<TAB>kind` per rewritten IRI to FILE (before its update is
    /// sent: a rerun after an interruption may repeat lines; with --snapshot once it is
    /// applied: an interruption may leave one out).
    #[arg(long, value_name = "FILE")]
    map: Option<PathBuf>,
    /// Record `<original> owl:sameAs <canonical>` per rewritten IRI in this named graph (which
    /// is itself left as it is).
    #[arg(long, value_name = "GRAPH-IRI")]
    links: Option<String>,
    /// How to send the credentials.
    #[arg(long, value_enum, default_value = "basic")]
    auth: AuthArg,
    /// Read the credentials (`user:password`, or the bearer token) from this environment
    /// variable.
    #[arg(long, value_name = "VAR", conflicts_with = "credentials_file")]
    credentials_env: Option<String>,
    /// Read the credentials (`user:password`, or the bearer token) from this file.
    #[arg(long, value_name = "FILE")]
    credentials_file: Option<PathBuf>,
    /// Seconds a request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    timeout: u64,
    /// Retries of a request that failed transiently (connection, timeout, HTTP 5xx).
    #[arg(long, value_name = "N", default_value_t = 5)]
    retries: u32,
    /// Milliseconds before the first retry; doubled at each retry, up to 30 s.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    backoff: u64,
    /// The User-Agent header [default: pidcanon/VERSION].
    #[arg(long, value_name = "TEXT")]
    user_agent: Option<String>,
    /// No diagnostics, no summary, no progress bar or progress lines.
    #[arg(short, long)]
    quiet: bool,
    /// Milliseconds between two progress lines when stderr is not a terminal (for the tests).
    #[arg(long, value_name = "MS", default_value_t = 10_000, hide = true)]
    progress_interval: u64,
    /// Print the summary as JSON (on stderr; also with -q).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    report: Option<String>,
    /// `--rename`, `--literals`, `--doi-literal-case`, as `pidcanon rewrite` takes them.
    #[command(flatten)]
    identifiers: super::equiv::IdentifierArgs,
    /// `--collapse`, `--equivalence-predicate`, `--equivalences`, `--max-class`,
    /// `--allow-large-classes`, `--drop-reflexive`, as `pidcanon rewrite` takes them.
    #[command(flatten)]
    collapse: super::equiv::CollapseArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AuthArg {
    Basic,
    Digest,
    Bearer,
}

pub(crate) fn run(args: &StoreArgs) -> io::Result<ExitCode> {
    let nothing_done = StoreReport::default();
    let (client, normalizer) = match build(args) {
        Ok(built) => built,
        Err(e) => return fail(args, &e, EXIT_USAGE, &nothing_done),
    };
    if args.dry_run {
        if let Err(e) = super::output::writable_stdout() {
            return fail(args, &e.to_string(), EXIT_USAGE, &nothing_done);
        }
    }
    let map = match &args.map {
        Some(path) => match OpenOptions::new().create(true).append(true).open(path) {
            Ok(file) => Some(LineWriter::new(file)),
            Err(e) => {
                let message = format!("{}: {e}", path.display());
                return fail(args, &message, EXIT_USAGE, &nothing_done);
            }
        },
        None => None,
    };
    let terminal = io::stderr().is_terminal();
    let bar = (!args.quiet && terminal).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let ticker = (!args.quiet && !terminal)
        .then(|| Ticker::start(Duration::from_millis(args.progress_interval.max(1))));
    let mut observer = Cli {
        args,
        quiet: args.quiet,
        map,
        bar,
        progress: ticker.as_ref().map(|t| Arc::clone(&t.report)),
        updates: 0,
    };
    let (report, result) = normalizer.run_with_report(&client, &mut observer);
    if let Some(bar) = &observer.bar {
        bar.finish_and_clear();
    }
    if let Some(ticker) = ticker {
        ticker.stop();
    }
    if let Err(e) = result {
        let (code, message) = match e {
            StoreError::Config(_) => (EXIT_USAGE, e.to_string()),
            StoreError::LargeClasses { classes, .. } => (
                EXIT_USAGE,
                args.collapse
                    .refusal(classes, "changed")
                    .unwrap_or_else(|| e.to_string()),
            ),
            _ => (EXIT_STORE, e.to_string()),
        };
        return fail(args, &message, code, &report);
    }
    if !args.quiet || args.report.is_some() {
        let mut stderr = io::stderr().lock();
        if args.report.is_some() {
            writeln!(stderr, "{}", report_json(&report, args.dry_run, None))?;
        } else {
            print_summary(&mut stderr, &report, args.dry_run)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Says why the run failed (also with `-q`) and, with `--report json`, what it did before
/// (the last line on stderr, as after a run that succeeded); exits with `code`.
fn fail(args: &StoreArgs, message: &str, code: u8, report: &StoreReport) -> io::Result<ExitCode> {
    let mut stderr = io::stderr().lock();
    writeln!(stderr, "pidcanon: {message}")?;
    if args.report.is_some() {
        writeln!(
            stderr,
            "{}",
            report_json(report, args.dry_run, Some(message))
        )?;
    }
    Ok(ExitCode::from(code))
}

/// The client and normalizer the arguments describe.
fn build(args: &StoreArgs) -> Result<(Client, Normalizer), String> {
    let policy = args.policy.policy().map_err(|e| e.to_string())?;
    let registry = Registry::from_policy(&policy).map_err(|e| e.to_string())?;
    let scheme = match args.auth {
        AuthArg::Basic => AuthScheme::Basic,
        AuthArg::Digest => AuthScheme::Digest,
        AuthArg::Bearer => AuthScheme::Bearer,
    };
    let secret = match (&args.credentials_env, &args.credentials_file) {
        (Some(var), _) => Some(std::env::var(var).map_err(|_| {
            format!("--credentials-env: the environment variable {var} is not set")
        })?),
        (None, Some(path)) => {
            Some(std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        (None, None) => None,
    };
    let credentials = secret
        .map(|secret| Credentials::new(scheme, &secret))
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut options = ClientOptions {
        update_endpoint: args.update_endpoint.clone(),
        credentials,
        timeout: Duration::from_secs(args.timeout),
        retries: args.retries,
        backoff: Duration::from_millis(args.backoff),
        ..ClientOptions::default()
    };
    if let Some(agent) = &args.user_agent {
        options.user_agent.clone_from(agent);
    }
    let graphs = if args.all_graphs {
        Graphs::All
    } else if args.graph.is_empty() {
        Graphs::Default
    } else {
        Graphs::Named(args.graph.clone())
    };
    for (option, url) in std::iter::once(("--endpoint", &args.endpoint)).chain(
        args.update_endpoint
            .iter()
            .map(|url| ("--update-endpoint", url)),
    ) {
        Client::check_url(url).map_err(|e| format!("{option} {e}"))?;
    }
    let rename = args.identifiers.rename_table(&registry, "rewritten")?;
    let literals = args.identifiers.literal_rewriter(&policy, None)?;
    let mut normalizer = Normalizer::new(registry)
        .with_graphs(graphs)
        .map_err(|e| e.to_string())?;
    if let Some(batch) = args.batch {
        normalizer = normalizer.with_batch(batch);
    }
    if let Some(page) = args.page {
        normalizer = normalizer.with_page(page);
    }
    if args.snapshot {
        normalizer = normalizer.with_snapshot();
    }
    if let Some(links) = &args.links {
        normalizer = normalizer.with_links(links).map_err(|e| e.to_string())?;
    }
    if let Some(table) = rename {
        normalizer = normalizer.with_rename(table);
    }
    if let Some(literals) = literals {
        normalizer = normalizer
            .with_literals(literals)
            .map_err(|e| e.to_string())?;
    }
    if args.collapse.collapse {
        let pairs = args.collapse.pairs(normalizer.registry(), "changed")?;
        normalizer = normalizer.with_collapse(args.collapse.options(&policy)?, pairs);
    }
    if args.dry_run {
        normalizer = normalizer.dry_run();
    }
    Ok((Client::new(&args.endpoint, options), normalizer))
}

/// Diagnostics on stderr, the map file, the dry run's updates on stdout, the progress bar (or,
/// when stderr is not a terminal, the counts for the progress lines).
struct Cli<'a> {
    args: &'a StoreArgs,
    quiet: bool,
    map: Option<LineWriter<File>>,
    bar: Option<ProgressBar>,
    progress: Option<Arc<Mutex<StoreReport>>>,
    updates: u64,
}

/// When stderr is not a terminal (a log, `nohup`, CI): a thread that prints a plain progress
/// line every interval, with the counts of the last progress report, so that whoever reads the
/// log sees that the run is alive, also while the store answers a long query.
struct Ticker {
    report: Arc<Mutex<StoreReport>>,
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Ticker {
    fn start(interval: Duration) -> Self {
        let report = Arc::new(Mutex::new(StoreReport::default()));
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&report);
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                let line = {
                    let report = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    format!(
                        "pidcanon: progress: {:.0} s: {}\n",
                        started.elapsed().as_secs_f64(),
                        counts(&report)
                    )
                };
                let _ = io::stderr().lock().write_all(line.as_bytes());
            }
        });
        Self {
            report,
            stop,
            thread,
        }
    }

    /// Stops the thread, once it has finished the line it may be writing.
    fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// The running counts, for the progress bar and the progress lines.
fn counts(report: &StoreReport) -> String {
    format!(
        "{} IRIs examined, {} rewritten, {} invalid; {} updates, {} requests; {} IRIs per update",
        report.iris_examined,
        report.rewritten_total(),
        report.invalid,
        report.updates,
        report.requests,
        report.batch
    )
}

impl Cli<'_> {
    /// A diagnostic on stderr (above the progress bar), unless quiet.
    fn say(&self, message: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(message),
            None => {
                let _ = writeln!(io::stderr(), "{message}");
            }
        }
    }
}

impl Observer for Cli<'_> {
    fn invalid(&mut self, iri: &str, reason: &dyn Display) {
        self.say(&format!(
            "pidcanon: invalid identifier <{iri}> left unchanged: {reason}"
        ));
    }

    fn rewriting(&mut self, old: &str, canonical: &Canonical<'_>) -> io::Result<()> {
        match &mut self.map {
            Some(map) => writeln!(map, "{old}\t{}\t{}", canonical.iri, canonical.kind),
            None => Ok(()),
        }
    }

    fn triple_terms(&mut self, n: u64) {
        self.say(&format!(
            "pidcanon: warning: {n} statements hold an RDF 1.2 triple term; the IRIs inside triple \
             terms are not rewritten by `store` (dump, `pidcanon rewrite`, reload for those)"
        ));
    }

    fn notice(&mut self, message: &dyn Display) {
        self.say(&format!("pidcanon: {message}"));
    }

    fn would_send(&mut self, update: &str) -> io::Result<()> {
        self.updates += 1;
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "# update {}", self.updates)?;
        writeln!(stdout, "{update}")
    }

    fn classes(&mut self, classes: &Equivalences) {
        // The store's statements are the source numbered 0, the --equivalences files follow.
        let endpoint = format!("the store ({})", self.args.endpoint);
        let store = |source: u32| (source == 0).then(|| endpoint.clone());
        self.args
            .collapse
            .print_classes(classes, self.quiet, &store, 1);
    }

    fn progress(&mut self, report: &StoreReport) {
        if let Some(bar) = &self.bar {
            bar.set_message(counts(report));
        }
        if let Some(progress) = &self.progress {
            report.clone_into(&mut progress.lock().unwrap_or_else(PoisonError::into_inner));
        }
    }
}

/// The report as one JSON object; for a run that failed, with `"failed": true`, the error, and
/// `null` for what was not counted.
fn report_json(report: &StoreReport, dry_run: bool, error: Option<&str>) -> serde_json::Value {
    let counted = |n: u64, known: bool| {
        if known {
            serde_json::Value::from(n)
        } else {
            serde_json::Value::Null
        }
    };
    let mut value = serde_json::json!({
        "dry_run": dry_run,
        "failed": error.is_some(),
        "iris_examined": report.iris_examined,
        "rewritten": super::summary::kinds_json(&report.rewritten),
        "rewritten_total": report.rewritten_total(),
        "graph_names_rewritten": report.graph_names_rewritten,
        "invalid_identifiers": report.invalid,
        "literals_rewritten": report.literals_rewritten,
        "statements_replaced": report.statements_replaced,
        "statements_before": counted(report.statements_before, report.statements_counted),
        "statements_after": counted(report.statements_after, error.is_none()),
        "triple_terms": counted(report.triple_terms, report.statements_counted),
        "duplicates_collapsed": report.duplicates_collapsed,
        "classes": report.classes,
        "class_members": report.class_members,
        "equivalence_links_inserted": report.equivalence_links_inserted,
        "equivalence_statements_removed": report.equivalence_statements_removed,
        "reflexive_dropped": report.reflexive_dropped,
        "updates": report.updates,
        "batch": report.batch,
        "updates_split": report.updates_split,
        "requests": report.requests,
        "retries": report.retries,
        "seconds": report.seconds,
    });
    if let Some(error) = error {
        value["error"] = error.into();
    }
    value
}

fn print_summary(stderr: &mut impl Write, report: &StoreReport, dry_run: bool) -> io::Result<()> {
    if report.classes > 0 {
        let (inserted, removed) = if dry_run {
            ("to insert", "to remove")
        } else {
            ("inserted", "removed")
        };
        writeln!(
            stderr,
            "pidcanon: --collapse: {} of {}; {} {inserted}, {} within classes {removed} (of \
             them {} reflexive)",
            count(report.classes, "class", "classes"),
            count(report.class_members, "identifier", "identifiers"),
            count(
                report.equivalence_links_inserted,
                "link from a representative",
                "links from representatives"
            ),
            count(
                report.equivalence_statements_removed,
                "equivalence statement",
                "equivalence statements"
            ),
            report.reflexive_dropped
        )?;
    }
    writeln!(
        stderr,
        "pidcanon: {} examined; {} {}{}, {} of them graph names{}; {}; {} before, {} after, {}; \
         {}{}, {} ({}); {:.1} s",
        count(report.iris_examined, "IRI", "IRIs"),
        report.rewritten_total(),
        if dry_run { "to rewrite" } else { "rewritten" },
        super::summary::kinds_text(&report.rewritten),
        report.graph_names_rewritten,
        if report.literals_rewritten > 0 {
            format!(
                "; {} {}",
                count(
                    report.literals_rewritten,
                    "identifier literal",
                    "identifier literals"
                ),
                if dry_run { "to rewrite" } else { "rewritten" }
            )
        } else {
            String::new()
        },
        count(report.invalid, "invalid identifier", "invalid identifiers"),
        count(report.statements_before, "statement", "statements"),
        report.statements_after,
        match report.duplicates_collapsed {
            Some(n) => format!("{} collapsed", count(n, "duplicate", "duplicates")),
            None => "duplicates not counted (the store could not count them)".to_owned(),
        },
        count(report.updates, "update", "updates"),
        if dry_run { " printed, none sent" } else { "" },
        count(report.requests, "request", "requests"),
        count(report.retries, "retry", "retries"),
        report.seconds,
    )
}
