//! `pidcanon store` against a real Virtuoso 7 (`virtuoso-t` from the Debian package
//! virtuoso-opensource), updating through `/sparql-auth` with HTTP digest authentication.
//! Ignored by a plain `cargo test`: .ci/store.sh runs it where `virtuoso-t` is on the PATH (and
//! installs it under CI); see docs/store.md to run it by hand.

mod store_support;

use pidcanon::Registry;
use pidcanon::store::{AuthScheme, Client, ClientOptions, Credentials};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use store_support::{
    assert_changed_nothing, free_port, pidcanon, report, report_of, wait_for_port,
};

const GRAPH: &str = "http://example.org/store";
const EXPECTED: &str = "http://example.org/expected";
const LINKS: &str = "http://example.org/links";

/// `virtuoso-t +foreground` on a database in a temporary directory, killed when dropped.
struct Virtuoso {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Virtuoso {
    fn start(binary: &Path) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let ini = [
            "/etc/virtuoso-opensource-7/virtuoso.ini",
            "/usr/share/virtuoso-opensource-7/virtuoso.ini",
        ]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .expect("the packaged virtuoso.ini");
        let (sql_port, port) = (free_port(), free_port());
        let db = format!("{}/", dir.path().display());
        let mut http_section = false;
        let config: String = ini
            .lines()
            .map(|line| {
                if line.starts_with('[') {
                    http_section = line.trim() == "[HTTPServer]";
                }
                let line = line.replace("/var/lib/virtuoso-opensource-7/db/", &db);
                if line.replace(' ', "").starts_with("ServerPort=") {
                    let port = if http_section { port } else { sql_port };
                    format!("ServerPort = 127.0.0.1:{port}\n")
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        let ini = dir.path().join("virtuoso.ini");
        std::fs::write(&ini, config).expect("write virtuoso.ini");
        let mut child = Command::new(binary)
            .args(["+foreground", "+configfile"])
            .arg(&ini)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start virtuoso-t");
        wait_for_port(port, &mut child, "virtuoso-t");
        let virtuoso = Self {
            child,
            port,
            _dir: dir,
        };
        // The HTTP port opens before the SPARQL endpoint is ready.
        let deadline = Instant::now() + Duration::from_secs(60);
        while virtuoso
            .client()
            .select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "Virtuoso's SPARQL endpoint is not ready"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        virtuoso
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/sparql-auth", self.port)
    }

    fn client(&self) -> Client {
        Client::new(
            &self.url(),
            ClientOptions {
                credentials: Some(
                    Credentials::new(AuthScheme::Digest, "dba:dba").expect("credentials"),
                ),
                retries: 0,
                ..ClientOptions::default()
            },
        )
    }

    fn count(&self, pattern: &str) -> u64 {
        let rows = self
            .client()
            .select(&format!("SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}"))
            .expect("a count");
        rows[0]["n"].value.parse().expect("a number")
    }

    /// Loads N-Triples into `graph`, in requests of 200 statements.
    fn load(&self, ntriples: &str, graph: &str) {
        let client = self.client();
        let lines: Vec<&str> = ntriples.lines().filter(|l| !l.is_empty()).collect();
        for chunk in lines.chunks(200) {
            client
                .update(&format!(
                    "INSERT DATA {{ GRAPH <{graph}> {{\n{}\n}} }}",
                    chunk.join("\n")
                ))
                .expect("load");
        }
    }
}

impl Drop for Virtuoso {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `virtuoso-t` on the PATH; without it the test fails, saying what to install.
fn virtuoso_binary() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("virtuoso-t"))
                .find(|p| p.exists())
        })
        .expect(
            "virtuoso-t is not on the PATH: apt-get install virtuoso-opensource \
             (.ci/store.sh does so under CI=true or PIDCANON_VIRTUOSO=1)",
        )
}

#[test]
#[ignore = "needs Virtuoso: .ci/store.sh runs it where virtuoso-t is installed"]
fn a_virtuoso_graph_ends_as_its_file_rewrite_over_digest_authentication() {
    // Virtuoso sorts at most 10 000 rows (ResultSetMaxRows).
    normalized_over_digest_authentication(&["--batch", "100", "--page", "10000"]);
}

#[test]
#[ignore = "needs Virtuoso: .ci/store.sh runs it where virtuoso-t is installed"]
fn with_snapshot_a_virtuoso_graph_ends_as_its_file_rewrite() {
    // Pages of 700 statements, and updates of 150 (names its graph once in each `DATA`: Virtuoso
    // applies only some of the blocks of one that names it twice).
    normalized_over_digest_authentication(&["--snapshot", "--page", "700", "--batch", "150"]);
}

