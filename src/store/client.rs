//! A blocking SPARQL 1.1 protocol client: queries and updates as URL-encoded POSTs, HTTP basic,
//! bearer and digest authentication, timeouts, and retries with backoff on transient failures.
//! Query results are read as they arrive, one row at a time.

use super::StoreError;
use super::sparql::iri;
use super::terms::{self, EachRow, Term};
use base64::Engine;
use oxrdf::{Literal, NamedNode};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::io::{BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The largest error or update response read.
const MAX_RESPONSE: u64 = 1 << 20;

/// The longest wait for a TLS server's first answer to a handshake, before the first request
/// to an `https://` endpoint.
const TLS_PROBE: Duration = Duration::from_secs(10);

/// How the client authenticates.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// HTTP basic authentication.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// HTTP digest authentication (RFC 7616; Virtuoso's `/sparql-auth`).
    Digest {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// A bearer token (`Authorization: Bearer …`).
    Bearer(String),
}

impl std::fmt::Debug for Credentials {
    /// Never shows the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::Basic { user, .. } => write!(f, "Basic({user}:***)"),
            Credentials::Digest { user, .. } => write!(f, "Digest({user}:***)"),
            Credentials::Bearer(_) => f.write_str("Bearer(***)"),
        }
    }
}

/// The authentication schemes, to read a secret as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthScheme {
    /// `user:password`, sent with HTTP basic authentication.
    Basic,
    /// `user:password`, sent with HTTP digest authentication.
    Digest,
    /// A token.
    Bearer,
}

impl Credentials {
    /// Reads `secret` (from an environment variable or a file; surrounding white space, such as
    /// a final newline, is ignored) as credentials of `scheme`.
    ///
    /// ```
    /// use pidcanon::store::{AuthScheme, Credentials};
    /// let c = Credentials::new(AuthScheme::Digest, "dba:dba\n").unwrap();
    /// assert_eq!(c, Credentials::Digest { user: "dba".into(), password: "dba".into() });
    /// assert!(Credentials::new(AuthScheme::Basic, "no-colon").is_err());
    /// ```
    pub fn new(scheme: AuthScheme, secret: &str) -> Result<Self, StoreError> {
        let secret = secret.trim();
        let user_password = || {
            secret
                .split_once(':')
                .map(|(user, password)| (user.to_owned(), password.to_owned()))
                .ok_or_else(|| StoreError::Config("credentials: expected user:password".to_owned()))
        };
        Ok(match scheme {
            AuthScheme::Basic => {
                let (user, password) = user_password()?;
                Credentials::Basic { user, password }
            }
            AuthScheme::Digest => {
                let (user, password) = user_password()?;
                Credentials::Digest { user, password }
            }
            AuthScheme::Bearer if secret.is_empty() => {
                return Err(StoreError::Config("credentials: empty token".to_owned()));
            }
            AuthScheme::Bearer => Credentials::Bearer(secret.to_owned()),
        })
    }
}

/// How the [`Client`] connects.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Where updates go, when not to the query endpoint.
    pub update_endpoint: Option<String>,
    /// Credentials for both endpoints.
    pub credentials: Option<Credentials>,
    /// The longest a request may take, sending and receiving included.
    pub timeout: Duration,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Retries of a request that failed transiently (connection refused or reset, timeout,
    /// HTTP 408, 429, 500, 502, 503, 504).
    pub retries: u32,
    /// The wait before the first retry; it doubles at each retry, up to 30 s.
    pub backoff: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            update_endpoint: None,
            credentials: None,
            timeout: Duration::from_secs(300),
            user_agent: concat!("pidcanon/", env!("CARGO_PKG_VERSION")).to_owned(),
            retries: 5,
            backoff: Duration::from_millis(500),
        }
    }
}

/// A SPARQL 1.1 protocol client for one query endpoint and one update endpoint.
///
/// ```no_run
/// use pidcanon::store::{Client, ClientOptions};
/// let client = Client::new("http://127.0.0.1:7878/query", ClientOptions {
///     update_endpoint: Some("http://127.0.0.1:7878/update".into()),
///     ..ClientOptions::default()
/// });
/// let rows = client.select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")?;
/// println!("{} row", rows.len());
/// client.update("INSERT DATA { <urn:a> <urn:b> <urn:c> }")?;
/// # Ok::<_, pidcanon::store::StoreError>(())
/// ```
#[derive(Debug)]
pub struct Client {
    agent: ureq::Agent,
    query_endpoint: String,
    update_endpoint: String,
    options: ClientOptions,
    /// The last digest challenge, answered again (with the next nonce count) by later requests.
    digest: RefCell<Option<digest_auth::WwwAuthenticateHeader>>,
    requests: Cell<u64>,
    retried: Cell<u64>,
    /// The `https://` endpoints found to answer a TLS handshake.
    tls_checked: RefCell<Vec<String>>,
    /// The `Server` header of the first answer that had one.
    server: RefCell<Option<String>>,
}

