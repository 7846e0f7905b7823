//! The graph worker: canonicalizes the IRIs of a batch of parsed statements, finding where each
//! rewritten or invalid IRI is written, and gives anonymous blank nodes labels that are the same
//! on every run.

use crate::equivalence::Member;
use crate::equivalence::literals::LiteralEvent;
use crate::position::{is_line_end, line_breaks, line_start};
use crate::read::{Declarations, Span, Statements};
use crate::rewrite::blank_nodes::DocumentScope;
use crate::rewrite::cache::{Cache, Outcome};
use crate::rewrite::events::{Event, Found, Needs, look_up};
use crate::rewrite::line_iris::{column, unescape_iri};
use crate::rewrite::nanopub::{is_protected, rewrite_warning};
use crate::rewrite::terms::map_quad;
use crate::rewrite::{Location, Rewriter};
use oxrdf::{BlankNode, GraphName, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::HashMap;
use std::sync::mpsc::Sender;

/// Statements parsed from a graph format, on their way to the worker, each with the lines it
/// spans (kept once for the statements that share them).
#[derive(Debug, Default)]
pub(crate) struct GraphBatch {
    /// The input's prefixes and base, with the first batch.
    pub(crate) declarations: Option<Declarations>,
    pub(crate) statements: Statements,
    /// Set when the statements were canonicalized where they were parsed (Turtle on several
    /// threads): only their blank nodes are left to label.
    pub(crate) premapped: Option<Premapped>,
    /// Where the statements go back when the batch is cleared: to the thread that parsed them
    /// (Turtle on several threads), which frees them where they were allocated.
    pub(crate) home: Option<Sender<Vec<Quad>>>,
    /// The statements already written as lines where they were parsed (Turtle on several
    /// threads to N-Triples or N-Quads, without `--dedup`), instead of `quads`.
    pub(crate) lines: Option<WrittenLines>,
}

/// Statements written as N-Triples / N-Quads lines ([`super::lines`]) on the thread that parsed
/// them, so that only bytes travel on: the labels of the blank nodes the parser made up are
/// left blank, to be filled in order by the worker that writes the lines
/// ([`GraphWorker::map`]), as it labels them in statements.
#[derive(Debug, Default)]
pub(crate) struct WrittenLines {
    pub(crate) bytes: Vec<u8>,
    /// Per made-up blank node written, in order: where its label goes in `bytes`, and its id.
    made_up: Vec<(usize, u128)>,
    /// The statements written.
    pub(crate) statements: u64,
}

impl WrittenLines {
    /// Appends `quad` as a line.
    pub(crate) fn write(&mut self, quad: &Quad) {
        let made_up = &mut self.made_up;
        super::lines::write_quad_with(
            &mut self.bytes,
            quad,
            &mut |out, node| match made_up_id(node) {
                Some(id) => {
                    out.extend_from_slice(b"_:");
                    made_up.push((out.len(), id));
                    out.extend_from_slice(&[b'0'; LABEL_LEN]);
                }
                None => super::lines::write_blank_node(out, node.as_str()),
            },
        );
        self.statements += 1;
    }
}

/// What canonicalizing a batch where it was parsed found, for the worker that writes it.
#[derive(Debug, Default)]
pub(crate) struct Premapped {
    pub(crate) found: Found,
    /// The statements parsed (some may have been dropped).
    pub(crate) read: u64,
    /// The IRI finder after the batch, if it searched the batch.
    finder: Option<IriFinder>,
    /// The finder would have needed what it found before the batch.
    pub(crate) guessed: bool,
}

impl GraphBatch {
    /// The number of statements a batch holds before it is mapped: on one thread few, so that
    /// the terms of a batch are still in the processor's cache when they are mapped, written and
    /// freed (with 4096, allocating and looking up took a quarter of the time more than their
    /// instructions say); with a second thread mapping, enough to make handing over cheap.
    pub(crate) fn size(threads: usize) -> usize {
        if threads < 2 { 128 } else { 4096 }
    }

    /// Adds `quad`, read with the lines `span`, its blank nodes made up by the parser marked so.
    pub(crate) fn push(&mut self, mut quad: Quad, span: Span<'_>) {
        mark_made_up(&mut quad, span.text);
        self.statements.push(quad, span);
    }

    /// An empty batch of statements written as lines, with room for about `bytes` bytes.
    pub(crate) fn of_lines(bytes: usize) -> Self {
        Self {
            lines: Some(WrittenLines {
                bytes: Vec::with_capacity(bytes),
                ..WrittenLines::default()
            }),
            ..Self::default()
        }
    }

    pub(crate) fn clear(&mut self) {
        self.premapped = None;
        self.lines = None;
        if let Some(home) = self.home.take() {
            // Gone home if the parsing thread is still there; else freed here.
            let _ = home.send(std::mem::take(&mut self.statements.quads));
        }
        self.statements.clear();
    }
}

/// Canonicalizes the statements of graph batches; one per input, with its own cache.
pub(crate) struct GraphWorker<'r> {
    rewriter: &'r Rewriter,
    needs: Needs,
    cache: Cache,
    /// Canonicalizes and renames without collapsing: the sides of an equivalence statement
    /// (`--collapse`).
    uncollapsed: Cache,
    /// The graph name of an equivalence statement, as N-Quads writes it.
    graph: String,
    labels: BlankNodeLabels,
    /// The input's prefixes and base, to find the IRIs written with them.
    declared: Declarations,
    /// Where the IRIs of the last statements were found, kept from one batch to the next.
    finder: IriFinder,
}

