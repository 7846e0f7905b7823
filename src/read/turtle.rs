//! A fast reader for the common shape of Turtle statements, in front of `oxttl` as
//! [`crate::rewrite::line`]'s checker is for N-Triples: subjects that are IRIs, prefixed names or
//! blank node labels; `a` and IRI verbs; objects that are those, literals (short and long
//! strings with their escapes, language tags, datatypes, integers, decimals, doubles, booleans)
//! or `[ … ]` property lists; `;` and `,` lists; in TriG, graph blocks labelled by an IRI, a
//! prefixed name or a blank node label (or none: the default graph's). Anything else — a
//! directive, a collection, a name with non-ASCII or escaped characters, RDF 1.2 syntax, any
//! error — makes it unsure, and the text goes to `oxttl`, which has the last word on
//! everything (in TriG, put into the graph block the fast path is in).
//!
//! It reads whole lines, and gives the statements `oxttl` would give for them, each with the
//! line `oxttl` fed one line at a time would give it on (for a literal without a suffix, the
//! line of the token after it), so that the lines each statement spans are the same either
//! way. A test reads the W3C suites and the real corpus both ways and compares.
//!
//! ```text
//! ex:a ex:p "x" , ex:b ;        → (ex:a ex:p "x", line 0), (ex:a ex:p ex:b, line 0)
//!     ex:q [ ex:r 1 ] .           (_:n ex:r 1, line 1), (ex:a ex:q _:n, line 1)
//! ```

use super::line_parser::LineParser;
use super::line_scan::{
    RDF_DIR_LANG_STRING, RDF_LANG_STRING, is_valid_absolute_iri, language_tag_len,
};
use super::repeated_work;
use super::scan::{Boundaries, starts_with_directive};
use crate::position::{is_line_end, line_breaks, line_start};
use hashbrown::HashTable;
use oxiri::Iri;
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::rc::Rc;

/// What [`FastTurtle::read`] makes of a text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FastRead {
    /// Complete statements (and white space and comments), all in the common shape: the
    /// triples are in [`FastTurtle::triples`].
    Statements,
    /// The text ends inside a statement of the common shape so far: the statements before it
    /// that start their lines are read (see [`FastTurtle::complete`]).
    NeedsMore,
    /// Something else: `oxttl` decides.
    Unsure,
}

/// A declared prefix.
struct Prefix {
    name: String,
    iri: String,
    /// Whether the prefix IRI has an empty path, so that a local name may change its authority
    /// (`oxttl` checks such IRIs again, as it does local names with `:`).
    checked: bool,
}

/// A TriG graph block: its graph's name, and the label that opens it again (`""` for the
/// default graph's).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Block {
    graph: GraphName,
    pub(crate) label: Rc<str>,
}

/// The fast reader, knowing the prefixes and base `oxttl` knows.
pub(crate) struct FastTurtle {
    prefixes: Vec<Prefix>,
    /// The [`short_key`] of each prefix whose name has one, with the prefix's index in
    /// `prefixes`: looked up by hashing and comparing a number, not by comparing strings.
    short_names: HashTable<(u128, usize)>,
    base: Option<Iri<String>>,
    /// Whether the text is TriG: statements in graph blocks too.
    trig: bool,
    /// The TriG graph block the next text read starts in (`None`: outside blocks).
    block: Option<Block>,
    /// The blocks the last text read opened and closed (in the part read whole): where each
    /// `{` or `}` ends, and the block after it.
    block_edges: Vec<(usize, Option<Block>)>,
    /// The triples of the last text read, each with the index of the line (in that text) it
    /// is given on, in the order `oxttl` gives them.
    pub(crate) triples: Vec<(Quad, usize)>,
    /// Where the token that completes each triple starts.
    completed_by: Vec<usize>,
    /// How much of the last text read is read, and gave [`FastTurtle::triples`]: all of it,
    /// or after [`FastRead::NeedsMore`] the lines before the last statement that starts a line.
    pub(crate) complete: usize,
    /// Where the final `.` of the last statement read (before [`FastTurtle::complete`]) is.
    pub(crate) last_dot: Option<usize>,
    /// The id of the next `[ … ]`'s blank node ([`FastTurtle::new_blank_node`]).
    next_blank: u128,
}

impl FastTurtle {
    /// A reader with `oxttl`'s `prefixes` (sorted by name) and `base`, of TriG when `trig`.
    pub(crate) fn new(prefixes: Vec<(String, String)>, base: Option<String>, trig: bool) -> Self {
        let prefixes: Vec<Prefix> = prefixes
            .into_iter()
            .map(|(name, iri)| Prefix {
                checked: Iri::parse(iri.as_str()).map_or(true, |iri| iri.path().is_empty()),
                name,
                iri,
            })
            .collect();
        let base = base.and_then(|base| Iri::parse(base).ok());
        let mut short_names = HashTable::new();
        for (at, prefix) in prefixes.iter().enumerate() {
            if let Some(key) = short_key(prefix.name.as_bytes(), prefix.name.len()) {
                short_names.insert_unique(key_hash(key), (key, at), |&(key, _)| key_hash(key));
            }
        }
        Self {
            prefixes,
            short_names,
            base,
            trig,
            block: None,
            block_edges: Vec::new(),
            triples: Vec::new(),
            completed_by: Vec::new(),
            complete: 0,
            last_dot: None,
            next_blank: with_letter_first(
                u128::from_str_radix(BlankNode::default().as_str(), 16).unwrap_or_default(),
            ),
        }
    }

    /// A new blank node for a `[ … ]`. Its id is one more than the last one's, from a random
    /// start: as unique as those of `BlankNode::default()` (which `oxttl` gives its own), for a
    /// fraction of the cost (a random number drawn, and its label formatted, until the label
    /// starts with a letter — about 2,000 instructions a node).
    fn new_blank_node(&mut self) -> BlankNode {
        let id = self.next_blank;
        self.next_blank = with_letter_first(id + 1);
        BlankNode::new_from_unique_id(id)
    }

    /// Reads `text`, whole lines; `ended` when nothing follows it in the input.
    pub(crate) fn read(&mut self, text: &str, ended: bool) -> FastRead {
        self.triples.clear();
        self.completed_by.clear();
        self.block_edges.clear();
        let mut cursor = Cursor::new(text, self);
        cursor.ended = ended;
        let statements = cursor.statements();
        let (last_dot, complete_dot) = (cursor.last_dot, cursor.complete_dot);
        let (read, complete, last_dot) = match statements {
            Some(()) => (
                FastRead::Statements,
                (text.len(), self.triples.len(), self.block_edges.len()),
                last_dot,
            ),
            None if cursor.ran_out && !ended => {
                (FastRead::NeedsMore, cursor.complete, complete_dot)
            }
            None => (FastRead::Unsure, (0, 0, 0), None),
        };
        self.complete = complete.0;
        self.last_dot = last_dot;
        self.triples.truncate(complete.1);
        self.completed_by.truncate(complete.1);
        self.block_edges.truncate(complete.2);
        self.in_oxttl_order();
        #[cfg(test)]
        READ_FAST.with(|n| n.set(n.get() + self.triples.len()));
        read
    }

    /// `oxttl` gives the triples one token completes last first (the triple of a literal
    /// before `]`, and the one of the `[ … ]`): so are they here.
    fn in_oxttl_order(&mut self) {
        let mut start = 0;
        while start < self.triples.len() {
            let token = self.completed_by[start];
            let end = start
                + self.completed_by[start..]
                    .iter()
                    .take_while(|&&t| t == token)
                    .count();
            self.triples[start..end].reverse();
            start = end;
        }
    }

    /// Whether `parser` has the same prefixes and base as this reader.
    fn declares_as(&self, parser: &LineParser) -> bool {
        let mut count = 0;
        parser.declared_base() == self.base.as_ref().map(Iri::as_str)
            && parser.declared_prefixes().all(|(name, iri)| {
                count += 1;
                self.prefix(name).is_some_and(|p| p.iri == iri)
            })
            && count == self.prefixes.len()
    }

