//! Identifiers that name one thing, and what a rewrite maps an IRI to: the classes of
//! equivalent IRIs with their representatives ([`Equivalences`], built from `owl:sameAs`
//! statements and pair files), renaming tables ([`rename`]), the mapping a rewrite applies
//! ([`mapping`]: renames, then classes), and the identifiers written as literals
//! ([`literals`]). Collecting classes from RDF as a rewrite reads it is
//! [`crate::collapse`], above the rewrite.

mod classes;
pub mod literals;
pub mod mapping;
pub(crate) mod pairs;
pub mod rename;

pub use classes::{
    ClassJoin, Equivalences, EquivalencesBuilder, LargeClass, Member, Origin, RepresentativeOrder,
    TooManyIdentifiers,
};
