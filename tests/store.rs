//! `pidcanon store` against a real Oxigraph server (`oxigraph serve`, installed by .ci/store.sh),
//! with faults injected by a loopback proxy, and against fake endpoints.

mod store_support;

use pidcanon::Registry;
use pidcanon::store::{Client, ClientOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store_support::{
    Oxigraph, Proxy, Reply, Request, assert_changed_nothing, assert_store_error, dataset, pidcanon,
    pidcanon_ok, report,
};

const LINKS: &str = "urn:pidcanon:links";

/// Where `pidcanon store --links` marks the links graphs.
const REGISTRY: &str = "urn:pidcanon:graphs";

/// The corpus in a file, and its file rewrite with `--dedup`.
struct Corpus {
    dir: tempfile::TempDir,
    nquads: String,
    expected: String,
}

fn corpus() -> Corpus {
    corpus_with("", &[], |_| Vec::new())
}

/// The corpus and `extra` (N-Quads), with `files` (name, text) written next to it, and its file
/// rewrite with `--dedup` and the options `options` gives for the directory.
fn corpus_with(
    extra: &str,
    files: &[(&str, &str)],
    options: impl FnOnce(&Path) -> Vec<String>,
) -> Corpus {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write a file");
    }
    let data = dir.path().join("data.nq");
    let expected = dir.path().join("expected.nq");
    let nquads = store_support::corpus() + extra;
    std::fs::write(&data, &nquads).expect("write the corpus");
    let options = options(dir.path());
    let mut args = vec!["rewrite", "-q", "--dedup"];
    args.extend(options.iter().map(String::as_str));
    args.extend([path(&data), "-o", path(&expected)]);
    pidcanon_ok(&args);
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
/// The Oxigraph server binary, the corpus, and a server holding the corpus.
fn corpus_on_oxigraph() -> (PathBuf, Corpus, Oxigraph) {
    let binary = store_support::oxigraph();
    let corpus = corpus();
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    (binary, corpus, server)
}

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
         FILTER(?g != <{LINKS}> && ?g != <{REGISTRY}>) }} \
         UNION {{ GRAPH ?x {{ }} FILTER(?x != <{LINKS}> && ?x != <{REGISTRY}>) }} \
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
        &format!(
            "{{ ?s ?p ?o }} UNION {{ GRAPH ?g {{ ?s ?p ?o }} \
             FILTER(?g != <{LINKS}> && ?g != <{REGISTRY}>) }}"
        ),
    )
}

/// The quads of `nquads` outside `graph`.
fn without(nquads: &str, graph: &str) -> String {
    let suffix = format!(" <{graph}> .");
    nquads
        .lines()
        .filter(|l| !l.ends_with(&suffix))
        .map(|l| format!("{l}\n"))
        .collect()
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
        dataset(&without(&server.dump(), REGISTRY), Some(LINKS))
            == dataset(&reference.dump(), None),
        "the store differs from the file rewrite"
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn the_store_ends_as_its_file_rewrite_and_a_rerun_changes_nothing() {
    let (binary, corpus, server) = corpus_on_oxigraph();
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
    let (_binary, _corpus, server) = corpus_on_oxigraph();
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
    let (binary, corpus, server) = corpus_on_oxigraph();
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
    let (binary, corpus, server) = corpus_on_oxigraph();
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
        &format!(
            "{update}: HTTP 500: disk full (gave up after 3 attempts); partly done (3 updates \
             applied): rerun the same command to finish"
        ),
    );
    assert_eq!(proxy.forwarded_updates.load(Ordering::SeqCst), 3);
    run_store(&server, &[]);
    assert_normalized(&server, &corpus, &binary, "reference");
}

/// The operations of an update the proxy received (`update=` and the URL-encoded update).
/// Fails if an update of `updates` (request bodies) was sent twice.
fn assert_never_resent(updates: &[String]) {
    let distinct: BTreeSet<&String> = updates.iter().collect();
    assert_eq!(
        distinct.len(),
        updates.len(),
        "an update was sent again as it was"
    );
}

/// A proxy to the server on `port` that answers each request `refuse` picks (given the request
/// and its body percent-decoded) with `reply` (given how many it refused before), and keeps the
/// decoded bodies of those it refused.
fn proxy_refusing(
    port: u16,
    refuse: impl Fn(&Request, &str) -> bool + Send + Sync + 'static,
    reply: impl Fn(usize) -> Reply + Send + Sync + 'static,
) -> (Proxy, Arc<Mutex<Vec<String>>>) {
    let refused = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&refused);
    let proxy = Proxy::start(Some(port), move |request| {
        let text = percent_encoding::percent_decode_str(&request.body)
            .decode_utf8_lossy()
            .into_owned();
        refuse(request, &text).then(|| {
            let mut seen = seen.lock().expect("lock");
            seen.push(text);
            reply(seen.len() - 1)
        })
    });
    (proxy, refused)
}

