//! `pidcanon canon`: one canonical IRI per input.

use super::args::CanonArgs;
use pidcanon::{Canonical, IdError, Registry};
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

pub(crate) fn run(args: &CanonArgs) -> io::Result<ExitCode> {
    let policy = match args.policy.policy() {
        Ok(policy) => policy,
        Err(e) => return usage_error(&e),
    };
    let registry = match Registry::from_policy(&policy) {
        Ok(registry) => registry,
        Err(e) => return usage_error(&e),
    };
    let scheme = args.scheme.map(|s| s.as_str());
    if let Some(name) = scheme {
        if registry.adapter_named(name).is_none() {
            return usage_error(&format!("the {name} scheme is not supported yet"));
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut invalid = 0usize;
    let mut handle = |line: &[u8], out: &mut BufWriter<io::StdoutLock<'_>>| -> io::Result<()> {
        let result = match std::str::from_utf8(line) {
            Ok(input) => {
                canonicalize(&registry, scheme, input).map(|c| (c.iri.into_owned(), c.kind))
            }
            Err(e) => Err(IdError::new(
                pidcanon::Kind::Iri,
                pidcanon::Rule::Grammar("the input is not UTF-8"),
                e.valid_up_to(),
            )),
        };
        let input = String::from_utf8_lossy(line);
        match (result, args.tsv) {
            (Ok((iri, kind)), true) => writeln!(out, "{input}\t{iri}\t{kind}\t"),
            (Ok((iri, _)), false) => writeln!(out, "{iri}"),
            (Err(e), true) => {
                invalid += 1;
                writeln!(out, "{input}\tINVALID\t{}\t{}", e.kind(), e)
            }
            (Err(e), false) => {
                invalid += 1;
                out.flush()?;
                writeln!(io::stderr(), "pidcanon: invalid {input:?}: {e}")
            }
        }
    };
    if args.ids.is_empty() {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        while stdin.read_until(b'\n', &mut line)? > 0 {
            let content = line.strip_suffix(b"\n").unwrap_or(&line);
            handle(content, &mut out)?;
            line.clear();
        }
    } else {
        for id in &args.ids {
            handle(id.as_bytes(), &mut out)?;
        }
    }
    out.flush()?;
    Ok(if invalid > 0 && !args.tsv {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn usage_error(e: &dyn std::fmt::Display) -> io::Result<ExitCode> {
    writeln!(io::stderr(), "pidcanon: {e}")?;
    Ok(ExitCode::from(super::EXIT_USAGE))
}

fn canonicalize<'a>(
    registry: &Registry,
    scheme: Option<&str>,
    input: &'a str,
) -> Result<Canonical<'a>, IdError> {
    scheme
        .and_then(|name| registry.canonicalize_as(name, input))
        .unwrap_or_else(|| registry.canonicalize(input))
}
