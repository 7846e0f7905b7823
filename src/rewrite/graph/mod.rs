//! The parse → map → serialize pipeline, for every pair of formats that is not N-Triples /
//! N-Quads to the same, and for statements already parsed (whatever the formats): a
//! [`Reader`] parses statements, a [`worker`] canonicalizes them in batches (Turtle read on
//! several threads, where it is parsed: [`pieces`]), a [`sink`] serializes them; with more
//! than one thread the worker and the sink run on a second thread while the session reads.

mod lines;
mod pieces;
mod sink;
mod worker;

use super::blank_nodes::DocumentScope;
use super::events::Found;
use super::findings::Findings;
use super::fingerprint::Fingerprints;
use super::{Location, RewriteError, Rewriter};
use crate::equivalence::mapping::{EquivalenceLinks, IriMapping, Link};
use crate::read::{Declarations, Item, Notice, Reader, Span, spawn_worker};
use oxrdf::{BlankNode, GraphName, NamedNode, Quad};
use pieces::PieceCanonicalizer;
use sink::{GraphSink, SharedBuffer};
use std::io::{self, BufRead, BufWriter, Write};
use std::sync::mpsc;
use worker::GraphBatch;

pub(crate) use worker::GraphWorker;

/// Whether `format` is written line by line ([`lines`]): N-Triples and N-Quads.
pub(crate) fn writes_lines(format: super::RdfFormat) -> bool {
    matches!(
        format,
        super::RdfFormat::NTriples | super::RdfFormat::NQuads
    )
}

/// A session's output: serialized, or the lines of the line pipeline (written straight to the
/// writer, with the sink's fingerprints) and the statements it is given parsed (serialized as
/// lines).
pub(crate) struct GraphOutput<W: Write> {
    writer: BufWriter<W>,
    shared: SharedBuffer,
    /// Away on the worker thread during a rewrite.
    sink: Option<GraphSink>,
    /// Whether the input's declarations went to the serializer.
    declared: bool,
}

impl<W: Write> GraphOutput<W> {
    pub(crate) fn new(rewriter: &Rewriter, writer: BufWriter<W>) -> Self {
        let shared = SharedBuffer::default();
        Self {
            writer,
            sink: Some(GraphSink::new(rewriter, shared.clone())),
            shared,
            declared: false,
        }
    }

    /// The writer, for what is written straight to it.
    pub(crate) fn writer(&mut self) -> &mut BufWriter<W> {
        &mut self.writer
    }

    /// The writer and the fingerprints of the statements written, for the line pipeline.
    pub(crate) fn lines(&mut self) -> (&mut BufWriter<W>, &mut Fingerprints) {
        let Some(sink) = &mut self.sink else {
            unreachable!("the sink is back after every rewrite")
        };
        (&mut self.writer, sink.fingerprints())
    }

    /// Writes the links of `--collapse` (sorted), ends the document and flushes it; returns the
    /// links written and those dropped as duplicates.
    pub(crate) fn finish(
        mut self,
        rewriter: &Rewriter,
        mapping: Option<&IriMapping>,
        links: EquivalenceLinks,
    ) -> Result<(u64, u64), RewriteError> {
        let mut counts = (0, 0);
        if let Some(mut sink) = self.sink {
            if let Some(mapping) = mapping {
                links.write_sorted(mapping, |link| {
                    sink.put(rewriter, &link_quad(&link))?;
                    // The bytes go to the writer as they fill a block, not all at the end.
                    counts = sum(counts, sink.hand_over());
                    self.shared.drain_into(&mut self.writer)?;
                    Ok::<(), RewriteError>(())
                })?;
            }
            counts = sum(counts, sink.hand_over());
            sink.finish(rewriter)?;
        }
        self.shared.drain_into(&mut self.writer)?;
        self.writer.flush()?;
        Ok(counts)
    }
}

fn sum((a, b): (u64, u64), (c, d): (u64, u64)) -> (u64, u64) {
    (a + c, b + d)
}

/// A link of `--collapse` as a statement.
fn link_quad(link: &Link<'_>) -> Quad {
    let graph_name = if let Some(iri) = link
        .graph
        .strip_prefix('<')
        .and_then(|g| g.strip_suffix('>'))
    {
        NamedNode::new_unchecked(iri).into()
    } else if let Some(label) = link.graph.strip_prefix("_:") {
        BlankNode::new_unchecked(label).into()
    } else {
        GraphName::DefaultGraph
    };
    Quad::new(
        NamedNode::new_unchecked(link.representative),
        NamedNode::new_unchecked(link.predicate),
        NamedNode::new_unchecked(link.member),
        graph_name,
    )
}

