//! The adapter framework: one [`SchemeAdapter`] per identifier scheme and a [`Registry`] that
//! dispatches an IRI to the adapters of its URI scheme.

/// The methods and traits every typed identifier shares, for a type `$ty<'a>` whose field
/// `$text: Cow<'a, str>` holds its canonical form and which has `parse(&'a str)` and
/// `into_owned()`: `as_str`, `into_cow`, `Display` (the canonical form) and `FromStr`.
macro_rules! canonical_text {
    ($ty:ident, $text:ident) => {
        impl<'a> $ty<'a> {
            /// The canonical form.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.$text
            }

            /// The canonical form, borrowed from the input when the input was canonical.
            #[must_use]
            pub fn into_cow(self) -> std::borrow::Cow<'a, str> {
                self.$text
            }
        }

        impl std::fmt::Display for $ty<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.$text)
            }
        }

        impl std::str::FromStr for $ty<'static> {
            type Err = crate::IdError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::parse(s).map($ty::into_owned)
            }
        }
    };
}

pub mod fedora;
pub mod handle;
mod named_node;
pub mod oai;
pub mod pdi;
pub mod poi;

pub use crate::url_prefix::UrlPrefixError;
pub use named_node::CanonicalNamedNode;

use crate::policy::Prefixes;
use crate::{IdError, Kind, Policy, PolicyError, Rule};
use std::borrow::Cow;
use std::sync::Arc;

/// The canonical form of an identifier and the kind it was recognized as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical<'a> {
    /// The canonical IRI; borrowed from the input when the input is already canonical.
    pub iri: Cow<'a, str>,
    /// What the input was recognized as.
    pub kind: Kind,
}

impl<'a> Canonical<'a> {
    /// A canonical IRI of `kind`.
    #[must_use]
    pub fn new(iri: Cow<'a, str>, kind: Kind) -> Self {
        Self { iri, kind }
    }
}

/// A scheme adapter: recognizes, validates and canonicalizes the identifiers of one scheme.
///
/// Adapters hold the parts of the [`Policy`] that concern them. An adapter that
/// [claims](SchemeAdapter::claims) an IRI either canonicalizes it or says what is wrong with it.
pub trait SchemeAdapter: Send + Sync {
    /// The names `--scheme` selects this adapter by (e.g. `["handle", "doi"]`).
    fn names(&self) -> &'static [&'static str];

    /// Where the IRIs this adapter may claim are: lower-case URI schemes (`"info"`), and for
    /// `http`/`https` URLs the scheme and host (`"https://doi.org"`, no port). The registry asks
    /// only the adapters of an IRI's route, so an IRI of another host costs one lookup.
    fn routes(&self) -> Vec<String>;

    /// Whether `iri` is written in one of this adapter's full forms. Cheap: a prefix test.
    fn claims(&self, iri: &str) -> bool;

    /// The canonical form of a claimed IRI.
    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError>;

    /// The canonical form of a bare identifier (a PID, a handle) that the caller says is of
    /// scheme `name`, one of [`names`](SchemeAdapter::names). A scheme without a bare form reads
    /// its full forms only (the default).
    fn canonicalize_bare<'a>(&self, name: &str, id: &'a str) -> Result<Canonical<'a>, IdError> {
        let _ = name;
        self.canonicalize(id)
    }

    /// `Some` canonical form, checked to be an IRI, when this adapter claims `iri`: what the
    /// registry asks. A built-in adapter overrides it to find where the identifier is only once
    /// and to skip the check of forms it built from parts already checked; no other adapter can
    /// (the [`Sealed`] argument cannot be named outside this crate).
    #[doc(hidden)]
    fn claim_valid<'a>(&self, iri: &'a str, _: Sealed) -> Option<Result<Canonical<'a>, IdError>> {
        self.claims(iri).then(|| checked(self.canonicalize(iri)))
    }

    /// [`canonicalize_bare`](SchemeAdapter::canonicalize_bare), checked to be an IRI: what the
    /// registry asks. Sealed as [`claim_valid`](SchemeAdapter::claim_valid) is, for the same
    /// reason.
    #[doc(hidden)]
    fn bare_valid<'a>(&self, name: &str, id: &'a str, _: Sealed) -> Result<Canonical<'a>, IdError> {
        checked(self.canonicalize_bare(name, id))
    }
}

