//! Inputs of the graph commands: formats from names and extensions, files and stdin, a progress
//! bar.

use super::named::{Named, STDIN, with_name};
use indicatif::{ProgressBar, ProgressStyle};
use pidcanon::compression::{self, without_compression_extension};
use pidcanon::rewrite::{RdfFormat, parse_format};
use std::fs::File;
use std::io::{self, BufRead, IsTerminal, Read};
use std::path::{Path, PathBuf};

/// The format of a file, from its extension, looking through a compression extension
/// (`dump.nt.gz` is N-Triples).
pub(crate) fn format_of(path: &Path) -> Option<RdfFormat> {
    let extension = without_compression_extension(path).extension()?.to_str()?;
    parse_format(extension).ok()
}

/// An input: a file or stdin (`-`).
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) path: Option<PathBuf>,
}

/// What an input is read through.
type Source = Box<dyn Read + Send>;

impl Input {
    pub(crate) fn new(arg: &str) -> Self {
        if arg == "-" {
            Self {
                name: STDIN.into(),
                path: None,
            }
        } else {
            Self {
                name: arg.into(),
                path: Some(PathBuf::from(arg)),
            }
        }
    }

    /// The `file://` URL of the input, to resolve its relative IRIs against (as riot and rapper
    /// do); stdin has none.
    pub(crate) fn base_iri(&self) -> Option<String> {
        let path = std::fs::canonicalize(self.path.as_ref()?).ok()?;
        url::Url::from_file_path(path).ok().map(String::from)
    }

    /// Opens the input, decompressed if its extension or its first bytes say it is compressed;
    /// a file gets a progress bar (of the bytes read from the file) on a terminal unless `quiet`.
    /// Every error names the input.
    pub(crate) fn open(&self, quiet: bool) -> io::Result<(Box<dyn BufRead>, Option<ProgressBar>)> {
        let named = |e| with_name(&self.name, e);
        let (source, bar): (Source, _) = match &self.path {
            None => (Box::new(io::stdin()), None),
            Some(path) => {
                let file = File::open(path).map_err(named)?;
                if quiet || !io::stderr().is_terminal() {
                    (Box::new(file), None)
                } else {
                    let bar = progress_bar(file.metadata().map_err(named)?.len());
                    (Box::new(bar.wrap_read(file)), Some(bar))
                }
            }
        };
        let reader = compression::open(source, self.path.as_deref()).map_err(named)?;
        let reader: Box<dyn BufRead> = Box::new(Named::new(reader, self.name.clone()));
        Ok((reader, bar))
    }
}

fn progress_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{bytes}/{total_bytes} {wide_bar} {bytes_per_sec} {eta}")
    {
        bar.set_style(style);
    }
    bar
}
