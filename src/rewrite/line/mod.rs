//! The N-Triples / N-Quads line pipeline: the input is cut into chunks of whole lines
//! ([`read_chunk`]); workers, one per thread, check each line with a fast scanner
//! (`crate::read::check`) or `oxttl`, and splice the canonical IRIs into it
//! ([`line_iris`](super::line_iris), [`worker`]); their findings go to the
//! [`Findings`] and their output is written in input order. A line with nothing to change is
//! written as its original bytes.

mod worker;

use super::RewriteError;
use super::blank_nodes::DocumentScope;
use super::findings::{Findings, Placement};
use super::fingerprint::insert_prefix;
use super::graph::GraphOutput;
use crate::equivalence::mapping::{EquivalenceLinks, IriMapping};
use crate::read::{read_chunk, spawn_worker};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use worker::{ChunkResult, LineWorker};

/// Rewrites `input` into the line-based `output`, telling `findings` what it finds, on as many
/// threads as the rewriter has. With more than one, each worker thread takes chunks in turn
/// while this thread reads the next chunks and writes the rewritten ones, in input order. On
/// one, the worker is kept in `serial` from one input to the next.
pub(crate) fn rewrite<'s, W: Write>(
    findings: &mut Findings<'s>,
    output: &mut GraphOutput<W>,
    serial: &mut Option<Box<SerialWorker<'s>>>,
    input: &mut impl BufRead,
    document: DocumentScope,
) -> Result<(), RewriteError> {
    let rewriter = findings.rewriter;
    let needs = findings.needs();
    if rewriter.threads < 2 {
        let mut worker = match serial.take() {
            Some(serial) if serial.worker.needs() == needs => serial,
            _ => Box::new(SerialWorker {
                worker: LineWorker::new(rewriter, needs),
                chunk: Vec::new(),
                result: ChunkResult::default(),
            }),
        };
        worker.worker.document = document;
        let rewritten = worker.rewrite(findings, output, input);
        *serial = Some(worker);
        return rewritten;
    }
    let mut lines_before = 0;
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for _ in 0..rewriter.threads {
            let (to_worker, chunks) = mpsc::sync_channel::<Job>(IN_FLIGHT);
            let (to_session, results) = mpsc::sync_channel::<Job>(IN_FLIGHT);
            let mut worker = LineWorker::new(rewriter, needs);
            worker.document = document;
            spawn_worker(scope, move || {
                for (chunk, mut result) in chunks {
                    worker.process(&chunk, &mut result);
                    if to_session.send((chunk, result)).is_err() {
                        break;
                    }
                }
            })?;
            workers.push((to_worker, results));
        }
        let stopped = || RewriteError::Io(io::Error::other("a rewriting thread stopped"));
        let mut free: Vec<Job> = Vec::new();
        // The workers the chunks sent and not yet written went to, in input order.
        let mut pending = VecDeque::new();
        let mut ended = false;
        loop {
            while !ended && pending.len() < workers.len() * IN_FLIGHT {
                let (mut chunk, result) = free.pop().unwrap_or_default();
                if read_chunk(input, &mut chunk)? == 0 {
                    ended = true;
                    break;
                }
                let next = (pending.back().map_or(0, |&w| w + 1)) % workers.len();
                workers[next]
                    .0
                    .send((chunk, result))
                    .map_err(|_| stopped())?;
                pending.push_back(next);
            }
            let Some(from) = pending.pop_front() else {
                return Ok(());
            };
            let (chunk, mut result) = workers[from].1.recv().map_err(|_| stopped())?;
            apply(findings, output, &mut result, &mut lines_before)?;
            free.push((chunk, result));
        }
    })
}

/// The worker of a single-threaded rewrite and its buffers, kept from one input to the next: a
/// session fed many small inputs (the objects of a FOXML object store) builds the worker's
/// caches once, not once per input.
pub(crate) struct SerialWorker<'r> {
    worker: LineWorker<'r>,
    chunk: Vec<u8>,
    result: ChunkResult,
}

impl SerialWorker<'_> {
    fn rewrite<W: Write>(
        &mut self,
        findings: &mut Findings<'_>,
        output: &mut GraphOutput<W>,
        input: &mut impl BufRead,
    ) -> Result<(), RewriteError> {
        let mut lines_before = 0;
        while read_chunk(input, &mut self.chunk)? > 0 {
            self.worker.process(&self.chunk, &mut self.result);
            apply(findings, output, &mut self.result, &mut lines_before)?;
        }
        Ok(())
    }
}

/// A chunk and what became of it, on its way to a worker and back.
type Job = (Vec<u8>, ChunkResult);

/// The chunks each worker holds at most: one it rewrites, one waiting.
const IN_FLIGHT: usize = 2;

/// Applies a rewritten chunk: its findings in order, then its output, less the duplicates and
/// with the lines that do not parse where the findings say they go.
fn apply<W: Write>(
    findings: &mut Findings<'_>,
    output: &mut GraphOutput<W>,
    result: &mut ChunkResult,
    lines_before: &mut u64,
) -> Result<(), RewriteError> {
    let rewritten = &result.output;
    let mut written = 0;
    let mut duplicates = 0;
    // Equivalence statements linked at the end instead of written here (`--collapse`); the
    // findings take the links with the rest of what was found.
    let linked = result.found.links.statements;
    let dropped = result.found.dropped;
    let fingerprinted = findings.rewriter.fingerprint_statements;
    let (writer, fingerprints) = output.lines();
    findings.apply(&mut result.found, *lines_before, |placement| {
        match placement {
            Placement::Statement(fingerprint, range) => {
                if !fingerprints.first_time(fingerprint) {
                    writer.write_all(&rewritten[written..range.start])?;
                    written = range.end;
                    duplicates += 1;
                }
            }
            Placement::PassThrough(line, at) => {
                writer.write_all(&rewritten[written..at])?;
                if fingerprinted {
                    writer.write_all(b"\t")?;
                }
                writer.write_all(&line)?;
                written = at;
            }
        }
        Ok(())
    })?;
    writer.write_all(&rewritten[written..])?;
    let report = &mut findings.report;
    report.statements_read += result.statements;
    report.duplicates_dropped += duplicates;
    report.statements_written += result.statements - duplicates - dropped - linked;
    *lines_before += result.lines;
    Ok(())
}

/// Writes the links of `--collapse` (`<representative> <P> <member> [graph] .`, sorted) after
/// the rest of a line-based output, each after its fingerprint if `fingerprinted`
/// ([`Rewriter::fingerprint_statements`](super::Rewriter::fingerprint_statements)); returns how
/// many were written.
pub(crate) fn write_links(
    writer: &mut impl Write,
    links: EquivalenceLinks,
    mapping: &IriMapping,
    fingerprinted: bool,
) -> io::Result<u64> {
    let mut written = 0;
    let mut line = Vec::new();
    let mut scratch = String::new();
    links.write_sorted(mapping, |link| {
        line.clear();
        for iri in [link.representative, link.predicate, link.member] {
            line.push(b'<');
            line.extend_from_slice(iri.as_bytes());
            line.extend_from_slice(b"> ");
        }
        if !link.graph.is_empty() {
            line.extend_from_slice(link.graph.as_bytes());
            line.push(b' ');
        }
        line.extend_from_slice(b".\n");
        if fingerprinted {
            let fingerprint = worker::fingerprint_line(&line, true, &mut scratch);
            insert_prefix(&mut line, 0, fingerprint);
        }
        written += 1;
        writer.write_all(&line)
    })?;
    Ok(written)
}
