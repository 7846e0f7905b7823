//! The N-Triples / N-Quads line pipeline: the input is cut into chunks of whole lines
//! ([`chunk`]); workers, one per thread, check each line with a fast scanner ([`scan`]) or
//! `oxttl`, and splice the canonical IRIs into it ([`iris`], [`worker`]); the session applies
//! their findings and writes their output in input order. A line with nothing to change is
//! written as its original bytes.

mod chunk;
mod iris;
mod scan;
mod worker;

use super::RewriteError;
use super::fingerprint::Fingerprints;
use super::session::{Output, Placement, Session};
use super::threads::spawn_worker;
use std::io::{BufRead, BufWriter, Write};
use worker::{ChunkResult, LineWorker};

pub(crate) use iris::column;

/// Rewrites `input` into the session's line-based output, on as many threads as the rewriter
/// has; while the workers rewrite chunks, the next ones are read.
pub(crate) fn rewrite<W: Write>(
    session: &mut Session<'_, W>,
    input: &mut impl BufRead,
) -> Result<(), RewriteError> {
    let rewriter = session.rewriter;
    let threads = rewriter.threads;
    let needs = session.needs();
    let mut workers: Vec<_> = (0..threads)
        .map(|_| LineWorker::new(rewriter, needs))
        .collect();
    let mut chunks = vec![Vec::new(); threads];
    let mut next = vec![Vec::new(); threads];
    let mut results: Vec<ChunkResult> = (0..threads).map(|_| ChunkResult::default()).collect();
    let mut lines_before = 0;
    let mut filled = chunk::fill(input, &mut chunks)?;
    while filled > 0 {
        let jobs = workers
            .iter_mut()
            .zip(&chunks[..filled])
            .zip(&mut results[..filled]);
        let next_filled = if threads == 1 {
            jobs.for_each(|((worker, chunk), result)| worker.process(chunk, result));
            chunk::fill(input, &mut next)
        } else {
            std::thread::scope(|scope| {
                for ((worker, chunk), result) in jobs {
                    spawn_worker(scope, move || worker.process(chunk, result))?;
                }
                chunk::fill(input, &mut next)
            })
        };
        for result in &mut results[..filled] {
            apply(session, result, lines_before)?;
            lines_before += result.lines;
        }
        std::mem::swap(&mut chunks, &mut next);
        filled = next_filled?;
    }
    Ok(())
}

/// Applies a rewritten chunk: its findings in order, then its output, less the duplicates and
/// with the lines that do not parse where the session says they go.
fn apply<W: Write>(
    session: &mut Session<'_, W>,
    result: &mut ChunkResult,
    lines_before: u64,
) -> Result<(), RewriteError> {
    let output = &result.output;
    let mut written = 0;
    let mut duplicates = 0;
    session.apply(&mut result.found, lines_before, |session, placement| {
        let (writer, fingerprints) = line_output(session);
        match placement {
            Placement::Statement(fingerprint, range) => {
                if !fingerprints.first_time(fingerprint) {
                    writer.write_all(&output[written..range.start])?;
                    written = range.end;
                    duplicates += 1;
                }
            }
            Placement::PassThrough(line, at) => {
                writer.write_all(&output[written..at])?;
                writer.write_all(&line)?;
                written = at;
            }
        }
        Ok(())
    })?;
    line_output(session).0.write_all(&output[written..])?;
    let report = &mut session.report;
    report.statements_read += result.statements;
    report.duplicates_dropped += duplicates;
    report.statements_written += result.statements - duplicates;
    Ok(())
}

/// The session's line-based output and the fingerprints of what it has written.
fn line_output<'a, W: Write>(
    session: &'a mut Session<'_, W>,
) -> (&'a mut BufWriter<W>, &'a mut Fingerprints) {
    match &mut session.output {
        Output::Lines {
            writer,
            fingerprints,
        } => (writer, fingerprints),
        Output::Graph(_) => unreachable!("the line pipeline runs on line-based output"),
    }
}
