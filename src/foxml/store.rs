//! A Fedora 3 `objectStore`: nested hashed folders of FOXML files, walked in a stable order and
//! read on several threads with the results handed on in that order, in constant memory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// The files under a directory, depth first, each directory's entries sorted by name: the same
/// order on every run and every file system. Memory holds one listing per open directory.
///
/// The directory is walked as `find` walks it without `-L`: a symbolic link inside it is not
/// followed (so the walk stays inside the directory, meets each file once and ends, whatever
/// the links), nor read; neither is an entry that is neither a file nor a directory (a FIFO
/// would block the reading). Each such entry comes, in its place, as an error holding a
/// [`NotFollowed`] that names it. `root` itself may be a link.
///
/// ```
/// use pidcanon::foxml::ObjectStore;
/// let dir = std::env::temp_dir().join("pidcanon-doc-store");
/// std::fs::create_dir_all(dir.join("b7/2a"))?;
/// std::fs::write(dir.join("b7/2a/info%3Afedora%2Fdemo%3A2"), "")?;
/// std::fs::write(dir.join("b7/info%3Afedora%2Fdemo%3A1"), "")?;
/// let files: Vec<_> = ObjectStore::new(&dir).collect::<Result<_, _>>()?;
/// assert_eq!(files, [dir.join("b7/2a/info%3Afedora%2Fdemo%3A2"), dir.join("b7/info%3Afedora%2Fdemo%3A1")]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct ObjectStore {
    /// Per open directory, its entries not yet visited, last first.
    pending: Vec<Vec<Entry>>,
}

/// An entry of an object store that the walk does not follow or read: a symbolic link, or
/// something that is neither a file nor a directory. [`ObjectStore`] yields it as an
/// [`io::Error`] holding this (`error.get_ref()` and `downcast_ref`), in its place in the walk.
///
/// ```
/// # #[cfg(unix)] {
/// use pidcanon::foxml::{NotFollowed, ObjectStore};
/// let dir = std::env::temp_dir().join("pidcanon-doc-store-link");
/// std::fs::create_dir_all(&dir)?;
/// let _ = std::fs::remove_file(dir.join("up"));
/// std::os::unix::fs::symlink("..", dir.join("up"))?;
/// let error = ObjectStore::new(&dir).next().unwrap().unwrap_err();
/// let link = error.get_ref().and_then(|e| e.downcast_ref::<NotFollowed>()).unwrap();
/// assert_eq!(link.path, dir.join("up"));
/// # std::fs::remove_dir_all(&dir)?;
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{}: {}, not followed (an object store is walked as `find` walks it, without -L)", path.display(), what)]
pub struct NotFollowed {
    /// The entry.
    pub path: PathBuf,
    /// What it is: `a symbolic link`, or `neither a file nor a directory`.
    pub what: &'static str,
}

/// What an entry is, as the directory listing says (for the root, which may be a link, as
/// `stat` says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Directory,
    File,
    Link,
    Other,
    /// The root: looked at with `stat`, following a link.
    Root,
}

/// A path to visit and what it is.
#[derive(Debug)]
struct Entry {
    path: PathBuf,
    kind: Kind,
}

impl ObjectStore {
    /// The files under `root` (or `root` itself if it is a file).
    #[must_use]
    pub fn new(root: &Path) -> Self {
        let root = Entry {
            path: root.to_owned(),
            kind: Kind::Root,
        };
        Self {
            pending: vec![vec![root]],
        }
    }