impl<'r> GraphWorker<'r> {
    /// The worker of the session's input `document`.
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs, document: DocumentScope) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::with_mapping(rewriter.mapping.as_ref(), true),
            uncollapsed: Cache::with_mapping(rewriter.mapping.as_ref(), false),
            graph: String::new(),
            labels: BlankNodeLabels::for_document(document),
            declared: Declarations::default(),
            finder: IriFinder::default(),
        }
    }

    /// Starts the session's input `document`: what was learnt of the previous input goes,
    /// the caches stay.
    pub(crate) fn start_input(&mut self, document: DocumentScope) {
        self.labels.start(document);
        self.declared = Declarations::default();
        self.finder = IriFinder::default();
    }

    /// What the worker records.
    pub(crate) fn needs(&self) -> Needs {
        self.needs
    }

    /// Labels the made-up blank nodes of `batch` and canonicalizes its statements (unless that
    /// was done where they were parsed); what is found goes to `found`.
    pub(crate) fn map(&mut self, batch: &mut GraphBatch, found: &mut Found) {
        for quad in &mut batch.statements.quads {
            self.labels.relabel(quad);
        }
        if let Some(lines) = &mut batch.lines {
            self.labels.fill_in(lines);
        }
        if let Some(declarations) = &batch.declarations {
            self.declared.clone_from(declarations);
        }
        match batch.premapped.take() {
            Some(premapped) => {
                *found = premapped.found;
                if let Some(finder) = premapped.finder {
                    self.finder = finder;
                }
            }
            None => self.canonicalize(batch, found),
        }
    }

    /// Labels the made-up blank nodes of one statement read with the lines `span` and
    /// canonicalizes it in place (what is found goes to `found`): whether it is to be written
    /// (`false` when it is dropped). With [`Self::declare`], the way to map statement by
    /// statement what [`Self::map`] maps in batches.
    pub(crate) fn map_one(&mut self, quad: &mut Quad, span: Span<'_>, found: &mut Found) -> bool {
        self.labels.label_read(quad, span.text);
        self.map_statement(quad, span, found)
    }

    /// Gives the blank nodes written in the input of a statement written as a line where it is
    /// parsed ([`WrittenLines`]) their labels in the document: the made-up ones are labelled
    /// in order when the lines are written.
    pub(crate) fn label_written(&self, quad: &mut Quad) {
        if self.labels.document.relabels_written() {
            let mut label = |node: &mut BlankNode| {
                if made_up_id(node).is_none()
                    && let Some(own) = self.labels.document.written(node.as_str())
                {
                    *node = own;
                }
            };
            each_blank_node(quad, &mut label);
        }
    }

    /// Whether statements may be written as lines where they are canonicalized
    /// ([`WrittenLines`]): the output is N-Triples or N-Quads, duplicates are kept and no
    /// fingerprint is written.
    pub(crate) fn writes_lines(&self) -> bool {
        super::writes_lines(self.rewriter.output_format)
            && !self.rewriter.drop_duplicates
            && !self.rewriter.fingerprint_statements
    }

    /// Sets the input's prefixes and base, to find the IRIs written with them.
    pub(crate) fn declare(&mut self, declarations: Declarations) {
        self.declared = declarations;
    }

    /// Starts canonicalizing a piece of Turtle parsed on its own thread ([`super::parallel`]),
    /// statement by statement with [`Self::map_statement`], IRIs found with `declared` (the
    /// declarations before the input's first statement, or else none yet: [`Self::declare`]
    /// them at the input's first statement).
    pub(crate) fn start_piece(&mut self, declared: Declarations) {
        self.declared = declared;
        self.finder = IriFinder {
            starting: true,
            ..IriFinder::default()
        };
    }

    /// Ends a piece started with [`Self::start_piece`]: marks `batch` (the statements mapped,
    /// of `read` parsed) as canonicalized, with what was `found` in it.
    pub(crate) fn end_piece(&mut self, batch: &mut GraphBatch, found: Found, read: u64) {
        let finder = std::mem::take(&mut self.finder);
        batch.premapped = Some(Premapped {
            found,
            read,
            guessed: finder.guessed,
            finder: (!finder.starting).then_some(finder),
        });
    }

    /// Canonicalizes in place one statement read with the lines `span`: whether it is to be
    /// written (`false` when it is not written here: an equivalence statement within a class,
    /// linked at the end, or a reflexive one dropped, with `--collapse`). The statement is
    /// changed where it is, not moved: a quad is some 200 bytes.
    pub(crate) fn map_statement(
        &mut self,
        quad: &mut Quad,
        span: Span<'_>,
        found: &mut Found,
    ) -> bool {
        let rewriter = self.rewriter;
        let protected = is_protected(&quad.graph_name);
        if protected && rewriter.keep_signed {
            found.signed_statements_kept += 1;
            return true;
        }
        let equivalence = equivalence(rewriter, &mut self.uncollapsed, quad);
        let (needs, cache, finder, declared) = (
            self.needs,
            &mut self.cache,
            &mut self.finder,
            &self.declared,
        );
        let mut changed = false;
        map_quad(quad, &mut |iri| {
            let location = || finder.find(span, iri, declared);
            let canonical = look_up(
                cache,
                &rewriter.registry,
                needs,
                (iri, None),
                location,
                found,
            );
            changed |= canonical.is_some();
            canonical.map(str::to_owned)
        });
        if protected && changed {
            found.events.push(Event::Warning {
                location: span.start(),
                message: rewrite_warning(&quad.graph_name),
            });
        }
        match equivalence {
            None => true,
            Some(equivalence) => equivalence.record(&quad.graph_name, &mut self.graph, found),
        }
    }

    /// Canonicalizes the statements of `batch`; what is found goes to `found`.
    fn canonicalize(&mut self, batch: &mut GraphBatch, found: &mut Found) {
        found.clear();
        let quads = std::mem::take(&mut batch.statements.quads);
        let read = &batch.statements;
        // The statements kept, by their index in `read`.
        let mut kept = Vec::new();
        let mut mapped: Vec<Quad> = quads
            .into_iter()
            .enumerate()
            .filter_map(|(index, mut quad)| {
                self.map_statement(&mut quad, read.span(index), found)
                    .then(|| kept.push(index))?;
                Some(quad)
            })
            .collect();
        let (rewriter, cache, uncollapsed, graph) = (
            self.rewriter,
            &mut self.cache,
            &mut self.uncollapsed,
            &mut self.graph,
        );
        if let Some(literals) = &rewriter.literals {
            literals.rewrite_window(
                &rewriter.registry,
                &mut mapped,
                &mut found.literals,
                |event| {
                    if let LiteralEvent::Invalid {
                        index,
                        value,
                        error,
                    } = event
                    {
                        let span = read.span(kept[index]);
                        found.events.push(Event::Invalid {
                            location: locate_literal(span, value),
                            iri: value.into(),
                            error,
                        });
                    }
                },
            );
            // The links' IRIs are canonical; they are renamed and collapsed like any other, and
            // a link of an equivalence predicate is an equivalence statement.
            let links = mapped.split_off(kept.len());
            for mut link in links {
                if let Some(equivalence) = equivalence(rewriter, uncollapsed, &link)
                    && !equivalence.record(&link.graph_name, graph, found)
                {
                    continue;
                }
                if let Term::NamedNode(object) = &link.object
                    && let Outcome::Changed(target, _) =
                        cache.lookup(&rewriter.registry, object.as_str())
                {
                    link.object = NamedNode::new_unchecked(&**target).into();
                }
                mapped.push(link);
            }
        }
        batch.statements.quads = mapped;
    }
}

