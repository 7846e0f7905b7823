//! Where a graph rewrite's statements are serialized: a serializer writing into a buffer shared
//! with the session, so that serializing can move to the worker thread while the session keeps
//! its writer (which need not be `Send`), and drains the buffer into it in order.

use super::chunk::GraphBatch;
use super::source::Declarations;
use super::{RewriteError, Rewriter};
use oxrdf::Quad;
use oxrdfio::{RdfSerializer, WriterQuadSerializer};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// Bytes written by the serializer, waiting for the session to take them.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// Moves what has been written so far into `out`.
    pub(crate) fn drain_into(&self, out: &mut impl Write) -> io::Result<()> {
        let mut bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        out.write_all(&bytes)?;
        bytes.clear();
        Ok(())
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

type Serializer = WriterQuadSerializer<BufWriter<SharedBuffer>>;

/// The serializer (made with the input's declarations when the first batch comes) and the
/// fingerprints of the statements written, for `--dedup`.
pub(crate) struct GraphSink {
    shared: SharedBuffer,
    serializer: Option<Box<Serializer>>,
    fingerprints: HashSet<u128>,
    scratch: String,
}

impl GraphSink {
    pub(crate) fn new(shared: SharedBuffer) -> Self {
        Self {
            shared,
            serializer: None,
            fingerprints: HashSet::new(),
            scratch: String::new(),
        }
    }

    /// Serializes a mapped batch, less the duplicates; returns (written, duplicates).
    pub(crate) fn write(
        &mut self,
        rewriter: &Rewriter,
        batch: &mut GraphBatch,
    ) -> Result<(u64, u64), RewriteError> {
        let declarations = batch.declarations.take().unwrap_or_default();
        let serializer = match &mut self.serializer {
            Some(serializer) => serializer,
            None => self.serializer.insert(Box::new(serializer_for(
                rewriter,
                self.shared.clone(),
                &declarations,
            )?)),
        };
        let (mut written, mut duplicates) = (0, 0);
        for quad in batch.quads.drain(..) {
            if rewriter.dedup && seen_before(&mut self.fingerprints, &mut self.scratch, &quad) {
                duplicates += 1;
                continue;
            }
            serializer.serialize_quad(&quad)?;
            written += 1;
        }
        batch.clear();
        Ok((written, duplicates))
    }

    /// Ends the document (a serializer that never saw a statement still writes an empty one).
    pub(crate) fn finish(self, rewriter: &Rewriter) -> Result<(), RewriteError> {
        let serializer = match self.serializer {
            Some(serializer) => *serializer,
            None => serializer_for(rewriter, self.shared.clone(), &Declarations::default())?,
        };
        serializer.finish()?.flush()?;
        Ok(())
    }
}

/// Whether an equal statement was seen before; remembers this one (a 128-bit fingerprint of its
/// N-Quads form).
pub(crate) fn seen_before(
    fingerprints: &mut HashSet<u128>,
    scratch: &mut String,
    quad: &Quad,
) -> bool {
    scratch.clear();
    let _ = write!(scratch, "{quad}");
    !fingerprints.insert(xxhash_rust::xxh3::xxh3_128(scratch.as_bytes()))
}

/// The serializer of the rewriter's output format, with the input's prefixes and base.
fn serializer_for(
    rewriter: &Rewriter,
    shared: SharedBuffer,
    (prefixes, base): &Declarations,
) -> Result<Serializer, RewriteError> {
    let mut serializer = RdfSerializer::from_format(rewriter.output_format);
    let bad = |e: oxiri::IriParseError| {
        RewriteError::Usage(format!("cannot write the input's declarations: {e}"))
    };
    // The parser has checked these IRIs; checking again here costs nothing and means a bad one is
    // skipped rather than fatal.
    for (name, iri) in prefixes
        .iter()
        .filter(|(_, iri)| oxiri::Iri::parse(iri.as_str()).is_ok())
    {
        serializer = serializer
            .with_prefix(name.as_str(), iri.as_str())
            .map_err(bad)?;
    }
    if let Some(base) = base
        .as_deref()
        .filter(|base| oxiri::Iri::parse(*base).is_ok())
    {
        serializer = serializer.with_base_iri(base).map_err(bad)?;
    }
    Ok(serializer.for_writer(BufWriter::with_capacity(1 << 16, shared)))
}
