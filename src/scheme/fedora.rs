//! Fedora PIDs, `info:fedora/` object and dissemination URIs, and REST / API-A-Lite URLs under
//! configured bases (the Fedora 3 specification "Fedora Identifiers: PIDs and URIs"; its
//! section numbers below).
//!
//! ```text
//! object-pid        = namespace-id ":" object-id
//! namespace-id      = 1*( ALPHA / DIGIT / "-" / "." )
//! object-id         = 1*( ALPHA / DIGIT / "-" / "." / "~" / "_" / escaped-octet )
//! escaped-octet     = "%" HEXDIG HEXDIG                  ; at most 64 characters in all
//! dissemination-uri = "info:fedora/" pid "/" ( method-call / datastream-id )
//! method-call       = bDef-pid "/" method-name [ "?" param *( "&" param ) ]
//! param             = paramName "=" paramValue
//! ```
//!
//! Normalization (§1.3, §3.3): PID hex digits upper-cased and a `%3A`/`%3a` separator written
//! `:`, but no escape inside a PID decoded; in datastream ids, method names and parameters,
//! escapes of characters that need none are decoded, the rest upper-cased, non-ASCII escaped;
//! parameters sorted by name, then value, by their decoded UTF-8 bytes.

use super::url_prefix::{UrlPrefix, starts_with_ignore_case};
use super::{Canonical, SchemeAdapter, find_byte, split_byte, split_once_byte};
use crate::iri::{is_ipchar, is_pchar};
use crate::pct::{self, Escaping, HexCase, Splice};
use crate::{IdError, Kind, Policy, PolicyError, Rule};
use std::borrow::Cow;
use std::ops::Range;

/// The prefix of every Fedora object and dissemination URI.
pub const PREFIX: &str = "info:fedora/";
/// The longest PID allowed (§1.1), counted on the normalized PID.
pub const MAX_PID_LEN: usize = 64;
/// The longest datastream id Fedora 3 accepts, in characters of the decoded id.
pub const MAX_DATASTREAM_ID_LEN: usize = 64;

/// A normalized Fedora PID (§1).
///
/// ```
/// use pidcanon::scheme::fedora::Pid;
/// let pid = Pid::parse("demo%3aA-B.C_D%3ae").unwrap();
/// assert_eq!(pid.as_str(), "demo:A-B.C_D%3Ae");
/// assert_eq!((pid.namespace(), pid.object_id()), ("demo", "A-B.C_D%3Ae"));
/// assert!(Pid::parse("demo:a b").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pid<'a> {
    text: Cow<'a, str>,
    colon: usize,
}

impl<'a> Pid<'a> {
    /// Parses and normalizes a PID.
    pub fn parse(s: &'a str) -> Result<Self, IdError> {
        parse_pid(s, Kind::FedoraObject, 0)
    }

    /// The namespace-id, before the `:`.
    #[must_use]
    pub fn namespace(&self) -> &str {
        &self.text[..self.colon]
    }

    /// The object-id, after the `:`.
    #[must_use]
    pub fn object_id(&self) -> &str {
        &self.text[self.colon + 1..]
    }

    /// The object URI, `info:fedora/` + PID.
    #[must_use]
    pub fn to_uri(&self) -> String {
        format!("{PREFIX}{}", self.text)
    }

    /// An owned copy.
    #[must_use]
    pub fn into_owned(self) -> Pid<'static> {
        Pid {
            text: Cow::Owned(self.text.into_owned()),
            colon: self.colon,
        }
    }
}

canonical_text!(Pid, text);

/// A normalized `info:fedora/` URI: an object, a datastream or a method call (§2, §3).
///
/// ```
/// use pidcanon::scheme::fedora::{FedoraUri, Target};
/// let uri = FedoraUri::parse("info:fedora/demo%3A1/demo:MyBDef/method?b=2&a=1").unwrap();
/// assert_eq!(uri.as_str(), "info:fedora/demo:1/demo:MyBDef/method?a=1&b=2");
/// assert_eq!(uri.pid(), "demo:1");
/// assert_eq!(uri.target(), Target::MethodCall { bdef: "demo:MyBDef", method: "method", params: Some("a=1&b=2") });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FedoraUri<'a> {
    iri: Cow<'a, str>,
    pid: Range<usize>,
    target: TargetRanges,
}

