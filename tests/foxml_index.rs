//! `--foxml-properties` against what Fedora 3's resource index holds for an object (its
//! `FedoraObjectTripleGenerator_3_0`, `DCFields` and `DateUtility`): DC values trimmed and with
//! their `xml:lang`, a datastream with no `STATE` Active and an unknown state refused, the first
//! of two versions with the same `CREATED`, `""` for a missing label or owner, dates written in
//! UTC with `Z`; and duplicate PIDs in an object store reported.

mod common;

use common::run_pidcanon;
use oxrdf::GraphName;
use pidcanon::foxml::{FoxmlError, FoxmlObject, FoxmlOptions, PidIndex};
use std::collections::BTreeSet;

const M: &str = "info:fedora/fedora-system:def/model#";
const V: &str = "info:fedora/fedora-system:def/view#";
const DT: &str = "^^<http://www.w3.org/2001/XMLSchema#dateTime>";
const O: &str = "<info:fedora/demo:1>";

/// A FOXML object with `properties` (each `NAME VALUE`) and `datastreams`.
fn object(properties: &[(&str, &str)], datastreams: &str) -> String {
    let properties: String = properties
        .iter()
        .map(|(name, value)| format!("\n  <foxml:property NAME=\"{name}\" VALUE=\"{value}\"/>"))
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<foxml:digitalObject VERSION="1.1" PID="demo:1" xmlns:foxml="info:fedora/fedora-system:def/foxml#">
 <foxml:objectProperties>{properties}
 </foxml:objectProperties>
{datastreams}
</foxml:digitalObject>"#
    )
}

/// The usual object properties.
fn properties() -> Vec<(String, &'static str)> {
    vec![
        (format!("{M}state"), "Active"),
        (format!("{M}label"), "A label"),
        (format!("{M}ownerId"), "fedoraAdmin"),
        (format!("{M}createdDate"), "2008-07-02T05:09:42.015Z"),
        (format!("{V}lastModifiedDate"), "2008-07-02T05:09:42.015Z"),
    ]
}

