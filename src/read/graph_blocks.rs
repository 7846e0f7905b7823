//! [`GraphTracker`]: which TriG graph block a text read line by line is in.

use std::rc::Rc;

/// Which TriG graph block the text read so far is in, from a light scan of its tokens (IRIs,
/// strings and comments are skipped; the term before a `{` is its label). A block labelled
/// `[]` or a default-graph block `{ … }` has no label to open again.
#[derive(Default)]
pub(super) struct GraphTracker {
    /// The label of the open block, if one is open.
    open: Option<Rc<str>>,
    /// The last term read since the last `.`, `{` or `}` (a candidate label).
    last_term: String,
}

impl GraphTracker {
    /// A tracker that starts inside the block labelled `label` (reading starts again there
    /// after an error).
    pub(super) fn in_block(label: Rc<str>) -> Self {
        Self {
            open: Some(label),
            last_term: String::new(),
        }
    }

    /// The named graph block open at the end of what has been scanned.
    pub(super) fn open_block(&self) -> Option<Rc<str>> {
        self.open
            .clone()
            .filter(|label| !label.is_empty() && !label.starts_with('['))
    }

    pub(super) fn scan(&mut self, line: &[u8]) {
        let mut at = 0;
        while let Some(&byte) = line.get(at) {
            match byte {
                b'#' => return,
                b'<' => {
                    let end = memchr::memchr(b'>', &line[at..]).map_or(line.len(), |e| at + e + 1);
                    self.last_term = String::from_utf8_lossy(&line[at..end]).into_owned();
                    at = end;
                }
                b'"' | b'\'' => {
                    at += 1;
                    while let Some(&b) = line.get(at) {
                        at += if b == b'\\' { 2 } else { 1 };
                        if b == byte {
                            break;
                        }
                    }
                    self.last_term.clear();
                }
                b'{' => {
                    if self.open.is_none() {
                        self.open = Some(std::mem::take(&mut self.last_term).into());
                    }
                    at += 1;
                }
                b'}' | b'.' => {
                    if byte == b'}' {
                        self.open = None;
                    }
                    self.last_term.clear();
                    at += 1;
                }
                b if b.is_ascii_whitespace() => at += 1,
                _ => {
                    let end = line[at..]
                        .iter()
                        .position(|b| b.is_ascii_whitespace() || b"{}<\"'#".contains(b))
                        .map_or(line.len(), |e| at + e);
                    let term = String::from_utf8_lossy(&line[at..end]);
                    if !term.eq_ignore_ascii_case("graph") {
                        self.last_term = term.into_owned();
                    }
                    at = end.max(at + 1);
                }
            }
        }
    }
}
