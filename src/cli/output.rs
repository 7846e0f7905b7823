//! Where the graph commands write, as a shell redirection would: a regular file (or a path that
//! does not exist yet) is written through a temporary file renamed over it at the end, so a
//! failed run never leaves a partial file; a symlink is followed and its *target* replaced (the
//! link stays); anything else — a FIFO, a terminal, `/dev/null`, `/dev/stdout`, `/dev/fd/63` from
//! `>(…)` — is written straight into.
//!
//! The temporary file is removed if the run fails or is interrupted ([`super::temporary`]).
//!
//! A new file gets the mode a redirection would give it (0666 less the umask: 0644 under 022); a
//! replaced file keeps its mode (and, when run as root, its owner).
//!
//! ```text
//! -o out.nt          .out.nt.pidcanon-XXXXXX.tmp beside out.nt, renamed over it
//! -o link.nt         link.nt -> data/real.nt: .real.nt.pidcanon-XXXXXX.tmp in data/, renamed
//!                    over data/real.nt
//! --map /dev/stdout  written straight into whatever stdout is
//! ```

use super::named::{Named, STDOUT, with_name};
use super::temporary::Temporary;
use pidcanon::compression::{Compression, Encoder};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mode a new file is created with, before the umask (as `open(2)` from a shell does).
const NEW_FILE_MODE: u32 = 0o666;

/// `EBADF`, `O_ACCMODE` and `O_RDWR` on Linux.
const EBADF: i32 = 9;
const O_ACCMODE: u32 = 0o3;
const O_RDWR: u32 = 0o2;

/// How many symlinks [`follow_links`] follows before giving up, as the kernel does (`ELOOP`).
const MAX_LINKS: usize = 40;

/// An output of a command: stdout or a file, written to the end and then committed.
pub(crate) struct Destination {
    name: String,
    target: Target,
    /// From the name's extension: `-o out.nt.gz` is compressed with gzip.
    compression: Option<Compression>,
}

enum Target {
    Stdout,
    /// Not a regular file: written in place.
    Straight(File),
    /// A regular file or a new one: a temporary file renamed over `path` on commit.
    Replace {
        temp: Temporary,
        path: PathBuf,
    },
}

/// What a [`Destination`] is written through; it names the destination in its errors.
pub(crate) type Writer = Named<Encoder<Box<dyn Write>>>;

impl Destination {
    /// Stdout, or the file at `path` (`-` is stdout).
    pub(crate) fn open(path: Option<&Path>) -> io::Result<Self> {
        let Some(path) = path.filter(|p| *p != Path::new("-")) else {
            writable_stdout()?;
            return Ok(Self {
                name: STDOUT.into(),
                target: Target::Stdout,
                compression: None,
            });
        };
        let name = path.display().to_string();
        let target = open_target(path).map_err(|e| with_name(&name, e))?;
        Ok(Self {
            name,
            target,
            compression: Compression::from_extension(path),
        })
    }

    /// A writer into the destination.
    pub(crate) fn writer(&self) -> io::Result<Writer> {
        let inner: Box<dyn Write> = match &self.target {
            Target::Stdout => Box::new(io::stdout().lock()),
            Target::Straight(file) => Box::new(file.try_clone()?),
            Target::Replace { temp, .. } => Box::new(temp.as_file().try_clone()?),
        };
        let encoder =
            Encoder::new(inner, self.compression).map_err(|e| with_name(&self.name, e))?;
        Ok(Named::new(encoder, self.name.clone()))
    }

    /// Ends `writer`'s compressed stream, flushes it and, for a replaced file, renames the
    /// temporary file over it.
    pub(crate) fn commit(self, writer: Writer) -> io::Result<()> {
        let named = |e| with_name(&self.name, e);
        writer
            .into_inner()
            .finish()
            .and_then(|mut inner| inner.flush())
            .map_err(named)?;
        match self.target {
            Target::Stdout | Target::Straight(_) => Ok(()),
            Target::Replace { temp, path } => {
                temp.as_file().sync_all().map_err(named)?;
                temp.persist(&path).map_err(named)
            }
        }
    }
}

/// Opens what a redirection to `path` would write into.
fn open_target(path: &Path) -> io::Result<Target> {
    let path = follow_links(path)?;
    match fs::metadata(&path) {
        Ok(metadata) if !metadata.is_file() || is_system_path(&path) => Ok(Target::Straight(
            File::options().write(true).truncate(true).open(&path)?,
        )),
        existing => {
            let dir = match path.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => Path::new("."),
            };
            let temp = temp_file_like(dir, &path, existing.ok().as_ref())?;
            Ok(Target::Replace { temp, path })
        }
    }
}

