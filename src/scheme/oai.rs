//! OAI identifiers ("Specification and XML Schema for the OAI Identifier Format", OAI-PMH
//! Implementation Guidelines).
//!
//! ```text
//! oai-identifier       = scheme ":" namespace-identifier ":" local-identifier
//! scheme               = "oai"
//! namespace-identifier = domainname-word "." domainname
//! domainname           = domainname-word [ "." domainname ]
//! domainname-word      = alpha *( alphanum | "-" )
//! local-identifier     = 1*uric          ; RFC 2396, hex digits upper case
//! ```
//!
//! Two OAI identifiers are equivalent only when they are identical strings, so a valid one is
//! never changed and an invalid one never repaired.

use super::poi::Poi;
use super::{Canonical, SchemeAdapter};
use crate::url_prefix::starts_with_ignore_case;
use crate::{IdError, Kind, PoiOai, Policy, Rule};
use std::borrow::Cow;

/// The scheme of every OAI identifier, in this case only.
pub const PREFIX: &str = "oai:";

/// A valid OAI identifier.
///
/// ```
/// use pidcanon::scheme::oai::OaiIdentifier;
/// let id = OaiIdentifier::parse("oai:arXiv.org:hep-th/9901001").unwrap();
/// assert_eq!((id.namespace(), id.local()), ("arXiv.org", "hep-th/9901001"));
/// assert_eq!(id.to_poi().as_str(), "http://purl.org/poi/arXiv.org/hep-th/9901001");
/// assert!(OaiIdentifier::parse("oai:wibble.org:ab%3ccd").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OaiIdentifier<'a> {
    text: Cow<'a, str>,
    colon: usize,
}

impl<'a> OaiIdentifier<'a> {
    /// Parses an OAI identifier.
    pub fn parse(s: &'a str) -> Result<Self, IdError> {
        let kind = Kind::Oai;
        let Some(rest) = s.strip_prefix(PREFIX) else {
            let rule = if starts_with_ignore_case(s, PREFIX) {
                "the scheme is \"oai\" in lower case: OAI identifiers are case-sensitive"
            } else {
                "an OAI identifier starts with \"oai:\""
            };
            return Err(IdError::new(kind, Rule::Grammar(rule), 0));
        };
        let Some((namespace, local)) = rest.split_once(':') else {
            return Err(IdError::new(
                kind,
                Rule::Grammar("a ':' must separate namespace-identifier and local-identifier"),
                s.len(),
            ));
        };
        check_domain(namespace, kind, PREFIX.len())?;
        let colon = PREFIX.len() + namespace.len();
        check_uric(local, kind, colon + 1)?;
        Ok(Self {
            text: Cow::Borrowed(s),
            colon,
        })
    }

    /// A valid identifier built from its parts, e.g. from a POI.
    pub(crate) fn from_parts(namespace: &str, local: &str) -> OaiIdentifier<'static> {
        OaiIdentifier {
            text: Cow::Owned(format!("{PREFIX}{namespace}:{local}")),
            colon: PREFIX.len() + namespace.len(),
        }
    }

    /// The namespace-identifier, a domain name.
    #[must_use]
    pub fn namespace(&self) -> &str {
        &self.text[PREFIX.len()..self.colon]
    }

    /// The local-identifier.
    #[must_use]
    pub fn local(&self) -> &str {
        &self.text[self.colon + 1..]
    }

    /// The POI of the resource this record describes (POI spec §4).
    #[must_use]
    pub fn to_poi(&self) -> Poi<'static> {
        Poi::from_parts(self.namespace(), self.local())
    }

    /// An owned copy.
    #[must_use]
    pub fn into_owned(self) -> OaiIdentifier<'static> {
        OaiIdentifier {
            text: Cow::Owned(self.text.into_owned()),
            colon: self.colon,
        }
    }
}

canonical_text!(OaiIdentifier, text);

/// Byte classes of the two rules, one table lookup a byte.
const DOMAIN_WORD: u8 = 1;
const URIC: u8 = 2;
static CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'-' {
            table[b] |= DOMAIN_WORD;
        }
        if is_reserved(c) || is_unreserved(c) {
            table[b] |= URIC;
        }
        b += 1;
    }
    table
};

