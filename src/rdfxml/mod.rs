//! RDF/XML as it is found in the field: the legacy pre-pass that lets `oxrdfxml` read what
//! rapper, rdflib and Jena read.

mod legacy;

pub use legacy::{LegacyRdfXml, XmlError};
