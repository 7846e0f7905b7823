//! [`ReaderQuadRewriter`]: the statements of a reader, read through the reading layer and
//! rewritten, as an iterator ([`Rewriter::for_reader`]).

use super::{RewriteError, Rewriter, WORKER_STACK};
use crate::read::{Item, NoWork, Notice, ReadError, Reader};
use oxrdf::Quad;
use std::io::{BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

impl Rewriter {
    /// Reads `input` in the input format, through the same reader as a
    /// [`session`](Rewriter::session) (recovering after syntax errors, RDF/XML as found in the
    /// field, Turtle on [`with_threads`](Rewriter::with_threads) threads), and rewrites its
    /// statements as [`for_quads`](Rewriter::for_quads) does, in `oxttl`'s habit of a parser
    /// over a reader: each syntax error is an `Err` where it is found (none with
    /// [`skip_syntax_errors`](Rewriter::skip_syntax_errors)), and the iteration goes on after
    /// it. The input is read on a thread of its own, a few thousand statements ahead; with the
    /// feature `compression`, a gzip, bzip2 or zstd input is decompressed, as the command line
    /// opens a file ([`crate::compression::open`]).
    ///
    /// ```
    /// use pidcanon::{rewrite::{RdfFormat, RewriteError, Rewriter}, Registry};
    /// let turtle = "@prefix dc: <http://purl.org/dc/terms/> .\n\
    ///               <info:fedora/demo%3a1> dc:relation <hdl://10013/X> .\n\
    ///               <info:fedora/demo:2> dc:relation <a b> .\n\
    ///               <doi:10.1000/ABC> dc:relation <info:fedora/demo:3> .\n";
    /// let rewriter = Rewriter::new(Registry::default()).with_input_format(RdfFormat::Turtle);
    /// let mut read = rewriter.for_reader(std::io::Cursor::new(turtle));
    /// assert_eq!(
    ///     read.next().unwrap()?.to_string(),
    ///     "<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/X>"
    /// );
    /// let Some(Err(RewriteError::Syntax(error))) = read.next() else { panic!("a space in an IRI") };
    /// assert_eq!(error.location().line(), Some(3));
    /// assert_eq!(
    ///     read.next().unwrap()?.subject.to_string(),
    ///     "<https://doi.org/10.1000/abc>"
    /// );
    /// assert!(read.next().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_reader(&self, input: impl Read + Send + 'static) -> ReaderQuadRewriter {
        ReaderQuadRewriter::new(self, input)
    }
}

/// How many statements go over to the iterator at a time.
const BATCH: usize = 1024;
/// How many batches may wait: what bounds the memory the reading thread fills ahead.
const BATCHES_AHEAD: usize = 4;

/// The statements of [`Rewriter::for_reader`], rewritten: each statement canonicalized and
/// mapped, each syntax error (unless skipped) and each invalid identifier (with
/// [`fail_on_invalid`](Rewriter::fail_on_invalid)) an `Err` where it was found, and the
/// iteration goes on after it; an I/O error, or a base IRI or prefix that cannot be used, is
/// the last item. Warnings (legacy RDF/XML read in its compatibility mode) are not told: a
/// [`Session`](super::Session) with an [`Observer`](super::Observer) hears them.
///
/// The input is read on a thread of its own, a few batches of statements ahead of the
/// iteration; dropping the iterator stops it (at its next read of the input).
#[derive(Debug)]
#[must_use]
pub struct ReaderQuadRewriter {
    receiver: Receiver<Vec<Result<Quad, RewriteError>>>,
    batch: std::vec::IntoIter<Result<Quad, RewriteError>>,
    thread: Option<JoinHandle<()>>,
    /// Set when the iterator is dropped: the input then ends for the reading thread.
    dropped: Arc<AtomicBool>,
}

impl Drop for ReaderQuadRewriter {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

/// An input that ends once the iterator reading it is dropped (a thread reading on, with
/// nothing to send, would never hear of it).
struct EndsWhenDropped<R> {
    input: R,
    dropped: Arc<AtomicBool>,
}

impl<R: Read> Read for EndsWhenDropped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.dropped.load(Ordering::Relaxed) {
            return Ok(0);
        }
        self.input.read(buf)
    }
}

impl Iterator for ReaderQuadRewriter {
    type Item = Result<Quad, RewriteError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
            match self.receiver.recv() {
                Ok(batch) => self.batch = batch.into_iter(),
                Err(_) => {
                    // The reading thread is done: a panic there is this iteration's.
                    if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
                        std::panic::resume_unwind(panic);
                    }
                    return None;
                }
            }
        }
    }
}

/// Why the reading thread stops before the end of its input.
enum Stop {
    Read(ReadError),
    /// The iterator was dropped.
    Gone,
}

impl From<ReadError> for Stop {
    fn from(error: ReadError) -> Self {
        Self::Read(error)
    }
}

impl ReaderQuadRewriter {
    fn new(rewriter: &Rewriter, input: impl Read + Send + 'static) -> Self {
        let (sender, receiver) = sync_channel(BATCHES_AHEAD);
        let rewriter = rewriter.clone();
        let dropped = Arc::new(AtomicBool::new(false));
        let input = EndsWhenDropped {
            input,
            dropped: Arc::clone(&dropped),
        };
        let spawned = std::thread::Builder::new()
            .name("pidcanon-read".into())
            .stack_size(WORKER_STACK)
            .spawn(move || read(&rewriter, input, &sender));
        let (batch, thread) = match spawned {
            Ok(thread) => (Vec::new(), Some(thread)),
            Err(error) => (vec![Err(RewriteError::Io(error))], None),
        };
        Self {
            receiver,
            batch: batch.into_iter(),
            thread,
            dropped,
        }
    }
}

/// Reads `input` as `rewriter` says, sending its rewritten statements and errors in batches.
fn read(
    rewriter: &Rewriter,
    input: impl Read + Send + 'static,
    sender: &SyncSender<Vec<Result<Quad, RewriteError>>>,
) {
    let reader = Reader::<NoWork>::new(
        rewriter.input_format,
        rewriter.base_iri.as_deref(),
        rewriter.strict_rdfxml,
        rewriter.threads,
    );
    let input = match opened(input) {
        Ok(input) => input,
        Err(error) => {
            let _ = sender.send(vec![Err(error.into())]);
            return;
        }
    };
    let mut batch = Vec::with_capacity(BATCH);
    let read = reader.read(input, |item, span, _| -> Result<(), Stop> {
        match item {
            Item::Statement(quad) => batch.push(rewriter.rewritten_quad(quad, span.start())),
            Item::Notice(Notice::SyntaxError(error)) if !rewriter.skip_syntax_errors => {
                batch.push(Err(error.into()));
            }
            Item::Notice(_) => {}
            Item::Piece(never) => match *never {},
        }
        if batch.len() >= BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            sender.send(full).map_err(|_| Stop::Gone)?;
        }
        Ok(())
    });
    match read {
        Ok(()) => {}
        Err(Stop::Read(error)) => batch.push(Err(error.into())),
        Err(Stop::Gone) => return,
    }
    // The iterator may be gone: nothing is left to tell then.
    let _ = sender.send(batch);
}

/// `input`, decompressed when its first bytes say it is compressed (feature `compression`).
fn opened(input: impl Read + Send + 'static) -> std::io::Result<Box<dyn BufRead + Send>> {
    #[cfg(feature = "compression")]
    return crate::compression::open(input, None);
    #[cfg(not(feature = "compression"))]
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, input)))
}