/// What a [`FedoraUri`] names besides its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'s> {
    /// The object itself.
    Object,
    /// A datastream dissemination.
    Datastream {
        /// The datastream id, escapes normalized.
        id: &'s str,
    },
    /// A method-call dissemination.
    MethodCall {
        /// The behavior definition's PID.
        bdef: &'s str,
        /// The method name.
        method: &'s str,
        /// The sorted parameters, without the `?`.
        params: Option<&'s str>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum TargetRanges {
    Object,
    Datastream(Range<usize>),
    MethodCall {
        bdef: Range<usize>,
        method: Range<usize>,
        params: Option<Range<usize>>,
    },
}

impl<'a> FedoraUri<'a> {
    /// Parses and normalizes an `info:fedora/` URI (prefix in any case).
    pub fn parse(iri: &'a str) -> Result<Self, IdError> {
        if !starts_with_ignore_case(iri, PREFIX) {
            return Err(IdError::new(
                Kind::FedoraObject,
                Rule::Grammar("a Fedora URI starts with \"info:fedora/\""),
                0,
            ));
        }
        if let Some(uri) = Self::canonical_object(iri) {
            return Ok(uri);
        }
        Parts::parse(iri)?.assemble(iri)
    }

    /// The object URI `iri` when it is already canonical (`info:fedora/` in lower case, a valid
    /// PID with upper-case escapes, nothing after it): one byte scan, no allocation. `None`
    /// leaves every other input, valid or not, to the full parse.
    fn canonical_object(iri: &'a str) -> Option<Self> {
        let pid = iri.strip_prefix(PREFIX)?;
        let colon = find_byte(pid, b':')?;
        let (namespace, object_id) = (&pid.as_bytes()[..colon], &pid.as_bytes()[colon + 1..]);
        let namespace_ok = namespace.iter().all(|&b| is_namespace_byte(b));
        let upper_hex = |b: &u8| b.is_ascii_digit() || (b'A'..=b'F').contains(b);
        let mut i = 0;
        while let Some(&b) = object_id.get(i) {
            if b == b'%' {
                if !object_id.get(i + 1..i + 3)?.iter().all(upper_hex) {
                    return None;
                }
                i += 3;
            } else if is_object_id_byte(b) {
                i += 1;
            } else {
                return None;
            }
        }
        let doubled =
            namespace.eq_ignore_ascii_case(b"info") && object_id.eq_ignore_ascii_case(b"fedora");
        (namespace_ok
            && !namespace.is_empty()
            && !object_id.is_empty()
            && pid.len() <= MAX_PID_LEN
            && !doubled)
            .then(|| FedoraUri {
                iri: Cow::Borrowed(iri),
                pid: PREFIX.len()..iri.len(),
                target: TargetRanges::Object,
            })
    }

    /// The object's PID (`*` in the resource index's `info:fedora/*/DS` patterns).
    #[must_use]
    pub fn pid(&self) -> &str {
        &self.iri[self.pid.clone()]
    }

    /// What the URI names.
    #[must_use]
    pub fn target(&self) -> Target<'_> {
        match &self.target {
            TargetRanges::Object => Target::Object,
            TargetRanges::Datastream(id) => Target::Datastream {
                id: &self.iri[id.clone()],
            },
            TargetRanges::MethodCall {
                bdef,
                method,
                params,
            } => Target::MethodCall {
                bdef: &self.iri[bdef.clone()],
                method: &self.iri[method.clone()],
                params: params.clone().map(|p| &self.iri[p]),
            },
        }
    }

    /// [`Kind::FedoraObject`] or [`Kind::FedoraDissemination`].
    #[must_use]
    pub fn kind(&self) -> Kind {
        match self.target {
            TargetRanges::Object => Kind::FedoraObject,
            _ => Kind::FedoraDissemination,
        }
    }

    /// An owned copy.
    #[must_use]
    pub fn into_owned(self) -> FedoraUri<'static> {
        FedoraUri {
            iri: Cow::Owned(self.iri.into_owned()),
            pid: self.pid,
            target: self.target,
        }
    }
}