mod sealed {
    /// The argument that keeps [`SchemeAdapter::claim_valid`](super::SchemeAdapter::claim_valid)
    /// this crate's own: public, but in a private module, so no other crate can name it.
    #[derive(Debug, Clone, Copy)]
    pub struct Sealed(pub(super) ());
}
use sealed::Sealed;

/// The adapters, dispatched by URI scheme.
///
/// ```
/// use pidcanon::{Kind, Registry};
/// let registry = Registry::default();
/// let c = registry.canonicalize("info:fedora/demo%3a1").unwrap();
/// assert_eq!((c.iri.as_ref(), c.kind), ("info:fedora/demo:1", Kind::FedoraObject));
/// // An IRI no adapter claims passes through unchanged.
/// assert_eq!(registry.canonicalize("demo:1").unwrap().kind, Kind::Iri);
/// // Bare forms only when the caller names the scheme.
/// let bare = registry.canonicalize_as("fedora", "demo:1").expect("a fedora adapter").unwrap();
/// assert_eq!(bare.iri, "info:fedora/demo:1");
/// // A clone shares the adapters (cheap), and canonicalizes as the original.
/// let clone = registry.clone();
/// assert_eq!(clone.canonicalize("info:fedora/demo%3a1").unwrap().iri, c.iri);
/// ```
#[derive(Clone)]
pub struct Registry {
    adapters: Vec<Arc<dyn SchemeAdapter>>,
    /// The routes, each once, in registration order.
    routes: Vec<Route>,
    /// Every adapter's [names](SchemeAdapter::names) with its index, in registration order.
    names: Vec<(&'static str, usize)>,
}

/// A route (`scheme` or `scheme://host`, in lower case) and the indices into `adapters` of the
/// adapters that may claim its IRIs, in registration order.
#[derive(Debug, Clone)]
struct Route {
    /// For a route that is a scheme of at most 8 bytes, its [`scheme_key`]: found by one
    /// comparison. 0 for any other route.
    key: u64,
    /// The [`route_signature`] of any other route, compared before the route itself.
    signature: u32,
    route: String,
    adapters: Vec<usize>,
}

impl Default for Registry {
    /// The built-in adapters under the default [`Policy`].
    fn default() -> Self {
        Self::builtin(&Policy::default(), &Prefixes::default())
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("routes", &self.routes)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// A registry without adapters: every IRI passes through.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            adapters: Vec::new(),
            routes: Vec::new(),
            names: Vec::new(),
        }
    }

    /// The built-in adapters configured by `policy`; its URL prefixes are parsed once here.
    ///
    /// ```
    /// use pidcanon::{Policy, Registry};
    /// let mut policy = Policy::default();
    /// policy.fedora_bases.push("ftp://localhost/fedora".to_owned());
    /// let err = Registry::from_policy(&policy).unwrap_err();
    /// assert_eq!(err.to_string(), r#"invalid Fedora base "ftp://localhost/fedora": not an http(s) URL"#);
    /// ```
    pub fn from_policy(policy: &Policy) -> Result<Self, PolicyError> {
        Ok(Self::builtin(policy, &policy.prefixes()?))
    }

    fn builtin(policy: &Policy, prefixes: &Prefixes) -> Self {
        // The PDI adapter first: on the `urn` route it is asked before the handle adapter, whose
        // claim check costs more. Their claims there (`urn:pdi:`, `urn:hdl:`, `urn:doi:`) are
        // disjoint, so the order changes no result.
        let pdi = pdi::PdiAdapter::with_foreign(Self::foreign(policy, prefixes));
        Self::empty()
            .with_adapter(pdi)
            .with_foreign_adapters(policy, prefixes)
    }

    /// The built-in adapters of the identifiers a PDI may encapsulate: all but the PDI's.
    pub(crate) fn foreign(policy: &Policy, prefixes: &Prefixes) -> Self {
        Self::empty().with_foreign_adapters(policy, prefixes)
    }

