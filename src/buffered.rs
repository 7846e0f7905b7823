//! `Read` for readers whose `BufRead` side does the work.

use std::io::{self, BufRead};

/// `Read::read` by way of `fill_buf` and `consume`: for a type that implements `BufRead` over
/// its own buffer and needs `Read` too (which `BufRead` requires).
///
/// ```
/// use std::io::{BufRead, Cursor};
///
/// let mut reader = Cursor::new(b"abc".to_vec());
/// let mut buf = [0; 2];
/// assert_eq!(pidcanon::buffered::read_from_buffer(&mut reader, &mut buf).unwrap(), 2);
/// assert_eq!(&buf, b"ab");
/// assert_eq!(reader.fill_buf().unwrap(), b"c");
/// ```
pub fn read_from_buffer<R: BufRead + ?Sized>(reader: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(buf.len());
    buf[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}