canonical_text!(FedoraUri, iri);

/// Escapes in datastream ids, method names and parameters: what `pchar` allows is decoded,
/// except the characters that structure a method call's parameters.
const COMPONENT: Escaping = Escaping {
    decode: |c| is_pchar(c) && !matches!(c, '&' | '=' | '+'),
    keep: |c| c.is_ascii() && (is_pchar(c) || matches!(c, '/' | '?')),
    hex: HexCase::Upper,
};

/// Escapes in a PID: none decoded, hex upper-cased.
const PID_HEX: Escaping = Escaping {
    decode: |_| false,
    keep: |_| true,
    hex: HexCase::Upper,
};

/// The normalized pieces of a Fedora URI, in the order they are written.
struct Parts<'a> {
    pid: Cow<'a, str>,
    target: PartsTarget<'a>,
    fragment: Option<&'a str>,
}

enum PartsTarget<'a> {
    Object,
    Datastream(Cow<'a, str>),
    MethodCall {
        bdef: Cow<'a, str>,
        method: Cow<'a, str>,
        params: Option<Cow<'a, str>>,
    },
}

impl<'a> Parts<'a> {
    /// Parses `info:fedora/…` (prefix in any case).
    fn parse(iri: &'a str) -> Result<Self, IdError> {
        let start = PREFIX.len();
        let (main, fragment) = match find_byte(iri, b'#') {
            Some(hash) => (&iri[start..hash], Some((&iri[hash + 1..], hash + 1))),
            None => (&iri[start..], None),
        };
        let (pid, rest) = match split_once_byte(main, b'/') {
            Some((pid, rest)) => (pid, Some(rest)),
            None => (main, None),
        };
        let kind = if rest.is_some() {
            Kind::FedoraDissemination
        } else {
            Kind::FedoraObject
        };
        let pid = if pid == "*" && rest.is_some() {
            Cow::Borrowed(pid)
        } else {
            let parsed = parse_pid(pid, kind, start)?;
            if parsed.namespace().eq_ignore_ascii_case("info")
                && parsed.object_id().eq_ignore_ascii_case("fedora")
            {
                return Err(IdError::new(
                    Kind::FedoraObject,
                    Rule::Grammar("doubled \"info:fedora/\" prefix"),
                    start,
                ));
            }
            parsed.text
        };
        let target = match rest {
            None => PartsTarget::Object,
            Some(rest) => parse_target(rest, start + pid_len_in(main))?,
        };
        if let Some((fragment, at)) = fragment {
            if let Err(e) = iri_string::types::IriFragmentStr::new(fragment) {
                let message = e.to_string();
                let rule = message
                    .strip_prefix("invalid IRI: ")
                    .unwrap_or(&message)
                    .to_owned();
                return Err(IdError::new(kind, Rule::Iri(rule), at));
            }
        }
        Ok(Self {
            pid,
            target,
            fragment: fragment.map(|(f, _)| f),
        })
    }

    /// The pieces of the canonical URI, in order.
    fn pieces(&self) -> impl Iterator<Item = &str> {
        let target: [&str; 6] = match &self.target {
            PartsTarget::Object => ["", "", "", "", "", ""],
            PartsTarget::Datastream(id) => ["/", id, "", "", "", ""],
            PartsTarget::MethodCall {
                bdef,
                method,
                params,
            } => match params {
                Some(p) => ["/", bdef, "/", method, "?", p],
                None => ["/", bdef, "/", method, "", ""],
            },
        };
        let fragment = self.fragment.map_or(["", ""], |f| ["#", f]);
        [PREFIX, &self.pid]
            .into_iter()
            .chain(target)
            .chain(fragment)
    }

