//! The module import graph, drawn from the sources: no import circle, and no layer imports one
//! above it (docs/architecture.md).
//!
//! A module is a file. It imports the files that define what its paths name (`use crate::…`,
//! `super::…`, `self::…`, a child's or an imported module's name, `crate::x::y` in code;
//! `pidcanon::…` in the command line): a path is resolved to the deepest file module it
//! reaches, and a name that module re-exports is followed to where it is defined. A re-export
//! (`pub use`, `pub(crate) use`) is not an import itself, nor is a `mod` declaration. Comments
//! (so doc links), strings, characters and test modules are not read.
//!
//! Circles are sought among the children of each module, a child with children of its own
//! standing for all of them (`src/rewrite/graph/`): a module's children are part of it, so a
//! `mod.rs` may use what its children define and they may use what it defines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The only import circle allowed: the POI spec maps a POI to an OAI identifier and back.
const ALLOWED_CIRCLE: &[&str] = &["src/scheme/oai.rs", "src/scheme/poi.rs"];

/// The layers, lowest first: each file is in the first layer one of whose prefixes its path
/// starts with, and imports only from its own layer and those below.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "identifiers",
        &[
            "src/error.rs",
            "src/kind.rs",
            "src/pct.rs",
            "src/iri.rs",
            "src/url_prefix.rs",
            "src/policy.rs",
            "src/scheme/",
        ],
    ),
    ("positions", &["src/position.rs", "src/buffered.rs"]),
    // `fuzzing` is the fuzz targets' way into the readers, whose methods the readers define.
    (
        "reading",
        &[
            "src/read/",
            "src/rdfxml/",
            "src/foxml/",
            "src/compression.rs",
            "src/language_tag.rs",
            "src/fuzzing.rs",
        ],
    ),
    ("equivalence", &["src/equivalence/"]),
    ("rewrite", &["src/rewrite/", "src/collapse.rs"]),
    ("targets", &["src/store/"]),
    ("command line", &["src/cli/", "src/main.rs"]),
];

/// Which crate a file is compiled in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Crate {
    Library,
    Binary,
}

/// A module's crate and path in it (`["rewrite", "graph"]`).
type ModPath = (Crate, Vec<String>);

