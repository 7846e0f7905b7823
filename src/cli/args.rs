//! Command-line arguments (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use pidcanon::{DoiForm, HandleForm, PoiOai, Policy};
use std::path::PathBuf;

/// Canonicalize persistent identifiers — Fedora PIDs and URIs, OAI identifiers, POIs, Handles,
/// DOIs, PDIs — so that every spelling of one identifier becomes one RDF node.
#[derive(Debug, Parser)]
#[command(name = "pidcanon", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the canonical IRI of each identifier (arguments, or stdin one per line).
    Canon(CanonArgs),
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
    /// Print `input<TAB>result<TAB>kind<TAB>message` for every input, result `INVALID` on error.
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
    /// The policy file, if any, with the flags applied.
    pub(crate) fn policy(&self) -> Result<Policy, pidcanon::PolicyError> {
        let mut policy = match &self.policy {
            Some(path) => Policy::from_file(path)?,
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
        policy.check()?;
        Ok(policy)
    }
}