/// The data of the fixtures, without blank nodes, normalized with `extra` options as the file
/// rewrite, with links and duplicates counted, and a second run that changes nothing.
fn normalized_over_digest_authentication(extra: &[&str]) {
    let binary = virtuoso_binary();
    let virtuoso = Virtuoso::start(&binary);
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Blank nodes left out (the contents are compared by SPARQL, statement by statement), and
    // \u escapes (Virtuoso's SPARQL parser refuses them in IRIs).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: String = [
        "fixtures/examples/repository.nt",
        "fixtures/store/generated-2000.nt",
    ]
    .iter()
    .flat_map(|p| {
        std::fs::read_to_string(root.join(p))
            .expect("fixture")
            .lines()
            .filter(|l| !l.contains("_:") && !l.contains("\\u") && !l.contains("\\U"))
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect::<Vec<_>>()
    })
    .collect();
    let data_file = dir.path().join("data.nt");
    let expected_file = dir.path().join("expected.nt");
    std::fs::write(&data_file, &data).expect("write");
    let path = |p: &Path| p.to_str().expect("UTF-8").to_owned();
    store_support::pidcanon_ok(&[
        "rewrite",
        "-q",
        "--dedup",
        &path(&data_file),
        "-o",
        &path(&expected_file),
    ]);
    let expected = std::fs::read_to_string(&expected_file).expect("the file rewrite");
    virtuoso.load(&data, GRAPH);
    virtuoso.load(&expected, EXPECTED);
    let before = virtuoso.count(&format!("GRAPH <{GRAPH}> {{ ?s ?p ?o }}"));

    let url = virtuoso.url();
    let mut options = vec!["--graph", GRAPH, "--links", LINKS, "-q"];
    options.extend(extra);
    let args = store_args(&url, &options);
    let run = || report_of(&args, &ENV);
    let first = run();
    let rewritten = first["rewritten_total"].as_u64().expect("a count");
    assert!(rewritten > 100, "{first}");

    // Every identifier is canonical.
    assert_eq!(not_canonical(&virtuoso, GRAPH), Vec::<String>::new());
    // As many statements as the file rewrite, and the same ones.
    let lines = expected.lines().filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(
        virtuoso.count(&format!("GRAPH <{EXPECTED}> {{ ?s ?p ?o }}")),
        lines
    );
    assert_same_graph(&virtuoso, GRAPH, EXPECTED, lines);
    let links = virtuoso.count(&format!("GRAPH <{LINKS}> {{ ?s ?p ?o }}"));
    assert_eq!(links, rewritten);
    // The duplicates are counted on Virtuoso too (the count names the IRIs in VALUES lists,
    // which Virtuoso 7.2 compiles): the statements that became one.
    assert!(
        before > lines,
        "the data has spellings that collapse: {before} {lines}"
    );
    assert_eq!(
        first["duplicates_collapsed"].as_u64(),
        Some(before - lines),
        "{first}"
    );

    let second = run();
    assert_eq!(second["rewritten_total"].as_u64(), Some(0), "{second}");
    assert_eq!(second["updates"].as_u64(), Some(0), "{second}");
}

/// The credentials of the test server, for `--credentials-env PIDCANON_VIRTUOSO`.
const ENV: [(&str, &str); 1] = [("PIDCANON_VIRTUOSO", "dba:dba")];

/// `pidcanon store` on the server at `url` with digest authentication and a JSON report, and
/// `options`.
fn store_args<'a>(url: &'a str, options: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "store",
        "--endpoint",
        url,
        "--auth",
        "digest",
        "--credentials-env",
        "PIDCANON_VIRTUOSO",
        "--report",
        "json",
    ];
    args.extend_from_slice(options);
    args
}

/// Every IRI an adapter would rewrite, in `graph`.
fn not_canonical(virtuoso: &Virtuoso, graph: &str) -> Vec<String> {
    let rows = virtuoso
        .client()
        .select(&format!(
            "SELECT DISTINCT ?x WHERE {{ GRAPH <{graph}> {{ {{ ?x ?p ?o }} UNION {{ ?s ?x ?o }} \
             UNION {{ ?s ?p ?x }} }} FILTER(isIRI(?x)) }}"
        ))
        .expect("the IRIs");
    let registry = Registry::default();
    rows.into_iter()
        .filter_map(|mut row| row.remove("x"))
        .map(|v| v.value)
        .filter(|iri| matches!(registry.canonicalize_claimed(iri), Some(Ok(c)) if c.iri != iri.as_str()))
        .collect()
}

