//! RDF/XML as it is found in the field: the pre-pass that lets `oxrdfxml` read what rapper,
//! rdflib and Jena read, and the statements with what `oxrdfxml` changes of them put back as
//! written; and RDF/XML output that declares only the namespaces it uses.

mod legacy;
mod literal;
mod located;
mod marks;
mod output;

pub use legacy::{LegacyRdfXml, XmlError, may_need_legacy_reading};
pub use located::LocatedRdfXml;
pub use marks::{EventMarks, TagMarks};
pub use output::UsedNamespaces;
