//! Handles and DOIs ("Encoding CORDRA Identifiers in URI Syntax", V1.00, 2005; RFC 3650–3652;
//! the DOI Handbook): every encoding of a handle collapses to one canonical IRI.
//!
//! ```text
//! handle      = naming-authority "/" local-name
//! hdl-path    = "hdl:" segment "/" segment [ "?" query ] [ "#" fragment ]   ; path encoding
//! hdl-host    = "hdl://" reg-name "/" segment [ "?" query ] [ "#" fragment ] ; host encoding
//! http-proxy  = "http" ["s"] "://" authority "/" [ segment "/" ] segment "/" segment …
//! ```
//!
//! A URI form is read as the reference resolver reads it: its path is percent-decoded once,
//! then split at the first `/`. A DOI name after `doi:` (or given bare) is not a URI and is
//! never decoded. A DOI is a handle whose naming authority is `10.` followed by digits and dots.

use super::{Canonical, SchemeAdapter, find_byte};
use crate::iri::{is_ascii_pchar, is_ipchar};
use crate::pct::{self, HexCase};
use crate::url_prefix::{HttpAuthority, UrlPrefix, starts_with_ignore_case};
use crate::{DoiForm, HandleForm, IdError, Kind, Policy, PolicyError, Rule};
use std::borrow::Cow;
use std::fmt;

/// The global handle proxy, written in the `https` handle form.
pub const HANDLE_PROXY: &str = "https://hdl.handle.net/";
/// The DOI proxy, written in the default DOI form.
pub const DOI_PROXY: &str = "https://doi.org/";

/// Proxies that resolve any handle: `hdl.handle.net`, `doi.org`, `dx.doi.org`.
static PROXIES: [UrlPrefix; 3] = [
    UrlPrefix::fixed("hdl.handle.net", "/"),
    UrlPrefix::fixed("doi.org", "/"),
    UrlPrefix::fixed("dx.doi.org", "/"),
];

/// A Handle or a DOI: naming authority and local name, decoded, case-folded.
///
/// ```
/// use pidcanon::scheme::handle::Handle;
/// use pidcanon::Kind;
/// let h = Handle::parse("21.t11148/AbC").unwrap();
/// assert_eq!((h.naming_authority(), h.local_name(), h.kind()), ("21.T11148", "AbC", Kind::Handle));
/// assert_eq!(h.to_string(), "hdl:21.T11148/AbC");
/// let doi = Handle::parse("10.1000/ABC").unwrap();
/// assert_eq!(doi.to_string(), "https://doi.org/10.1000/abc");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Handle<'a> {
    naming_authority: Cow<'a, str>,
    local_name: Cow<'a, str>,
}

impl<'a> Handle<'a> {
    /// Parses a bare handle or DOI name, `NA/local`, taken as it is (nothing decoded).
    pub fn parse(name: &'a str) -> Result<Self, IdError> {
        Self::split(Cow::Borrowed(name), '/', 0)
    }

    /// Splits a decoded name at the first `separator`; `base` is its offset in the input.
    fn split(name: Cow<'a, str>, separator: char, base: usize) -> Result<Self, IdError> {
        let Some(at) = name.find(separator) else {
            return Err(IdError::new(
                Kind::Handle,
                Rule::Grammar("a handle needs a '/' between naming authority and local name"),
                base + name.len(),
            ));
        };
        let (naming_authority, local_name) = match name {
            Cow::Borrowed(s) => (Cow::Borrowed(&s[..at]), Cow::Borrowed(&s[at + 1..])),
            Cow::Owned(s) => (
                Cow::Owned(s[..at].to_owned()),
                Cow::Owned(s[at + 1..].to_owned()),
            ),
        };
        Self::new(naming_authority, local_name, base, base + at + 1)
    }

    /// Checks the parts and folds their case: a DOI in ASCII lower case, a handle's naming
    /// authority in ASCII upper case.
    fn new(
        naming_authority: Cow<'a, str>,
        local_name: Cow<'a, str>,
        na_at: usize,
        local_at: usize,
    ) -> Result<Self, IdError> {
        let kind = if is_doi_prefix(&naming_authority) {
            Kind::Doi
        } else {
            Kind::Handle
        };
        for (part, text, at) in [
            ("naming authority", &naming_authority, na_at),
            ("local name", &local_name, local_at),
        ] {
            if text.is_empty() {
                return Err(IdError::new(kind, Rule::Empty { part }, at));
            }
            if let Some((i, ch)) = text.char_indices().find(|(_, c)| c.is_control()) {
                return Err(IdError::new(kind, Rule::Char { ch, part }, at + i));
            }
        }
        check_naming_authority(&naming_authority, kind, na_at)?;
        let names_a_prefix = is_prefix_handle(&naming_authority);
        if names_a_prefix {
            check_naming_authority(&local_name, kind, local_at)?;
        }
        Ok(match kind {
            Kind::Doi => Self {
                naming_authority: fold(naming_authority, pct::ascii_lowercase),
                local_name: fold(local_name, pct::ascii_lowercase),
            },
            _ => Self {
                naming_authority: fold(naming_authority, pct::ascii_uppercase),
                local_name: if names_a_prefix {
                    fold(local_name, pct::ascii_uppercase)
                } else {
                    local_name
                },
            },
        })
    }

    /// The naming authority (prefix).
    #[must_use]
    pub fn naming_authority(&self) -> &str {
        &self.naming_authority
    }

    /// The local name (suffix).
    #[must_use]
    pub fn local_name(&self) -> &str {
        &self.local_name
    }

    /// [`Kind::Doi`] when the naming authority is `10.` followed by digits and dots.
    #[must_use]
    pub fn kind(&self) -> Kind {
        if is_doi_prefix(&self.naming_authority) {
            Kind::Doi
        } else {
            Kind::Handle
        }
    }