    /// The block labelled `label` (as TriG writes it before a `{`: an IRI, a prefixed name or
    /// a blank node label; `""` for the default graph's), when it is one the fast path reads.
    fn block_labelled(&mut self, label: Rc<str>) -> Option<Block> {
        let graph = if label.is_empty() {
            GraphName::DefaultGraph
        } else {
            let text = format!("{label} ");
            let mut cursor = Cursor::new(&text, self);
            let graph = cursor.label()?;
            (cursor.at == label.len()).then_some(graph)?.into()
        };
        Some(Block { graph, label })
    }

    fn prefix(&self, name: &str) -> Option<&Prefix> {
        self.prefix_at(name.as_bytes(), name.len())
    }

    /// The prefix named by the `len` bytes `text` starts with.
    fn prefix_at(&self, text: &[u8], len: usize) -> Option<&Prefix> {
        let found = match short_key(text, len) {
            Some(key) => {
                (self.short_names.find(key_hash(key), |&(k, _)| k == key)).map(|&(_, at)| at)
            }
            None => (self
                .prefixes
                .binary_search_by(|p| p.name.as_bytes().cmp(&text[..len])))
            .ok(),
        };
        found.map(|at| &self.prefixes[at])
    }
}

/// The hash of a [`short_key`]: its halves folded, then a "folded multiply" (the two halves of
/// a full product by an odd constant, xored), whose low bits and high bits both depend on every
/// bit of the key (the table takes its bucket from the low ones, its tag from the high ones).
fn key_hash(key: u128) -> u64 {
    let product = u128::from((key >> 64) as u64 ^ key as u64) * 0x9E37_79B9_7F4A_7C15;
    (product >> 64) as u64 ^ product as u64
}

/// `id` with its first hexadecimal digit set to `a`: the label of a blank node of that id
/// starts with a letter, as RDF/XML's `rdf:nodeID` requires and `oxrdf`'s own ids do.
fn with_letter_first(id: u128) -> u128 {
    id & (u128::MAX >> 4) | 0xA << 124
}

/// A prefix name of at most 16 bytes, the first `len` bytes of `text`, as one number: its
/// bytes big-endian, padded with zeros (read as one 16-byte load where `text` is that long).
/// A name holds no NUL, so two names have one key only if they are equal, and keys sort as
/// the names do (byte order, which the tests check): `"ab" < "abc" < "b"`. `None` for a longer
/// name.
fn short_key(text: &[u8], len: usize) -> Option<u128> {
    if len > 16 {
        return None;
    }
    let key = match text.first_chunk::<16>() {
        Some(window) => u128::from_be_bytes(*window),
        None => {
            let mut padded = [0; 16];
            padded[..len].copy_from_slice(&text[..len]);
            u128::from_be_bytes(padded)
        }
    };
    // `len` is at most 16: the shift is at most 128 bits, which `checked_shr` makes 0.
    Some(key & !u128::MAX.checked_shr(8 * len as u32).unwrap_or(0))
}

#[cfg(test)]
thread_local! {
    /// The triples the fast path read on this thread (for the tests to check that it is
    /// what they compare).
    pub(crate) static READ_FAST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The most `[` open at once the fast path reads (it reads them recursively); deeper ones go
/// to `oxttl`.
const MAX_DEPTH: usize = 32;

/// The classes of bytes in [`NAME_BYTES`]: ASCII name characters (letters, digits, `_`, `-`,
/// `.`), and `:`, which a local name may hold too.
const NAME: u8 = 1;
const COLON: u8 = 2;

/// The class of each byte ([`NAME`], [`COLON`] or none), for [`Cursor::name_end`].
const NAME_BYTES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.') {
            classes[b] = NAME;
        } else if byte == b':' {
            classes[b] = COLON;
        }
        b += 1;
    }
    classes
};

/// Bytes that may follow a name, a number or a keyword: `oxttl` ends it there too.
fn ends_token(byte: u8) -> bool {
    matches!(
        byte,
        b' ' | b'\t' | b'\r' | b'\n' | b',' | b';' | b'.' | b']' | b'#'
    )
}

struct Cursor<'t, 'r> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    /// The line `at` is on (from 0).
    line: usize,
    /// Where the token that completes the last object read starts.
    completed_by: usize,
    /// How many `[` are open.
    depth: usize,
    /// The graph of the TriG block `at` is in, and whether it is in one (the default graph
    /// outside blocks).
    graph: GraphName,
    in_block: bool,
    /// Where the last statement that starts its line starts, and how many triples and block
    /// edges come before.
    complete: (usize, usize, usize),
    /// Where the final `.` of the last statement read is; and of the last one before
    /// [`Cursor::complete`].
    last_dot: Option<usize>,
    complete_dot: Option<usize>,
    ended: bool,
    /// Reading needed a byte past the end of the text.
    ran_out: bool,
    reader: &'r mut FastTurtle,
}

