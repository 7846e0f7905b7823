//! Input cut into chunks of whole lines, so that chunks can be rewritten on several threads and
//! put back in order.

use std::io::{self, BufRead};

/// The size a chunk is read to before it is completed to the end of its last line: small
/// enough that a chunk and its output stay in the processor's cache while they are rewritten
/// and written, large enough that handing chunks to threads costs nothing.
pub(crate) const CHUNK: usize = 1 << 18;

/// Reads the next chunk of whole lines into `chunk`; returns its length (0 at the end). Copies
/// from the reader's buffer, without zeroing `chunk` first.
pub(crate) fn read_chunk(input: &mut impl BufRead, chunk: &mut Vec<u8>) -> io::Result<usize> {
    chunk.clear();
    while chunk.len() < CHUNK {
        let available = match input.fill_buf() {
            Ok([]) => return Ok(chunk.len()),
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let taken = available.len().min(CHUNK - chunk.len());
        chunk.extend_from_slice(&available[..taken]);
        input.consume(taken);
    }
    if !chunk.ends_with(b"\n") {
        input.read_until(b'\n', chunk)?;
    }
    Ok(chunk.len())
}