    fn with_foreign_adapters(self, policy: &Policy, prefixes: &Prefixes) -> Self {
        self.with_adapter(fedora::FedoraAdapter::with_bases(
            prefixes.fedora_bases.clone(),
        ))
        .with_adapter(oai::OaiAdapter::new(policy))
        .with_adapter(poi::PoiAdapter::new(policy))
        .with_adapter(handle::HandleAdapter::with_resolvers(
            prefixes.handle_resolvers.clone(),
            policy,
        ))
    }

    /// Adds an adapter; for a URI scheme several adapters share, the first that claims an IRI wins.
    #[must_use]
    pub fn with_adapter(mut self, adapter: impl SchemeAdapter + 'static) -> Self {
        let index = self.adapters.len();
        for route in adapter.routes() {
            let route = route.to_ascii_lowercase();
            match self.routes.iter_mut().find(|r| r.route == route) {
                Some(known) => known.adapters.push(index),
                None => self.routes.push(Route {
                    key: scheme_key(route.as_bytes()).unwrap_or(0),
                    signature: route_signature(route.as_bytes()),
                    route,
                    adapters: vec![index],
                }),
            }
        }
        self.names
            .extend(adapter.names().iter().map(|&name| (name, index)));
        self.adapters.push(Arc::new(adapter));
        self
    }

    /// The adapter that claims `iri`, if any.
    #[must_use]
    pub fn adapter_for(&self, iri: &str) -> Option<&dyn SchemeAdapter> {
        self.route_of(iri)?
            .iter()
            .map(|&i| self.adapters[i].as_ref())
            .find(|a| a.claims(iri))
    }

    /// The indices of the adapters of `iri`'s route: its scheme, or for an `http`/`https` URL
    /// its scheme and host, compared in any case without copying. A scheme route is found by
    /// its [`scheme_key`], one comparison a route.
    fn route_of(&self, iri: &str) -> Option<&[usize]> {
        let (scheme, key) = scheme_and_key(iri)?;
        let found = match key {
            Some(HTTP | HTTPS) => {
                let host = crate::url_prefix::host_of(&iri[scheme + 1..])?;
                let route = &iri.as_bytes()[..scheme + 3 + host.len()];
                let signature = route_signature(route);
                self.routes.iter().find(|r| {
                    r.signature == signature
                        && crate::url_prefix::eq_lowercase(route, r.route.as_bytes())
                })
            }
            Some(key) => self.routes.iter().find(|r| r.key == key),
            None => {
                let scheme = &iri.as_bytes()[..scheme];
                let signature = route_signature(scheme);
                self.routes.iter().find(|r| {
                    r.signature == signature
                        && crate::url_prefix::eq_lowercase(scheme, r.route.as_bytes())
                })
            }
        };
        found.map(|r| r.adapters.as_slice())
    }

    /// The adapter that `--scheme name` selects.
    #[must_use]
    pub fn adapter_named(&self, name: &str) -> Option<&dyn SchemeAdapter> {
        // The first bytes first: most names differ there, without a call to compare them.
        let first = name.as_bytes().first();
        let &(_, index) = self
            .names
            .iter()
            .find(|&&(n, _)| n.as_bytes().first() == first && n == name)?;
        Some(self.adapters[index].as_ref())
    }