/// A temporary file in `dir` that will replace `target`, with `existing`'s mode and owner (as
/// far as we may give it), or a new file: read and write for all, less the umask — as a shell
/// redirection would leave them.
fn temp_file_like(
    dir: &Path,
    target: &Path,
    existing: Option<&fs::Metadata>,
) -> io::Result<Temporary> {
    let Some(existing) = existing else {
        return Temporary::beside(dir, target, fs::Permissions::from_mode(NEW_FILE_MODE));
    };
    let temp = Temporary::beside(dir, target, existing.permissions())?;
    // Only root may give a file away; anyone else keeps it (as when they copy it).
    let _ = std::os::unix::fs::fchown(temp.as_file(), Some(existing.uid()), Some(existing.gid()));
    temp.as_file().set_permissions(existing.permissions())?;
    Ok(temp)
}

/// `path` with the symlinks of its last component followed: the file a write to `path` reaches,
/// whether it exists or not (a dangling link names the file a redirection would create).
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if is_system_path(&path) {
            return Ok(path);
        }
        match fs::read_link(&path) {
            Ok(target) => {
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Whether `path` is under `/dev` or `/proc`: devices and the kernel's names for open file
/// descriptors (`/dev/stdout`, `/dev/fd/63`, `/proc/self/fd/1`), whose file is one the caller
/// already has open (a shell's stdout, `>(…)`): written into, never replaced.
fn is_system_path(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc")
}

/// Fails (`Bad file descriptor`) if the command was started with stdout closed.
pub(crate) fn writable_stdout() -> io::Result<()> {
    if stdout_was_closed() {
        return Err(with_name(STDOUT, io::Error::from_raw_os_error(EBADF)));
    }
    Ok(())
}

/// Whether the command was started with stdout closed (`pidcanon rewrite f.nt >&-`). Rust's
/// runtime then opens `/dev/null` on it, read-write, and everything written would vanish; a
/// shell's `>/dev/null` opens it write-only. Told from `/proc` (Linux); elsewhere, never.
fn stdout_was_closed() -> bool {
    if fs::read_link("/proc/self/fd/1").ok().as_deref() != Some(Path::new("/dev/null")) {
        return false;
    }
    let Ok(info) = fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    info.lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
        .is_some_and(|flags| flags & O_ACCMODE == O_RDWR)
}

/// Refuses two outputs that name one file (`-o x.nt --links x.nt`, a hard link, a symlink to the
/// other): one would overwrite the other. `outputs` are `(flag, path)`; stdout (`-`), devices and
/// FIFOs may be shared.
pub(crate) fn refuse_shared_files(outputs: &[(&str, &Path)]) -> Result<(), String> {
    let identities: Vec<Option<FileIdentity>> = outputs
        .iter()
        .map(|(_, path)| FileIdentity::of(path))
        .collect();
    for (i, identity) in identities.iter().enumerate() {
        let Some(identity) = identity else { continue };
        if let Some(j) = identities[..i]
            .iter()
            .position(|o| o.as_ref() == Some(identity))
        {
            let ((first, first_path), (second, second_path)) = (outputs[j], outputs[i]);
            return Err(format!(
                "{first} {} and {second} {} are the same file: one would overwrite the other",
                first_path.display(),
                second_path.display()
            ));
        }
    }
    Ok(())
}

/// The regular file an output path writes to: its device and inode when it exists, else the
/// absolute path it will be created at.
#[derive(PartialEq, Eq)]
enum FileIdentity {
    Existing { device: u64, inode: u64 },
    New(PathBuf),
}

impl FileIdentity {
    /// `None` for stdout and anything that is not a regular file.
    fn of(path: &Path) -> Option<Self> {
        if path == Path::new("-") {
            return None;
        }
        let path = follow_links(path).ok()?;
        match fs::metadata(&path) {
            Ok(metadata) if metadata.is_file() && !is_system_path(&path) => Some(Self::Existing {
                device: metadata.dev(),
                inode: metadata.ino(),
            }),
            Ok(_) => None,
            Err(_) => {
                let dir = match path.parent() {
                    Some(dir) if !dir.as_os_str().is_empty() => dir,
                    _ => Path::new("."),
                };
                let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
                Some(Self::New(dir.join(path.file_name()?)))
            }
        }
    }
}