/// Asserts that `graph` holds the statements of `reference` and no others.
fn assert_same_graph(virtuoso: &Virtuoso, graph: &str, reference: &str, lines: u64) {
    assert_eq!(
        virtuoso.count(&format!("GRAPH <{graph}> {{ ?s ?p ?o }}")),
        lines,
        "statements in <{graph}>"
    );
    for (a, b) in [(graph, reference), (reference, graph)] {
        let missing = virtuoso.count(&format!(
            "GRAPH <{a}> {{ ?s ?p ?o }} FILTER NOT EXISTS {{ GRAPH <{b}> {{ ?s ?p ?o }} }}"
        ));
        assert_eq!(missing, 0, "statements of <{a}> missing from <{b}>");
    }
}

/// `text` and its file rewrite (`--dedup`), as N-Triples.
fn with_file_rewrite(text: &str) -> (String, String) {
    with_file_rewrite_by(text, &[])
}

/// `text` and its file rewrite (`--dedup` and `options`), as N-Triples.
fn with_file_rewrite_by(text: &str, options: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (data, expected) = (dir.path().join("data.nt"), dir.path().join("expected.nt"));
    std::fs::write(&data, text).expect("write");
    let path = |p: &Path| p.to_str().expect("UTF-8").to_owned();
    let (data, expected_path) = (path(&data), path(&expected));
    let mut args = vec!["rewrite", "-q", "--dedup"];
    args.extend_from_slice(options);
    args.extend([data.as_str(), "-o", expected_path.as_str()]);
    store_support::pidcanon_ok(&args);
    let expected = std::fs::read_to_string(&expected).expect("the file rewrite");
    (text.to_owned(), expected)
}

#[test]
#[ignore = "needs Virtuoso: .ci/store.sh runs it where virtuoso-t is installed"]
fn with_collapse_a_virtuoso_graph_ends_as_its_file_rewrite_with_collapse() {
    let virtuoso = Virtuoso::start(&virtuoso_binary());
    // A class of a plain IRI, a Fedora object, a handle and a DOI in several spellings, with a
    // reflexive statement on the representative; a class of IRIs no adapter claims; members
    // named elsewhere.
    let same_as = "<http://www.w3.org/2002/07/owl#sameAs>";
    let text = format!(
        "<http://example.org/a> {same_as} <info:fedora/demo%3Ab> .\n\
         <info:fedora/demo%3Ab> {same_as} <hdl://10013/c> .\n\
         <hdl:10013/c> {same_as} <http://dx.doi.org/10.5555/R> .\n\
         <https://doi.org/10.5555/r> {same_as} <https://doi.org/10.5555/R> .\n\
         <http://example.org/a> <http://purl.org/dc/terms/title> \"A\" .\n\
         <http://example.org/x> <http://purl.org/dc/terms/relation> <info:fedora/demo:b> .\n\
         <http://example.org/p> {same_as} <http://example.org/q> .\n\
         <http://example.org/q> <http://purl.org/dc/terms/title> \"Q\" .\n"
    );
    let (data, expected) = with_file_rewrite_by(&text, &["--collapse"]);
    virtuoso.load(&data, GRAPH);
    virtuoso.load(&expected, EXPECTED);
    let url = virtuoso.url();
    let args = store_args(&url, &["--graph", GRAPH, "--collapse", "-q"]);
    let run = || report_of(&args, &ENV);
    let first = run();
    assert_eq!(first["classes"].as_u64(), Some(2), "{first}");
    let lines = expected.lines().filter(|l| !l.is_empty()).count() as u64;
    assert_same_graph(&virtuoso, GRAPH, EXPECTED, lines);
    assert_changed_nothing(&run());
    assert_same_graph(&virtuoso, GRAPH, EXPECTED, lines);
}

