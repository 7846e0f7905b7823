//! FOXML input for `pidcanon rewrite` / `check`: FOXML files and whole Fedora 3 `objectStore`
//! trees, read on several threads (one object per file), each object's statements rewritten
//! through the session in the files' order.

use super::files::Input;
use indicatif::{ProgressBar, ProgressStyle};
use oxrdf::{GraphName, NamedNode};
use pidcanon::foxml::{
    FoxmlError, FoxmlObject, FoxmlOptions, ObjectStore, looks_like_foxml, read_objects,
};
use pidcanon::rewrite::{Location, RewriteError, Session};
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};
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

/// An object's statements as N-Quads with where each is in the file, and what its legacy
/// RDF/XML earned.
struct Converted {
    nquads: Vec<u8>,
    origins: Vec<Location>,
    warnings: Vec<(Location, String)>,
}

/// One FOXML object's statements as N-Quads.
fn convert(object: Result<FoxmlObject, FoxmlError>, run: &FoxmlRun) -> Result<Converted, String> {
    let object = object.map_err(|e| e.to_string())?;
    let graph = if run.named_graphs {
        let iri = NamedNode::new(object.iri()).map_err(|e| format!("PID: {e}"))?;
        GraphName::NamedNode(iri)
    } else {
        GraphName::DefaultGraph
    };
    let mut warnings = Vec::new();
    let quads = object
        .located_quads(run.options, &graph, &mut |datastream, at, warning| {
            warnings.push((at, format!("{datastream}: {warning}")));
        })
        .map_err(|e| e.to_string())?;
    let mut nquads = Vec::with_capacity(quads.len() * 128);
    let mut origins = Vec::with_capacity(quads.len());
    for (quad, at) in quads {
        // Writing to a Vec cannot fail.
        let _ = writeln!(nquads, "{quad} .");
        origins.push(at);
    }
    Ok(Converted {
        nquads,
        origins,
        warnings,
    })
}

fn convert_file(path: &Path, run: &FoxmlRun) -> Result<Converted, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    convert(FoxmlObject::parse(&bytes), run)
}

/// Rewrites every FOXML input into the session. `on_object` hears each object's path before
/// its statements are rewritten (for the diagnostics). Gives the number of files skipped.
pub(crate) fn feed<W: Write>(
    session: &mut Session<'_, W>,
    inputs: &[Input],
    run: &FoxmlRun,
    on_object: &dyn Fn(&str),
) -> Result<u64, RewriteError> {
    let mut skipped = 0;
    for input in inputs {
        let Some(root) = &input.path else {
            on_object(&input.name);
            let object = FoxmlObject::read(BufReader::new(io::stdin().lock()));
            let converted = convert(object, run);
            take(session, &input.name, converted, run, &mut skipped)?;
            continue;
        };
        let bar = progress_bar(root, run.quiet);
        let files = ObjectStore::new(root);
        let mut objects = 0u64;
        read_objects(
            files,
            run.threads,
            |path| convert_file(path, run),
            |path, converted| {
                objects += 1;
                bar.inc(1);
                let name = path.display().to_string();
                on_object(&name);
                match converted {
                    Ok(converted) => take(session, &name, converted, run, &mut skipped),
                    Err(e) => take(session, &name, Err(e.to_string()), run, &mut skipped),
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
    if skipped > 0 && !run.quiet {
        let _ = writeln!(io::stderr(), "pidcanon: {skipped} FOXML files skipped");
    }
    Ok(skipped)
}

/// Rewrites one converted object, or reports why it could not be read: skipped under
/// `--lenient`, fatal otherwise.
fn take<W: Write>(
    session: &mut Session<'_, W>,
    name: &str,
    converted: Result<Converted, String>,
    run: &FoxmlRun,
    skipped: &mut u64,
) -> Result<(), RewriteError> {
    match converted {
        Ok(converted) => {
            if !run.quiet {
                let mut stderr = io::stderr().lock();
                for (at, warning) in &converted.warnings {
                    let _ = writeln!(stderr, "pidcanon: {name}:{at}: warning: {warning}");
                }
            }
            session.rewrite_generated(converted.nquads.as_slice(), converted.origins)
        }
        Err(e) if run.lenient => {
            *skipped += 1;
            if !run.quiet {
                let _ = writeln!(io::stderr(), "pidcanon: {name}: skipped: {e}");
            }
            Ok(())
        }
        // The caller names the file (the session's current input).
        Err(e) => Err(RewriteError::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            e,
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