    /// The canonical IRI in `form`, as pieces, followed by `tail` (the input's query or
    /// fragment, kept as it is).
    fn render<'s>(&'s self, form: Form, tail: &'s str) -> Rendered<'s> {
        let (prefix, local_keep) = form.prefix_and_local_chars();
        Rendered {
            prefix,
            na: pct::encode(&self.naming_authority, is_ipchar, HexCase::Upper),
            local: pct::encode(&self.local_name, local_keep, HexCase::Upper),
            tail,
        }
    }

    fn form(&self, handle_form: HandleForm, doi_form: DoiForm) -> Form {
        Form::of(self.kind(), handle_form, doi_form)
    }
}

/// A fold of a part's case, keeping it borrowed when nothing changes.
fn fold<'a>(part: Cow<'a, str>, f: fn(&str) -> Cow<'_, str>) -> Cow<'a, str> {
    match pct::then(part, |s| Ok::<_, std::convert::Infallible>(f(s))) {
        Ok(folded) => folded,
        Err(never) => match never {},
    }
}

impl fmt::Display for Handle<'_> {
    /// The canonical IRI under the default policy.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let form = self.form(HandleForm::default(), DoiForm::default());
        self.render(form, "")
            .pieces()
            .into_iter()
            .try_for_each(|p| f.write_str(p))
    }
}

/// A bare name (`NA/local`, taken as it is), or a handle IRI in any spelling the default policy
/// reads — so what [`Display`](fmt::Display) writes parses back.
///
/// ```
/// use pidcanon::scheme::handle::Handle;
/// let h: Handle = "hdl:21.T11148/AbC".parse().unwrap();
/// assert_eq!(h, "21.T11148/AbC".parse().unwrap());
/// let doi: Handle = "https://doi.org/10.1000/abc".parse().unwrap();
/// assert_eq!((doi.naming_authority(), doi.local_name()), ("10.1000", "abc"));
/// assert!("hdl:21.T11148/AbC#x".parse::<Handle>().is_err());
/// ```
impl std::str::FromStr for Handle<'static> {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let adapter = HandleAdapter::new(&Policy::default())
            .unwrap_or_else(|_| unreachable!("the default policy's resolvers are valid"));
        let h = if adapter.locate(s).is_some() {
            match adapter.read(s)? {
                (h, "") => h,
                (_, tail) => {
                    return Err(IdError::new(
                        Kind::Handle,
                        Rule::Grammar("a handle has no query or fragment"),
                        s.len() - tail.len(),
                    ));
                }
            }
        } else {
            Handle::parse(s)?
        };
        Ok(Handle {
            naming_authority: Cow::Owned(h.naming_authority.into_owned()),
            local_name: Cow::Owned(h.local_name.into_owned()),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Hdl,
    HandleProxy,
    DoiProxy,
}

impl Form {
    /// The form a handle of `kind` is written in under the policy's forms.
    fn of(kind: Kind, handle_form: HandleForm, doi_form: DoiForm) -> Self {
        match (kind, handle_form, doi_form) {
            (Kind::Doi, _, DoiForm::Https) => Form::DoiProxy,
            (Kind::Doi, _, DoiForm::Hdl) | (_, HandleForm::Hdl, _) => Form::Hdl,
            (_, HandleForm::Https, _) => Form::HandleProxy,
        }
    }

    /// The prefix of the form, and the characters its local name holds unescaped.
    fn prefix_and_local_chars(self) -> (&'static str, fn(char) -> bool) {
        match self {
            Form::Hdl => ("hdl:", is_ipchar),
            Form::HandleProxy => (HANDLE_PROXY, |c| is_ipchar(c) || c == '/'),
            Form::DoiProxy => (DOI_PROXY, |c| is_ipchar(c) || c == '/'),
        }
    }
}

/// A canonical IRI in pieces: prefix, naming authority, `/`, local name, tail.
struct Rendered<'s> {
    prefix: &'s str,
    na: Cow<'s, str>,
    local: Cow<'s, str>,
    tail: &'s str,
}

impl Rendered<'_> {
    fn pieces(&self) -> [&str; 5] {
        [self.prefix, &self.na, "/", &self.local, self.tail]
    }
}

/// The class of each byte of a DOI's local name for [`HandleAdapter::doi_in_one_scan`]: `0` for a
/// byte the canonical form keeps as it is, else [`UPPER`], [`ESCAPED`] or [`OTHER`].
const DOI_LOCAL: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = b' ';
    while b <= b'~' {
        table[b as usize] = match b {
            b'%' | b'?' | b'#' => OTHER,
            b'A'..=b'Z' => UPPER,
            _ if crate::iri::PCHAR[b as usize] || b == b'/' => 0,
            _ => ESCAPED,
        };
        b += 1;
    }
    table
};
/// An upper-case letter, written in lower case.
const UPPER: u8 = 1;
/// Printable ASCII outside `pchar` and `/`: escaped in a name, not allowed in a URL.
const ESCAPED: u8 = 2;
/// What the scan leaves to the other paths: `%`, `?`, `#`, anything not printable ASCII.
const OTHER: u8 = 4;

