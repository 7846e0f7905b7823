//! The terms of query results as the snapshot of `pidcanon store` reads them, and the reading of
//! SPARQL TSV results, whose terms are written as in Turtle (so that an update can copy a literal
//! as it is); a value of JSON results becomes a term by `Value::term`.

use super::StoreError;
use std::borrow::Cow;
use std::io::{self, BufRead};

/// A term of a row of results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Term<'a> {
    /// An IRI, its escapes decoded.
    Iri(Cow<'a, str>),
    /// A literal, written as SPARQL writes it: `"a"@en`, `"1"^^<…>`, `12`, `true`.
    Literal(Cow<'a, str>),
    /// A blank node: its label is the results' own, and an update cannot name it.
    Blank,
    /// A triple term (RDF 1.2).
    Triple,
    /// A literal an update cannot write.
    Other,
}

impl Term<'_> {
    /// The term of a field of TSV results (not empty): `<info:fedora/demo%3A1>` is an IRI,
    /// `"a"@en` and `12` literals, `_:b0` a blank node.
    fn of_tsv(text: &str) -> Result<Term<'_>, String> {
        if text.starts_with("<<") {
            return Ok(Term::Triple);
        }
        if let Some(inner) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
            return match inner.contains('\\') {
                false => Ok(Term::Iri(Cow::Borrowed(inner))),
                true => unescape(inner).map(|iri| Term::Iri(Cow::Owned(iri))),
            };
        }
        if text.starts_with("_:") {
            return Ok(Term::Blank);
        }
        match text.as_bytes()[0] {
            b'"' | b'\'' | b'0'..=b'9' | b'+' | b'-' | b'.' => {
                Ok(Term::Literal(Cow::Borrowed(text)))
            }
            _ if text == "true" || text == "false" => Ok(Term::Literal(Cow::Borrowed(text))),
            _ => Err(format!("{text}: not a term")),
        }
    }
}

/// An IRI of TSV results with its `\uXXXX` and `\UXXXXXXXX` escapes decoded.
fn unescape(iri: &str) -> Result<String, String> {
    let mut out = String::with_capacity(iri.len());
    let mut rest = iri;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let digits = match escape.as_bytes().get(1) {
            Some(b'u') => 4,
            Some(b'U') => 8,
            _ => return Err(format!("<{iri}>: a backslash that is not \\u or \\U")),
        };
        let c = escape
            .get(2..2 + digits)
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32)
            .ok_or_else(|| format!("<{iri}>: an escape that is not a character"))?;
        out.push(c);
        rest = &escape[2 + digits..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What is given each row of results: its terms, in the order asked (`None`: unbound); an error
/// stops the reading.
pub(crate) type EachRow<'a> = dyn FnMut(&[Option<Term<'_>>]) -> Result<(), StoreError> + 'a;

/// The most variables a row of TSV results is read into.
const MAX_VARS: usize = 8;

/// Why TSV results could not be read.
#[derive(Debug)]
pub(crate) enum TsvError {
    /// The consumer of the rows stopped the reading.
    Stopped(StoreError),
    /// The results were cut off.
    Io(io::Error),
    /// They are not TSV results: why, and where.
    Syntax(String),
}