impl<'t, 'r> Cursor<'t, 'r> {
    /// A cursor at the start of `text`, in the block `reader` starts in.
    fn new(text: &'t str, reader: &'r mut FastTurtle) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 0,
            completed_by: 0,
            depth: 0,
            graph: reader
                .block
                .as_ref()
                .map_or(GraphName::DefaultGraph, |b| b.graph.clone()),
            in_block: reader.block.is_some(),
            ended: false,
            ran_out: false,
            complete: (0, 0, 0),
            last_dot: None,
            complete_dot: None,
            reader,
        }
    }

    /// The byte `n` bytes ahead; past the end, `None`, and a note that the text ran out.
    fn peek_at(&mut self, n: usize) -> Option<u8> {
        let byte = self.bytes.get(self.at + n).copied();
        self.ran_out |= byte.is_none();
        byte
    }

    fn peek(&mut self) -> Option<u8> {
        self.peek_at(0)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Skips white space and comments, counting line breaks.
    fn skip_ws(&mut self) -> Option<()> {
        while let Some(&byte) = self.bytes.get(self.at) {
            match byte {
                b' ' | b'\t' => self.at += 1,
                b'\r' | b'\n' => {
                    // `\r\n` is one line break, read at its `\n`.
                    let crlf = byte == b'\r' && self.bytes.get(self.at + 1) == Some(&b'\n');
                    self.at += 1;
                    self.line += usize::from(!crlf);
                }
                b'#' => {
                    // A comment ends at a line break, read as white space next.
                    self.at = memchr::memchr2(b'\n', b'\r', &self.bytes[self.at..])
                        .map_or(self.bytes.len(), |end| self.at + end);
                }
                _ => return Some(()),
            }
        }
        Some(())
    }

    /// Statements up to the end of the text.
    fn statements(&mut self) -> Option<()> {
        loop {
            self.skip_ws()?;
            if self.at == self.bytes.len() {
                // A block still open at the end of the input is `oxttl`'s to report; the text
                // read in one ends with a line break, or waits for the input's end.
                if self.in_block && !self.bytes.last().copied().is_some_and(is_line_end) {
                    self.ran_out = true;
                }
                return (!(self.ran_out || self.ended && self.in_block)).then_some(());
            }
            let line_start = line_start(self.bytes, self.at);
            if self.bytes[line_start..self.at]
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r'))
            {
                self.complete = (
                    line_start,
                    self.reader.triples.len(),
                    self.reader.block_edges.len(),
                );
                self.complete_dot = self.last_dot;
            }
            self.statement()?;
        }
    }

    /// `subject predicateObjectList '.'`; in TriG also a graph block's start (up to its `{`)
    /// or end, and a block's last statement without its `.`.
    fn statement(&mut self) -> Option<()> {
        if self.reader.trig {
            match self.peek()? {
                b'{' => return self.open_block(GraphName::DefaultGraph),
                b'}' if self.in_block => return self.close_block(),
                _ if self.graph_keyword()? => {
                    self.skip_ws()?;
                    let label = self.label()?;
                    self.skip_ws()?;
                    return self.open_block(label.into());
                }
                _ => {}
            }
        }
        let subject = self.label()?;
        self.skip_ws()?;
        if self.reader.trig && self.peek()? == b'{' {
            return self.open_block(subject.into());
        }
        self.predicate_object_list(&subject)?;
        if self.in_block && self.peek()? == b'}' {
            return Some(());
        }
        self.expect(b'.')?;
        self.last_dot = Some(self.at - 1);
        // `.` and a digit are a decimal.
        if self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if self.at == self.bytes.len() && !self.ended {
            // `oxttl` waits for the byte after the `.`: the text ends on a line without `\n`.
            self.ran_out = true;
        }
        Some(())
    }

    /// A subject, or a graph block's label: an IRI, a prefixed name or a blank node label.
    fn label(&mut self) -> Option<NamedOrBlankNode> {
        Some(match self.peek()? {
            b'<' => self.iri_ref()?.into(),
            b'_' => self.blank_node_label()?.into(),
            _ => self.prefixed_name()?.into(),
        })
    }

    /// Whether the cursor is on TriG's `GRAPH` keyword (in any case), then white space.
    fn graph_keyword(&mut self) -> Option<bool> {
        let word = self.bytes.get(self.at..self.at + 5);
        if !word.is_some_and(|word| word.eq_ignore_ascii_case(b"graph")) {
            return Some(false);
        }
        let spaced = matches!(self.peek_at(5)?, b' ' | b'\t' | b'\r' | b'\n');
        if spaced {
            self.at += 5;
        }
        Some(spaced)
    }

    /// `{` opens the block of `graph`, outside blocks (TriG has none within another).
    fn open_block(&mut self, graph: GraphName) -> Option<()> {
        if self.in_block {
            return None;
        }
        self.expect(b'{')?;
        // `{|` starts an annotation.
        if self.peek()? == b'|' {
            return None;
        }
        let label = match &graph {
            GraphName::DefaultGraph => "".into(),
            named => named.to_string().into(),
        };
        self.graph = graph.clone();
        self.in_block = true;
        let block = Block { graph, label };
        self.reader.block_edges.push((self.at, Some(block)));
        Some(())
    }

    /// `}` closes the block the cursor is in.
    fn close_block(&mut self) -> Option<()> {
        self.expect(b'}')?;
        self.graph = GraphName::DefaultGraph;
        self.in_block = false;
        self.reader.block_edges.push((self.at, None));
        Some(())
    }

    /// `verb objectList (';' (verb objectList)?)*`, then white space.
    fn predicate_object_list(&mut self, subject: &NamedOrBlankNode) -> Option<()> {
        loop {
            let predicate = self.verb()?;
            self.skip_ws()?;
            self.object_list(subject, &predicate)?;
            if self.peek()? != b';' {
                return Some(());
            }
            self.at += 1;
            self.skip_ws()?;
            if matches!(self.peek()?, b'.' | b']') {
                return Some(());
            }
        }
    }

    /// `a`, an IRI or a prefixed name.
    fn verb(&mut self) -> Option<NamedNode> {
        match self.peek()? {
            b'<' => self.iri_ref(),
            b'a' if ends_token(self.peek_at(1)?) => {
                self.at += 1;
                Some(rdf::TYPE.into_owned())
            }
            _ => self.prefixed_name(),
        }
    }

    /// `object (',' object)*`, then white space.
    fn object_list(&mut self, subject: &NamedOrBlankNode, predicate: &NamedNode) -> Option<()> {
        loop {
            self.completed_by = self.at;
            let object = self.object()?;
            self.reader.completed_by.push(self.completed_by);
            self.reader.triples.push((
                Quad::new(
                    subject.clone(),
                    predicate.clone(),
                    object,
                    self.graph.clone(),
                ),
                self.line,
            ));
            self.skip_ws()?;
            if self.peek()? != b',' {
                return Some(());
            }
            self.at += 1;
            self.skip_ws()?;
        }
    }

    /// An object. Its triple is given on the line the cursor is on after it, when the token
    /// [`Cursor::completed_by`] points to is read: the object's own, except for a literal
    /// without a suffix, completed by the next token (`oxttl` reads it to see whether a suffix
    /// comes), and a `[ … ]`, completed by its `]`.
    fn object(&mut self) -> Option<Term> {
        Some(match self.peek()? {
            b'<' => self.iri_ref()?.into(),
            b'_' => self.blank_node_label()?.into(),
            b'"' | b'\'' => self.literal()?.into(),
            b'[' => self.property_list()?.into(),
            b'0'..=b'9' | b'+' | b'-' => self.number()?.into(),
            b't' | b'f' => {
                let mut end = self.name_end(self.at, false);
                while self.bytes[end - 1] == b'.' {
                    end -= 1;
                }
                let keyword = &self.text[self.at..end];
                if matches!(keyword, "true" | "false") && self.bytes.get(end) != Some(&b':') {
                    ends_token(self.peek_at(end - self.at)?).then_some(())?;
                    self.at = end;
                    Literal::new_typed_literal(keyword, xsd::BOOLEAN).into()
                } else {
                    self.prefixed_name()?.into()
                }
            }
            _ => self.prefixed_name()?.into(),
        })
    }

    /// `'[' predicateObjectList? ']'`: a new blank node, whose triples come first.
    fn property_list(&mut self) -> Option<BlankNode> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        self.expect(b'[')?;
        self.depth += 1;
        self.skip_ws()?;
        let node = self.reader.new_blank_node();
        if self.peek()? != b']' {
            self.predicate_object_list(&node.clone().into())?;
        }
        self.completed_by = self.at;
        self.expect(b']')?;
        self.depth -= 1;
        Some(node)
    }

    /// `IRIREF` without escapes, resolved against the base as `oxttl` does (an absolute IRI
    /// is itself).
    fn iri_ref(&mut self) -> Option<NamedNode> {
        self.expect(b'<')?;
        let start = self.at;
        let end = start + memchr::memchr2(b'>', b'\n', &self.bytes[start..])?;
        if self.bytes[end] != b'>' {
            return None;
        }
        let iri = &self.text[start..end];
        self.at = end + 1;
        if crate::iri::is_plain_absolute_iri(iri) {
            return Some(NamedNode::new_unchecked(iri));
        }
        if iri.contains('\\') {
            return None;
        }
        let iri = match &self.reader.base {
            Some(base) => base.resolve(iri).ok()?.into_inner(),
            None if is_valid_absolute_iri(iri) => iri.to_owned(),
            None => return None,
        };
        Some(NamedNode::new_unchecked(iri))
    }

    /// Where a run of ASCII name characters from `start` ends (`:` and `%` escapes included
    /// when `colon`, for a local name). The callers check the byte that ends it, which `oxttl`
    /// might take as part of the name (non-ASCII, `\`).
    fn name_end(&self, start: usize, colon: bool) -> usize {
        self.name_run(start, colon).0
    }

    /// [`Self::name_end`], and whether the run holds a `:`.
    fn name_run(&self, start: usize, colon: bool) -> (usize, bool) {
        let accepted = if colon { NAME | COLON } else { NAME };
        let (mut end, mut colons) = (start, false);
        while let Some(&b) = self.bytes.get(end) {
            let class = NAME_BYTES[usize::from(b)];
            if class & accepted != 0 {
                colons |= class == COLON;
                end += 1;
            } else if colon
                && b == b'%'
                && self.bytes.get(end + 1).is_some_and(u8::is_ascii_hexdigit)
                && self.bytes.get(end + 2).is_some_and(u8::is_ascii_hexdigit)
            {
                end += 3;
            } else {
                break;
            }
        }
        (end, colons)
    }

    /// `PN_PREFIX? ':' PN_LOCAL?` in ASCII, without `\` escapes, with a declared prefix.
    fn prefixed_name(&mut self) -> Option<NamedNode> {
        let start = self.at;
        let first = self.peek()?;
        if !(first.is_ascii_alphabetic() || first == b':') {
            return None;
        }
        let colon = self.name_end(start, false);
        if self.bytes.get(colon) != Some(&b':') || colon > start && self.bytes[colon - 1] == b'.' {
            return None;
        }
        let local_start = colon + 1;
        let (mut end, colons) = self.name_run(local_start, true);
        while end > local_start && self.bytes[end - 1] == b'.' {
            end -= 1;
        }
        // A local name cannot start with `-` or `.`.
        if end > local_start && matches!(self.bytes[local_start], b'-' | b'.') {
            return None;
        }
        ends_token(self.peek_at(end - self.at)?).then_some(())?;
        let local = &self.text[local_start..end];
        let prefix = self.reader.prefix_at(&self.bytes[start..], colon - start)?;
        let mut iri = String::with_capacity(prefix.iri.len() + local.len());
        iri.push_str(&prefix.iri);
        iri.push_str(local);
        if (prefix.checked || colons)
            && !crate::iri::is_plain_absolute_iri(&iri)
            && Iri::parse(iri.as_str()).is_err()
        {
            return None;
        }
        self.at = end;
        Some(NamedNode::new_unchecked(iri))
    }

    /// `BLANK_NODE_LABEL` in ASCII.
    fn blank_node_label(&mut self) -> Option<BlankNode> {
        self.expect(b'_')?;
        self.expect(b':')?;
        let start = self.at;
        let first = self.peek()?;
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let mut end = self.name_end(start, false);
        while self.bytes[end - 1] == b'.' {
            end -= 1;
        }
        ends_token(self.peek_at(end - self.at)?).then_some(())?;
        self.at = end;
        Some(BlankNode::new_unchecked(&self.text[start..end]))
    }

    /// `INTEGER`, `DECIMAL` or `DOUBLE`, as written.
    fn number(&mut self) -> Option<Literal> {
        let start = self.at;
        let mut end = start + usize::from(matches!(self.bytes[start], b'+' | b'-'));
        let digits = |from: usize| {
            self.bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let before = digits(end);
        if before == 0 {
            return None;
        }
        end += before;
        let mut datatype = xsd::INTEGER;
        let is_exponent = |at: usize| matches!(self.bytes.get(at), Some(b'e' | b'E'));
        if self.bytes.get(end) == Some(&b'.') {
            let after = digits(end + 1);
            // `1.e5` is a double; `1.` an integer and a statement's end.
            if after > 0 || is_exponent(end + 1) {
                end += 1 + after;
                datatype = xsd::DECIMAL;
            }
        }
        if is_exponent(end) {
            let sign = usize::from(matches!(self.bytes.get(end + 1), Some(b'+' | b'-')));
            let exponent = digits(end + 1 + sign);
            if exponent == 0 {
                return None;
            }
            end += 1 + sign + exponent;
            datatype = xsd::DOUBLE;
        }
        if !ends_token(self.peek_at(end - self.at)?) {
            return None;
        }
        self.at = end;
        Some(Literal::new_typed_literal(&self.text[start..end], datatype))
    }

    /// A string, then a language tag, a datatype or neither (the cursor then on the next
    /// token).
    fn literal(&mut self) -> Option<Literal> {
        let value = self.string()?;
        self.skip_ws()?;
        self.completed_by = self.at;
        match self.peek()? {
            b'@' => {
                self.at += 1;
                let len = language_tag_len(&self.text[self.at..])?;
                let end = self.at + len;
                if self.peek_at(len)? == b'-' {
                    return None;
                }
                // In the case it is written with (`oxttl` lower-cases it, and the reader gives
                // it back its written case: here there is nothing to give back).
                let language = self.text[self.at..end].to_owned();
                self.at = end;
                Some(Literal::new_language_tagged_literal_unchecked(
                    value, language,
                ))
            }
            b'^' => {
                self.at += 1;
                self.expect(b'^')?;
                self.skip_ws()?;
                self.completed_by = self.at;
                let datatype = match self.peek()? {
                    b'<' => self.iri_ref()?,
                    _ => self.prefixed_name()?,
                };
                if matches!(datatype.as_str(), RDF_LANG_STRING | RDF_DIR_LANG_STRING) {
                    return None;
                }
                Some(Literal::new_typed_literal(value, datatype))
            }
            _ => Some(Literal::new_simple_literal(value)),
        }
    }

    /// A short or long string, quoted with `"` or `'`, its escapes decoded.
    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        let long = self.peek_at(1)? == quote && self.peek_at(2)? == quote;
        self.at += if long { 3 } else { 1 };
        let mut value = String::new();
        loop {
            let rest = &self.bytes[self.at..];
            let found = if long {
                memchr::memchr2(quote, b'\\', rest)
            } else {
                memchr::memchr3(quote, b'\\', b'\n', rest)
            };
            let Some(found) = found else {
                self.ran_out = true;
                return None;
            };
            let chunk = &self.text[self.at..self.at + found];
            if long {
                self.line += line_breaks(chunk.as_bytes()) as usize;
            } else if chunk.contains('\r') {
                return None;
            }
            value.push_str(chunk);
            self.at += found;
            match self.bytes[self.at] {
                b'\\' => {
                    let (decoded, len) = escape(&self.bytes[self.at..])?;
                    value.push(decoded);
                    self.at += len;
                }
                b'\n' => return None,
                _ if !long => {
                    self.at += 1;
                    return Some(value);
                }
                _ => {
                    if self.peek_at(1)? == quote && self.peek_at(2)? == quote {
                        self.at += 3;
                        return Some(value);
                    }
                    value.push(char::from(quote));
                    self.at += 1;
                }
            }
        }
    }
}

