//! `pidcanon canon`: one canonical IRI per input.
//!
//! `--tsv` prints exactly one line of four tab-separated fields per input. The echoed input and
//! the message are escaped as in PostgreSQL's `COPY` text format (the usual reading of IANA's
//! `text/tab-separated-values`, which forbids tabs and line breaks in a field): `\\` `\t` `\n`
//! `\r` for a backslash, tab, line feed and carriage return, and `\xHH` for each byte that is
//! not UTF-8. The result and kind fields never need it (an IRI holds none of these).

use super::args::CanonArgs;
use pidcanon::{IdError, Registry};
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
            Ok(input) => registry
                .canonicalize_with_scheme(scheme, input)
                .map(|c| (c.iri.into_owned(), c.kind)),
            Err(e) => Err(IdError::new(
                pidcanon::Kind::Iri,
                pidcanon::Rule::Grammar("the input is not UTF-8"),
                e.valid_up_to(),
            )),
        };
        match (result, args.tsv) {
            (Ok((iri, kind)), true) => {
                write_field(out, line)?;
                writeln!(out, "\t{iri}\t{kind}\t")
            }
            (Ok((iri, _)), false) => writeln!(out, "{iri}"),
            (Err(e), true) => {
                invalid += 1;
                write_field(out, line)?;
                write!(out, "\tINVALID\t{}\t", e.kind())?;
                write_field(out, e.to_string().as_bytes())?;
                writeln!(out)
            }
            (Err(e), false) => {
                invalid += 1;
                out.flush()?;
                let input = String::from_utf8_lossy(line);
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

/// Writes `field` as one TSV field, escaped as the module documentation says.
fn write_field(out: &mut impl Write, field: &[u8]) -> io::Result<()> {
    for chunk in field.utf8_chunks() {
        let valid = chunk.valid();
        let mut start = 0;
        for (i, byte) in valid.bytes().enumerate() {
            let escape = match byte {
                b'\\' => "\\\\",
                b'\t' => "\\t",
                b'\n' => "\\n",
                b'\r' => "\\r",
                _ => continue,
            };
            out.write_all(&valid.as_bytes()[start..i])?;
            out.write_all(escape.as_bytes())?;
            start = i + 1;
        }
        out.write_all(&valid.as_bytes()[start..])?;
        for byte in chunk.invalid() {
            write!(out, "\\x{byte:02X}")?;
        }
    }
    Ok(())
}

fn usage_error(e: &dyn std::fmt::Display) -> io::Result<ExitCode> {
    writeln!(io::stderr(), "pidcanon: {e}")?;
    Ok(ExitCode::from(super::EXIT_USAGE))
}

#[cfg(test)]
mod tests {
    use super::write_field;

    fn field(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        write_field(&mut out, bytes).expect("written to memory");
        String::from_utf8(out).expect("escaped output is UTF-8")
    }

    #[test]
    fn escapes_what_would_break_a_field_and_nothing_else() {
        assert_eq!(field(b"hdl:10013/x"), "hdl:10013/x");
        assert_eq!(field(b"a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
        assert_eq!(field("caf\u{e9} \u{1}".as_bytes()), "caf\u{e9} \u{1}");
        assert_eq!(field(b"oai:a.b:\xff\xfe!"), "oai:a.b:\\xFF\\xFE!");
        assert_eq!(field(b"\xe9t\xc3"), "\\xE9t\\xC3");
    }
}
