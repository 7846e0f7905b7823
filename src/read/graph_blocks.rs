//! [`GraphTracker`]: which TriG graph block a text read line by line is in.

use super::scan::{Lexeme, Scanner};
use crate::position::is_line_end;
use std::rc::Rc;

/// Which TriG graph block the text read so far is in, from the light scan's lexemes
/// ([`Scanner::lex`]: strings, also those over several lines, and comments are passed over; the
/// term before a `{` is its label, empty for a default-graph block `{ … }`). A block labelled
/// `[]` has no label to open again (it would name a new blank node).
pub(super) struct GraphTracker {
    /// The label of the open block, if one is open.
    open: Option<Rc<str>>,
    /// The last term read since the last `.`, `{` or `}` (a candidate label).
    last_term: Vec<u8>,
    /// The name or keyword being read.
    word: Vec<u8>,
    /// A directive's keyword was read: the IRI or string it declares is no label (a SPARQL-style
    /// `PREFIX` has no `.` after it). A `.` or a brace ends it too (the keyword was a language
    /// tag: `"x"@base .`).
    in_directive: bool,
    scanner: Scanner,
    /// The text fed and not yet passed over: from the start of an IRI not ended, or of a
    /// token the scan needs more text to tell.
    text: Vec<u8>,
    /// Where in `text` the IRI being read starts.
    iri_start: Option<usize>,
    /// Where in `text` the code not yet followed starts (past the end of a step's code, after
    /// a `{|` or `|}` whose two bytes the scan took in two steps).
    code_from: usize,
}

impl Default for GraphTracker {
    fn default() -> Self {
        Self {
            open: None,
            last_term: Vec::new(),
            word: Vec::new(),
            in_directive: false,
            scanner: Scanner::lexer(),
            text: Vec::new(),
            iri_start: None,
            code_from: 0,
        }
    }
}

impl GraphTracker {
    /// A tracker that starts inside the block labelled `label` (reading starts again there
    /// after an error).
    pub(super) fn in_block(label: Rc<str>) -> Self {
        Self {
            open: Some(label),
            ..Self::default()
        }
    }

    /// The graph block open at the end of what has been scanned, by its label (empty: the
    /// default graph's), if it can be opened again.
    pub(super) fn open_block(&self) -> Option<Rc<str>> {
        self.open.clone().filter(|label| !label.starts_with('['))
    }

    /// The label of the graph block open at the end of what has been scanned, if one is.
    pub(super) fn label(&self) -> Option<Rc<str>> {
        self.open.clone()
    }

    /// Follows the next line of the text. Where the scan loses track (the text cannot be
    /// TriG there), the rest of the line is passed over, and the next starts a new scan. A line
    /// without a line break is the input's last: its last token is taken as it is (a `}` at
    /// the very end of the input closes the block).
    pub(super) fn scan(&mut self, line: &[u8]) {
        let ended = !line.last().copied().is_some_and(is_line_end);
        if self.scanner.lost {
            self.scanner = Scanner::lexer();
            self.text.clear();
            self.iri_start = None;
            self.code_from = 0;
        }
        self.text.extend_from_slice(line);
        while let Some((range, lexeme)) = self.scanner.lex(&self.text, ended) {
            match lexeme {
                Lexeme::Code => {
                    let mut at = range.start.max(self.code_from);
                    while at < range.end {
                        at = self.code(at, range.end);
                    }
                    self.code_from = at;
                }
                Lexeme::Iri => {
                    self.end_word();
                    let start = *self.iri_start.get_or_insert(range.start);
                    if !self.scanner.in_iri() {
                        self.last_term.clear();
                        if !std::mem::take(&mut self.in_directive) {
                            self.last_term
                                .extend_from_slice(&self.text[start..range.end]);
                        }
                        self.iri_start = None;
                    }
                }
                Lexeme::String => {
                    self.end_word();
                    self.last_term.clear();
                    self.in_directive = false;
                }
                Lexeme::Comment => self.end_word(),
            }
        }
        let keep = self.iri_start.unwrap_or(self.scanner.scanned());
        self.text.drain(..keep);
        self.scanner.cut_at(keep);
        self.iri_start = self.iri_start.map(|start| start - keep);
        self.code_from = self.code_from.saturating_sub(keep);
    }

