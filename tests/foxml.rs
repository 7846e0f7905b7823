//! FOXML input: Fedora's own objects (`fixtures/real/fcrepo3/foxml/`, see `foxml.tsv`) give the
//! statements Fedora's resource index holds for them — checked by hand for a few objects, against
//! rapper's conversions of their RELS-EXT/RELS-INT (`index.tsv`) and by counts for the rest —
//! and `pidcanon rewrite DIR` walks an object store.

mod common;

use common::reference::RdfParser;
use common::run_pidcanon;
use oxrdf::GraphName;
use pidcanon::foxml::{FoxmlError, FoxmlObject, FoxmlOptions};
use pidcanon::rewrite::RdfFormat;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn real(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real")
        .join(path)
}

/// The statements of a FOXML document as sorted N-Triples lines, and the warnings.
fn statements(
    foxml: &[u8],
    properties: bool,
) -> Result<(BTreeSet<String>, Vec<String>), FoxmlError> {
    let object = FoxmlObject::read(foxml)?;
    let mut warnings = Vec::new();
    let quads = object.quads(
        FoxmlOptions { properties },
        &GraphName::DefaultGraph,
        &mut |datastream, at, w| warnings.push(format!("{datastream}: {at}: {w}")),
    )?;
    let lines: BTreeSet<String> = quads.iter().map(|q| format!("{q} .")).collect();
    assert_eq!(lines.len(), quads.len(), "no statement twice");
    Ok((lines, warnings))
}

fn file_statements(file: &str, properties: bool) -> BTreeSet<String> {
    let foxml = std::fs::read(real(file)).expect("fixture");
    statements(&foxml, properties)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .0
}

