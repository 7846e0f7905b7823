//! Where the XML events `oxrdfxml` parses were written in the input: statements and errors read
//! from RDF/XML get a line and column although the format is not read line by line.
//!
//! The stream `oxrdfxml` reads is either the input itself ([`TagMarks`]) or the output of the
//! legacy pre-pass ([`LegacyRdfXml`](super::LegacyRdfXml)), whose offsets differ from the
//! input's. Either way its producer records a mark — the offset in the stream, the location in
//! the input — at the start of each tag, and the parser's `buffer_position()` after an event
//! (the end of the event that completed a statement) finds the mark of that event.
//!
//! ```
//! use pidcanon::rdfxml::{EventMarks, TagMarks};
//! use pidcanon::rewrite::Location;
//! use std::cell::RefCell;
//! use std::io::Read;
//! use std::rc::Rc;
//!
//! let marks = Rc::new(RefCell::new(EventMarks::default()));
//! let xml = "<a>\n  <b/>\n</a>";
//! let mut stream = String::new();
//! TagMarks::new(xml.as_bytes(), Rc::clone(&marks)).read_to_string(&mut stream)?;
//! // `<b/>` ends at byte 10: the event that ends there starts at line 2, column 3.
//! assert_eq!(marks.borrow_mut().event_ending_at(10), Location::new(2, 3));
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::position::{Location, TextPosition};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::rc::Rc;

/// The starts of the tags of a stream not yet located, in order. Marks are dropped as
/// statements are located, so memory holds only the tags between two statements and the
/// parser's read-ahead.
#[derive(Debug, Default)]
pub struct EventMarks {
    marks: VecDeque<(u64, Location, Option<Rc<Note>>)>,
    /// The last mark dropped: where the event that contains the located offset starts.
    last: Location,
    /// What the pre-pass noted about that event.
    last_note: Option<Rc<Note>>,
}

/// What the pre-pass knows about a tag that `oxrdfxml` does not tell: what a statement
/// completed there needs to come out as it was written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// The tag ends a `parseType="Literal"` property element: the XML literal completed there
    /// is made of the element's content.
    pub(crate) closes_literal: bool,
    /// The `xml:lang` in scope of the element the tag starts or ends, as written (`oxrdfxml`
    /// gives it lower-cased).
    pub(crate) language: Option<Rc<str>>,
    /// A relative `xml:base` on the element, with no base to resolve it against.
    pub(crate) unresolved_base: Option<String>,
    /// Read strictly: the first legacy attribute of the element (unqualified `about`,
    /// `resource`, …, or `base` on rdf:RDF), which the error `oxrdfxml` gives there is about.
    pub(crate) legacy_attribute: Option<String>,
}

impl EventMarks {
    /// Records that the tag at `offset` in the stream was written at `at` in the input.
    /// Offsets must come in increasing order.
    pub fn mark(&mut self, offset: u64, at: Location) {
        self.marks.push_back((offset, at, None));
    }

    /// [`Self::mark`], with what the pre-pass noted about the tag.
    pub(crate) fn mark_noted(&mut self, offset: u64, at: Location, note: Option<Rc<Note>>) {
        self.marks.push_back((offset, at, note));
    }

    /// Where the event that ends at stream offset `end` starts in the input (the last tag that
    /// starts before `end`), or the unknown location before any tag. Offsets asked for must not
    /// decrease.
    pub fn event_ending_at(&mut self, end: u64) -> Location {
        while let Some((offset, ..)) = self.marks.front() {
            if *offset >= end {
                break;
            }
            if let Some((_, at, note)) = self.marks.pop_front() {
                self.last = at;
                self.last_note = note;
            }
        }
        self.last
    }

    /// What was noted about the event [`Self::event_ending_at`] found last.
    pub(crate) fn last_note(&self) -> Option<Rc<Note>> {
        self.last_note.clone()
    }
}

/// Reads the input unchanged, marking where each tag (`<`) starts.
pub struct TagMarks<R> {
    inner: R,
    marks: Rc<RefCell<EventMarks>>,
    offset: u64,
    position: TextPosition,
}

impl<R: Read> TagMarks<R> {
    /// Reads `inner`, recording the start of each of its tags in `marks`.
    pub fn new(inner: R, marks: Rc<RefCell<EventMarks>>) -> Self {
        Self {
            inner,
            marks,
            offset: 0,
            position: TextPosition::default(),
        }
    }
}

impl<R: Read> Read for TagMarks<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut marks = self.marks.borrow_mut();
        let mut counted = 0;
        for tag in memchr::memchr_iter(b'<', &buf[..n]) {
            self.position.advance(&buf[counted..tag]);
            counted = tag;
            marks.mark(self.offset + tag as u64, self.position.location());
        }
        self.position.advance(&buf[counted..n]);
        self.offset += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(xml: &str) -> Rc<RefCell<EventMarks>> {
        let marks = Rc::new(RefCell::new(EventMarks::default()));
        let mut stream = Vec::new();
        TagMarks::new(xml.as_bytes(), Rc::clone(&marks))
            .read_to_end(&mut stream)
            .unwrap();
        assert_eq!(stream, xml.as_bytes(), "the stream is the input");
        marks
    }

    #[test]
    fn columns_count_characters() {
        let marks = marked("<a>é<b/></a>");
        // `<b/>` starts at byte 5, character 5; it ends at byte 9.
        assert_eq!(marks.borrow_mut().event_ending_at(9), Location::new(1, 5));
    }

    #[test]
    fn before_any_tag_is_unknown() {
        let marks = marked("  <a/>");
        assert_eq!(marks.borrow_mut().event_ending_at(2), Location::unknown());
        assert_eq!(marks.borrow_mut().event_ending_at(6), Location::new(1, 3));
    }

    #[test]
    fn an_offset_asked_again_gives_the_same_event() {
        let marks = marked("<a>\n<b/>\n<c/>");
        let mut marks = marks.borrow_mut();
        assert_eq!(marks.event_ending_at(8), Location::new(2, 1));
        assert_eq!(marks.event_ending_at(8), Location::new(2, 1));
        assert_eq!(marks.event_ending_at(13), Location::new(3, 1));
    }
}
