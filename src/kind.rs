//! What kind of identifier an input turned out to be.

use std::fmt;

/// The kind of an identifier, as printed in the `kind` column of `pidcanon canon --tsv`.
///
/// ```
/// use pidcanon::Kind;
/// assert_eq!(Kind::FedoraObject.as_str(), "fedora-object");
/// assert_eq!("doi".parse::<Kind>(), Ok(Kind::Doi));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// A Fedora object: a PID or an `info:fedora/` object URI.
    FedoraObject,
    /// A Fedora dissemination URI: a datastream or a method call.
    FedoraDissemination,
    /// An OAI identifier (`oai:`).
    Oai,
    /// A PURL-based Object Identifier (`http://purl.org/poi/`).
    Poi,
    /// A Handle that is not a DOI.
    Handle,
    /// A DOI: a Handle whose naming authority is `10.` followed by digits and dots.
    Doi,
    /// A Persistent Document Identifier (`urn:pdi:`, `pdi:`).
    Pdi,
    /// An IRI that no adapter claims.
    Iri,
}

impl Kind {
    /// Every kind, in the order above.
    pub const ALL: [Kind; 8] = [
        Kind::FedoraObject,
        Kind::FedoraDissemination,
        Kind::Oai,
        Kind::Poi,
        Kind::Handle,
        Kind::Doi,
        Kind::Pdi,
        Kind::Iri,
    ];

    /// The name of the kind, as used in TSV output and reports.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::FedoraObject => "fedora-object",
            Kind::FedoraDissemination => "fedora-dissemination",
            Kind::Oai => "oai",
            Kind::Poi => "poi",
            Kind::Handle => "handle",
            Kind::Doi => "doi",
            Kind::Pdi => "pdi",
            Kind::Iri => "iri",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name given is not one of [`Kind::as_str`]'s names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown identifier kind {0:?}")]
pub struct UnknownKind(pub String);

impl std::str::FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}
