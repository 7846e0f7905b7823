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

use super::{Canonical, SchemeAdapter, checked, find_byte, split_byte, split_once_byte};
use crate::iri::{is_ipchar, is_pchar};
use crate::pct::{self, Escaping, HexCase, Splice};
use crate::url_prefix::{UrlPrefix, starts_with_ignore_case};
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
        match Self::one_pass(iri) {
            Some(uri) => Ok(uri),
            None => Self::parse_in_full(iri),
        }
    }

    /// The full parse of an `info:fedora/` URI (prefix in any case), part by part.
    fn parse_in_full(iri: &'a str) -> Result<Self, IdError> {
        Parts::parse(iri)?.assemble(iri)
    }

    /// The canonical form of an `info:fedora/` URI (prefix in any case) read in one pass over
    /// its bytes, without allocating when it is canonical: an object, a datastream or a method
    /// call whose datastream id, method name and parameters are ASCII without escapes, with a
    /// fragment or none. What it changes: the prefix's case, a PID's `%3A` separator and the
    /// case of its hex digits, the order of the parameters. `None` leaves every other input,
    /// valid or not, to the full parse, which gives the same result (tested side by side).
    fn one_pass(iri: &'a str) -> Option<Self> {
        let bytes = iri.as_bytes();
        let start = PREFIX.len();
        let pid = match bytes.get(start..start + 2) {
            Some(b"*/") => None,
            _ => Some(
                PidScan::read(&bytes[start..]).filter(|p| !p.is_doubled_prefix(&bytes[start..]))?,
            ),
        };
        let pid_end = start + pid.as_ref().map_or(1, |p| p.end);
        let raw = match bytes.get(pid_end) {
            None | Some(b'#') if pid.is_some() => RawTarget::Object { end: pid_end },
            Some(b'/') => RawTarget::read(bytes, pid_end + 1)?,
            _ => return None,
        };
        let fragment = raw.end();
        let fragment_ok = fragment == bytes.len()
            || (bytes[fragment] == b'#' && crate::iri::is_query_and_fragment(&iri[fragment..]));
        if !fragment_ok {
            return None;
        }
        let canonical = iri.starts_with(PREFIX)
            && pid.as_ref().is_none_or(PidScan::is_canonical)
            && raw.params_sorted();
        let (text, pid_len) = if canonical {
            (Cow::Borrowed(iri), pid_end - start)
        } else {
            let mut out = String::with_capacity(iri.len());
            out.push_str(PREFIX);
            match &pid {
                Some(p) => p.push_normalized(&iri[start..pid_end], &mut out)?,
                None => out.push('*'),
            }
            raw.push_sorted(iri, pid_end, &mut out);
            out.push_str(&iri[fragment..]);
            (
                Cow::Owned(out),
                pid.as_ref().map_or(1, PidScan::normalized_len),
            )
        };
        // Ranges of the input, moved to where the normalized PID leaves them.
        let shift = pid_end - start - pid_len;
        let at = |r: Range<usize>| r.start - shift..r.end - shift;
        let target = match raw {
            RawTarget::Object { .. } => TargetRanges::Object,
            RawTarget::Datastream(id) => TargetRanges::Datastream(at(id)),
            RawTarget::MethodCall {
                bdef,
                method,
                params,
            } => TargetRanges::MethodCall {
                bdef: at(bdef),
                method: at(method),
                params: params.map(|p| at(p.query)),
            },
        };
        Some(FedoraUri {
            iri: text,
            pid: start..start + pid_len,
            target,
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

    fn into_canonical(self) -> Canonical<'a> {
        let kind = self.kind();
        Canonical::new(self.iri, kind)
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

/// A PID at the start of some bytes, as [`FedoraUri::one_pass`] reads it: where it ends and what
/// its normal form changes.
struct PidScan {
    /// The offset of the first byte after the PID (no PID character), or the length.
    end: usize,
    /// The length of the namespace-id.
    colon: usize,
    /// Whether the separator is written `%3A` or `%3a`.
    escaped_colon: bool,
    /// Whether a hex digit of an escape is in lower case.
    lower_hex: bool,
}

impl PidScan {
    /// Reads the PID at the start of `s`: a namespace-id, `:` (or `%3A`, `%3a`), an object-id with
    /// well-formed escapes, at most [`MAX_PID_LEN`] long once normalized (§1.1). `None` when
    /// there is none: the full parse says why.
    fn read(s: &[u8]) -> Option<Self> {
        let colon = s
            .iter()
            .position(|&b| !is_namespace_byte(b))
            .unwrap_or(s.len());
        let escaped_colon = match &s[colon..] {
            [b':', ..] => false,
            [b'%', b'3', b'a' | b'A', ..] => true,
            _ => return None,
        };
        let mut scan = Self {
            end: 0,
            colon,
            escaped_colon,
            lower_hex: false,
        };
        let object_start = scan.object_start();
        let mut end = object_start;
        loop {
            match s.get(end) {
                Some(b'%') => {
                    let hex = s.get(end + 1..end + 3)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    scan.lower_hex |= hex.iter().any(u8::is_ascii_lowercase);
                    end += 3;
                }
                Some(&b) if is_object_id_byte(b) => end += 1,
                _ => break,
            }
        }
        scan.end = end;
        (colon > 0 && end > object_start && scan.normalized_len() <= MAX_PID_LEN).then_some(scan)
    }

    fn object_start(&self) -> usize {
        self.colon + if self.escaped_colon { 3 } else { 1 }
    }

    /// The length of the normalized PID.
    fn normalized_len(&self) -> usize {
        if self.escaped_colon {
            self.end - 2
        } else {
            self.end
        }
    }

    fn is_canonical(&self) -> bool {
        !self.escaped_colon && !self.lower_hex
    }

    /// Whether the PID read from `pid` is `info:fedora` (in any case): a doubled prefix.
    fn is_doubled_prefix(&self, pid: &[u8]) -> bool {
        pid[..self.colon].eq_ignore_ascii_case(b"info")
            && pid[self.object_start()..self.end].eq_ignore_ascii_case(b"fedora")
    }

    /// Appends the normalized form of `pid`, the text this scan was read from.
    fn push_normalized(&self, pid: &str, out: &mut String) -> Option<()> {
        out.push_str(&pid[..self.colon]);
        out.push(':');
        let object_id = &pid[self.object_start()..self.end];
        out.push_str(&pct::normalize(object_id, &PID_HEX).ok()?);
        Some(())
    }
}

/// What follows the PID, as [`FedoraUri::one_pass`] reads it: ranges of the input.
enum RawTarget {
    /// Nothing; the fragment or the input's end is at `end`.
    Object { end: usize },
    /// A datastream id.
    Datastream(Range<usize>),
    /// A canonical bDef PID, a method name and parameters.
    MethodCall {
        bdef: Range<usize>,
        method: Range<usize>,
        params: Option<RawParams>,
    },
}

impl RawTarget {
    /// Reads what follows `PID/` at `from` in `bytes`: a datastream id, or a canonical bDef PID
    /// and a method name, each an ASCII NCName without escapes, and the method's parameters.
    /// Ends at a `#` or the input's end. `None` for anything else.
    fn read(bytes: &[u8], from: usize) -> Option<Self> {
        let segment_end = |from: usize| {
            bytes[from..]
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'#'))
                .map_or(bytes.len(), |i| from + i)
        };
        let first = from..segment_end(from);
        match bytes.get(first.end) {
            None | Some(b'#') => {
                let id = &bytes[first.clone()];
                (is_ascii_ncname(id) && id.len() <= MAX_DATASTREAM_ID_LEN)
                    .then_some(Self::Datastream(first))
            }
            Some(b'/') => {
                let bdef = PidScan::read(&bytes[first.clone()])?;
                if bdef.end != first.len() || !bdef.is_canonical() {
                    return None;
                }
                let method = first.end + 1..segment_end(first.end + 1);
                let params = match bytes.get(method.end) {
                    Some(b'/') => return None,
                    Some(b'?') => Some(RawParams::read(bytes, method.end + 1)?),
                    _ => None,
                };
                is_ascii_ncname(&bytes[method.clone()]).then_some(Self::MethodCall {
                    bdef: first,
                    method,
                    params,
                })
            }
            _ => None,
        }
    }

    /// Where the target ends: at a `#` or the input's end.
    fn end(&self) -> usize {
        match self {
            Self::Object { end } => *end,
            Self::Datastream(id) => id.end,
            Self::MethodCall { method, params, .. } => {
                params.as_ref().map_or(method.end, |p| p.query.end)
            }
        }
    }

    fn params_sorted(&self) -> bool {
        match self {
            Self::MethodCall {
                params: Some(params),
                ..
            } => params.sorted,
            _ => true,
        }
    }

    /// Appends the target of `iri`, which starts at `from`, with its parameters sorted.
    fn push_sorted(&self, iri: &str, from: usize, out: &mut String) {
        match self {
            Self::MethodCall {
                params: Some(params),
                ..
            } => {
                out.push_str(&iri[from..params.query.start]);
                params.push_sorted(iri, out);
            }
            _ => out.push_str(&iri[from..self.end()]),
        }
    }
}

/// A method call's parameters, ASCII without escapes, as [`RawTarget::read`] finds them.
struct RawParams {
    /// Where they are in the input, without the `?`.
    query: Range<usize>,
    /// Whether they are sorted by name, then value (§3.3; without escapes, by their bytes).
    sorted: bool,
}

impl RawParams {
    /// Reads `name=value` pairs separated by `&` from `from` up to a `#` or the input's end:
    /// names not empty, both of the characters a canonical parameter holds unescaped.
    fn read(bytes: &[u8], from: usize) -> Option<Self> {
        // What a canonical parameter holds unescaped: `pchar`, `/` and `?` (but `&`, which
        // separates parameters).
        let plain = |i: usize| {
            bytes.get(i).is_some_and(|&b| {
                b != b'&' && (crate::iri::is_ascii_pchar(b) || matches!(b, b'/' | b'?'))
            })
        };
        let (mut i, mut sorted, mut previous) = (from, true, None);
        loop {
            let start = i;
            while plain(i) && bytes[i] != b'=' {
                i += 1;
            }
            if i == start || bytes.get(i) != Some(&b'=') {
                return None;
            }
            let eq = i;
            i += 1;
            while plain(i) {
                i += 1;
            }
            let pair = (&bytes[start..eq], &bytes[eq + 1..i]);
            sorted &= previous.is_none_or(|p| p <= pair);
            previous = Some(pair);
            match bytes.get(i) {
                Some(b'&') => i += 1,
                None | Some(b'#') => break,
                _ => return None,
            }
        }
        Some(Self {
            query: from..i,
            sorted,
        })
    }

    /// Appends the parameters of `iri`, sorted.
    fn push_sorted(&self, iri: &str, out: &mut String) {
        fn pair(param: &str) -> (&[u8], &[u8]) {
            let (name, value) = split_once_byte(param, b'=').unwrap_or((param, ""));
            (name.as_bytes(), value.as_bytes())
        }
        let mut params: Vec<&str> = split_byte(&iri[self.query.clone()], b'&').collect();
        params.sort_unstable_by(|a, b| pair(a).cmp(&pair(b)));
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(param);
        }
    }
}

