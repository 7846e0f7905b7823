#![doc = include_str!("../README.md")]
#![doc(test(attr(deny(warnings))))]

pub mod buffered;
pub mod collapse;
pub mod equivalence;
mod error;
pub mod foxml;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod iri;
mod kind;
pub mod literals;
pub mod mapping;
pub mod pairs;
pub mod pct;
mod policy;
mod position;
pub mod rdfxml;
pub mod rename;
pub mod rewrite;
pub mod scheme;
#[cfg(feature = "store")]
pub mod store;
mod url_prefix;

pub use error::{IdError, Rule};
pub use kind::{Kind, UnknownKind};
pub use policy::{DoiForm, HandleForm, PoiOai, Policy, PolicyError};
pub use scheme::{Canonical, CanonicalNamedNode, Registry, SchemeAdapter};
