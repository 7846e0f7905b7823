//! RDF/XML as it is found in the field: the legacy pre-pass that lets `oxrdfxml` read what
//! rapper, rdflib and Jena read.

mod legacy;
mod located;
mod marks;

pub use legacy::{LegacyRdfXml, XmlError, may_need_legacy_reading};
pub use located::LocatedRdfXml;
pub use marks::{EventMarks, TagMarks};