/// One row of query results: variable name → value.
pub type Row = HashMap<String, Value>;

/// A value in query results.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Value {
    /// `uri`, `literal`, `typed-literal` or `bnode`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The IRI, the lexical form or the blank node label.
    pub value: String,
    /// A literal's datatype, if the results say (not for simple and language-tagged ones).
    #[serde(default)]
    pub datatype: Option<String>,
    /// A language-tagged literal's language.
    #[serde(default, rename = "xml:lang")]
    pub lang: Option<String>,
}

/// The media type of SPARQL JSON results.
const JSON_RESULTS: &str = "application/sparql-results+json";

/// What [`Client::select_terms_each`] asks for: SPARQL TSV results (terms written as in Turtle,
/// the cheapest for a store to write and to read), else JSON results.
const TERMS_RESULTS: &str = "text/tab-separated-values, application/sparql-results+json;q=0.9";

impl Value {
    /// The term this value of JSON results is.
    pub(crate) fn term(&self) -> Term<'static> {
        let value = self;
        match value.kind.as_str() {
            "uri" => Term::Iri(Cow::Owned(value.value.clone())),
            "bnode" => Term::Blank,
            "triple" => Term::Triple,
            "literal" | "typed-literal" => {
                let literal = match (&value.lang, &value.datatype) {
                    (Some(lang), _) => {
                        Literal::new_language_tagged_literal_unchecked(&value.value, lang)
                    }
                    (None, Some(datatype)) if iri(datatype).is_some() => {
                        Literal::new_typed_literal(
                            &value.value,
                            NamedNode::new_unchecked(datatype.as_str()),
                        )
                    }
                    (None, Some(_)) => return Term::Other,
                    (None, None) => Literal::new_simple_literal(&value.value),
                };
                Term::Literal(Cow::Owned(literal.to_string()))
            }
            _ => Term::Other,
        }
    }
}

/// The 2xx answer of an endpoint, its body not read yet.
type Response = ureq::http::Response<ureq::Body>;

/// Reads SPARQL JSON results (`{"head": …, "results": {"bindings": [row, …]}}`), giving each
/// row to `each` as soon as it is parsed; `head` is required, to tell them from other JSON.
struct ResultsSeed<'a> {
    each: &'a mut dyn FnMut(Row) -> Result<(), StoreError>,
    /// The error of `each` that stopped the reading.
    stopped: &'a mut Option<StoreError>,
}

impl<'de> DeserializeSeed<'de> for ResultsSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ResultsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SPARQL JSON results")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut head, mut results) = (false, false);
        let mut seed = Some(self);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "head" => {
                    map.next_value::<IgnoredAny>()?;
                    head = true;
                }
                "results" => match seed.take() {
                    Some(seed) => {
                        map.next_value_seed(Section::Results(seed))?;
                        results = true;
                    }
                    None => return Err(de::Error::duplicate_field("results")),
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (head, results) {
            (true, true) => Ok(()),
            (false, _) => Err(de::Error::missing_field("head")),
            (true, false) => Err(de::Error::missing_field("results")),
        }
    }
}

/// The `results` object, then its `bindings` array.
enum Section<'a> {
    Results(ResultsSeed<'a>),
    Bindings(ResultsSeed<'a>),
}

impl<'de> DeserializeSeed<'de> for Section<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self {
            Section::Results(_) => deserializer.deserialize_map(self),
            Section::Bindings(_) => deserializer.deserialize_seq(self),
        }
    }
}

