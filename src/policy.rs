//! [`Policy`]: every choice a user can make about canonical forms, from a TOML file or flags.

use crate::url_prefix::{UrlPrefix, UrlPrefixError};
#[cfg(feature = "policy-file")]
use std::path::{Path, PathBuf};

/// Every choice a user can make. The defaults are the canonical forms documented in
/// `docs/canonical-forms.md`.
///
/// A policy file is TOML with the field names below; every field is optional:
///
/// ```
/// use pidcanon::{Policy, PoiOai};
/// let policy = Policy::from_toml(r#"
///     poi_oai = "poi"
///     fedora_bases = ["http://localhost:8080/fedora"]
/// "#).unwrap();
/// assert_eq!(policy.poi_oai, PoiOai::Poi);
/// assert_eq!(Policy::default().poi_oai, PoiOai::Keep);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "policy-file", derive(serde::Deserialize))]
#[cfg_attr(feature = "policy-file", serde(default, deny_unknown_fields))]
#[non_exhaustive]
pub struct Policy {
    /// Whether POIs and OAI identifiers are merged (default: kept apart).
    pub poi_oai: PoiOai,
    /// Fedora base URLs (`http://host:8080/fedora`) whose REST and API-A-Lite URLs become
    /// `info:fedora/` URIs (default: none).
    pub fedora_bases: Vec<String>,
    /// Handle resolver URL prefixes (`https://host/handle/`) besides the global proxies
    /// (default: none).
    pub handle_resolvers: Vec<String>,
    /// How a Handle is written (default: `hdl:NA/local`).
    pub handle_form: HandleForm,
    /// How a DOI is written (default: `https://doi.org/…`).
    pub doi_form: DoiForm,
    /// Which member represents an equivalence class (`--collapse`): kind names in order of
    /// preference, then byte order (default, when empty: `["doi", "handle", "fedora-object"]`;
    /// see `docs/equivalence.md`).
    pub representative_order: Vec<String>,
    /// How DOIs written as literals are cased (`--literals`; default: `preserve`).
    pub doi_literal_case: DoiCase,
}

/// Whether POIs and OAI identifiers are merged onto one form (POI spec §4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "policy-file", derive(serde::Deserialize))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "policy-file", serde(rename_all = "lowercase"))]
pub enum PoiOai {
    /// Kept apart: the OAI identifier names a metadata record, the POI the resource.
    #[default]
    Keep,
    /// OAI identifiers become POIs.
    Poi,
    /// POIs become OAI identifiers.
    Oai,
}

/// How DOIs written as literals are cased (the `doi_literal_case` policy key). The authorities
/// disagree — Wikidata requires upper case, Crossref returns lower case, DataCite stores upper
/// case — so the default keeps the case written and normalizes only the form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "policy-file", derive(serde::Deserialize))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "policy-file", serde(rename_all = "lowercase"))]
pub enum DoiCase {
    /// The case written in the input.
    #[default]
    Preserve,
    /// ASCII lower case.
    Lower,
    /// ASCII upper case.
    Upper,
}

/// How a Handle is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "policy-file", derive(serde::Deserialize))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "policy-file", serde(rename_all = "lowercase"))]
pub enum HandleForm {
    /// `hdl:NA/local`.
    #[default]
    Hdl,
    /// `https://hdl.handle.net/NA/local`.
    Https,
}

/// How a DOI is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "policy-file", derive(serde::Deserialize))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "policy-file", serde(rename_all = "lowercase"))]
pub enum DoiForm {
    /// `https://doi.org/10.x/y`.
    #[default]
    Https,
    /// `hdl:10.x/y`.
    Hdl,
}

/// A policy that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The policy file cannot be read.
    #[cfg(feature = "policy-file")]
    #[error("cannot read policy file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The policy file is not valid TOML or has unknown fields.
    #[cfg(feature = "policy-file")]
    #[error("invalid policy: {0}")]
    Toml(#[from] toml::de::Error),
    /// A configured URL prefix is not an absolute `http`/`https` URL.
    #[error("invalid {setting} {url:?}: {reason}")]
    BadUrl {
        /// The setting it was given for.
        setting: &'static str,
        /// The URL.
        url: String,
        /// What is wrong with it.
        #[source]
        reason: UrlPrefixError,
    },
}

/// The URL prefixes of a [`Policy`], parsed once and handed to the adapters that match them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefixes {
    /// `fedora_bases`, in order.
    pub(crate) fedora_bases: Vec<UrlPrefix>,
    /// `handle_resolvers`, in order.
    pub(crate) handle_resolvers: Vec<UrlPrefix>,
}

impl Policy {
    /// Reads a policy from TOML text and checks it (with the feature `policy-file`).
    #[cfg(feature = "policy-file")]
    pub fn from_toml(text: &str) -> Result<Self, PolicyError> {
        let policy: Policy = toml::from_str(text)?;
        policy.check()?;
        Ok(policy)
    }

    /// Reads a policy from a TOML file and checks it (with the feature `policy-file`).
    #[cfg(feature = "policy-file")]
    pub fn from_file(path: &Path) -> Result<Self, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_toml(&text)
    }

    /// Checks the configured URL prefixes.
    pub fn check(&self) -> Result<(), PolicyError> {
        self.prefixes().map(drop)
    }

    /// The configured URL prefixes, parsed.
    pub(crate) fn prefixes(&self) -> Result<Prefixes, PolicyError> {
        Ok(Prefixes {
            fedora_bases: parse_all(&self.fedora_bases, "Fedora base")?,
            handle_resolvers: parse_all(&self.handle_resolvers, "handle resolver")?,
        })
    }
}

/// Parses the URLs of one setting; the error names the setting and the URL.
fn parse_all(urls: &[String], setting: &'static str) -> Result<Vec<UrlPrefix>, PolicyError> {
    urls.iter()
        .map(|url| {
            UrlPrefix::parse(url).map_err(|reason| PolicyError::BadUrl {
                setting,
                url: url.clone(),
                reason,
            })
        })
        .collect()
}

#[cfg(all(test, feature = "policy-file"))]
mod tests {
    use super::*;

    #[test]
    fn reads_every_field() {
        let policy = Policy::from_toml(
            r#"
            poi_oai = "oai"
            fedora_bases = ["http://localhost:8080/fedora/"]
            handle_resolvers = ["https://repo.example.edu/handle/"]
            handle_form = "https"
            doi_form = "hdl"
            "#,
        )
        .unwrap();
        assert_eq!(policy.poi_oai, PoiOai::Oai);
        assert_eq!(policy.handle_form, HandleForm::Https);
        assert_eq!(policy.doi_form, DoiForm::Hdl);
        assert_eq!(policy.fedora_bases.len(), 1);
        assert_eq!(policy.handle_resolvers.len(), 1);
    }

    #[test]
    fn rejects_unknown_fields_values_and_bad_urls() {
        assert!(Policy::from_toml("poi_oia = \"oai\"").is_err());
        assert!(Policy::from_toml("poi_oai = \"merge\"").is_err());
        let err = Policy::from_toml("fedora_bases = [\"ftp://x/fedora\"]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid Fedora base \"ftp://x/fedora\": not an http(s) URL"
        );
        let err =
            Policy::from_toml("handle_resolvers = [\"https://x/h\", \"http://x/?q\"]").unwrap_err();
        assert!(
            matches!(
                &err,
                PolicyError::BadUrl { setting: "handle resolver", url, reason: UrlPrefixError::UserQueryOrFragment }
                    if url == "http://x/?q"
            ),
            "{err:?}"
        );
    }
}
