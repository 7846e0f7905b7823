//! RDF/XML as it is found in the field: the pre-pass that lets `oxrdfxml` read what rapper,
//! rdflib and Jena read, and the statements with what `oxrdfxml` changes of them put back as
//! written.

mod legacy;
mod literal;
mod located;
mod marks;

pub use legacy::{LegacyRdfXml, XmlError, may_need_legacy_reading};
pub use located::LocatedRdfXml;
pub use marks::{EventMarks, TagMarks};
