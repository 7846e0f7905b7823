//! `--report json` says what the summary says: with `--collapse`, the equivalence statements
//! not written in place and the links from the representatives written instead.

mod common;

#[test]
fn the_json_report_counts_the_links_of_collapse() {
    let input = "<http://a.example/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.example/1> .\n\
                 <http://b.example/1> <http://www.w3.org/2002/07/owl#sameAs> <https://doi.org/10.1000/x> .\n\
                 <http://a.example/1> <http://e/p> \"x\" .\n";
    let out = common::run_pidcanon(
        &[
            "rewrite",
            "-q",
            "-i",
            "nt",
            "--collapse",
            "--report",
            "json",
        ],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    let report: serde_json::Value = serde_json::from_str(stderr.trim()).expect("one JSON object");
    assert_eq!(report["equivalence_statements_linked"], 2, "{report}");
    assert_eq!(report["equivalence_links_written"], 2, "{report}");
    assert_eq!(report["statements_written"], 3, "{report}");
}
