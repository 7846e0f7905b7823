//! Properties, on generated identifiers (built from each grammar, spelled every way the adapters
//! accept, and mutated) and generated graphs: nothing panics; canonicalization is idempotent; a
//! canonical output is an IRI its adapter claims and keeps; every spelling of one identifier
//! gives one canonical form; distinct identifiers stay distinct; a rewrite keeps the statement
//! count and is idempotent.

use pidcanon::rewrite::{RdfFormat, Rewriter};
use pidcanon::{Kind, Registry};
use proptest::prelude::*;
use std::borrow::Cow;
use std::sync::LazyLock;

static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::default);

/// Checks the properties every successful canonicalization has; returns the canonical form.
fn canonical(input: &str) -> Result<(String, Kind), TestCaseError> {
    let c = REGISTRY
        .canonicalize(input)
        .map_err(|e| TestCaseError::fail(format!("{input:?}: {e}")))?;
    let out = c.iri.to_string();
    prop_assert!(
        pidcanon::iri::validate(&out).is_ok(),
        "{input:?} -> {out:?} is not an IRI"
    );
    let again = REGISTRY
        .canonicalize(&out)
        .map_err(|e| TestCaseError::fail(format!("{out:?}: {e}")))?;
    prop_assert!(
        matches!(again.iri, Cow::Borrowed(_)),
        "{out:?} changes again: {:?}",
        again.iri
    );
    prop_assert_eq!(again.kind, c.kind, "{} changes kind", out);
    if c.kind != Kind::Iri {
        prop_assert!(
            REGISTRY.adapter_for(&out).is_some(),
            "no adapter claims {out:?}"
        );
    }
    Ok((out, c.kind))
}

/// Spellings of one identifier must all give `expected`.
fn all_same(spellings: &[String]) -> Result<String, TestCaseError> {
    let (first, _) = canonical(&spellings[0])?;
    for spelling in &spellings[1..] {
        let (other, _) = canonical(spelling)?;
        prop_assert_eq!(
            &other,
            &first,
            "{:?} and {:?} differ",
            spelling,
            spellings[0]
        );
    }
    Ok(first)
}

