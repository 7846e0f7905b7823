//! HTTP URL prefixes under which identifiers live: the POI template, handle proxies,
//! configured handle resolvers and Fedora bases.

use crate::Rule;
use std::borrow::Cow;

/// Why a configured URL cannot be a prefix under which identifiers live.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlPrefixError {
    /// It is not an absolute IRI.
    #[error("{0}")]
    NotIri(Rule),
    /// Its scheme is not `http` or `https`, or it has no `//` authority.
    #[error("not an http(s) URL")]
    NotHttp,
    /// It has a user, a query or a fragment, which a prefix cannot have.
    #[error("a prefix has no user, query or fragment")]
    UserQueryOrFragment,
    /// Its authority is empty.
    #[error("no host")]
    NoHost,
}

/// An `http`/`https` URL prefix, matched with the case rules of RFC 3986 §6.2.2.1: scheme and
/// host in any case, the default port optional, `http` and `https` alike; the path exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlPrefix {
    /// Lower-case host, with `:port` when a non-default port is part of the prefix.
    authority: Cow<'static, str>,
    /// Starts and ends with `/`.
    path: Cow<'static, str>,
}

impl UrlPrefix {
    /// A built-in prefix for `host` (lower case) and `path` (starting and ending with `/`).
    pub(crate) const fn fixed(host: &'static str, path: &'static str) -> Self {
        Self {
            authority: Cow::Borrowed(host),
            path: Cow::Borrowed(path),
        }
    }

    /// Reads a configured prefix such as `http://localhost:8080/fedora`; a missing trailing `/`
    /// is added.
    pub(crate) fn parse(url: &str) -> Result<Self, UrlPrefixError> {
        #[cfg(test)]
        tests::PARSED.with(|n| n.set(n.get() + 1));
        crate::iri::validate(url).map_err(|e| UrlPrefixError::NotIri(e.rule().clone()))?;
        let (scheme, rest) = url.split_once("://").ok_or(UrlPrefixError::NotHttp)?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(UrlPrefixError::NotHttp);
        }
        if rest.contains(['?', '#', '@']) {
            return Err(UrlPrefixError::UserQueryOrFragment);
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() {
            return Err(UrlPrefixError::NoHost);
        }
        let authority = authority.to_ascii_lowercase();
        let https = scheme.eq_ignore_ascii_case("https");
        let authority = strip_default_port(&authority, https).unwrap_or(&authority);
        let path = if path.ends_with('/') {
            path.to_owned()
        } else {
            format!("{path}/")
        };
        Ok(Self {
            authority: Cow::Owned(authority.to_owned()),
            path: Cow::Owned(path),
        })
    }

    /// The `http://HOST` and `https://HOST` routes of this prefix (see `SchemeAdapter::routes`).
    pub(crate) fn routes(&self) -> [String; 2] {
        let host = self.authority.split(':').next().unwrap_or_default();
        [format!("http://{host}"), format!("https://{host}")]
    }

    /// The part of `iri` after this prefix, if `iri` starts with it.
    ///
    /// Returns the rest and the offset where it starts.
    pub(crate) fn strip<'a>(&self, iri: &'a str) -> Option<(&'a str, usize)> {
        self.strip_exact(iri)
            .or_else(|| self.strip_at(iri, HttpAuthority::of(iri)?))
    }

    /// [`strip`](Self::strip) for the usual spelling only: `http://` or `https://`, the host in
    /// lower case, no default port. A byte comparison, cheaper than the authority scan.
    pub(crate) fn strip_exact<'a>(&self, iri: &'a str) -> Option<(&'a str, usize)> {
        let rest = iri.strip_prefix("http")?;
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let rest = rest
            .strip_prefix("://")?
            .strip_prefix(self.authority.as_ref())?
            .strip_prefix(self.path.as_ref())?;
        Some((rest, iri.len() - rest.len()))
    }

    /// [`strip`](Self::strip) for an `iri` whose authority was already found: one scan of the
    /// URL serves every prefix it is matched against.
    pub(crate) fn strip_at<'a>(&self, iri: &'a str, at: HttpAuthority) -> Option<(&'a str, usize)> {
        let authority = &iri.as_bytes()[at.start..at.start + at.len];
        if !eq_lowercase(authority, self.authority.as_bytes()) {
            return None;
        }
        let rest = strip_prefix_bytes(&iri[at.end..], &self.path)?;
        Some((rest, iri.len() - rest.len()))
    }
}

/// Where the authority of an `http`/`https` URL is, without its default port (`:80` for `http`,
/// `:443` for `https`); scheme in any case.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpAuthority {
    /// Offset of the authority.
    start: usize,
    /// Its length without the default port.
    len: usize,
    /// Where it ends (at the first `/`, `?` or `#` after it, or the end of the URL).
    end: usize,
}

impl HttpAuthority {
    /// The authority of `iri` if it is an `http://` or `https://` URL.
    pub(crate) fn of(iri: &str) -> Option<Self> {
        let start = if starts_with_ignore_case(iri, "http://") {
            7
        } else if starts_with_ignore_case(iri, "https://") {
            8
        } else {
            return None;
        };
        let end = iri.as_bytes()[start..]
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .map_or(iri.len(), |i| start + i);
        let authority = &iri[start..end];
        let len = strip_default_port(authority, start == 8).map_or(authority.len(), str::len);
        Some(Self { start, len, end })
    }
}

