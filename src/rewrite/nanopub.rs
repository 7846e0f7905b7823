//! Nanopublications that a rewrite must not change: a trusty URI (the Trusty URI specification,
//! module `RA`) names a nanopublication by a hash of its content, and a signature covers it too,
//! so changing one IRI in its graphs invalidates it. Such graphs are recognized by the artifact
//! code in their name (`…/RA` + 43 base64url characters, the nanopublication's IRI or that IRI
//! with `#assertion`, `#pubinfo`, …).

use oxrdf::GraphName;

/// The length of a module `RA` artifact code: `RA` and a 256-bit hash in 43 base64url characters.
const ARTIFACT_CODE: usize = 2 + 43;

/// Whether `iri` ends with a trusty artifact code, or has one followed by `#`, `.` or `/`.
///
/// ```text
/// http://purl.org/np/RAdf9taM_Gyq2-WavUq3CxaVIvsHockMXzonj3W_igNhM            trusty
/// http://purl.org/np/RAdf9taM_Gyq2-WavUq3CxaVIvsHockMXzonj3W_igNhM#assertion  trusty
/// ```
pub(crate) fn is_trusty(iri: &str) -> bool {
    let bytes = iri.as_bytes();
    // `RA` found by its `R` (a `memmem` searcher costs more to make than most IRIs to scan).
    let mut found = memchr::memchr_iter(b'R', bytes).filter(|&at| bytes.get(at + 1) == Some(&b'A'));
    found.any(|at| {
        let code = &bytes[at + 2..];
        let after = code.get(ARTIFACT_CODE - 2);
        at > 0
            && !bytes[at - 1].is_ascii_alphanumeric()
            && code.len() >= ARTIFACT_CODE - 2
            && code[..ARTIFACT_CODE - 2]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && after.is_none_or(|b| matches!(b, b'#' | b'.' | b'/'))
    })
}

/// Whether statements in `graph` belong to a trusty nanopublication.
pub(crate) fn is_protected(graph: &GraphName) -> bool {
    matches!(graph, GraphName::NamedNode(name) if is_trusty(name.as_str()))
}

/// The warning for a rewrite in `graph`, a graph of a trusty nanopublication.
pub(crate) fn rewrite_warning(graph: &GraphName) -> String {
    format!(
        "rewrote an IRI in the graph {graph} of a trusty nanopublication, which invalidates it \
         (--keep-signed leaves such graphs as they are)"
    )
}

#[cfg(test)]
mod tests {
    use super::is_trusty;

    #[test]
    fn recognizes_artifact_codes() {
        let np = "http://purl.org/np/RAdf9taM_Gyq2-WavUq3CxaVIvsHockMXzonj3W_igNhM";
        assert!(is_trusty(np));
        assert!(is_trusty(&format!("{np}#assertion")));
        assert!(is_trusty(&format!("{np}.trig")));
        assert!(!is_trusty(&format!("{np}x")), "one character too many");
        assert!(!is_trusty(&np[..np.len() - 1]), "one too few");
        assert!(!is_trusty(
            "http://ex/xRAdf9taM_Gyq2-WavUq3CxaVIvsHockMXzonj3W_igNhM"
        ));
        assert!(!is_trusty("http://ex/RAMEN"));
    }
}