    /// The canonical URI, borrowing `input` when it is already canonical.
    fn assemble(self, input: &'a str) -> Result<FedoraUri<'a>, IdError> {
        let iri = pct::join_or_borrow(input, || self.pieces());
        let pid = PREFIX.len()..PREFIX.len() + self.pid.len();
        let after_pid = pid.end + 1;
        let target = match &self.target {
            PartsTarget::Object => TargetRanges::Object,
            PartsTarget::Datastream(id) => {
                TargetRanges::Datastream(after_pid..after_pid + id.len())
            }
            PartsTarget::MethodCall {
                bdef,
                method,
                params,
            } => {
                let bdef_range = after_pid..after_pid + bdef.len();
                let method_start = bdef_range.end + 1;
                let method_range = method_start..method_start + method.len();
                let params = params
                    .as_ref()
                    .map(|p| method_range.end + 1..method_range.end + 1 + p.len());
                TargetRanges::MethodCall {
                    bdef: bdef_range,
                    method: method_range,
                    params,
                }
            }
        };
        Ok(FedoraUri { iri, pid, target })
    }
}

/// The byte length of the PID at the start of `main` (up to the first `/`).
fn pid_len_in(main: &str) -> usize {
    find_byte(main, b'/').map_or(main.len(), |i| i + 1)
}

/// Parses what follows `PID/`: a datastream id, or a bDef PID, a method name and parameters.
/// `base` is the offset of `rest` in the input.
fn parse_target(rest: &str, base: usize) -> Result<PartsTarget<'_>, IdError> {
    let kind = Kind::FedoraDissemination;
    let (path, query) = match split_once_byte(rest, b'?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    let mut segments = split_byte(path, b'/');
    let first = segments.next().unwrap_or_default();
    match (segments.next(), segments.next()) {
        (None, _) => {
            if query.is_some() {
                return Err(IdError::new(
                    kind,
                    Rule::Grammar("only a method call takes parameters"),
                    base + path.len(),
                ));
            }
            Ok(PartsTarget::Datastream(ncname(
                first,
                "datastream-id",
                base,
                Some(MAX_DATASTREAM_ID_LEN),
            )?))
        }
        (Some(method), None) => {
            let bdef = parse_pid(first, kind, base)?.text;
            let method_at = base + first.len() + 1;
            let method = ncname(method, "method-name", method_at, None)?;
            let params = query
                .map(|q| params(q, base + path.len() + 1))
                .transpose()?;
            Ok(PartsTarget::MethodCall {
                bdef,
                method,
                params,
            })
        }
        (Some(_), Some(_)) => Err(IdError::new(
            kind,
            Rule::Grammar("a dissemination is a datastream-id, or a bDef PID and a method name"),
            base + first.len(),
        )),
    }
}

/// Parses and normalizes a PID that starts `base` bytes into the input.
fn parse_pid(s: &str, kind: Kind, base: usize) -> Result<Pid<'_>, IdError> {
    let err = |rule, at: usize| Err(IdError::new(kind, rule, base + at));
    let (colon, object_start) = match find_byte(s, b':') {
        Some(i) => (i, i + 1),
        None => match s
            .as_bytes()
            .windows(3)
            .position(|w| w.eq_ignore_ascii_case(b"%3a"))
        {
            Some(i) => (i, i + 3),
            None => {
                return err(
                    Rule::Grammar("a PID needs a ':' between namespace-id and object-id"),
                    s.len(),
                );
            }
        },
    };
    let (namespace, object_id) = (&s[..colon], &s[object_start..]);
    if namespace.is_empty() {
        return err(
            Rule::Empty {
                part: "namespace-id",
            },
            0,
        );
    }
    if let Some((i, ch)) = namespace
        .char_indices()
        .find(|&(_, c)| !u8::try_from(c).is_ok_and(is_namespace_byte))
    {
        return err(
            Rule::Char {
                ch,
                part: "namespace-id",
            },
            i,
        );
    }
    if object_id.is_empty() {
        return err(Rule::Empty { part: "object-id" }, object_start);
    }
    if let Some((i, ch)) = object_id
        .char_indices()
        .find(|&(_, c)| !u8::try_from(c).is_ok_and(is_object_id_byte))
    {
        return err(
            Rule::Char {
                ch,
                part: "object-id",
            },
            object_start + i,
        );
    }
    let object_id =
        pct::normalize(object_id, &PID_HEX).map_err(|e| e.at(kind, base + object_start))?;
    let len = colon + 1 + object_id.len();
    if len > MAX_PID_LEN {
        return err(
            Rule::TooLong {
                part: "PID",
                len,
                max: MAX_PID_LEN,
            },
            0,
        );
    }
    let mut text = Splice::new(s);
    text.keep(0..colon);
    text.put(colon..object_start, ":");
    text.put(object_start..s.len(), &object_id);
    Ok(Pid {
        text: text.finish(),
        colon,
    })
}

