//! Canonical identifiers as oxrdf named nodes, in oxrdf's owned/borrowed habits: a
//! [`NamedNodeRef`] in, the same reference back when it is canonical, a [`NamedNode`] otherwise.

use super::{Canonical, Registry};
use crate::IdError;
use oxrdf::{NamedNode, NamedNodeRef};
use std::borrow::Cow;
use std::fmt;

/// A named node in canonical form: the input itself when it was already canonical (nothing
/// allocated), or a new node holding the canonical IRI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CanonicalNamedNode<'a> {
    /// The input, canonical already or claimed by no adapter.
    Unchanged(NamedNodeRef<'a>),
    /// The canonical form, which differs from the input.
    Changed(NamedNode),
}

impl CanonicalNamedNode<'_> {
    /// The canonical node, borrowed.
    #[must_use]
    pub fn as_ref(&self) -> NamedNodeRef<'_> {
        match self {
            Self::Unchanged(node) => *node,
            Self::Changed(node) => node.as_ref(),
        }
    }

    /// The canonical IRI.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.as_ref().as_str()
    }

    /// Whether the canonical form differs from the input.
    #[must_use]
    pub fn is_changed(&self) -> bool {
        matches!(self, Self::Changed(_))
    }

    /// The canonical node, owned (allocates only when it was [`Unchanged`](Self::Unchanged)).
    #[must_use]
    pub fn into_owned(self) -> NamedNode {
        match self {
            Self::Unchanged(node) => node.into_owned(),
            Self::Changed(node) => node,
        }
    }
}

impl From<CanonicalNamedNode<'_>> for NamedNode {
    fn from(node: CanonicalNamedNode<'_>) -> Self {
        node.into_owned()
    }
}

impl<'a> From<&'a CanonicalNamedNode<'_>> for NamedNodeRef<'a> {
    fn from(node: &'a CanonicalNamedNode<'_>) -> Self {
        node.as_ref()
    }
}

impl fmt::Display for CanonicalNamedNode<'_> {
    /// N-Triples syntax, as oxrdf writes a named node: `<iri>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_ref().fmt(f)
    }
}

impl Registry {
    /// Canonicalizes a named node: by the adapter that claims its IRI, or, when none does, the
    /// node itself (an oxrdf node is an IRI already, so it is not validated again).
    ///
    /// Canonical input comes back as [`CanonicalNamedNode::Unchanged`] without allocating; an
    /// identifier that its adapter claims but that breaks a rule is an error, never a repair.
    ///
    /// ```
    /// use oxrdf::{NamedNode, NamedNodeRef};
    /// use pidcanon::{CanonicalNamedNode, Registry};
    /// let registry = Registry::default();
    ///
    /// let node = NamedNodeRef::new("info:fedora/demo%3a1")?;
    /// let canonical = registry.canonicalize_named_node(node)?;
    /// assert_eq!(canonical.as_ref(), NamedNodeRef::new("info:fedora/demo:1")?);
    /// let owned: NamedNode = canonical.into();
    ///
    /// // Canonical input, or an IRI no adapter claims, comes back as it is; `&NamedNode` works too.
    /// let unchanged = registry.canonicalize_named_node(&owned)?;
    /// assert_eq!(unchanged, CanonicalNamedNode::Unchanged(owned.as_ref()));
    ///
    /// let err = registry.canonicalize_named_node(NamedNodeRef::new("info:fedora/de_mo:1")?);
    /// assert_eq!(err.unwrap_err().to_string(), "fedora-object: character '_' is not allowed in namespace-id (byte 14)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn canonicalize_named_node<'a>(
        &self,
        node: impl Into<NamedNodeRef<'a>>,
    ) -> Result<CanonicalNamedNode<'a>, IdError> {
        let node = node.into();
        Ok(
            match self.canonicalize_claimed(node.as_str()).transpose()? {
                Some(Canonical {
                    iri: Cow::Owned(iri),
                    ..
                }) if iri != node.as_str() => {
                    CanonicalNamedNode::Changed(NamedNode::new_unchecked(iri))
                }
                _ => CanonicalNamedNode::Unchanged(node),
            },
        )
    }
}
