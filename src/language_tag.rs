//! A language tag given back the case it was written in: `oxttl` and `oxrdfxml` lower-case
//! the tags they read (language tags compare without case), and pidcanon changes nothing in a
//! graph but identifiers.

use oxrdf::Literal;

/// `literal` (language-tagged) with its tag as `written` (the same tag in another case), its
/// value and base direction kept.
///
/// ```ignore
/// let read = Literal::new_language_tagged_literal_unchecked("x", "en-gb");
/// assert_eq!(with_written_tag(&read, "en-GB").to_string(), "\"x\"@en-GB");
/// ```
pub(crate) fn with_written_tag(literal: &Literal, written: &str) -> Literal {
    #[cfg(feature = "rdf-12")]
    if let Some(direction) = literal.direction() {
        return Literal::new_directional_language_tagged_literal_unchecked(
            literal.value(),
            written,
            direction,
        );
    }
    Literal::new_language_tagged_literal_unchecked(literal.value(), written)
}
