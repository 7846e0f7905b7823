//! `pidcanon store` against a real Oxigraph server (`oxigraph serve`, installed by .ci/store.sh),
//! with faults injected by a loopback proxy, and against fake endpoints.

mod store_support;

use pidcanon::Registry;
use pidcanon::store::{Client, ClientOptions};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store_support::{
    Oxigraph, Proxy, Reply, assert_store_error, dataset, pidcanon, pidcanon_ok, report,
};

const LINKS: &str = "urn:pidcanon:links";

/// The corpus in a file, and its file rewrite with `--dedup`.
struct Corpus {
    dir: tempfile::TempDir,
    nquads: String,
    expected: String,
}

fn corpus() -> Corpus {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data.nq");
    let expected = dir.path().join("expected.nq");
    let nquads = store_support::corpus();
    std::fs::write(&data, &nquads).expect("write the corpus");
    pidcanon_ok(&[
        "rewrite",
        "-q",
        "--dedup",
        path(&data),
        "-o",
        path(&expected),
    ]);
    let expected = std::fs::read_to_string(&expected).expect("the file rewrite");
    Corpus {
        dir,
        nquads,
        expected,
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A server on a fresh store in `dir/name`, loaded with `nquads`.
fn server(binary: &Path, dir: &Path, name: &str, nquads: &str) -> Oxigraph {
    let server = Oxigraph::start(binary, &dir.join(name));
    server.load(nquads);
    server
}

/// `pidcanon store` arguments for all graphs with links, then `extra`.
fn store_args<'a>(query: &'a str, update: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "store",
        "--endpoint",
        query,
        "--update-endpoint",
        update,
        "--all-graphs",
        "--links",
        LINKS,
        "--report",
        "json",
        "-q",
    ];
    args.extend_from_slice(extra);
    args
}

fn run_store(server: &Oxigraph, extra: &[&str]) -> serde_json::Value {
    let (query, update) = (server.query_url(), server.update_url());
    let (_, stderr) = pidcanon_ok(&store_args(&query, &update, extra));
    report(&stderr)
}

fn client(server: &Oxigraph) -> Client {
    Client::new(&server.query_url(), ClientOptions::default())
}

/// Every IRI of the store, in every position and graph (the links graph left out), by SPARQL.
fn iris(server: &Oxigraph) -> BTreeSet<String> {
    let query = format!(
        "SELECT DISTINCT ?x WHERE {{ {{ {{ ?x ?p ?o }} UNION {{ ?s ?x ?o }} UNION {{ ?s ?p ?x }} }} \
         UNION {{ GRAPH ?g {{ {{ ?x ?p ?o }} UNION {{ ?s ?x ?o }} UNION {{ ?s ?p ?x }} }} \
         FILTER(?g != <{LINKS}>) }} UNION {{ GRAPH ?x {{ }} FILTER(?x != <{LINKS}>) }} \
         FILTER(isIRI(?x)) }}"
    );
    let rows = client(server).select(&query).expect("the IRIs");
    rows.into_iter()
        .filter_map(|mut row| row.remove("x"))
        .map(|v| v.value)
        .collect()
}

/// The IRIs of the store an adapter would rewrite.
fn not_canonical(server: &Oxigraph) -> Vec<String> {
    let registry = Registry::default();
    iris(server)
        .into_iter()
        .filter(|iri| {
            matches!(registry.canonicalize_claimed(iri), Some(Ok(c)) if c.iri != iri.as_str())
        })
        .collect()
}

fn count(server: &Oxigraph, pattern: &str) -> u64 {
    let rows = client(server)
        .select(&format!("SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}"))
        .expect("a count");
    rows[0]["n"].value.parse().expect("a number")
}

/// Statements outside the links graph.
fn statements(server: &Oxigraph) -> u64 {
    count(
        server,
        &format!("{{ ?s ?p ?o }} UNION {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(?g != <{LINKS}>) }}"),
    )
}