    /// Canonicalizes an IRI: by the adapter that claims it, or, when none does, checks that it is
    /// an IRI and returns it unchanged (kind [`Kind::Iri`]).
    pub fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        self.canonicalize_claimed(iri).unwrap_or_else(|| {
            crate::iri::validate(iri)?;
            Ok(Canonical::new(Cow::Borrowed(iri), Kind::Iri))
        })
    }

    /// `input` read as an identifier of `scheme` (its full forms, then its bare form: a PID
    /// without `info:fedora/`, a handle without `hdl:`) when a scheme is named and its adapter
    /// recognizes the input, else as an IRI — as `pidcanon canon [--scheme]` reads it.
    ///
    /// ```
    /// use pidcanon::Registry;
    /// let registry = Registry::default();
    /// let pid = registry.canonicalize_with_scheme(Some("fedora"), "demo%3a1")?;
    /// assert_eq!(pid.iri, "info:fedora/demo:1");
    /// let iri = registry.canonicalize_with_scheme(None, "hdl://10013/x")?;
    /// assert_eq!(iri.iri, "hdl:10013/x");
    /// # Ok::<(), pidcanon::IdError>(())
    /// ```
    pub fn canonicalize_with_scheme<'a>(
        &self,
        scheme: Option<&str>,
        input: &'a str,
    ) -> Result<Canonical<'a>, IdError> {
        scheme
            .and_then(|name| self.canonicalize_as(name, input))
            .unwrap_or_else(|| self.canonicalize(input))
    }

    /// Canonicalizes `iri` if an adapter claims it; `None` when none does (the IRI is then not
    /// validated again: for IRIs a parser has already checked, as in a graph rewrite).
    pub fn canonicalize_claimed<'a>(&self, iri: &'a str) -> Option<Result<Canonical<'a>, IdError>> {
        self.route_of(iri)?
            .iter()
            .find_map(|&i| self.adapters[i].claim_valid(iri, Sealed(())))
    }

    /// `iri`, an IRI a parser has already checked, canonicalized by the adapter that claims it,
    /// or as it stands (of kind [`Kind::Iri`]) when none does; the error if the adapter finds
    /// it invalid.
    pub(crate) fn canonicalize_parsed<'a>(
        &self,
        iri: &'a str,
    ) -> Result<(Cow<'a, str>, Kind), IdError> {
        match self.canonicalize_claimed(iri) {
            None => Ok((Cow::Borrowed(iri), Kind::Iri)),
            Some(canonical) => canonical.map(|c| (c.iri, c.kind)),
        }
    }

    /// Canonicalizes `iri` by `adapter` (one of this registry's, from [`adapter_for`](Self::adapter_for)),
    /// with the same checks as [`canonicalize`](Self::canonicalize).
    pub fn canonicalize_by<'a>(
        &self,
        adapter: &dyn SchemeAdapter,
        iri: &'a str,
    ) -> Result<Canonical<'a>, IdError> {
        adapter
            .claim_valid(iri, Sealed(()))
            .unwrap_or_else(|| checked(adapter.canonicalize(iri)))
    }

    /// Canonicalizes an input that the caller says is of scheme `name` (`--scheme`): the scheme's
    /// full forms are read first, then its bare form.
    ///
    /// Returns `None` when no adapter has that name.
    pub fn canonicalize_as<'a>(
        &self,
        name: &str,
        input: &'a str,
    ) -> Option<Result<Canonical<'a>, IdError>> {
        let adapter = self.adapter_named(name)?;
        Some(
            adapter
                .claim_valid(input, Sealed(()))
                .unwrap_or_else(|| adapter.bare_valid(name, input, Sealed(()))),
        )
    }

    /// Where the adapters may claim IRIs ([`SchemeAdapter::routes`]): URI schemes (`"info"`) and
    /// `scheme://host` prefixes, each once, in registration order. An IRI that starts with none
    /// of them (case-insensitively, a scheme followed by `:`) is claimed by no adapter.
    pub fn routes(&self) -> impl Iterator<Item = &str> {
        self.routes.iter().map(|r| r.route.as_str())
    }
}

/// The [`scheme_key`]s of `http` and `https`, whose routes name a host too.
const HTTP: u64 = u64::from_be_bytes(*b"\0\0\0\0http");
const HTTPS: u64 = u64::from_be_bytes(*b"\0\0\0https");

/// A URI scheme of at most 8 bytes, in lower case, as a number (its bytes, big-endian): two
/// schemes are equal in any case when their keys are. `None` for a longer one; never 0 for a
/// scheme (no scheme byte is 0, and a scheme is not empty).
///
/// A route with `://` has a `:`, which no scheme has: its key never equals an IRI's scheme key.
fn scheme_key(scheme: &[u8]) -> Option<u64> {
    (scheme.len() <= 8).then(|| {
        scheme
            .iter()
            .fold(0, |key, &b| key << 8 | u64::from(b.to_ascii_lowercase()))
    })
}

/// The length of `iri`'s URI scheme (RFC 3986 `scheme`, followed by `:`) and the scheme's
/// [`scheme_key`], computed in the same pass over its bytes: what [`scheme_of`] reads.
fn scheme_and_key(iri: &str) -> Option<(usize, Option<u64>)> {
    let bytes = iri.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let mut key = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b':' {
            return Some((i, (i <= 8).then_some(key)));
        }
        if !SCHEME_BYTES[usize::from(b)] {
            return None;
        }
        // For the bytes of a scheme, `| 0x20` is `to_ascii_lowercase`: digits, `+`, `-` and `.`
        // have that bit set already.
        key = key << 8 | u64::from(b | 0x20);
    }
    None
}

