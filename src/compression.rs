//! Compressed dumps (feature `compression`): gzip, bzip2 and zstd, told by the name's last
//! extension (`.gz`, `.bz2`, `.zst`) or, when the name says nothing (stdin, `dump.nt`), by the
//! first bytes. Concatenated members and frames (`pigz`, `pbzip2`, `zstd -T0`) are read as one
//! stream.
//!
//! Inputs are decompressed on a thread of their own, which hands the reader blocks through a
//! channel: the rewriter's threads keep rewriting while the next blocks are decompressed.
//!
//! ```
//! use pidcanon::compression::{Compression, Encoder, decompress};
//! use std::io::{Read, Write};
//!
//! let mut encoder = Encoder::new(Vec::new(), Some(Compression::Zstd))?;
//! encoder.write_all(b"<http://e/s> <http://e/p> <http://e/o> .\n")?;
//! let compressed = encoder.finish()?;
//! assert_eq!(Compression::from_magic(&compressed), Some(Compression::Zstd));
//!
//! let mut text = String::new();
//! decompress(std::io::Cursor::new(compressed), Compression::Zstd)?.read_to_string(&mut text)?;
//! assert_eq!(text, "<http://e/s> <http://e/p> <http://e/o> .\n");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// The size of the blocks the decompressing thread hands over.
const BLOCK: usize = 1 << 20;
/// How many blocks may wait in the channel.
const BLOCKS_AHEAD: usize = 4;

/// A compression format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), `.gz`; `pigz`'s concatenated members read as one stream.
    Gzip,
    /// bzip2, `.bz2`; `pbzip2`'s concatenated streams read as one.
    Bzip2,
    /// Zstandard (RFC 8878), `.zst`; `zstd -T0`'s frames read as one stream.
    Zstd,
}

impl Compression {
    /// The compression that `path`'s last extension names.
    pub fn from_extension(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "gz" | "gzip" => Some(Self::Gzip),
            "bz2" => Some(Self::Bzip2),
            "zst" | "zstd" => Some(Self::Zstd),
            _ => None,
        }
    }

    /// The compression whose magic number `start` begins with.
    pub fn from_magic(start: &[u8]) -> Option<Self> {
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
    pub const MAGIC_LEN: usize = 4;
}

/// `path` without its compression extension: `dump.nt.gz` → `dump.nt`.
pub fn without_compression_extension(path: &Path) -> &Path {
    match Compression::from_extension(path) {
        Some(_) => path.file_stem().map_or(path, Path::new),
        None => path,
    }
}

/// An input, decompressed when `path`'s last extension (if it has a path) or else its first bytes
/// say it is compressed: how every reader of a file or a stream opens it (the command line's
/// inputs, [`Rewriter::for_reader`](crate::rewrite::Rewriter::for_reader)).
///
/// ```
/// use pidcanon::compression::{Compression, Encoder, open};
/// use std::io::{Read, Write};
///
/// let mut encoder = Encoder::new(Vec::new(), Some(Compression::Gzip))?;
/// encoder.write_all(b"<http://e/s> <http://e/p> <http://e/o> .\n")?;
/// let compressed = encoder.finish()?;
/// for input in [compressed, b"plain\n".to_vec()] {
///     let mut text = String::new();
///     open(std::io::Cursor::new(input), None)?.read_to_string(&mut text)?;
///     assert!(text == "plain\n" || text.starts_with("<http://e/s>"));
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn open(
    mut input: impl Read + Send + 'static,
    path: Option<&Path>,
) -> io::Result<Box<dyn BufRead + Send>> {
    let mut start = Vec::with_capacity(Compression::MAGIC_LEN);
    (&mut input)
        .take(Compression::MAGIC_LEN as u64)
        .read_to_end(&mut start)?;
    let compression = path
        .and_then(Compression::from_extension)
        .or_else(|| Compression::from_magic(&start));
    let input = io::BufReader::with_capacity(1 << 16, io::Cursor::new(start).chain(input));
    Ok(match compression {
        None => Box::new(input),
        Some(compression) => Box::new(decompress(input, compression)?),
    })
}

/// `compressed`, decompressed on a thread of its own.
pub fn decompress(
    compressed: impl BufRead + Send + 'static,
    compression: Compression,
) -> io::Result<Decompressed> {
    let decoder: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(compressed)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(compressed)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(compressed)?),
    };
    let (sender, receiver) = sync_channel(BLOCKS_AHEAD);
    std::thread::Builder::new()
        .name("decompress".into())
        .spawn(move || send_blocks(decoder, &sender))?;
    Ok(Decompressed {
        receiver,
        block: Vec::new(),
        position: 0,
    })
}

/// Reads `decoder` to the end in blocks, sending each (or the error that stopped it); stops early
/// when the reader has gone.
fn send_blocks(mut decoder: impl Read, sender: &SyncSender<io::Result<Vec<u8>>>) {
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
                let _ = sender.send(Err(e));
                return;
            }
        }
    }
}

/// The decompressed stream, as the decompressing thread hands it over.
pub struct Decompressed {
    receiver: Receiver<io::Result<Vec<u8>>>,
    block: Vec<u8>,
    position: usize,
}

impl Read for Decompressed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::buffered::read_from_buffer(self, buf)
    }
}

impl BufRead for Decompressed {
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
pub struct Encoder<W: Write>(Compressor<W>);

enum Compressor<W: Write> {
    Plain(W),
    Gzip(flate2::write::GzEncoder<W>),
    Bzip2(bzip2::write::BzEncoder<W>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> Encoder<W> {
    /// Compresses into `inner` with `compression`, at each format's default level.
    pub fn new(inner: W, compression: Option<Compression>) -> io::Result<Self> {
        Ok(Self(match compression {
            None => Compressor::Plain(inner),
            Some(Compression::Gzip) => Compressor::Gzip(flate2::write::GzEncoder::new(
                inner,
                flate2::Compression::default(),
            )),
            Some(Compression::Bzip2) => Compressor::Bzip2(bzip2::write::BzEncoder::new(
                inner,
                bzip2::Compression::default(),
            )),
            Some(Compression::Zstd) => {
                Compressor::Zstd(zstd::stream::write::Encoder::new(inner, 0)?)
            }
        }))
    }

    /// Ends the compressed stream and gives the writer back.
    pub fn finish(self) -> io::Result<W> {
        match self.0 {
            Compressor::Plain(inner) => Ok(inner),
            Compressor::Gzip(encoder) => encoder.finish(),
            Compressor::Bzip2(encoder) => encoder.finish(),
            Compressor::Zstd(encoder) => encoder.finish(),
        }
    }

    fn inner(&mut self) -> &mut dyn Write {
        match &mut self.0 {
            Compressor::Plain(inner) => inner,
            Compressor::Gzip(encoder) => encoder,
            Compressor::Bzip2(encoder) => encoder,
            Compressor::Zstd(encoder) => encoder,
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