/// Reads TSV results, giving each row to `each` as the terms of `vars` in that order (`None`:
/// unbound, or a variable the results do not have).
pub(crate) fn read_tsv(
    mut reader: impl BufRead,
    vars: &[&str],
    each: &mut EachRow<'_>,
) -> Result<(), TsvError> {
    let mut line = String::new();
    let read = |reader: &mut dyn BufRead, line: &mut String| {
        line.clear();
        reader.read_line(line).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => TsvError::Syntax("not UTF-8".to_owned()),
            _ => TsvError::Io(e),
        })
    };
    if read(&mut reader, &mut line)? == 0 {
        return Err(TsvError::Syntax("no header line".to_owned()));
    }
    let header: Vec<String> = line
        .trim_end_matches(['\n', '\r'])
        .split('\t')
        .map(|var| var.trim_start_matches(['?', '$']).to_owned())
        .collect();
    if vars.len() > MAX_VARS {
        return Err(TsvError::Syntax(format!(
            "more than {MAX_VARS} variables asked"
        )));
    }
    // For each field of a row, where its term goes (`None`: not asked).
    let targets: Vec<Option<usize>> = header
        .iter()
        .map(|h| vars.iter().position(|var| var == h))
        .collect();
    let mut number = 1;
    while read(&mut reader, &mut line)? > 0 {
        number += 1;
        let row = line.strip_suffix('\n').unwrap_or(&line);
        let row = row.strip_suffix('\r').unwrap_or(row);
        if row.is_empty() {
            continue;
        }
        let mut terms: [Option<Term<'_>>; MAX_VARS] = Default::default();
        let mut fields = 0;
        for (field, target) in row
            .split('\t')
            .zip(targets.iter().chain(std::iter::repeat(&None)))
        {
            fields += 1;
            if let (Some(target), false) = (target, field.is_empty()) {
                terms[*target] = Some(
                    Term::of_tsv(field)
                        .map_err(|e| TsvError::Syntax(format!("line {number}: {e}")))?,
                );
            }
        }
        if fields != header.len() {
            return Err(TsvError::Syntax(format!(
                "line {number} has {fields} fields, the header {}",
                header.len()
            )));
        }
        each(&terms[..vars.len()]).map_err(TsvError::Stopped)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn rows(tsv: &str) -> Result<Vec<Vec<Option<Term<'static>>>>, TsvError> {
        let mut rows = Vec::new();
        read_tsv(tsv.as_bytes(), &["s", "p", "o", "g"], &mut |terms| {
            rows.push(
                terms
                    .iter()
                    .map(|t| {
                        t.as_ref().map(|t| match t {
                            Term::Iri(i) => Term::Iri(Cow::Owned(i.to_string())),
                            Term::Literal(l) => Term::Literal(Cow::Owned(l.to_string())),
                            Term::Blank => Term::Blank,
                            Term::Triple => Term::Triple,
                            Term::Other => Term::Other,
                        })
                    })
                    .collect(),
            );
            Ok(())
        })?;
        Ok(rows)
    }

    #[test]
    fn terms_are_read_in_the_order_asked_and_literals_kept_as_written() {
        let tsv = "?o\t?s\t?p\t?g\n\
                   \"a\\tb\"@en\t<info:fedora/demo%3A1>\t<http://ex/p>\t\n\
                   12\t_:b0\t<http://ex/\\u00E9>\t<http://ex/g>\r\n\
                   <<( <a> <b> <c> )>>\t<http://ex/s>\t<http://ex/p>\t";
        let rows = rows(tsv).expect("TSV results");
        let iri = |i: &str| Some(Term::Iri(Cow::Owned(i.to_owned())));
        let literal = |l: &str| Some(Term::Literal(Cow::Owned(l.to_owned())));
        assert_eq!(
            rows,
            [
                vec![
                    iri("info:fedora/demo%3A1"),
                    iri("http://ex/p"),
                    literal("\"a\\tb\"@en"),
                    None
                ],
                vec![
                    Some(Term::Blank),
                    iri("http://ex/é"),
                    literal("12"),
                    iri("http://ex/g")
                ],
                vec![
                    iri("http://ex/s"),
                    iri("http://ex/p"),
                    Some(Term::Triple),
                    None
                ],
            ]
        );
    }

    #[test]
    fn results_that_are_not_tsv_say_where() {
        let error = |tsv: &str| match rows(tsv) {
            Err(TsvError::Syntax(reason)) => reason,
            other => panic!("{tsv:?}: {other:?}"),
        };
        assert_eq!(error(""), "no header line");
        assert_eq!(
            error("?s\t?p\t?o\n<a>\t<b>\n"),
            "line 2 has 2 fields, the header 3"
        );
        assert_eq!(
            error("?s\t?p\t?o\n<a>\t<b>\tex:c\n"),
            "line 2: ex:c: not a term"
        );
        assert_eq!(
            error("?s\n<a\\q>\n"),
            "line 2: <a\\q>: a backslash that is not \\u or \\U"
        );
    }
}