#[test]
#[ignore = "needs Virtuoso: .ci/store.sh runs it where virtuoso-t is installed"]
fn with_all_graphs_virtuosos_graph_names_are_found_and_normalized() {
    let virtuoso = Virtuoso::start(&virtuoso_binary());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let examples: String = std::fs::read_to_string(root.join("fixtures/examples/repository.nt"))
        .expect("fixture")
        .lines()
        .filter(|l| !l.contains("_:") && !l.contains("\\u") && !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let (data, expected) = with_file_rewrite(&examples);
    // A graph named by a variant spelling of an identifier, and one named canonically.
    let (variant, canonical) = ("INFO:fedora/demo%3a1", "info:fedora/demo:1");
    virtuoso.load(&data, variant);
    virtuoso.load(&data, GRAPH);
    virtuoso.load(&expected, EXPECTED);
    let url = virtuoso.url();
    let args = store_args(&url, &["--all-graphs", "--links", LINKS, "--page", "10000"]);
    let output = pidcanon(&args, &ENV);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "pidcanon: the store answers `GRAPH ?x { }` with an unbound ?x (as Virtuoso does): \
             the names of the named graphs are found from their statements"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("whose default graph is the union of the named graphs"),
        "{stderr}"
    );
    let first = report(&stderr);
    assert_eq!(first["graph_names_rewritten"].as_u64(), Some(1), "{first}");
    assert_eq!(
        virtuoso.count(&format!("GRAPH <{variant}> {{ ?s ?p ?o }}")),
        0,
        "the graph of the variant name is left"
    );
    let lines = expected.lines().filter(|l| !l.is_empty()).count() as u64;
    for graph in [canonical, GRAPH, EXPECTED] {
        assert_eq!(not_canonical(&virtuoso, graph), Vec::<String>::new());
        assert_same_graph(&virtuoso, graph, EXPECTED, lines);
    }
    // The renamed graph is linked, as the rewritten terms are.
    assert_eq!(
        virtuoso.count(&format!(
            "GRAPH <{LINKS}> {{ <{variant}> <http://www.w3.org/2002/07/owl#sameAs> <{canonical}> }}"
        )),
        1
    );
    let second = pidcanon(&args, &ENV);
    let stderr = String::from_utf8_lossy(&second.stderr).into_owned();
    assert!(second.status.success(), "{stderr}");
    let second = report(&stderr);
    assert_eq!(second["rewritten_total"].as_u64(), Some(0), "{second}");
    assert_eq!(second["updates"].as_u64(), Some(0), "{second}");
}

#[test]
#[ignore = "needs Virtuoso: .ci/store.sh runs it where virtuoso-t is installed"]
fn with_the_documented_options_a_graph_of_40000_statements_is_normalized() {
    let virtuoso = Virtuoso::start(&virtuoso_binary());
    // 10 000 works of 4 statements; 1 500 of them identified by a variant spelling. Before the
    // updates were sized for Virtuoso, these options sent a first update of 1 000 IRIs (3 000
    // operations), which Virtuoso did not finish compiling in 20 minutes (docs/store.md).
    let data: String = (0..10_000)
        .map(|i| {
            let id = if i < 1500 {
                format!("info:fedora/demo%3a{i}")
            } else {
                format!("info:fedora/demo:{i}")
            };
            format!(
                "<http://example.org/w{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> \
                 <http://schema.org/CreativeWork> .\n\
                 <http://example.org/w{i}> <http://schema.org/name> \"Work {i}\" .\n\
                 <http://example.org/w{i}> <http://purl.org/dc/terms/identifier> <{id}> .\n\
                 <{id}> <http://purl.org/dc/terms/isPartOf> <http://example.org/w{}> .\n",
                i / 10
            )
        })
        .collect();
    let (data, expected) = with_file_rewrite(&data);
    virtuoso.load(&data, GRAPH);
    virtuoso.load(&expected, EXPECTED);
    let url = virtuoso.url();
    // As docs/store.md says to run it on Virtuoso.
    let args = store_args(&url, &["--graph", GRAPH, "--page", "10000"]);
    let started = Instant::now();
    let output = pidcanon(&args, &ENV);
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("pidcanon: the store is Virtuoso (Virtuoso/"),
        "{stderr}"
    );
    let first = report(&stderr);
    eprintln!("{seconds:.1} s: {first}");
    assert_eq!(first["rewritten_total"].as_u64(), Some(1500), "{first}");
    assert_eq!(first["retries"].as_u64(), Some(0), "{first}");
    assert!(first["batch"].as_u64() <= Some(20), "{first}");
    assert!(seconds < 120.0, "{seconds} s: {first}");
    assert_eq!(not_canonical(&virtuoso, GRAPH), Vec::<String>::new());
    let lines = expected.lines().filter(|l| !l.is_empty()).count() as u64;
    assert_same_graph(&virtuoso, GRAPH, EXPECTED, lines);
}
