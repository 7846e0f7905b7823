//! Errors of identifier parsing: which kind of identifier, which rule, which byte.

use crate::Kind;

/// A grammar rule or normalization rule that an identifier broke.
///
/// The messages are written for the people who read them: they name the rule in
/// the words of the specification it comes from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rule {
    /// A required part is empty.
    #[error("{part} is empty")]
    Empty {
        /// The grammar's name of the part.
        part: &'static str,
    },
    /// A character the part's grammar does not allow.
    #[error("character {ch:?} is not allowed in {part}")]
    Char {
        /// The offending character.
        ch: char,
        /// The grammar's name of the part.
        part: &'static str,
    },
    /// A `%` not followed by two hexadecimal digits.
    #[error("'%' must be followed by two hex digits")]
    BadEscape,
    /// A percent-escape with lower-case hex digits where only upper case is allowed.
    #[error("escapes must use upper-case hex digits (%3C, not %3c)")]
    LowercaseHex,
    /// A percent-escape of a character that must appear unescaped.
    #[error("{ch:?} must not be percent-escaped")]
    NeedlessEscape {
        /// The escaped character.
        ch: char,
    },
    /// Percent-escapes that decode to bytes that are not UTF-8.
    #[error("percent-escapes do not decode to UTF-8")]
    NotUtf8,
    /// A part that is longer than its specification allows.
    #[error("{part} is {len} characters long; at most {max} are allowed")]
    TooLong {
        /// The grammar's name of the part.
        part: &'static str,
        /// Its length.
        len: usize,
        /// The maximum.
        max: usize,
    },
    /// Any other grammar rule, described in a sentence.
    #[error("{0}")]
    Grammar(&'static str),
    /// Not an IRI (RFC 3987); the text is `iri-string`'s name of the broken rule.
    #[error("not a valid IRI ({0})")]
    Iri(String),
}

/// An identifier that its adapter claims but that breaks one of its rules.
///
/// ```
/// use pidcanon::{Kind, Registry};
/// let err = Registry::default().canonicalize("info:fedora/demo:a b").unwrap_err();
/// assert_eq!(err.kind(), Kind::FedoraObject);
/// assert_eq!(err.offset(), 18);
/// assert_eq!(err.to_string(), "fedora-object: character ' ' is not allowed in object-id (byte 18)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {rule} (byte {offset})")]
pub struct IdError {
    kind: Kind,
    rule: Rule,
    offset: usize,
}

impl IdError {
    /// An error of `rule` at byte `offset` of an identifier of `kind`.
    #[must_use]
    pub fn new(kind: Kind, rule: Rule, offset: usize) -> Self {
        Self { kind, rule, offset }
    }

    /// The kind of identifier that was expected.
    #[must_use]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The rule that was broken.
    #[must_use]
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The byte offset in the input where the rule was broken.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The same error, reported for another kind of identifier.
    #[must_use]
    pub(crate) fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }
}