/// Checks that `s` holds only characters an IRI can hold where it stands (`ipchar`, and in a
/// query `/`, `?` and `iprivate` too): no repair, a raw space is an error, not `%20`.
fn check_iri_chars(
    s: &str,
    part: &'static str,
    base: usize,
    in_query: bool,
) -> Result<(), IdError> {
    let allowed = |c: char| {
        c == '%'
            || is_ipchar(c)
            || (in_query && (matches!(c, '/' | '?') || crate::iri::is_iprivate(c)))
    };
    match s.char_indices().find(|&(_, c)| !allowed(c)) {
        Some((i, ch)) => Err(IdError::new(
            Kind::FedoraDissemination,
            Rule::Char { ch, part },
            base + i,
        )),
        None => Ok(()),
    }
}

/// Normalizes a datastream id or method name and checks that it is an XML NCName (§3.1) of at
/// most `max` characters.
fn ncname<'a>(
    s: &'a str,
    part: &'static str,
    base: usize,
    max: Option<usize>,
) -> Result<Cow<'a, str>, IdError> {
    let kind = Kind::FedoraDissemination;
    if s.is_empty() {
        return Err(IdError::new(kind, Rule::Empty { part }, base));
    }
    check_iri_chars(s, part, base, false)?;
    let normalized = pct::normalize(s, &COMPONENT).map_err(|e| e.at(kind, base))?;
    // Decoded character by character: a canonical id with escapes costs no allocation.
    let mut len = 0;
    for item in pct::decoded_chars(&normalized) {
        let (i, ch) = item.map_err(|e| e.at(kind, base))?;
        let allowed = if len == 0 {
            is_name_start_char(ch)
        } else {
            is_name_char(ch)
        };
        if !allowed {
            return Err(IdError::new(kind, Rule::Char { ch, part }, base + i));
        }
        len += 1;
    }
    match max {
        Some(max) if len > max => Err(IdError::new(kind, Rule::TooLong { part, len, max }, base)),
        _ => Ok(normalized),
    }
}

/// XML 1.0 (5th ed.) `NameStartChar` without `:`.
/// A character of a PID's namespace-id: `ALPHA / DIGIT / "-" / "."`.
fn is_namespace_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.')
}

/// A character of a PID's object-id: `ALPHA / DIGIT / "-" / "." / "~" / "_" / "%"` (an escape).
fn is_object_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'~' | b'_' | b'%')
}

fn is_name_start_char(c: char) -> bool {
    c.is_ascii_alphabetic()
        || c == '_'
        || matches!(c as u32,
            0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF | 0x370..=0x37D | 0x37F..=0x1FFF
            | 0x200C..=0x200D | 0x2070..=0x218F | 0x2C00..=0x2FEF | 0x3001..=0xD7FF
            | 0xF900..=0xFDCF | 0xFDF0..=0xFFFD | 0x10000..=0xEFFFF)
}

