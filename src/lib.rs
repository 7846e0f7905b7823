#![doc = include_str!("../README.md")]
#![doc(test(attr(deny(warnings))))]

mod error;
pub mod iri;
mod kind;
pub mod pct;
mod policy;
pub mod rewrite;
pub mod scheme;
#[cfg(feature = "store")]
pub mod store;

pub use error::{IdError, Rule};
pub use kind::{Kind, UnknownKind};
pub use policy::{DoiForm, HandleForm, PoiOai, Policy, PolicyError};
pub use scheme::{Canonical, Registry, SchemeAdapter};
