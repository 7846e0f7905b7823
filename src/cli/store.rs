//! `pidcanon store`: normalize a live triple store over the SPARQL 1.1 protocol.

use super::EXIT_USAGE;
use super::args::PolicyArgs;
use super::summary::count;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
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
use std::time::Duration;

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
    /// Normalize the default graph, every named graph and the names of the named graphs.
    #[arg(long)]
    all_graphs: bool,
    /// Print the SPARQL updates and the counts; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Old IRIs per update request (each request also stays under 64 KiB of IRIs).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    batch: usize,
    /// Find the candidate IRIs in pages of N (each page costs a scan of the store and a sort),
    /// for stores that cut responses short (Virtuoso: 10000) [default: one query per pass, its
    /// results read as they arrive].
    #[arg(long, value_name = "N")]
    page: Option<usize>,
    /// Append `original<TAB>canonical<TAB>kind` per rewritten IRI to FILE (before its update is
    /// sent: a rerun after an interruption may repeat lines).
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
    /// No diagnostics, no summary, no progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// Print the summary as JSON (on stderr; also with -q).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    report: Option<String>,
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
    let (client, normalizer) = match build(args) {
        Ok(built) => built,
        Err(e) => {
            writeln!(io::stderr(), "pidcanon: {e}")?;
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    if args.dry_run {
        super::output::writable_stdout()?;
    }
    let map = match &args.map {
        Some(path) => Some(LineWriter::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?,
        )),
        None => None,
    };
    let bar = (!args.quiet && io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let mut observer = Cli {
        quiet: args.quiet,
        map,
        bar,
        updates: 0,
    };
    let result = normalizer.run(&client, &mut observer);
    if let Some(bar) = &observer.bar {
        bar.finish_and_clear();
    }
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            writeln!(io::stderr(), "pidcanon: {e}")?;
            return Ok(ExitCode::from(match e {
                StoreError::Config(_) => EXIT_USAGE,
                _ => EXIT_STORE,
            }));
        }
    };
    if !args.quiet || args.report.is_some() {
        print_summary(&report, args.report.is_some(), args.dry_run)?;
    }
    Ok(ExitCode::SUCCESS)
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
    let mut normalizer = Normalizer::new(registry)
        .with_batch(args.batch)
        .with_graphs(graphs)
        .map_err(|e| e.to_string())?;
    if let Some(page) = args.page {
        normalizer = normalizer.with_page(page);
    }
    if let Some(links) = &args.links {
        normalizer = normalizer.with_links(links).map_err(|e| e.to_string())?;
    }
    if args.dry_run {
        normalizer = normalizer.dry_run();
    }
    Ok((Client::new(&args.endpoint, options), normalizer))
}

/// Diagnostics on stderr, the map file, the dry run's updates on stdout, the progress bar.
struct Cli {
    quiet: bool,
    map: Option<LineWriter<File>>,
    bar: Option<ProgressBar>,
    updates: u64,
}

impl Cli {
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

impl Observer for Cli {
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

    fn would_send(&mut self, update: &str) -> io::Result<()> {
        self.updates += 1;
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "# update {}", self.updates)?;
        writeln!(stdout, "{update}")
    }

    fn progress(&mut self, report: &StoreReport) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} IRIs examined, {} rewritten, {} invalid; {} updates, {} requests",
                report.iris_examined,
                report.rewritten_total(),
                report.invalid,
                report.updates,
                report.requests
            ));
        }
    }
}

fn print_summary(report: &StoreReport, json: bool, dry_run: bool) -> io::Result<()> {
    let mut stderr = io::stderr().lock();
    if json {
        let rewritten = super::summary::kinds_json(&report.rewritten);
        let value = serde_json::json!({
            "dry_run": dry_run,
            "iris_examined": report.iris_examined,
            "rewritten": rewritten,
            "rewritten_total": report.rewritten_total(),
            "graph_names_rewritten": report.graph_names_rewritten,
            "invalid_identifiers": report.invalid,
            "statements_before": report.statements_before,
            "statements_after": report.statements_after,
            "triple_terms": report.triple_terms,
            "duplicates_collapsed": report.duplicates_collapsed(),
            "updates": report.updates,
            "requests": report.requests,
            "retries": report.retries,
            "seconds": report.seconds,
        });
        return writeln!(stderr, "{value}");
    }
    writeln!(
        stderr,
        "pidcanon: {} examined; {} {}{}, {} of them graph names; {}; {} before, {} after, {} \
         collapsed; {}{}, {} ({}); {:.1} s",
        count(report.iris_examined, "IRI", "IRIs"),
        report.rewritten_total(),
        if dry_run { "to rewrite" } else { "rewritten" },
        super::summary::kinds_text(&report.rewritten),
        report.graph_names_rewritten,
        count(report.invalid, "invalid identifier", "invalid identifiers"),
        count(report.statements_before, "statement", "statements"),
        report.statements_after,
        count(report.duplicates_collapsed(), "duplicate", "duplicates"),
        count(report.updates, "update", "updates"),
        if dry_run { " printed, none sent" } else { "" },
        count(report.requests, "request", "requests"),
        count(report.retries, "retry", "retries"),
        report.seconds,
    )
}