/// XML 1.0 (5th ed.) `NameChar` without `:`.
fn is_name_char(c: char) -> bool {
    is_name_start_char(c)
        || c.is_ascii_digit()
        || matches!(c, '-' | '.' | '\u{B7}')
        || matches!(c as u32, 0x300..=0x36F | 0x203F..=0x2040)
}

/// Normalizes and sorts method parameters (§3.3 steps 2–4); `base` is the offset of `query`.
/// Borrows, without allocating, when the parameters are already canonical.
fn params(query: &str, base: usize) -> Result<Cow<'_, str>, IdError> {
    let mut in_place = true;
    let mut previous: Option<(Cow<'_, str>, Cow<'_, str>)> = None;
    for param in split_params(query, base) {
        let (name, value) = param?;
        in_place &= matches!((&name, &value), (Cow::Borrowed(_), Cow::Borrowed(_)));
        if let Some((prev_name, prev_value)) = &previous {
            in_place &= cmp_param((prev_name, prev_value), (&name, &value)).is_le();
        }
        previous = Some((name, value));
    }
    if in_place {
        return Ok(Cow::Borrowed(query));
    }
    let mut sorted = split_params(query, base).collect::<Result<Vec<_>, _>>()?;
    sorted.sort_by(|(an, av), (bn, bv)| cmp_param((an, av), (bn, bv)));
    let mut out = String::with_capacity(query.len());
    for (i, (name, value)) in sorted.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    }
    Ok(Cow::Owned(out))
}

type Param<'a> = (Cow<'a, str>, Cow<'a, str>);

/// The normalized `name=value` pairs of `query`, which starts `base` bytes into the input.
fn split_params(query: &str, base: usize) -> impl Iterator<Item = Result<Param<'_>, IdError>> {
    let kind = Kind::FedoraDissemination;
    let mut at = base;
    split_byte(query, b'&').map(move |param| {
        let start = at;
        at += param.len() + 1;
        let Some((name, value)) = split_once_byte(param, b'=') else {
            return Err(IdError::new(
                kind,
                Rule::Grammar("a parameter needs '=' between name and value"),
                start + param.len(),
            ));
        };
        if name.is_empty() {
            return Err(IdError::new(
                kind,
                Rule::Empty {
                    part: "parameter name",
                },
                start,
            ));
        }
        let value_at = start + param.len() - value.len();
        check_iri_chars(name, "parameter name", start, true)?;
        check_iri_chars(value, "parameter value", value_at, true)?;
        let name = pct::normalize(name, &COMPONENT).map_err(|e| e.at(kind, start))?;
        let value = pct::normalize(value, &COMPONENT).map_err(|e| e.at(kind, value_at))?;
        Ok((name, value))
    })
}

fn cmp_param(a: (&str, &str), b: (&str, &str)) -> std::cmp::Ordering {
    pct::cmp_decoded(a.0, b.0).then_with(|| pct::cmp_decoded(a.1, b.1))
}

/// Canonicalizes Fedora PIDs and URIs, and REST URLs under the policy's Fedora bases.
#[derive(Debug, Clone, Default)]
pub struct FedoraAdapter {
    bases: Vec<UrlPrefix>,
}

