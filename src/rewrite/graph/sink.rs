//! Where a graph rewrite's statements are serialized: a serializer writing into a buffer shared
//! with the session, so that serializing can move to the worker thread while the session keeps
//! its writer (which need not be `Send`), and drains the buffer into it in order.

use super::worker::GraphBatch;
use super::{Declarations, writes_lines};
#[cfg(feature = "rdfxml")]
use crate::rdfxml::UsedNamespaces;
use crate::read::with_prefixes;
use crate::rewrite::fingerprint::{Fingerprint, Fingerprints, insert_prefix};
use crate::rewrite::{RdfFormat, RewriteError, Rewriter};
use oxrdf::{Quad, TripleRef};
#[cfg(feature = "rdfxml")]
use oxrdfxml::{RdfXmlSerializer, WriterRdfXmlSerializer};
use oxttl::trig::{TriGSerializer, WriterTriGSerializer};
use oxttl::turtle::{TurtleSerializer, WriterTurtleSerializer};
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

    /// Moves `bytes` to the end of the buffer, leaving `bytes` empty.
    fn append(&self, bytes: &mut Vec<u8>) {
        let mut shared = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if shared.is_empty() {
            std::mem::swap(&mut *shared, bytes);
        } else {
            shared.append(bytes);
        }
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

/// The serializer of a format written as a document (N-Triples and N-Quads are written as
/// lines, [`super::lines`]). RDF/XML goes through [`UsedNamespaces`]: `oxrdfxml` declares a
/// namespace it may not use.
enum Serializer {
    Turtle(WriterTurtleSerializer<BufWriter<SharedBuffer>>),
    TriG(WriterTriGSerializer<BufWriter<SharedBuffer>>),
    #[cfg(feature = "rdfxml")]
    RdfXml(WriterRdfXmlSerializer<BufWriter<UsedNamespaces<SharedBuffer>>>),
}

impl Serializer {
    /// Serializes `quad`, whose graph the format has (the sink checked).
    fn serialize_quad(&mut self, quad: &Quad) -> io::Result<()> {
        match self {
            Self::Turtle(serializer) => serializer.serialize_triple(TripleRef::from(quad.as_ref())),
            Self::TriG(serializer) => serializer.serialize_quad(quad),
            #[cfg(feature = "rdfxml")]
            Self::RdfXml(serializer) => serializer.serialize_triple(TripleRef::from(quad.as_ref())),
        }
    }

    /// Ends the document and flushes it to the shared buffer.
    fn finish(self) -> io::Result<()> {
        match self {
            Self::Turtle(serializer) => serializer.finish()?.flush(),
            Self::TriG(serializer) => serializer.finish()?.flush(),
            #[cfg(feature = "rdfxml")]
            Self::RdfXml(serializer) => serializer.finish()?.flush(),
        }
    }
}

/// N-Triples and N-Quads lines are handed to the session in blocks of at least this many
/// bytes: as large as the buffer of the session's writer, which writes such a block straight
/// to its output instead of copying it into that buffer first.
const BLOCK: usize = 1 << 16;

/// The serializer (made with the input's declarations before the first statement) and, for
/// `--dedup`, the fingerprints of the statements written. N-Triples and N-Quads are written
/// line by line into `lines` ([`super::lines`]), and moved to the shared buffer in blocks.
pub(crate) struct GraphSink {
    shared: SharedBuffer,
    serializer: Option<Box<Serializer>>,
    lines: Option<Vec<u8>>,
    fingerprints: Fingerprints,
    scratch: String,
    /// Statements written and duplicates dropped since the last hand-over.
    counts: (u64, u64),
}

impl GraphSink {
    pub(crate) fn new(rewriter: &Rewriter, shared: SharedBuffer) -> Self {
        Self {
            shared,
            serializer: None,
            lines: writes_lines(rewriter.output_format).then(Vec::new),
            fingerprints: Fingerprints::default(),
            scratch: String::new(),
            counts: (0, 0),
        }
    }

    /// The fingerprints of the statements written (`--dedup`), which the line pipeline keeps
    /// here too.
    pub(crate) fn fingerprints(&mut self) -> &mut Fingerprints {
        &mut self.fingerprints
    }

    /// Serializes a mapped batch, less the duplicates; returns (written, duplicates).
    pub(crate) fn write(
        &mut self,
        rewriter: &Rewriter,
        batch: &mut GraphBatch,
    ) -> Result<(u64, u64), RewriteError> {
        if let Some(declarations) = batch.declarations.take() {
            self.declare(rewriter, &declarations)?;
        }
        for quad in &batch.statements.quads {
            self.put(rewriter, quad)?;
        }
        if let Some(written) = &mut batch.lines {
            let Some(lines) = &mut self.lines else {
                unreachable!("lines are written where parsed only for N-Triples or N-Quads")
            };
            lines.append(&mut written.bytes);
            self.counts.0 += written.statements;
        }
        batch.clear();
        Ok(self.hand_over())
    }

    /// Makes the serializer with the input's prefixes, before the first statement (N-Triples
    /// and N-Quads lines need none).
    pub(crate) fn declare(
        &mut self,
        rewriter: &Rewriter,
        declarations: &Declarations,
    ) -> Result<(), RewriteError> {
        if self.lines.is_none() {
            self.serializer(rewriter, declarations)?;
        }
        Ok(())
    }

    /// The serializer, made with `declarations` if there is none yet.
    fn serializer(
        &mut self,
        rewriter: &Rewriter,
        declarations: &Declarations,
    ) -> Result<&mut Serializer, RewriteError> {
        let serializer = match self.serializer.take() {
            Some(serializer) => serializer,
            None => Box::new(serializer_for(rewriter, self.shared.clone(), declarations)?),
        };
        Ok(self.serializer.insert(serializer))
    }

    /// Serializes a mapped statement, unless it is a duplicate; after its fingerprint, with
    /// [`fingerprint_statements`](Rewriter::fingerprint_statements).
    pub(crate) fn put(&mut self, rewriter: &Rewriter, quad: &Quad) -> Result<(), RewriteError> {
        let fingerprint = (rewriter.drop_duplicates || rewriter.fingerprint_statements)
            .then(|| Fingerprint::of(quad, &mut self.scratch));
        if let (Some(fingerprint), true) = (fingerprint, rewriter.drop_duplicates)
            && !self.fingerprints.first_time(fingerprint)
        {
            self.counts.1 += 1;
            return Ok(());
        }
        if !quad.graph_name.is_default_graph() && !rewriter.output_format.supports_datasets() {
            return Err(RewriteError::NoNamedGraphs {
                graph: quad.graph_name.to_string(),
                format: rewriter.output_format,
            });
        }
        match &mut self.lines {
            Some(lines) => {
                if rewriter.fingerprint_statements {
                    let at = lines.len();
                    insert_prefix(lines, at, fingerprint);
                }
                super::lines::write_quad(lines, quad);
            }
            None if rewriter.fingerprint_statements => {
                return Err(RewriteError::FingerprintsNeedLines {
                    format: rewriter.output_format,
                });
            }
            None => self
                .serializer(rewriter, &Declarations::default())?
                .serialize_quad(quad)?,
        }
        self.counts.0 += 1;
        Ok(())
    }

    /// Moves the lines written so far to the shared buffer once they fill a block; returns
    /// (written, duplicates) since the last hand-over.
    pub(crate) fn hand_over(&mut self) -> (u64, u64) {
        if let Some(lines) = &mut self.lines
            && lines.len() >= BLOCK
        {
            self.shared.append(lines);
        }
        std::mem::take(&mut self.counts)
    }

    /// Moves every line written so far to the shared buffer, not only whole blocks: before a
    /// notice, which may end the rewrite, so that what was written before it goes out
    /// whatever the batches were (lines of a serializer's output stay in it).
    pub(crate) fn hand_over_lines(&mut self) {
        if let Some(lines) = &mut self.lines
            && !lines.is_empty()
        {
            self.shared.append(lines);
        }
    }

    /// Ends the document (a serializer that never saw a statement still writes an empty one).
    pub(crate) fn finish(self, rewriter: &Rewriter) -> Result<(), RewriteError> {
        if let Some(mut lines) = self.lines {
            self.shared.append(&mut lines);
            return Ok(());
        }
        let serializer = match self.serializer {
            Some(serializer) => *serializer,
            None => serializer_for(rewriter, self.shared.clone(), &Declarations::default())?,
        };
        serializer.finish()?;
        Ok(())
    }
}

/// The serializer of the rewriter's output format, with the input's prefixes (written absolute:
/// no base IRI is declared in the output, so that prefixes are not made relative to it). RDF/XML
/// output declares only the namespaces it uses.
fn serializer_for(
    rewriter: &Rewriter,
    shared: SharedBuffer,
    (prefixes, _base): &Declarations,
) -> Result<Serializer, RewriteError> {
    // The parser has checked these IRIs; checking again here costs nothing and means a bad one
    // is skipped rather than fatal.
    let prefixes = prefixes
        .iter()
        .filter(|(_, iri)| oxiri::Iri::parse(iri.as_str()).is_ok());
    let buffered = |shared| BufWriter::with_capacity(1 << 16, shared);
    Ok(match rewriter.output_format {
        RdfFormat::Turtle => Serializer::Turtle(
            with_prefixes!(TurtleSerializer::new(), prefixes).for_writer(buffered(shared)),
        ),
        RdfFormat::TriG => Serializer::TriG(
            with_prefixes!(TriGSerializer::new(), prefixes).for_writer(buffered(shared)),
        ),
        #[cfg(feature = "rdfxml")]
        RdfFormat::RdfXml => Serializer::RdfXml(RdfXmlSerializer::new().for_writer(
            BufWriter::with_capacity(1 << 16, UsedNamespaces::new(shared, true)),
        )),
        RdfFormat::NTriples | RdfFormat::NQuads => {
            unreachable!("N-Triples and N-Quads are written as lines")
        }
    })
}