/// Whether a naming authority is a DOI prefix: `10.` followed by digits and dots.
fn is_doi_prefix(na: &str) -> bool {
    na.strip_prefix("10.").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

/// Whether a handle's naming authority is `0.NA` (in any case): the handle of a prefix, whose
/// local name is itself a naming authority (`0.NA/10013`).
fn is_prefix_handle(na: &str) -> bool {
    na.eq_ignore_ascii_case("0.NA")
}

/// Checks the rules of a naming authority beyond "not empty, no control character": every
/// segment is non-empty (RFC 3651 §2.2, `NA = *(NAsegment ".") NAsegment`), and it does not
/// start with a handle URI's scheme (`hdl:10013` is a URI pasted where a handle belongs).
/// `at` is its offset in the input.
fn check_naming_authority(na: &str, kind: Kind, at: usize) -> Result<(), IdError> {
    let empty_segment = if na.starts_with('.') {
        Some(0)
    } else if let Some(i) = na.as_bytes().windows(2).position(|w| w == b"..") {
        Some(i + 1)
    } else if na.ends_with('.') {
        Some(na.len() - 1)
    } else {
        None
    };
    if let Some(i) = empty_segment {
        return Err(IdError::new(
            kind,
            Rule::Grammar(
                "a naming authority segment is empty (a leading, trailing or doubled '.')",
            ),
            at + i,
        ));
    }
    if starts_with_ignore_case(na, "hdl:") || starts_with_ignore_case(na, "doi:") {
        return Err(IdError::new(
            kind,
            Rule::Grammar(
                "doubled scheme: the handle itself follows, not a \"hdl:\" or \"doi:\" URI",
            ),
            at,
        ));
    }
    Ok(())
}

/// Whether `s` is printable ASCII (a name the one-pass path can take).
fn printable(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' '..=b'~'))
}

/// How [`push_folded`] changes the case of letters.
#[derive(Debug, Clone, Copy)]
enum Case {
    Lower,
    Upper,
    Keep,
}

/// Appends the printable ASCII `s` with its letters in `case` and every byte that is not `kept`
/// (letters always are) escaped: each run of kept bytes is copied and its case changed in place,
/// not byte by byte.
fn push_folded(out: &mut String, s: &str, case: Case, kept: impl Fn(u8) -> bool) {
    let mut rest = s;
    loop {
        let run = rest.bytes().position(|b| !kept(b)).unwrap_or(rest.len());
        let at = out.len();
        out.push_str(&rest[..run]);
        match case {
            Case::Lower => out[at..].make_ascii_lowercase(),
            Case::Upper => out[at..].make_ascii_uppercase(),
            Case::Keep => {}
        }
        let Some(&escaped) = rest.as_bytes().get(run) else {
            return;
        };
        out.extend(pct::escape(escaped, HexCase::Upper).map(char::from));
        rest = &rest[run + 1..];
    }
}

/// `(path, tail)`: `s` split before its first `?` or `#`.
fn split_tail(s: &str) -> (&str, &str) {
    s.split_at(
        s.bytes()
            .position(|b| matches!(b, b'?' | b'#'))
            .unwrap_or(s.len()),
    )
}

/// A DOI name as written after `doi:` or given bare: nothing decoded; `base` is its offset.
fn doi_name(name: &str, base: usize) -> Result<Handle<'_>, IdError> {
    let handle =
        Handle::split(Cow::Borrowed(name), '/', base).map_err(|e| e.with_kind(Kind::Doi))?;
    if handle.kind() != Kind::Doi {
        return Err(not_a_doi(base));
    }
    Ok(handle)
}

fn not_a_doi(at: usize) -> IdError {
    IdError::new(
        Kind::Doi,
        Rule::Grammar("a DOI's naming authority is \"10.\" followed by digits and dots"),
        at,
    )
}

/// The URI forms whose path is `NA/local`, decoded once then split at the first `/`: prefix,
/// whether only DOIs may use it, and whether a `:` before the first `/` separates the parts
/// instead (the URN forms, as the CNRI proxy reads `urn:hdl:NA:local`).
const PATH_FORMS: [(&str, bool, bool); 6] = [
    // The host encoding is read like the path encoding: its "host" is the naming authority only
    // when, decoded, it holds no '/' (a fuzzer found `hdl://a%2Fb/c`, which is `a/b/c`).
    ("hdl://", false, false),
    ("hdl:", false, false),
    ("info:hdl/", false, false),
    ("urn:hdl:", false, true),
    ("info:doi/", true, false),
    ("urn:doi:", true, true),
];

/// Where the handle of a claimed IRI starts (the rest of the IRI, its offset) and how it is
/// written.
type Located<'a> = (&'a str, usize, Encoding);

/// How the handle after a claimed IRI's prefix is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// A DOI name after `doi:`: not a URI path, nothing decoded.
    DoiName,
    /// A URI path, decoded once (see [`PATH_FORMS`]); under a proxy or resolver neither flag is
    /// set.
    Path { doi_only: bool, urn: bool },
}

/// Canonicalizes Handles and DOIs in every encoding.
#[derive(Debug, Clone, Default)]
pub struct HandleAdapter {
    resolvers: Vec<UrlPrefix>,
    handle_form: HandleForm,
    doi_form: DoiForm,
}