impl FedoraAdapter {
    /// The adapter for `policy`'s Fedora bases.
    ///
    /// ```
    /// use pidcanon::{Policy, scheme::fedora::FedoraAdapter};
    /// let mut policy = Policy::default();
    /// policy.fedora_bases = vec!["http://localhost:8080/fedora".into(), "localhost/fedora".into()];
    /// let err = FedoraAdapter::new(&policy).unwrap_err();
    /// assert!(err.to_string().starts_with(r#"invalid Fedora base "localhost/fedora""#), "{err}");
    /// ```
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        Ok(Self::with_bases(policy.prefixes()?.fedora_bases))
    }

    /// The adapter for bases already parsed.
    pub(crate) fn with_bases(bases: Vec<UrlPrefix>) -> Self {
        Self { bases }
    }

    /// A REST or API-A-Lite URL under a base; `rest` is the path after the base, `base` its offset.
    fn url_to_uri(&self, rest: &str, base: usize) -> Result<FedoraUri<'static>, IdError> {
        let shape = || {
            IdError::new(
                Kind::FedoraObject,
                Rule::Grammar("not a Fedora object, datastream content or method URL"),
                base,
            )
        };
        let (main, fragment) = rest
            .split_once('#')
            .map_or((rest, None), |(m, f)| (m, Some(f)));
        let (path, query) = main
            .split_once('?')
            .map_or((main, None), |(p, q)| (p, Some(q)));
        let segments: Vec<&str> = path.split('/').collect();
        let (pid, target): (&str, &[&str]) = match segments.as_slice() {
            ["objects", pid] | ["get", pid] => (pid, &[]),
            ["objects", pid, "datastreams", ds, "content"] | ["get", pid, ds] => {
                (pid, std::slice::from_ref(ds))
            }
            ["objects", pid, "methods", call @ ..] | ["get", pid, call @ ..] if call.len() == 2 => {
                (pid, call)
            }
            _ => return Err(shape()),
        };
        if query.is_some() && target.len() != 2 {
            return Err(shape());
        }
        let decoded = |s: &str| {
            pct::decode(s)
                .map_err(|e| e.at(Kind::FedoraObject, base))
                .map(Cow::into_owned)
        };
        let mut iri = format!("{PREFIX}{}", decoded(pid)?);
        for (i, segment) in target.iter().enumerate() {
            let segment = decoded(segment)?;
            iri.push('/');
            if i + 1 == target.len() {
                iri.push_str(&pct::encode(
                    &segment,
                    |c| c.is_ascii() && is_pchar(c),
                    HexCase::Upper,
                ));
            } else {
                iri.push_str(&segment);
            }
        }
        for (separator, part) in [('?', query), ('#', fragment)] {
            if let Some(part) = part {
                iri.push(separator);
                iri.push_str(part);
            }
        }
        match FedoraUri::parse(&iri) {
            Ok(uri) => Ok(uri.into_owned()),
            Err(e) => Err(IdError::new(e.kind(), e.rule().clone(), base)),
        }
    }
}