fn lines(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn smiley_bucket_gives_what_the_resource_index_holds() {
    // Built by hand from the FOXML: the object properties, RELS-EXT, the implicit
    // FedoraObject-3.0 model, four datastreams (two inline, two external) and DC.
    let m = "info:fedora/fedora-system:def/model#";
    let v = "info:fedora/fedora-system:def/view#";
    let o = "<info:fedora/demo:SmileyBucket>";
    let dt = "^^<http://www.w3.org/2001/XMLSchema#dateTime>";
    let mut expected = format!(
        "{o} <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:SmileyStuff> .
        {o} <{m}hasModel> <info:fedora/demo:DualResImage> .
        {o} <{m}hasModel> <info:fedora/fedora-system:FedoraObject-3.0> .
        {o} <{m}state> <{m}Active> .
        {o} <{m}label> \"Data Object (Smiley Bucket) for Image Collection Demo\" .
        {o} <{m}ownerId> \"fedoraAdmin\" .
        {o} <{m}createdDate> \"2008-07-02T05:09:42.015Z\"{dt} .
        {o} <{v}lastModifiedDate> \"2008-07-02T05:09:42.015Z\"{dt} .
        {o} <http://purl.org/dc/elements/1.1/title> \"Smiley Bucket\" .
        {o} <http://purl.org/dc/elements/1.1/description> \"This bucket can be used for sand, flour, sugar, dirt, paint, and water.\" .
        {o} <http://purl.org/dc/elements/1.1/identifier> \"demo:SmileyBucket\" .
        "
    );
    for (id, mime, volatile) in [
        ("DC", "text/xml", false),
        ("RELS-EXT", "application/rdf+xml", false),
        ("MEDIUM_SIZE", "image/jpeg", true),
        ("FULL_SIZE", "image/jpeg", true),
    ] {
        let d = format!("<info:fedora/demo:SmileyBucket/{id}>");
        expected += &format!(
            "{o} <{v}disseminates> {d} .
            {d} <{v}disseminationType> <info:fedora/*/{id}> .
            {d} <{v}isVolatile> \"{volatile}\" .
            {d} <{v}lastModifiedDate> \"2008-07-02T05:09:42.937Z\"{dt} .
            {d} <{v}mimeType> \"{mime}\" .
            {d} <{m}state> <{m}Active> .
            "
        );
    }
    let file = "fcrepo3/foxml/demo_SmileyBucket.xml";
    assert_eq!(file_statements(file, true), lines(&expected));
    assert_eq!(
        file_statements(file, false),
        lines(&format!(
            "{o} <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:SmileyStuff> .
             {o} <{m}hasModel> <info:fedora/demo:DualResImage> ."
        ))
    );
}

#[test]
fn ecm_data_object_gives_its_rels_ext_and_rels_int() {
    // Built by hand from fcrepo-server/src/test/resources/ecm/dataobject1.xml.
    let expected = "<info:fedora/demo:dataObject1> <info:fedora/fedora-system:def/model#hasModel> <info:fedora/demo:contentModel1> .
        <info:fedora/demo:dataObject1> <http://demo.relations.are.us/#demorelation1> <info:fedora/demo:dataObject2> .
        <info:fedora/demo:dataObject1/Demo1Stream1> <http://demo.relations.are.us/#demorelation1> <info:fedora/demo:dataObject2> .
        <info:fedora/demo:dataObject1/Demo1Stream2> <http://demo.relations.are.us/#demorelation2> <info:fedora/demo:dataObject1/Demo1Stream1> .";
    assert_eq!(
        file_statements("fcrepo3/foxml/dataobject1.xml", false),
        lines(expected)
    );
}

/// The FOXML fixtures: file → path in fcrepo3/fcrepo.
fn fixtures() -> BTreeMap<String, String> {
    let index = std::fs::read_to_string(real("foxml.tsv")).expect("foxml.tsv");
    index
        .lines()
        .skip(1)
        .map(|row| {
            let cols: Vec<&str> = row.split('\t').collect();
            (cols[0].to_owned(), cols[3].to_owned())
        })
        .filter(|(file, _)| file.starts_with("fcrepo3/foxml/"))
        .collect()
}

#[test]
fn every_object_agrees_with_rapper_or_the_hand_counts() {
    // RELS-EXT + RELS-INT statements counted by hand in the objects index.tsv has no rapper
    // conversion for.
    let hand_counts: BTreeMap<&str, usize> = [
        ("fedora-system_FedoraObject-3.0.xml", 1),
        ("fedora-system_ContentModel-3.0.xml", 1),
        ("dataobject1.xml", 4),
        ("dataobject3.xml", 2),
        ("dataobject7.xml", 2),
        ("contentmodel1.xml", 1),
        ("fcrepo238.xml", 1),
        ("test1001.xml", 1),
        ("DemoFail.xml", 0),
        ("DemoSuccess.xml", 0),
        ("obj_demo_18.xml", 0),
    ]
    .into();
    // rapper's conversions of the RELS-EXT / RELS-INT cut out of the same objects.
    let index = std::fs::read_to_string(real("index.tsv")).expect("index.tsv");
    let mut conversions: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in index.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        if cols[5] == "fcrepo3/fcrepo" && cols[9].contains("of datastream RELS-") {
            conversions.entry(cols[7]).or_default().push(cols[1]);
        }
    }
    let fixtures = fixtures();
    assert!(fixtures.len() >= 28, "{} FOXML fixtures", fixtures.len());
    let mut compared_with_rapper = 0;
    for (file, origin) in &fixtures {
        let name = file.rsplit('/').next().expect("a name");
        let found = file_statements(file, false);
        if let Some(nts) = conversions.get(origin.as_str()) {
            let mut expected = BTreeSet::new();
            for nt in nts {
                let text = std::fs::read(real(nt)).expect("conversion");
                for quad in RdfParser::from_format(RdfFormat::NTriples).for_slice(&text) {
                    expected.insert(format!("{} .", quad.expect("rapper's N-Triples")));
                }
            }
            assert_eq!(found, expected, "{file} against rapper's {nts:?}");
            compared_with_rapper += 1;
        } else {
            let count = hand_counts
                .get(name)
                .unwrap_or_else(|| panic!("{file}: no expectation"));
            assert_eq!(found.len(), *count, "{file}: {found:#?}");
        }
        // With the properties: one view#disseminates per datastream, one state.
        let foxml = without_comments(&std::fs::read_to_string(real(file)).expect("fixture"));
        let all = file_statements(file, true);
        let disseminates = all
            .iter()
            .filter(|s| s.contains("view#disseminates>"))
            .count();
        assert_eq!(
            disseminates,
            foxml.matches("<foxml:datastream ").count(),
            "{file}"
        );
        let states = all.iter().filter(|s| s.contains("model#state>")).count();
        assert_eq!(states, disseminates + 1, "{file}");
        assert!(all.is_superset(&found), "{file}");
    }
    assert!(compared_with_rapper >= 15, "{compared_with_rapper}");
}

/// `xml` without its comments (the system objects comment a datastream out).
fn without_comments(xml: &str) -> String {
    let mut kept = String::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<!--") {
        kept.push_str(&rest[..start]);
        rest = rest[start..]
            .split_once("-->")
            .map_or("", |(_, after)| after);
    }
    kept + rest
}

/// A FOXML object with `datastreams` inside, `attributes` on its root.
fn object(attributes: &str, datastreams: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<foxml:digitalObject PID="demo:1" {attributes} xmlns:foxml="info:fedora/fedora-system:def/foxml#">
{datastreams}
</foxml:digitalObject>"#
    )
}

fn rels_ext_version(created: &str, target: &str) -> String {
    format!(
        r#"<foxml:datastreamVersion ID="RELS-EXT.{created}" CREATED="{created}" MIMETYPE="application/rdf+xml">
 <foxml:xmlContent>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rel="info:fedora/fedora-system:def/relations-external#">
   <rdf:Description rdf:about="info:fedora/demo:1"><rel:isMemberOf rdf:resource="{target}"/></rdf:Description>
  </rdf:RDF>
 </foxml:xmlContent>
</foxml:datastreamVersion>"#
    )
}

#[test]
fn the_current_version_is_the_latest_created() {
    // Versions out of file order: the latest CREATED wins, its fraction of a second compared
    // as a number (.93 is later than .9).
    let foxml = object(
        r#"VERSION="1.1""#,
        &format!(
            r#"<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A">{}{}{}</foxml:datastream>"#,
            rels_ext_version("2010-01-01T00:00:00.9Z", "info:fedora/demo:old"),
            rels_ext_version("2010-01-01T00:00:00.93Z", "info:fedora/demo:current"),
            rels_ext_version("2009-12-31T23:59:59.999Z", "info:fedora/demo:oldest"),
        ),
    );
    let (found, _) = statements(foxml.as_bytes(), false).expect("an object");
    assert_eq!(
        found,
        lines(
            "<info:fedora/demo:1> <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:current> ."
        )
    );
}

#[test]
fn foxml_1_0_reads_like_1_1() {
    // FOXML 1.0: no VERSION, one-letter states, an rdf:type and a contentModel property (which
    // Fedora 3's resource index does not hold), the RDF namespace declared on the root; no
    // label or owner (the index holds them empty).
    let foxml = r#"<foxml:digitalObject PID="demo:10" xmlns:foxml="info:fedora/fedora-system:def/foxml#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
 <foxml:objectProperties>
  <foxml:property NAME="http://www.w3.org/1999/02/22-rdf-syntax-ns#type" VALUE="FedoraObject"/>
  <foxml:property NAME="info:fedora/fedora-system:def/model#state" VALUE="I"/>
  <foxml:property NAME="info:fedora/fedora-system:def/model#contentModel" VALUE="UVA_STD_IMAGE"/>
 </foxml:objectProperties>
 <foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="D" VERSIONABLE="true">
  <foxml:datastreamVersion ID="RELS-EXT.0" MIMETYPE="text/xml" CREATED="2006-01-01T00:00:00.000Z">
   <foxml:xmlContent>
    <rdf:RDF><rdf:Description rdf:about="info:fedora/demo:10"><isMemberOf xmlns="info:fedora/fedora-system:def/relations-external#" rdf:resource="info:fedora/demo:c"/></rdf:Description></rdf:RDF>
   </foxml:xmlContent>
  </foxml:datastreamVersion>
 </foxml:datastream>
</foxml:digitalObject>"#;
    let object = FoxmlObject::read(foxml.as_bytes()).expect("FOXML 1.0");
    assert_eq!(object.version, None);
    let (found, _) = statements(foxml.as_bytes(), true).expect("statements");
    let m = "info:fedora/fedora-system:def/model#";
    let v = "info:fedora/fedora-system:def/view#";
    let d = "<info:fedora/demo:10/RELS-EXT>";
    let expected = format!(
        "<info:fedora/demo:10> <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:c> .
         <info:fedora/demo:10> <{m}state> <{m}Inactive> .
         <info:fedora/demo:10> <{m}label> \"\" .
         <info:fedora/demo:10> <{m}ownerId> \"\" .
         <info:fedora/demo:10> <{m}hasModel> <info:fedora/fedora-system:FedoraObject-3.0> .
         <info:fedora/demo:10> <{v}disseminates> {d} .
         {d} <{v}disseminationType> <info:fedora/*/RELS-EXT> .
         {d} <{v}isVolatile> \"false\" .
         {d} <{v}lastModifiedDate> \"2006-01-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
         {d} <{v}mimeType> \"text/xml\" .
         {d} <{m}state> <{m}Deleted> ."
    );
    assert_eq!(found, lines(&expected));
}

#[test]
fn legacy_rels_ext_is_read_with_a_warning() {
    let foxml = object(
        "",
        r#"<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A"><foxml:datastreamVersion ID="RELS-EXT.0" CREATED="2010-01-01T00:00:00Z"><foxml:xmlContent>
<RDF xmlns="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><Description about="info:fedora/demo:1">
<isMemberOfCollection xmlns="info:fedora/fedora-system:def/relations-external#" resource="info:fedora/vc:1"/>
</Description>&#160;</RDF></foxml:xmlContent></foxml:datastreamVersion></foxml:datastream>"#,
    );
    let (found, warnings) = statements(foxml.as_bytes(), false).expect("legacy RDF/XML");
    assert_eq!(
        found,
        lines(
            "<info:fedora/demo:1> <info:fedora/fedora-system:def/relations-external#isMemberOfCollection> <info:fedora/vc:1> ."
        )
    );
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    // Positions are in the FOXML file.
    assert!(
        warnings[0].starts_with("RELS-EXT: 4:58: unqualified attribute `about`"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("RELS-EXT: 5:1: unqualified attribute `resource`"),
        "{warnings:?}"
    );
    assert!(
        warnings[2]
            .starts_with("RELS-EXT: 6:15: text \"&#160;\" where RDF/XML allows no text skipped"),
        "{warnings:?}"
    );
}

#[test]
fn unreadable_files_say_why() {
    let not_foxml = br#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>"#;
    assert!(matches!(
        FoxmlObject::read(&not_foxml[..]),
        Err(FoxmlError::NotFoxml(root)) if root == "rdf:RDF"
    ));
    let broken = object("", "<foxml:datastream ID=\"DC\"></foxml:datastreamX>");
    let error = FoxmlObject::read(broken.as_bytes()).expect_err("malformed");
    assert!(
        matches!(error, FoxmlError::Xml { offset, location, .. } if offset > 100 && location.line() == Some(3)),
        "{error}"
    );
    // The content of a datastream that is not read (the audit trail) is skipped, but its tags
    // must still match.
    let broken_audit = object(
        "",
        r#"<foxml:datastream ID="AUDIT" CONTROL_GROUP="X" STATE="A"><foxml:datastreamVersion ID="AUDIT.0" CREATED="2010-01-01T00:00:00Z">
<foxml:xmlContent><audit:auditTrail xmlns:audit="info:fedora/fedora-system:def/audit#"><audit:record></audit:recordX></audit:auditTrail></foxml:xmlContent>
</foxml:datastreamVersion></foxml:datastream>"#,
    );
    let error = FoxmlObject::read(broken_audit.as_bytes()).expect_err("malformed audit trail");
    assert!(
        matches!(&error, FoxmlError::Xml { message, .. } if message.contains("audit:record")),
        "{error}"
    );
    let managed = object(
        "",
        r#"<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="M" STATE="A"><foxml:datastreamVersion ID="RELS-EXT.0" CREATED="2010-01-01T00:00:00Z">
<foxml:contentLocation TYPE="INTERNAL_ID" REF="demo:1+RELS-EXT+RELS-EXT.0"/></foxml:datastreamVersion></foxml:datastream>"#,
    );
    let error = statements(managed.as_bytes(), false).expect_err("not inline");
    assert!(
        matches!(&error, FoxmlError::NotInline(id) if id == "RELS-EXT"),
        "{error}"
    );
    let no_pid = std::fs::read(real("fcrepo3/foxml-unreadable/demo_min.xml")).expect("fixture");
    assert!(matches!(
        FoxmlObject::read(&no_pid[..]),
        Err(FoxmlError::NoPid)
    ));
}

/// The fixtures laid out as a Fedora objectStore: hashed folders, encoded PIDs as file names.
fn object_store(with_unreadable: bool) -> tempfile::TempDir {
    let store = tempfile::tempdir().expect("temp dir");
    let mut files: Vec<PathBuf> = fixtures().keys().map(|f| real(f)).collect();
    if with_unreadable {
        files.push(real("fcrepo3/foxml-unreadable/demo_rest.xml"));
    }
    for (i, file) in files.iter().enumerate() {
        let foxml = std::fs::read(file).expect("fixture");
        let pid = FoxmlObject::read(&foxml[..]).map_or(format!("broken:{i}"), |o| o.pid);
        let dir = store.path().join(format!("{:02x}/{:02x}", i % 3, i % 5));
        std::fs::create_dir_all(&dir).expect("dir");
        let name = format!("info%3Afedora%2F{}", pid.replace(':', "%3A"));
        std::fs::write(dir.join(name), foxml).expect("write");
    }
    store
}

#[test]
fn an_object_store_is_rewritten_in_a_stable_order_one_graph_per_object() {
    let store = object_store(false);
    let dir = store.path().to_str().expect("UTF-8 path");
    let one = run_pidcanon(&["rewrite", "-q", "--threads", "1", dir], b"");
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let two = run_pidcanon(&["rewrite", "-q", "--threads", "2", dir], b"");
    assert!(two.status.success());
    assert_eq!(one.stdout, two.stdout, "the same output on 1 and 2 threads");
    let output = String::from_utf8(one.stdout).expect("UTF-8");
    let expected: usize = fixtures()
        .keys()
        .map(|f| file_statements(f, false).len())
        .sum();
    assert_eq!(output.lines().count(), expected);
    for line in output.lines() {
        let quad = RdfParser::from_format(RdfFormat::NQuads)
            .for_slice(line.as_bytes())
            .next()
            .expect("a statement")
            .expect("N-Quads");
        let GraphName::NamedNode(graph) = quad.graph_name else {
            panic!("in the default graph: {line}");
        };
        assert!(graph.as_str().starts_with("info:fedora/"), "{line}");
    }
    let flat = run_pidcanon(
        &["rewrite", "-q", "--default-graph", "--to", "nt", dir],
        b"",
    );
    assert!(flat.status.success());
    assert_eq!(
        String::from_utf8_lossy(&flat.stdout).lines().count(),
        expected
    );
    let properties = run_pidcanon(&["rewrite", "-q", "--foxml-properties", dir], b"");
    let with_properties: usize = fixtures()
        .keys()
        .map(|f| file_statements(f, true).len())
        .sum();
    assert_eq!(
        String::from_utf8_lossy(&properties.stdout).lines().count(),
        with_properties
    );
}

/// `pidcanon ARGS`, killed after a minute (a walk that loops must fail the test, not hang it).
#[cfg(unix)]
fn run_for_a_minute(args: &[&str]) -> std::process::Output {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read the pipes on threads, so that a full pipe does not stop the child.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut bytes).map(|_| bytes)
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut bytes).map(|_| bytes)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pidcanon {args:?} did not end in a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: out.join().expect("thread").expect("stdout"),
        stderr: err.join().expect("thread").expect("stderr"),
    }
}