/// Where the literal `value` is written in a statement's lines: the line and column of its
/// first character when it is written quoted as it is, else the statement's last line.
fn locate_literal(span: Span<'_>, value: &str) -> Location {
    let text = span.text;
    if text.is_empty() {
        return span.start();
    }
    let lines_before = |at: usize| line_breaks(&text[..at]);
    let quoted = ['"', '\''].map(|quote| format!("{quote}{value}{quote}"));
    let found = quoted
        .iter()
        .find_map(|needle| memchr::memmem::find(text, needle.as_bytes()))
        .map(|at| at + 1);
    match found {
        Some(at) => {
            let line_start = line_start(text, at);
            Location::new(
                span.first_line + lines_before(at),
                column(&text[line_start..], at - line_start),
            )
        }
        None => {
            let last_line = span.first_line + lines_before(text.len())
                - u64::from(text.last().copied().is_some_and(is_line_end));
            Location::at_line(last_line.max(1))
        }
    }
}

/// What becomes of a statement of an equivalence predicate between two IRIs (`--collapse`).
struct Equivalence {
    /// The predicate's number among the equivalence predicates.
    predicate: u32,
    /// The class members it names, to link from their representatives at the end.
    linked: [Option<Member>; 2],
    /// Written where it stands (as any statement is: each side collapsed).
    written: bool,
}