impl HandleAdapter {
    /// The adapter for `policy`'s resolvers and forms.
    ///
    /// ```
    /// use pidcanon::{Policy, scheme::handle::HandleAdapter};
    /// let mut policy = Policy::default();
    /// policy.handle_resolvers = vec!["https://repo.example.edu/handle/".into(), "http://x/?q".into()];
    /// let err = HandleAdapter::new(&policy).unwrap_err();
    /// assert!(err.to_string().starts_with(r#"invalid handle resolver "http://x/?q""#), "{err}");
    /// ```
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        Ok(Self::with_resolvers(
            policy.prefixes()?.handle_resolvers,
            policy,
        ))
    }

    /// The adapter for resolvers already parsed and `policy`'s forms.
    pub(crate) fn with_resolvers(resolvers: Vec<UrlPrefix>, policy: &Policy) -> Self {
        Self {
            resolvers,
            handle_form: policy.handle_form,
            doi_form: policy.doi_form,
        }
    }

    /// The resolver prefix `iri` starts with: the rest and its offset. A path under the proxies'
    /// `api/` (their REST API: `/api/handles/NA/local` is the handle's record) is not a handle.
    fn strip_resolver<'a>(&self, iri: &'a str) -> Option<(&'a str, usize)> {
        let not_api = |&(rest, _): &(&str, usize)| !rest.starts_with("api/");
        if let Some(found) = PROXIES
            .iter()
            .find_map(|p| p.strip_exact(iri))
            .filter(not_api)
        {
            return Some(found);
        }
        let at = HttpAuthority::of(iri)?;
        PROXIES
            .iter()
            .find_map(|p| p.strip_at(iri, at))
            .filter(not_api)
            .or_else(|| self.resolvers.iter().find_map(|p| p.strip_at(iri, at)))
    }

    /// Where the handle of `iri` starts (the rest, its offset) and how it is written, when this
    /// adapter claims `iri`.
    fn locate<'a>(&self, iri: &'a str) -> Option<Located<'a>> {
        // Every form starts with `doi:`, one of PATH_FORMS (`hdl`, `info`, `urn`; none with
        // `http`) or is an `http(s)` URL under a proxy or resolver: each is looked for only where
        // the first bytes allow it, and a bare name not at all.
        match iri.as_bytes().first()?.to_ascii_lowercase() {
            b'd' => starts_with_ignore_case(iri, "doi:").then(|| (&iri[4..], 4, Encoding::DoiName)),
            b'h' if starts_with_ignore_case(iri, "http") => {
                let (rest, base) = self.strip_resolver(iri)?;
                let path = Encoding::Path {
                    doi_only: false,
                    urn: false,
                };
                Some((rest, base, path))
            }
            b'h' | b'i' | b'u' => PATH_FORMS
                .iter()
                .find(|(prefix, ..)| starts_with_ignore_case(iri, prefix))
                .map(|&(prefix, doi_only, urn)| {
                    let path = Encoding::Path { doi_only, urn };
                    (&iri[prefix.len()..], prefix.len(), path)
                }),
            _ => None,
        }
    }

    /// Reads a claimed IRI: the handle, and the query and fragment to keep after it.
    fn read<'a>(&self, iri: &'a str) -> Result<(Handle<'a>, &'a str), IdError> {
        let located = self.locate(iri);
        if let Some((name, base, Encoding::DoiName)) = located {
            return Ok((doi_name(name, base)?, ""));
        }
        if !crate::iri::is_plain_absolute_iri(iri) {
            crate::iri::validate(iri).map_err(|e| e.with_kind(Kind::Handle))?;
        }
        let Some((
            rest,
            base,
            Encoding::Path {
                doi_only,
                urn: urn_form,
            },
        )) = located
        else {
            return Err(IdError::new(
                Kind::Handle,
                Rule::Grammar("not a handle URI"),
                0,
            ));
        };
        let (path, tail) = split_tail(rest);
        let decoded = pct::decode(path).map_err(|e| e.at(Kind::Handle, base))?;
        let separator = match (decoded.find(':'), decoded.find('/')) {
            (Some(colon), slash) if urn_form && slash.is_none_or(|slash| colon < slash) => ':',
            _ => '/',
        };
        let handle = Handle::split(decoded, separator, base)?;
        if doi_only && handle.kind() != Kind::Doi {
            return Err(not_a_doi(base));
        }
        Ok((handle, tail))
    }

    /// The kind of `iri` when it is already written in the canonical form the policy chooses:
    /// checked in one scan, without decoding or allocating, so that canonical input costs no
    /// copy. `None` when it is not, or when the scan is not sure (a naming authority with a `:`
    /// or non-ASCII characters): the full read then decides.
    fn kind_if_canonical(&self, iri: &str) -> Option<Kind> {
        let (form, rest) = [Form::Hdl, Form::DoiProxy, Form::HandleProxy]
            .into_iter()
            .find_map(|form| Some((form, iri.strip_prefix(form.prefix_and_local_chars().0)?)))?;
        // ASCII the local name holds unescaped: `pchar`, and `/` in the proxy forms.
        let slash_kept = form != Form::Hdl;
        let kept = |b: u8| is_ascii_pchar(b) || slash_kept && b == b'/';
        let bytes = rest.as_bytes();
        let slash = memchr::memchr(b'/', bytes)?;
        let na = &rest[..slash];
        let kind = if is_doi_prefix(na) {
            Kind::Doi
        } else {
            Kind::Handle
        };
        // Upper case, segments non-empty, no doubled scheme.
        let mut previous = b'.';
        let na_canonical = na.bytes().all(|b| {
            let ok =
                !(b == b'.' && previous == b'.') && is_ascii_pchar(b) && !b.is_ascii_lowercase();
            previous = b;
            ok
        }) && previous != b'.'
            && (find_byte(na, b':').is_none() || check_naming_authority(na, kind, 0).is_ok());
        if !na_canonical || Form::of(kind, self.handle_form, self.doi_form) != form {
            return None;
        }
        let upper_local = is_prefix_handle(na);
        let wrong_case = |b: u8| match kind {
            Kind::Doi => b.is_ascii_uppercase(),
            _ => upper_local && b.is_ascii_lowercase(),
        };
        let end =
            memchr::memchr2(b'?', b'#', &bytes[slash + 1..]).map_or(bytes.len(), |e| slash + 1 + e);
        // Most local names are plain ASCII: one table lookup a byte. Escapes and non-ASCII
        // characters are looked at one by one below.
        let plain = bytes[slash + 1..end]
            .iter()
            .all(|&b| kept(b) && !wrong_case(b));
        let mut i = if plain { end } else { slash + 1 };
        while let Some(&b) = bytes.get(i) {
            match b {
                b'?' | b'#' => break,
                b'%' => {
                    let escaped = pct::escape_at(rest, i)?;
                    let canonical_escape = escaped.is_ascii()
                        && !escaped.is_ascii_control()
                        && !kept(escaped)
                        && !bytes[i + 1..i + 3].iter().any(u8::is_ascii_lowercase);
                    if !canonical_escape {
                        return None;
                    }
                    i += 3;
                }
                0x80.. => {
                    let c = rest[i..].chars().next()?;
                    if !crate::iri::is_ucschar(c) {
                        return None;
                    }
                    i += c.len_utf8();
                }
                _ => {
                    if wrong_case(b) || !kept(b) {
                        return None;
                    }
                    i += 1;
                }
            }
        }
        let local = &rest[slash + 1..i];
        let valid = !local.is_empty()
            && (!upper_local || check_naming_authority(local, kind, 0).is_ok())
            && crate::iri::is_query_and_fragment(&rest[i..]);
        valid.then_some(kind)
    }

    /// The canonical form of a claimed IRI whose handle, decoded, is printable ASCII, built in
    /// one pass (see [`Self::plain_name`]); the input is checked to be an IRI on the way (its
    /// path by the `pchar` table, its query and fragment as [`crate::iri`] reads them).
    /// `None` for anything else — the URN forms, escapes of other bytes, any error: the full
    /// read decides.
    fn plain<'a>(&self, iri: &'a str, (rest, _, encoding): Located<'a>) -> Option<Canonical<'a>> {
        let Encoding::Path { doi_only, urn } = encoding else {
            return printable(rest)
                .then(|| self.plain_name(iri, rest, true, ""))
                .flatten();
        };
        let (path, tail) = split_tail(rest);
        // Under `hdl://` the IRI has an authority: the general table-driven check reads it.
        let iri_ok = if starts_with_ignore_case(iri, "hdl://") {
            crate::iri::is_plain_absolute_iri(iri)
        } else {
            path.bytes()
                .all(|b| b == b'/' || b == b'%' || is_ascii_pchar(b))
                && crate::iri::is_query_and_fragment(tail)
        };
        if urn || !iri_ok {
            return None;
        }
        let name = pct::decode_printable(path)?;
        self.plain_name(iri, &name, doi_only, tail)
    }

    /// The canonical form of a printable-ASCII handle `name` (decoded) followed by `tail`, for
    /// `input`: the form's prefix, the naming authority case-folded, `/`, the local name (in
    /// lower case for a DOI), every character the form does not keep escaped. `None` when it is
    /// not a plain handle (empty parts, a naming authority segment empty, the handle of a
    /// prefix, not a DOI where only DOIs may be): the full read decides.
    fn plain_name<'a>(
        &self,
        input: &'a str,
        name: &str,
        doi_only: bool,
        tail: &str,
    ) -> Option<Canonical<'a>> {
        let slash = find_byte(name, b'/')?;
        let (na, local) = (&name[..slash], &name[slash + 1..]);
        let kind = if is_doi_prefix(na) {
            Kind::Doi
        } else {
            Kind::Handle
        };
        let plain = (!doi_only || kind == Kind::Doi)
            && !na.is_empty()
            && !local.is_empty()
            && !is_prefix_handle(na)
            && check_naming_authority(na, kind, 0).is_ok();
        if !plain {
            return None;
        }
        let form = Form::of(kind, self.handle_form, self.doi_form);
        let (prefix, _) = form.prefix_and_local_chars();
        let slash_kept = form != Form::Hdl;
        let (na_case, local_case) = match kind {
            Kind::Doi => (Case::Lower, Case::Lower),
            _ => (Case::Upper, Case::Keep),
        };
        let mut out = String::with_capacity(prefix.len() + name.len() + tail.len() + 8);
        out.push_str(prefix);
        push_folded(&mut out, na, na_case, is_ascii_pchar);
        out.push('/');
        push_folded(&mut out, local, local_case, |b| {
            is_ascii_pchar(b) || slash_kept && b == b'/'
        });
        out.push_str(tail);
        let iri = if out == input {
            Cow::Borrowed(input)
        } else {
            Cow::Owned(out)
        };
        Some(Canonical::new(iri, kind))
    }

    /// The canonical form of a DOI in the spellings most met, read in one scan when the policy
    /// writes DOIs under `https://doi.org/`: after `doi:` in any case, `http(s)://doi.org/` or
    /// `http(s)://dx.doi.org/` as usually written, or bare (`bare`), a name `10.` + digits and
    /// dots + `/` + a local name of printable ASCII without `%`, `?` or `#` (in a URL, only
    /// `pchar` and `/`). Borrowed when already canonical. `None` for anything else, errors
    /// included: the one-pass path and the full read decide, and tests hold all three to the
    /// same results.
    fn doi_in_one_scan<'a>(&self, input: &'a str, bare: bool) -> Option<Canonical<'a>> {
        if self.doi_form != DoiForm::Https {
            return None;
        }
        let (name, url) = if bare {
            (input, false)
        } else if starts_with_ignore_case(input, "doi:") {
            (&input[4..], false)
        } else {
            let rest = input.strip_prefix("http")?;
            let rest = rest.strip_prefix('s').unwrap_or(rest).strip_prefix("://")?;
            let rest = rest.strip_prefix("dx.").unwrap_or(rest);
            (rest.strip_prefix("doi.org/")?, true)
        };
        // The segments after `10.`: digits, each non-empty (`previous` starts as that `.`).
        let digits = name.strip_prefix("10.")?;
        let mut previous = b'.';
        let slash = 3 + digits.bytes().position(|b| {
            let in_segments = b.is_ascii_digit() || b == b'.' && previous != b'.';
            previous = b;
            !in_segments
        })?;
        let local = name[slash..].strip_prefix('/')?;
        if local.is_empty() || name.as_bytes()[slash - 1] == b'.' {
            return None;
        }
        let classes = local
            .bytes()
            .fold(0, |classes, b| classes | DOI_LOCAL[usize::from(b)]);
        let escaped = classes & ESCAPED != 0;
        if classes & OTHER != 0 || url && escaped {
            return None;
        }
        if classes == 0
            && input.len() == DOI_PROXY.len() + name.len()
            && input.starts_with(DOI_PROXY)
        {
            return Some(Canonical::new(Cow::Borrowed(input), Kind::Doi));
        }
        let mut out = String::with_capacity(DOI_PROXY.len() + name.len() + 8);
        out.push_str(DOI_PROXY);
        out.push_str(&name[..=slash]);
        if escaped {
            push_folded(&mut out, local, Case::Lower, |b| {
                is_ascii_pchar(b) || b == b'/'
            });
        } else {
            let at = out.len();
            out.push_str(local);
            out[at..].make_ascii_lowercase();
        }
        Some(Canonical::new(Cow::Owned(out), Kind::Doi))
    }

    /// The canonical form of a claimed IRI by the one-pass paths: already canonical (borrowed),
    /// or plain ASCII built from checked parts. `None` when neither applies.
    fn one_pass<'a>(&self, iri: &'a str, at: Located<'a>) -> Option<Canonical<'a>> {
        match self.kind_if_canonical(iri) {
            Some(kind) => Some(Canonical::new(Cow::Borrowed(iri), kind)),
            None => self.plain(iri, at),
        }
    }

    /// A bare handle or DOI name (`name` is `handle` or `doi`) of printable ASCII by the
    /// one-pass path; `None` when it does not apply.
    fn plain_bare<'a>(&self, name: &str, id: &'a str) -> Option<Canonical<'a>> {
        if name == "doi"
            && let Some(canonical) = self.doi_in_one_scan(id, true)
        {
            return Some(canonical);
        }
        printable(id)
            .then(|| self.plain_name(id, id, name == "doi", ""))
            .flatten()
    }

    /// A bare handle or DOI name by the full read.
    fn bare_in_full<'a>(&self, name: &str, id: &'a str) -> Result<Canonical<'a>, IdError> {
        let handle = if name == "doi" {
            doi_name(id, 0)?
        } else {
            Handle::parse(id)?
        };
        Ok(self.canonical(id, &handle, ""))
    }

    /// The canonical form of a claimed IRI by the full read.
    fn read_in_full<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        let (handle, tail) = self.read(iri)?;
        Ok(self.canonical(iri, &handle, tail))
    }

    fn canonical<'a>(&self, input: &'a str, handle: &Handle<'_>, tail: &str) -> Canonical<'a> {
        let rendered = handle.render(handle.form(self.handle_form, self.doi_form), tail);
        let iri = pct::join_or_borrow(input, || rendered.pieces().into_iter());
        Canonical::new(iri, handle.kind())
    }
}