#[cfg(unix)]
#[test]
fn an_object_store_is_walked_without_following_its_links() {
    // As `find` walks it without -L: links inside the store are not followed — not a link
    // back up (`..`: every object again), not two of them (a walk that never ends), not one
    // out of the store (`../..`) — and each is named once. The store itself may be a link.
    let store = object_store(false);
    let dir = store.path().to_str().expect("UTF-8 path");
    let direct = run_pidcanon(&["rewrite", "-q", "--lenient", dir], b"");
    assert!(direct.status.success());
    assert!(!direct.stdout.is_empty());
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("stray.xml"), b"<not-foxml/>").expect("write");
    let first = std::fs::read_dir(store.path())
        .expect("listing")
        .map(|e| e.expect("entry").path())
        .find(|p| p.is_dir())
        .expect("a folder");
    let links = [
        first.join("l1"),
        first.join("l2"),
        store.path().join("zz-out"),
        store.path().join("zz-file-out"),
    ];
    std::os::unix::fs::symlink("..", &links[0]).expect("symlink");
    std::os::unix::fs::symlink("..", &links[1]).expect("symlink");
    std::os::unix::fs::symlink(outside.path(), &links[2]).expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("stray.xml"), &links[3]).expect("symlink");
    let lenient = run_for_a_minute(&["rewrite", "--lenient", dir]);
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(lenient.status.success(), "{stderr}");
    assert_eq!(
        lenient.stdout, direct.stdout,
        "nothing twice, nothing from outside"
    );
    for link in &links {
        let name = link.to_str().expect("UTF-8");
        assert_eq!(stderr.matches(name).count(), 1, "{name}: {stderr}");
    }
    assert!(stderr.contains("symbolic link"), "{stderr}");
    // Without --lenient, as `find` without -L: each link is named once, and the walk goes on.
    let strict = run_for_a_minute(&["rewrite", dir]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(strict.status.success(), "{stderr}");
    assert_eq!(strict.stdout, direct.stdout);
    for link in &links {
        let name = link.to_str().expect("UTF-8");
        assert_eq!(stderr.matches(name).count(), 1, "{name}: {stderr}");
    }
    // The store given as a link is walked.
    let holder = tempfile::tempdir().expect("temp dir");
    let linked = holder.path().join("store");
    std::os::unix::fs::symlink(store.path(), &linked).expect("symlink");
    let by_link = run_for_a_minute(&[
        "rewrite",
        "-q",
        "--lenient",
        linked.to_str().expect("UTF-8"),
    ]);
    assert!(by_link.status.success());
    assert_eq!(by_link.stdout, direct.stdout);
}