/// The character an `ECHAR` or `UCHAR` at the start of `bytes` stands for, and its length.
fn escape(bytes: &[u8]) -> Option<(char, usize)> {
    let hex = |len: usize| {
        let digits = bytes.get(2..2 + len)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let code = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        Some((char::from_u32(code)?, 2 + len))
    };
    Some(match *bytes.get(1)? {
        b'u' => return hex(4),
        b'U' => return hex(8),
        b't' => ('\t', 2),
        b'b' => ('\x08', 2),
        b'n' => ('\n', 2),
        b'r' => ('\r', 2),
        b'f' => ('\x0C', 2),
        b'"' => ('"', 2),
        b'\'' => ('\'', 2),
        b'\\' => ('\\', 2),
        _ => return None,
    })
}

/// The most text a group gathers before it goes to `oxttl` whole.
const MAX_GROUP: usize = 1 << 20;

/// The lines of Turtle or TriG read since `oxttl` was last between statements: once they end
/// with a statement's `.`, [`FastTurtle`] reads them, or else `oxttl` does (and [`Boundaries`]
/// follows what it reads, to tell when it is between statements again). In TriG, `oxttl` takes
/// over in the graph block the fast path is in, and hands back in the one it is in.
pub(crate) struct Groups {
    fast: FastTurtle,
    text: Vec<u8>,
    /// Where each line starts in `text`, and its number.
    lines: Vec<(usize, u64)>,
    /// `oxttl` is between statements: the next line read starts a group.
    between: bool,
    boundaries: Boundaries,
    /// The scan lost track: `oxttl` reads the rest of the input.
    off: bool,
    /// The length the group must reach before it is read again (after [`Groups::needs_more`]).
    retry_at: usize,
    /// `oxttl` read lines (or started again after an error) since the fast path last read: its
    /// prefixes and base may have changed (it is asked before the next group is read).
    stale: bool,
    /// The lines `oxttl` read since the fast path last took its declarations.
    oxttl_lines: usize,
    /// The TriG graph block `oxttl`'s parser is in, as far as it read; and the label of the
    /// one it handed back in, until the fast path knows it (with the declarations it made).
    oxttl_block: Option<Block>,
    oxttl_label: Option<Rc<str>>,
}

impl Groups {
    /// Groups for a Turtle or TriG parser (`None` for another format), with its declarations.
    pub(crate) fn new(parser: &LineParser) -> Option<Self> {
        let (LineParser::Turtle(_) | LineParser::TriG(_)) = parser else {
            return None;
        };
        let fast = Self::fast(parser);
        Some(Self {
            boundaries: Self::boundaries(fast.trig),
            fast,
            text: Vec::new(),
            lines: Vec::new(),
            between: true,
            off: false,
            retry_at: 0,
            stale: false,
            oxttl_lines: 0,
            oxttl_block: None,
            oxttl_label: None,
        })
    }

    fn fast(parser: &LineParser) -> FastTurtle {
        let trig = matches!(parser, LineParser::TriG(_));
        FastTurtle::new(parser.prefixes(), parser.base_iri(), trig)
    }

    fn boundaries(trig: bool) -> Boundaries {
        if trig {
            Boundaries::trig()
        } else {
            Boundaries::default()
        }
    }

