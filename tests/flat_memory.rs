//! Streaming a document takes the same memory whatever its length: the peak of live heap bytes,
//! measured with a counting allocator (`allocation-counter`, this thread's allocations), is the
//! same for a document four times as long — on the one-thread Turtle path, where the labels of
//! blank nodes made up for `[]` and collections are remembered, and on the N-Triples path.

use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::Rewriter;
use std::io::{self, BufReader, Read};

/// A generated document of `blocks` blocks, made as it is read (the input itself takes no
/// memory). Numbers are zero-padded: every block's IRIs are as long as the first's.
struct Generated {
    block: fn(usize) -> String,
    blocks: usize,
    next: usize,
    text: Vec<u8>,
    at: usize,
}

impl Generated {
    fn new(blocks: usize, block: fn(usize) -> String) -> Self {
        Self {
            block,
            blocks,
            next: 0,
            text: Vec::new(),
            at: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.text.len() {
            if self.next == self.blocks {
                return Ok(0);
            }
            self.text = (self.block)(self.next).into_bytes();
            self.at = 0;
            self.next += 1;
        }
        let n = buf.len().min(self.text.len() - self.at);
        buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Turtle with two made-up blank nodes per block (a `[]` and a one-element collection) and
/// identifiers to canonicalize.
fn turtle_block(i: usize) -> String {
    format!(
        "<info:fedora/demo%3a{i:07}> <http://schema.org/author> [ <http://xmlns.com/foaf/0.1/name> \"n{i:07}\" ] ;\n    \
         <http://example.org/list> ( <http://dx.doi.org/10.1000/ABC{i:07}> ) .\n"
    )
}

fn ntriples_block(i: usize) -> String {
    format!(
        "<info:fedora/demo%3a{i:07}> <http://purl.org/dc/terms/relation> <hdl://10013/X{i:07}> .\n\
         _:b{i:07} <http://example.org/q> \"caf\\u00E9 {i:07}\"@en .\n"
    )
}

/// The peak of live heap bytes while rewriting `blocks` blocks on one thread.
fn peak_bytes(format: RdfFormat, blocks: usize, block: fn(usize) -> String) -> u64 {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(format)
        .with_output_format(RdfFormat::NTriples)
        .with_threads(1);
    let info = allocation_counter::measure(|| {
        let mut session = rewriter.session(io::sink());
        let input = BufReader::new(Generated::new(blocks, block));
        session.rewrite(input).expect("rewrites");
        let report = session.finish().expect("finishes");
        assert!(report.rewritten_total() >= blocks as u64);
    });
    info.bytes_max
}

/// Asserts that four times as many blocks take no more memory at their peak than `blocks` (up to
/// 64 KiB: buffers that grow with the longest line or statement seen).
fn assert_flat(format: RdfFormat, blocks: usize, block: fn(usize) -> String) {
    let short = peak_bytes(format, blocks, block);
    let long = peak_bytes(format, 4 * blocks, block);
    eprintln!(
        "{format}: peak {short} bytes for {blocks} blocks, {long} for {}",
        4 * blocks
    );
    assert!(
        long <= short + (64 << 10),
        "{format}: peak of {short} bytes for {blocks} blocks, {long} for four times as many"
    );
}

#[test]
fn turtle_memory_is_flat_on_one_thread() {
    // 100 000 made-up blank nodes: more than the labels remembered (`BlankNodeLabels`).
    assert_flat(RdfFormat::Turtle, 50_000, turtle_block);
}

#[test]
fn ntriples_memory_is_flat_on_one_thread() {
    assert_flat(RdfFormat::NTriples, 50_000, ntriples_block);
}
