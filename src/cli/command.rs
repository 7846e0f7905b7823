//! What `pidcanon` parses: its commands, each with its arguments (clap derive).

use super::args::{CanonArgs, CheckArgs, RewriteArgs};
use super::store::StoreArgs;
use clap::{Parser, Subcommand};

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
    /// Print the canonical IRI of each identifier (arguments, or stdin one per line, LF or CRLF);
    /// exit 1 if one is invalid.
    Canon(CanonArgs),
    /// Rewrite RDF so that every spelling of an identifier becomes its canonical IRI.
    Rewrite(RewriteArgs),
    /// List every identifier of RDF files that is not canonical or invalid (and, with --lenient,
    /// every syntax error), then a summary; exit 1 if anything was found.
    Check(CheckArgs),
    /// Normalize a live triple store in place over the SPARQL 1.1 protocol.
    Store(StoreArgs),
}
