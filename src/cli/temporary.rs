//! The temporary files the commands make, named for what they are and removed when a run is
//! interrupted.
//!
//! ```text
//! .data.nt.pidcanon-Xr4k2Q.tmp   beside data.nt, renamed over it when the rewrite ends
//! pidcanon-stdin-Xr4k2Q.tmp      in $TMPDIR: stdin copied for --collapse's two passes
//! ```
//!
//! Each is registered while it exists. On SIGINT, SIGTERM or SIGHUP a thread removes every
//! registered file, then ends the process as the signal would have (a shell sees 130, 143, 129).
//! A file is created and renamed into place under the same lock, so an interruption either
//! removes it or finds it already renamed.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tempfile::NamedTempFile;

/// The temporary files that exist now.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The longest part of a target's name kept in its temporary file's name: with the rest of the
/// name (`.`, `.pidcanon-`, six random characters, `.tmp`), it stays under `NAME_MAX` (255).
const NAME_KEPT: usize = 200;

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts the thread that removes the temporary files when the process is told to stop.
pub(crate) fn remove_on_signals() -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held to the end: nothing is created or renamed after this.
                let pending = pending();
                for path in pending.iter() {
                    let _ = fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// A temporary file, removed when dropped or when the run is interrupted, unless it was
/// [persisted](Self::persist).
pub(crate) struct Temporary {
    file: NamedTempFile,
    registered: Registered,
}

impl Temporary {
    /// A new temporary file in `dir` that will replace `target`: `.TARGET.pidcanon-XXXXXX.tmp`,
    /// created with `permissions` (less the umask).
    pub(crate) fn beside(
        dir: &Path,
        target: &Path,
        permissions: fs::Permissions,
    ) -> io::Result<Self> {
        let name = target.file_name().map_or(&[][..], OsStrExt::as_bytes);
        let mut prefix = b".".to_vec();
        prefix.extend_from_slice(&name[..name.len().min(NAME_KEPT)]);
        prefix.extend_from_slice(b".pidcanon-");
        Self::create(dir, &OsString::from_vec(prefix), Some(permissions))
    }

    /// A new temporary file in the system's temporary directory: `pidcanon-WHAT-XXXXXX.tmp`.
    pub(crate) fn for_what(what: &str) -> io::Result<Self> {
        Self::create(
            &std::env::temp_dir(),
            &OsString::from(format!("pidcanon-{what}-")),
            None,
        )
    }

    fn create(
        dir: &Path,
        prefix: &OsString,
        permissions: Option<fs::Permissions>,
    ) -> io::Result<Self> {
        let mut pending = pending();
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix).suffix(".tmp");
        if let Some(permissions) = permissions {
            builder.permissions(permissions);
        }
        let file = builder.tempfile_in(dir).map_err(without_temporary_name)?;
        pending.push(file.path().to_owned());
        let registered = Registered(Some(file.path().to_owned()));
        Ok(Self { file, registered })
    }

    pub(crate) fn as_file(&self) -> &fs::File {
        self.file.as_file()
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// Renames the file over `target`; it is no longer removed.
    pub(crate) fn persist(self, target: &Path) -> io::Result<()> {
        let Self { file, registered } = self;
        let mut pending = pending();
        let result = file.persist(target).map(drop).map_err(|e| e.error);
        registered.release(&mut pending);
        result
    }
}

/// A path in [`PENDING`], taken out when dropped.
struct Registered(Option<PathBuf>);

impl Registered {
    fn release(mut self, pending: &mut Vec<PathBuf>) {
        if let Some(path) = self.0.take() {
            pending.retain(|p| *p != path);
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            pending().retain(|p| *p != path);
        }
    }
}

/// A failure to create a temporary file, without the temporary file's name (which tempfile
/// adds, as ` at path "…"` after the system's message, and which means nothing to the user):
/// the caller names the target.
fn without_temporary_name(error: io::Error) -> io::Error {
    let message = error.to_string();
    match message.rfind(" at path \"") {
        Some(end) => io::Error::new(error.kind(), &message[..end]),
        None => error,
    }
}