/// A token of Rust source, comments, strings and characters left out.
#[derive(Clone, PartialEq, Debug)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = string_end(&chars, i + 1);
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (hashes, quote) = raw_string_start(&chars, i).unwrap_or_default();
            i = quote + 1;
            let close: Vec<char> = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            while i < chars.len() && !chars[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
        } else if c == 'b' && next == Some('"') {
            i = string_end(&chars, i + 2);
        } else if c == '\'' {
            // A character (`'x'`, `'\n'`) or a lifetime (`'a`).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
            }
        } else if c == 'b' && next == Some('\'') {
            i += 1;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            i += 1;
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Just after the string whose text starts at `i`.
fn string_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '"' {
        i += if chars[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// For a raw string starting at `i` (`r"`, `r#"`, `br#"`), its number of `#` and where its
/// opening quote is.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && is_ident_char(chars[i - 1]) {
        return None;
    }
    let mut at = i + usize::from(chars[i] == 'b');
    if chars.get(at) != Some(&'r') {
        return None;
    }
    at += 1;
    let hashes = chars[at..].iter().take_while(|&&c| c == '#').count();
    (chars.get(at + hashes) == Some(&'"')).then_some((hashes, at + hashes))
}

/// The paths a source names, each with the path of the (inline) module it is in and whether it
/// is a leaf of a `use` (with the name it is brought in as); a `use` tree gives each of its
/// leaves.
struct Named {
    path: Vec<String>,
    within: Vec<String>,
    used_as: Option<String>,
    public_use: bool,
}

fn named_paths(tokens: &[Token]) -> Vec<Named> {
    let mut out = Vec::new();
    // The inline modules open, with the brace depth each was opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut in_use = false;
    let mut public_use = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth -= 1;
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
            }
            Token::Punct(';') => in_use = false,
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Punct('{'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    if is_test_module(tokens, i) {
                        i = block_end(tokens, i + 2);
                        continue;
                    }
                    inline.push((name.clone(), depth));
                }
            }
            Token::Ident(word) if word == "use" => {
                in_use = true;
                let before = i.checked_sub(1).map(|j| &tokens[j]);
                public_use = before == Some(&Token::Ident("pub".into()))
                    || before == Some(&Token::Punct(')'));
            }
            Token::Ident(_) if starts_path(tokens, i, in_use) => {
                let within: Vec<String> = inline.iter().map(|(name, _)| name.clone()).collect();
                let mut leaves = Vec::new();
                i = use_tree(tokens, i, Vec::new(), &mut leaves);
                for (path, used_as) in leaves {
                    out.push(Named {
                        path,
                        within: within.clone(),
                        used_as: in_use.then_some(used_as).flatten(),
                        public_use: in_use && public_use,
                    });
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the name at `i` starts a path: not after `::`, and in a `use` or before `::`.
fn starts_path(tokens: &[Token], i: usize, in_use: bool) -> bool {
    (i == 0 || tokens[i - 1] != Token::PathSep)
        && (in_use || tokens.get(i + 1) == Some(&Token::PathSep))
}

/// Whether the `mod` at `i` follows `#[cfg(test)]`: a test module is not read (a test may use
/// what it needs).
fn is_test_module(tokens: &[Token], i: usize) -> bool {
    let attribute = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    i >= attribute.len() && tokens[i - attribute.len()..i] == attribute
}

/// Just after the block whose `{` is at `i`.
fn block_end(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        match token {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') if depth == 1 => return i,
            Token::Punct('}') => depth -= 1,
            _ => {}
        }
    }
    i
}

/// Reads the path or `use` tree at `i` (after `prefix`) into `leaves`, each with the name it is
/// brought in as (none for a glob); gives where it ends.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    loop {
        match tokens.get(i) {
            Some(Token::Ident(name)) => {
                if name != "self" || prefix.is_empty() {
                    prefix.push(name.clone());
                }
                i += 1;
            }
            Some(Token::Punct('*')) => {
                leaves.push((prefix, None));
                return i + 1;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                while let Some(token) = tokens.get(i) {
                    match token {
                        Token::Punct('}') => return i + 1,
                        Token::Punct(',') => i += 1,
                        _ => i = use_tree(tokens, i, prefix.clone(), leaves),
                    }
                }
                return i;
            }
            _ => return i,
        }
        if tokens.get(i) != Some(&Token::PathSep) {
            let mut used_as = prefix.last().cloned();
            if tokens.get(i) == Some(&Token::Ident("as".into())) {
                if let Some(Token::Ident(alias)) = tokens.get(i + 1) {
                    used_as = Some(alias.clone());
                }
                i += 2;
            }
            leaves.push((prefix, used_as));
            return i;
        }
        i += 1;
    }
}

/// A source file: where it is, its module, the paths it names.
struct Source {
    file: String,
    module: ModPath,
    named: Vec<Named>,
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("src/ is readable").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, root, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(root).expect("under the root");
        let file = relative.to_string_lossy().replace('\\', "/");
        let mut segments: Vec<String> = relative
            .with_extension("")
            .iter()
            .skip(1)
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if matches!(
            segments.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            segments.pop();
        }
        let krate = if file == "src/main.rs" || file.starts_with("src/cli/") {
            Crate::Binary
        } else {
            Crate::Library
        };
        let text = std::fs::read_to_string(&path).expect("a source is readable");
        out.push(Source {
            file,
            module: (krate, segments),
            named: named_paths(&tokens(&text)),
        });
    }
}