/// What comes back from the worker: what it found, and (written, duplicates).
type Mapped = Result<(Found, (u64, u64)), RewriteError>;

/// Where a graph rewrite's statements come from: an input read in the rewriter's format, or
/// statements already parsed, each with where it is in its document.
enum Items<'a, R> {
    Read(Reader<'a, PieceCanonicalizer<'a>>, &'a mut R),
    Located(&'a mut dyn Iterator<Item = (Quad, Location)>),
}

impl<R: BufRead> Items<'_, R> {
    /// Hands each item to `on_item`, as [`Reader::read`] does (statements already parsed come
    /// without lines, at their location, and with no declarations).
    fn read(
        self,
        mut on_item: impl FnMut(
            Item<GraphBatch>,
            Span<'_>,
            &dyn Fn() -> Declarations,
        ) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        match self {
            Self::Read(reader, input) => reader.read(input, on_item),
            Self::Located(quads) => {
                for (quad, at) in quads {
                    on_item(Item::Statement(quad), Span::at(at), &Declarations::default)?;
                }
                Ok(())
            }
        }
    }
}

/// Rewrites `input` into the session's serialized output.
/// Relative IRIs resolve against `base_iri`, or else the rewriter's base.
pub(crate) fn rewrite<'s, W: Write>(
    findings: &mut Findings<'s>,
    output: &mut GraphOutput<W>,
    worker: &mut Option<Box<GraphWorker<'s>>>,
    input: &mut impl BufRead,
    base_iri: Option<&str>,
    document: DocumentScope,
) -> Result<(), RewriteError> {
    let rewriter = findings.rewriter;
    let base_iri = base_iri.or(rewriter.base_iri.as_deref());
    let mut reader = Reader::new(
        rewriter.input_format,
        base_iri,
        rewriter.strict_rdfxml,
        rewriter.threads,
    );
    let needs = findings.needs();
    let canonicalizer = || PieceCanonicalizer::new(rewriter, needs, document);
    if premapped(rewriter) {
        // Identifier literals are recognized with hints from the statements around them in a
        // batch: those are canonicalized in batches of their own. For an input after the
        // first, IRIs are found without declarations (the session took the first input's).
        let first = output.declared.then(Declarations::default);
        reader = reader.with_piece_work(&canonicalizer, first);
    }
    rewrite_items(
        findings,
        output,
        worker,
        Items::Read(reader, input),
        document,
    )
}

/// Rewrites statements already parsed into the session's output as the statements of an input
/// are: serialized, or for line-based output written as lines (every line written goes on to
/// the writer at the end, where the line pipeline writes the next input).
pub(crate) fn rewrite_located_quads<'s, W: Write>(
    findings: &mut Findings<'s>,
    output: &mut GraphOutput<W>,
    worker: &mut Option<Box<GraphWorker<'s>>>,
    quads: &mut dyn Iterator<Item = (Quad, Location)>,
    document: DocumentScope,
) -> Result<(), RewriteError> {
    let items = Items::<io::Empty>::Located(quads);
    rewrite_items(findings, output, worker, items, document)?;
    if findings.rewriter.line_based() {
        if let Some(sink) = &mut output.sink {
            sink.hand_over_lines();
        }
        output.shared.drain_into(&mut output.writer)?;
    }
    Ok(())
}

/// Whether Turtle read on several threads is canonicalized where it is parsed.
fn premapped(rewriter: &Rewriter) -> bool {
    rewriter.threads > 1 && rewriter.literals.is_none()
}

/// Maps and writes the statements of `items`, the input `document`, with the worker kept in
/// `kept` from one input to the next, so that a session fed many small inputs (the objects of
/// a FOXML object store) builds its caches once, not once per input.
fn rewrite_items<'s, W: Write, R: BufRead>(
    findings: &mut Findings<'s>,
    output: &mut GraphOutput<W>,
    kept: &mut Option<Box<GraphWorker<'s>>>,
    items: Items<'_, R>,
    document: DocumentScope,
) -> Result<(), RewriteError> {
    let needs = findings.needs();
    let mut worker = match kept.take() {
        Some(mut worker) if worker.needs() == needs => {
            worker.start_input(document);
            worker
        }
        _ => Box::new(GraphWorker::new(findings.rewriter, needs, document)),
    };
    let done = rewrite_with(findings, output, items, &mut worker);
    *kept = Some(worker);
    done
}

