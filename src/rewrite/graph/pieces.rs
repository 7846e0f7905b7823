//! Turtle canonicalized on the threads that parse it ([`PieceWork`]): each parsing thread has
//! a worker of its own, which canonicalizes a piece's statements as they are parsed and, to
//! N-Triples or N-Quads without `--dedup`, writes them as lines
//! ([`WrittenLines`](super::worker::WrittenLines)), so that only bytes travel on (TTL→NT on
//! two threads, `benches/compare.sh`: CPU time 1.57 → 1.33 of the pass-through's, peak RSS
//! 100 → 53 MB); otherwise the statements travel, and come back to be freed where they were
//! allocated ([`Home`]).

use super::worker::{GraphBatch, GraphWorker, mark_made_up};
use crate::read::{Declarations, PieceWork, Span};
use crate::rewrite::Rewriter;
use crate::rewrite::blank_nodes::DocumentScope;
use crate::rewrite::events::{Found, Needs};
use oxrdf::Quad;
use std::sync::mpsc::{self, Receiver, Sender};

/// A parsing thread's worker, and what it keeps from one piece to the next.
pub(crate) struct PieceCanonicalizer<'r> {
    worker: GraphWorker<'r>,
    home: Home,
    /// What was found in the piece so far.
    found: Found,
    /// Whether the declarations before the input's first statement were unknown at the
    /// piece's start (that statement may be in it).
    input_first: bool,
}

impl<'r> PieceCanonicalizer<'r> {
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs, document: DocumentScope) -> Self {
        Self {
            worker: GraphWorker::new(rewriter, needs, document),
            home: Home::new(),
            found: Found::default(),
            input_first: false,
        }
    }
}

impl PieceWork for PieceCanonicalizer<'_> {
    type Done = GraphBatch;

    fn start(&mut self, len: usize, first: Option<Declarations>) -> GraphBatch {
        let batch = if self.worker.writes_lines() {
            GraphBatch::of_lines(len * 2)
        } else {
            let mut batch = GraphBatch::default();
            batch.statements.quads = self.home.vector();
            batch.home = Some(self.home.sender.clone());
            batch
        };
        self.input_first = first.is_none();
        self.worker.start_piece(first.unwrap_or_default());
        self.found = Found::default();
        batch
    }

    fn statement(
        &mut self,
        batch: &mut GraphBatch,
        mut quad: Quad,
        span: Span<'_>,
        declarations: &dyn Fn() -> Declarations,
    ) {
        if batch.declarations.is_none() {
            // The piece's first statement.
            batch.declarations = Some(declarations());
            if self.input_first {
                // The input's first statement: IRIs are found with the declarations before it.
                self.worker.declare(declarations());
            }
        }
        mark_made_up(&mut quad, span.text);
        if !self.worker.map_statement(&mut quad, span, &mut self.found) {
            return;
        }
        match &mut batch.lines {
            Some(lines) => {
                self.worker.label_written(&mut quad);
                lines.write(&quad);
            }
            None => batch.statements.quads.push(quad),
        }
    }

    fn end(&mut self, batch: &mut GraphBatch, read: u64) -> bool {
        let found = std::mem::take(&mut self.found);
        self.worker.end_piece(batch, found, read);
        // Where an IRI is may depend on the piece before: then it is read again in order.
        !batch.premapped.as_ref().is_some_and(|p| p.guessed)
    }
}

/// Where the statements a parsing thread canonicalized come back once written: they are freed
/// on the thread that allocated them (freeing them on the writing thread kept the allocator's
/// pages of both threads from being reused).
struct Home {
    sender: Sender<Vec<Quad>>,
    returned: Receiver<Vec<Quad>>,
}

impl Home {
    fn new() -> Self {
        let (sender, returned) = mpsc::channel();
        Self { sender, returned }
    }

    /// A vector for the next piece's statements: the last one back, emptied here.
    fn vector(&mut self) -> Vec<Quad> {
        let mut vector = Vec::new();
        for mut back in self.returned.try_iter() {
            back.clear();
            vector = back;
        }
        vector
    }
}
