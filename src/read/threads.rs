//! The threads the pipelines run their workers on.

use std::io;
use std::thread::{Scope, ScopedJoinHandle};

/// The stack of a worker thread: RDF 1.2 triple terms nest, and the terms built from them are
/// dropped and formatted recursively; a thread's default 2 MB stack would end a run on 100 000
/// levels. The memory is only reserved, not used, until needed.
pub const WORKER_STACK: usize = 1 << 28;

/// Spawns a scoped worker thread with [`WORKER_STACK`].
pub(crate) fn spawn_worker<'scope, T: Send + 'scope>(
    scope: &'scope Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> io::Result<ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn_scoped(scope, work)
}