/// [`rewrite_items`] with `worker`.
fn rewrite_with<'s, W: Write, R: BufRead>(
    findings: &mut Findings<'s>,
    output: &mut GraphOutput<W>,
    items: Items<'_, R>,
    worker: &mut GraphWorker<'s>,
) -> Result<(), RewriteError> {
    let rewriter = findings.rewriter;
    let premapped = premapped(rewriter);
    let mut batch = GraphBatch::default();
    let Some(mut sink) = output.sink.take() else {
        unreachable!("the sink is back after every rewrite")
    };
    if rewriter.threads < 2 && rewriter.literals.is_none() {
        let done = stream(findings, output, items, worker, &mut sink);
        output.sink = Some(sink);
        return done;
    }
    // Maps and writes a batch, leaving it empty with its capacity: batches are used again, so
    // that their vectors do not grow anew (and get copied as they grow) for every batch.
    // `whole`: before a notice, every line written goes on (see `stream`).
    let mut map_and_write =
        move |batch: &mut GraphBatch, sink: &mut GraphSink, whole: bool| -> Mapped {
            let mut found = Found::default();
            worker.map(batch, &mut found);
            let counts = sink.write(rewriter, batch)?;
            if whole {
                sink.hand_over_lines();
            }
            Ok((found, counts))
        };
    if rewriter.threads < 2 {
        let read = items.read(|item, span, declarations| {
            if let Item::Notice(notice) = item {
                // The statements of the batch being filled are mapped with it, after the
                // notice; those of the batches before it go on whole first (see `stream`).
                sink.hand_over_lines();
                apply(findings, output, Ok((Found::default(), (0, 0))))?;
                return tell(findings, notice, span);
            }
            if take(findings, output, item, span, declarations, &mut batch)? {
                let mapped = map_and_write(&mut batch, &mut sink, false);
                apply(findings, output, mapped)?;
            }
            Ok(())
        });
        let mapped = read.map(|()| map_and_write(&mut batch, &mut sink, false));
        let done = mapped.and_then(|mapped| apply(findings, output, mapped));
        output.sink = Some(sink);
        return done;
    }
    let (done, sink) = std::thread::scope(|scope| {
        // Each batch with whether every line written goes on after it (before a notice).
        let (to_worker, batches) = mpsc::sync_channel::<(GraphBatch, bool)>(2);
        let (to_session, mapped) = mpsc::channel::<(Mapped, GraphBatch)>();
        let spawned = spawn_worker(scope, move || {
            for (mut batch, whole) in batches {
                let result = map_and_write(&mut batch, &mut sink, whole);
                let failed = result.is_err();
                if to_session.send((result, batch)).is_err() || failed {
                    break;
                }
            }
            sink
        });
        let stopped = || RewriteError::Io(io::Error::other("the rewriting thread stopped"));
        let mapper = match spawned {
            Ok(mapper) => mapper,
            Err(e) => return (Err(RewriteError::Io(e)), None),
        };
        // Batches sent to the worker and not yet applied.
        let mut in_flight = 0_usize;
        let read = items.read(|item, span, declarations| {
            let full = if let Item::Notice(notice) = item {
                // What was found in the statements before it is told first, and what was
                // written goes on, as on one thread (`stream`): the statements read are mapped
                // (with `--literals`, as on one thread, the batch being filled waits), and what
                // the worker found is applied before the findings hear of the notice (which
                // may end the rewrite).
                let before = if premapped {
                    std::mem::take(&mut batch)
                } else {
                    GraphBatch::default()
                };
                to_worker.send((before, true)).map_err(|_| stopped())?;
                in_flight += 1;
                while in_flight > 0 {
                    let (result, _) = mapped.recv().map_err(|_| stopped())?;
                    in_flight -= 1;
                    apply(findings, output, result)?;
                }
                return tell(findings, notice, span);
            } else {
                take(findings, output, item, span, declarations, &mut batch)?
            };
            if full {
                let mut spare = None;
                while let Ok((result, empty)) = mapped.try_recv() {
                    in_flight -= 1;
                    apply(findings, output, result)?;
                    spare = Some(empty);
                }
                let full = std::mem::replace(&mut batch, spare.unwrap_or_default());
                to_worker.send((full, false)).map_err(|_| stopped())?;
                in_flight += 1;
            }
            Ok(())
        });
        let sent = read.and_then(|()| to_worker.send((batch, false)).map_err(|_| stopped()));
        drop(to_worker);
        let mut done = sent;
        for (result, _) in mapped {
            done = done.and_then(|()| apply(findings, output, result));
        }
        let sink = mapper.join().ok();
        (
            done.and(sink.is_some().then_some(()).ok_or_else(stopped)),
            sink,
        )
    });
    output.sink = sink;
    done
}

