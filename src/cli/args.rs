//! The commands' arguments (clap derive).

use clap::{Args, ValueEnum};
use pidcanon::{DoiForm, HandleForm, PoiOai, Policy, PolicyError};
use std::path::{Path, PathBuf};

/// What `rewrite` and `check` share: inputs, their format, base IRI, policy.
#[derive(Debug, Args)]
pub(crate) struct GraphInput {
    /// Input files; `-` or none for stdin.
    pub(crate) files: Vec<String>,
    /// Input format: nt, nq, ttl, trig, rdfxml, foxml or a media type [default: from the file
    /// extension, FOXML for directories (object stores) and foxml:digitalObject files;
    /// N-Quads (which includes N-Triples) for stdin].
    #[arg(short = 'i', long = "input-format", value_name = "FORMAT")]
    pub(crate) input_format: Option<String>,
    /// Base IRI for relative IRIs in Turtle, TriG and RDF/XML input [default: each input file's
    /// own file:// URL, as riot and rapper do; stdin has none].
    #[arg(long, value_name = "IRI")]
    pub(crate) base: Option<String>,
    /// Read RDF/XML strictly: legacy unqualified attributes (`about`, `resource`, …) and a
    /// `base` on rdf:RDF are syntax errors instead of being read with a warning.
    #[arg(long)]
    pub(crate) strict_rdfxml: bool,
    /// FOXML input: also the triples Fedora's resource index derives from the object
    /// properties, datastreams and DC (docs/fedora.md).
    #[arg(long)]
    pub(crate) foxml_properties: bool,
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
}

#[derive(Debug, Args)]
pub(crate) struct RewriteArgs {
    #[command(flatten)]
    pub(crate) input: GraphInput,
    /// Go on after syntax errors: a bad N-Triples/N-Quads line is passed through, a bad
    /// Turtle/TriG statement skipped (both written to --reject instead, if given), a bad RDF/XML
    /// statement or FOXML file skipped; each is reported and counted.
    #[arg(long, conflicts_with = "strict")]
    pub(crate) lenient: bool,
    /// Make an invalid identifier an error (exit 1) instead of leaving it unchanged.
    #[arg(long)]
    pub(crate) strict: bool,
    /// No diagnostics, no summary, no progress bar.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Write to FILE instead of stdout: a regular file through a temporary file renamed over it
    /// at the end, anything else (FIFO, device) straight; compressed by its extension (.gz,
    /// .bz2, .zst).
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Output format [default: from -o's extension, else the input format].
    #[arg(long = "to", value_name = "FORMAT")]
    pub(crate) output_format: Option<String>,
    /// Drop statements that become exact duplicates of earlier ones.
    #[arg(long)]
    pub(crate) dedup: bool,
    /// Write before each output line the fingerprint of its statement, as --dedup compares
    /// statements (32 hex digits; equal for one statement however it is spelled), and a tab; a
    /// tab alone before a line with no statement. N-Triples/N-Quads output only. For a job that
    /// drops duplicates across many runs itself (the Spark job's --dedup).
    #[arg(long)]
    pub(crate) fingerprints: bool,
    /// The number of the first input in a larger run whose outputs are concatenated (a loop
    /// over files): blank node labels written in input 1 are kept, those of every later input
    /// are made its own, so that `_:b1` of two inputs stays two nodes [default: 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) first_input: Option<u64>,
    /// Write `<original> owl:sameAs <canonical> .` once per rewritten IRI to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) links: Option<PathBuf>,
    /// Write `original<TAB>canonical<TAB>kind` once per rewritten IRI to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) map: Option<PathBuf>,
    /// With --lenient, write what does not parse to FILE: each bad N-Triples/N-Quads line, and
    /// the lines of each bad Turtle/TriG statement.
    #[arg(long, value_name = "FILE", requires = "lenient")]
    pub(crate) reject: Option<PathBuf>,
    /// Threads [default: the number of cores]: N-Triples/N-Quads rewritten in chunks, Turtle
    /// parsed in pieces, TriG and RDF/XML parsed on one and written on another, FOXML objects
    /// read in parallel; the output is the same whatever the number.
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Leave the graphs of trusty (signed) nanopublications as they are: rewriting an IRI in one
    /// invalidates it. Without it, such a rewrite is reported as a warning.
    #[arg(long)]
    pub(crate) keep_signed: bool,
    /// FOXML input: write every object's statements to the default graph, not to a graph named
    /// by the object's IRI (N-Quads and TriG output).
    #[arg(long)]
    pub(crate) default_graph: bool,
    /// Print the summary as JSON (on stderr; also with -q).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    pub(crate) report: Option<String>,
    #[command(flatten)]
    pub(crate) equivalence: Box<super::equiv::EquivalenceArgs>,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) input: GraphInput,
    /// Go on after syntax errors, listing each as a finding, instead of stopping at the first
    /// (exit 2).
    #[arg(long)]
    pub(crate) lenient: bool,
    /// List nothing: the exit status alone tells (0 nothing found, 1 findings).
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// List the findings as JSON Lines on stdout, one object per finding and the summary last
    /// (also with -q).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    pub(crate) report: Option<String>,
}

