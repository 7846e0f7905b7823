//! Shared by the `pidcanon store` tests: real servers on free loopback ports (stopped when their
//! guard drops), a fault-injecting loopback proxy, a raw HTTP helper, and set comparison of
//! N-Quads.

#![allow(dead_code)]

use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::{Dataset, GraphNameRef};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The corpus with variant spellings: the bundled examples and a generated corpus
/// (`fixtures/store/generated-2000.nt`, made by `gen_corpus.py --triples 2000 --seed 7`, the
/// generator before `benches/gen_rdf.py`, and kept as it was), spread over the default graph
/// and named graphs, one of them named by a variant of another's name.
pub fn corpus() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("fixture");
    let examples = read("fixtures/examples/repository.nt");
    let generated = read("fixtures/store/generated-2000.nt");
    let lines: Vec<&str> = generated.lines().collect();
    let (first, second) = lines.split_at(lines.len() / 2);
    let in_graph = |lines: &mut dyn Iterator<Item = &str>, graph: &str| -> String {
        lines
            .filter_map(|l| l.strip_suffix(" ."))
            .map(|l| format!("{l} <{graph}> .\n"))
            .collect()
    };
    [
        examples.clone(),
        in_graph(&mut first.iter().copied(), "http://example.org/g1"),
        in_graph(&mut second.iter().copied(), "INFO:fedora/demo%3a1"),
        in_graph(&mut examples.lines(), "info:fedora/demo:1"),
    ]
    .concat()
}

