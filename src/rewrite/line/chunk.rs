//! Input cut into chunks of whole lines, so that chunks can be rewritten on several threads and
//! put back in order.

use std::io::{self, BufRead, Read};

/// The size a chunk is read to before it is completed to the end of its last line.
pub(crate) const CHUNK: u64 = 1 << 22;

/// Reads the next chunk of whole lines into `chunk`; returns its length (0 at the end).
pub(crate) fn read_chunk(input: &mut impl BufRead, chunk: &mut Vec<u8>) -> io::Result<usize> {
    chunk.clear();
    input.by_ref().take(CHUNK).read_to_end(chunk)?;
    if !chunk.is_empty() && !chunk.ends_with(b"\n") {
        input.read_until(b'\n', chunk)?;
    }
    Ok(chunk.len())
}

/// Reads as many chunks as there are buffers (fewer at the end); returns how many.
pub(crate) fn fill(input: &mut impl BufRead, buffers: &mut [Vec<u8>]) -> io::Result<usize> {
    for (filled, buffer) in buffers.iter_mut().enumerate() {
        if read_chunk(input, buffer)? == 0 {
            return Ok(filled);
        }
    }
    Ok(buffers.len())
}