fn operations(request: &Request) -> usize {
    request.body.matches("DELETE").count() + request.body.matches("DROP").count()
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn an_update_that_times_out_is_split_not_resent_and_later_updates_are_smaller() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    // As Virtuoso answers an update too big to compile in time: a 500 with SR171, for any
    // update of more than 60 operations (10 IRIs, each in three positions in two scopes).
    let (proxy, timed_out) = proxy_refusing(
        server.port,
        |request, _| request.update > 0 && operations(request) > 60,
        |_| {
            Reply::new(
                500,
                "text/plain",
                "Virtuoso S1T00 Error SR171: Transaction timed out\n\nSPARQL query:\n…",
            )
        },
    );
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let mut args = store_args(
        &query,
        &update,
        &[
            "--batch",
            "100",
            "--backoff",
            "10",
            "--progress-interval",
            "100",
        ],
    );
    args.retain(|&a| a != "-q");
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    // Never the same update twice: each was cut in two, down to updates the store took.
    let timed_out = timed_out.lock().expect("lock").clone();
    assert!(!timed_out.is_empty(), "{stderr}");
    assert_never_resent(&timed_out);
    assert_eq!(report["retries"].as_u64(), Some(0), "{report}");
    assert_eq!(
        report["updates_split"].as_u64(),
        Some(timed_out.len() as u64),
        "{report}"
    );
    // 100 → 50 → 25 → 12 → 6: three more splits after the first, then never again.
    assert_eq!(timed_out.len(), 4, "{stderr}");
    assert_eq!(report["batch"].as_u64(), Some(6), "{report}");
    assert!(
        stderr.contains(
            "pidcanon: an update of 100 IRIs was too large for the store (HTTP 500: Virtuoso \
             S1T00 Error SR171: Transaction timed out"
        ) && stderr
            .contains(" s): sending it again in updates of at most 50 IRIs, as all the next ones"),
        "{stderr}"
    );
    assert!(
        stderr.contains("; 6 IRIs per update\n"),
        "no progress line says the size: {stderr}"
    );
    assert_normalized(&server, &corpus, &binary, "reference");
    let again = run_store(&server, &[]);
    assert_eq!(again["rewritten_total"].as_u64(), Some(0), "{again}");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn an_update_without_an_answer_within_the_timeout_is_split_not_resent() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    // Updates of more than 30 operations get no answer within the client's timeout (1 s).
    let proxy = Proxy::start(Some(server.port), |request| {
        (request.update > 0 && operations(request) > 30).then(|| {
            std::thread::sleep(Duration::from_millis(1500));
            Reply::new(504, "text/plain", "too late")
        })
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let mut args = store_args(&query, &update, &["--batch", "20", "--timeout", "1"]);
    args.retain(|&a| a != "-q");
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    assert_eq!(report["retries"].as_u64(), Some(0), "{report}");
    assert_eq!(report["updates_split"].as_u64(), Some(2), "{report}");
    assert_eq!(report["batch"].as_u64(), Some(5), "{report}");
    assert!(
        stderr.contains("pidcanon: an update of 20 IRIs was too large for the store (")
            && stderr.contains(", after 1."),
        "{stderr}"
    );
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

/// A 401 with the challenge `challenge`.
fn unauthorized(challenge: &str) -> Reply {
    let mut reply = Reply::new(401, "text/plain", "Unauthorized");
    reply
        .headers
        .push(("WWW-Authenticate".to_owned(), challenge.to_owned()));
    reply
}

/// `pidcanon store --endpoint URL` with the credentials `secret` from the environment.
fn store_with_secret(url: &str, secret: &str) -> std::process::Output {
    pidcanon(
        &[
            "store",
            "--endpoint",
            url,
            "--credentials-env",
            "PIDCANON_TEST_SECRET",
        ],
        &[("PIDCANON_TEST_SECRET", secret)],
    )
}

#[test]
fn a_401_stops_at_once_naming_the_endpoint_and_credentials_come_from_the_environment() {
    let unauthorized = || unauthorized("Basic realm=\"sparql\"");
    let (proxy, seen) = fake(unauthorized);
    let url = proxy.url("/sparql");
    let output = store_with_secret(&url, "user:pw\n");
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
    let triple_term = "<<( <info:fedora/demo%3a1> <urn:p> <urn:o> )>>";
    // Scanning for candidates, and from a snapshot (which cannot write out the statement of a
    // triple term: its subject is rewritten by a per-IRI update).
    for (name, extra) in [("scan", None), ("snapshot", Some("--snapshot"))] {
        let server = Oxigraph::start(&binary, &dir.path().join(name));
        server.load(&format!(
            "<urn:r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> {triple_term} .\n\
             <info:fedora/demo%3a2> <urn:q> {triple_term} .\n\
             <info:fedora/demo%3a1> <urn:p> <urn:o> .\n"
        ));
        let (query, update) = (server.query_url(), server.update_url());
        let mut args = vec![
            "store",
            "--endpoint",
            &query,
            "--update-endpoint",
            &update,
            "--report",
            "json",
        ];
        args.extend(extra);
        let (_, stderr) = pidcanon_ok(&args);
        let report = report(&stderr);
        assert_eq!(report["triple_terms"].as_u64(), Some(2), "{name}: {report}");
        assert_eq!(
            report["rewritten_total"].as_u64(),
            Some(2),
            "{name}: {report}"
        );
        assert!(
            stderr.contains(
                "pidcanon: warning: 2 statements hold an RDF 1.2 triple term; the IRIs inside \
                 triple terms are not rewritten"
            ),
            "{name}: {stderr}"
        );
        let dump = server.dump();
        assert!(
            dump.contains(&format!(
                "<urn:r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> {triple_term} .\n"
            )),
            "{name}: {dump}"
        );
        assert!(
            dump.contains(&format!("<info:fedora/demo:2> <urn:q> {triple_term} .\n")),
            "{name}: {dump}"
        );
        assert!(
            dump.contains("<info:fedora/demo:1> <urn:p> <urn:o> .\n"),
            "{name}: {dump}"
        );
    }
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

const SAME_AS: &str = "<http://www.w3.org/2002/07/owl#sameAs>";

/// The quads of `graph` in the store.
fn graph_quads(server: &Oxigraph, graph: &str) -> BTreeSet<String> {
    let suffix = format!(" <{graph}> .");
    server
        .dump()
        .lines()
        .filter(|l| l.ends_with(&suffix))
        .map(str::to_owned)
        .collect()
}

/// Statements `<x> owl:sameAs <x>`, in any graph.
fn reflexive_links(server: &Oxigraph) -> u64 {
    count(
        server,
        &format!("{{ ?x {SAME_AS} ?x }} UNION {{ GRAPH ?g {{ ?x {SAME_AS} ?x }} }}"),
    )
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_run_without_links_leaves_the_links_an_earlier_run_wrote() {
    let (_binary, _corpus, server) = corpus_on_oxigraph();
    let first = run_store(&server, &[]);
    let links = graph_quads(&server, LINKS);
    let rewritten = first["rewritten_total"].as_u64().expect("a count");
    assert!(rewritten > 100, "{first}");
    // The links, and the mark that makes every later run leave the graph alone.
    assert_eq!(links.len() as u64, rewritten);
    let mark = |graph: &str| {
        format!(
            "<{graph}> <urn:pidcanon:linksGraph> \
             \"true\"^^<http://www.w3.org/2001/XMLSchema#boolean> <{REGISTRY}> ."
        )
    };
    assert_eq!(
        graph_quads(&server, REGISTRY),
        BTreeSet::from([mark(LINKS)])
    );
    // New variants written after the first run, in the default graph and a named graph.
    server.load(
        "<info:fedora/demo%3a77> <urn:p> <urn:o> .\n<urn:s> <urn:p> <info:fedora/demo%3a78> <urn:g> .\n",
    );
    let (query, update) = (server.query_url(), server.update_url());
    let plain = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--all-graphs",
        "--report",
        "json",
        "-q",
    ];
    let (_, stderr) = pidcanon_ok(&plain);
    let second = report(&stderr);
    assert_eq!(second["rewritten_total"].as_u64(), Some(2), "{second}");
    assert_eq!(
        graph_quads(&server, LINKS),
        links,
        "the links graph changed"
    );
    assert_eq!(reflexive_links(&server), 0);
    assert_eq!(not_canonical(&server), Vec::<String>::new());

    // A run recording its links elsewhere leaves the earlier links graph alone too.
    server.load("<info:fedora/demo%3a79> <urn:p> <urn:o> .\n");
    let mut other = plain.to_vec();
    other.extend(["--links", "urn:other-links"]);
    let (_, stderr) = pidcanon_ok(&other);
    assert_eq!(report(&stderr)["rewritten_total"].as_u64(), Some(1));
    assert_eq!(
        graph_quads(&server, LINKS),
        links,
        "the links graph changed"
    );
    assert_eq!(graph_quads(&server, "urn:other-links").len(), 1);
    assert_eq!(
        graph_quads(&server, REGISTRY),
        BTreeSet::from([mark(LINKS), mark("urn:other-links")])
    );
    assert_eq!(reflexive_links(&server), 0);

    // Naming a links graph to normalize is refused, before anything is changed.
    let dump = server.dump();
    let named = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--graph",
        LINKS,
    ];
    let output = pidcanon(&named, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("<{LINKS}> is a links graph")),
        "{stderr}"
    );
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_links_graph_written_before_marks_is_marked_by_a_run_with_links() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Oxigraph::start(&binary, &dir.path().join("store"));
    server.load(&format!(
        "<info:fedora/demo%3a1> {SAME_AS} <info:fedora/demo:1> <urn:legacy> .\n\
         <info:fedora/demo%3a2> <urn:p> <urn:o> .\n"
    ));
    let legacy = graph_quads(&server, "urn:legacy");
    let (query, update) = (server.query_url(), server.update_url());
    let args = |links: Option<&'static str>| {
        let mut args = vec![
            "store".to_owned(),
            "--endpoint".to_owned(),
            query.clone(),
            "--update-endpoint".to_owned(),
            update.clone(),
            "--all-graphs".to_owned(),
        ];
        if let Some(links) = links {
            args.extend(["--links".to_owned(), links.to_owned()]);
        }
        args
    };
    let with_links = args(Some("urn:legacy"));
    pidcanon_ok(&with_links.iter().map(String::as_str).collect::<Vec<_>>());
    let marked = graph_quads(&server, "urn:legacy");
    assert_eq!(marked.len(), 2, "{marked:?}");
    assert!(legacy.is_subset(&marked));
    let registry = graph_quads(&server, REGISTRY);
    assert_eq!(registry.len(), 1, "{registry:?}");
    assert!(
        registry
            .iter()
            .all(|q| q.starts_with("<urn:legacy> <urn:pidcanon:linksGraph>")),
        "{registry:?}"
    );
    server.load("<info:fedora/demo%3a3> <urn:p> <urn:o> .\n");
    let plain = args(None);
    pidcanon_ok(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(graph_quads(&server, "urn:legacy"), marked);
    assert_eq!(reflexive_links(&server), 0);
}

/// A proxy to `server` that answers the updates after the first `applied` with `200 OK`
/// without forwarding them.
fn lying_proxy(server: &Oxigraph, applied: usize) -> Proxy {
    Proxy::start(Some(server.port), move |request| {
        (request.update > applied).then(|| Reply::new(200, "text/plain", ""))
    })
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn an_update_endpoint_that_answers_200_without_applying_anything_is_a_failure() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    let dump = server.dump();
    let proxy = lying_proxy(&server, 0);
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let output = pidcanon(&store_args(&query, &update, &["--batch", "20"]), &[]);
    assert_store_error(
        &output,
        &format!("{update}: the update was answered with success but not applied: "),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("partly done"), "{stderr}");
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));

    // Two updates applied, then a lie: partly done, and a rerun finishes.
    let proxy = lying_proxy(&server, 2);
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let output = pidcanon(&store_args(&query, &update, &["--batch", "20"]), &[]);
    assert_store_error(&output, "rewritten IRIs checked are still in the store (<");
    assert_store_error(
        &output,
        "partly done (2 updates applied): rerun the same command to finish",
    );
    assert_eq!(proxy.forwarded_updates.load(Ordering::SeqCst), 2);
    run_store(&server, &[]);
    assert_normalized(&server, &corpus, &binary, "reference");
}

