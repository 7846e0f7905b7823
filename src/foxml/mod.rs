//! Fedora 3's FOXML: the RDF a repository keeps inside its objects, and the object store that
//! holds them. See `docs/fedora.md`.
//!
//! [`FoxmlObject::read`] reads one object; [`FoxmlObject::quads`] gives the statements of its
//! current RELS-EXT and RELS-INT (and, as an option, the triples Fedora's resource index derives
//! from its properties and datastreams); [`ObjectStore`] walks an `objectStore` tree in a stable
//! order and [`read_objects`] reads its files on several threads, in that order.

mod object;
mod store;

pub use object::{Datastream, FoxmlError, FoxmlObject, FoxmlOptions, looks_like_foxml};
pub use store::{NotFollowed, ObjectStore, PidIndex, read_objects};