/// The oxigraph server binary: `$PIDCANON_OXIGRAPH` (set by .ci/store.sh), else the one
/// .ci/store.sh installs into target/venvs/store. Without either the test fails, saying what to
/// install: a test that needs a server never passes without one.
pub fn oxigraph() -> PathBuf {
    if let Some(path) = std::env::var_os("PIDCANON_OXIGRAPH") {
        return PathBuf::from(path);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/venvs/store/bin/oxigraph");
    assert!(
        venv.exists(),
        "no Oxigraph server: run .ci/store.sh (it installs PyPI's `oxigraph` into \
         target/venvs/store), or set PIDCANON_OXIGRAPH to an `oxigraph` binary"
    );
    venv
}

/// A port no one listens on now.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16, child: &mut Child, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before listening: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {port} within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An `oxigraph serve` process on a free loopback port, killed when dropped.
pub struct Oxigraph {
    binary: PathBuf,
    location: PathBuf,
    pub port: u16,
    child: Option<Child>,
    /// More arguments of `oxigraph serve`.
    args: Vec<String>,
}

impl Oxigraph {
    /// Starts a server on the store in `location` (created if missing).
    pub fn start(binary: &Path, location: &Path) -> Self {
        Self::start_with(binary, location, &[])
    }

    /// Starts a server on the store in `location` with more arguments of `oxigraph serve`
    /// (`--union-default-graph`).
    pub fn start_with(binary: &Path, location: &Path, args: &[&str]) -> Self {
        let mut server = Self {
            binary: binary.to_owned(),
            location: location.to_owned(),
            port: free_port(),
            child: None,
            args: args.iter().map(|&a| a.to_owned()).collect(),
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let mut child = Command::new(&self.binary)
            .arg("serve")
            .arg("--location")
            .arg(&self.location)
            .arg("--bind")
            .arg(format!("127.0.0.1:{}", self.port))
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start oxigraph");
        wait_for_port(self.port, &mut child, "oxigraph");
        self.child = Some(child);
    }

    /// Kills the server (SIGKILL: no clean shutdown).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same store and port.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    pub fn query_url(&self) -> String {
        format!("http://127.0.0.1:{}/query", self.port)
    }

    pub fn update_url(&self) -> String {
        format!("http://127.0.0.1:{}/update", self.port)
    }

    /// Adds N-Quads to the store.
    pub fn load(&self, nquads: &str) {
        let (status, body) = http(
            self.port,
            "POST",
            "/store",
            &[("Content-Type", "application/n-quads")],
            nquads.as_bytes(),
        );
        assert!((200..300).contains(&status), "load: HTTP {status} {body}");
    }

    /// The whole store as N-Quads.
    pub fn dump(&self) -> String {
        let (status, body) = http(
            self.port,
            "GET",
            "/store",
            &[("Accept", "application/n-quads")],
            b"",
        );
        assert_eq!(status, 200, "dump: {body}");
        body
    }
}

impl Drop for Oxigraph {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One HTTP/1.1 request (`Connection: close`): the status and the (de-chunked) body.
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    stream.write_all(body).expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("receive");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let mut body = response[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, String::from_utf8(body).expect("UTF-8"))
}

fn dechunk(mut chunked: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = chunked
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size_text = String::from_utf8_lossy(&chunked[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .expect("hex chunk size");
        if size == 0 {
            return body;
        }
        let start = line_end + 2;
        body.extend_from_slice(&chunked[start..start + size]);
        chunked = &chunked[start + size + 2..];
    }
}

/// Runs `pidcanon ARGS` with `env` set.
pub fn pidcanon(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run pidcanon")
}

/// `pidcanon ARGS` that must succeed; its stdout and stderr.
pub fn pidcanon_ok(args: &[&str]) -> (String, String) {
    let output = pidcanon(args, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "pidcanon {args:?}: {stderr}");
    (stdout, stderr)
}

/// Asserts that `output` is a run that failed on the store (exit 3) with `message` in its
/// messages.
pub fn assert_store_error(output: &Output, message: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

/// The JSON report `--report json` printed last on stderr.
pub fn report(stderr: &str) -> serde_json::Value {
    let line = stderr.lines().last().expect("a report");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// The report of `pidcanon ARGS` with `env`, which must succeed.
pub fn report_of(args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let output = pidcanon(args, env);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    report(&stderr)
}

/// Asserts that the run of `report` (with `--collapse`) found nothing left to do.
pub fn assert_changed_nothing(report: &serde_json::Value) {
    for key in [
        "rewritten_total",
        "updates",
        "equivalence_links_inserted",
        "equivalence_statements_removed",
    ] {
        assert_eq!(report[key].as_u64(), Some(0), "{key}: {report}");
    }
}

/// N-Quads as a dataset with canonical blank node labels, without the quads of `drop_graph`.
pub fn dataset(nquads: &str, drop_graph: Option<&str>) -> Dataset {
    let mut dataset = Dataset::new();
    for quad in oxttl::NQuadsParser::new().for_slice(nquads.as_bytes()) {
        let quad = quad.expect("valid N-Quads");
        let dropped = matches!((drop_graph, quad.graph_name.as_ref()),
            (Some(g), GraphNameRef::NamedNode(n)) if n.as_str() == g);
        if !dropped {
            dataset.insert(&quad);
        }
    }
    dataset.canonicalize(CanonicalizationAlgorithm::Unstable);
    dataset
}

/// What a fake endpoint or the proxy sends back instead of forwarding.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: &str) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".to_owned(), content_type.to_owned())],
            body: body.to_owned(),
        }
    }
}

/// A request the proxy received.
pub struct Request {
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// 1 for the first update received, 2 for the second…; 0 for a query.
    pub update: usize,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

type Decide = dyn Fn(&Request) -> Option<Reply> + Send + Sync;

/// A loopback HTTP proxy to `upstream` (or, without one, a fake endpoint) that lets `decide`
/// answer a request itself; a request it does not answer is forwarded, and when the upstream is
/// down the client's connection is closed, as a network failure would.
pub struct Proxy {
    pub port: u16,
    /// Updates forwarded to the upstream and answered.
    pub forwarded_updates: Arc<AtomicUsize>,
}

impl Proxy {
    pub fn start(
        upstream: Option<u16>,
        decide: impl Fn(&Request) -> Option<Reply> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("address").port();
        let forwarded_updates = Arc::new(AtomicUsize::new(0));
        let updates_seen = Arc::new(AtomicUsize::new(0));
        let decide: Arc<Decide> = Arc::new(decide);
        let forwarded = Arc::clone(&forwarded_updates);
        // The accepting thread ends with the test process.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (decide, seen, forwarded) = (
                    Arc::clone(&decide),
                    Arc::clone(&updates_seen),
                    Arc::clone(&forwarded),
                );
                std::thread::spawn(move || {
                    serve(stream, upstream, &*decide, &seen, &forwarded);
                });
            }
        });
        Self {
            port,
            forwarded_updates,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// Serves the requests of one keep-alive connection.
fn serve(
    stream: TcpStream,
    upstream: Option<u16>,
    decide: &Decide,
    seen: &AtomicUsize,
    forwarded: &AtomicUsize,
) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut writer = stream;
    while let Some((head, headers, body)) = read_request(&mut reader) {
        let text = String::from_utf8_lossy(&body).into_owned();
        let update = if text.starts_with("update=") {
            seen.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            0
        };
        let request = Request {
            headers,
            body: text,
            update,
        };
        if let Some(reply) = decide(&request) {
            let mut response = format!("HTTP/1.1 {} Reply\r\n", reply.status);
            for (name, value) in &reply.headers {
                response.push_str(&format!("{name}: {value}\r\n"));
            }
            response.push_str(&format!(
                "Content-Length: {}\r\n\r\n{}",
                reply.body.len(),
                reply.body
            ));
            if writer.write_all(response.as_bytes()).is_err() {
                return;
            }
            continue;
        }
        let Some(Ok(mut up)) = upstream.map(|port| TcpStream::connect(("127.0.0.1", port))) else {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        };
        let mut forward = format!("{head}\r\nConnection: close\r\n");
        for (name, value) in &request.headers {
            if !name.eq_ignore_ascii_case("connection") {
                forward.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        forward.push_str("\r\n");
        let mut response = Vec::new();
        let relayed = up.write_all(forward.as_bytes()).is_ok()
            && up.write_all(&body).is_ok()
            && up.read_to_end(&mut response).is_ok()
            && !response.is_empty();
        if !relayed {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
        if update > 0 {
            forwarded.fetch_add(1, Ordering::SeqCst);
        }
        if writer.write_all(&response).is_err() {
            return;
        }
    }
}

/// A request line, its headers and its body.
type RawRequest = (String, Vec<(String, String)>, Vec<u8>);

/// The next request on a connection; `None` at its end.
fn read_request(reader: &mut impl BufRead) -> Option<RawRequest> {
    let mut head = String::new();
    if reader.read_line(&mut head).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((head.trim_end().to_owned(), headers, body))
}