/// The import graph: each file with the files it imports.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    sources(&root.join("src"), root, &mut all);
    let files: BTreeMap<ModPath, String> = all
        .iter()
        .map(|s| (s.module.clone(), s.file.clone()))
        .collect();
    // What each module re-exports: name → the absolute path it stands for.
    let mut exports: BTreeMap<ModPath, BTreeMap<String, ModPath>> = BTreeMap::new();
    for source in &all {
        for named in source.named.iter().filter(|n| n.public_use) {
            if let (Some(name), Some(path)) = (
                &named.used_as,
                absolute(&source.module, named, &BTreeMap::new(), &files),
            ) {
                let module = exports.entry(source.module.clone()).or_default();
                module.insert(name.clone(), path);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for source in &all {
        // Names the file's `use`s bring in that are modules.
        let mut aliases = BTreeMap::new();
        for named in source.named.iter().filter(|n| n.used_as.is_some()) {
            if let Some(path) = absolute(&source.module, named, &aliases, &files)
                && files.contains_key(&path)
            {
                aliases.insert(named.used_as.clone().unwrap_or_default(), path);
            }
        }
        let mut imports = BTreeSet::new();
        for named in source.named.iter().filter(|n| !n.public_use) {
            if let Some(path) = absolute(&source.module, named, &aliases, &files) {
                let module = defining(path, &exports, &files);
                if module != source.module {
                    imports.insert(files[&module].clone());
                }
            }
        }
        graph.insert(source.file.clone(), imports);
    }
    graph
}

/// The file module that defines what `path` names: the deepest file module it reaches, or,
/// when that module re-exports the name after it, the one defining what it re-exports.
fn defining(
    mut path: ModPath,
    exports: &BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    files: &BTreeMap<ModPath, String>,
) -> ModPath {
    loop {
        let len = (0..=path.1.len())
            .rev()
            .find(|&len| files.contains_key(&(path.0, path.1[..len].to_vec())))
            .expect("the crate root is a file");
        let module = (path.0, path.1[..len].to_vec());
        let Some(target) = path
            .1
            .get(len)
            .and_then(|name| exports.get(&module)?.get(name))
            .filter(|target| **target != path)
        else {
            return module;
        };
        let mut followed = target.clone();
        followed.1.extend(path.1[len + 1..].iter().cloned());
        path = followed;
    }
}

/// The absolute path `named` names from `module`, if it is one of the crate's (not an outside
/// crate's, not a local item's).
fn absolute(
    module: &ModPath,
    named: &Named,
    aliases: &BTreeMap<String, ModPath>,
    files: &BTreeMap<ModPath, String>,
) -> Option<ModPath> {
    let mut here = module.1.clone();
    here.extend(named.within.iter().cloned());
    let (first, rest) = named.path.split_first()?;
    let mut path = match first.as_str() {
        "crate" => (module.0, Vec::new()),
        "pidcanon" => (Crate::Library, Vec::new()),
        "self" => (module.0, here),
        "super" => {
            here.pop();
            (module.0, here)
        }
        name => {
            if let Some(path) = aliases.get(name) {
                path.clone()
            } else {
                let mut child = here.clone();
                child.push(name.to_owned());
                if !files.contains_key(&(module.0, child.clone())) {
                    return None;
                }
                (module.0, child)
            }
        }
    };
    for segment in rest {
        if segment == "super" {
            path.1.pop();
        } else {
            path.1.push(segment.clone());
        }
    }
    Some(path)
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        circles: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, file: &'a str) {
        let n = state.index.len();
        state.index.insert(file, n);
        state.low.insert(file, n);
        state.stack.push(file);
        for next in &state.graph[file] {
            if !state.index.contains_key(next.as_str()) {
                visit(state, next);
                let low = state.low[file].min(state.low[next.as_str()]);
                state.low.insert(file, low);
            } else if state.stack.contains(&next.as_str()) {
                let low = state.low[file].min(state.index[next.as_str()]);
                state.low.insert(file, low);
            }
        }
        if state.low[file] == state.index[file] {
            let at = state.stack.iter().rposition(|&f| f == file).unwrap_or(0);
            let mut circle: Vec<String> = state.stack.drain(at..).map(str::to_owned).collect();
            if circle.len() > 1 {
                circle.sort();
                state.circles.push(circle);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for file in graph.keys() {
        if !state.index.contains_key(file.as_str()) {
            visit(&mut state, file);
        }
    }
    state.circles.sort();
    state.circles
}

/// Which of [`LAYERS`] `file` is in (its index), if any.
fn layer(file: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, prefixes)| prefixes.iter().any(|p| file.starts_with(p)))
}

/// A file's module path (`src/rewrite/graph/mod.rs`: `["rewrite", "graph"]`; both crate roots:
/// `[]`).
fn module_of(file: &str) -> Vec<&str> {
    let mut path: Vec<&str> = file
        .trim_start_matches("src/")
        .trim_end_matches(".rs")
        .split('/')
        .collect();
    if matches!(path.last(), Some(&("mod" | "lib" | "main"))) {
        path.pop();
    }
    path
}

/// The import graph one level of the module tree at a time: for each pair of files that are
/// not one the other's ancestor, an import between the two children of their deepest common
/// module that hold them (a child module with children stands for all of them, shown as
/// `src/dir/`), with the file imports behind it.
fn sibling_graph(
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<(String, String), Vec<String>> {
    let label = |path: &[&str]| {
        let file = format!("src/{}.rs", path.join("/"));
        if graph.contains_key(&file) {
            file
        } else {
            format!("src/{}/", path.join("/"))
        }
    };
    let mut siblings: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (file, imports) in graph {
        let from = module_of(file);
        for import in imports {
            let to = module_of(import);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let edge = (label(&from[..=common]), label(&to[..=common]));
                siblings
                    .entry(edge)
                    .or_default()
                    .push(format!("{file} imports {import}"));
            }
        }
    }
    siblings
}

#[test]
fn no_import_circle() {
    let siblings = sibling_graph(&import_graph());
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in siblings.keys() {
        graph.entry(from.clone()).or_default().insert(to.clone());
        graph.entry(to.clone()).or_default();
    }
    let all = circles(&graph);
    let found: Vec<&Vec<String>> = all.iter().filter(|c| **c != ALLOWED_CIRCLE).collect();
    let shown: Vec<String> = found
        .iter()
        .map(|circle| {
            let mut lines = vec![format!("  {}:", circle.join(", "))];
            for ((from, to), imports) in &siblings {
                if circle.contains(from) && circle.contains(to) {
                    lines.extend(imports.iter().map(|i| format!("    {i}")));
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import circle(s):\n{}",
        found.len(),
        shown.join("\n")
    );
    assert!(
        all.iter().any(|c| c == ALLOWED_CIRCLE),
        "the circle allowed, {ALLOWED_CIRCLE:?}, is not found: the test no longer sees imports"
    );
}

#[test]
fn no_layer_imports_one_above_it() {
    let graph = import_graph();
    let mut upward = Vec::new();
    for (file, imports) in &graph {
        let Some(own) = layer(file) else { continue };
        for import in imports {
            if let Some(theirs) = layer(import).filter(|&l| l > own) {
                upward.push(format!(
                    "{file} ({}) imports {import} ({})",
                    LAYERS[own].0, LAYERS[theirs].0
                ));
            }
        }
    }
    assert!(upward.is_empty(), "upward imports:\n{}", upward.join("\n"));
}

#[test]
fn every_file_is_in_a_layer() {
    let graph = import_graph();
    let outside: Vec<&String> = graph
        .keys()
        .filter(|f| layer(f).is_none() && *f != "src/lib.rs")
        .collect();
    assert!(outside.is_empty(), "files in no layer: {outside:?}");
}