#[test]
fn a_broken_object_is_fatal_unless_lenient() {
    let store = object_store(true);
    let dir = store.path().to_str().expect("UTF-8 path");
    let strict = run_pidcanon(&["rewrite", dir], b"");
    assert_eq!(strict.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(
        stderr.contains("info%3Afedora%2Fdemo%3AREST: RELS-INT"),
        "{stderr}"
    );
    assert!(stderr.contains("RELS-INT"), "{stderr}");
    let lenient = run_pidcanon(&["rewrite", "--lenient", dir], b"");
    assert!(lenient.status.success());
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(stderr.contains("skipped: RELS-INT"), "{stderr}");
    // The summary counts it ("1 FOXML file(s) skipped", whatever the wording's plural).
    assert!(
        stderr.contains("1 FOXML file") && stderr.matches("skipped").count() >= 2,
        "{stderr}"
    );
    let expected: usize = fixtures()
        .keys()
        .map(|f| file_statements(f, false).len())
        .sum();
    assert_eq!(
        String::from_utf8_lossy(&lenient.stdout).lines().count(),
        expected
    );
}

#[test]
fn foxml_is_read_from_stdin_with_dash_i_and_from_a_file_by_its_root() {
    let file = real("fcrepo3/foxml/demo_SmileyBucket.xml");
    let foxml = std::fs::read(&file).expect("fixture");
    let stdin = run_pidcanon(&["rewrite", "-q", "-i", "foxml", "--to", "nt"], &foxml);
    assert!(
        stdin.status.success(),
        "{}",
        String::from_utf8_lossy(&stdin.stderr)
    );
    let by_root = run_pidcanon(
        &["rewrite", "-q", "--to", "nt", file.to_str().expect("UTF-8")],
        b"",
    );
    assert!(
        by_root.status.success(),
        "{}",
        String::from_utf8_lossy(&by_root.stderr)
    );
    assert_eq!(stdin.stdout, by_root.stdout);
    assert_eq!(String::from_utf8_lossy(&stdin.stdout).lines().count(), 2);
}

#[test]
fn statements_are_located_in_the_foxml_file() {
    let foxml = object(
        "",
        &format!(
            r#"<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A">
{}
</foxml:datastream>"#,
            rels_ext_version("2010-01-01T00:00:00Z", "hdl://10013/x")
        ),
    );
    let object = FoxmlObject::read(foxml.as_bytes()).expect("FOXML");
    assert_eq!(object.pid_at.to_string(), "2:1");
    let options = FoxmlOptions { properties: true };
    let located = object
        .located_quads(options, &GraphName::DefaultGraph, &mut |_, _, _| {})
        .expect("statements");
    // The RELS-EXT statement is at its (empty) property element, written at line 7 column 52;
    // the resource index's triples are at `foxml:digitalObject`.
    let (relation, at) = &located[0];
    assert!(
        relation.to_string().contains("<hdl://10013/x>"),
        "{relation}"
    );
    assert_eq!(at.to_string(), "7:52");
    assert!(located[1..].iter().all(|(_, at)| at.to_string() == "2:1"));
    // `check` reports the finding there.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("demo1.xml");
    std::fs::write(&path, &foxml).expect("write");
    let path = path.to_str().expect("UTF-8 path");
    let out = run_pidcanon(&["check", path], b"");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!(
            "{path}:7:52: non-canonical handle <hdl://10013/x>"
        )),
        "{stdout}"
    );
}

