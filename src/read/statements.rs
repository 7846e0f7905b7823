//! [`Statements`]: statements read, each with the lines it spans, the text of lines that
//! statements share kept once.

use super::Span;
use oxrdf::Quad;
use std::ops::Range;

/// A [`Span`] kept beside its statement: the first line, the column, and the range of the
/// text.
type SpanRecord = (u64, Option<u64>, Range<usize>);

/// Statements read, each with the lines it spans.
#[derive(Debug, Default)]
pub(crate) struct Statements {
    pub(crate) quads: Vec<Quad>,
    /// Per statement: where it starts and the range of its lines in `text`.
    spans: Vec<SpanRecord>,
    text: Vec<u8>,
}

impl Statements {
    /// None, with room for the statements of about `bytes` bytes of input.
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        Self {
            quads: Vec::with_capacity(bytes / 48),
            spans: Vec::with_capacity(bytes / 48),
            text: Vec::with_capacity(bytes + bytes / 2),
        }
    }

    /// Adds `quad`, read with the lines `span` (kept once if the statement before spans the
    /// same).
    pub(crate) fn push(&mut self, quad: Quad, span: Span<'_>) {
        let same = self.spans.last().is_some_and(|(line, column, range)| {
            (*line, *column) == (span.first_line, span.column)
                && self.text[range.clone()] == *span.text
        });
        let range = match self.spans.last() {
            Some((.., range)) if same => range.clone(),
            _ => {
                let start = self.text.len();
                self.text.extend_from_slice(span.text);
                start..self.text.len()
            }
        };
        self.quads.push(quad);
        self.spans.push((span.first_line, span.column, range));
    }

    /// The lines statement `index` spans.
    pub(crate) fn span(&self, index: usize) -> Span<'_> {
        let (first_line, column, range) = &self.spans[index];
        Span {
            first_line: *first_line,
            column: *column,
            text: &self.text[range.clone()],
        }
    }

    /// Hands each statement with the lines it spans to `take`, in order, and empties `self`.
    pub(crate) fn drain<E>(
        &mut self,
        mut take: impl FnMut(Quad, Span<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let quads = std::mem::take(&mut self.quads);
        for (index, quad) in quads.into_iter().enumerate() {
            take(quad, self.span(index))?;
        }
        self.clear();
        Ok(())
    }

    /// Empties `self`, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.quads.clear();
        self.spans.clear();
        self.text.clear();
    }
}
