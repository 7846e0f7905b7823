//! FOXML input for `pidcanon rewrite` / `check`: FOXML files and whole Fedora 3 `objectStore`
//! trees, read on several threads (one object per file), each object's statements handed on
//! (to the session, or to the first pass of `--collapse`) in the files' order.

use super::files::Input;
use super::named::with_name;
use indicatif::{ProgressBar, ProgressStyle};
use oxrdf::{GraphName, NamedNode, Quad};
use pidcanon::foxml::{
    FoxmlError, FoxmlObject, FoxmlOptions, NotFollowed, ObjectStore, PidIndex, looks_like_foxml,
    read_objects,
};
use pidcanon::rewrite::{Location, RewriteError};
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

/// How FOXML inputs are read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FoxmlRun {
    pub(crate) options: FoxmlOptions,
    /// Each object's statements in a graph named by the object's IRI (N-Quads and TriG output).
    pub(crate) named_graphs: bool,
    /// A file that is not FOXML, or is broken, is reported and skipped instead of failing.
    pub(crate) lenient: bool,
    pub(crate) threads: usize,
    pub(crate) quiet: bool,
}

/// Whether the inputs are FOXML: directories (object stores) and files whose root element is
/// `foxml:digitalObject`. Stdin is FOXML only with `-i foxml`. FOXML and RDF inputs together are
/// refused, naming one of each and `command`.
pub(crate) fn inputs_are_foxml(inputs: &[Input], command: &str) -> Result<bool, String> {
    let (foxml, rdf): (Vec<&Input>, Vec<&Input>) = inputs.iter().partition(|input| {
        input
            .path
            .as_deref()
            .is_some_and(|path| path.is_dir() || starts_like_foxml(path))
    });
    match (foxml.first(), rdf.first()) {
        (None, _) => Ok(false),
        (Some(_), None) => Ok(true),
        (Some(foxml), Some(rdf)) => {
            let what = match &foxml.path {
                Some(path) if path.is_dir() => "FOXML (a Fedora object store)",
                _ => "FOXML",
            };
            Err(format!(
                "{} is {what} and {} is RDF: {command} them separately",
                foxml.name, rdf.name
            ))
        }
    }
}

fn starts_like_foxml(path: &Path) -> bool {
    let mut prefix = Vec::with_capacity(1 << 12);
    File::open(path)
        .and_then(|file| file.take(1 << 12).read_to_end(&mut prefix))
        .is_ok_and(|_| looks_like_foxml(&prefix))
}

/// An object's statements with where each is in the file, and what its legacy RDF/XML earned.
struct Converted {
    quads: Vec<(Quad, Location)>,
    /// The bytes of FOXML read.
    bytes: u64,
    warnings: Vec<(Location, String)>,
    /// The object's PID, and where it is written.
    pid: String,
    pid_at: Location,
}

/// Why a FOXML input was not read.
pub(crate) struct Unreadable {
    /// Where in the file, when known.
    pub(crate) location: Option<Location>,
    pub(crate) message: String,
    /// Not a valid FOXML object (a syntax error), rather than not readable at all (an I/O
    /// error: a file or a directory that cannot be opened).
    pub(crate) syntax: bool,
}

impl Unreadable {
    /// A FOXML error; `bytes` (the file, when it was read whole) locate a malformed XML's
    /// byte offset as line:column.
    fn foxml(error: &FoxmlError, bytes: Option<&[u8]>) -> Self {
        let (location, message) = match (error, bytes) {
            (
                FoxmlError::Xml {
                    offset, message, ..
                },
                Some(bytes),
            ) => (
                Some(location_at(bytes, *offset)),
                format!("malformed XML: {message}"),
            ),
            _ => (None, error.to_string()),
        };
        Self {
            location,
            message,
            syntax: true,
        }
    }

    fn syntax(message: String) -> Self {
        Self {
            location: None,
            message,
            syntax: true,
        }
    }

    fn io(error: &io::Error) -> Self {
        Self {
            location: None,
            message: error.to_string(),
            syntax: false,
        }
    }
}

/// The line and column (1-based, in characters) of byte `offset` of `bytes`.
fn location_at(bytes: &[u8], offset: u64) -> Location {
    let before = &bytes[..usize::try_from(offset).map_or(bytes.len(), |o| o.min(bytes.len()))];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
    let column = before[line_start..]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count() as u64
        + 1;
    Location::new(line, column)
}

/// The statements of the FOXML object `bytes`.
fn convert(bytes: &[u8], run: &FoxmlRun) -> Result<Converted, Unreadable> {
    let object = FoxmlObject::parse(bytes).map_err(|e| Unreadable::foxml(&e, Some(bytes)))?;
    let graph = if run.named_graphs {
        let iri =
            NamedNode::new(object.iri()).map_err(|e| Unreadable::syntax(format!("PID: {e}")))?;
        GraphName::NamedNode(iri)
    } else {
        GraphName::DefaultGraph
    };
    let mut warnings = Vec::new();
    let quads = object
        .located_quads(run.options, &graph, &mut |datastream, at, warning| {
            warnings.push((at, format!("{datastream}: {warning}")));
        })
        .map_err(|e| Unreadable::foxml(&e, None))?;
    Ok(Converted {
        quads,
        bytes: bytes.len() as u64,
        warnings,
        pid: object.pid.clone(),
        pid_at: object.pid_at,
    })
}

