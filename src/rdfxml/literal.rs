//! The namespace declarations of an XML literal (`rdf:parseType="Literal"`), as rapper writes
//! them and exclusive XML canonicalization (which RDF/XML Syntax §7.2.17 names) puts them:
//! each namespace an element or attribute name uses is declared once, on the outermost element
//! of the literal that uses it; a declaration nothing uses is left out.
//!
//! `oxrdfxml` writes every namespace in scope on each top-level element of the literal, after
//! the element's own attributes: a namespace that element declares itself comes twice
//! (`<h:b xmlns:h="…" xmlns:h="…">`, which is not XML), and the literal carries the document's
//! namespaces (`rdf`, the properties') whether it uses them or not. [`declare_used`] takes that
//! value and gives it with only the declarations it needs.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// One element's namespace declarations: `(prefix, namespace)`, the default namespace's
/// prefix empty, an undeclared default namespace (`xmlns=""`) empty.
type Scope = Vec<(Vec<u8>, Vec<u8>)>;

/// `value`, an XML literal as `oxrdfxml` writes it, with each namespace declared once where it
/// is first used and nothing else declared; `None` when it needs no change (or is no XML this
/// can read: then it is left as it is).
///
/// ```text
/// <h:b xmlns:h="x" xmlns:rdf="…" xmlns:h="x">a <h:i>b</h:i></h:b>  →  <h:b xmlns:h="x">a <h:i>b</h:i></h:b>
/// ```
pub(crate) fn declare_used(value: &str) -> Option<String> {
    if !value.contains("xmlns") {
        return None;
    }
    let mut reader = Reader::from_str(value);
    // Declarations as written (what names mean) and as output (what is declared already).
    let mut written: Vec<Scope> = Vec::new();
    let mut output: Vec<Scope> = Vec::new();
    let mut fixed = String::with_capacity(value.len());
    let mut copied = 0;
    loop {
        let before = usize::try_from(reader.buffer_position()).ok()?;
        let event = reader.read_event().ok()?;
        let after = usize::try_from(reader.buffer_position()).ok()?;
        match event {
            Event::Start(ref start) | Event::Empty(ref start) => {
                let empty = matches!(event, Event::Empty(_));
                fixed.push_str(value.get(copied..before)?);
                let (tag, declared, own) = start_tag(start, &written, &output)?;
                fixed.push_str(&tag);
                fixed.push_str(if empty { "/>" } else { ">" });
                copied = after;
                if !empty {
                    written.push(own);
                    output.push(declared);
                }
            }
            Event::End(_) => {
                written.pop();
                output.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    fixed.push_str(value.get(copied..)?);
    (fixed != value).then_some(fixed)
}

/// The start tag of `start` (without its `>`) with the declarations its names need, and the
/// declarations written on it (output) and made by it (as written).
fn start_tag(
    start: &BytesStart<'_>,
    written: &[Scope],
    output: &[Scope],
) -> Option<(String, Scope, Scope)> {
    let mut own: Scope = Vec::new();
    let mut attributes = Vec::new();
    for attribute in start.attributes().with_checks(false) {
        let attribute = attribute.ok()?;
        let key = attribute.key.as_ref();
        let prefix = if key == b"xmlns" {
            Some(&b""[..])
        } else {
            key.strip_prefix(b"xmlns:")
        };
        match prefix {
            // The first declaration of a prefix is the element's own (oxrdfxml adds those in
            // scope after it).
            Some(prefix) => {
                if !own.iter().any(|(p, _)| p == prefix) {
                    own.push((prefix.to_vec(), attribute.value.to_vec()));
                }
            }
            None => attributes.push((key.to_vec(), attribute.value.to_vec())),
        }
    }
    let bound = |prefix: &[u8], scopes: &[Scope], own: &[(Vec<u8>, Vec<u8>)]| -> Option<Vec<u8>> {
        own.iter()
            .chain(scopes.iter().rev().flatten())
            .find(|(p, _)| p == prefix)
            .map(|(_, namespace)| namespace.clone())
    };
    // The prefixes the names use: the element's (the default namespace's when it has none),
    // then its attributes' (an attribute without a prefix is in no namespace).
    let name = start.name();
    let mut used: Vec<&[u8]> = vec![name.prefix().map_or(&b""[..], |p| p.into_inner())];
    for (key, _) in &attributes {
        if let Some(colon) = key.iter().position(|&b| b == b':') {
            let prefix = &key[..colon];
            if prefix != b"xml" && !used.contains(&prefix) {
                used.push(prefix);
            }
        }
    }
    let mut declared: Scope = Vec::new();
    for prefix in used {
        let meaning = bound(prefix, written, &own).unwrap_or_default();
        let declared_already = bound(prefix, output, &[]).unwrap_or_default();
        // An unbound prefix (not XML with namespaces) is left as it is; an unbound default
        // namespace needs `xmlns=""` only where an outer element declared one.
        if meaning != declared_already && (!meaning.is_empty() || prefix.is_empty()) {
            declared.push((prefix.to_vec(), meaning));
        }
    }
    let mut tag = String::with_capacity(start.len() + 1);
    tag.push('<');
    tag.push_str(std::str::from_utf8(name.as_ref()).ok()?);
    for (prefix, namespace) in &declared {
        tag.push_str(" xmlns");
        if !prefix.is_empty() {
            tag.push(':');
            tag.push_str(std::str::from_utf8(prefix).ok()?);
        }
        tag.push_str("=\"");
        tag.push_str(std::str::from_utf8(namespace).ok()?);
        tag.push('"');
    }
    for (key, value) in &attributes {
        tag.push(' ');
        tag.push_str(std::str::from_utf8(key).ok()?);
        tag.push_str("=\"");
        tag.push_str(std::str::from_utf8(value).ok()?);
        tag.push('"');
    }
    Some((tag, declared, own))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_made_twice_is_made_once() {
        assert_eq!(
            declare_used(r#"<h:b xmlns:h="x" xmlns:rdf="r" xmlns:h="x">a</h:b>"#).as_deref(),
            Some(r#"<h:b xmlns:h="x">a</h:b>"#)
        );
    }

    #[test]
    fn inner_elements_use_the_outer_declaration() {
        assert_eq!(
            declare_used(r#"t <h:b xmlns:rdf="r" xmlns:h="x"><h:i xmlns:h="x">a</h:i><h:i xmlns:h="y"/></h:b> u"#)
                .as_deref(),
            Some(r#"t <h:b xmlns:h="x"><h:i>a</h:i><h:i xmlns:h="y"/></h:b> u"#)
        );
    }

    #[test]
    fn the_default_namespace_is_declared_and_undeclared_where_needed() {
        assert_eq!(
            declare_used(r#"<b xmlns="d" xmlns:e="e"><c xmlns="">x</c><e:f a="1" e:g="2"/></b>"#)
                .as_deref(),
            Some(r#"<b xmlns="d"><c xmlns="">x</c><e:f xmlns:e="e" a="1" e:g="2"/></b>"#)
        );
        assert_eq!(
            declare_used(r#"<b xmlns="" xmlns:r="r">x</b>"#).as_deref(),
            Some("<b>x</b>")
        );
    }

    #[test]
    fn text_and_literals_without_declarations_are_left_alone() {
        assert_eq!(declare_used("a &amp; b"), None);
        assert_eq!(declare_used(r#"<b xmlns="d">x</b>"#), None);
        assert_eq!(
            declare_used(r#"<b xmlns="d" xmlns="d">x</c>"#),
            None,
            "no XML: left alone"
        );
    }
}