    /// Follows the code (outside IRIs, strings and comments) at `at` in `text`, up to `end`: a
    /// byte, a run of a name's bytes at once (up to `end`), or an annotation's `{|` or `|}`;
    /// gives where it stopped.
    fn code(&mut self, at: usize, end: usize) -> usize {
        let next = self.text.get(at + 1).copied();
        match self.text[at] {
            // An RDF 1.2 annotation, `{| … |}`, is no block.
            b'{' | b'|' if next == Some(b"|}"[usize::from(self.text[at] == b'|')]) => {
                self.end_word();
                return at + 2;
            }
            b'{' => {
                self.end_word();
                self.in_directive = false;
                if self.open.is_none() {
                    self.open = Some(String::from_utf8_lossy(&self.last_term).into());
                    self.last_term.clear();
                }
            }
            b'}' => {
                self.end_word();
                self.open = None;
                self.last_term.clear();
                self.in_directive = false;
            }
            b'.' if self.word.is_empty() => {
                self.last_term.clear();
                self.in_directive = false;
            }
            b if b.is_ascii_whitespace() => self.end_word(),
            _ => {
                let name = &self.text[at..end];
                let len = name
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || b"{}|".contains(&b))
                    .unwrap_or(name.len())
                    .max(1);
                self.word.extend_from_slice(&name[..len]);
                return at + len;
            }
        }
        at + 1
    }

    /// The name or keyword being read ends: it is the last term, unless it is `GRAPH` or a
    /// directive's keyword, or ends with the `.` that ends its statement (a name, a number or
    /// a language tag never ends with a `.`: `ex:a.` and `5.` are a term and a `.`).
    fn end_word(&mut self) {
        let keyword = |word: &[u8]| {
            let word = word.strip_prefix(b"@").unwrap_or(word);
            [&b"prefix"[..], b"base", b"version"]
                .iter()
                .any(|k| word.eq_ignore_ascii_case(k))
        };
        if self.word.ends_with(b".") {
            self.last_term.clear();
            self.in_directive = false;
        } else if keyword(&self.word) {
            self.in_directive = true;
            self.last_term.clear();
        } else if !self.word.is_empty() && !self.word.eq_ignore_ascii_case(b"graph") {
            std::mem::swap(&mut self.last_term, &mut self.word);
        }
        self.word.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::GraphTracker;

    /// The block open after each line of `text`.
    fn blocks(text: &str) -> Vec<Option<String>> {
        let mut tracker = GraphTracker::default();
        text.split_inclusive('\n')
            .map(|line| {
                tracker.scan(line.as_bytes());
                tracker.open_block().map(|label| label.to_string())
            })
            .collect()
    }

    #[test]
    fn a_block_is_labelled_by_the_term_before_its_brace() {
        let some = |label: &str| Some(label.to_owned());
        assert_eq!(
            blocks("<http://g/1> {\n<a> <b> <c> .\n}\nGRAPH ex:g {\n<a> <b> <c> . }\n"),
            [
                some("<http://g/1>"),
                some("<http://g/1>"),
                None,
                some("ex:g"),
                None
            ]
        );
        assert_eq!(blocks("ex:g.x {\n"), [some("ex:g.x")]);
        assert_eq!(blocks("{ <a> <b> <c> .\n}\n[] {\n"), [some(""), None, None]);
        assert_eq!(
            blocks("ex:g {\n<a> <b> <c> {| <d> <e> |} .\n<a> <b> <f>{|<d> <e>|}.\n}\n"),
            [some("ex:g"), some("ex:g"), some("ex:g"), None]
        );
    }

    /// Braces in strings, over several lines too, and in comments open no block.
    #[test]
    fn braces_in_strings_and_comments_are_not_blocks() {
        let text = "<a> <b> \"\"\"x\n<g> { y\n\"\"\" . # <h> {\n<c> <d> '{' .\n";
        assert_eq!(blocks(text), [None, None, None, None]);
        let text = "<g> { <a> <b> \"\"\"}\n\"\"\" .\n";
        assert_eq!(
            blocks(text),
            [Some("<g>".to_owned()), Some("<g>".to_owned())]
        );
    }

    /// The IRI a directive declares labels no block (SPARQL-style directives have no `.`).
    #[test]
    fn a_directive_labels_no_block() {
        let text = "PREFIX : <http://e/>\n{\nBASE <http://b/>\n}\n@prefix p: <http://p/> .\n{\n";
        let some = |label: &str| Some(label.to_owned());
        assert_eq!(
            blocks(text),
            [None, some(""), some(""), None, None, some("")]
        );
        // A language tag named like a directive's keyword.
        let text = "<a> <b> \"x\"@base .\n<g> {\n";
        assert_eq!(blocks(text), [None, some("<g>")]);
    }

    /// A term glued to the `.` ending its statement labels no block (fuzz finding 19).
    #[test]
    fn a_term_ending_a_statement_labels_no_block() {
        let some = |label: &str| Some(label.to_owned());
        for text in [
            "<a> <b> 5.\n{\n",
            "<a> <b> ex:c.\n{\n",
            "<a> <b> \"x\"@en.{\n",
        ] {
            assert_eq!(blocks(text).last(), Some(&some("")), "{text:?}");
        }
        assert_eq!(blocks("<a> <b> <c>. ex:g.h {\n"), [some("ex:g.h")]);
    }

    /// Read again from within a block after an error, its closing brace closes it.
    #[test]
    fn a_tracker_started_in_a_block_is_closed_by_its_brace() {
        let mut tracker = GraphTracker::in_block("<g>".into());
        tracker.scan(b"<a> <b> <c> .\n");
        assert_eq!(tracker.open_block().as_deref(), Some("<g>"));
        tracker.scan(b"}\n");
        assert_eq!(tracker.open_block(), None);
        tracker.scan(b"<h> {\n");
        assert_eq!(tracker.open_block().as_deref(), Some("<h>"));
    }

    /// The input's last line, without a line break, is scanned to its end: its last `}` closes
    /// the block even where the scan would look past it for a keyword (fuzz finding 20).
    #[test]
    fn a_brace_ending_the_input_closes_the_block() {
        for last in [&b"}"[..], b"\x0c}", b" }", b"<a> <b> <c> . }"] {
            let mut tracker = GraphTracker::in_block("<g>".into());
            tracker.scan(last);
            assert_eq!(tracker.open_block(), None, "{:?}", last.escape_ascii());
        }
        // With its line break after it, the `}` closes the block as before (the scan has the
        // byte after it to look at).
        assert_eq!(blocks("<g> {\n}\n"), [Some("<g>".to_owned()), None]);
    }
}