impl Equivalence {
    /// Records the links of the statement, in the graph `graph_name` (mapped; `scratch` holds
    /// it as N-Quads writes it) and counts it in `found` if it is not written; returns whether
    /// it is written where it stands.
    fn record(&self, graph_name: &GraphName, scratch: &mut String, found: &mut Found) -> bool {
        let mut linked = self.linked.iter().flatten().peekable();
        if linked.peek().is_some() {
            scratch.clear();
            match graph_name {
                GraphName::NamedNode(iri) => {
                    scratch.push('<');
                    scratch.push_str(iri.as_str());
                    scratch.push('>');
                }
                GraphName::BlankNode(node) => {
                    scratch.push_str("_:");
                    scratch.push_str(node.as_str());
                }
                GraphName::DefaultGraph => {}
            }
            for &member in linked {
                found.links.insert(scratch, self.predicate, member);
            }
        }
        if self.written {
            return true;
        }
        if self.linked.iter().any(Option::is_some) {
            found.links.statements += 1;
        } else {
            found.dropped += 1;
        }
        false
    }
}

/// For a statement of an equivalence predicate between two IRIs (`--collapse`): what becomes
/// of it; `None` for any other statement (and for one with an invalid identifier, left as it
/// is).
fn equivalence(rewriter: &Rewriter, uncollapsed: &mut Cache, quad: &Quad) -> Option<Equivalence> {
    let mapping = rewriter.mapping.as_deref()?;
    let predicate = mapping.equivalence_predicate(quad.predicate.as_str())?;
    let (NamedOrBlankNode::NamedNode(s), Term::NamedNode(o)) = (&quad.subject, &quad.object) else {
        return None;
    };
    let mut side = |iri: &str| match uncollapsed.lookup(&rewriter.registry, iri) {
        Outcome::Changed(target, _) => Some(target.to_string()),
        Outcome::Unchanged => Some(iri.to_owned()),
        // An invalid identifier is left as it is, and the statement with it.
        Outcome::Invalid(_) => None,
    };
    let (s, o) = (side(s.as_str())?, side(o.as_str())?);
    let statement = mapping.equivalence_statement(&s, &o);
    let mut linked = [None, None];
    for (slot, member) in linked.iter_mut().zip(statement.linked()) {
        *slot = Some(member);
    }
    Some(Equivalence {
        predicate,
        linked,
        written: statement.is_written(),
    })
}

