//! `Read` for readers whose `BufRead` side does the work.

use std::io::{self, BufRead};

/// `Read::read` by way of `fill_buf` and `consume`: for a type that implements `BufRead` over
/// its own buffer and needs `Read` too (which `BufRead` requires).
pub(crate) fn read_from_buffer<R: BufRead + ?Sized>(
    reader: &mut R,
    buf: &mut [u8],
) -> io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(buf.len());
    buf[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::read_from_buffer;
    use std::io::{BufRead, Cursor};

    #[test]
    fn reads_what_the_buffer_holds_and_consumes_it() {
        let mut reader = Cursor::new(b"abc".to_vec());
        let mut buf = [0; 2];
        assert_eq!(read_from_buffer(&mut reader, &mut buf).unwrap(), 2);
        assert_eq!(&buf, b"ab");
        assert_eq!(reader.fill_buf().unwrap(), b"c");
        assert_eq!(read_from_buffer(&mut reader, &mut buf).unwrap(), 1);
        assert_eq!(read_from_buffer(&mut reader, &mut buf).unwrap(), 0);
    }
}
