//! `pidcanon canon`: one canonical IRI per input.
//!
//! Inputs come from the arguments, or from stdin one per line: a line ends at a line feed,
//! and a carriage return just before it is part of the line ending (a list saved on Windows);
//! any other carriage return is part of the input.
//!
//! `--tsv` prints exactly one line of four tab-separated fields per input. The echoed input and
//! the message are escaped as in PostgreSQL's `COPY` text format (the usual reading of IANA's
//! `text/tab-separated-values`, which forbids tabs and line breaks in a field): `\\` `\t` `\n`
//! `\r` for a backslash, tab, line feed and carriage return, and `\xHH` for every other control
//! character (NUL, escape, delete: they would reach a terminal or a C program as they are) and
//! each byte that is not UTF-8. The result and kind fields never need it (an IRI holds none of
//! these).
//!
//! Exit status: 0 when every input is valid, 1 when one is not (with or without `--tsv`), 2 for
//! usage errors.

use super::args::CanonArgs;
use super::named::{STDOUT, names_its_file, with_name};
use super::output::writable_stdout;
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
    writable_stdout()?;
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
    let written = write_all(args, &mut out, &mut handle).and_then(|()| out.flush());
    let status = if invalid > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    match written {
        // The reader has gone (`| head`): what was read so far gives the status.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(status),
        Err(e) if names_its_file(&e) => Err(e),
        Err(e) => Err(with_name(STDOUT, e)),
        Ok(()) => Ok(status),
    }
}

/// Handles every input: the arguments, else the lines of stdin.
fn write_all<W: Write>(
    args: &CanonArgs,
    out: &mut W,
    handle: &mut impl FnMut(&[u8], &mut W) -> io::Result<()>,
) -> io::Result<()> {
    if !args.ids.is_empty() {
        for id in &args.ids {
            handle(id.as_bytes(), out)?;
        }
        return Ok(());
    }
    let mut stdin = io::stdin().lock();
    let mut line = Vec::new();
    let read = |stdin: &mut io::StdinLock<'_>, line: &mut Vec<u8>| {
        stdin
            .read_until(b'\n', line)
            .map_err(|e| with_name("<stdin>", e))
    };
    while read(&mut stdin, &mut line)? > 0 {
        let content = match line.strip_suffix(b"\n") {
            Some(content) => content.strip_suffix(b"\r").unwrap_or(content),
            None => &line,
        };
        handle(content, out)?;
        line.clear();
    }
    Ok(())
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
                _ if byte.is_ascii_control() => "",
                _ => continue,
            };
            out.write_all(&valid.as_bytes()[start..i])?;
            if escape.is_empty() {
                write!(out, "\\x{byte:02X}")?;
            } else {
                out.write_all(escape.as_bytes())?;
            }
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
    fn escapes_what_would_break_a_field_or_a_terminal_and_nothing_else() {
        assert_eq!(field(b"hdl:10013/x"), "hdl:10013/x");
        assert_eq!(field(b"a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
        assert_eq!(field("caf\u{e9} \u{85}".as_bytes()), "caf\u{e9} \u{85}");
        assert_eq!(field(b"a\0b\x01\x1b\x7f"), "a\\x00b\\x01\\x1B\\x7F");
        assert_eq!(field(b"oai:a.b:\xff\xfe!"), "oai:a.b:\\xFF\\xFE!");
        assert_eq!(field(b"\xe9t\xc3"), "\\xE9t\\xC3");
    }
}