/// Finds where IRIs are written in the lines of a statement, in order (a repeated IRI is found
/// at its next occurrence): in full (`<iri>`), relative to the base (`<rest>`), or as a
/// prefixed name (`dc:title`) with a prefix declared before the first statement. An IRI not in
/// the statement's lines because it continues an earlier one (after `;` or `,`) is where it was
/// found in the lines before. An IRI written otherwise (an escaped local name, a prefix
/// declared later) gets the statement's last line and no column.
#[derive(Debug, Default)]
struct IriFinder {
    /// The lines searched last: their first line and length (the lines of the next statement
    /// differ in one or the other).
    span: (u64, usize),
    from: usize,
    /// The IRIs found in the current lines and in the lines before them.
    found: Vec<(String, Location)>,
    found_before: Vec<(String, Location)>,
    /// In a piece of Turtle parsed on its own thread, before its first search: what was found
    /// before the piece is not known.
    starting: bool,
    /// The lines searched last are the piece's first: `found_before` is not known.
    before_unknown: bool,
    /// A search needed what was found before the piece (the piece is read again in order).
    guessed: bool,
}

impl IriFinder {
    fn find(&mut self, span: Span<'_>, iri: &str, declared: &Declarations) -> Location {
        if span.text.is_empty() {
            // Read without lines (RDF/XML).
            return span.start();
        }
        let key = (span.first_line, span.text.len());
        if key != self.span {
            (self.span, self.from) = (key, 0);
            self.found_before = std::mem::take(&mut self.found);
            self.before_unknown = std::mem::take(&mut self.starting);
        }
        let text = span.text;
        let (prefixes, base) = declared;
        let relative = base.as_deref().and_then(|base| iri.strip_prefix(base));
        let prefixed = prefixes.iter().filter_map(|(name, namespace)| {
            let local = iri.strip_prefix(namespace.as_str())?;
            Some(Written::Prefixed(name, local))
        });
        let forms = [Some(Written::Full(iri)), relative.map(Written::Full)];
        let found = forms
            .into_iter()
            .flatten()
            .chain(prefixed)
            .find_map(|form| form.find(text, self.from).or_else(|| form.find(text, 0)))
            .or_else(|| {
                let forms = [Some(iri), relative];
                find_escaped(text, self.from, &forms).or_else(|| find_escaped(text, 0, &forms))
            });
        let Some((at, end)) = found else {
            self.guessed |= self.before_unknown;
            if let Some(&(_, location)) = self.found_before.iter().find(|(seen, _)| seen == iri) {
                // Kept for the statements that continue this one.
                self.found.push((iri.to_owned(), location));
                return location;
            }
            let last = span.first_line
                + line_breaks(text)
                    .saturating_sub(u64::from(text.last().copied().is_some_and(is_line_end)));
            return Location::at_line(last.max(1));
        };
        self.from = end;
        let line_start = line_start(text, at);
        let line = span.first_line + line_breaks(&text[..line_start]);
        let location = Location::new(line, column(&text[line_start..], at - line_start));
        self.found.push((iri.to_owned(), location));
        location
    }
}

/// The first `<…>` at or after `from` in `text` written with `\u` escapes that stands for one
/// of `forms`, as a byte range (`<ex\u0041>` for `exA`).
fn find_escaped(text: &[u8], from: usize, forms: &[Option<&str>]) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(open) = memchr::memchr(b'<', &text[at.min(text.len())..]).map(|i| at + i) {
        let close = open + 1 + memchr::memchr2(b'>', b'<', &text[open + 1..])?;
        at = close;
        let written = &text[open + 1..close];
        if text[close] != b'>' || memchr::memchr(b'\\', written).is_none() {
            continue;
        }
        let Ok(written) = std::str::from_utf8(written) else {
            continue;
        };
        let iri = unescape_iri(written);
        if forms.iter().flatten().any(|form| *form == iri) {
            return Some((open, close + 1));
        }
    }
    None
}