    /// Whether the next line read goes to the group.
    pub(crate) fn takes_lines(&self) -> bool {
        self.between && !self.off
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Adds a line; true when the group is worth reading: the line ends with a `.` (maybe
    /// before a comment), or the group is too long.
    pub(crate) fn push(&mut self, line: &[u8], line_no: u64) -> bool {
        self.lines.push((self.text.len(), line_no));
        self.text.extend_from_slice(line);
        let ends_with_dot = |text: &[u8]| text.trim_ascii_end().ends_with(b".");
        let ends = ends_with_dot(line)
            || memchr::memrchr(b'#', line).is_some_and(|at| ends_with_dot(&line[..at]));
        ends && self.text.len() >= self.retry_at || self.text.len() > MAX_GROUP
    }

    /// The group was read and needs more lines: it is read again once twice as long, so that
    /// a statement whose lines end with `.` without ending it (prose in a long string) is read
    /// a bounded number of times, not once per line.
    pub(crate) fn needs_more(&mut self) {
        self.retry_at = 2 * self.text.len();
    }

    /// Reads the group; `ended` at the end of the input.
    pub(crate) fn read(&mut self, ended: bool, parser: &LineParser) -> FastRead {
        if self.text.len() > MAX_GROUP {
            return FastRead::Unsure;
        }
        if self.stale {
            // Declarations go to `oxttl`: the prefixes are taken again only for a group
            // that may use them (not once per line of a long list of declarations).
            if starts_with_directive(&self.text) {
                return FastRead::Unsure;
            }
            // Comparing and taking the declarations costs as much as there are prefixes: it
            // waits until `oxttl` has read a line for every 16 of them since the last time, so
            // that declarations between statements cost the same whatever came before.
            if self.oxttl_lines * 16 < parser.prefix_count() {
                return FastRead::Unsure;
            }
            repeated_work(parser.prefix_count());
            if !self.fast.declares_as(parser) {
                let block = self.fast.block.take();
                self.fast = Self::fast(parser);
                self.fast.block = block;
            }
            self.stale = false;
            self.oxttl_lines = 0;
        }
        if let Some(label) = self.oxttl_label.take() {
            let Some(block) = self.fast.block_labelled(label.clone()) else {
                // A block labelled `[]`, say: `oxttl` reads it.
                self.oxttl_label = Some(label);
                return FastRead::Unsure;
            };
            self.fast.block = Some(block.clone());
            self.oxttl_block = Some(block);
        }
        match simdutf8::basic::from_utf8(&self.text) {
            Ok(text) => self.fast.read(text, ended),
            Err(_) => FastRead::Unsure,
        }
    }

    /// How many lines of the group the last read read whole (all of them, unless it needs
    /// more), and their line breaks.
    pub(crate) fn complete(&self) -> (usize, u64) {
        let end = self.fast.complete;
        let lines = self.lines.partition_point(|&(start, _)| start < end);
        (lines, line_breaks(&self.text[..end]))
    }

    /// Where the last statement the last read read whole ends, as `oxttl`'s path tells it
    /// ([`super::scan::StatementEnds`]): the number of its line, and the offset in that line
    /// just after its final `.` and the byte after it. `None` when it read no statement;
    /// `Some(None)` where the scan would find no end (a `.` not followed by a space, a line
    /// break or a comment).
    pub(crate) fn last_statement_end(&self) -> Option<Option<(u64, usize)>> {
        let dot = self.fast.last_dot?;
        let end = || {
            let after = *self.text.get(dot + 1)?;
            if !(after.is_ascii_whitespace() || after == b'#') {
                return None;
            }
            let index = self.lines.partition_point(|&(start, _)| start <= dot);
            let &(start, line_no) = self.lines.get(index.checked_sub(1)?)?;
            Some((line_no, dot + 2 - start))
        };
        Some(end())
    }

    /// Drops the first `lines` lines, read: the fast path goes on in the block they end in.
    pub(crate) fn consume(&mut self, lines: usize) {
        if let Some((_, block)) = self.fast.block_edges.pop() {
            self.fast.block = block;
        }
        if lines == self.lines.len() {
            self.clear();
            return;
        }
        let start = self.lines[lines].0;
        self.text.drain(..start);
        self.lines.drain(..lines);
        for (at, _) in &mut self.lines {
            *at -= start;
        }
    }

    /// The first `lines` lines of the group, read, with their numbers and the TriG graph block
    /// open at the end of each, by its label.
    pub(crate) fn lines_read(
        &self,
        lines: usize,
    ) -> impl Iterator<Item = (u64, &[u8], Option<Rc<str>>)> + '_ {
        let label = |block: &Option<Block>| block.as_ref().map(|b| b.label.clone());
        let mut block = label(&self.fast.block);
        let mut edges = self.fast.block_edges.iter().peekable();
        let ends = self.lines.iter().skip(1).map(|&(start, _)| start);
        self.lines()
            .zip(ends.chain([self.text.len()]))
            .take(lines)
            .map(move |((n, text), end)| {
                while let Some((_, after)) = edges.next_if(|(at, _)| *at <= end) {
                    block = label(after);
                }
                (n, text, block.clone())
            })
    }

    /// The lines of the group, with their numbers.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        let ends = self.lines.iter().skip(1).map(|&(start, _)| start);
        self.lines
            .iter()
            .zip(ends.chain([self.text.len()]))
            .map(|(&(start, n), end)| (n, &self.text[start..end]))
    }

    /// The triples read, with the number of the line each is given on.
    pub(crate) fn triples(&mut self) -> impl Iterator<Item = (Quad, u64)> + '_ {
        let lines = &self.lines;
        self.fast
            .triples
            .drain(..)
            .map(|(quad, index)| (quad, lines[index].1))
    }

    fn clear(&mut self) {
        self.text.clear();
        self.lines.clear();
        self.retry_at = 0;
    }

    /// Takes the lines out for `oxttl`, which reads from here on until it is between statements
    /// again.
    pub(crate) fn hand_to_oxttl(&mut self) -> impl Iterator<Item = (u64, Vec<u8>)> + use<> {
        let lines: Vec<_> = self.lines().map(|(n, l)| (n, l.to_vec())).collect();
        self.clear();
        self.between = false;
        self.boundaries = Self::boundaries(self.fast.trig);
        lines.into_iter()
    }

    /// The TriG graph block `oxttl` is to read on in, where the fast path stopped, by its
    /// label, when its parser is not in it (`Some(None)`: out of blocks); it is then taken to
    /// be.
    pub(crate) fn block_to_enter(&mut self) -> Option<Option<Rc<str>>> {
        if self.oxttl_label.is_some() || self.fast.block == self.oxttl_block {
            return None;
        }
        self.oxttl_block.clone_from(&self.fast.block);
        Some(self.fast.block.as_ref().map(|b| b.label.clone()))
    }

    /// Whether `oxttl`, reading on, is inside a long string that `line` cannot close: asking it
    /// for statements after `line` would only scan the string again from its start (which made
    /// a long string over many lines cost the square of its length).
    pub(crate) fn stays_in_long_string(&self, line: &[u8]) -> bool {
        !self.between && !self.off && self.boundaries.stays_in_long_string(line)
    }

    /// `oxttl` read `line` (`restarted` after an error in it), and is in the TriG graph block
    /// labelled `block`; `more` when more lines are waiting for it.
    pub(crate) fn oxttl_read(
        &mut self,
        line: &[u8],
        restarted: bool,
        more: bool,
        block: Option<Rc<str>>,
    ) {
        self.oxttl_lines += 1;
        if self.between || self.off {
            return;
        }
        let between = if restarted {
            // A new parser starts between statements, after the line with the error.
            self.boundaries = Self::boundaries(self.fast.trig);
            true
        } else {
            match self.boundaries.line(line) {
                Some(between) => between,
                None => {
                    self.off = true;
                    return;
                }
            }
        };
        if between && !more {
            self.stale = true;
            self.between = true;
            if block.is_none() {
                self.fast.block = None;
                self.oxttl_block = None;
            }
            self.oxttl_label = block;
        }
    }
}

#[cfg(test)]
mod against_oxttl {
    //! Turtle and TriG read through the fast path give what `oxttl` alone gives: the same
    //! statements, errors, lines and declarations, item by item — on every Turtle and TriG file
    //! of the W3C suites and the real corpus, and on each with bad lines put in.

    use crate::read::RdfFormat;
    use std::path::Path;