/// The bytes a URI scheme is made of after its first letter: letters, digits, `+`, `-`, `.`.
const SCHEME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.');
        b += 1;
    }
    table
};

/// A route's length and its first, middle and last bytes in lower case: most routes that differ
/// differ there (`http://purl.org` and `https://doi.org` in the middle), so one comparison of
/// two `u32`s rejects them.
fn route_signature(route: &[u8]) -> u32 {
    let lower = |b: Option<&u8>| u32::from(b.map_or(0, u8::to_ascii_lowercase));
    (route.len() as u32) << 24
        | lower(route.first()) << 16
        | lower(route.get(route.len() / 2)) << 8
        | lower(route.last())
}

/// `s.find(byte)` for an ASCII byte, as a plain loop: faster than `str::find` (which sets up a
/// `memchr`) on the short parts identifiers are made of.
pub(crate) fn find_byte(s: &str, byte: u8) -> Option<usize> {
    s.bytes().position(|b| b == byte)
}

/// `s.split_once(byte)` for an ASCII byte, as [`find_byte`].
pub(crate) fn split_once_byte(s: &str, byte: u8) -> Option<(&str, &str)> {
    find_byte(s, byte).map(|i| (&s[..i], &s[i + 1..]))
}

/// `s.split(byte)` for an ASCII byte, without `memchr` set-up per piece.
pub(crate) fn split_byte(s: &str, byte: u8) -> impl Iterator<Item = &str> {
    s.split(move |c: char| c == char::from(byte))
}

/// Every canonical form an adapter builds must be an IRI; one that is not is reported, not written.
/// The common shape is recognized by a table-driven scan; anything else gets the full parse.
pub(crate) fn checked(result: Result<Canonical<'_>, IdError>) -> Result<Canonical<'_>, IdError> {
    let canonical = result?;
    if let Cow::Owned(iri) = &canonical.iri
        && !crate::iri::is_plain_absolute_iri(iri)
    {
        crate::iri::validate(iri).map_err(|_| {
            IdError::new(
                canonical.kind,
                Rule::Grammar("its canonical form would not be an IRI"),
                0,
            )
        })?;
    }
    Ok(canonical)
}

/// The URI scheme of `iri` (RFC 3986 `scheme`), if it starts with one followed by `:`.
///
/// ```
/// assert_eq!(pidcanon::scheme::scheme_of("INFO:fedora/demo:1"), Some("INFO"));
/// assert_eq!(pidcanon::scheme::scheme_of("10.1000/182"), None);
/// ```
#[must_use]
pub fn scheme_of(iri: &str) -> Option<&str> {
    scheme_and_key(iri).map(|(colon, _)| &iri[..colon])
}

/// The inputs of every conformance vector (`fixtures/conformance/*.tsv`), each with its
/// `--scheme` if it names one: what the one-pass paths are tested on beside their full parses.
#[cfg(test)]
pub(crate) fn conformance_inputs() -> Vec<(String, Option<String>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/conformance");
    let mut inputs = Vec::new();
    for file in [
        "seed-vectors.tsv",
        "decision-vectors.tsv",
        "pidcanon-vectors.tsv",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect("a vectors file");
        for line in text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let columns: Vec<&str> = line.split('\t').collect();
            let words: Vec<&str> = columns.get(3).unwrap_or(&"").split_whitespace().collect();
            let scheme = words
                .windows(2)
                .find(|w| w[0] == "--scheme")
                .map(|w| w[1].to_owned());
            inputs.push((columns[0].to_owned(), scheme));
        }
    }
    assert!(inputs.len() > 350, "only {} vectors", inputs.len());
    inputs
}

