//! Compressed dumps: gzip, bzip2 and zstd, told by the name's last extension (`.gz`, `.bz2`,
//! `.zst`) or, when the name says nothing (stdin, `dump.nt`), by the first bytes. Concatenated
//! members and frames (`pigz`, `pbzip2`, `zstd -T0`) are read as one stream.
//!
//! Inputs are decompressed on a thread of their own, which hands the rewriter blocks through a
//! channel: the rewriter's threads keep rewriting while the next blocks are decompressed.
//!
//! ```text
//! dump.nt.gz   gzip, then N-Triples
//! - < dump.zst zstd (told by its magic bytes), then N-Quads
//! -o out.nt.gz N-Triples, gzip-compressed as it is written
//! ```

use super::named::with_name;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// The size of the blocks the decompressing thread hands over.
const BLOCK: usize = 1 << 20;
/// How many blocks may wait in the channel.
const BLOCKS_AHEAD: usize = 4;

/// A compression format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Gzip,
    Bzip2,
    Zstd,
}

impl Compression {
    /// The compression that `path`'s last extension names.
    pub(crate) fn from_extension(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "gz" | "gzip" => Some(Self::Gzip),
            "bz2" => Some(Self::Bzip2),
            "zst" | "zstd" => Some(Self::Zstd),
            _ => None,
        }
    }

    /// The compression whose magic number `start` begins with.
    pub(crate) fn from_magic(start: &[u8]) -> Option<Self> {
        if start.starts_with(&[0x1f, 0x8b]) {
            Some(Self::Gzip)
        } else if start.starts_with(b"BZh") {
            Some(Self::Bzip2)
        } else if start.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Self::Zstd)
        } else {
            None
        }
    }

    /// How many bytes [`from_magic`](Self::from_magic) needs.
    pub(crate) const MAGIC_LEN: usize = 4;
}

/// `path` without its compression extension: `dump.nt.gz` → `dump.nt`.
pub(crate) fn without_compression_extension(path: &Path) -> &Path {
    match Compression::from_extension(path) {
        Some(_) => path.file_stem().map_or(path, Path::new),
        None => path,
    }
}

/// `compressed`, decompressed on a thread of its own; errors name `name`.
pub(crate) fn decompress(
    compressed: impl BufRead + Send + 'static,
    compression: Compression,
    name: String,
) -> io::Result<Blocks> {
    let decoder: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(compressed)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(compressed)),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(compressed)
                .map_err(|e| with_name(&name, e))?,
        ),
    };
    let (sender, receiver) = sync_channel(BLOCKS_AHEAD);
    std::thread::Builder::new()
        .name(format!("decompress {name}"))
        .spawn(move || send_blocks(decoder, &sender, &name))?;
    Ok(Blocks {
        receiver,
        block: Vec::new(),
        position: 0,
    })
}

/// Reads `decoder` to the end in blocks, sending each (or the error that stopped it); stops early
/// when the reader has gone.
fn send_blocks(mut decoder: impl Read, sender: &SyncSender<io::Result<Vec<u8>>>, name: &str) {
    loop {
        let mut block = Vec::with_capacity(BLOCK);
        match (&mut decoder).take(BLOCK as u64).read_to_end(&mut block) {
            Ok(0) => return,
            Ok(_) => {
                if sender.send(Ok(block)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = sender.send(Err(with_name(name, e)));
                return;
            }
        }
    }
}

/// The decompressed stream, as the decompressing thread hands it over.
pub(crate) struct Blocks {
    receiver: Receiver<io::Result<Vec<u8>>>,
    block: Vec<u8>,
    position: usize,
}

impl Read for Blocks {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        pidcanon::buffered::read_from_buffer(self, buf)
    }
}

impl BufRead for Blocks {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.position == self.block.len() {
            // A closed channel is the end of the stream.
            if let Ok(block) = self.receiver.recv() {
                self.block = block?;
                self.position = 0;
            }
        }
        Ok(&self.block[self.position..])
    }

    fn consume(&mut self, amount: usize) {
        self.position = (self.position + amount).min(self.block.len());
    }
}

/// A writer that compresses into `W` (or passes through); [`finish`](Self::finish) writes the
/// end of the stream.
pub(crate) enum Encoder<W: Write> {
    Plain(W),
    Gzip(flate2::write::GzEncoder<W>),
    Bzip2(bzip2::write::BzEncoder<W>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> Encoder<W> {
    /// Compresses into `inner` with `compression`, at each format's default level.
    pub(crate) fn new(inner: W, compression: Option<Compression>) -> io::Result<Self> {
        Ok(match compression {
            None => Self::Plain(inner),
            Some(Compression::Gzip) => Self::Gzip(flate2::write::GzEncoder::new(
                inner,
                flate2::Compression::default(),
            )),
            Some(Compression::Bzip2) => Self::Bzip2(bzip2::write::BzEncoder::new(
                inner,
                bzip2::Compression::default(),
            )),
            Some(Compression::Zstd) => Self::Zstd(zstd::stream::write::Encoder::new(inner, 0)?),
        })
    }

    /// Ends the compressed stream and gives the writer back.
    pub(crate) fn finish(self) -> io::Result<W> {
        match self {
            Self::Plain(inner) => Ok(inner),
            Self::Gzip(encoder) => encoder.finish(),
            Self::Bzip2(encoder) => encoder.finish(),
            Self::Zstd(encoder) => encoder.finish(),
        }
    }

    fn inner(&mut self) -> &mut dyn Write {
        match self {
            Self::Plain(inner) => inner,
            Self::Gzip(encoder) => encoder,
            Self::Bzip2(encoder) => encoder,
            Self::Zstd(encoder) => encoder,
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner().flush()
    }
}