/// How many statements are mapped and written one by one before what was found in them is
/// applied.
const STREAMED: u32 = 128;

/// Maps and writes each statement as it is read (on one thread, with no identifier literals
/// to recognize from the statements around them): its terms and lines are still in the
/// processor's cache, where a batch of them would have left it before being mapped and written.
fn stream<W: Write>(
    findings: &mut Findings<'_>,
    output: &mut GraphOutput<W>,
    items: Items<'_, impl BufRead>,
    worker: &mut GraphWorker<'_>,
    sink: &mut GraphSink,
) -> Result<(), RewriteError> {
    let rewriter = findings.rewriter;
    let mut found = Found::default();
    let mut unapplied = 0;
    let hand_over = |findings: &mut Findings<'_>,
                     output: &mut GraphOutput<W>,
                     sink: &mut GraphSink,
                     found: &mut Found| {
        let counts = sink.hand_over();
        apply(findings, output, Ok((std::mem::take(found), counts)))
    };
    let read = items.read(|item, span, declarations| {
        let mut quad = match item {
            Item::Statement(quad) => quad,
            // Only Turtle read on several threads comes canonicalized in pieces (the reader
            // reads on several threads only when the rewriter has them; this path, never).
            Item::Piece(_) => unreachable!("this path runs on one thread"),
            Item::Notice(notice) => {
                // What was found before it is told first, and every line written before it goes
                // on (not only whole blocks): where the notice ends the rewrite, the output
                // holds every statement before it, whatever the thread count.
                sink.hand_over_lines();
                hand_over(findings, output, sink, &mut found)?;
                unapplied = 0;
                return tell(findings, notice, span);
            }
        };
        findings.report.statements_read += 1;
        if !std::mem::replace(&mut output.declared, true) {
            let declarations = declarations();
            sink.declare(rewriter, &declarations)?;
            worker.declare(declarations);
        }
        if worker.map_one(&mut quad, span, &mut found) {
            sink.put(rewriter, &quad)?;
        }
        unapplied += 1;
        if unapplied == STREAMED {
            unapplied = 0;
            hand_over(findings, output, sink, &mut found)?;
        }
        Ok(())
    });
    read.and_then(|()| hand_over(findings, output, sink, &mut found))
}

/// Takes one parsed item: a statement goes into `batch` (true when the batch is full), a
/// syntax error to the findings.
fn take<W: Write>(
    findings: &mut Findings<'_>,
    output: &mut GraphOutput<W>,
    item: Item<GraphBatch>,
    span: Span<'_>,
    declarations: &dyn Fn() -> Declarations,
    batch: &mut GraphBatch,
) -> Result<bool, RewriteError> {
    match item {
        Item::Statement(quad) => {
            findings.report.statements_read += 1;
            if !std::mem::replace(&mut output.declared, true) {
                batch.declarations = Some(declarations());
            }
            batch.push(quad, span);
            Ok(batch.statements.quads.len() >= GraphBatch::size(findings.rewriter.threads))
        }
        Item::Piece(mut mapped) => {
            // Parsed in pieces, handed on before the rest of the input is read statement by
            // statement: the batch being filled is empty.
            debug_assert!(batch.statements.quads.is_empty());
            let read = mapped.premapped.as_ref().map_or(0, |p| p.read);
            if read == 0 {
                // Declarations and comments: nothing to write (the serializer is made with
                // the declarations before the first statement).
                return Ok(false);
            }
            findings.report.statements_read += read;
            if std::mem::replace(&mut output.declared, true) {
                mapped.declarations = None;
            }
            *batch = *mapped;
            Ok(true)
        }
        Item::Notice(notice) => tell(findings, notice, span).map(|()| false),
    }
}

/// Tells the findings of a syntax error or a warning.
fn tell(findings: &mut Findings<'_>, notice: Notice, span: Span<'_>) -> Result<(), RewriteError> {
    match notice {
        Notice::SyntaxError(error) => findings.syntax_error(error, span.text).map(drop),
        Notice::Warning(location, message) => {
            findings.warning(location, &message);
            Ok(())
        }
    }
}

/// Applies a mapped and serialized batch: what was found, the counts, then the bytes.
fn apply<W: Write>(
    findings: &mut Findings<'_>,
    output: &mut GraphOutput<W>,
    mapped: Mapped,
) -> Result<(), RewriteError> {
    let (mut found, (written, duplicates)) = mapped?;
    findings.apply(&mut found, 0, |_| Ok(()))?;
    findings.report.statements_written += written;
    findings.report.duplicates_dropped += duplicates;
    output.shared.drain_into(&mut output.writer)?;
    Ok(())
}
