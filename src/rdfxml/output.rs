//! RDF/XML output that declares only the namespaces it uses.
//!
//! `oxrdfxml`'s serializer declares the ITS namespace (`xmlns:its`, for the base direction of
//! RDF 1.2 literals) on `rdf:RDF` in every document, whether a literal has a direction or not.
//! [`UsedNamespaces`] takes that declaration off `rdf:RDF` and puts it on each element that uses
//! it — a property with a directional literal, the only element the serializer writes `its:`
//! attributes on, always starting with `its:version="2.0"`. Attribute values and text are
//! escaped by the serializer (`"` as `&quot;`), so what is looked for can be nothing else.

use std::io::{self, Write};

/// The declaration the serializer writes on `rdf:RDF`.
const DECLARATION: &[u8] = b" xmlns:its=\"http://www.w3.org/2005/11/its\"";

/// The first `its:` attribute of an element with a directional literal.
const USE: &[u8] = b" its:version=\"2.0\"";

/// A writer of RDF/XML from `oxrdfxml`'s serializer that moves the ITS namespace declaration
/// from `rdf:RDF` to the elements that use it; with `active` false, a plain pass-through (for
/// the other formats).
///
/// ```
/// use pidcanon::rdfxml::UsedNamespaces;
/// use oxrdf::{Literal, NamedNode, Triple};
/// use oxrdfxml::RdfXmlSerializer;
///
/// let mut serializer = RdfXmlSerializer::new().for_writer(UsedNamespaces::new(Vec::new(), true));
/// serializer.serialize_triple(&Triple::new(
///     NamedNode::new("http://e/s")?,
///     NamedNode::new("http://e/p")?,
///     Literal::new_language_tagged_literal("x", "en")?,
/// ))?;
/// let xml = String::from_utf8(serializer.finish()?.into_inner()?)?;
/// assert!(!xml.contains("its"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UsedNamespaces<W: Write> {
    inner: W,
    active: bool,
    /// Whether the declaration on `rdf:RDF` is still to be taken off.
    declared: bool,
    /// Bytes that may start a match, held until the next write tells.
    held: Vec<u8>,
}

impl<W: Write> UsedNamespaces<W> {
    /// Writes into `inner`, moving the declaration when `active`.
    pub fn new(inner: W, active: bool) -> Self {
        Self {
            inner,
            active,
            declared: true,
            held: Vec::new(),
        }
    }

    /// The writer written into, after what was held back (nothing in a finished document).
    pub fn into_inner(mut self) -> io::Result<W> {
        let held = std::mem::take(&mut self.held);
        self.inner.write_all(&held)?;
        Ok(self.inner)
    }

    /// Writes `bytes` on, with the declaration moved, holding back an end that may start a
    /// match.
    fn pass(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut rest = bytes;
        loop {
            let declaration = if self.declared {
                memchr::memmem::find(rest, DECLARATION)
            } else {
                None
            };
            let used = memchr::memmem::find(rest, USE);
            match (declaration, used) {
                (Some(at), other) if other.is_none_or(|u| at < u) => {
                    self.inner.write_all(&rest[..at])?;
                    rest = &rest[at + DECLARATION.len()..];
                    self.declared = false;
                }
                (_, Some(at)) => {
                    self.inner.write_all(&rest[..at])?;
                    self.inner.write_all(DECLARATION)?;
                    self.inner.write_all(USE)?;
                    rest = &rest[at + USE.len()..];
                }
                (_, None) => break,
            }
        }
        // The longest end of `rest` that may start a match is held.
        let starts_match = |len: usize| {
            let end = &rest[rest.len() - len..];
            USE.starts_with(end) || (self.declared && DECLARATION.starts_with(end))
        };
        let longest = DECLARATION.len().max(USE.len()) - 1;
        let held = (1..=longest.min(rest.len()))
            .rev()
            .find(|&len| starts_match(len))
            .unwrap_or(0);
        self.inner.write_all(&rest[..rest.len() - held])?;
        self.held = rest[rest.len() - held..].to_vec();
        Ok(())
    }
}

impl<W: Write> Write for UsedNamespaces<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.active {
            return self.inner.write(buf);
        }
        if self.held.is_empty() {
            self.pass(buf)?;
        } else {
            let mut bytes = std::mem::take(&mut self.held);
            bytes.extend_from_slice(buf);
            self.pass(&bytes)?;
        }
        Ok(buf.len())
    }

    /// Writes on what was held back, and flushes. Nothing is lost; the serializer's writer
    /// flushes only at the end of the document (which ends with `</rdf:RDF>`: nothing is held
    /// there), where no match can be split.
    fn flush(&mut self) -> io::Result<()> {
        let held = std::mem::take(&mut self.held);
        self.inner.write_all(&held)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(chunks: &[&str]) -> String {
        let mut writer = UsedNamespaces::new(Vec::new(), true);
        for chunk in chunks {
            writer.write_all(chunk.as_bytes()).expect("to a Vec");
        }
        String::from_utf8(writer.into_inner().expect("to a Vec")).expect("UTF-8")
    }

    const DOCUMENT: &str = r#"<rdf:RDF xmlns:rdf="r" xmlns:its="http://www.w3.org/2005/11/its"><p rdf:version="1.2-basic" its:version="2.0" its:dir="rtl">x</p><q xml:lang="en">y</q></rdf:RDF>"#;
    const MOVED: &str = r#"<rdf:RDF xmlns:rdf="r"><p rdf:version="1.2-basic" xmlns:its="http://www.w3.org/2005/11/its" its:version="2.0" its:dir="rtl">x</p><q xml:lang="en">y</q></rdf:RDF>"#;

    #[test]
    fn the_declaration_moves_to_where_it_is_used() {
        assert_eq!(moved(&[DOCUMENT]), MOVED);
    }

    #[test]
    fn matches_split_across_writes_are_found() {
        for at in 0..DOCUMENT.len() {
            let (a, b) = DOCUMENT.split_at(at);
            assert_eq!(moved(&[a, b]), MOVED, "split at {at}");
        }
        let bytes: Vec<String> = DOCUMENT.chars().map(String::from).collect();
        let chunks: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(moved(&chunks), MOVED);
    }

    #[test]
    fn inactive_it_passes_everything() {
        let mut writer = UsedNamespaces::new(Vec::new(), false);
        writer.write_all(DOCUMENT.as_bytes()).expect("to a Vec");
        assert_eq!(writer.into_inner().expect("to a Vec"), DOCUMENT.as_bytes());
    }
}