/// A way an IRI can be written in Turtle or TriG.
#[derive(Clone, Copy)]
enum Written<'a> {
    /// Between `<` and `>`.
    Full(&'a str),
    /// A prefix name, `:` and a local name written as it is.
    Prefixed(&'a str, &'a str),
}

impl Written<'_> {
    /// The first place at or after `from` where `text` holds this form, as a byte range.
    fn find(self, text: &[u8], from: usize) -> Option<(usize, usize)> {
        let (needle, whole_name) = match self {
            Self::Full(iri) => ([b"<", iri.as_bytes(), b">"].concat(), false),
            Self::Prefixed(name, local) => {
                ([name.as_bytes(), b":", local.as_bytes()].concat(), true)
            }
        };
        let mut at = from;
        while let Some(found) = memchr::memmem::find(text.get(at..)?, &needle) {
            let (start, end) = (at + found, at + found + needle.len());
            if !whole_name || is_whole_name(text, start, end) {
                return Some((start, end));
            }
            at = start + 1;
        }
        None
    }
}

/// Whether `text[start..end]` is a whole prefixed name: not part of a longer name or IRI.
fn is_whole_name(text: &[u8], start: usize, end: usize) -> bool {
    let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || b"_-:%.\\".contains(&b) || b >= 0x80;
    let before_ok = start == 0 || !(is_name_byte(text[start - 1]) || text[start - 1] == b'/');
    let after_ok = match text.get(end) {
        None => true,
        // A name does not end with `.`: a `.` followed by a name character continues it.
        Some(b'.') => !text.get(end + 1).is_some_and(|&b| is_name_byte(b)),
        Some(&b) => !is_name_byte(b),
    };
    before_ok && after_ok
}

/// Marks the blank nodes of `quad` that a parser made up, read from `text` (its lines)
/// ([`made_up_in`]), with a label no label of the input can have.
pub(crate) fn mark_made_up(quad: &mut Quad, text: &[u8]) {
    each_blank_node(quad, &mut |node| {
        if let Some(id) = made_up_in(node, text) {
            *node = BlankNode::new_unchecked(format!("{MADE_UP}{id:x}"));
        }
    });
}

/// The id of `node`, read from `text` (its statement's lines), if a parser made it up: its
/// label reads as a random 128-bit number (as `oxrdf` draws them, and as Oxigraph writes its
/// own) and is not written in `text`. A label written in the input is kept, always.
fn made_up_in(node: &BlankNode, text: &[u8]) -> Option<u128> {
    let id = node.as_ref().unique_id().filter(|id| id >> 64 != 0)?;
    let label = node.as_str().as_bytes();
    // Each `_:` in the text, followed by the whole label.
    let written = memchr::memchr_iter(b'_', text).any(|at| {
        text[at + 1..].starts_with(b":")
            && text[at + 2..].starts_with(label)
            && !text
                .get(at + 2 + label.len())
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    });
    (!written).then_some(id)
}

/// Calls `f` on each blank node of `quad`: subject, object (in triple terms too), graph name.
fn each_blank_node(quad: &mut Quad, f: &mut impl FnMut(&mut BlankNode)) {
    if let NamedOrBlankNode::BlankNode(b) = &mut quad.subject {
        f(b);
    }
    each_in_term(&mut quad.object, f);
    if let GraphName::BlankNode(b) = &mut quad.graph_name {
        f(b);
    }
}

fn each_in_term(term: &mut Term, mark: &mut impl FnMut(&mut BlankNode)) {
    match term {
        Term::BlankNode(b) => mark(b),
        #[cfg(feature = "rdf-12")]
        Term::Triple(t) => {
            if let NamedOrBlankNode::BlankNode(b) = &mut t.subject {
                mark(b);
            }
            each_in_term(&mut t.object, mark);
        }
        _ => {}
    }
}

/// What a made-up node's label starts with once marked: no label of the input can.
const MADE_UP: char = '#';