impl SchemeAdapter for HandleAdapter {
    fn names(&self) -> &'static [&'static str] {
        &["handle", "doi"]
    }

    fn routes(&self) -> Vec<String> {
        let mut routes: Vec<String> = ["hdl", "doi", "info", "urn"].map(str::to_owned).to_vec();
        routes.extend(
            PROXIES
                .iter()
                .chain(&self.resolvers)
                .flat_map(UrlPrefix::routes),
        );
        routes
    }

    fn claims(&self, iri: &str) -> bool {
        self.locate(iri).is_some()
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        let one_pass = || self.locate(iri).and_then(|at| self.one_pass(iri, at));
        match self.doi_in_one_scan(iri, false).or_else(one_pass) {
            Some(canonical) => Ok(canonical),
            None => self.read_in_full(iri),
        }
    }

    fn claim_valid<'a>(
        &self,
        iri: &'a str,
        _: super::sealed::Sealed,
    ) -> Option<Result<Canonical<'a>, IdError>> {
        if let Some(canonical) = self.doi_in_one_scan(iri, false) {
            return Some(Ok(canonical));
        }
        let at = self.locate(iri)?;
        Some(match self.one_pass(iri, at) {
            Some(canonical) => Ok(canonical),
            None => super::checked(self.read_in_full(iri)),
        })
    }

    /// A bare handle `NA/local` (`--scheme handle`) or DOI name (`--scheme doi`), not decoded.
    fn canonicalize_bare<'a>(&self, name: &str, id: &'a str) -> Result<Canonical<'a>, IdError> {
        match self.plain_bare(name, id) {
            Some(canonical) => Ok(canonical),
            None => self.bare_in_full(name, id),
        }
    }

    /// A bare handle or DOI name by the one-pass path, whose forms are IRIs by construction
    /// (see [`Self::plain_name`]), else by the full read.
    fn bare_valid<'a>(
        &self,
        name: &str,
        id: &'a str,
        _: super::sealed::Sealed,
    ) -> Result<Canonical<'a>, IdError> {
        match self.plain_bare(name, id) {
            Some(canonical) => Ok(canonical),
            None => super::checked(self.bare_in_full(name, id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms_are_borrowed() {
        let adapter = HandleAdapter::default();
        for iri in [
            "hdl:10013/epic.10033",
            "https://doi.org/10.1000/182",
            "hdl:10013/a%2Fb?x#y",
        ] {
            assert!(
                matches!(adapter.canonicalize(iri).unwrap().iri, Cow::Borrowed(_)),
                "{iri}"
            );
        }
    }

    #[test]
    fn errors_point_into_the_input() {
        let adapter = HandleAdapter::default();
        for (iri, offset, message) in [
            ("hdl:100.102/", 12, "local name is empty"),
            ("hdl:/x", 4, "naming authority is empty"),
            (
                "hdl:100.102",
                11,
                "a handle needs a '/' between naming authority and local name",
            ),
            ("hdl://100.102/", 14, "local name is empty"),
            (
                "hdl:100.102/a%zz",
                13,
                "'%' must be followed by two hex digits",
            ),
            (
                "hdl:100.102/a%00",
                13,
                "character '\\0' is not allowed in local name",
            ),
            (
                "doi:11.1000/x",
                4,
                "a DOI's naming authority is \"10.\" followed by digits and dots",
            ),
            (
                "info:doi/20.1/x",
                9,
                "a DOI's naming authority is \"10.\" followed by digits and dots",
            ),
        ] {
            let err = adapter.canonicalize(iri).unwrap_err();
            assert_eq!(
                (err.offset(), err.rule().to_string().as_str()),
                (offset, message),
                "{iri}"
            );
        }
    }

    /// The default policy, and one that writes handles and DOIs in their other forms.
    fn both_forms() -> [Policy; 2] {
        [
            Policy::default(),
            Policy {
                handle_form: HandleForm::Https,
                doi_form: DoiForm::Hdl,
                ..Policy::default()
            },
        ]
    }

    #[test]
    fn the_one_pass_path_agrees_with_reading_in_full() {
        let (mut taken, mut scanned_doi) = (0, 0);
        for policy in both_forms() {
            let adapter = HandleAdapter::new(&Policy {
                handle_resolvers: vec!["https://repo.example.edu/handle/".into()],
                ..policy
            })
            .expect("a valid resolver");
            for prefix in [
                "https://doi.org/",
                "http://doi.org/",
                "http://dx.doi.org/",
                "https://dx.doi.org/",
                "HTTPS://DOI.ORG:443/",
                "https://hdl.handle.net/",
                "http://hdl.handle.net:80/",
                "https://repo.example.edu/handle/",
                "doi:",
                "DOI:",
                "Doi:",
                "hdl:",
                "HDL:",
                "hdl://",
                "info:hdl/",
                "info:doi/",
                "urn:hdl:",
                "urn:doi:",
            ] {
                for name in [
                    "10.1371/JOURNAL.PONE.0042793",
                    "10.1038/nphys1170",
                    "10.1000.10/a/b/C",
                    "10.1000/a:b@c!$&'()*+,;=-._~",
                    "10.1000/a%2Fb",
                    "10.1000/a%41",
                    "10.1000/a%25",
                    "10.1000/a%0A",
                    "10.1000/a%zz",
                    "10.1000/a?q#f",
                    "10.1000/a?q#f#g",
                    "10.1000/a b",
                    "10.1000/M\u{fc}ller",
                    "10.1000/M%C3%BCller",
                    "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI3>3.0.CO;2-0",
                    "10.1000/",
                    "10.1000",
                    "10../x",
                    "10.1000./x",
                    "10.a/x",
                    "11.1000/x",
                    "api/handles/10.1000/x",
                    "10013/epic.10033",
                    "10013%2Fepic.10033",
                    "10013%2fEpic%2F10033",
                    "21.t11148/AbC",
                    "0.na/20.abc",
                    "a:b/c",
                    "hdl:10013/x",
                    "a%2Fb/c",
                    "10013/x?%41#%7e",
                    "10013/x?a b",
                    "/x",
                ] {
                    let iri = format!("{prefix}{name}");
                    let full = adapter
                        .read(&iri)
                        .map(|(h, tail)| adapter.canonical(&iri, &h, tail));
                    let plain = adapter.locate(&iri).and_then(|at| adapter.plain(&iri, at));
                    if let Some(plain) = plain {
                        taken += 1;
                        assert_eq!(Ok(plain), full, "{iri}");
                    }
                    if let Some(scanned) = adapter.doi_in_one_scan(&iri, false) {
                        scanned_doi += 1;
                        assert_eq!(Ok(scanned), full, "{iri}");
                    }
                }
            }
            for (scheme, name) in [
                ("doi", "10.1000/A b<c>%2F?#"),
                ("doi", "10.1000/x"),
                ("doi", "10.1000/"),
                ("doi", "10.a/x"),
                ("doi", "10013/x"),
                ("handle", "10013/x"),
                ("handle", "10.1000/X"),
                ("handle", "abc/d e"),
            ] {
                let full = if scheme == "doi" {
                    doi_name(name, 0)
                } else {
                    Handle::parse(name)
                };
                let full = full.map(|h| adapter.canonical(name, &h, ""));
                if let Some(plain) = adapter.plain_name(name, name, scheme == "doi", "") {
                    taken += 1;
                    assert_eq!(Ok(plain), full, "{name}");
                }
                let scanned = (scheme == "doi")
                    .then(|| adapter.doi_in_one_scan(name, true))
                    .flatten();
                if let Some(scanned) = scanned {
                    scanned_doi += 1;
                    assert_eq!(Ok(scanned), full, "{name}");
                }
            }
        }
        // Every printable ASCII character in the naming authority and the local name, under
        // each spelling the DOI scan reads and a few it leaves to the other paths.
        let adapter = HandleAdapter::default();
        for c in ' '..='~' {
            for name in [
                format!("10.1000/a{c}B"),
                format!("10.1000/{c}"),
                format!("10.1{c}2/x"),
                format!("10.{c}/x"),
            ] {
                let full = doi_name(&name, 0).map(|h| adapter.canonical(&name, &h, ""));
                if let Some(scanned) = adapter.doi_in_one_scan(&name, true) {
                    scanned_doi += 1;
                    assert_eq!(Ok(scanned), full, "{name}");
                }
                for prefix in [
                    "doi:",
                    "DOI:",
                    "https://doi.org/",
                    "http://dx.doi.org/",
                    "https://DOI.org/",
                ] {
                    let iri = format!("{prefix}{name}");
                    if let Some(scanned) = adapter.doi_in_one_scan(&iri, false) {
                        scanned_doi += 1;
                        assert_eq!(Ok(scanned), adapter.read_in_full(&iri), "{iri}");
                    }
                }
            }
        }
        assert!(taken >= 300, "the one-pass path took only {taken}");
        assert!(scanned_doi >= 400, "the DOI scan took only {scanned_doi}");
    }

    /// The one-pass path against the full read on every input of the fuzz corpora that reach
    /// this adapter, under several prefixes.
    #[test]
    fn the_one_pass_path_agrees_on_the_fuzz_corpora() {
        let adapter = HandleAdapter::default();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
        let (mut taken, mut scanned_doi) = (0, 0);
        for target in ["handle", "doi", "registry"] {
            for entry in std::fs::read_dir(root.join(target)).expect("a corpus") {
                let bytes = std::fs::read(entry.expect("an entry").path()).expect("a file");
                let Ok(input) = std::str::from_utf8(&bytes) else {
                    continue;
                };
                for prefix in [
                    "",
                    "hdl:",
                    "doi:",
                    "https://doi.org/",
                    "HTTP://hdl.handle.net/",
                ] {
                    let iri = format!("{prefix}{input}");
                    if let Some(scanned) = adapter.doi_in_one_scan(&iri, prefix.is_empty()) {
                        scanned_doi += 1;
                        let full = if prefix.is_empty() {
                            doi_name(&iri, 0).map(|h| adapter.canonical(&iri, &h, ""))
                        } else {
                            adapter.read_in_full(&iri)
                        };
                        assert_eq!(Ok(scanned), full, "{iri:?}");
                    }
                    let Some(at) = adapter.locate(&iri) else {
                        continue;
                    };
                    if let Some(plain) = adapter.plain(&iri, at) {
                        taken += 1;
                        let full = adapter.read_in_full(&iri);
                        assert_eq!(Ok(plain), full, "{iri:?}");
                    }
                }
            }
        }
        assert!(taken > 500, "the one-pass path took only {taken}");
        assert!(scanned_doi > 40, "the DOI scan took only {scanned_doi}");
    }

    #[test]
    fn every_form_is_located_in_any_case() {
        let adapter = HandleAdapter::new(&Policy {
            handle_resolvers: vec!["https://repo.example.edu/handle/".into()],
            ..Policy::default()
        })
        .expect("a valid resolver");
        let urls = [
            "http://hdl.handle.net/",
            "https://doi.org/",
            "http://dx.doi.org/",
            "https://repo.example.edu/handle/",
        ];
        let prefixes = PATH_FORMS.iter().map(|&(prefix, ..)| prefix);
        for prefix in prefixes.chain(["doi:"]).chain(urls) {
            // A URL's scheme and host in upper case; its path is case-sensitive.
            let path = prefix
                .match_indices('/')
                .nth(2)
                .map_or(prefix.len(), |(i, _)| i);
            let upper = prefix[..path].to_ascii_uppercase() + &prefix[path..];
            for prefix in [prefix.to_owned(), upper] {
                let iri = format!("{prefix}10.1000/x");
                assert!(adapter.locate(&iri).is_some(), "{iri}");
            }
        }
        assert!(adapter.locate("10.1000/x").is_none());
    }

    #[test]
    fn the_fast_path_agrees_with_reading_in_full() {
        let mut accepted = 0;
        for policy in both_forms() {
            let adapter = HandleAdapter::new(&policy).expect("no resolvers");
            for iri in [
                "hdl:10013/x",
                "hdl:10013/a%2Fb",
                "hdl:10013/a%2fb",
                "hdl:10013/a/b",
                "hdl:10013/%41",
                "hdl:abc/x",
                "hdl:ABC/x",
                "hdl:10.1000/x",
                "hdl:10.1000/X",
                "hdl:10013/M\u{fc}ller",
                "hdl:10013/M%C3%BCller",
                "hdl:10013/a%20b?q#f",
                "hdl:10013/a%00",
                "https://hdl.handle.net/10013/a/b",
                "https://hdl.handle.net/10013/a%2Fb",
                "https://doi.org/10.1000/a/b",
                "https://doi.org/10.1000/A%3Fb",
                "https://doi.org/10.1000/a%3Fb",
                "https://doi.org/10.1000/a%3fb",
                "https://doi.org/20.1/x",
                "hdl:/x",
                "hdl:10013/",
                "hdl:10013",
                "hdl:10013/a b",
                "hdl:A:B/x",
                "hdl:HDL:10013/x",
                "hdl:0.NA/20.ABC",
                "hdl:0.NA/20.abc",
                "hdl:10013./x",
            ] {
                let full = adapter
                    .read(iri)
                    .map(|(h, tail)| adapter.canonical(iri, &h, tail));
                match adapter.kind_if_canonical(iri) {
                    Some(kind) => {
                        let full = full.unwrap_or_else(|e| {
                            panic!("{iri}: fast path accepted, full read: {e}")
                        });
                        assert_eq!((full.iri.as_ref(), full.kind), (iri, kind), "{iri}");
                        accepted += 1;
                    }
                    None => assert!(
                        full.is_err() || full.is_ok_and(|c| c.iri != iri),
                        "{iri}: canonical, but the fast path missed it"
                    ),
                }
            }
        }
        assert!(accepted >= 9, "the fast path accepted only {accepted}");
    }
}