/// Checks `namespace-identifier = domainname-word "." domainname` (shared with POIs).
pub(crate) fn check_domain(s: &str, kind: Kind, base: usize) -> Result<(), IdError> {
    if is_domain(s.as_bytes()) {
        Ok(())
    } else {
        domain_error(s, kind, base)
    }
}

/// Whether `s` is a domain name of two or more words: one pass over a byte table.
fn is_domain(s: &[u8]) -> bool {
    let mut word_start = true;
    let mut dots = 0;
    for &b in s {
        if word_start {
            if !b.is_ascii_alphabetic() {
                return false;
            }
            word_start = false;
        } else if b == b'.' {
            word_start = true;
            dots += 1;
        } else if CLASSES[usize::from(b)] & DOMAIN_WORD == 0 {
            return false;
        }
    }
    !word_start && dots > 0
}

/// The error of a namespace-identifier that is not a domain name.
#[cold]
fn domain_error(s: &str, kind: Kind, base: usize) -> Result<(), IdError> {
    let part = "namespace-identifier";
    if s.is_empty() {
        return Err(IdError::new(kind, Rule::Empty { part }, base));
    }
    let mut at = base;
    for word in s.split('.') {
        match word.chars().next() {
            None => {
                return Err(IdError::new(
                    kind,
                    Rule::Grammar("a domain name word is empty"),
                    at,
                ));
            }
            Some(c) if !c.is_ascii_alphabetic() => {
                return Err(IdError::new(
                    kind,
                    Rule::Grammar("a domain name word must start with a letter"),
                    at,
                ));
            }
            Some(_) => {}
        }
        if let Some((i, ch)) = word
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(IdError::new(kind, Rule::Char { ch, part }, at + i));
        }
        at += word.len() + 1;
    }
    if !s.contains('.') {
        return Err(IdError::new(
            kind,
            Rule::Grammar("namespace-identifier must be a domain name of two or more words"),
            base,
        ));
    }
    Ok(())
}

/// RFC 2396 `reserved`.
const fn is_reserved(c: u8) -> bool {
    matches!(
        c,
        b';' | b'/' | b'?' | b':' | b'@' | b'&' | b'=' | b'+' | b'$' | b','
    )
}

/// RFC 2396 `unreserved`.
const fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
        )
}

/// Whether `b` is a byte of `uric` other than `%`.
fn is_uric(b: u8) -> bool {
    CLASSES[usize::from(b)] & URIC != 0
}

/// Checks `local-identifier = 1*uric` with upper-case hex, no escape of a reserved or
/// unreserved character (shared with POIs).
pub(crate) fn check_uric(s: &str, kind: Kind, base: usize) -> Result<(), IdError> {
    if is_local_identifier(s) {
        Ok(())
    } else {
        local_identifier_error(s, kind, base)
    }
}

/// Whether `s` is a non-empty `1*uric` whose escapes are upper-case and needed: one pass over
/// a byte table.
fn is_local_identifier(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            match crate::pct::escape_at(s, i) {
                Some(d)
                    if !is_uric(d) && !bytes[i + 1..i + 3].iter().any(u8::is_ascii_lowercase) =>
                {
                    i += 3;
                }
                _ => return false,
            }
        } else if is_uric(b) {
            i += 1;
        } else {
            return false;
        }
    }
    i > 0
}

/// The error of a local-identifier that is not `1*uric` with needed, upper-case escapes.
#[cold]
fn local_identifier_error(s: &str, kind: Kind, base: usize) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::new(
            kind,
            Rule::Empty {
                part: "local-identifier",
            },
            base,
        ));
    }
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        let rule = if c == '%' {
            chars.nth(1);
            match crate::pct::escape_at(s, i) {
                None => Some(Rule::BadEscape),
                Some(_) if s[i + 1..i + 3].bytes().any(|b| b.is_ascii_lowercase()) => {
                    Some(Rule::LowercaseHex)
                }
                Some(b) if is_uric(b) => Some(Rule::NeedlessEscape { ch: b as char }),
                Some(_) => None,
            }
        } else if c.is_ascii() && is_uric(c as u8) {
            None
        } else {
            Some(Rule::Char {
                ch: c,
                part: "local-identifier",
            })
        };
        if let Some(rule) = rule {
            return Err(IdError::new(kind, rule, base + i));
        }
    }
    Ok(())
}