/// The host of a URL's hierarchical part (`//[userinfo@]host[:port]…`) when it starts there
/// and has no userinfo (a URL with one is never a prefix's).
pub(crate) fn host_of(hier: &str) -> Option<&str> {
    let authority = hier.strip_prefix("//")?;
    let end = authority
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b':' | b'@'))
        .unwrap_or(authority.len());
    match authority.as_bytes().get(end) {
        Some(b'@') => None,
        _ => Some(&authority[..end]),
    }
}

/// `authority` without `:80` (for `http`) or `:443` (for `https`).
fn strip_default_port(authority: &str, https: bool) -> Option<&str> {
    authority.strip_suffix(if https { ":443" } else { ":80" })
}

/// Whether `s` starts with `prefix`, ignoring ASCII case; `prefix` is in lower case.
pub(crate) fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| eq_lowercase(head, prefix.as_bytes()))
}

/// `a.eq_ignore_ascii_case(lower)` for a `lower` in lower case: one fold, no branch a byte.
pub(crate) fn eq_lowercase(a: &[u8], lower: &[u8]) -> bool {
    debug_assert!(!lower.iter().any(u8::is_ascii_uppercase), "{lower:?}");
    a.len() == lower.len()
        && a.iter()
            .zip(lower)
            .fold(0, |differ, (&x, &y)| differ | (x.to_ascii_lowercase() ^ y))
            == 0
}

/// `s.strip_prefix(prefix)` by a plain loop: no `memcmp` call for the short prefixes of
/// identifiers.
fn strip_prefix_bytes<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.as_bytes().get(..prefix.len())?;
    let same = head.iter().zip(prefix.as_bytes()).all(|(a, b)| a == b);
    same.then(|| &s[prefix.len()..])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// How many prefixes this thread has parsed: the policy is parsed once per registry.
        pub(crate) static PARSED: Cell<usize> = const { Cell::new(0) };
    }

    #[test]
    fn matches_scheme_and_host_in_any_case_and_default_ports() {
        let p = UrlPrefix::parse("http://Arrow.Resolver.au.gov:2641/hdl").unwrap();
        assert_eq!(
            p.strip("http://arrow.resolver.au.gov:2641/hdl/1/2"),
            Some(("1/2", 38))
        );
        assert_eq!(
            p.strip("HTTPS://ARROW.resolver.au.gov:2641/hdl/x"),
            Some(("x", 39))
        );
        assert_eq!(p.strip("http://arrow.resolver.au.gov/hdl/1/2"), None);
        assert_eq!(p.strip("http://arrow.resolver.au.gov:2641/HDL/1/2"), None);
        let q = UrlPrefix::fixed("doi.org", "/");
        assert_eq!(q.strip("https://doi.org:443/10.1/x"), Some(("10.1/x", 20)));
        assert_eq!(q.strip("http://doi.org:443/10.1/x"), None);
        assert_eq!(q.strip("https://doi.organic/10.1/x"), None);
        assert_eq!(q.strip("ftp://doi.org/10.1/x"), None);
        assert_eq!(q.strip("httpss://doi.org/10.1/x"), None);
    }

    /// The exact comparison agrees with the authority scan wherever it answers.
    #[test]
    fn exact_match_agrees_with_the_scan() {
        let prefixes = [
            UrlPrefix::fixed("doi.org", "/"),
            UrlPrefix::fixed("purl.org", "/poi/"),
            UrlPrefix::parse("http://Host.example:8080/fedora").unwrap(),
        ];
        let iris = [
            "http://doi.org/10.1/x",
            "https://doi.org/10.1/x",
            "https://doi.org:443/10.1/x",
            "HTTP://DOI.ORG/10.1/x",
            "https://doi.organic/10.1/x",
            "http://purl.org/poi/a.b/c",
            "http://purl.org/poix/a.b/c",
            "https://purl.org:80/poi/a",
            "http://host.example:8080/fedora/x",
            "http://host.example/fedora/x",
            "httpx://doi.org/10.1/x",
            "http:/doi.org/x",
            "",
        ];
        for p in &prefixes {
            for iri in iris {
                let scanned = HttpAuthority::of(iri).and_then(|at| p.strip_at(iri, at));
                if let Some(exact) = p.strip_exact(iri) {
                    assert_eq!(Some(exact), scanned, "{p:?} {iri}");
                }
                assert_eq!(p.strip(iri), scanned, "{p:?} {iri}");
            }
        }
    }

    #[test]
    fn rejects_prefixes_that_are_not_http_urls() {
        for (url, error) in [
            ("ftp://x/", UrlPrefixError::NotHttp),
            ("mailto:x@y", UrlPrefixError::NotHttp),
            ("http:///a", UrlPrefixError::NoHost),
            ("http://x/a?b", UrlPrefixError::UserQueryOrFragment),
            ("http://u@x/", UrlPrefixError::UserQueryOrFragment),
        ] {
            assert_eq!(UrlPrefix::parse(url), Err(error), "{url}");
        }
        assert!(matches!(
            UrlPrefix::parse("relative/path"),
            Err(UrlPrefixError::NotIri(_))
        ));
    }
}