/// Whether `s` is an XML NCName of ASCII characters.
fn is_ascii_ncname(s: &[u8]) -> bool {
    let name_char = |&b: &u8| b.is_ascii() && is_name_char(char::from(b));
    s.split_first().is_some_and(|(&first, rest)| {
        first.is_ascii() && is_name_start_char(char::from(first)) && rest.iter().all(name_char)
    })
}

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

/// A character of a PID's namespace-id: `ALPHA / DIGIT / "-" / "."`.
fn is_namespace_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.')
}

/// A character of a PID's object-id: `ALPHA / DIGIT / "-" / "." / "~" / "_" / "%"` (an escape).
fn is_object_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'~' | b'_' | b'%')
}

/// XML 1.0 (5th ed.) `NameStartChar` without `:`.
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

/// A Fedora 3 REST or API-A-Lite URL that names an object or one of its disseminations (see
/// docs/canonical-forms.md), taken apart; the path segments are still escaped.
///
/// ```text
/// objects/{pid}                               get/{pid}
/// objects/{pid}/datastreams/{ds}/content      get/{pid}/{ds}
/// objects/{pid}/methods/{bdef}/{method}[?…]   get/{pid}/{bdef}/{method}[?…]
/// ```
///
/// Every other URL under a base — a datastream profile, a listing, an export, a history, a
/// dated version, an object or datastream asked for with a query — is an API resource about the
/// object, not an identifier of it.
struct RestUrl<'a> {
    pid: &'a str,
    /// The datastream id, or the bDef PID and the method, in the first `targets`.
    target: [&'a str; 2],
    targets: usize,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> RestUrl<'a> {
    /// `rest` (the URL after its base) if it names an object or a dissemination. Allocates
    /// nothing (an IRI that is not one passes through without a copy).
    fn parse(rest: &'a str) -> Option<Self> {
        let (main, fragment) = rest
            .split_once('#')
            .map_or((rest, None), |(m, f)| (m, Some(f)));
        let (path, query) = main
            .split_once('?')
            .map_or((main, None), |(p, q)| (p, Some(q)));
        let mut segments = [""; 5];
        let mut count = 0;
        for segment in path.split('/') {
            *segments.get_mut(count)? = segment;
            count += 1;
        }
        let (pid, target, targets) = match (&segments[..count], query) {
            (["objects", "nextPID"], _) => return None,
            (["objects", pid] | ["get", pid], None) => (*pid, ["", ""], 0),
            (["objects", pid, "datastreams", ds, "content"] | ["get", pid, ds], None) => {
                (*pid, [*ds, ""], 1)
            }
            (["objects", pid, "methods", bdef, method], _) => (*pid, [*bdef, *method], 2),
            // A datastream id (an NCName) holds no ':'; a bDef PID does.
            (["get", pid, bdef, method], _) if names_a_pid(bdef) => (*pid, [*bdef, *method], 2),
            _ => return None,
        };
        Some(Self {
            pid,
            target,
            targets,
            query,
            fragment,
        })
    }

    /// Nothing (the object), the datastream id, or the bDef PID and the method.
    fn target(&self) -> &[&'a str] {
        &self.target[..self.targets]
    }
}