    fn listing(dir: &Path) -> io::Result<Vec<Entry>> {
        let mut entries = fs::read_dir(dir)?
            .map(|entry| {
                let entry = entry?;
                // The kind the directory listing gives, without a `stat` per file (and
                // without following a link: `lstat` where the listing does not say).
                let kind = entry.file_type()?;
                let kind = if kind.is_symlink() {
                    Kind::Link
                } else if kind.is_dir() {
                    Kind::Directory
                } else if kind.is_file() {
                    Kind::File
                } else {
                    Kind::Other
                };
                Ok(Entry {
                    path: entry.path(),
                    kind,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        entries.sort_unstable_by(|a, b| b.path.cmp(&a.path));
        Ok(entries)
    }
}

impl Iterator for ObjectStore {
    type Item = io::Result<PathBuf>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let listing = self.pending.last_mut()?;
            let Some(Entry { path, kind }) = listing.pop() else {
                self.pending.pop();
                continue;
            };
            let kind = match kind {
                Kind::Root => match fs::metadata(&path) {
                    Ok(metadata) if metadata.is_dir() => Kind::Directory,
                    Ok(_) => Kind::File,
                    Err(e) => return Some(Err(with_path(&path, e))),
                },
                other => other,
            };
            let what = match kind {
                Kind::Directory => match Self::listing(&path) {
                    Ok(entries) => {
                        self.pending.push(entries);
                        continue;
                    }
                    Err(e) => return Some(Err(with_path(&path, e))),
                },
                Kind::File | Kind::Root => return Some(Ok(path)),
                Kind::Link => "a symbolic link",
                Kind::Other => "neither a file nor a directory",
            };
            let error = NotFollowed { path, what };
            return Some(Err(io::Error::other(error)));
        }
    }
}

/// The PIDs of the objects of a store read so far, to find two objects with the same PID
/// (Fedora would hold only one of them). Memory holds 16 bytes per object: a 64-bit hash of
/// the PID and the object's number, not the PID; two PIDs with the same hash (for ten million
/// objects, a chance of 3 in a million) would be taken as the same, so a caller that reports a
/// duplicate can check the first object's PID again.
///
/// ```
/// use pidcanon::foxml::PidIndex;
/// let mut index = PidIndex::default();
/// assert_eq!(index.insert("demo:1", 0), None);
/// assert_eq!(index.insert("demo:2", 1), None);
/// assert_eq!(index.insert("demo:1", 2), Some(0));
/// ```
#[derive(Debug, Default)]
pub struct PidIndex {
    /// (hash of a PID, number of the first object with it).
    seen: hashbrown::HashTable<(u64, u64)>,
}

impl PidIndex {
    /// Records that object `number` has `pid`; gives the number of the first object recorded
    /// with the same PID, if there was one (that one stays the first).
    pub fn insert(&mut self, pid: &str, number: u64) -> Option<u64> {
        let hash = xxhash_rust::xxh3::xxh3_64(pid.as_bytes());
        match self.seen.entry(hash, |&(h, _)| h == hash, |&(h, _)| h) {
            hashbrown::hash_table::Entry::Occupied(first) => Some(first.get().1),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert((hash, number));
                None
            }
        }
    }

    /// How many different PIDs were recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no PID was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Results a worker holds at most before the caller takes them.
const QUEUE: usize = 4;

/// How many files go to a worker at once.
const BATCH: usize = 32;

/// Calls `read` on every file of `files` on `threads` threads, and `each` with the results in
/// the files' order (a file that could not be listed comes as an error). Memory holds a few
/// results per thread. Stops at the first error `each` returns.
///
/// ```
/// use pidcanon::foxml::read_objects;
/// use std::path::PathBuf;
/// let files = (0..100).map(|i| Ok(PathBuf::from(format!("{i}"))));
/// let mut seen = Vec::new();
/// read_objects(files, 2, |path| path.to_string_lossy().len(), |_, len| {
///     seen.push(len?);
///     Ok::<(), std::io::Error>(())
/// })?;
/// assert_eq!(seen.len(), 100);
/// assert_eq!(seen[99], 2);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_objects<T: Send, E>(
    files: impl Iterator<Item = io::Result<PathBuf>> + Send,
    threads: usize,
    read: impl Fn(&Path) -> T + Sync,
    mut each: impl FnMut(&Path, io::Result<T>) -> Result<(), E>,
) -> Result<(), E> {
    if threads <= 1 {
        for file in files {
            match file {
                Ok(path) => {
                    let result = read(&path);
                    each(&path, Ok(result))?;
                }
                Err(e) => each(Path::new(""), Err(e))?,
            }
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        // Files go to the workers in batches (a hand-off per file costs more than a small
        // object's work), batch i to worker i % threads, whose results come back in order:
        // taking them round-robin restores the files' order with no reordering buffer.
        type Results<T> = Vec<(PathBuf, io::Result<T>)>;
        let mut inputs: Vec<SyncSender<Vec<io::Result<PathBuf>>>> = Vec::new();
        let mut outputs: Vec<Receiver<Results<T>>> = Vec::new();
        for _ in 0..threads {
            let (input, work) = sync_channel::<Vec<io::Result<PathBuf>>>(QUEUE);
            let (done, output) = sync_channel(QUEUE);
            let read = &read;
            scope.spawn(move || {
                for batch in work {
                    let results: Results<T> = batch
                        .into_iter()
                        .map(|file| match file {
                            Ok(path) => {
                                let result = read(&path);
                                (path, Ok(result))
                            }
                            Err(e) => (PathBuf::new(), Err(e)),
                        })
                        .collect();
                    if done.send(results).is_err() {
                        return;
                    }
                }
            });
            inputs.push(input);
            outputs.push(output);
        }
        scope.spawn(move || {
            let mut files = files.peekable();
            for i in 0.. {
                if files.peek().is_none() {
                    return;
                }
                let batch: Vec<_> = files.by_ref().take(BATCH).collect();
                if inputs[i % inputs.len()].send(batch).is_err() {
                    return;
                }
            }
        });
        for i in 0.. {
            let Ok(results) = outputs[i % outputs.len()].recv() else {
                return Ok(());
            };
            for (path, result) in results {
                each(&path, result)?;
            }
        }
        Ok(())
    })
}