/// Labels for the blank nodes a parser made up (for `[]`, collections, RDF/XML nodes without
/// `rdf:nodeID`), which `oxrdf` draws at random: each gets one derived from a counter per
/// document and the document's seed ([`DocumentScope::seed`]: its number in the run and its base
/// IRI, a file's own `file://` URL or `--base`), so the output is the same on every run and two
/// documents never share a made-up node. Labels written in the input are kept in the run's first
/// document, and made the document's own in the others ([`DocumentScope::written`]). Made-up nodes
/// are used in statements close together, so only the most recently used ones are remembered:
/// two generations of [`GENERATION`] each, a node used again moving to the newer one; the maps
/// are made at their full size with the first made-up node and reused from one generation to the
/// next, so memory stays constant from then on (about 8 MB). A node is forgotten only if
/// [`GENERATION`] other made-up nodes are made between two of its uses (a collection of that
/// many items inside one `[ … ]` before its next predicate).
#[derive(Default)]
struct BlankNodeLabels {
    document: DocumentScope,
    counter: u64,
    /// A made-up node's id, and the counter its label derives from.
    recent: HashMap<u128, u64>,
    older: HashMap<u128, u64>,
}

/// How many made-up blank nodes one generation remembers.
const GENERATION: usize = 1 << 16;

impl BlankNodeLabels {
    fn for_document(document: DocumentScope) -> Self {
        Self {
            document,
            ..Self::default()
        }
    }

    /// Starts labelling `document`'s nodes, keeping the maps' room.
    fn start(&mut self, document: DocumentScope) {
        self.document = document;
        self.counter = 0;
        self.recent.clear();
        self.older.clear();
    }

    /// Labels the blank nodes of `quad`, marked by [`mark_made_up`].
    fn relabel(&mut self, quad: &mut Quad) {
        each_blank_node(quad, &mut |b| self.label(b, made_up_id(b)));
    }

    /// Labels the blank nodes of `quad` as it was read from `text` (its lines): as
    /// [`mark_made_up`] then [`Self::relabel`], without the marks.
    fn label_read(&mut self, quad: &mut Quad, text: &[u8]) {
        each_blank_node(quad, &mut |b| self.label(b, made_up_in(b, text)));
    }

    /// Gives `node` its label: if a parser made it up (its id `made_up`), one of the
    /// document's; if it is written in the input, the document's own.
    fn label(&mut self, node: &mut BlankNode, made_up: Option<u128>) {
        if let Some(id) = made_up {
            *node = BlankNode::new_from_unique_id(self.label_of(id));
        } else if let Some(own) = self.document.written(node.as_str()) {
            *node = own;
        }
    }

    /// Fills in the labels of the made-up blank nodes of `lines`, in order.
    fn fill_in(&mut self, lines: &mut WrittenLines) {
        for &(at, id) in &lines.made_up {
            let label = BlankNode::new_from_unique_id(self.label_of(id));
            lines.bytes[at..at + LABEL_LEN].copy_from_slice(label.as_str().as_bytes());
        }
        lines.made_up.clear();
    }

    /// The id of the label of the made-up node `id`.
    fn label_of(&mut self, id: u128) -> u128 {
        let counter = match self.recent.get(&id) {
            Some(&counter) => counter,
            None => {
                let counter = self.older.remove(&id).unwrap_or_else(|| {
                    self.counter += 1;
                    self.counter
                });
                if self.recent.capacity() == 0 {
                    self.recent.reserve(GENERATION);
                    self.older.reserve(GENERATION);
                }
                if self.recent.len() >= GENERATION {
                    std::mem::swap(&mut self.recent, &mut self.older);
                    self.recent.clear();
                }
                self.recent.insert(id, counter);
                counter
            }
        };
        let seed = (u128::from(self.document.seed()) << 64) | u128::from(counter);
        // The first hex digit is a letter, as in `oxrdf`'s own ids: RDF/XML's rdf:nodeID must
        // not start with a digit.
        let hash = xxhash_rust::xxh3::xxh3_128(&seed.to_le_bytes());
        (hash >> 4) | (0xA << 124)
    }
}

/// The id of a blank node a parser made up ([`mark_made_up`]), `None` for a label from the
/// input.
fn made_up_id(node: &BlankNode) -> Option<u128> {
    let hex = node.as_str().strip_prefix(MADE_UP)?;
    u128::from_str_radix(hex, 16).ok()
}

/// The length of the labels [`BlankNodeLabels`] gives: 32 hexadecimal digits, the first a
/// letter.
const LABEL_LEN: usize = 32;