/// Whether a path segment holds a PID's `:` (written as it is or escaped).
fn names_a_pid(segment: &str) -> bool {
    segment.contains(':') || segment.contains("%3A") || segment.contains("%3a")
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
        let Some(url) = RestUrl::parse(rest) else {
            return Err(IdError::new(
                Kind::FedoraObject,
                Rule::Grammar("not a Fedora object, datastream content or method URL"),
                base,
            ));
        };
        let decoded = |s: &str| {
            pct::decode(s)
                .map_err(|e| e.at(Kind::FedoraObject, base))
                .map(Cow::into_owned)
        };
        let (target, query, fragment) = (url.target(), url.query, url.fragment);
        let mut iri = format!("{PREFIX}{}", decoded(url.pid)?);
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
                b.strip(iri)
                    .is_some_and(|(rest, _)| RestUrl::parse(rest).is_some())
            })
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        if starts_with_ignore_case(iri, PREFIX) {
            return FedoraUri::parse(iri).map(FedoraUri::into_canonical);
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
        self.url_to_uri(rest, base).map(FedoraUri::into_canonical)
    }

    /// An `info:fedora/` URI by the one-pass path, whose forms are IRIs by construction (it
    /// keeps only characters checked to be allowed where they stand), else by the full parse.
    fn claim_valid<'a>(
        &self,
        iri: &'a str,
        _: super::sealed::Sealed,
    ) -> Option<Result<Canonical<'a>, IdError>> {
        if !starts_with_ignore_case(iri, PREFIX) {
            return self.claims(iri).then(|| checked(self.canonicalize(iri)));
        }
        Some(match FedoraUri::one_pass(iri) {
            Some(uri) => Ok(uri.into_canonical()),
            None => checked(FedoraUri::parse_in_full(iri).map(FedoraUri::into_canonical)),
        })
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
    use crate::scheme::generated_strings;

    /// Runs the one-pass path and the full parse (its result checked to be an IRI, as the
    /// registry does) side by side on `iri`: the same result whenever the one-pass path takes
    /// it, borrowed alike. Returns whether it took it.
    fn one_pass_agrees(iri: &str) -> bool {
        if !starts_with_ignore_case(iri, PREFIX) {
            return false;
        }
        let full = FedoraUri::parse_in_full(iri);
        let Some(fast) = FedoraUri::one_pass(iri) else {
            // A canonical URI of the shape the one-pass path reads must not be left to the full
            // parse: ASCII, no escape after the PID but in the fragment.
            if let Ok(full) = full {
                let hash = find_byte(iri, b'#').unwrap_or(iri.len());
                let plain = iri.is_ascii() && find_byte(&iri[full.pid.end..hash], b'%').is_none();
                assert!(
                    !(plain && matches!(full.iri, Cow::Borrowed(_))),
                    "{iri}: canonical, left to the full parse"
                );
            }
            return false;
        };
        let full = full.unwrap_or_else(|e| panic!("{iri}: the one-pass path took it, full: {e}"));
        assert_eq!(fast, full, "{iri}");
        assert_eq!(
            matches!(fast.iri, Cow::Borrowed(_)),
            matches!(full.iri, Cow::Borrowed(_)),
            "{iri}"
        );
        assert_eq!(
            Ok(fast.into_canonical()),
            checked(Ok(full.into_canonical())),
            "{iri}"
        );
        true
    }

    #[test]
    fn the_one_pass_path_agrees_with_the_full_parse_on_generated_uris() {
        let mut inputs = generated_strings(
            PREFIX,
            &[
                "a", "Z", "0", ":", "%", "3", "A", "f", "~", "_", "/", "#", "é",
            ],
            5,
        );
        inputs.extend(generated_strings(
            "info:fedora/demo:1/",
            &[
                "a", "Z", "_", "1", ":", "/", "?", "=", "&", "#", "%", "2", "f", "é", ".",
            ],
            4,
        ));
        inputs.extend(
            ["info:fedora", "INFO:fedora", &"a".repeat(60)].map(|t| format!("{PREFIX}{t}")),
        );
        let long_pids = [
            "x:".to_owned() + &"b".repeat(62),
            "x:".to_owned() + &"b".repeat(63),
        ];
        let long_ids = [
            "/".to_owned() + &"x".repeat(64),
            "/".to_owned() + &"x".repeat(65),
        ];
        let many_params = (0..20)
            .map(|i| format!("p{}=1", 20 - i))
            .collect::<Vec<_>>();
        let (sixteen, twenty) = (many_params[4..].join("&"), many_params.join("&"));
        let pids = [
            "demo:1",
            "demo%3A1",
            "demo%3a1",
            "demo:a%2f",
            "demo:a%2F",
            "demo%3aa%3ab",
            "*",
            "",
            "info:fedora",
            "INFO:Fedora",
            "info%3Afedora",
            "de_mo:1",
            "demo:1:2",
            "demo%3A1:2",
            ":1",
            "demo:",
            "demo:a%2",
            "demo:ü",
            &long_pids[0],
            &long_pids[1],
            &("x%3a".to_owned() + &"b".repeat(62)),
        ];
        let bdef_calls = [
            "",
            "/DC",
            "/dc%41",
            "/1DC",
            "/_x",
            "/a.b-c_d",
            "/é",
            "/",
            "/DC/",
            "/DC?a=1",
            &long_ids[0],
            &long_ids[1],
            "/demo:B/m",
            "/demo%3AB/m",
            "/demo:b%2f/m",
            "/demo:B%2F/m",
            "/*/m",
            "/demo:B/",
            "/demo:B/m/x",
            "/demo:B/1m",
            "/demo:B/m%41",
            "/info:fedora/m",
        ];
        let queries = [
            "",
            "?a=1&b=2",
            "?b=2&a=1",
            "?a=1&a=0",
            "?a=0&a=1",
            "?a=1&a=1",
            "?a",
            "?=1",
            "?a=1&",
            "?",
            "?a=%41",
            "?a=b=c",
            "?a=1?x/y",
            "?a=1&&b=2",
            "?a b=1",
            "?a=é",
            "?B=1&a=1",
            &("?".to_owned() + &sixteen),
            &("?".to_owned() + &twenty),
        ];
        let fragments = [
            "", "#", "#x", "#a%41", "#a%4", "#a b", "#é", "#x#y", "#x?/y",
        ];
        for prefix in ["info:fedora/", "INFO:FEDORA/", "info:Fedora/"] {
            for pid in pids {
                for target in bdef_calls {
                    for query in queries {
                        for fragment in fragments {
                            inputs.push(format!("{prefix}{pid}{target}{query}{fragment}"));
                        }
                    }
                }
            }
        }
        let taken = inputs.iter().filter(|iri| one_pass_agrees(iri)).count();
        assert!(taken > 10_000, "the one-pass path took only {taken}");
        // The cases of benches/canonicalize.rs.
        for iri in [
            "info:fedora/demo:A-B.C_D%3AE",
            "INFO:FEDORA/demo%3aA-B.C_D%3ae",
            "info:fedora/demo:1/demo:MyBDef/method?a=1&b=2",
            "info:fedora/demo%3A1/demo:MyBDef/method?b=2&a=1",
        ] {
            assert!(one_pass_agrees(iri), "{iri} not taken");
        }
    }

    #[test]
    fn the_one_pass_path_agrees_with_the_full_parse_on_the_conformance_vectors() {
        let mut taken = Vec::new();
        for (input, scheme) in crate::scheme::conformance_inputs() {
            let iri = match scheme.as_deref() {
                Some("fedora") => format!("{PREFIX}{input}"),
                _ => input,
            };
            if starts_with_ignore_case(&iri, PREFIX) && one_pass_agrees(&iri) {
                taken.push(iri);
            }
        }
        for iri in [
            "info:fedora/*/DC",
            "INFO:FEDORA/fedora-system:def/model#hasModel",
            "info:fedora/demo:1/demo:B/m?b=1&a=1",
            "info:fedora/demo:1/demo:B/m?a=/?x",
            "info:fedora/demo%3a1",
        ] {
            assert!(taken.iter().any(|t| t == iri), "{iri} not taken");
        }
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