/// Validates OAI identifiers; maps them to POIs when the policy merges the two.
#[derive(Debug, Clone, Default)]
pub struct OaiAdapter {
    poi_oai: PoiOai,
}

impl OaiAdapter {
    /// The adapter for `policy`.
    #[must_use]
    pub fn new(policy: &Policy) -> Self {
        Self {
            poi_oai: policy.poi_oai,
        }
    }
}

impl SchemeAdapter for OaiAdapter {
    fn names(&self) -> &'static [&'static str] {
        &["oai"]
    }

    fn routes(&self) -> Vec<String> {
        vec!["oai".to_owned()]
    }

    /// `oai:` in any case: `OAI:…` is claimed and reported invalid.
    fn claims(&self, iri: &str) -> bool {
        starts_with_ignore_case(iri, PREFIX)
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        let id = OaiIdentifier::parse(iri)?;
        let iri = match self.poi_oai {
            PoiOai::Poi => Cow::Owned(id.to_poi().as_str().to_owned()),
            PoiOai::Keep | PoiOai::Oai => id.into_cow(),
        };
        Ok(Canonical::new(iri, Kind::Oai))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::generated_strings;

    #[test]
    fn errors_name_the_rule_and_the_byte() {
        for (input, offset, message) in [
            (
                "oai:999:abc123",
                4,
                "a domain name word must start with a letter",
            ),
            (
                "oai:wibble:abc123",
                4,
                "namespace-identifier must be a domain name of two or more words",
            ),
            ("oai:wibble..org:x", 11, "a domain name word is empty"),
            (
                "oai:wib_ble.org:x",
                7,
                "character '_' is not allowed in namespace-identifier",
            ),
            (
                "oai:wibble.org:ab cd",
                17,
                "character ' ' is not allowed in local-identifier",
            ),
            (
                "oai:wibble.org:ab%3ccd",
                17,
                "escapes must use upper-case hex digits (%3C, not %3c)",
            ),
            (
                "oai:wibble.org:ab%3Fcd",
                17,
                "'?' must not be percent-escaped",
            ),
            (
                "oai:wibble.org:ab%3",
                17,
                "'%' must be followed by two hex digits",
            ),
            (
                "oai:wibble.org",
                14,
                "a ':' must separate namespace-identifier and local-identifier",
            ),
            (
                "OAI:foo.org:x",
                0,
                "the scheme is \"oai\" in lower case: OAI identifiers are case-sensitive",
            ),
        ] {
            let err = OaiIdentifier::parse(input).unwrap_err();
            assert_eq!(
                (err.offset(), err.rule().to_string().as_str()),
                (offset, message),
                "{input}"
            );
        }
    }

    #[test]
    fn valid_identifiers_are_borrowed_unchanged() {
        for input in ["oai:foo.a:x", "oai:a-b.c-d:;/?:@&=+$,-_.!~*'()%20%25"] {
            let id = OaiIdentifier::parse(input).unwrap();
            assert!(matches!(id.into_cow(), Cow::Borrowed(s) if s == input));
        }
    }

    /// The byte-table scans accept exactly what the character-by-character checks accept.
    #[test]
    fn table_scans_agree_with_the_full_checks() {
        for s in generated_strings("", &["a", "Z", "1", "-", ".", "_", "é"], 5) {
            let full = domain_error(&s, Kind::Oai, 0).is_ok();
            assert_eq!(is_domain(s.as_bytes()), full, "{s:?}");
        }
        for s in generated_strings("", &["a", "%", "2", "F", "f", "0", "7", "/", " ", "é"], 5) {
            let full = local_identifier_error(&s, Kind::Oai, 0).is_ok();
            assert_eq!(is_local_identifier(&s), full, "{s:?}");
        }
    }
}