impl<'de> Visitor<'de> for Section<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Section::Results(_) => f.write_str("a results object"),
            Section::Bindings(_) => f.write_str("an array of bindings"),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Section::Results(seed) = self else {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        };
        let mut seed = Some(seed);
        while let Some(key) = map.next_key::<String>()? {
            match (key.as_str(), seed.take()) {
                ("bindings", Some(seed)) => map.next_value_seed(Section::Bindings(seed))?,
                ("bindings", None) => return Err(de::Error::duplicate_field("bindings")),
                (_, taken) => {
                    seed = taken;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match seed {
            Some(_) => Err(de::Error::missing_field("bindings")),
            None => Ok(()),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Section::Bindings(seed) = self else {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        };
        while let Some(row) = seq.next_element::<Row>()? {
            if let Err(e) = (seed.each)(row) {
                *seed.stopped = Some(e);
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

/// What a request is.
#[derive(Clone, Copy)]
enum Operation {
    Query,
    Update,
}

/// The row cap an answer says its results were cut at (Virtuoso's `X-SPARQL-MaxRows`).
fn max_rows(response: &Response) -> Option<String> {
    response
        .headers()
        .get("x-sparql-maxrows")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// What to do when a request times out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnTimeout {
    /// Retry it, as other transient failures.
    Retry,
    /// Give up at once with [`StoreError::TimedOut`]: the caller sends something smaller.
    GiveUp,
}

impl Client {
    /// A client of the SPARQL endpoint at `query_endpoint`.
    #[must_use]
    pub fn new(query_endpoint: &str, options: ClientOptions) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(options.timeout))
            .user_agent(options.user_agent.as_str())
            .build()
            .new_agent();
        Self {
            agent,
            query_endpoint: query_endpoint.to_owned(),
            update_endpoint: options
                .update_endpoint
                .clone()
                .unwrap_or_else(|| query_endpoint.to_owned()),
            options,
            digest: RefCell::new(None),
            requests: Cell::new(0),
            retried: Cell::new(0),
            tls_checked: RefCell::new(Vec::new()),
            server: RefCell::new(None),
        }
    }

    /// Another client of the same endpoints with the same options and what this one learned
    /// (the TLS check, the `Server` header), for a request sent beside this client's on
    /// another thread; its requests are counted apart until [`Self::absorb`] adds them.
    #[must_use]
    pub fn fork(&self) -> Self {
        let mut fork = Self::new(&self.query_endpoint, self.options.clone());
        fork.update_endpoint.clone_from(&self.update_endpoint);
        fork.digest = RefCell::new(self.digest.borrow().clone());
        fork.tls_checked = RefCell::new(self.tls_checked.borrow().clone());
        fork.server = RefCell::new(self.server.borrow().clone());
        fork
    }

    /// Counts the requests and retries of `fork` as this client's.
    pub fn absorb(&self, fork: &Self) {
        self.requests.set(self.requests.get() + fork.requests());
        self.retried.set(self.retried.get() + fork.retries());
    }

    /// Checks that `url` can be an endpoint: a URL with `http://` or `https://` and a host. An
    /// endpoint without them (`localhost:7878/update`) is a setting that cannot work, not a
    /// store that failed: [`StoreError::Config`], naming it.
    ///
    /// ```
    /// use pidcanon::store::Client;
    /// assert!(Client::check_url("http://localhost:7878/query").is_ok());
    /// let e = Client::check_url("localhost:7878/query").unwrap_err();
    /// assert!(e.to_string().starts_with("localhost:7878/query: not a URL with http:// or https://"));
    /// ```
    pub fn check_url(url: &str) -> Result<(), StoreError> {
        let rest = strip_prefix_ignore_case(url, "http://")
            .or_else(|| strip_prefix_ignore_case(url, "https://"));
        match rest {
            Some(rest) if !authority_part(rest).is_empty() => Ok(()),
            Some(_) => Err(StoreError::Config(format!(
                "{url}: not a URL with http:// or https:// and a host"
            ))),
            None => {
                let example = match url.split_once("://") {
                    Some((_, rest)) => rest,
                    None => url,
                };
                Err(StoreError::Config(format!(
                    "{url}: not a URL with http:// or https://: an endpoint is a URL such as \
                     http://{example}"
                )))
            }
        }
    }

    /// The query endpoint.
    #[must_use]
    pub fn query_endpoint(&self) -> &str {
        &self.query_endpoint
    }

    /// The update endpoint.
    #[must_use]
    pub fn update_endpoint(&self) -> &str {
        &self.update_endpoint
    }

    /// HTTP requests sent so far, retries and authentication challenges included.
    #[must_use]
    pub fn requests(&self) -> u64 {
        self.requests.get()
    }

    /// Retries so far, after transient failures.
    #[must_use]
    pub fn retries(&self) -> u64 {
        self.retried.get()
    }

    /// The `Server` header of the first answer that had one (`Virtuoso/07.20.3229 (Linux) …`),
    /// once a request was answered.
    #[must_use]
    pub fn server(&self) -> Option<String> {
        self.server.borrow().clone()
    }

    /// Runs a `SELECT` query; its rows.
    pub fn select(&self, query: &str) -> Result<Vec<Row>, StoreError> {
        let mut rows = Vec::new();
        self.select_each(query, &mut |row| {
            rows.push(row);
            Ok(())
        })?;
        Ok(rows)
    }

    /// Runs a `SELECT` query and gives each row to `each` as it is read, so that the results
    /// are never all in memory; an error of `each` stops the reading and is returned. Returns
    /// the row cap the endpoint says it cut the results at, if it says so (Virtuoso's
    /// `X-SPARQL-MaxRows` header).
    ///
    /// A request that fails before its answer starts is retried; one cut in the middle of the
    /// results is not (the rows already given cannot be taken back).
    ///
    /// ```no_run
    /// use pidcanon::store::{Client, ClientOptions};
    /// let client = Client::new("http://127.0.0.1:7878/query", ClientOptions::default());
    /// let mut subjects = 0;
    /// let cut = client.select_each("SELECT DISTINCT ?s WHERE { ?s ?p ?o }", &mut |_row| {
    ///     subjects += 1;
    ///     Ok(())
    /// })?;
    /// assert!(cut.is_none(), "the endpoint cut the results short");
    /// # Ok::<_, pidcanon::store::StoreError>(())
    /// ```
    pub fn select_each(
        &self,
        query: &str,
        each: &mut dyn FnMut(Row) -> Result<(), StoreError>,
    ) -> Result<Option<String>, StoreError> {
        let (content_type, response) = self.send(Operation::Query, query, OnTimeout::Retry)?;
        self.read_results(content_type, response, each)
    }

    /// Reads the SPARQL JSON results of `response`, giving each row to `each`; the row cap, as
    /// [`Self::select_each`] returns it.
    fn read_results(
        &self,
        content_type: Option<String>,
        response: Response,
        each: &mut dyn FnMut(Row) -> Result<(), StoreError>,
    ) -> Result<Option<String>, StoreError> {
        let cut = max_rows(&response);
        let reader = BufReader::with_capacity(1 << 16, response.into_body().into_reader());
        let mut stopped = None;
        let seed = ResultsSeed {
            each,
            stopped: &mut stopped,
        };
        let parsed = seed.deserialize(&mut serde_json::Deserializer::from_reader(reader));
        if let Some(e) = stopped {
            return Err(e);
        }
        parsed.map(|()| cut).map_err(|e| match e.classify() {
            serde_json::error::Category::Io => StoreError::Unavailable {
                endpoint: self.query_endpoint.clone(),
                attempts: 1,
                reason: format!("the results were cut off: {e}"),
            },
            _ => StoreError::NotSparql {
                endpoint: self.query_endpoint.clone(),
                reason: format!(
                    "a query was answered with {} that is not SPARQL JSON results ({e})",
                    content_type.as_deref().unwrap_or("no content type")
                ),
            },
        })
    }

    /// Runs a `SELECT` query and gives each row to `each` as it is read, as the [`Term`]s of
    /// `vars` in that order (`None`: unbound): with `tsv`, asks for TSV results, whose terms an
    /// update can copy as they are, and reads JSON results if that is what the endpoint sends;
    /// else asks for JSON results. Returns the row cap the endpoint says it cut the results at,
    /// as [`Self::select_each`] does.
    pub(crate) fn select_terms_each(
        &self,
        query: &str,
        vars: &[&str],
        tsv: bool,
        each: &mut EachRow<'_>,
    ) -> Result<Option<String>, StoreError> {
        let accept = if tsv { TERMS_RESULTS } else { JSON_RESULTS };
        let (content_type, response) =
            self.send_accepting(Operation::Query, query, OnTimeout::Retry, accept)?;
        let tsv = content_type
            .as_deref()
            .is_some_and(|t| t.trim_start().starts_with("text/tab-separated-values"));
        if !tsv {
            let mut terms = Vec::with_capacity(vars.len());
            let cut = self.read_results(content_type, response, &mut |row| {
                terms.clear();
                terms.extend(vars.iter().map(|var| row.get(*var).map(Value::term)));
                each(&terms)
            })?;
            return Ok(cut);
        }
        let cut = max_rows(&response);
        let reader = BufReader::with_capacity(1 << 16, response.into_body().into_reader());
        terms::read_tsv(reader, vars, each).map_err(|e| match e {
            terms::TsvError::Stopped(e) => e,
            terms::TsvError::Io(e) => StoreError::Unavailable {
                endpoint: self.query_endpoint.clone(),
                attempts: 1,
                reason: format!("the results were cut off: {e}"),
            },
            terms::TsvError::Syntax(reason) => StoreError::NotSparql {
                endpoint: self.query_endpoint.clone(),
                reason: format!("TSV results that cannot be read: {reason}"),
            },
        })?;
        Ok(cut)
    }

    /// Runs an `ASK` query; its answer.
    pub fn ask(&self, query: &str) -> Result<bool, StoreError> {
        #[derive(Deserialize)]
        struct Boolean {
            boolean: bool,
        }
        let (content_type, mut response) = self.send(Operation::Query, query, OnTimeout::Retry)?;
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE)
            .read_to_string()
            .map_err(|e| StoreError::Unavailable {
                endpoint: self.query_endpoint.clone(),
                attempts: 1,
                reason: format!("the answer was cut off: {e}"),
            })?;
        serde_json::from_str::<Boolean>(&text)
            .map(|b| b.boolean)
            .map_err(|e| StoreError::NotSparql {
                endpoint: self.query_endpoint.clone(),
                reason: format!(
                    "an ASK query was answered with {} that is not a SPARQL JSON boolean ({e})",
                    content_type.as_deref().unwrap_or("no content type")
                ),
            })
    }

    /// Runs a SPARQL update.
    pub fn update(&self, update: &str) -> Result<(), StoreError> {
        self.update_with(update, OnTimeout::Retry)
    }

    /// Runs a SPARQL update, retrying transient failures but not a timeout: an update that
    /// timed out (no answer within the timeout, HTTP 408 or 504, or a 5xx that says it timed
    /// out, as Virtuoso's `SR171: Transaction timed out`) fails at once with
    /// [`StoreError::TimedOut`], so that the caller can send it again in smaller pieces rather
    /// than the same update, which would time out again.
    pub fn update_or_time_out(&self, update: &str) -> Result<(), StoreError> {
        self.update_with(update, OnTimeout::GiveUp)
    }

    fn update_with(&self, update: &str, on_timeout: OnTimeout) -> Result<(), StoreError> {
        let (_, mut response) = self.send(Operation::Update, update, on_timeout)?;
        // Read the (short) answer, so that the connection can serve the next request.
        let _ = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE)
            .read_to_vec();
        Ok(())
    }

    /// Sends one request, retrying transient failures; the content type and the answer.
    fn send(
        &self,
        operation: Operation,
        text: &str,
        on_timeout: OnTimeout,
    ) -> Result<(Option<String>, Response), StoreError> {
        self.send_accepting(operation, text, on_timeout, JSON_RESULTS)
    }

    /// [`Self::send`], asking for the media types `accept`.
    fn send_accepting(
        &self,
        operation: Operation,
        text: &str,
        on_timeout: OnTimeout,
        accept: &str,
    ) -> Result<(Option<String>, Response), StoreError> {
        let (endpoint, form) = match operation {
            Operation::Query => (&self.query_endpoint, "query="),
            Operation::Update => (&self.update_endpoint, "update="),
        };
        Self::check_url(endpoint)?;
        let body = format!("{form}{}", utf8_percent_encode(text, NON_ALPHANUMERIC));
        self.check_tls(endpoint)?;
        let mut attempt = 0;
        let mut challenged = false;
        loop {
            attempt += 1;
            let reason = match self.attempt(endpoint, &body, accept) {
                Ok(Answer::Done(content_type, response)) => return Ok((content_type, response)),
                Ok(Answer::Challenge(challenge)) if !challenged => {
                    // Answer a new digest challenge at once, once.
                    challenged = true;
                    attempt -= 1;
                    self.digest.replace(Some(challenge));
                    continue;
                }
                Ok(Answer::Challenge(_)) => {
                    return Err(StoreError::Status {
                        endpoint: endpoint.clone(),
                        status: 401,
                        body: "the digest credentials were refused".to_owned(),
                    });
                }
                Ok(Answer::Failed(status, text, offers)) => {
                    if let Some(advice) = self.advice(operation, status, &text, &offers) {
                        return Err(StoreError::Refused {
                            endpoint: endpoint.clone(),
                            status,
                            body: text,
                            advice,
                        });
                    }
                    if !transient(status) {
                        return Err(StoreError::Status {
                            endpoint: endpoint.clone(),
                            status,
                            body: text,
                        });
                    }
                    let excerpt: String = text.trim().chars().take(200).collect();
                    let reason = format!("HTTP {status}: {excerpt}")
                        .trim_end_matches([' ', ':'])
                        .to_owned();
                    if on_timeout == OnTimeout::GiveUp && timed_out(status, &text) {
                        return Err(StoreError::TimedOut {
                            endpoint: endpoint.clone(),
                            reason,
                        });
                    }
                    reason
                }
                Err(Permanent(reason)) => {
                    return Err(StoreError::Unavailable {
                        endpoint: endpoint.clone(),
                        attempts: attempt,
                        reason,
                    });
                }
                Err(TimedOut(reason)) if on_timeout == OnTimeout::GiveUp => {
                    return Err(StoreError::TimedOut {
                        endpoint: endpoint.clone(),
                        reason,
                    });
                }
                Err(Transient(reason) | TimedOut(reason)) => reason,
            };
            if attempt > self.options.retries {
                return Err(StoreError::Unavailable {
                    endpoint: endpoint.clone(),
                    attempts: attempt,
                    reason,
                });
            }
            self.retried.set(self.retried.get() + 1);
            let factor = 1u32.checked_shl(attempt - 1).unwrap_or(u32::MAX);
            std::thread::sleep(self.options.backoff.saturating_mul(factor).min(MAX_BACKOFF));
        }
    }

    /// One HTTP request.
    fn attempt(&self, endpoint: &str, body: &str, accept: &str) -> Result<Answer, Failure> {
        self.requests.set(self.requests.get() + 1);
        let mut request = self
            .agent
            .post(endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", accept);
        if let Some(authorization) = self.authorization(endpoint, body) {
            request = request.header("Authorization", authorization);
        }
        let mut response = request.send(body).map_err(failure)?;
        if self.server.borrow().is_none() {
            if let Some(server) = response
                .headers()
                .get("server")
                .and_then(|v| v.to_str().ok())
            {
                self.server.replace(Some(server.trim().to_owned()));
            }
        }
        let status = response.status().as_u16();
        let header = |name| {
            response
                .headers()
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let content_type = header("content-type").into_iter().next();
        let offers = header("www-authenticate");
        let challenge = offers
            .iter()
            .find(|h| h.trim_start().to_ascii_lowercase().starts_with("digest"))
            .cloned();
        if (200..300).contains(&status) {
            return Ok(Answer::Done(content_type, response));
        }
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(failure)?;
        let digest = matches!(self.options.credentials, Some(Credentials::Digest { .. }));
        match challenge.map(|c| digest_auth::parse(&c)) {
            Some(Ok(challenge)) if status == 401 && digest => Ok(Answer::Challenge(challenge)),
            _ => Ok(Answer::Failed(status, text, offers)),
        }
    }

    /// What to change when `operation` got `status` with `body`, for refusals retrying does
    /// not change and whose bare status leaves an administrator stuck.
    fn advice(
        &self,
        operation: Operation,
        status: u16,
        body: &str,
        offers: &[String],
    ) -> Option<String> {
        let lower = body.to_ascii_lowercase();
        if body.contains("SR186") {
            // Virtuoso's anonymous /sparql: "SR186: No permission to execute procedure
            // DB.DBA.SPARUL_RUN" (as a 500, which retrying does not change).
            return Some(
                "the endpoint does not let this user update the store (Virtuoso SR186): send the \
                 updates to an endpoint that authenticates, such as Virtuoso's /sparql-auth with \
                 --auth digest and --credentials-env VAR"
                    .to_owned(),
            );
        }
        if status == 401 {
            let digest_offered = offers
                .iter()
                .any(|h| h.trim_start().to_ascii_lowercase().starts_with("digest"));
            return Some(match (&self.options.credentials, digest_offered) {
                (None, true) => "the endpoint asks for credentials, with digest authentication: \
                                 add --auth digest and --credentials-env VAR (or \
                                 --credentials-file FILE) holding user:password"
                    .to_owned(),
                (None, false) => "the endpoint asks for credentials: add --credentials-env VAR \
                                  (or --credentials-file FILE) holding user:password (or a \
                                  token, with --auth bearer)"
                    .to_owned(),
                (Some(Credentials::Digest { .. }), _) => {
                    "the digest credentials were refused".to_owned()
                }
                (Some(_), true) => "the endpoint asks for digest authentication: add --auth \
                                    digest"
                    .to_owned(),
                (Some(_), false) => "the credentials were refused".to_owned(),
            });
        }
        // Not a Virtuoso error (which may quote the query it could not compile).
        let query_only = lower.contains("query")
            && !lower.contains("update")
            && !body.contains("Virtuoso 37000 Error");
        if matches!(operation, Operation::Update) && (400..500).contains(&status) && query_only {
            return Some(format!(
                "{} is a query endpoint, which does not take updates: give the update endpoint \
                 with --update-endpoint (Oxigraph: /update, Fuseki: /DATASET/update, RDF4J: \
                 /repositories/ID/statements)",
                self.update_endpoint
            ));
        }
        None
    }

    /// Before the first request to an `https://` endpoint, checks that its server answers a TLS
    /// handshake: a plain HTTP server waits for a request line (Virtuoso, Oxigraph), which made
    /// every attempt wait for the whole timeout. Sends a TLS ClientHello followed by an empty
    /// line: a TLS server answers the ClientHello with a TLS record (a ServerHello, or an alert),
    /// a plain HTTP server the line with `HTTP/…`. Says nothing when it cannot connect (the
    /// request then fails, and is retried, as usual) or behind a proxy.
    fn check_tls(&self, endpoint: &str) -> Result<(), StoreError> {
        let Some(rest) = strip_prefix_ignore_case(endpoint, "https://") else {
            return Ok(());
        };
        if self.tls_checked.borrow().iter().any(|e| e == endpoint) {
            return Ok(());
        }
        let proxied = ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
        if !proxied {
            let wait = self.options.timeout.min(TLS_PROBE);
            if let Some(reason) = probe_tls(authority(rest), wait) {
                return Err(StoreError::NotTls {
                    endpoint: endpoint.to_owned(),
                    reason,
                });
            }
        }
        self.tls_checked.borrow_mut().push(endpoint.to_owned());
        Ok(())
    }

    /// The `Authorization` header for a request to `endpoint`, if the credentials give one.
    fn authorization(&self, endpoint: &str, body: &str) -> Option<String> {
        let engine = base64::engine::general_purpose::STANDARD;
        match self.options.credentials.as_ref()? {
            Credentials::Basic { user, password } => Some(format!(
                "Basic {}",
                engine.encode(format!("{user}:{password}"))
            )),
            Credentials::Bearer(token) => Some(format!("Bearer {token}")),
            Credentials::Digest { user, password } => {
                let mut digest = self.digest.borrow_mut();
                let context = digest_auth::AuthContext::new_post(
                    user.as_str(),
                    password.as_str(),
                    request_target(endpoint),
                    Some(body.as_bytes()),
                );
                digest
                    .as_mut()?
                    .respond(&context)
                    .ok()
                    .map(|h| h.to_header_string())
            }
        }
    }
}

/// What an endpoint answered.
enum Answer {
    /// 2xx: the content type and the answer, its body not read yet.
    Done(Option<String>, Response),
    /// 401 with a digest challenge.
    Challenge(digest_auth::WwwAuthenticateHeader),
    /// Another status, the body and the `WWW-Authenticate` headers.
    Failed(u16, String, Vec<String>),
}

/// A request that got no answer.
enum Failure {
    /// Worth retrying: the connection failed.
    Transient(String),
    /// No answer within the timeout.
    TimedOut(String),
    /// Not worth retrying: a bad URL, an unknown host, a TLS failure.
    Permanent(String),
}
use Failure::{Permanent, TimedOut, Transient};

fn failure(error: ureq::Error) -> Failure {
    match error {
        ureq::Error::Timeout(_) => TimedOut(error.to_string()),
        ureq::Error::Io(ref e) if e.kind() == std::io::ErrorKind::TimedOut => {
            TimedOut(error.to_string())
        }
        ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::Protocol(_) => {
            Transient(error.to_string())
        }
        _ => Permanent(error.to_string()),
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The `user@host:port` part of the rest of a URL after its scheme.
fn authority_part(rest: &str) -> &str {
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// The `host:port` of the rest of a URL after `https://` (port 443 if none).
fn authority(rest: &str) -> String {
    let host_port = authority_part(rest);
    let host_port = host_port.rsplit_once('@').map_or(host_port, |(_, h)| h);
    let has_port = match host_port.rfind(']') {
        Some(bracket) => host_port[bracket..].contains(':'),
        None => host_port.contains(':'),
    };
    if has_port {
        host_port.to_owned()
    } else {
        format!("{host_port}:443")
    }
}

/// Why the server at `authority` is not a TLS server, if it is not (see
/// [`Client::check_tls`]); `None` if it answers as one, or cannot be reached.
fn probe_tls(authority: String, wait: Duration) -> Option<String> {
    let address = authority.to_socket_addrs().ok()?.next()?;
    let mut stream = TcpStream::connect_timeout(&address, wait).ok()?;
    stream.set_read_timeout(Some(wait)).ok()?;
    stream.set_write_timeout(Some(wait)).ok()?;
    let mut hello = client_hello();
    hello.extend_from_slice(b"\r\n\r\n");
    stream.write_all(&hello).ok()?;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 64];
    while answer.len() < 5 {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e)
                if answer.is_empty()
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
            {
                return Some(format!(
                    "{authority} did not answer a TLS handshake within {} s",
                    wait.as_secs_f64()
                ));
            }
            Err(_) => break,
        }
    }
    match answer.first() {
        // A TLS record: change_cipher_spec, alert, handshake or application data.
        Some(0x14..=0x17) => None,
        None => Some(format!(
            "{authority} closed the connection without answering a TLS handshake"
        )),
        Some(_) if answer.starts_with(b"HTTP/") => Some(format!(
            "{authority} answered a TLS handshake in plain HTTP"
        )),
        Some(_) => Some(format!(
            "{authority} answered a TLS handshake with something else than TLS"
        )),
    }
}

/// A TLS 1.2 ClientHello (common cipher suites, no extensions): enough for a TLS server to
/// answer with a ServerHello or an alert.
fn client_hello() -> Vec<u8> {
    let suites: [u8; 16] = [
        0xc0, 0x2f, 0xc0, 0x2b, 0xc0, 0x30, 0xc0, 0x2c, 0x00, 0x9c, 0x00, 0x9d, 0x00, 0x2f, 0x00,
        0x35,
    ];
    let mut body = vec![0x03, 0x03];
    // The random: a fixed one will do, nothing is negotiated.
    body.extend((0u8..32).map(|i| i.wrapping_mul(37).wrapping_add(11)));
    body.push(0); // no session id
    body.extend_from_slice(&(suites.len() as u16).to_be_bytes());
    body.extend_from_slice(&suites);
    body.extend_from_slice(&[0x01, 0x00]); // null compression only
    let length = (body.len() as u32).to_be_bytes();
    let mut handshake = vec![0x01, length[1], length[2], length[3]];
    handshake.extend_from_slice(&body);
    let mut record = vec![0x16, 0x03, 0x01];
    record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
    record.extend_from_slice(&handshake);
    record
}

/// HTTP statuses worth retrying: the server is busy, restarting or failed this once.
fn transient(status: u16) -> bool {
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504)
}

/// Whether a failed request's status and body say that it timed out: a gateway's 504, a 408,
/// or a 500 or 503 whose body says so (Virtuoso: `Virtuoso S1T00 Error SR171: Transaction timed
/// out`).
fn timed_out(status: u16, body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    matches!(status, 408 | 504)
        || (matches!(status, 500 | 503)
            && (body.contains("S1T00")
                || body.contains("SR171")
                || lower.contains("timed out")
                || lower.contains("timeout")))
}

/// The path and query of `url`, the request target digest authentication signs.
fn request_target(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/", |slash| &rest[slash..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_are_the_terms_tsv_would_give() {
        let value = |kind: &str, value: &str, datatype: Option<&str>, lang: Option<&str>| Value {
            kind: kind.to_owned(),
            value: value.to_owned(),
            datatype: datatype.map(str::to_owned),
            lang: lang.map(str::to_owned),
        };
        let xsd_integer = "http://www.w3.org/2001/XMLSchema#integer";
        let cases = [
            (
                value("uri", "info:fedora/demo%3A1", None, None),
                "<info:fedora/demo%3A1>",
            ),
            (
                value("literal", "a\tb\"", None, Some("en")),
                "\"a\\tb\\\"\"@en",
            ),
            (
                value("literal", "12", Some(xsd_integer), None),
                "\"12\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            ),
            (value("typed-literal", "x", None, None), "\"x\""),
            (value("bnode", "b0", None, None), "_:b0"),
            (value("triple", "", None, None), "<<( <a> <b> <c> )>>"),
        ];
        for (json, tsv) in cases {
            let read = crate::store::terms::tests::rows(&format!("?s\n{tsv}\n")).expect("TSV")[0]
                [0]
            .clone();
            let of_tsv = match read {
                // TSV literals are kept as written: compare them as JSON gives them.
                Some(Term::Literal(_)) => Some(Term::Literal(Cow::Owned(tsv.to_owned()))),
                other => other,
            };
            assert_eq!(Some(json.term()), of_tsv, "{json:?}");
        }
        assert_eq!(
            (value("literal", "x", Some("http://ex/a b"), None)).term(),
            Term::Other
        );
    }

    #[test]
    fn the_request_target_is_the_path_and_query() {
        assert_eq!(
            request_target("http://h:8890/sparql-auth?x=1"),
            "/sparql-auth?x=1"
        );
        assert_eq!(request_target("http://h:8890"), "/");
    }

    #[test]
    fn the_authority_of_an_https_url_has_a_port() {
        assert_eq!(authority("h.org/sparql"), "h.org:443");
        assert_eq!(authority("u:p@h.org:8443/sparql?x"), "h.org:8443");
        assert_eq!(authority("[::1]/q"), "[::1]:443");
        assert_eq!(authority("[::1]:8443#f"), "[::1]:8443");
        assert_eq!(strip_prefix_ignore_case("HTTPS://h", "https://"), Some("h"));
        assert_eq!(client_hello()[..3], [0x16, 0x03, 0x01]);
    }

    #[test]
    fn timeouts_are_told_from_other_failures() {
        assert!(timed_out(
            500,
            "Virtuoso S1T00 Error SR171: Transaction timed out\n\nSPARQL query:…"
        ));
        assert!(timed_out(504, ""));
        assert!(timed_out(408, ""));
        assert!(timed_out(503, "upstream request timeout"));
        assert!(!timed_out(500, "disk full"));
        assert!(!timed_out(502, "bad gateway"));
    }

    #[test]
    fn secrets_are_not_debug_printed() {
        let c = Credentials::new(AuthScheme::Basic, "u:secret").expect("valid");
        assert!(!format!("{c:?}").contains("secret"));
        let t = Credentials::new(AuthScheme::Bearer, "secret").expect("valid");
        assert!(!format!("{t:?}").contains("secret"));
    }
}
