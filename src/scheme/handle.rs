//! Handles and DOIs (`../shared/seeds/cordra-handle-uri-spec.txt`, RFC 3650–3652, the DOI
//! Handbook): every encoding of a handle collapses to one canonical IRI.
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

use super::url_prefix::{UrlPrefix, starts_with_ignore_case};
use super::{Canonical, SchemeAdapter};
use crate::iri::is_ipchar;
use crate::pct::{self, HexCase};
use crate::{DoiForm, HandleForm, IdError, Kind, Policy, Rule};
use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

/// The global handle proxy, written in the `https` handle form.
pub const HANDLE_PROXY: &str = "https://hdl.handle.net/";
/// The DOI proxy, written in the default DOI form.
pub const DOI_PROXY: &str = "https://doi.org/";

/// Proxies that resolve any handle: `hdl.handle.net`, `doi.org`, `dx.doi.org`.
static PROXIES: LazyLock<[UrlPrefix; 3]> = LazyLock::new(|| {
    [
        UrlPrefix::new("hdl.handle.net", "/"),
        UrlPrefix::new("doi.org", "/"),
        UrlPrefix::new("dx.doi.org", "/"),
    ]
});

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
        Ok(match kind {
            Kind::Doi => Self {
                naming_authority: fold(naming_authority, pct::ascii_lowercase),
                local_name: fold(local_name, pct::ascii_lowercase),
            },
            _ => Self {
                naming_authority: fold(naming_authority, pct::ascii_uppercase),
                local_name,
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
        let (prefix, local_keep): (&str, fn(char) -> bool) = match form {
            Form::Hdl => ("hdl:", is_ipchar),
            Form::HandleProxy => (HANDLE_PROXY, |c| is_ipchar(c) || c == '/'),
            Form::DoiProxy => (DOI_PROXY, |c| is_ipchar(c) || c == '/'),
        };
        Rendered {
            prefix,
            na: pct::encode(&self.naming_authority, is_ipchar, HexCase::Upper),
            local: pct::encode(&self.local_name, local_keep, HexCase::Upper),
            tail,
        }
    }

    fn form(&self, handle_form: HandleForm, doi_form: DoiForm) -> Form {
        match (self.kind(), handle_form, doi_form) {
            (Kind::Doi, _, DoiForm::Https) => Form::DoiProxy,
            (Kind::Doi, _, DoiForm::Hdl) | (_, HandleForm::Hdl, _) => Form::Hdl,
            (_, HandleForm::Https, _) => Form::HandleProxy,
        }
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

impl std::str::FromStr for Handle<'static> {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let h = Handle::parse(s)?;
        Ok(Handle {
            naming_authority: Cow::Owned(h.naming_authority.into_owned()),
            local_name: Cow::Owned(h.local_name.into_owned()),
        })
    }
}

#[derive(Debug, Clone, Copy)]
enum Form {
    Hdl,
    HandleProxy,
    DoiProxy,
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

/// Whether a naming authority is a DOI prefix: `10.` followed by digits and dots.
fn is_doi_prefix(na: &str) -> bool {
    na.strip_prefix("10.").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

/// `(path, tail)`: `s` split before its first `?` or `#`.
fn split_tail(s: &str) -> (&str, &str) {
    s.split_at(s.find(['?', '#']).unwrap_or(s.len()))
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

/// The URI forms whose path is `NA/local`: prefix, whether only DOIs may use it, and whether a
/// `:` separates the parts when no `/` does.
const PATH_FORMS: [(&str, bool, bool); 5] = [
    ("hdl:", false, false),
    ("info:hdl/", false, false),
    ("urn:hdl:", false, false),
    ("info:doi/", true, false),
    ("urn:doi:", true, true),
];

/// Canonicalizes Handles and DOIs in every encoding.
#[derive(Debug, Clone, Default)]
pub struct HandleAdapter {
    resolvers: Vec<UrlPrefix>,
    handle_form: HandleForm,
    doi_form: DoiForm,
}

impl HandleAdapter {
    /// The adapter for `policy`'s resolvers and forms; resolvers that do not parse are skipped
    /// (check the policy first with [`Policy::check`]).
    #[must_use]
    pub fn new(policy: &Policy) -> Self {
        Self {
            resolvers: policy.handle_resolver_prefixes().unwrap_or_default(),
            handle_form: policy.handle_form,
            doi_form: policy.doi_form,
        }
    }

    /// The resolver prefix `iri` starts with: the rest and its offset.
    fn strip_resolver<'a>(&self, iri: &'a str) -> Option<(&'a str, usize)> {
        PROXIES
            .iter()
            .chain(&self.resolvers)
            .find_map(|p| p.strip(iri))
    }

    /// Reads a claimed IRI: the handle, and the query and fragment to keep after it.
    fn read<'a>(&self, iri: &'a str) -> Result<(Handle<'a>, &'a str), IdError> {
        if starts_with_ignore_case(iri, "doi:") {
            return Ok((doi_name(&iri[4..], 4)?, ""));
        }
        crate::iri::validate(iri).map_err(|e| e.with_kind(Kind::Handle))?;
        if starts_with_ignore_case(iri, "hdl://") {
            let rest = &iri[6..];
            let (authority, after) =
                rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
            let (path, tail) = split_tail(after.strip_prefix('/').unwrap_or(""));
            let local_at = 6 + authority.len() + 1;
            let na = pct::decode(authority).map_err(|e| e.at(Kind::Handle, 6))?;
            let local = pct::decode(path).map_err(|e| e.at(Kind::Handle, local_at))?;
            return Ok((Handle::new(na, local, 6, local_at)?, tail));
        }
        let (rest, base, doi_only, colon_fallback) = PATH_FORMS
            .iter()
            .find(|(prefix, ..)| starts_with_ignore_case(iri, prefix))
            .map(|&(prefix, doi_only, colon)| (&iri[prefix.len()..], prefix.len(), doi_only, colon))
            .or_else(|| {
                self.strip_resolver(iri)
                    .map(|(rest, base)| (rest, base, false, false))
            })
            .ok_or_else(|| IdError::new(Kind::Handle, Rule::Grammar("not a handle URI"), 0))?;
        let (path, tail) = split_tail(rest);
        let decoded = pct::decode(path).map_err(|e| e.at(Kind::Handle, base))?;
        let separator = if colon_fallback && !decoded.contains('/') {
            ':'
        } else {
            '/'
        };
        let handle = Handle::split(decoded, separator, base)?;
        if doi_only && handle.kind() != Kind::Doi {
            return Err(not_a_doi(base));
        }
        Ok((handle, tail))
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

    fn uri_schemes(&self) -> Vec<String> {
        ["hdl", "doi", "info", "urn", "http", "https"]
            .map(str::to_owned)
            .to_vec()
    }

    fn claims(&self, iri: &str) -> bool {
        starts_with_ignore_case(iri, "doi:")
            || PATH_FORMS
                .iter()
                .any(|(prefix, ..)| starts_with_ignore_case(iri, prefix))
            || self.strip_resolver(iri).is_some()
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        let (handle, tail) = self.read(iri)?;
        Ok(self.canonical(iri, &handle, tail))
    }

    /// A bare handle `NA/local` (`--scheme handle`) or DOI name (`--scheme doi`), not decoded.
    fn canonicalize_bare<'a>(&self, name: &str, id: &'a str) -> Result<Canonical<'a>, IdError> {
        let handle = if name == "doi" {
            doi_name(id, 0)?
        } else {
            Handle::parse(id)?
        };
        Ok(self.canonical(id, &handle, ""))
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
}
