//! PURL-based Object Identifiers ("The PURL-based Object Identifier (POI)", UKOLN/OCLC, 2004).
//!
//! ```text
//! POI = "http://purl.org/poi/" namespace-identifier "/" local-identifier
//! ```
//!
//! with the OAI identifier's `namespace-identifier` and `local-identifier` rules. `https` and any
//! case of scheme and host are read as the template; the path keeps its case.

use super::oai::{OaiIdentifier, check_domain, check_uric};
use super::{Canonical, SchemeAdapter};
use crate::url_prefix::UrlPrefix;
use crate::{IdError, Kind, PoiOai, Policy, Rule};
use std::borrow::Cow;

/// The POI template's prefix.
pub const PREFIX: &str = "http://purl.org/poi/";

static TEMPLATE: UrlPrefix = UrlPrefix::fixed("purl.org", "/poi/");

/// A valid POI in its canonical form.
///
/// ```
/// use pidcanon::scheme::poi::Poi;
/// let poi = Poi::parse("HTTPS://PURL.ORG/poi/foo.org/x").unwrap();
/// assert_eq!(poi.as_str(), "http://purl.org/poi/foo.org/x");
/// assert_eq!(poi.to_oai().as_str(), "oai:foo.org:x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Poi<'a> {
    text: Cow<'a, str>,
    slash: usize,
}

impl<'a> Poi<'a> {
    /// Parses a POI; scheme and host in any case, `http` or `https`.
    pub fn parse(iri: &'a str) -> Result<Self, IdError> {
        let kind = Kind::Poi;
        let Some((rest, base)) = TEMPLATE.strip(iri) else {
            return Err(IdError::new(
                kind,
                Rule::Grammar("a POI starts with \"http://purl.org/poi/\""),
                0,
            ));
        };
        let Some((namespace, local)) = rest.split_once('/') else {
            return Err(IdError::new(
                kind,
                Rule::Grammar("a '/' must separate namespace-identifier and local-identifier"),
                iri.len(),
            ));
        };
        check_domain(namespace, kind, base)?;
        check_uric(local, kind, base + namespace.len() + 1)?;
        let text = if base == PREFIX.len() && iri.starts_with(PREFIX) {
            Cow::Borrowed(iri)
        } else {
            Cow::Owned(format!("{PREFIX}{rest}"))
        };
        Ok(Self {
            text,
            slash: PREFIX.len() + namespace.len(),
        })
    }

    /// A valid POI built from its parts, e.g. from an OAI identifier.
    pub(crate) fn from_parts(namespace: &str, local: &str) -> Poi<'static> {
        Poi {
            text: Cow::Owned(format!("{PREFIX}{namespace}/{local}")),
            slash: PREFIX.len() + namespace.len(),
        }
    }

    /// The namespace-identifier, a domain name.
    #[must_use]
    pub fn namespace(&self) -> &str {
        &self.text[PREFIX.len()..self.slash]
    }

    /// The local-identifier.
    #[must_use]
    pub fn local(&self) -> &str {
        &self.text[self.slash + 1..]
    }

    /// The OAI identifier of the metadata record about this resource (POI spec §4).
    #[must_use]
    pub fn to_oai(&self) -> OaiIdentifier<'static> {
        OaiIdentifier::from_parts(self.namespace(), self.local())
    }

    /// An owned copy.
    #[must_use]
    pub fn into_owned(self) -> Poi<'static> {
        Poi {
            text: Cow::Owned(self.text.into_owned()),
            slash: self.slash,
        }
    }
}

canonical_text!(Poi, text);

/// Canonicalizes POIs; maps them to OAI identifiers when the policy merges the two.
#[derive(Debug, Clone, Default)]
pub struct PoiAdapter {
    poi_oai: PoiOai,
}

impl PoiAdapter {
    /// The adapter for `policy`.
    #[must_use]
    pub fn new(policy: &Policy) -> Self {
        Self {
            poi_oai: policy.poi_oai,
        }
    }
}

impl SchemeAdapter for PoiAdapter {
    fn names(&self) -> &'static [&'static str] {
        &["poi"]
    }

    fn routes(&self) -> Vec<String> {
        TEMPLATE.routes().to_vec()
    }

    fn claims(&self, iri: &str) -> bool {
        TEMPLATE.strip(iri).is_some()
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        let poi = Poi::parse(iri)?;
        let iri = match self.poi_oai {
            PoiOai::Oai => Cow::Owned(poi.to_oai().as_str().to_owned()),
            PoiOai::Keep | PoiOai::Poi => poi.into_cow(),
        };
        Ok(Canonical::new(iri, Kind::Poi))
    }
}