/// Every string of up to `n` pieces of `alphabet`, after `prefix`: exhaustive inputs for the
/// tests that hold a fast path against a full check.
#[cfg(test)]
pub(crate) fn generated_strings(prefix: &str, alphabet: &[&str], n: usize) -> Vec<String> {
    let mut strings = vec![prefix.to_owned()];
    let mut last = strings.clone();
    for _ in 0..n {
        last = last
            .iter()
            .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
            .collect();
        strings.extend(last.iter().cloned());
    }
    strings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url_prefix::tests::PARSED;

    #[test]
    fn the_policy_is_parsed_once_per_registry() {
        let policy = Policy {
            fedora_bases: vec!["http://localhost:8080/fedora".into()],
            handle_resolvers: vec!["https://repo.example.edu/handle/".into()],
            ..Policy::default()
        };
        PARSED.with(|n| n.set(0));
        let registry = Registry::from_policy(&policy).expect("a valid policy");
        assert_eq!(PARSED.with(std::cell::Cell::get), 2);
        // Both adapters got their prefixes, the PDI's encapsulated identifiers too.
        let c = registry
            .canonicalize("http://localhost:8080/fedora/objects/demo:1")
            .expect("under the base");
        assert_eq!(c.iri, "info:fedora/demo:1");
        let c = registry
            .canonicalize("https://repo.example.edu/handle/10013/x")
            .expect("under the resolver");
        assert_eq!(c.iri, "hdl:10013/x");
        let c = registry
            .canonicalize("urn:pdi://a.us/1997/09/01/https:%2f%2frepo%2eexample%2eedu%2fhandle%2f10013%2fx.text")
            .expect("a PDI");
        assert_eq!(c.iri, "urn:pdi://a.us/1997/09/01/hdl:10013%2fx.text");
    }

    /// What [`Registry::canonicalize_as`] computes, by the long way: the adapter found by
    /// asking each for its names, asked whether it claims the input, its result checked.
    fn canonicalize_as_in_full<'a>(
        registry: &Registry,
        name: &str,
        input: &'a str,
    ) -> Option<Result<Canonical<'a>, IdError>> {
        let adapter = registry
            .adapters
            .iter()
            .find(|a| a.names().contains(&name))?;
        Some(checked(if adapter.claims(input) {
            adapter.canonicalize(input)
        } else {
            adapter.canonicalize_bare(name, input)
        }))
    }

    #[test]
    fn a_named_scheme_gives_what_the_long_way_gives() {
        let registry = Registry::default();
        let names = [
            "fedora", "oai", "poi", "handle", "doi", "pdi", "none", "DOI",
        ];
        let mut inputs: Vec<String> = conformance_inputs().into_iter().map(|(i, _)| i).collect();
        let alphabet = [
            "a", "A", "1", ".", "/", "%", "2F", " ", "<", "\u{e9}", ":", "?",
        ];
        for prefix in ["10.1000/", "10013/", "doi:10.1000/", "https://doi.org/10."] {
            inputs.extend(generated_strings(prefix, &alphabet, 4));
        }
        let mut owned = 0;
        for input in &inputs {
            for name in names {
                let fast = registry.canonicalize_as(name, input);
                assert_eq!(
                    fast,
                    canonicalize_as_in_full(&registry, name, input),
                    "{name} {input}"
                );
                owned += usize::from(matches!(
                    fast,
                    Some(Ok(Canonical {
                        iri: Cow::Owned(_),
                        ..
                    }))
                ));
            }
        }
        assert!(owned > 10_000, "only {owned} changed");
    }

    #[test]
    fn one_bad_prefix_is_an_error_not_an_empty_list() {
        let policy = Policy {
            fedora_bases: vec!["http://ok.example/fedora".into(), "http://u@x/".into()],
            ..Policy::default()
        };
        for err in [
            fedora::FedoraAdapter::new(&policy).map(drop),
            pdi::PdiAdapter::new(&policy).map(drop),
            Registry::from_policy(&policy).map(drop),
        ] {
            assert!(
                matches!(err, Err(PolicyError::BadUrl { ref url, .. }) if url == "http://u@x/"),
                "{err:?}"
            );
        }
        let policy = Policy {
            handle_resolvers: vec!["https://ok.example/h/".into(), "ftp://x/".into()],
            ..Policy::default()
        };
        let err = handle::HandleAdapter::new(&policy).map(drop);
        assert!(
            matches!(err, Err(PolicyError::BadUrl { ref url, .. }) if url == "ftp://x/"),
            "{err:?}"
        );
    }
}