#[test]
fn anonymous_nodes_of_rels_ext_get_the_same_labels_on_every_run() {
    let rels_ext = r#"<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A">
<foxml:datastreamVersion ID="RELS-EXT.0" CREATED="2010-01-01T00:00:00Z" MIMETYPE="application/rdf+xml">
 <foxml:xmlContent>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/terms/">
   <rdf:Description rdf:about="info:fedora/demo:1"><dc:hasPart><rdf:Description><dc:relation rdf:resource="hdl://10013/x"/></rdf:Description></dc:hasPart></rdf:Description>
  </rdf:RDF>
 </foxml:xmlContent>
</foxml:datastreamVersion>
</foxml:datastream>"#;
    let foxml = object("", rels_ext);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("demo1.xml");
    std::fs::write(&path, &foxml).expect("write");
    let path = path.to_str().expect("UTF-8 path");
    let rewritten = || {
        let out = run_pidcanon(&["rewrite", "-q", "--to", "nt", path, path], b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let first = rewritten();
    assert_eq!(rewritten(), first);
    // The node (the RDF/XML parser draws it at random) is one node in each object, labelled
    // alike in its two statements, and another in the same object read again.
    let nodes: Vec<&str> = first
        .lines()
        .filter_map(|line| line.split(' ').find(|term| term.starts_with("_:")))
        .collect();
    assert_eq!(nodes.len(), 4, "{first}");
    assert_eq!((nodes[0], nodes[2]), (nodes[1], nodes[3]), "{first}");
    assert_ne!(nodes[0], nodes[2], "{first}");
}