impl SchemeAdapter for FedoraAdapter {
    fn names(&self) -> &'static [&'static str] {
        &["fedora"]
    }

    fn routes(&self) -> Vec<String> {
        let mut routes = vec!["info".to_owned()];
        routes.extend(self.bases.iter().flat_map(UrlPrefix::routes));
        routes
    }

    fn claims(&self, iri: &str) -> bool {
        starts_with_ignore_case(iri, PREFIX)
            || self.bases.iter().any(|b| {
                b.strip(iri).is_some_and(|(rest, _)| {
                    rest.starts_with("objects/") || rest.starts_with("get/")
                })
            })
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        if starts_with_ignore_case(iri, PREFIX) {
            let uri = FedoraUri::parse(iri)?;
            let kind = uri.kind();
            return Ok(Canonical::new(uri.into_cow(), kind));
        }
        let (rest, base) = self
            .bases
            .iter()
            .find_map(|b| b.strip(iri))
            .ok_or_else(|| {
                IdError::new(
                    Kind::FedoraObject,
                    Rule::Grammar("not under a configured Fedora base"),
                    0,
                )
            })?;
        let uri = self.url_to_uri(rest, base)?;
        let kind = uri.kind();
        Ok(Canonical::new(uri.into_cow(), kind))
    }

    /// A bare PID (`demo:1`) or a bare dissemination (`demo:1/DC`).
    fn canonicalize_bare<'a>(&self, _name: &str, id: &'a str) -> Result<Canonical<'a>, IdError> {
        let iri = format!("{PREFIX}{id}");
        match FedoraUri::parse(&iri) {
            Ok(uri) => Ok(Canonical::new(
                Cow::Owned(uri.as_str().to_owned()),
                uri.kind(),
            )),
            Err(e) => Err(IdError::new(
                e.kind(),
                e.rule().clone(),
                e.offset().saturating_sub(PREFIX.len()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_object_fast_path_agrees_with_the_full_parse() {
        let mut inputs = vec![String::new()];
        let alphabet = [
            "a", "Z", "0", ":", "%", "3", "A", "f", "~", "_", "/", "#", "é",
        ];
        for _ in 0..5 {
            inputs = inputs
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .chain(inputs.iter().cloned())
                .collect();
            inputs.dedup();
        }
        inputs.extend(["info:fedora".into(), "INFO:fedora".into(), "a".repeat(60)]);
        inputs.extend([
            "x:".to_owned() + &"b".repeat(62),
            "x:".to_owned() + &"b".repeat(63),
        ]);
        let mut fast = 0;
        for tail in &inputs {
            let iri = format!("{PREFIX}{tail}");
            let full = Parts::parse(&iri).and_then(|p| p.assemble(&iri));
            if let Some(uri) = FedoraUri::canonical_object(&iri) {
                fast += 1;
                let full = full.unwrap_or_else(|e| panic!("{iri}: fast path took it, full: {e}"));
                assert_eq!(uri, full, "{iri}");
                assert!(matches!(full.into_cow(), Cow::Borrowed(_)), "{iri}");
            } else if let Ok(full) = full {
                let canonical_object = full.kind() == Kind::FedoraObject
                    && !iri.contains('#')
                    && matches!(full.clone().into_cow(), Cow::Borrowed(_));
                assert!(
                    !canonical_object,
                    "{iri}: canonical object left to the full parse"
                );
            }
        }
        assert!(fast > 1000, "{fast}");
    }

    #[test]
    fn canonical_uris_are_borrowed() {
        for iri in [
            "info:fedora/demo:1",
            "info:fedora/demo:1/DC",
            "info:fedora/demo:1/demo:MyBDef/method?a=1&b=2",
            "info:fedora/fedora-system:def/model#hasModel",
            "info:fedora/*/DC",
        ] {
            assert!(
                matches!(FedoraUri::parse(iri).unwrap().into_cow(), Cow::Borrowed(_)),
                "{iri}"
            );
        }
    }

    #[test]
    fn exposes_the_target() {
        let uri = FedoraUri::parse("info:fedora/demo:1/title%2Ejpg").unwrap();
        assert_eq!(uri.target(), Target::Datastream { id: "title.jpg" });
        assert_eq!(uri.kind(), Kind::FedoraDissemination);
        let uri: FedoraUri<'static> = "INFO:Fedora/demo:1".parse().unwrap();
        assert_eq!(
            (uri.as_str(), uri.target()),
            ("info:fedora/demo:1", Target::Object)
        );
    }

    #[test]
    fn errors_point_at_the_broken_rule() {
        for (iri, offset, message) in [
            (
                "info:fedora/demo:a b",
                18,
                "character ' ' is not allowed in object-id",
            ),
            (
                "info:fedora/de_mo:1",
                14,
                "character '_' is not allowed in namespace-id",
            ),
            (
                "info:fedora/demo1",
                17,
                "a PID needs a ':' between namespace-id and object-id",
            ),
            (
                "info:fedora/demo:1/DC?a=1",
                21,
                "only a method call takes parameters",
            ),
            (
                "info:fedora/demo:1/a/b/c",
                20,
                "a dissemination is a datastream-id, or a bDef PID and a method name",
            ),
            (
                "info:fedora/demo:1/1DC",
                19,
                "character '1' is not allowed in datastream-id",
            ),
            (
                "info:fedora/demo:1/demo:B/m?x",
                29,
                "a parameter needs '=' between name and value",
            ),
            (
                "info:fedora/demo:1/DC%2",
                21,
                "'%' must be followed by two hex digits",
            ),
            (
                "info:fedora/info:fedora/demo:1",
                12,
                "doubled \"info:fedora/\" prefix",
            ),
        ] {
            let err = FedoraUri::parse(iri).unwrap_err();
            assert_eq!(
                (err.offset(), err.rule().to_string().as_str()),
                (offset, message),
                "{iri}"
            );
        }
    }
}