    /// Every item of `text` with its lines and the declarations at it, then what is left.
    fn items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
        crate::fuzzing::turtle_items(text, base, fast)
    }

    /// Compares both ways: panics at the first item that differs; gives how many statements.
    fn agree(path: &str, text: &[u8], base: &str) -> usize {
        agree_as(RdfFormat::Turtle, path, text, base)
    }

    /// [`agree`] in `format`.
    fn agree_as(format: RdfFormat, path: &str, text: &[u8], base: &str) -> usize {
        let items = |fast| crate::fuzzing::Internals::items(format, text, base, fast);
        let expected = items(false);
        let fast = items(true);
        if let Some(at) =
            (0..expected.len().max(fast.len())).find(|&i| expected.get(i) != fast.get(i))
        {
            panic!(
                "{path}: {:?}\nitem {at}\noxttl: {:?}\nfast:  {:?}",
                String::from_utf8_lossy(text),
                expected.get(at),
                fast.get(at)
            );
        }
        fast.iter().filter(|i| !i.starts_with("error")).count()
    }

    /// Lines that break a statement in different ways, to put in.
    const BAD: [&str; 4] = [
        "this is not turtle .\n",
        "<http://a b> <http://p> \"x\" .\n",
        "<http://s> <http://p> \"open\n",
        "@prefix : <http://changed/> .\n",
    ];

    #[test]
    fn gives_what_oxttl_gives() {
        let paths = crate::read::fixture_files(&["w3c", "real", "examples", "turtle"], &["ttl"]);
        assert!(paths.len() > 400, "{} Turtle files", paths.len());
        let statements = agree_on_files(RdfFormat::Turtle, &paths, &BAD);
        let fast = super::READ_FAST.get();
        assert!(
            statements > 10_000 && fast * 2 > statements,
            "{statements} statements compared, {fast} read by the fast path"
        );
        eprintln!("{statements} statements compared, {fast} read by the fast path");
    }

    /// Every TriG file, and every Turtle file read as TriG (its statements are TriG's
    /// default graph's), with bad lines that open and close graph blocks put in as well.
    #[test]
    fn gives_what_oxttl_gives_in_trig() {
        let dirs = ["w3c", "real", "examples", "turtle"];
        let trig = crate::read::fixture_files(&dirs, &["trig"]);
        assert!(trig.len() > 400, "{} TriG files", trig.len());
        let turtle = crate::read::fixture_files(&dirs, &["ttl"]);
        let bad: Vec<&str> = BAD
            .iter()
            .chain(&[
                "}\n",
                "GRAPH <http://g> {\n",
                "<http://g> { <http://s> <http://p> \"x\" .\n",
                "{ <http://s> <http://p> <http://o> }\n",
            ])
            .copied()
            .collect();
        let statements = agree_on_files(RdfFormat::TriG, &[trig, turtle].concat(), &bad);
        let fast = super::READ_FAST.get();
        assert!(
            statements > 10_000 && fast * 2 > statements,
            "{statements} statements compared, {fast} read by the fast path"
        );
        eprintln!("{statements} statements compared, {fast} read by the fast path");
    }

    /// Compares each file at `paths` in `format` both ways: as it is, with a comment after
    /// each statement's end, with other line breaks, and with each of `bad` put in; gives how
    /// many statements.
    fn agree_on_files(format: RdfFormat, paths: &[std::path::PathBuf], bad: &[&str]) -> usize {
        let mut statements = 0;
        for path in paths {
            let text = std::fs::read(path).expect("readable");
            let base = format!("http://example.org/tests/{}", path.display());
            let commented = String::from_utf8_lossy(&text).replace(" .\n", " . # end.\n");
            // Lines ended by a CR alone and by CRLF: Turtle's line breaks as well as LF.
            let ended = |end: &str| String::from_utf8_lossy(&text).replace('\n', end);
            let mut variants = vec![
                text.clone(),
                commented.clone().into_bytes(),
                ended("\r").into_bytes(),
                commented.replace('\n', "\r").into_bytes(),
                ended("\r\n").into_bytes(),
            ];
            let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
            for (i, bad_line) in bad.iter().enumerate() {
                let at = lines.len() * (i + 1) / (bad.len() + 1);
                let mut variant = lines[..at].concat();
                variant.extend_from_slice(bad_line.as_bytes());
                variant.extend_from_slice(&lines[at..].concat());
                variants.push(variant);
            }
            for variant in &variants {
                statements += agree_as(format, &path.display().to_string(), variant, &base);
            }
        }
        statements
    }

    /// The edges of the common shape, each as a statement of its own, without and with an
    /// end of line.
    #[test]
    fn agrees_at_the_edges_of_the_common_shape() {
        let header = "@prefix ex: <http://example/> .\n@prefix : <http://e/> .\n\
                      @prefix e.x: <http://x/> .\n";
        let bodies = [
            r#"ex:a ex:b ex:c.d ."#,
            r#"ex:a ex:b ex:c. "#,
            r#"ex:a ex:b ex:c.."#,
            r#"ex:a ex:b ex:.c ."#,
            r#"ex:a ex:b ex:-c ."#,
            r#"ex:a ex:b ex:c-d ."#,
            r#"ex:a ex:b ex:1 ."#,
            r#"ex:a ex:b ex:c:d ."#,
            r#"ex:a ex:b ex:%41%zz ."#,
            r#"ex:a ex:b ex:%41 ."#,
            r#"ex:a ex:b ex:c\-d ."#,
            r#"ex:a ex:b ex:é ."#,
            r#"ex:a ex:b :c ."#,
            r#"ex:a ex:b : ."#,
            r#"ex:a ex:b e.x:c ."#,
            r#"ex:a ex:b ex.:c ."#,
            r#"ex:a ex:b undeclared:c ."#,
            r#"ex:a a ex:c ."#,
            r#"ex:a ex:b a ."#,
            r#"a ex:b ex:c ."#,
            r#"ex:a ex:b true ."#,
            r#"ex:a ex:b true."#,
            r#"ex:a ex:b false,true ."#,
            r#"ex:a ex:b true:x ."#,
            r#"ex:a ex:b truex ."#,
            r#"ex:a ex:b 1 ."#,
            r#"ex:a ex:b 1."#,
            r#"ex:a ex:b 1.5."#,
            r#"ex:a ex:b -1 ."#,
            r#"ex:a ex:b +1.0 ."#,
            r#"ex:a ex:b 1e5 ."#,
            r#"ex:a ex:b 1e5."#,
            r#"ex:a ex:b 1.5E-3 ."#,
            r#"ex:a ex:b -1.e+5 ."#,
            r#"ex:a ex:b +12.25e0,1E2 ."#,
            r#"ex:a ex:b 1e ."#,
            r#"ex:a ex:b 1e+ ."#,
            r#"ex:a ex:b 1.e ."#,
            r#"ex:a ex:b 1.5e5.5 ."#,
            r#"ex:a ex:b 1e5e5 ."#,
            r#"ex:a ex:b .5e1 ."#,
            r#"ex:a ex:b [ ex:c 4.888E-3 ] ."#,
            r#"ex:a ex:b .5 ."#,
            r#"ex:a ex:b 1.e ."#,
            r#"ex:a ex:b - ."#,
            r#"ex:a ex:b 01 ."#,
            r#"ex:a ex:b 1ex:c ."#,
            r#"ex:a ex:b "" ."#,
            r#"ex:a ex:b '' ."#,
            r#"ex:a ex:b """""" ."#,
            r#"ex:a ex:b """a"b""c""" ."#,
            r#"ex:a ex:b """a"""" ."#,
            "ex:a ex:b '''x\ny''' .",
            "ex:a ex:b \"\"\"x\r\ny\"\"\"@en .",
            r#"ex:a ex:b "a\tb\u00e9\U0001F600" ."#,
            r#"ex:a ex:b "\uD800" ."#,
            r#"ex:a ex:b "\q" ."#,
            "ex:a ex:b \"a\rb\" .",
            r#"ex:a ex:b "x"@en-GB ."#,
            r#"ex:a ex:b "x"@EN ."#,
            r#"ex:a ex:b "x" @en ."#,
            "ex:a ex:b \"x\"\n@en .",
            r#"ex:a ex:b "x"@en--ltr ."#,
            r#"ex:a ex:b "x"@en- ."#,
            r#"ex:a ex:b "x"@1 ."#,
            r#"ex:a ex:b "x"@en_GB ."#,
            r#"ex:a ex:b "x"@abcdefghi ."#,
            r#"ex:a ex:b "x"^^ex:t ."#,
            r#"ex:a ex:b "x" ^^ <http://t> ."#,
            r#"ex:a ex:b "x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> ."#,
            r#"ex:a ex:b "x"^^<http://www.w3.org/2001/XMLSchema#string> ."#,
            r#"ex:a ex:b "x"^ex:t ."#,
            r#"ex:a ex:b ex:c ; ."#,
            r#"ex:a ex:b ex:c ;; ex:d ex:e ."#,
            r#"ex:a ex:b ex:c ; ex:d ex:e ; ."#,
            r#"ex:a ex:b ex:c , ."#,
            r#"ex:a ex:b [] ."#,
            r#"ex:a ex:b [ ] ."#,
            r#"ex:a ex:b [ ex:c "x" ] ."#,
            r#"ex:a ex:b [ ex:c [ ex:d "y" ] ; ex:e ex:f ] , [] ."#,
            r#"ex:a ex:b [ ex:c ex:d ; ] ."#,
            r#"[ ex:c ex:d ] ex:b ex:c ."#,
            r#"[] ex:b ex:c ."#,
            r#"ex:a ex:b ( ex:c ) ."#,
            r#"_:b ex:b _:c.d ."#,
            r#"_:b ex:b _:c. "#,
            r#"_:1 ex:b _:-c ."#,
            r#"_:b.c ex:b ex:c ."#,
            r#"_: ex:b ex:c ."#,
            r#"<s> <p> <o> ."#,
            r#"<http://a/b/../c> <p> <./o> ."#,
            r#"<http://a b> <p> <o> ."#,
            r#"<http://a/\u0041> <p> <o> ."#,
            r#"<http://a> <http://p> <http://o>."#,
            r#"<http://a><http://p><http://o>."#,
            r#"ex:a<http://p>ex:c."#,
            r#"ex:a ex:b ex:c .5"#,
            r#"ex:a ex:b ex:c . ex:d ex:e ex:f ."#,
            "ex:a ex:b ex:c # comment\n .",
            r#"ex:a ex:b ex:c . # comment"#,
            "ex:a ex:b ex:c . # comment\rex:d ex:e ex:f .",
            "ex:a ex:b \"x\" # c\n , \"y\" .",
            r#"ex:a ex:b ex:c {| ex:d ex:e |} ."#,
            r#"ex:a ex:b ex:c ~ ex:r ."#,
            r#"<< ex:a ex:b ex:c >> ex:d ex:e ."#,
            "PREFIX ex: <http://other/>\nex:a ex:b ex:c .",
            "@base <http://base/> .\n<a> <b> <c> .",
            "BASE <http://b2/>\n<a> <b> <c> .",
            "ex:a ex:b ex:c",
            "ex:a ex:b",
            "ex:a",
            "ex:a\tex:b\tex:c\t.",
            "ex:a ex:b ex:c .\r\n ex:d ex:e ex:f .",
            "ex:a ex:b \"\"\"one.\ntwo.\nthree.\"\"\" .\nex:c ex:d ex:e .",
            "ex:a ex:b ex:c . ex:d ex:e \"\"\"x.\ny.\"\"\" .\n  ex:f ex:g \"\"\"z.\n\"\"\" .",
            "ex:a ex:b ex:c . # one.\n ex:d ex:e ex:f ; # two.\n ex:g ex:h . # three",
        ];
        // `[` nested within the fast path's depth and past it.
        let nested = [10, 40].map(|depth| {
            let open = "[ ex:p ".repeat(depth);
            format!("ex:a ex:b {open}ex:c{} .", " ]".repeat(depth))
        });
        let mut statements = 0;
        for body in bodies
            .iter()
            .copied()
            .chain(nested.iter().map(String::as_str))
        {
            for end in ["", "\n", "\n\nex:z ex:y ex:x .\n"] {
                let text = format!("{header}{body}{end}");
                statements += agree(body, text.as_bytes(), "http://base.example/dir/doc");
            }
        }
        assert!(statements > 300, "{statements}");
    }

    /// The edges of TriG's graph blocks, each in a document of its own, without and with an end
    /// of line and a statement after it.
    #[test]
    fn agrees_at_the_edges_of_trig_blocks() {
        let header = "@prefix ex: <http://example/> .\n@prefix graph: <http://graph/> .\n";
        let bodies = [
            "GRAPH ex:g { ex:a ex:b ex:c . }",
            "GRAPH ex:g {\nex:a ex:b ex:c .\n}",
            "graph ex:g { ex:a ex:b ex:c }",
            "Graph <http://g> {\n ex:a ex:b \"x\" }",
            "GRAPH<http://g>{ex:a ex:b ex:c}",
            "GRAPH\n<http://g>\n{\nex:a ex:b ex:c .\n}",
            "GRAPH # label next\n ex:g # brace next\n { ex:a ex:b ex:c }",
            "<g> { ex:a ex:b ex:c . ex:d ex:e ex:f }",
            "<g> { <a> <b> <c> }",
            "ex:g { ex:a ex:b ex:c ; ex:d \"x\"@en , 1 . }",
            "ex:g{ex:a ex:b ex:c.}",
            "ex:g { ex:a ex:b ex:c .}",
            "ex:g { ex:a ex:b ex:c. }",
            "ex:g { ex:a ex:b 1.}",
            "ex:g { ex:a ex:b 1. }",
            "ex:g { ex:a ex:b 1.5}",
            "ex:g { ex:a ex:b \"x\"}",
            "ex:g { ex:a ex:b \"x\"@en}",
            "ex:g { ex:a ex:b true}",
            "ex:g { ex:a ex:b \"x\" } ex:h { ex:a ex:b ex:c }",
            "ex:g { ex:a ex:b ex:c }\nex:g { ex:a ex:b ex:d }",
            "{ ex:a ex:b ex:c }{ ex:a ex:b ex:d }",
            "ex:g { }",
            "ex:g {\n}",
            "{ }",
            "{ ex:a ex:b ex:c }",
            "{ ex:a ex:b ex:c . } ex:d ex:e ex:f .",
            "_:g { ex:a ex:b ex:c }",
            "GRAPH _:g { _:a ex:b _:c }",
            "[] { ex:a ex:b ex:c }",
            "GRAPH [] { ex:a ex:b ex:c }",
            "[ ex:p ex:o ] { ex:a ex:b ex:c }",
            "GRAPH { ex:a ex:b ex:c }",
            "GRAPH ex:g ex:b ex:c .",
            "<g> ex:b ex:c .",
            "graph:x ex:b ex:c .",
            "GRAPHS ex:g { ex:a ex:b ex:c }",
            "ex:g { ex:a ex:b ex:c . . }",
            "ex:g { ex:a ex:b ex:c . } .",
            "ex:g { ex:a ex:b ex:c }.",
            "ex:g { ex:a ex:b ex:c ; }",
            "ex:g { ex:a ex:b ex:c ; . }",
            "ex:g { ex:a ex:b ex:c , }",
            "ex:g { ex:a ex:b [ ex:c ex:d ] }",
            "ex:g { ex:a ex:b [ ex:c ex:d ] . }",
            "ex:g { ex:a ex:b ex:c ",
            "ex:g {\nex:a ex:b ex:c .\n",
            "ex:g {\nex:a ex:b ex:c .\n# not closed",
            "ex:g {",
            "ex:g { ex:h { ex:a ex:b ex:c } }",
            "{ { ex:a ex:b ex:c } }",
            "}",
            "ex:a ex:b ex:c . }",
            "ex:g { ex:a ex:b ex:c } }",
            "ex:g { @prefix ex: <http://other/> . ex:a ex:b ex:c }",
            "ex:g {\nPREFIX ex: <http://other/>\nex:a ex:b ex:c }",
            "ex:g { ex:a ex:b \"\"\"{ } .\n}\"\"\" }",
            "ex:g { ex:a ex:b \"}\" . } # { }",
            "ex:g { # }\nex:a ex:b ex:c }",
            "ex:g { ex:a ex:b '{' }\n<h> { ex:a ex:b \"\"\"}\n\"\"\" . }",
            "later:g { ex:a ex:b ex:c }\n@prefix later: <http://later/> .\nlater:g { ex:a ex:b ex:c }",
            "ex:g { ex:a ex:b ex:c {| ex:d ex:e |} }",
            "ex:g {| ex:a ex:b ex:c |}",
            "ex:a ex:b ex:c {| ex:d ex:e |} .",
            "ex:g {\n  ex:a ex:b ex:c .\n  this is bad .\n  ex:d ex:e ex:f .\n}",
            "ex:g {\n  ex:a ex:b \"open\n  ex:d ex:e ex:f .\n}\nex:h {\n ex:a ex:b ex:c .\n}",
            "ex:g {\n  ex:a ex:b ex:c\n}\n",
            "ex:a ex:b ex:c . ex:g {\nex:d ex:e ex:f .\n} ex:h {\n ex:i ex:j ex:k }",
            "ex:g {\nex:a ex:b \"\"\"x.\ny.\"\"\" .\n}",
            "ex:g {\nex:a ex:b ex:c . # c\n} # d\n",
            "ex:g {\r\nex:a ex:b ex:c .\r\n}\r\n",
            "ex:g {\rex:a ex:b ex:c .\r}\r",
            "PREFIX p: <http://p/>\n{\nex:a ex:b ex:c .\n}",
            "BASE <http://b2/>\n{\n<a> <b> <c> .\nbad .\n<d> <e> <f> .\n}",
            "ex:a ex:b \"x\"@base .\nex:g {\nex:a ex:b ex:c .\n}",
            "ex:a ex:b \"x\"@prefix .\nGRAPH ex:g {\nex:a ex:b ex:c .\n}",
        ];
        let mut statements = 0;
        for body in bodies {
            for end in [
                "",
                "\n",
                "\n\nex:z ex:y ex:x .\n",
                "\n<k> {\nex:z ex:y ex:x .\n}\n",
            ] {
                let text = format!("{header}{body}{end}");
                statements += agree_as(RdfFormat::TriG, body, text.as_bytes(), "http://b.example/");
            }
        }
        assert!(statements > 300, "{statements}");
    }

    /// The work done again and again reading `text`, and its bound if that work grows linearly:
    /// twice its bytes, and 16 per line.
    fn repeated_work_reading(text: &str) -> (usize, usize) {
        crate::read::REPEATED_WORK.with(|work| work.set(0));
        items(text.as_bytes(), "http://base.example/", true);
        let work = crate::read::REPEATED_WORK.with(std::cell::Cell::get);
        (work, 2 * text.len() + 16 * text.lines().count())
    }

    #[test]
    fn declarations_cost_the_same_whatever_came_before() {
        let n = 4_000;
        let pairs: String = (0..n)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\np{i}:a p{i}:b p{i}:c .\n"))
            .collect();
        let declarations: String = (0..n)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\n"))
            .chain(["p1:a p2:b p3:c .\n".to_owned()])
            .collect();
        for text in [pairs, declarations] {
            let (work, linear) = repeated_work_reading(&text);
            assert!(work <= linear, "{work} > {linear}");
        }
    }

    #[test]
    fn trig_blocks_cost_the_same_whatever_was_declared() {
        // Each block holds a statement the fast path leaves to `oxttl` (a collection), which
        // `oxttl` reads in the block: a new parser, given every prefix again. Those restarts
        // wait, as the declarations do, until `oxttl` has read a line for every 16 prefixes.
        let prefixes: String = (0..3_000)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\n"))
            .collect();
        let blocks: String = (0..3_000)
            .map(|i| {
                format!(
                    "GRAPH <http://g/{i}> {{\n  <http://s/{i}> p{i}:q ( 1 2 ) .\n  \
                     <http://s/{i}> p1:r \"x\" .\n}}\n<http://d/{i}> p2:z ( \"a\" ) .\n"
                )
            })
            .collect();
        let text = prefixes + &blocks;
        crate::read::REPEATED_WORK.with(|work| work.set(0));
        let mut statements = 0;
        let base = Some("http://base.example/");
        crate::read::read_statements(text.as_bytes(), RdfFormat::TriG, base, |_, _| {
            statements += 1;
            Ok::<_, crate::read::ReadError>(())
        })
        .expect("valid TriG");
        let work = crate::read::REPEATED_WORK.with(std::cell::Cell::get);
        let linear = 2 * text.len() + 16 * text.lines().count();
        assert!(work <= linear, "{work} > {linear}");
        // A block: the collection's 5 statements and 1; after it, 3.
        assert_eq!(statements, 3_000 * 9);
    }

    #[test]
    fn a_statement_over_many_lines_is_read_once() {
        // Longer than a group of the fast path: `oxttl` reads it line by line.
        let text = format!(
            "<http://a> <http://b> \"\"\"{}\"\"\" .\n",
            "line\n".repeat(300_000)
        );
        let (work, _) = repeated_work_reading(&text);
        // The lines, forgotten once, moved at most once in all; `oxttl` not asked again for
        // each line (each time, it scanned the string from its start).
        assert!(work <= text.len() + 1_000, "{work} > {}", text.len());
    }

    /// Random changes of one to three bytes to Turtle in the common shape, compared both ways.
    #[test]
    fn agrees_on_changed_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        changed(
            RdfFormat::Turtle,
            &root.join("examples/repository.ttl"),
            2_000,
        );
        changed(RdfFormat::Turtle, &root.join("turtle/generated.ttl"), 200);
    }

    /// Random changes of one to three bytes to TriG in the benchmark's shape.
    #[test]
    fn agrees_on_changed_trig() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        changed(RdfFormat::TriG, &root.join("turtle/generated.trig"), 400);
    }

    fn changed(format: RdfFormat, path: &Path, variants: usize) {
        let text = std::fs::read(path).expect("readable");
        let name = format!("{}, changed", path.display());
        let bytes = "_-.;,[]()\"'\\#@^<>:0e\n\r aé\t{}|~".as_bytes();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..variants {
            let mut variant = text.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % variant.len() as u64) as usize;
                variant[at] = bytes[(next() % bytes.len() as u64) as usize];
            }
            agree_as(format, &name, &variant, "http://base.example/");
        }
    }

    #[test]
    fn blank_nodes_of_brackets_are_new_and_labelled_with_a_letter_first() {
        let mut one = super::FastTurtle::new(Vec::new(), None, false);
        let mut other = super::FastTurtle::new(Vec::new(), None, false);
        let mut labels = std::collections::HashSet::new();
        for _ in 0..1000 {
            for reader in [&mut one, &mut other] {
                let node = reader.new_blank_node();
                let label = node.as_str();
                assert_eq!(label.len(), 32, "{label}");
                assert!(
                    label.starts_with(|c: char| matches!(c, 'a'..='f')),
                    "{label}"
                );
                assert!(labels.insert(label.to_owned()), "{label} given twice");
            }
        }
    }

    #[test]
    fn prefixes_are_found_by_short_key_as_by_name() {
        use super::{FastTurtle, short_key};
        // Names of every length around the key's 16 bytes, sharing their beginnings.
        let mut names: Vec<String> = (0..=20)
            .flat_map(|len| ["a", "b", "z-", "a.9"].map(|unit| unit.repeat(len)[..len].to_owned()))
            .collect();
        names.sort();
        names.dedup();
        for (x, y) in names.iter().zip(&names[1..]) {
            if let (Some(kx), Some(ky)) = (
                short_key(x.as_bytes(), x.len()),
                short_key(y.as_bytes(), y.len()),
            ) {
                assert!(kx < ky, "{x:?} {y:?}");
            }
        }
        let declared: Vec<(String, String)> = (names.iter().step_by(2))
            .map(|name| (name.clone(), format!("http://e/{name}#")))
            .collect();
        let reader = FastTurtle::new(declared.clone(), None, false);
        for name in names.iter().chain(
            ["ab", "zz", "a".repeat(17).as_str()]
                .map(String::from)
                .iter(),
        ) {
            let expected = declared.iter().find(|(n, _)| n == name).map(|(_, iri)| iri);
            assert_eq!(reader.prefix(name).map(|p| &p.iri), expected, "{name:?}");
            // As the fast path finds it: in the text, followed by more.
            let text = format!("{name}:local-name-of-any-length .");
            let found = reader.prefix_at(text.as_bytes(), name.len());
            assert_eq!(found.map(|p| &p.iri), expected, "{name:?}");
        }
    }
}