fn convert_file(path: &Path, run: &FoxmlRun) -> Result<Converted, Unreadable> {
    let bytes = std::fs::read(path).map_err(|e| Unreadable::io(&e))?;
    convert(&bytes, run)
}

fn convert_stdin(run: &FoxmlRun) -> Result<Converted, Unreadable> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| Unreadable::io(&e))?;
    convert(&bytes, run)
}

/// Hands the statements of every FOXML input, one object at a time, to `rewrite`, and gives
/// the number of bytes of FOXML read. `on_object` hears each object's path before its
/// statements are handed on (for the diagnostics); under `--lenient`, `on_skip` hears each
/// file (or directory) that is skipped, with why: its name is empty for a directory that
/// could not be listed (the message names it).
pub(crate) fn feed(
    inputs: &[Input],
    run: &FoxmlRun,
    on_object: &dyn Fn(&str),
    on_skip: &mut dyn FnMut(&str, &Unreadable),
    rewrite: &mut dyn FnMut(Vec<(Quad, Location)>) -> Result<(), RewriteError>,
) -> Result<u64, RewriteError> {
    let mut bytes = 0;
    let mut take = |name: &str,
                    converted: Result<Converted, Unreadable>,
                    on_skip: &mut dyn FnMut(&str, &Unreadable)| {
        if let Ok(converted) = &converted {
            bytes += converted.bytes;
        }
        take(name, converted, run, on_skip, rewrite)
    };
    for input in inputs {
        on_object(&input.name);
        let Some(root) = &input.path else {
            take(&input.name, convert_stdin(run), on_skip)?;
            continue;
        };
        let bar = progress_bar(root, run.quiet);
        let files = ObjectStore::new(root);
        let mut objects = 0u64;
        // The number of the first file of each PID, to name it when another file has the same
        // PID (found again by walking the store: duplicates are rare).
        let mut pids = PidIndex::default();
        let mut files_walked = 0u64;
        read_objects(
            files,
            run.threads,
            |path| convert_file(path, run),
            |path, converted| {
                objects += 1;
                bar.inc(1);
                let name = path.display().to_string();
                match converted {
                    Ok(converted) => {
                        on_object(&name);
                        files_walked += 1;
                        if let Ok(object) = &converted
                            && let Some(first) = pids.insert(&object.pid, files_walked - 1)
                            && !run.quiet
                        {
                            let first = ObjectStore::new(root)
                                .filter_map(Result::ok)
                                .nth(usize::try_from(first).unwrap_or(usize::MAX))
                                .map_or_else(String::new, |p| p.display().to_string());
                            eprintln!(
                                "pidcanon: {name}:{}: warning: PID {} is the PID of {first} too: \
                                 the store holds two objects with one PID",
                                object.pid_at, object.pid
                            );
                        }
                        take(&name, converted, on_skip)
                    }
                    // A link or a special file, not followed (as `find` without -L): named as
                    // a file skipped (and listed by `check`), with or without `--lenient`, and
                    // the walk goes on.
                    Err(e) if e.get_ref().is_some_and(|inner| inner.is::<NotFollowed>()) => {
                        on_object(&input.name);
                        on_skip("", &Unreadable::io(&e));
                        Ok(())
                    }
                    // A path that could not be walked: the error names it, within the input.
                    Err(e) => {
                        on_object(&input.name);
                        take("", Err(Unreadable::io(&e)), on_skip)
                    }
                }
            },
        )?;
        bar.finish_and_clear();
        if objects == 0 && root.is_dir() {
            return Err(RewriteError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{}: a directory is read as a Fedora objectStore, and this one holds no files",
                    root.display()
                ),
            )));
        }
    }
    Ok(bytes)
}

/// Hands on one converted object's statements, or why it could not be read: skipped under
/// `--lenient`, fatal otherwise.
fn take(
    name: &str,
    converted: Result<Converted, Unreadable>,
    run: &FoxmlRun,
    on_skip: &mut dyn FnMut(&str, &Unreadable),
    rewrite: &mut dyn FnMut(Vec<(Quad, Location)>) -> Result<(), RewriteError>,
) -> Result<(), RewriteError> {
    match converted {
        Ok(converted) => {
            if !run.quiet {
                let mut stderr = io::stderr().lock();
                for (at, warning) in &converted.warnings {
                    let _ = writeln!(stderr, "pidcanon: {name}:{at}: warning: {warning}");
                }
            }
            rewrite(converted.quads)
        }
        Err(unreadable) if run.lenient => {
            on_skip(name, &unreadable);
            Ok(())
        }
        Err(Unreadable {
            location: Some(at),
            message,
            ..
        }) => Err(RewriteError::Io(with_name(
            &format!("{name}:{at}"),
            io::Error::new(io::ErrorKind::InvalidData, message),
        ))),
        // The caller names the file (the session's current input).
        Err(unreadable) => Err(RewriteError::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            unreadable.message,
        ))),
    }
}

/// A bar over the number of files under `root`, on a terminal unless `quiet` (hidden
/// otherwise, and then the files are not counted).
fn progress_bar(root: &Path, quiet: bool) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() || !root.is_dir() {
        return ProgressBar::hidden();
    }
    let total = ObjectStore::new(root).count() as u64;
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{pos}/{len} objects {wide_bar} {per_sec} {eta}")
    {
        bar.set_style(style);
    }
    bar
}
