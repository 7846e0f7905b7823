//! [`Pending`]: the lines read since the last statement, which a statement spans and from
//! which reading starts again after an error.

use super::scan::ends_one_statement;
use super::{Span, repeated_work};
use crate::position::{is_line_end, line_breaks};
use std::collections::VecDeque;
use std::rc::Rc;

/// The most text kept after the last statement to start again from after an error.
const MAX_PENDING: usize = 1 << 26;

/// The lines read since the last statement: what a statement spans, and where reading starts
/// again after an error. Forgetting lines costs nothing per line: the text before the first
/// line kept is dropped only once it is as long as the text kept.
#[derive(Default)]
pub(super) struct Pending {
    /// The lines, from `dead` on; the bytes before `dead` are forgotten.
    text: Vec<u8>,
    dead: usize,
    /// The start of each line in `text`, its number, and the TriG graph block open at its end.
    lines: VecDeque<(usize, u64, Option<Rc<str>>)>,
}

impl Pending {
    pub(super) fn push(&mut self, line: &[u8], line_no: u64, block: Option<Rc<str>>) {
        while self.len() + line.len() > MAX_PENDING && self.lines.len() > 1 {
            self.drop_first();
        }
        self.lines.push_back((self.text.len(), line_no, block));
        self.text.extend_from_slice(line);
    }

    /// The bytes of the lines kept.
    pub(super) fn len(&self) -> usize {
        self.text.len() - self.dead
    }

    pub(super) fn drop_first(&mut self) {
        self.lines.pop_front();
        self.dead = self
            .lines
            .front()
            .map_or(self.text.len(), |&(start, ..)| start);
        if self.dead >= self.len() {
            repeated_work(self.len());
            self.text.drain(..self.dead);
            for (at, ..) in &mut self.lines {
                *at -= self.dead;
            }
            self.dead = 0;
        }
    }

    /// Forgets the lines before `line_no`.
    pub(super) fn keep_from(&mut self, line_no: u64) {
        while self.lines.front().is_some_and(|&(_, n, _)| n < line_no) {
            self.drop_first();
        }
    }

    /// The text of the lines kept.
    pub(super) fn text(&self) -> &[u8] {
        &self.text[self.dead..]
    }

    pub(super) fn span(&self, up_to: Option<u64>) -> Span<'_> {
        let end = up_to
            .and_then(|last| self.lines.iter().find(|&&(_, n, _)| n > last))
            .map_or(self.text.len(), |&(start, ..)| start);
        Span {
            first_line: self.lines.front().map_or(0, |&(_, n, _)| n),
            column: None,
            text: &self.text[self.dead..end],
        }
    }

    /// Where byte `offset` of line `line_no` is in the text kept, when that line is kept.
    pub(super) fn offset_of(&self, line_no: u64, offset: usize) -> Option<usize> {
        self.lines
            .iter()
            .find(|&&(_, n, _)| n == line_no)
            .map(|&(start, ..)| start - self.dead + offset)
    }

    /// The line of byte `at` of the text kept, and the offset in it.
    pub(super) fn position_of(&self, at: usize) -> (u64, usize) {
        let at = at + self.dead;
        let line = self.lines.partition_point(|&(start, ..)| start <= at);
        self.lines
            .get(line.wrapping_sub(1))
            .map_or((0, at), |&(start, n, _)| (n, at - start))
    }

    /// The text of a syntax error found on line `error_line`: the lines since the last statement,
    /// less a first line before the error's that holds only the end of that statement (which
    /// was written, so the rejects do not hold it twice).
    pub(super) fn error_span(&self, error_line: u64) -> Span<'_> {
        let (first_line, range) = self.error_range(error_line);
        Span {
            first_line,
            column: None,
            text: &self.text()[range],
        }
    }

    /// [`Pending::error_span`]'s first line, and where its text is in the text kept.
    pub(super) fn error_range(&self, error_line: u64) -> (u64, std::ops::Range<usize>) {
        let span = self.span(Some(error_line));
        let mut first_line = span.first_line;
        let mut range = 0..span.text.len();
        if let (Some(&(_, first, _)), Some(&(next_start, next, _))) =
            (self.lines.front(), self.lines.get(1))
        {
            let next_start = next_start - self.dead;
            if first < error_line
                && next <= error_line
                && ends_one_statement(&self.text()[..next_start])
            {
                first_line = next;
                range.start = next_start;
            }
        }
        (first_line, range)
    }

    /// The text of a bad statement found on line `error_line`, when it is known where it starts
    /// within a line (`start`: the line's number and the offset) or where it ends within the
    /// line `error_line` (`end`): from its start to its end, with a line break where it ends
    /// before its line does; `None` when only its lines are known ([`Pending::error_span`]).
    pub(super) fn bad_statement(
        &self,
        error_line: u64,
        start: Option<(u64, usize)>,
        end: Option<usize>,
    ) -> Option<(u64, Vec<u8>)> {
        let (first_line, range) = self.error_range(error_line);
        let start = start.filter(|&(line, _)| line == first_line);
        if start.is_none() && end.is_none() {
            return None;
        }
        let error_line_at = self
            .lines
            .iter()
            .find(|&&(_, n, _)| n == error_line)
            .map_or(range.start, |&(at, ..)| at - self.dead);
        let from = range.start + start.map_or(0, |(_, offset)| offset);
        let to = end.map_or(range.end, |end| (error_line_at + end).min(range.end));
        let from = from.min(to);
        let mut text = self.text()[from..to].to_vec();
        if to < range.end && !text.last().copied().is_some_and(is_line_end) {
            // Cut before the end of its line (a statement follows it there): a line of its
            // own in the rejects. At the end of the input, the input's bytes as they are.
            text.push(b'\n');
        }
        Some((
            first_line + line_breaks(&self.text()[range.start..from]),
            text,
        ))
    }

    /// The TriG graph block open at the end of line `line_no`.
    pub(super) fn block_after(&self, line_no: u64) -> Option<Rc<str>> {
        self.lines
            .iter()
            .find(|&&(_, n, _)| n == line_no)
            .and_then(|(_, _, block)| block.clone())
    }

    /// Takes the lines after `line_no` out, to be read again.
    pub(super) fn take_after(&mut self, line_no: u64) -> VecDeque<(u64, Vec<u8>)> {
        let mut taken = VecDeque::new();
        let mut ends = self.lines.iter().skip(1).map(|&(start, ..)| start);
        for &(start, n, _) in &self.lines {
            let end = ends.next().unwrap_or(self.text.len());
            if n > line_no {
                taken.push_back((n, self.text[start..end].to_vec()));
            }
        }
        self.text.clear();
        self.dead = 0;
        self.lines.clear();
        taken
    }

    /// The lines kept, with the number of the first.
    pub(super) fn into_leftover(mut self) -> (u64, Vec<u8>) {
        let first = self.lines.front().map_or(0, |&(_, n, _)| n);
        self.text.drain(..self.dead);
        (first, self.text)
    }
}
