//! Where a reader is in a text: line and column, counted as the text goes by.

use crate::rewrite::Location;

/// The line and column (both 1-based; the column in characters) of the next byte of a text
/// read from its start. Every reader that locates what it reads (the RDF/XML readers, FOXML)
/// counts with it, so they all count alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextPosition {
    line: u64,
    column: u64,
}

impl Default for TextPosition {
    fn default() -> Self {
        Self { line: 1, column: 1 }
    }
}

impl TextPosition {
    /// Moves past `bytes`: a newline starts a line; each byte that starts a UTF-8 character
    /// is one column (continuation bytes are not).
    pub(crate) fn advance(&mut self, bytes: &[u8]) {
        let rest = match memchr::memrchr(b'\n', bytes) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
                self.column = 1;
                &bytes[last + 1..]
            }
            None => bytes,
        };
        self.column += rest.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
    }

    /// This position, `back` characters earlier on the same line.
    pub(crate) fn location_before(self, back: u64) -> Location {
        Location::new(self.line, self.column.saturating_sub(back).max(1))
    }

    pub(crate) fn location(self) -> Location {
        Location::new(self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(pieces: &[&str]) -> Location {
        let mut position = TextPosition::default();
        for piece in pieces {
            position.advance(piece.as_bytes());
        }
        position.location()
    }

    #[test]
    fn lines_and_character_columns_whatever_the_pieces() {
        assert_eq!(after(&[]), Location::new(1, 1));
        assert_eq!(after(&["ab"]), Location::new(1, 3));
        assert_eq!(after(&["a\nbc"]), Location::new(2, 3));
        assert_eq!(after(&["a\n", "\n", "é"]), Location::new(3, 2));
        let text = "x\n€é\ny z";
        for cut in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(cut);
            let mut position = TextPosition::default();
            position.advance(a);
            position.advance(b);
            assert_eq!(position.location(), Location::new(3, 4), "cut at {cut}");
        }
    }
}