/// Identifier schemes that `--scheme` can name, for bare forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemeName {
    Fedora,
    Oai,
    Poi,
    Handle,
    Doi,
    Pdi,
}

impl SchemeName {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SchemeName::Fedora => "fedora",
            SchemeName::Oai => "oai",
            SchemeName::Poi => "poi",
            SchemeName::Handle => "handle",
            SchemeName::Doi => "doi",
            SchemeName::Pdi => "pdi",
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct CanonArgs {
    /// Identifiers; when none are given, read from stdin, one per line.
    pub(crate) ids: Vec<String>,
    /// Read the inputs as identifiers of this scheme: its full forms first, then its bare form
    /// (a PID without `info:fedora/`, a handle without `hdl:`).
    #[arg(long, value_enum)]
    pub(crate) scheme: Option<SchemeName>,
    /// Print exactly one line `input<TAB>result<TAB>kind<TAB>message` per input, result
    /// `INVALID` on error (and exit 1 at the end); in input and message a backslash, tab, line
    /// feed and carriage return are written `\\`, `\t`, `\n`, `\r`, any other control character
    /// and a byte that is not UTF-8 `\xHH`.
    #[arg(long)]
    pub(crate) tsv: bool,
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
}

/// The policy: a file, then flags that override or extend it.
#[derive(Debug, Args)]
pub(crate) struct PolicyArgs {
    /// Read the policy from this TOML file (see docs/canonical-forms.md); flags override it.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Whether POIs and OAI identifiers are merged [default: keep].
    #[arg(long, value_enum)]
    poi_oai: Option<PoiOai>,
    /// A Fedora base URL whose REST / API-A-Lite URLs become info:fedora/ URIs (repeatable).
    #[arg(long, value_name = "URL")]
    fedora_base: Vec<String>,
    /// A handle resolver URL prefix, besides hdl.handle.net and doi.org (repeatable).
    #[arg(long, value_name = "URL-PREFIX")]
    handle_resolver: Vec<String>,
    /// How Handles are written [default: hdl].
    #[arg(long, value_enum)]
    handle_form: Option<HandleForm>,
    /// How DOIs are written [default: https].
    #[arg(long, value_enum)]
    doi_form: Option<DoiForm>,
}

impl PolicyArgs {
    /// The policy file, if any, with the flags applied. An error names the file and, for a
    /// TOML error, the line and column.
    pub(crate) fn policy(&self) -> Result<Policy, String> {
        let mut policy = match &self.policy {
            Some(path) => read_policy(path)?,
            None => Policy::default(),
        };
        if let Some(poi_oai) = self.poi_oai {
            policy.poi_oai = poi_oai;
        }
        if let Some(form) = self.handle_form {
            policy.handle_form = form;
        }
        if let Some(form) = self.doi_form {
            policy.doi_form = form;
        }
        policy.fedora_bases.extend(self.fedora_base.iter().cloned());
        policy
            .handle_resolvers
            .extend(self.handle_resolver.iter().cloned());
        policy.check().map_err(|e| e.to_string())?;
        Ok(policy)
    }
}

/// The policy file at `path`, checked on its own (so that what is wrong in it is said to be).
fn read_policy(path: &Path) -> Result<Policy, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{name}: cannot read the policy file: {e}"))?;
    let policy = Policy::from_toml(&text).map_err(|e| match &e {
        PolicyError::Toml(toml) => {
            let at = toml.span().map_or(0, |span| span.start).min(text.len());
            let before = text.get(..at).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{name}:{line}:{column}: invalid policy: {}", toml.message())
        }
        e => format!("{name}: {e}"),
    })?;
    policy.check().map_err(|e| format!("{name}: {e}"))?;
    Ok(policy)
}