/// `s` with the hex digits of its escapes in random case.
fn hex_case(s: &str, upper: bool) -> String {
    let mut out = String::new();
    let mut escape = 0;
    for c in s.chars() {
        if c == '%' {
            escape = 2;
            out.push(c);
        } else if escape > 0 {
            escape -= 1;
            out.push(if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
        } else {
            out.push(c);
        }
    }
    out
}

fn pid() -> impl Strategy<Value = (String, String)> {
    (
        "[A-Za-z0-9][A-Za-z0-9.-]{0,8}",
        "([A-Za-z0-9._~-]|%[0-9A-F][0-9A-F]){1,12}",
    )
}

/// A handle that is not a DOI (its naming authority does not start with `10.`), whose local
/// name has a letter.
fn handle() -> impl Strategy<Value = (String, String)> {
    (
        "(1[1-9]|[2-9])[0-9]{0,3}(\\.[0-9A-Za-z]{1,4})?",
        "[A-Za-z][A-Za-z0-9._-]{0,11}",
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fedora_spellings_collapse((namespace, object) in pid(), lower in any::<bool>()) {
        prop_assume!(namespace.len() + 1 + object.len() <= 64);
        let hex = |s: &str| hex_case(s, !lower);
        let canonical = all_same(&[
            format!("info:fedora/{namespace}:{object}"),
            format!("INFO:FEDORA/{namespace}:{}", hex(&object)),
            format!("info:Fedora/{namespace}%3A{object}"),
            format!("info:fedora/{namespace}%3a{}", hex(&object)),
        ])?;
        prop_assert_eq!(canonical, format!("info:fedora/{namespace}:{}", hex_case(&object, true)));
    }

    #[test]
    fn fedora_escapes_are_never_decoded(namespace in "[a-z]{1,8}", letter in "[A-Z]") {
        let escaped = format!("info:fedora/{namespace}:%{:02X}", letter.as_bytes()[0]);
        let plain = format!("info:fedora/{namespace}:{letter}");
        prop_assert_ne!(canonical(&escaped)?.0, canonical(&plain)?.0);
    }

    #[test]
    fn handle_spellings_collapse((na, local) in handle()) {
        let canonical = all_same(&[
            format!("hdl:{na}/{local}"),
            format!("HDL:{}/{local}", na.to_ascii_lowercase()),
            format!("hdl://{na}/{local}"),
            format!("info:hdl/{na}/{local}"),
            format!("urn:hdl:{na}/{local}"),
            format!("urn:hdl:{na}:{local}"),
            format!("https://hdl.handle.net/{na}/{local}"),
            format!("http://HDL.handle.net:80/{na}%2F{local}"),
        ])?;
        prop_assert!(canonical.ends_with(&local), "{canonical}");
    }

    #[test]
    fn prefix_handles_collapse_in_any_case(
        prefix in "[0-9A-Za-z-]{1,5}(\\.[0-9A-Za-z-]{1,5}){0,3}",
        lower in any::<bool>(),
    ) {
        let spelled = if lower { prefix.to_ascii_lowercase() } else { prefix.to_ascii_uppercase() };
        let canonical = all_same(&[
            format!("hdl:0.NA/{prefix}"),
            format!("hdl:0.na/{spelled}"),
            format!("https://hdl.handle.net/0.NA/{spelled}"),
        ])?;
        prop_assert_eq!(canonical, format!("hdl:0.NA/{}", prefix.to_ascii_uppercase()));
    }

    #[test]
    fn handle_local_names_keep_their_case((na, local) in handle()) {
        let lower = canonical(&format!("hdl:{na}/{}", local.to_ascii_lowercase()))?.0;
        let upper = canonical(&format!("hdl:{na}/{}", local.to_ascii_uppercase()))?.0;
        prop_assert_ne!(lower, upper);
    }

    #[test]
    fn doi_spellings_collapse(prefix in "10\\.[0-9]{4,5}", suffix in "[A-Za-z0-9.()_-]{1,16}") {
        all_same(&[
            format!("doi:{prefix}/{suffix}"),
            format!("DOI:{prefix}/{}", suffix.to_ascii_uppercase()),
            format!("https://doi.org/{prefix}/{suffix}"),
            format!("http://dx.doi.org/{prefix}/{}", suffix.to_ascii_lowercase()),
            format!("info:doi/{prefix}/{suffix}"),
            format!("urn:doi:{prefix}:{suffix}"),
            format!("hdl:{prefix}/{suffix}"),
        ])?;
    }

    #[test]
    fn oai_identifiers_are_kept_and_pois_collapse(
        domain in "[a-z][a-z0-9-]{0,6}(\\.[a-z][a-z0-9-]{0,6}){1,3}",
        // `uric` characters, and escapes of exactly the characters RFC 2396 does not allow raw.
        local in "([A-Za-z0-9;/?:@&=+$,_.!~*'()-]|%(20|22|23|25|3C|3E|5B|5C|5D|5E|60|7B|7C|7D|C3%A9)){1,12}",
    ) {
        let oai = format!("oai:{domain}:{local}");
        let c = REGISTRY.canonicalize(&oai).map_err(|e| TestCaseError::fail(format!("{oai}: {e}")))?;
        prop_assert_eq!(c.iri.as_ref(), oai.as_str());
        prop_assert!(matches!(c.iri, Cow::Borrowed(_)));
        let poi = format!("http://purl.org/poi/{domain}/{local}");
        let canonical = all_same(&[poi.clone(), format!("HTTPS://PURL.ORG/poi/{domain}/{local}")])?;
        prop_assert_eq!(canonical, poi);
    }

    #[test]
    fn pdi_spellings_collapse(
        series in "[a-z][a-z0-9-]{0,6}(\\.[a-z][a-z0-9-]{0,6}){0,2}\\.[a-z]{2}",
        year in 1900u32..2100, month in 1u32..=12, day in 1u32..=28,
        id in "[A-Za-z0-9]{1,8}", version in 1u32..100,
    ) {
        let nss = format!("//{series}/{year}/{month:02}/{day:02}/{id}.text.{version}");
        let canonical = all_same(&[
            format!("urn:pdi:{nss}#char=1,2"),
            format!("pdi:{nss}#1,2"),
            format!("URN:PDI://{}/{year}/{month:02}/{day:02}/{id}.TEXT.{version}#CHAR=1,2", series.to_ascii_uppercase()),
        ])?;
        prop_assert!(canonical.contains(&id), "{canonical}: the unique id keeps its case");
    }

    #[test]
    fn arbitrary_text_never_panics_and_successes_hold(input in "\\PC{0,40}") {
        if REGISTRY.canonicalize(&input).is_ok() {
            canonical(&input)?;
        }
        for scheme in ["fedora", "oai", "poi", "handle", "doi", "pdi"] {
            if let Some(Ok(c)) = REGISTRY.canonicalize_as(scheme, &input) {
                canonical(&c.iri)?;
            }
        }
    }

    #[test]
    fn mutated_identifiers_never_panic(
        base in prop::sample::select(vec![
            "info:fedora/demo:1/demo:B/m?b=2&a=%41", "hdl://10013/a%2Fb?x#y", "doi:10.1000/ABC",
            "urn:pdi://oma.eop.gov.us/1997/09/01/4.text.1@103=pdi://oma.eop.gov.us/1997/09/01/1.gif.1#(1,2),(3,4)",
            "oai:a.b:c%20d", "http://purl.org/poi/a.b/c", "https://doi.org/10.1/x",
        ]),
        at in any::<prop::sample::Index>(),
        insert in "[%:/?#@.=&,()*~ a-zA-Z0-9\u{e9}\u{0}]{0,3}",
        cut in 0usize..4,
    ) {
        let mut s = base.to_owned();
        let mut i = at.index(s.len() + 1);
        while !s.is_char_boundary(i) { i -= 1; }
        let end = (i + cut).min(s.len());
        let end = (end..=s.len()).find(|&e| s.is_char_boundary(e)).unwrap_or(s.len());
        s.replace_range(i..end, &insert);
        if REGISTRY.canonicalize(&s).is_ok() {
            canonical(&s)?;
        }
    }
}

fn rewrite(input: &[u8]) -> Result<(Vec<u8>, u64, u64), String> {
    let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input).map_err(|e| e.to_string())?;
    let report = session.finish().map_err(|e| e.to_string())?;
    Ok((out, report.statements_read, report.statements_written))
}

fn term() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "<info:fedora/demo%3a1>",
        "<info:fedora/demo:1>",
        "<hdl://10013/X>",
        "<http://dx.doi.org/10.1/ABC>",
        "<http://example.org/a>",
        "<info:fedora/de_mo:1>",
        "\"caf\\u00E9\"@EN",
        "\"x\"^^<http://dx.doi.org/10.1/X>",
        "_:b1",
        "<urn:pdi://oma.eop.gov.us/1997/09/01/1.TEXT.1>",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn rewriting_keeps_statements_and_is_idempotent(
        statements in prop::collection::vec((term(), term(), term()), 0..20),
    ) {
        let mut doc = String::new();
        for (s, p, o) in &statements {
            let s = if s.starts_with('"') { "<http://example.org/s>" } else { s };
            let p = if p.starts_with('<') { p.as_str() } else { "<http://example.org/p>" };
            doc.push_str(&format!("{s} {p} {o} .\n"));
        }
        let (once, read, written) = rewrite(doc.as_bytes()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(read, statements.len() as u64);
        prop_assert_eq!(written, read);
        let (twice, _, _) = rewrite(&once).map_err(TestCaseError::fail)?;
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_rewriter(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = rewrite(&bytes);
        let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::Turtle).skip_syntax_errors();
        let mut session = rewriter.session(std::io::sink());
        let _ = session.rewrite(bytes.as_slice());
        let _ = session.finish();
    }
}