/// A fake endpoint: `COUNT`s answer 9, other queries one candidate, updates `update`.
fn fake_store(update: fn() -> Reply) -> (Proxy, Arc<std::sync::atomic::AtomicUsize>) {
    let updates = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&updates);
    let proxy = Proxy::start(None, move |request| {
        seen.fetch_max(request.update, Ordering::SeqCst);
        if request.update > 0 {
            return Some(update());
        }
        let body = if request.body.contains("COUNT") {
            r#"{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"9"}}]}}"#
        } else {
            r#"{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"info:fedora/demo%3a1"}}]}}"#
        };
        Some(Reply::new(200, "application/sparql-results+json", body))
    });
    (proxy, updates)
}

#[test]
fn an_update_refused_by_virtuosos_anonymous_endpoint_is_not_retried_and_says_where_to_go() {
    let (proxy, updates) = fake_store(|| {
        Reply::new(
            500,
            "text/plain",
            "Virtuoso 42000 Error SR186:SECURITY: No permission to execute procedure \
             DB.DBA.SPARUL_RUN with user ID 107, group ID 107",
        )
    });
    let url = proxy.url("/sparql");
    let output = pidcanon(&["store", "--endpoint", &url, "--backoff", "1"], &[]);
    assert_store_error(
        &output,
        &format!("{url}: HTTP 500: Virtuoso 42000 Error SR186:SECURITY: No permission"),
    );
    assert_store_error(&output, "/sparql-auth with --auth digest");
    assert_eq!(updates.load(Ordering::SeqCst), 1, "the refusal was retried");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("partly done"), "{stderr}");
}

#[test]
fn updates_sent_to_a_query_endpoint_say_so() {
    let (proxy, updates) = fake_store(|| {
        Reply::new(
            400,
            "text/plain",
            "The URL query parameter query must be set",
        )
    });
    let url = proxy.url("/query");
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: HTTP 400: The URL query parameter query must be set: {url} is a query \
             endpoint, which does not take updates: give the update endpoint with \
             --update-endpoint"
        ),
    );
    assert_eq!(updates.load(Ordering::SeqCst), 1);
}

#[test]
fn a_401_asking_for_digest_suggests_auth_digest() {
    let digest = || unauthorized("Digest realm=\"SPARQL\", nonce=\"abc\", qop=\"auth\"");
    let (proxy, seen) = fake(digest);
    let url = proxy.url("/sparql-auth");
    let output = store_with_secret(&url, "dba:dba");
    assert_store_error(
        &output,
        &format!(
            "{url}: HTTP 401: Unauthorized: the endpoint asks for digest authentication: add --auth digest"
        ),
    );
    assert_eq!(
        seen.lock().expect("the log").len(),
        1,
        "a 401 is not retried"
    );

    let (proxy, _) = fake(digest);
    let url = proxy.url("/sparql-auth");
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        "the endpoint asks for credentials, with digest authentication: add --auth digest and \
         --credentials-env VAR",
    );
}

#[test]
fn https_to_a_port_that_does_not_answer_tls_fails_at_once() {
    // A server that reads and never answers, as a plain HTTP server waiting for a request line.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut sink = Vec::new();
                let _ = std::io::Read::read_to_end(&mut stream, &mut sink);
            });
        }
    });
    let url = format!("https://127.0.0.1:{port}/sparql");
    let started = Instant::now();
    let output = pidcanon(&["store", "--endpoint", &url, "--timeout", "2"], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: 127.0.0.1:{port} did not answer a TLS handshake within 2 s: the server does \
             not speak TLS on this port; if it serves plain HTTP, write the endpoint with http://"
        ),
    );
    assert!(started.elapsed() < Duration::from_secs(20), "it retried");

    // A server that closes the connection on a request it cannot read.
    let (closing, seen) = fake(|| Reply::new(200, "text/plain", ""));
    let url = closing.url("/sparql").replacen("http://", "https://", 1);
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: 127.0.0.1:{} closed the connection without answering a TLS handshake: the \
             server does not speak TLS on this port",
            closing.port
        ),
    );
    assert!(seen.lock().expect("the log").is_empty());
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn https_to_a_plain_http_oxigraph_fails_at_once() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Oxigraph::start(&binary, &dir.path().join("store"));
    let url = format!("https://127.0.0.1:{}/query", server.port);
    let started = Instant::now();
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: 127.0.0.1:{} answered a TLS handshake in plain HTTP: the server does not \
             speak TLS on this port; if it serves plain HTTP, write the endpoint with http://",
            server.port
        ),
    );
    assert!(started.elapsed() < Duration::from_secs(5), "it waited");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn updates_sent_to_oxigraphs_query_endpoint_say_so() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Oxigraph::start(&binary, &dir.path().join("store"));
    server.load("<info:fedora/demo%3a1> <urn:p> <urn:o> .\n");
    let url = server.query_url();
    let output = pidcanon(&["store", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!("{url} is a query endpoint, which does not take updates"),
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_default_graph_that_shows_a_links_graph_is_refused() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Oxigraph::start_with(
        &binary,
        &dir.path().join("store"),
        &["--union-default-graph"],
    );
    server.load("<info:fedora/demo%3a1> <urn:p> <urn:o> <urn:g> .\n");
    let (query, update) = (server.query_url(), server.update_url());
    let graph = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--graph",
        "urn:g",
        "--links",
        LINKS,
    ];
    pidcanon_ok(&graph);
    server.load("<info:fedora/demo%3a2> <urn:p> <urn:o> <urn:g> .\n");
    let dump = server.dump();
    let output = pidcanon(
        &["store", "--endpoint", &query, "--update-endpoint", &update],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the default graph shows the statements of the links graph <{LINKS}>"
        )),
        "{stderr}"
    );
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));
}

#[test]
fn an_endpoint_without_a_scheme_is_a_usage_error_naming_it() {
    let bare = format!("127.0.0.1:{}/update", store_support::free_port());
    let output = pidcanon(&["store", "--endpoint", &bare, "--retries", "0"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "pidcanon: --endpoint {bare}: not a URL with http:// or https://: an endpoint is a \
             URL such as http://{bare}"
        )),
        "{stderr}"
    );

    let (proxy, seen) = fake(|| Reply::new(500, "text/plain", "not reached"));
    let output = pidcanon(
        &[
            "store",
            "--endpoint",
            &proxy.url("/query"),
            "--update-endpoint",
            "ftp://127.0.0.1/update",
            "--report",
            "json",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "--update-endpoint ftp://127.0.0.1/update: not a URL with http:// or https://"
        ),
        "{stderr}"
    );
    assert!(
        seen.lock().expect("the log").is_empty(),
        "a request was sent"
    );
    let report = report(&stderr);
    assert_eq!(report["failed"], true, "{report}");
    assert_eq!(report["updates"].as_u64(), Some(0), "{report}");
}

