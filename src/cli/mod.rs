//! The command line: argument parsing, then one module per command.

mod args;
mod canon;
mod check;
mod command;
mod equiv;
mod files;
mod foxml;
mod graph;
mod named;
mod output;
mod store;
mod summary;
mod temporary;

use clap::Parser;
use command::{Cli, Command};
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status for usage errors, unreadable input and syntax errors.
pub(crate) const EXIT_USAGE: u8 = 2;

pub(crate) fn main() -> ExitCode {
    if let Err(e) = temporary::remove_on_signals() {
        let _ = writeln!(io::stderr(), "pidcanon: cannot start: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    // The commands run on a thread with a large stack, as the rewriter's workers do (RDF 1.2
    // triple terms nest, and nested terms are dropped and formatted recursively).
    let command = std::thread::Builder::new()
        .stack_size(pidcanon::rewrite::WORKER_STACK)
        .spawn(run);
    match command.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(EXIT_USAGE),
        Err(e) => {
            let _ = writeln!(io::stderr(), "pidcanon: cannot start: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Canon(args) => canon::run(args),
        Command::Rewrite(args) => graph::rewrite(args),
        Command::Check(args) => check::run(args),
        Command::Store(args) => store::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "pidcanon: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