fn borrowed<'a>(properties: &'a [(String, &'static str)]) -> Vec<(&'a str, &'static str)> {
    properties.iter().map(|(n, v)| (n.as_str(), *v)).collect()
}

/// An inline datastream `id` with `attributes` and one version per `(CREATED, content)`.
fn datastream(id: &str, attributes: &str, versions: &[(&str, &str)]) -> String {
    let versions: String = versions
        .iter()
        .enumerate()
        .map(|(i, (created, content))| {
            format!(
                r#"
  <foxml:datastreamVersion ID="{id}.{i}" CREATED="{created}" MIMETYPE="text/xml">
   <foxml:xmlContent>{content}</foxml:xmlContent>
  </foxml:datastreamVersion>"#
            )
        })
        .collect();
    format!(
        r#" <foxml:datastream ID="{id}" CONTROL_GROUP="X" {attributes}>{versions}
 </foxml:datastream>"#
    )
}

fn quads(foxml: &str) -> Result<BTreeSet<String>, FoxmlError> {
    let object = FoxmlObject::read(foxml.as_bytes())?;
    let quads = object.quads(
        FoxmlOptions { properties: true },
        &GraphName::DefaultGraph,
        &mut |_, _, _| {},
    )?;
    Ok(quads.iter().map(|q| format!("{q} .")).collect())
}

fn about(found: &BTreeSet<String>, predicate: &str) -> Vec<String> {
    found
        .iter()
        .filter(|s| s.contains(&format!("<{predicate}>")))
        .cloned()
        .collect()
}

#[test]
fn dc_values_are_trimmed_and_keep_their_language() {
    // As fcrepo's demo objects write them: a value on lines of its own, an empty element,
    // and values with xml:lang (kept as written, as every literal pidcanon reads).
    let dc = r#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:title xml:lang="en-GB">
        Smiley Bucket
      </dc:title>
      <dc:title xml:lang="fr">Seau souriant</dc:title>
      <dc:description>
					</dc:description>
      <dc:subject xml:lang="">	x	</dc:subject>
    </oai_dc:dc>"#;
    let foxml = object(
        &borrowed(&properties()),
        &datastream("DC", r#"STATE="A""#, &[("2008-07-02T05:09:42.937Z", dc)]),
    );
    let found = quads(&foxml).expect("statements");
    let dc = "http://purl.org/dc/elements/1.1/";
    assert_eq!(
        about(&found, &format!("{dc}title")),
        [
            format!("{O} <{dc}title> \"Seau souriant\"@fr ."),
            format!("{O} <{dc}title> \"Smiley Bucket\"@en-GB ."),
        ]
    );
    assert_eq!(
        about(&found, &format!("{dc}description")),
        [format!("{O} <{dc}description> \"\" .")]
    );
    assert_eq!(
        about(&found, &format!("{dc}subject")),
        [format!("{O} <{dc}subject> \"x\" .")]
    );
}

#[test]
fn a_dc_language_that_is_no_language_tag_is_an_error_with_its_place() {
    let dc = r#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title xml:lang="en_GB">x</dc:title></oai_dc:dc>"#;
    let foxml = object(
        &borrowed(&properties()),
        &datastream("DC", r#"STATE="A""#, &[("2008-07-02T05:09:42Z", dc)]),
    );
    let error = quads(&foxml).expect_err("not a language tag");
    let message = error.to_string();
    assert!(message.contains("en_GB"), "{message}");
    assert_eq!(
        error.location().map(|l| l.to_string()),
        Some("12:136".into())
    );
}

#[test]
fn a_missing_state_is_active() {
    let mut props = properties();
    props.retain(|(name, _)| !name.ends_with("#state"));
    let foxml = object(
        &borrowed(&props),
        &datastream("DC", "", &[("2008-07-02T05:09:42Z", "<x/>")]),
    );
    let found = quads(&foxml).expect("statements");
    assert_eq!(
        about(&found, &format!("{M}state")),
        [
            format!("<info:fedora/demo:1/DC> <{M}state> <{M}Active> ."),
            format!("{O} <{M}state> <{M}Active> ."),
        ]
    );
}

#[test]
fn states_are_the_ones_fedora_knows() {
    // Fedora reads A, I, D, their long forms and their model# IRIs; nothing else.
    for (written, state) in [
        ("A", "Active"),
        ("Inactive", "Inactive"),
        ("info:fedora/fedora-system:def/model#Deleted", "Deleted"),
    ] {
        let foxml = object(
            &borrowed(&properties()),
            &datastream(
                "DC",
                &format!(r#"STATE="{written}""#),
                &[("2008-07-02T05:09:42Z", "<x/>")],
            ),
        );
        let found = quads(&foxml).expect("statements");
        assert!(
            found.contains(&format!(
                "<info:fedora/demo:1/DC> <{M}state> <{M}{state}> ."
            )),
            "{written}: {found:#?}"
        );
    }
    // An unknown state is refused, where it is written: a datastream's…
    let foxml = object(
        &borrowed(&properties()),
        &datastream("DC", r#"STATE="a""#, &[("2008-07-02T05:09:42Z", "<x/>")]),
    );
    let error = quads(&foxml).expect_err("unknown state");
    assert_eq!(error.location().map(|l| l.to_string()), Some("10:2".into()));
    let message = error.to_string();
    assert!(
        message.starts_with("10:2: ") && message.contains("\"a\"") && message.contains("DC"),
        "{message}"
    );
    // … and the object's.
    let mut props = properties();
    props[0].1 = "X";
    let foxml = object(&borrowed(&props), "");
    let error = quads(&foxml).expect_err("unknown state");
    assert_eq!(error.location().map(|l| l.to_string()), Some("4:3".into()));
    assert!(error.to_string().contains("\"X\""), "{error}");
    // Without --foxml-properties the state is not written, and not looked at.
    let object = FoxmlObject::read(foxml.as_bytes()).expect("an object");
    assert!(
        object
            .quads(
                FoxmlOptions::default(),
                &GraphName::DefaultGraph,
                &mut |_, _, _| {}
            )
            .is_ok()
    );
}

#[test]
fn of_two_versions_created_at_once_the_first_in_the_file_is_current() {
    let dc = |title: &str| {
        format!(
            r#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></oai_dc:dc>"#
        )
    };
    let (first, second) = (dc("first"), dc("second"));
    let foxml = object(
        &borrowed(&properties()),
        &datastream(
            "DC",
            r#"STATE="A""#,
            &[
                ("2008-07-02T05:09:42.5Z", &first),
                ("2008-07-02T05:09:42.500Z", &second),
            ],
        ),
    );
    let found = quads(&foxml).expect("statements");
    assert_eq!(
        about(&found, "http://purl.org/dc/elements/1.1/title"),
        [format!(
            "{O} <http://purl.org/dc/elements/1.1/title> \"first\" ."
        )]
    );
}

#[test]
fn a_missing_label_or_owner_is_empty() {
    let mut props = properties();
    props.retain(|(name, _)| !name.ends_with("#label") && !name.ends_with("#ownerId"));
    let found = quads(&object(&borrowed(&props), "")).expect("statements");
    assert_eq!(
        about(&found, &format!("{M}label")),
        [format!("{O} <{M}label> \"\" .")]
    );
    assert_eq!(
        about(&found, &format!("{M}ownerId")),
        [format!("{O} <{M}ownerId> \"\" .")]
    );
}

#[test]
fn dates_are_written_in_utc_as_fedora_writes_them() {
    for (written, expected) in [
        ("2008-07-02T05:09:42.500Z", "2008-07-02T05:09:42.5Z"),
        ("2008-07-02T05:09:42.5", "2008-07-02T05:09:42.5Z"),
        ("2008-07-02T05:09:42", "2008-07-02T05:09:42Z"),
        ("2008-07-02", "2008-07-02T00:00:00Z"),
        ("2008-07-02T01:09:42.000+02:00", "2008-07-01T23:09:42Z"),
        ("2008-12-31T23:30:00-01:00", "2009-01-01T00:30:00Z"),
    ] {
        let mut props = properties();
        props[3].1 = written;
        let found = quads(&object(&borrowed(&props), "")).expect("statements");
        assert_eq!(
            about(&found, &format!("{M}createdDate")),
            [format!("{O} <{M}createdDate> \"{expected}\"{DT} .")],
            "{written}"
        );
    }
    // A datastream's CREATED too.
    let foxml = object(
        &borrowed(&properties()),
        &datastream("DC", r#"STATE="A""#, &[("2008-07-02T05:09:42.9", "<x/>")]),
    );
    let found = quads(&foxml).expect("statements");
    assert!(
        found.contains(&format!(
            "<info:fedora/demo:1/DC> <{V}lastModifiedDate> \"2008-07-02T05:09:42.9Z\"{DT} ."
        )),
        "{found:#?}"
    );
    // What is no date is refused, where it is written.
    for bad in ["yesterday", "2008-13-02T05:09:42Z", "2008-07-02T05:09"] {
        let mut props = properties();
        props[3].1 = bad;
        let error = quads(&object(&borrowed(&props), "")).expect_err(bad);
        assert_eq!(
            error.location().map(|l| l.to_string()),
            Some("7:3".into()),
            "{bad}"
        );
        assert!(error.to_string().contains(bad), "{error}");
    }
}

#[test]
fn malformed_xml_is_located_by_line_and_column() {
    let broken = object(&[], "<foxml:datastream ID=\"DC\"></foxml:datastreamX>");
    let error = FoxmlObject::read(broken.as_bytes()).expect_err("malformed");
    let message = error.to_string();
    assert!(message.starts_with("5:27: malformed XML: "), "{message}");
    assert_eq!(error.location().map(|l| l.to_string()), Some("5:27".into()));
}

#[test]
fn the_pid_index_finds_a_pid_seen_before() {
    let mut index = PidIndex::default();
    assert_eq!(index.insert("demo:1", 0), None);
    assert_eq!(index.insert("demo:2", 1), None);
    assert_eq!(index.insert("demo:1", 2), Some(0));
    assert_eq!(index.insert("demo:1", 3), Some(0));
}

#[cfg(unix)]
#[test]
fn duplicate_pids_in_a_store_are_reported() {
    let store = tempfile::tempdir().expect("temp dir");
    let foxml = object(&borrowed(&properties()), "");
    for dir in ["a", "b"] {
        std::fs::create_dir_all(store.path().join(dir)).expect("dir");
        std::fs::write(
            store.path().join(dir).join("info%3Afedora%2Fdemo%3A1"),
            &foxml,
        )
        .expect("write");
    }
    let out = run_pidcanon(
        &[
            "rewrite",
            "--foxml-properties",
            store.path().to_str().expect("UTF-8"),
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("b/info%3Afedora%2Fdemo%3A1:2:1: warning: PID demo:1")
            && stderr.contains("a/info%3Afedora%2Fdemo%3A1"),
        "{stderr}"
    );
}