#[test]
fn a_run_that_cannot_reach_the_store_still_prints_its_json_report() {
    let closed = format!("http://127.0.0.1:{}/sparql", store_support::free_port());
    let args = [
        "store",
        "--endpoint",
        &closed,
        "--retries",
        "1",
        "--backoff",
        "1",
        "--report",
        "json",
        "-q",
    ];
    let output = pidcanon(&args, &[]);
    assert_store_error(&output, &format!("pidcanon: {closed}: "));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report = report(&stderr);
    assert_eq!(report["failed"], true, "{report}");
    let error = report["error"].as_str().expect("the error");
    assert!(
        error.starts_with(&closed) && error.contains("gave up after 2 attempts"),
        "{report}"
    );
    assert_eq!(report["updates"].as_u64(), Some(0), "{report}");
    assert_eq!(report["requests"].as_u64(), Some(2), "{report}");
    // Nothing was counted: not a count of 0.
    assert!(report["statements_before"].is_null(), "{report}");
    assert!(report["statements_after"].is_null(), "{report}");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_run_that_fails_midway_reports_in_json_what_it_did() {
    let (_binary, _corpus, server) = corpus_on_oxigraph();
    let before = statements(&server);
    let proxy = Proxy::start(Some(server.port), |request| {
        (request.update > 3).then(|| Reply::new(500, "text/plain", "disk full"))
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let args = store_args(
        &query,
        &update,
        &["--batch", "20", "--retries", "1", "--backoff", "10"],
    );
    let output = pidcanon(&args, &[]);
    assert_store_error(&output, "partly done (3 updates applied)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed = report(&stderr);
    assert_eq!(failed["failed"], true, "{failed}");
    assert!(
        failed["error"].as_str().is_some_and(|e| e
            .starts_with(&format!("{update}: HTTP 500: disk full"))
            && e.ends_with("partly done (3 updates applied): rerun the same command to finish")),
        "{failed}"
    );
    assert_eq!(failed["updates"].as_u64(), Some(3), "{failed}");
    // The graph name (a batch of its own), then two batches of 20.
    assert_eq!(
        failed["graph_names_rewritten"].as_u64(),
        Some(1),
        "{failed}"
    );
    assert_eq!(failed["rewritten_total"].as_u64(), Some(41), "{failed}");
    assert_eq!(
        failed["statements_before"].as_u64(),
        Some(before),
        "{failed}"
    );
    assert!(failed["statements_after"].is_null(), "{failed}");
    assert_eq!(failed["retries"].as_u64(), Some(1), "{failed}");
    // A success says so too, with the same fields.
    let done = run_store(&server, &[]);
    assert_eq!(done["failed"], false, "{done}");
    assert!(done.get("error").is_none(), "{done}");
    let fields = |report: &serde_json::Value| -> BTreeSet<String> {
        report
            .as_object()
            .expect("an object")
            .keys()
            .filter(|k| *k != "error")
            .cloned()
            .collect()
    };
    assert_eq!(fields(&failed), fields(&done));

    // A usage problem found once the run started (a links graph named to normalize).
    let named = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--graph",
        LINKS,
        "--report",
        "json",
    ];
    let output = pidcanon(&named, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let refused = report(&stderr);
    assert_eq!(refused["failed"], true, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains(&format!("<{LINKS}> is a links graph"))),
        "{refused}"
    );
    assert_eq!(refused["updates"].as_u64(), Some(0), "{refused}");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn progress_lines_are_printed_when_stderr_is_not_a_terminal() {
    let (_binary, _corpus, server) = corpus_on_oxigraph();
    // Each update takes at least 150 ms: the run lasts several seconds.
    let proxy = Proxy::start(Some(server.port), |request| {
        if request.update > 0 {
            std::thread::sleep(Duration::from_millis(150));
        }
        None
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let args = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--all-graphs",
        "--batch",
        "10",
        "--progress-interval",
        "200",
        "--report",
        "json",
    ];
    let (_, stderr) = pidcanon_ok(&args);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("pidcanon: progress: "))
        .collect();
    assert!(lines.len() >= 5, "{stderr}");
    let updates = |line: &str| -> u64 {
        let (_, rest) = line.split_once(" invalid; ").expect("the updates");
        rest.split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a number")
    };
    assert!(
        lines.windows(2).all(|w| updates(w[0]) <= updates(w[1])),
        "{stderr}"
    );
    let last = lines.last().expect("a line");
    assert!(updates(last) > 0, "{stderr}");
    assert!(
        last.contains(" IRIs examined, ") && last.contains(" rewritten, "),
        "{last}"
    );
    // The report is still the last line.
    let done = report(&stderr);
    assert!(done["updates"].as_u64() >= Some(updates(last)), "{done}");

    // None with -q.
    server.load("<info:fedora/demo%3a91> <urn:p> <urn:o> .\n");
    let mut quiet = args.to_vec();
    quiet.push("-q");
    let (_, stderr) = pidcanon_ok(&quiet);
    assert!(!stderr.contains("progress"), "{stderr}");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn duplicates_collapsed_count_what_the_run_did_while_others_write() {
    let (_binary, corpus, server) = corpus_on_oxigraph();
    let before = statements(&server);
    let expected = corpus.expected.lines().filter(|l| !l.is_empty()).count() as u64;
    assert!(before > expected, "the corpus has variants that collapse");
    // Another client writes a statement of its own before every update: the store grows
    // while the run shrinks it.
    let port = server.port;
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&written);
    let proxy = Proxy::start(Some(port), move |request| {
        if request.update > 0 {
            let n = count.fetch_add(1, Ordering::SeqCst);
            let quad = format!("<http://other.example/{n}> <http://other.example/p> \"{n}\" .\n");
            let (status, body) = store_support::http(
                port,
                "POST",
                "/store",
                &[("Content-Type", "application/n-quads")],
                quad.as_bytes(),
            );
            assert!((200..300).contains(&status), "{body}");
        }
        None
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let (_, stderr) = pidcanon_ok(&store_args(&query, &update, &["--batch", "20"]));
    let report = report(&stderr);
    let others = written.load(Ordering::SeqCst) as u64;
    assert!(others > 3, "{report}");
    assert_eq!(report["statements_before"].as_u64(), Some(before));
    assert_eq!(report["statements_after"].as_u64(), Some(expected + others));
    assert_eq!(
        report["duplicates_collapsed"].as_u64(),
        Some(before - expected),
        "{report}"
    );
    assert_eq!(statements(&server), expected + others);
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_store_that_cannot_count_the_duplicates_is_normalized_and_says_so() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    // As Virtuoso 7.2 answers the counting query.
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&asked);
    let proxy = Proxy::start(Some(server.port), move |request| {
        let counting = request.update == 0 && request.body.contains("DISTINCT%20%3Fs%20%3Fp");
        counting.then(|| {
            seen.fetch_add(1, Ordering::SeqCst);
            Reply::new(
                400,
                "text/plain",
                "Virtuoso 37000 Error SP031: SPARQL compiler",
            )
        })
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let (_, stderr) = pidcanon_ok(&store_args(&query, &update, &["--batch", "50"]));
    let report = report(&stderr);
    assert!(report["duplicates_collapsed"].is_null(), "{report}");
    assert!(report["updates"].as_u64() > Some(1), "{report}");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked again after a 400");
    assert_normalized(&server, &corpus, &binary, "reference");
}

/// A rename table for the corpus: IRIs no adapter claims (a predicate, a class, the name of a
/// named graph), IRIs already canonical that an adapter claims (a model, a graph name that is
/// also a subject), the canonical form of a spelling the store holds only in variants, and an
/// IRI the store does not hold.
const RENAME: &str = "# old\tnew\n\
    http://purl.org/dc/terms/relation\thttp://example.org/terms/related\n\
    http://purl.org/dc/terms/BibliographicResource\thttp://example.org/terms/Work\n\
    http://example.org/g1\thttp://example.org/graphs/one\n\
    info:fedora/demo:BookCModel\thttps://repo.example/models/book\n\
    info:fedora/demo:1\thttps://repo.example/objects/1\n\
    INFO:FEDORA/demo:Collection\thttps://repo.example/collections/demo\n\
    http://absent.example/nothing\thttp://absent.example/still-nothing\n";

/// Whether the store holds `iri` anywhere (a term, a graph name) outside the links graphs.
fn holds(server: &Oxigraph, iri: &str) -> bool {
    iris(server).contains(iri)
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_rename_the_store_ends_as_its_file_rewrite_with_rename_and_a_rerun_changes_nothing() {
    let binary = store_support::oxigraph();
    let corpus = corpus_with("", &[("rename.tsv", RENAME)], |dir| {
        vec![
            "--rename".to_owned(),
            path(&dir.join("rename.tsv")).to_owned(),
        ]
    });
    let renamed = [
        "http://purl.org/dc/terms/relation",
        "http://purl.org/dc/terms/BibliographicResource",
        "http://example.org/g1",
        "info:fedora/demo:BookCModel",
    ];
    // The file rewrite renames them all (else this test would not test the renames).
    for old in renamed {
        assert!(
            !corpus.expected.contains(&format!("<{old}>")),
            "{old} in the file rewrite"
        );
    }
    for new in [
        "http://example.org/terms/related",
        "http://example.org/graphs/one",
        "https://repo.example/models/book",
        "https://repo.example/objects/1",
        "https://repo.example/collections/demo",
    ] {
        assert!(corpus.expected.contains(&format!("<{new}>")), "{new}");
    }
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    for old in renamed {
        assert!(holds(&server, old), "{old} not in the store");
    }
    let table = corpus.dir.path().join("rename.tsv");
    let map = corpus.dir.path().join("map.tsv");
    let first = run_store(
        &server,
        &[
            "--rename",
            path(&table),
            "--batch",
            "25",
            "--page",
            "200",
            "--map",
            path(&map),
        ],
    );
    assert_normalized(&server, &corpus, &binary, "reference");
    for old in renamed {
        assert!(!holds(&server, old), "{old} still in the store");
    }
    let rewritten = first["rewritten_total"].as_u64().expect("a count");
    // Both graph names: http://example.org/g1 and info:fedora/demo:1 (with its variant).
    assert_eq!(first["graph_names_rewritten"].as_u64(), Some(3), "{first}");
    let map = std::fs::read_to_string(&map).expect("the map");
    assert_eq!(map.lines().count() as u64, rewritten);
    // info:fedora/demo:1 is renamed as a graph name and as a subject, in two passes: one link.
    let pairs: BTreeSet<(&str, &str)> = map
        .lines()
        .filter_map(|l| {
            let mut columns = l.split('\t');
            Some((columns.next()?, columns.next()?))
        })
        .collect();
    assert_eq!(pairs.len() as u64, rewritten - 1, "{map}");
    let links = count(
        &server,
        &format!("GRAPH <{LINKS}> {{ ?old <http://www.w3.org/2002/07/owl#sameAs> ?new }}"),
    );
    assert_eq!(links, pairs.len() as u64);
    assert!(!map.contains("absent.example"), "{map}");
    for (old, new) in [
        (
            "http://purl.org/dc/terms/relation",
            "http://example.org/terms/related",
        ),
        (
            "info:fedora/demo:BookCModel",
            "https://repo.example/models/book",
        ),
        (
            "INFO:FEDORA/demo:Collection",
            "https://repo.example/collections/demo",
        ),
    ] {
        assert!(map.contains(&format!("{old}\t{new}\t")), "{old}: {map}");
    }

    // Without paging too: the same store, and nothing left to do.
    let dump = server.dump();
    let second = run_store(&server, &["--rename", path(&table)]);
    assert_eq!(second["rewritten_total"].as_u64(), Some(0), "{second}");
    assert_eq!(second["updates"].as_u64(), Some(0), "{second}");
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));

    // The same in one pass without --page, from the start.
    let again = self::server(&binary, corpus.dir.path(), "unpaged", &corpus.nquads);
    let unpaged = run_store(&again, &["--rename", path(&table)]);
    assert_eq!(
        unpaged["rewritten_total"].as_u64(),
        Some(rewritten),
        "{unpaged}"
    );
    assert_normalized(&again, &corpus, &binary, "reference-unpaged");
}

/// Equivalence statements for `--collapse`, beside the corpus's own (`owl:sameAs` and
/// `schema:sameAs`): a class of a plain IRI, a Fedora object, a handle and a DOI written in
/// several spellings, across the default graph and a named graph, with a reflexive statement on
/// the representative; a class of IRIs no adapter claims; a member named elsewhere in both
/// graphs, and one named only in an equivalence statement.
const EQUIVALENT: &str = "<http://example.org/a> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo%3Ab> .
<info:fedora/demo%3Ab> <http://www.w3.org/2002/07/owl#sameAs> <hdl://10013/c> <http://example.org/g1> .
<hdl:10013/c> <http://www.w3.org/2002/07/owl#sameAs> <http://dx.doi.org/10.5555/R> .
<info:fedora/demo:b> <http://www.w3.org/2002/07/owl#sameAs> <http://example.org/a> .
<https://doi.org/10.5555/r> <http://www.w3.org/2002/07/owl#sameAs> <https://doi.org/10.5555/R> .
<http://example.org/a> <http://purl.org/dc/terms/title> \"A\" .
<http://example.org/x> <http://purl.org/dc/terms/relation> <http://example.org/a> .
<http://example.org/x> <http://purl.org/dc/terms/relation> <info:fedora/demo:b> <http://example.org/g1> .
<http://example.org/p> <http://www.w3.org/2002/07/owl#sameAs> <http://example.org/q> .
<http://example.org/q> <http://purl.org/dc/terms/title> \"Q\" .
<http://example.org/q> <http://www.w3.org/2004/02/skos/core#exactMatch> <http://example.org/only-here> .
";

/// Pairs given beforehand: `http://example.org/x` joins a Fedora object the store does not hold.
const PAIRS: &str = "http://example.org/x\tinfo:fedora/demo%3Axx\n";

/// The collapse options of the test, with `pairs` the path of the pairs file.
fn collapse_options(pairs: &str) -> Vec<String> {
    [
        "--collapse",
        "--equivalence-predicate",
        "http://schema.org/sameAs",
        "--equivalence-predicate",
        "http://www.w3.org/2004/02/skos/core#exactMatch",
        "--equivalences",
        pairs,
    ]
    .map(str::to_owned)
    .to_vec()
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_collapse_the_store_ends_as_its_file_rewrite_with_collapse_and_a_rerun_changes_nothing() {
    let binary = store_support::oxigraph();
    let corpus = corpus_with(EQUIVALENT, &[("pairs.tsv", PAIRS)], |dir| {
        collapse_options(path(&dir.join("pairs.tsv")))
    });
    // The file rewrite collapses the classes (else this test would not test them): the
    // members are gone but in the links from their representative.
    let links_from = |rep: &str| {
        corpus
            .expected
            .lines()
            .filter(|l| l.starts_with(&format!("<{rep}> <http://www.w3.org/2002/07/owl#sameAs> ")))
            .count()
    };
    assert!(
        links_from("https://doi.org/10.5555/r") >= 3,
        "{}",
        corpus.expected
    );
    // {p, q, only-here}: the least in byte order represents IRIs of no known kind.
    assert_eq!(links_from("http://example.org/only-here"), 2);
    assert!(corpus.expected.contains(
        "<info:fedora/demo:xx> <http://purl.org/dc/terms/relation> <https://doi.org/10.5555/r> ."
    ));
    assert!(
        corpus
            .expected
            .contains("<http://example.org/only-here> <http://purl.org/dc/terms/title> \"Q\" .")
    );

    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    let pairs = corpus.dir.path().join("pairs.tsv");
    let options = collapse_options(path(&pairs));
    let mut extra: Vec<&str> = options.iter().map(String::as_str).collect();
    extra.extend(["--batch", "7", "--page", "300"]);
    let first = run_store(&server, &extra);
    assert_normalized(&server, &corpus, &binary, "reference");
    assert!(first["classes"].as_u64() > Some(2), "{first}");
    assert!(
        first["equivalence_links_inserted"].as_u64() > Some(3),
        "{first}"
    );
    assert!(
        first["equivalence_statements_removed"].as_u64() > Some(3),
        "{first}"
    );

    // A second run gathers the same classes from the links, and changes nothing.
    let dump = server.dump();
    let second = run_store(&server, &extra[..extra.len() - 4]);
    assert_changed_nothing(&second);
    assert_eq!(second["classes"], first["classes"], "{second}");
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));

    // A dry run on a fresh store prints the updates and changes nothing.
    let fresh = self::server(&binary, corpus.dir.path(), "fresh", &corpus.nquads);
    let before = fresh.dump();
    let (query, update) = (fresh.query_url(), fresh.update_url());
    let mut args = store_args(&query, &update, &extra);
    args.push("--dry-run");
    let (stdout, stderr) = pidcanon_ok(&args);
    let dry = report(&stderr);
    assert_eq!(
        dry["equivalence_links_inserted"], first["equivalence_links_inserted"],
        "{dry}"
    );
    assert!(
        stdout.contains("INSERT DATA {") && stdout.contains("DELETE DATA {"),
        "{stdout}"
    );
    assert!(dataset(&fresh.dump(), None) == dataset(&before, None));
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_collapse_a_class_over_max_class_is_reported_and_nothing_changes() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = server(&binary, dir.path(), "store", EQUIVALENT);
    let before = server.dump();
    let (query, update) = (server.query_url(), server.update_url());
    let output = pidcanon(
        &store_args(&query, &update, &["--collapse", "--max-class", "3"]),
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("a class of 4 identifiers (over --max-class 3), representative <https://doi.org/10.5555/r>"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("the store ({query})")), "{stderr}");
    assert!(
        stderr.contains("1 equivalence class larger than --max-class 3: nothing changed"),
        "{stderr}"
    );
    assert!(dataset(&server.dump(), None) == dataset(&before, None));
    // Allowed, it is collapsed.
    let report = run_store(
        &server,
        &["--collapse", "--max-class", "3", "--allow-large-classes"],
    );
    assert_eq!(report["classes"].as_u64(), Some(2), "{report}");
    // The member stays only in the links from its representative.
    assert_eq!(count(&server, "<http://example.org/a> ?p ?o"), 0);
    assert_eq!(
        count(
            &server,
            "<https://doi.org/10.5555/r> <http://www.w3.org/2002/07/owl#sameAs> <http://example.org/a>"
        ),
        1
    );
}

#[test]
fn a_rename_table_with_problems_is_a_usage_error_before_the_store_is_asked() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let table = dir.path().join("rename.tsv");
    std::fs::write(&table, "http://a/\thttp://b/\nhttp://b/\thttp://c/\n").expect("write");
    // No server listens: a usage error must come before any request.
    let url = format!("http://127.0.0.1:{}/query", store_support::free_port());
    let output = pidcanon(
        &["store", "--endpoint", &url, "--rename", path(&table)],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("rename.tsv:1:"), "{stderr}");
    assert!(stderr.contains("itself renamed"), "{stderr}");

    // So is a pairs file with problems, and a pairs file without --collapse.
    let pairs = dir.path().join("pairs.tsv");
    std::fs::write(&pairs, "http://a/\n").expect("write");
    let output = pidcanon(
        &[
            "store",
            "--endpoint",
            &url,
            "--collapse",
            "--equivalences",
            path(&pairs),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("pairs.tsv:1:") && stderr.contains("nothing changed"),
        "{stderr}"
    );
    let output = pidcanon(
        &["store", "--endpoint", &url, "--equivalences", path(&pairs)],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
}

/// Identifiers written as literals: full forms and bare ones under predicates that name their
/// scheme, on IRI subjects (one of them renamed by --rename) and on blank nodes whose nodes name
/// the scheme, in the default graph and in a named graph; an invalid one; literals of predicates
/// outside the default list.
const LITERALS: &str = r#"<http://example.org/article/1> <http://purl.org/ontology/bibo/doi> "https://dx.doi.org/10.1000/XYZ" .
<http://example.org/article/1> <http://purl.org/dc/terms/identifier> "hdl://10013/EPIC.10033" <http://example.org/g1> .
<http://example.org/article/1> <http://purl.org/dc/terms/identifier> "doi:10.1000/ABC"@en .
<http://example.org/article/1> <http://purl.org/dc/terms/identifier> "DOI:10.1000/ABC"^^<http://www.w3.org/2001/XMLSchema#anyURI> .
<http://example.org/article/2> <http://purl.org/ontology/bibo/doi> "doi:10.1000/182" .
<http://example.org/article/2> <http://purl.org/ontology/bibo/doi> "10.1000" .
<http://example.org/article/2> <http://example.org/terms/note> "doi:10.1000/NOTE" .
<info:fedora/demo:BookCModel> <http://purl.org/dc/terms/identifier> "INFO:FEDORA/demo%3aBookCModel" .
<http://example.org/article/3> <http://schema.org/identifier> _:pv .
_:pv <http://schema.org/propertyID> "DOI" .
_:pv <http://schema.org/value> "https://doi.org/10.5555/Bare" .
_:pv2 <http://schema.org/propertyID> "doi" <http://example.org/g1> .
_:pv2 <http://schema.org/value> "doi:10.5555/Other" <http://example.org/g1> .
_:pv3 <http://purl.org/dc/terms/identifier> "hdl:10013/same" .
_:pv4 <http://purl.org/dc/terms/identifier> "hdl:10013/same" .
"#;

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_literals_the_store_ends_as_its_file_rewrite_with_literals_and_a_rerun_changes_nothing() {
    let binary = store_support::oxigraph();
    for (name, options) in [
        ("default", vec!["--literals"]),
        (
            "listed",
            vec![
                "--literals=bibo:doi,schema:value,http://example.org/terms/note",
                "--doi-literal-case",
                "upper",
            ],
        ),
        ("renamed", vec!["--literals=all", "--rename", "RENAME"]),
    ] {
        let corpus = corpus_with(LITERALS, &[("rename.tsv", RENAME)], |dir| {
            let table = path(&dir.join("rename.tsv")).to_owned();
            options
                .iter()
                .map(|o| {
                    if *o == "RENAME" {
                        table.clone()
                    } else {
                        (*o).to_owned()
                    }
                })
                .collect()
        });
        let table = path(&corpus.dir.path().join("rename.tsv")).to_owned();
        let options: Vec<&str> = options
            .iter()
            .map(|o| if *o == "RENAME" { table.as_str() } else { o })
            .collect();
        // The file rewrite changes literals (else this test would not test them).
        let plain = store_support::corpus() + LITERALS;
        let literals_in = |nquads: &str| -> BTreeSet<String> {
            nquads
                .lines()
                .filter(|l| l.contains("\" ") || l.contains("\"@") || l.contains("\"^^"))
                .filter(|l| l.contains("10.") || l.contains("10013") || l.contains("demo"))
                .map(str::to_owned)
                .collect()
        };
        assert!(
            literals_in(&corpus.expected) != literals_in(&plain),
            "{name}: no literal rewritten by the file rewrite"
        );
        let server = server(&binary, corpus.dir.path(), name, &corpus.nquads);
        let mut args = vec!["--batch", "3"];
        args.extend(&options);
        let first = run_store(&server, &args);
        assert!(
            first["literals_rewritten"].as_u64() > Some(0),
            "{name}: {first}"
        );
        assert_normalized(&server, &corpus, &binary, &format!("{name}-reference"));
        let dump = server.dump();
        let second = run_store(&server, &options);
        assert_eq!(
            second["literals_rewritten"].as_u64(),
            Some(0),
            "{name}: {second}"
        );
        assert_eq!(second["updates"].as_u64(), Some(0), "{name}: {second}");
        assert!(
            dataset(&server.dump(), None) == dataset(&dump, None),
            "{name}"
        );
    }
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_literal_update_that_times_out_is_split_not_resent() {
    let binary = store_support::oxigraph();
    let corpus = corpus_with(LITERALS, &[], |_| vec!["--literals".to_owned()]);
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    // SR171 for an update of more than one literal statement.
    let timed_out = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&timed_out);
    let proxy = Proxy::start(Some(server.port), move |request| {
        let literal = request.body.matches("INSERT%20DATA").count() > 1
            && request.body.contains("DELETE%20DATA");
        (request.update > 0 && literal).then(|| {
            seen.lock().expect("lock").push(request.body.clone());
            Reply::new(
                500,
                "text/plain",
                "Virtuoso S1T00 Error SR171: Transaction timed out",
            )
        })
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let mut args = store_args(&query, &update, &["--batch", "4", "--literals"]);
    args.retain(|&a| a != "-q");
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    let timed_out = timed_out.lock().expect("lock").clone();
    assert_never_resent(&timed_out);
    // 4, then 2, then 1 literal statement per update.
    assert_eq!(timed_out.len(), 2, "{stderr}");
    assert_eq!(report["updates_split"].as_u64(), Some(2), "{report}");
    assert_eq!(report["batch"].as_u64(), Some(1), "{report}");
    assert_eq!(report["retries"].as_u64(), Some(0), "{report}");
    assert!(report["literals_rewritten"].as_u64() > Some(1), "{report}");
    assert!(
        stderr
            .contains("pidcanon: an update of 4 literal statements was too large for the store ("),
        "{stderr}"
    );
    assert_normalized(&server, &corpus, &binary, "reference");
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn a_literal_that_blank_nodes_would_have_rewritten_differently_is_left_and_reported() {
    let binary = store_support::oxigraph();
    let dir = tempfile::tempdir().expect("a temporary directory");
    // The same literal under schema:value: bare on the node that says it is a DOI, the DOI
    // resolver's IRI on the other.
    let nquads = "_:a <http://schema.org/propertyID> \"doi\" .\n\
                  _:a <http://schema.org/value> \"doi:10.5555/X\" .\n\
                  _:b <http://schema.org/value> \"doi:10.5555/X\" .\n\
                  <http://example.org/c> <http://schema.org/value> \"doi:10.5555/X\" .\n";
    let server = server(&binary, dir.path(), "store", nquads);
    let (query, update) = (server.query_url(), server.update_url());
    let args = [
        "store",
        "--endpoint",
        &query,
        "--update-endpoint",
        &update,
        "--literals",
        "--report",
        "json",
    ];
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    assert_eq!(report["literals_rewritten"].as_u64(), Some(1), "{report}");
    assert_eq!(report["invalid_identifiers"].as_u64(), Some(1), "{report}");
    assert!(
        stderr.contains("\"doi:10.5555/X\"")
            && stderr.contains("are rewritten differently")
            && stderr.contains("pidcanon rewrite --literals"),
        "{stderr}"
    );
    let dump = server.dump();
    assert_eq!(dump.matches("\"doi:10.5555/X\"").count(), 2, "{dump}");
    assert!(
        dump.contains(
            "<http://example.org/c> <http://schema.org/value> \"https://doi.org/10.5555/X\""
        ),
        "{dump}"
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_snapshot_the_store_ends_as_its_file_rewrite_and_a_rerun_changes_nothing() {
    // Variants held only by statements with a blank node, which an update cannot name: their
    // IRIs are rewritten by per-IRI updates.
    let binary = store_support::oxigraph();
    let corpus = corpus_with(
        "_:b1 <http://purl.org/dc/terms/relation> <info:fedora/demo%3aBLANK1> .\n\
         <info:fedora/demo%3aBLANK2> <http://purl.org/dc/terms/relation> _:b2 <http://example.org/g1> .\n\
         _:b3 <http://purl.org/dc/terms/relation> \"x\" <info:fedora/demo%3aBLANK3> .\n",
        &[],
        |_| Vec::new(),
    );
    let server = server(&binary, corpus.dir.path(), "store", &corpus.nquads);
    for blank in ["BLANK1", "BLANK2", "BLANK3"] {
        assert!(
            corpus
                .expected
                .contains(&format!("<info:fedora/demo:{blank}>"))
        );
    }
    let before = statements(&server);
    let map = corpus.dir.path().join("map.tsv");
    let first = run_store(
        &server,
        &["--snapshot", "--batch", "25", "--map", path(&map)],
    );

    assert_normalized(&server, &corpus, &binary, "reference");
    let rewritten = first["rewritten_total"].as_u64().expect("a count");
    assert!(rewritten > 100, "{first}");
    // The corpus's graph and the one of the blank node statement.
    assert_eq!(first["graph_names_rewritten"].as_u64(), Some(2), "{first}");
    assert!(first["invalid_identifiers"].as_u64() > Some(0), "{first}");
    let replaced = first["statements_replaced"].as_u64().expect("a count");
    assert!(replaced > 100, "{first}");
    assert!(first["updates"].as_u64() > Some(replaced / 25), "{first}");
    let after = statements(&server);
    assert_eq!(first["statements_before"].as_u64(), Some(before));
    assert_eq!(first["statements_after"].as_u64(), Some(after));
    assert!(before > after, "the corpus has variants that collapse");
    assert_eq!(first["duplicates_collapsed"].as_u64(), Some(before - after));
    // Every rewrite, by a statement replaced or by the per-IRI updates of a statement with a
    // blank node, is recorded once in the links graph and in the map.
    let links = count(
        &server,
        &format!("GRAPH <{LINKS}> {{ ?old <http://www.w3.org/2002/07/owl#sameAs> ?new }}"),
    );
    assert_eq!(links, rewritten);
    let map = std::fs::read_to_string(&map).expect("the map");
    assert_eq!(map.lines().count() as u64, rewritten);
    let olds: BTreeSet<&str> = map.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(olds.len() as u64, rewritten, "an IRI told twice: {map}");

    // Neither way finds anything left to do.
    let dump = server.dump();
    for extra in [&["--snapshot"][..], &[]] {
        let again = run_store(&server, extra);
        assert_changed_nothing(&again);
        assert_eq!(again["statements_replaced"].as_u64(), Some(0), "{again}");
    }
    assert!(dataset(&server.dump(), None) == dataset(&dump, None));

    // Read in pages (unsorted, checked against the count), it ends the same.
    let paged = self::server(&binary, corpus.dir.path(), "paged", &corpus.nquads);
    let in_pages = run_store(&paged, &["--snapshot", "--page", "97"]);
    assert_eq!(
        in_pages["statements_replaced"], first["statements_replaced"],
        "{in_pages}"
    );
    assert_normalized(&paged, &corpus, &binary, "paged-reference");

    // A dry run on a fresh store prints the updates and changes nothing.
    let fresh = self::server(&binary, corpus.dir.path(), "fresh", &corpus.nquads);
    let untouched = fresh.dump();
    let (query, update) = (fresh.query_url(), fresh.update_url());
    let (stdout, stderr) = pidcanon_ok(&store_args(&query, &update, &["--snapshot", "--dry-run"]));
    let dry = report(&stderr);
    assert_eq!(
        dry["statements_replaced"], first["statements_replaced"],
        "{dry}"
    );
    assert_eq!(dry["rewritten_total"], first["rewritten_total"], "{dry}");
    assert!(
        stdout.contains("WHERE { VALUES (?s ?p ?o ?s2 ?p2 ?o2) {"),
        "{stdout}"
    );
    assert!(dataset(&fresh.dump(), None) == dataset(&untouched, None));
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_snapshot_renames_collapses_and_literals_end_as_the_file_rewrite() {
    let binary = store_support::oxigraph();
    let owned = |list: &[&str]| list.iter().map(|o| (*o).to_owned()).collect::<Vec<_>>();
    let cases: [(&str, &str, Vec<String>); 3] = [
        ("rename", "", owned(&["--rename", "rename.tsv"])),
        ("collapse", EQUIVALENT, collapse_options("pairs.tsv")),
        ("literals", LITERALS, owned(&["--literals=all"])),
    ];
    for (name, extra, options) in cases {
        // The options, with the files' names as paths in `dir`.
        let in_dir = |dir: &Path| -> Vec<String> {
            options
                .iter()
                .map(|o| match o.as_str() {
                    "rename.tsv" | "pairs.tsv" => path(&dir.join(o)).to_owned(),
                    _ => o.clone(),
                })
                .collect()
        };
        let corpus = corpus_with(
            extra,
            &[("rename.tsv", RENAME), ("pairs.tsv", PAIRS)],
            in_dir,
        );
        let files = in_dir(corpus.dir.path());
        let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
        args.extend(["--snapshot", "--batch", "5"]);
        let server = server(&binary, corpus.dir.path(), name, &corpus.nquads);
        let first = run_store(&server, &args);
        assert!(
            first["statements_replaced"].as_u64() > Some(10),
            "{name}: {first}"
        );
        assert_normalized(&server, &corpus, &binary, &format!("{name}-reference"));
        let dump = server.dump();
        let second = run_store(&server, &args);
        assert_changed_nothing(&second);
        assert_eq!(
            second["statements_replaced"].as_u64(),
            Some(0),
            "{name}: {second}"
        );
        assert!(
            dataset(&server.dump(), None) == dataset(&dump, None),
            "{name}"
        );
    }
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_snapshot_an_update_not_applied_is_a_failure_and_a_rerun_finishes() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    let proxy = lying_proxy(&server, 2);
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let output = pidcanon(
        &store_args(&query, &update, &["--snapshot", "--batch", "20"]),
        &[],
    );
    assert_store_error(
        &output,
        &format!("{update}: the update was answered with success but not applied: "),
    );
    assert_store_error(
        &output,
        "replaced statements checked are still in the store (<",
    );
    assert_store_error(
        &output,
        "partly done (2 updates applied): rerun the same command to finish",
    );
    run_store(&server, &["--snapshot"]);
    assert_normalized(&server, &corpus, &binary, "reference");
}

#[test]
fn with_snapshot_results_cut_at_a_row_cap_change_nothing() {
    let updates = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&updates);
    let proxy = Proxy::start(None, move |request| {
        seen.fetch_max(request.update, Ordering::SeqCst);
        let body = if request.body.contains("COUNT") {
            r#"{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"9"}}]}}"#
        } else {
            r#"{"head":{"vars":["s","p","o"]},"results":{"bindings":[{"s":{"type":"uri","value":"info:fedora/demo%3a1"},"p":{"type":"uri","value":"http://ex/p"},"o":{"type":"literal","value":"x"}}]}}"#
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
    let output = pidcanon(&["store", "--snapshot", "--endpoint", &url], &[]);
    assert_store_error(
        &output,
        &format!(
            "{url}: the store cut the results of the snapshot (every statement in scope) at 1 \
             rows (X-SPARQL-MaxRows); no statement was replaced"
        ),
    );
    assert_eq!(updates.load(Ordering::SeqCst), 0, "an update was sent");
}

#[test]
fn with_snapshot_pages_that_miss_statements_counted_change_nothing() {
    // Read in two parts (the counts by predicate split it), and in one query (a store that
    // cannot group: the statements are counted on their own).
    for (groups, read) in [(true, 2), (false, 1)] {
        let updates = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = Arc::clone(&updates);
        let proxy = Proxy::start(None, move |request| {
            seen.fetch_max(request.update, Ordering::SeqCst);
            // The form's text, percent-encoded.
            let query = percent_encoding::percent_decode_str(&request.body).decode_utf8_lossy();
            let body = if query.contains("GROUP BY") && !groups {
                return Some(Reply::new(400, "text/plain", "GROUP BY is not supported"));
            } else if query.contains("GROUP BY") {
                r#"{"head":{"vars":["p","n"]},"results":{"bindings":[
                    {"p":{"type":"uri","value":"http://ex/p"},"n":{"type":"literal","value":"3"}},
                    {"p":{"type":"uri","value":"http://ex/q"},"n":{"type":"literal","value":"3"}}]}}"#
            } else if query.contains("COUNT") {
                r#"{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"6"}}]}}"#
            } else if !query.contains("SELECT ?s ?p ?o ?g") {
                r#"{"head":{"vars":["g"]},"results":{"bindings":[]}}"#
            } else {
                return Some(Reply::new(
                    200,
                    "text/tab-separated-values",
                    "?s\t?p\t?o\t?g\n<info:fedora/demo%3a1>\t<http://ex/p>\t\"x\"\t\n",
                ));
            };
            Some(Reply::new(200, "application/sparql-results+json", body))
        });
        let url = proxy.url("/sparql");
        let output = pidcanon(
            &["store", "--snapshot", "--page", "10", "--endpoint", &url],
            &[],
        );
        assert_store_error(
            &output,
            &format!(
                "{url}: the pages of the snapshot held {read} statements where 6 were counted: \
                 the store changed while they were read"
            ),
        );
        assert_eq!(updates.load(Ordering::SeqCst), 0, "an update was sent");
    }
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_snapshot_a_statement_another_client_deletes_after_the_read_stays_deleted() {
    let (_binary, _corpus, server) = corpus_on_oxigraph();
    // A statement of the default graph that the run replaces (a variant subject, a literal).
    let registry = Registry::default();
    let dump = server.dump();
    let (line, canonical) = dump
        .lines()
        .filter(|l| l.ends_with("\" .") && l.starts_with('<'))
        .find_map(|l| {
            let subject = l.split(' ').next()?.trim_matches(['<', '>']);
            match registry.canonicalize_claimed(subject) {
                Some(Ok(c)) if c.iri != subject => Some((l.to_owned(), c.iri.into_owned())),
                _ => None,
            }
        })
        .expect("a statement with a variant subject and a literal object");
    // Another client deletes it once the statements are read, before the first update that
    // replaces statements (after those of the graph names, sent before the read).
    let port = server.port;
    let deleted = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = Arc::clone(&deleted);
    let statement = line.clone();
    let proxy = Proxy::start(Some(port), move |request| {
        let text = percent_encoding::percent_decode_str(&request.body).decode_utf8_lossy();
        if text.contains("VALUES (?s ?p ?o ?s2 ?p2 ?o2)") && !done.swap(true, Ordering::SeqCst) {
            let (status, body) = store_support::http(
                port,
                "POST",
                "/update",
                &[("Content-Type", "application/sparql-update")],
                format!("DELETE DATA {{ {statement} }}").as_bytes(),
            );
            assert!((200..300).contains(&status), "{body}");
        }
        None
    });
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let (_, stderr) = pidcanon_ok(&store_args(&query, &update, &["--snapshot"]));
    let report = report(&stderr);
    assert!(deleted.load(Ordering::SeqCst), "{report}");
    assert!(
        report["statements_replaced"].as_u64() > Some(100),
        "{report}"
    );
    let rest = line.split_once(' ').expect("a statement").1;
    let after = server.dump();
    assert!(!after.contains(&line), "{line}");
    assert!(
        !after.contains(&format!("<{canonical}> {rest}")),
        "the statement deleted by another client came back canonical: <{canonical}> {rest}"
    );
}

#[test]
#[ignore = "needs an Oxigraph server: .ci/store.sh installs one and runs it"]
fn with_snapshot_an_update_too_large_or_timed_out_is_split_not_resent() {
    let (binary, corpus, server) = corpus_on_oxigraph();
    // As Virtuoso answers an update it cannot compile (a 400 that says so) or finish in time
    // (a 500 with SR171): here, for any replacement of more than 40 statements.
    let (proxy, refused) = proxy_refusing(
        server.port,
        |_, text| {
            text.contains("VALUES (?s ?p ?o ?s2 ?p2 ?o2)") && text.matches("\n  (").count() > 40
        },
        |refused_before| match refused_before {
            0 => Reply::new(
                400,
                "text/plain",
                "Virtuoso 37000 Error SP031: SPARQL: Internal error: The length of \
                 generated SQL text has exceeded 10000 lines of code",
            ),
            _ => Reply::new(
                500,
                "text/plain",
                "Virtuoso S1T00 Error SR171: Transaction timed out",
            ),
        },
    );
    let (query, update) = (proxy.url("/query"), proxy.url("/update"));
    let mut args = store_args(
        &query,
        &update,
        &["--snapshot", "--batch", "200", "--backoff", "10"],
    );
    args.retain(|&a| a != "-q");
    let (_, stderr) = pidcanon_ok(&args);
    let report = report(&stderr);
    let refused = refused.lock().expect("lock").clone();
    assert_never_resent(&refused);
    // 200 → 100 → 50 → 25: three splits, then never again.
    assert_eq!(refused.len(), 3, "{stderr}");
    assert_eq!(report["updates_split"].as_u64(), Some(3), "{report}");
    assert_eq!(report["retries"].as_u64(), Some(0), "{report}");
    assert!(
        stderr.contains("pidcanon: an update of 200 statements was too large for the store (")
            && stderr.contains("has exceeded 10000 lines of code")
            && stderr.contains("sending it again in updates of at most 25 statements"),
        "{stderr}"
    );
    assert_normalized(&server, &corpus, &binary, "reference");
}