#[cfg(test)]
mod tests {
    use super::{BlankNodeLabels, DocumentScope, GENERATION, mark_made_up};
    use oxrdf::{BlankNode, GraphName, NamedNode, Quad};

    /// A blank node a parser made up, marked as [`mark_made_up`] marks it.
    fn made_up() -> BlankNode {
        let mut quad = Quad::new(
            BlankNode::default(),
            NamedNode::new_unchecked("http://p"),
            NamedNode::new_unchecked("http://o"),
            GraphName::DefaultGraph,
        );
        mark_made_up(&mut quad, b"");
        match quad.subject {
            oxrdf::NamedOrBlankNode::BlankNode(node) => node,
            oxrdf::NamedOrBlankNode::NamedNode(_) => unreachable!("a blank node"),
        }
    }

    #[test]
    fn a_label_written_in_the_input_is_not_made_up() {
        let written = BlankNode::new("abcdef0123456789abcdef").expect("valid label");
        let mut quad = Quad::new(
            written.clone(),
            NamedNode::new_unchecked("http://p"),
            BlankNode::default(),
            GraphName::DefaultGraph,
        );
        mark_made_up(&mut quad, b"_:abcdef0123456789abcdef <http://p> [] .\n");
        assert_eq!(quad.subject, written.into());
        assert!(
            quad.object.to_string().starts_with("_:#"),
            "{}",
            quad.object
        );
    }

    #[test]
    fn labelling_as_read_is_marking_then_relabelling() {
        let document = DocumentScope::new(1, None);
        let (mut marked, mut read) = (
            BlankNodeLabels::for_document(document),
            BlankNodeLabels::for_document(document),
        );
        let label = "abcdef0123456789abcdef";
        let texts = [
            format!("_:{label} <http://p> [] .\n"),
            format!("_:{label}"),
            format!("_:{label}0 <http://p> [] .\n"),
            format!("<http://s#{label}> <http://p> _:{label}_ .\n"),
            String::new(),
        ];
        for (i, text) in texts.iter().enumerate() {
            let written = BlankNode::new(label).expect("valid label");
            let quad = Quad::new(
                written.clone(),
                NamedNode::new_unchecked("http://p"),
                BlankNode::default(),
                GraphName::DefaultGraph,
            );
            let (mut a, mut b) = (quad.clone(), quad);
            mark_made_up(&mut a, text.as_bytes());
            marked.relabel(&mut a);
            read.label_read(&mut b, text.as_bytes());
            assert_eq!(a, b, "{text}");
            assert_eq!(b.subject == written.into(), i < 2, "{text}");
        }
    }

    /// The label `labels` gives the made-up node `node`.
    fn labelled(labels: &mut BlankNodeLabels, node: &BlankNode) -> BlankNode {
        let (mut node, id) = (node.clone(), super::made_up_id(node));
        labels.label(&mut node, id);
        node
    }

    #[test]
    fn made_up_nodes_get_the_same_labels_on_every_run() {
        let document = DocumentScope::new(1, None);
        let (mut first, mut second) = (
            BlankNodeLabels::for_document(document),
            BlankNodeLabels::for_document(document),
        );
        for _ in 0..10 {
            let (a, b) = (made_up(), made_up());
            assert_ne!(a, b);
            assert_eq!(labelled(&mut first, &a), labelled(&mut second, &b));
        }
        let named = BlankNode::new("b1").expect("valid label");
        assert_eq!(labelled(&mut first, &named), named);
    }

    #[test]
    fn a_node_used_again_is_remembered_past_both_generations() {
        let mut labels = BlankNodeLabels::for_document(DocumentScope::new(1, None));
        let kept = made_up();
        let label = labelled(&mut labels, &kept);
        let mut others = Vec::new();
        for i in 0..3 * GENERATION {
            others.push(labelled(&mut labels, &made_up()));
            if i % 1000 == 0 {
                assert_eq!(labelled(&mut labels, &kept), label, "after {i} others");
            }
        }
        others.push(label);
        others.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        others.dedup();
        assert_eq!(others.len(), 3 * GENERATION + 1, "labels are distinct");
        assert!(labels.recent.len() + labels.older.len() <= 2 * GENERATION);
    }
}