/// Checks that the store holds exactly the file rewrite, and nothing that is not canonical.
fn assert_normalized(server: &Oxigraph, corpus: &Corpus, binary: &Path, name: &str) {
    assert_eq!(not_canonical(server), Vec::<String>::new());
    let expected_lines = corpus.expected.lines().filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(statements(server), expected_lines);
    // The file rewrite loaded into a store of its own, so that both went through the same
    // literal normalization.
    let reference = self::server(binary, corpus.dir.path(), name, &corpus.expected);
    assert!(
        dataset(&server.dump(), Some(LINKS)) == dataset(&reference.dump(), None),
        "the store differs from the file rewrite"
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn the_store_ends_as_its_file_rewrite_and_a_rerun_changes_nothing() {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    assert!(!not_canonical(&server).is_empty());
    let before = statements(&server);
    let map = corpus.dir.path().join("map.tsv");
    let first = run_store(
        &server,
        &["--batch", "25", "--page", "200", "--map", path(&map)],
    );

    assert_normalized(&server, &corpus, &binary, "reference");
    let rewritten = first["rewritten_total"].as_u64().expect("a count");
    assert!(rewritten > 100, "{first}");
    assert!(
        first["graph_names_rewritten"].as_u64() == Some(1),
        "{first}"
    );
    assert!(first["invalid_identifiers"].as_u64() > Some(0), "{first}");
    assert_eq!(first["statements_before"].as_u64(), Some(before));
    let after = statements(&server);
    assert_eq!(first["statements_after"].as_u64(), Some(after));
    assert_eq!(first["duplicates_collapsed"].as_u64(), Some(before - after));
    assert!(before > after, "the corpus has variants that collapse");
    assert!(first["updates"].as_u64() > Some(rewritten / 25), "{first}");
    // Every rewrite is recorded once in the links graph and in the map.
    let links = count(
        &server,
        &format!("GRAPH <{LINKS}> {{ ?old <http://www.w3.org/2002/07/owl#sameAs> ?new }}"),
    );
    assert_eq!(links, rewritten);
    let map = std::fs::read_to_string(&map).expect("the map");
    assert_eq!(map.lines().count() as u64, rewritten);
    assert!(map.lines().all(|l| l.split('\t').count() == 3), "{map}");

    let dump = server.dump();
    let second = run_store(
        &server,
        &["--map", path(&corpus.dir.path().join("map2.tsv"))],
    );
    assert_eq!(second["rewritten_total"].as_u64(), Some(0), "{second}");
    assert_eq!(second["updates"].as_u64(), Some(0), "{second}");
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_dry_run_prints_the_updates_and_changes_nothing() {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    let dump = server.dump();
    let (query, update) = (server.query_url(), server.update_url());
    let (stdout, stderr) = pidcanon_ok(&store_args(&query, &update, &["--dry-run"]));
    let dry = report(&stderr);
    assert_eq!(dry["dry_run"], true);
    assert!(dry["rewritten_total"].as_u64() > Some(100), "{dry}");
    assert!(stdout.contains("# update 1\n"), "{stdout}");
    assert!(
        stdout.contains(
            "DELETE { <info:fedora/demo%3a1> ?p ?o } INSERT { <info:fedora/demo:1> ?p ?o } \
             WHERE { <info:fedora/demo%3a1> ?p ?o } ;\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "DELETE { GRAPH <INFO:fedora/demo%3a1> { ?s ?p ?o } } \
             INSERT { GRAPH <info:fedora/demo:1> { ?s ?p ?o } }"
        ),
        "{stdout}"
    );
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));
    // The dry run announced what the real run does.
    let real = run_store(&server, &[]);
    assert_eq!(real["rewritten"], dry["rewritten"]);
    assert_eq!(real["updates"], dry["updates"]);
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_run_interrupted_by_a_killed_server_is_finished_by_a_rerun() {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let mut server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    let proxy = Proxy::start(Some(server.port), |_| None);
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let args = store_args(
        &query,
        &update,
        &["--batch", "5", "--retries", "2", "--backoff", "50"],
    );
    let child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(&args)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pidcanon");
    let deadline = Instant::now() + Duration::from_secs(60);
    while proxy.forwarded_updates.load(Ordering::SeqCst) < 3 {
        assert!(Instant::now() < deadline, "no update went through");
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill();
    let output = child.wait_with_output().expect("pidcanon ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains(&proxy.url("/")), "{stderr}");
    assert!(stderr.contains("gave up after 3 attempts"), "{stderr}");

    server.restart();
    assert!(
        !not_canonical(&server).is_empty(),
        "the run was not interrupted"
    );
    run_store(&server, &[]);
    assert_normalized(&server, &corpus, &binary, "reference");
    let again = run_store(&server, &[]);
    assert_eq!(again["rewritten_total"].as_u64(), Some(0), "{again}");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_500_on_one_batch_is_retried() {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    let proxy = Proxy::start(Some(server.port), |request| {
        (request.update == 2).then(|| Reply::new(500, "text/plain", "transient failure"))
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let (_, stderr) = pidcanon_ok(&store_args(
        &query,
        &update,
        &["--batch", "50", "--backoff", "10"],
    ));
    let report = report(&stderr);
    assert_eq!(report["retries"].as_u64(), Some(1), "{report}");
    assert_normalized(&server, &corpus, &binary, "reference");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_500_on_every_update_stops_with_the_endpoint_and_status_and_a_rerun_finishes() {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    let proxy = Proxy::start(Some(server.port), |request| {
        (request.update > 3).then(|| Reply::new(500, "text/plain", "disk full"))
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let args = store_args(
        &query,
        &update,
        &["--batch", "20", "--retries", "2", "--backoff", "10"],
    );
    let output = pidcanon(&args, &[]);
    assert_store_error(
        &output,
        &format!("{update}: HTTP 500: disk full (gave up after 3 attempts)"),
    );
    assert_eq!(proxy.forwarded_updates.load(Ordering::SeqCst), 3);
    run_store(&server, &[]);
    assert_normalized(&server, &corpus, &binary, "reference");
}

/// A fake endpoint answering every request with `reply`; the requests' Authorization headers.
fn fake(reply: fn() -> Reply) -> (Proxy, Arc<Mutex<Vec<Option<String>>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let proxy = Proxy::start(None, move |request| {
        let authorization = request.header("authorization").map(str::to_owned);
        log.lock().expect("the log").push(authorization);
        Some(reply())
    });
    (proxy, seen)
}

#[test]
fn a_401_stops_at_once_naming_the_endpoint_and_credentials_come_from_the_environment() {
    let unauthorized = || {
        let mut reply = Reply::new(401, "text/plain", "Unauthorized");
        reply.headers.push((
            "WWW-Authenticate".to_owned(),
            "Basic realm=\"sparql\"".to_owned(),
        ));
        reply
    };
    let (proxy, seen) = fake(unauthorized);
    let url = proxy.url("/sparql");
    let output = pidcanon(
        &[
            "store",
            "--endpoint",
            &url,
            "--credentials-env",
            "PIDCANON_TEST_SECRET",
        ],
        &[("PIDCANON_TEST_SECRET", "user:pw\n")],
    );
    assert_store_error(&output, &format!("{url}: HTTP 401: Unauthorized"));
    let seen = seen.lock().expect("the log").clone();
    assert_eq!(seen, vec![Some("Basic dXNlcjpwdw==".to_owned())]);

    let (proxy, seen) = fake(unauthorized);
    let token = tempfile::NamedTempFile::new().expect("a token file");
    std::fs::write(token.path(), "s3cret-token\n").expect("write the token");
    let output = pidcanon(
        &[
            "store",
            "--endpoint",
            &proxy.url("/sparql"),
            "--auth",
            "bearer",
            "--credentials-file",
            path(token.path()),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(3));
    let seen = seen.lock().expect("the log").clone();
    assert_eq!(seen, vec![Some("Bearer s3cret-token".to_owned())]);
}

#[test]
fn an_endpoint_that_is_not_sparql_is_named_as_such() {
    let (html, _) = fake(|| Reply::new(200, "text/html", "<html><body>Welcome</body></html>"));
    let url = html.url("/");
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!("{url}: not a SPARQL endpoint: a query was answered with text/html"),
    );

    let (missing, seen) = fake(|| Reply::new(404, "text/plain", "Not Found"));
    let url = missing.url("/sparql");
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{url}: HTTP 404: Not Found")),
        "{stderr}"
    );
    assert_eq!(
        seen.lock().expect("the log").len(),
        1,
        "a 404 is not retried"
    );

    let closed = format!("http://127.0.0.1:{}/sparql", store_support::free_port());
    let output = pidcanon(
        &[
            "store",
            "--endpoint",
            &closed,
            "--retries",
            "2",
            "--backoff",
            "1",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&closed) && stderr.contains("gave up after 3 attempts"),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn triple_terms_are_counted_named_in_a_warning_and_left_as_they_are() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Oxigraph::start(&binary, &dir.path().join("store"));
    let triple_term = "<<( <info:fedora/demo%3a1> <urn:p> <urn:o> )>>";
    server.load(&format!(
        "<urn:r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> {triple_term} .\n\
         <info:fedora/demo%3a1> <urn:p> <urn:o> .\n"
    ));
    let (query, update) = (server.query_url(), server.update_url());
    let args = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--report",
        "json",
    ];
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    assert_eq!(report["triple_terms"].as_u64(), Some(1), "{report}");
    assert_eq!(report["rewritten_total"].as_u64(), Some(1), "{report}");
    assert!(
        stderr.contains(
            "pidcanon: warning: 1 statements hold an RDF 1.2 triple term; the IRIs inside \
             triple terms are not rewritten"
        ),
        "{stderr}"
    );
    let dump = server.dump();
    assert!(dump.contains(triple_term), "{dump}");
    assert!(
        dump.contains("<info:fedora/demo:1> <urn:p> <urn:o> .\n"),
        "{dump}"
    );
}

#[test]
fn results_cut_at_a_row_cap_stop_the_run_before_any_update() {
    let updates = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&updates);
    let proxy = Proxy::start(None, move |request| {
        seen.fetch_max(request.update, Ordering::SeqCst);
        let body = if request.body.contains("COUNT") {
            r#"{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"9"}}]}}"#
        } else {
            r#"{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"info:fedora/demo%3a1"}}]}}"#
        };
        let mut reply = Reply::new(200, "application/sparql-results+json", body);
        if !request.body.contains("COUNT") {
            reply
                .headers
                .push(("X-SPARQL-MaxRows".to_owned(), "1".to_owned()));
        }
        Some(reply)
    });
    let url = proxy.url("/sparql");
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: the store cut the candidate query's results at 1 rows (X-SPARQL-MaxRows); \
             nothing was changed: rerun with --page 1"
        ),
    );
    assert_eq!(updates.load(Ordering::SeqCst), 0, "an update was sent");
}
