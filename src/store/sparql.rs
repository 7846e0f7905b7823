//! The SPARQL text `pidcanon store` sends: the queries that find candidate IRIs and count
//! statements, and the updates that rewrite them.

use std::fmt::Write;

/// `owl:sameAs`, the predicate of the `--links` statements.
const SAME_AS: &str = "<http://www.w3.org/2002/07/owl#sameAs>";

/// Which graphs of the store are normalized.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Graphs {
    /// The default graph only (what the endpoint's queries see without a `GRAPH` clause).
    #[default]
    Default,
    /// The default graph, every named graph and the names of the named graphs.
    All,
    /// These named graphs only (not their names). For stores whose default graph is the union
    /// of the named graphs, such as Virtuoso.
    Named(Vec<String>),
}

/// One page of candidates: the first `limit` after `after` (from the start if `None`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Page<'a> {
    pub(crate) after: Option<&'a str>,
    pub(crate) limit: usize,
}

/// The SPARQL written for one run: which graphs, which IRIs are candidates, where links go.
#[derive(Debug, Clone)]
pub(crate) struct Sparql {
    graphs: Graphs,
    /// The `FILTER` expression that keeps `?x` when `?head`, its start in lower case, starts
    /// with an adapter's route.
    routed: String,
    /// The length of `?head`: the longest route.
    head: usize,
    /// The provenance graph, `<…>`, left out of every scan and rewrite.
    links: Option<String>,
}

impl Sparql {
    /// `routes` are [`Registry::routes`](crate::Registry::routes); `links` an IRI checked by
    /// [`iri`].
    pub(crate) fn new<'r>(
        graphs: Graphs,
        routes: impl Iterator<Item = &'r str>,
        links: Option<String>,
    ) -> Self {
        let prefixes: Vec<String> = routes
            .map(|route| {
                let route = route.to_ascii_lowercase();
                if route.contains("://") {
                    route
                } else {
                    format!("{route}:")
                }
            })
            .collect();
        let longest = prefixes.iter().map(String::len).max().unwrap_or(0);
        // `?head` is bound once per distinct IRI (see `page`), then one STRSTARTS per route.
        let routed = if prefixes.is_empty() {
            "false".to_owned()
        } else {
            prefixes
                .iter()
                .map(|p| format!("STRSTARTS(?head, {})", string(p)))
                .collect::<Vec<_>>()
                .join(" || ")
        };
        Self {
            graphs,
            routed,
            head: longest,
            links,
        }
    }

    /// The filter that keeps named graph `?g` in scope: not the links graph.
    fn not_links(&self) -> String {
        match &self.links {
            Some(links) => format!(" FILTER(?g != {links})"),
            None => String::new(),
        }
    }

    /// `pattern` (over `?s ?p ?o`-like variables) in every graph in scope, as a group.
    fn in_scope(&self, pattern: &str) -> String {
        match &self.graphs {
            Graphs::Default => format!("{{ {pattern} }}"),
            Graphs::All => format!(
                "{{ {{ {pattern} }} UNION {{ GRAPH ?g {{ {pattern} }}{} }} }}",
                self.not_links()
            ),
            Graphs::Named(graphs) => format!(
                "{{ VALUES ?g {{ {} }} GRAPH ?g {{ {pattern} }} }}",
                graphs.join(" ")
            ),
        }
    }

    /// Counts the statements in scope.
    pub(crate) fn count(&self) -> String {
        format!(
            "SELECT (COUNT(*) AS ?n) WHERE {}",
            self.in_scope("?s ?p ?o")
        )
    }

    /// Counts the statements in scope whose object is an RDF 1.2 triple term (`isTRIPLE`, from
    /// SPARQL 1.2: a store without RDF 1.2 answers 400).
    pub(crate) fn count_triple_terms(&self) -> String {
        format!(
            "SELECT (COUNT(*) AS ?n) WHERE {{ {} FILTER(isTRIPLE(?o)) }}",
            self.in_scope("?s ?p ?o")
        )
    }

    /// The routed IRIs in subject, predicate or object position: all of them, or one page.
    pub(crate) fn term_candidates(&self, page: Option<Page<'_>>) -> String {
        let positions = ["?x ?p ?o", "?s ?x ?o", "?s ?p ?x"]
            .map(|pattern| self.in_scope(pattern))
            .join(" UNION ");
        self.candidates(&positions, page)
    }

    /// The routed names of named graphs (with [`Graphs::All`] only): all of them, or one page.
    pub(crate) fn graph_candidates(&self, page: Option<Page<'_>>) -> String {
        let not_links = match &self.links {
            Some(links) => format!(" FILTER(?x != {links})"),
            None => String::new(),
        };
        self.candidates(&format!("GRAPH ?x {{ }}{not_links}"), page)
    }

    /// The distinct terms of `pattern` first, and only then the tests, once per term: the
    /// store evaluates the string functions after decoding the term, which costs more than the
    /// scan. Without a page, in the order the store gives them; with one, the `limit` first
    /// after `after` in code point order (which costs a sort of them all on every page).
    fn candidates(&self, pattern: &str, page: Option<Page<'_>>) -> String {
        let after = match page.and_then(|page| page.after) {
            Some(after) => format!(" FILTER(STR(?x) > {})", string(after)),
            None => String::new(),
        };
        let order = match page {
            Some(page) => format!(" ORDER BY STR(?x) LIMIT {}", page.limit),
            None => String::new(),
        };
        format!(
            "SELECT ?x WHERE {{ {{ SELECT DISTINCT ?x WHERE {{ {pattern} }} }} FILTER(isIRI(?x)){after} \
             BIND(LCASE(SUBSTR(STR(?x), 1, {})) AS ?head) FILTER({}) }}{order}",
            self.head, self.routed
        )
    }

    /// The update that rewrites every `(old, new)` pair (IRIs written by [`iri`]) in subject,
    /// predicate and object position in every graph in scope; with links, records them first.
    ///
    /// One operation per old IRI, position and scope, with the old IRI written out, so that the
    /// store looks it up in an index (a `VALUES` join over the whole batch made Oxigraph scan
    /// the store). Each operation moves the statements that still hold an old IRI, so the update
    /// is idempotent: sent twice, or after a part of it was applied, it leaves the same store.
    pub(crate) fn rewrite_terms(&self, pairs: &[(String, String)]) -> String {
        let mut update = self.record_links(pairs);
        for (old, new) in pairs {
            for position in 0..3 {
                let pattern = |term: &str| match position {
                    0 => format!("{term} ?p ?o"),
                    1 => format!("?s {term} ?o"),
                    _ => format!("?s ?p {term}"),
                };
                let (old, new) = (pattern(old), pattern(new));
                let default = |update: &mut String| {
                    let _ = writeln!(
                        update,
                        "DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ {old} }} ;"
                    );
                };
                let named = |update: &mut String, graphs: &str, filter: &str| {
                    let _ = writeln!(
                        update,
                        "DELETE {{ GRAPH ?g {{ {old} }} }} INSERT {{ GRAPH ?g {{ {new} }} }} \
                         WHERE {{ {graphs}GRAPH ?g {{ {old} }}{filter} }} ;"
                    );
                };
                match &self.graphs {
                    Graphs::Default => default(&mut update),
                    Graphs::All => {
                        default(&mut update);
                        named(&mut update, "", &self.not_links());
                    }
                    Graphs::Named(graphs) => {
                        let graphs = format!("VALUES ?g {{ {} }} ", graphs.join(" "));
                        named(&mut update, &graphs, "");
                    }
                }
            }
        }
        finish(update)
    }

    /// The update that renames named graphs: moves every statement of each old graph into the
    /// new one (merging with what is there) and drops the emptied old graph.
    pub(crate) fn rewrite_graph_names(&self, pairs: &[(String, String)]) -> String {
        let mut update = self.record_links(pairs);
        for (old, new) in pairs {
            let _ = writeln!(
                update,
                "DELETE {{ GRAPH {old} {{ ?s ?p ?o }} }} INSERT {{ GRAPH {new} {{ ?s ?p ?o }} }} \
                 WHERE {{ GRAPH {old} {{ ?s ?p ?o }} }} ;\nDROP SILENT GRAPH {old} ;"
            );
        }
        finish(update)
    }

    fn record_links(&self, pairs: &[(String, String)]) -> String {
        let mut update = String::new();
        if let Some(links) = &self.links {
            let _ = writeln!(update, "INSERT DATA {{ GRAPH {links} {{");
            for (old, new) in pairs {
                let _ = writeln!(update, "  {old} {SAME_AS} {new} .");
            }
            update.push_str("} } ;\n");
        }
        update
    }
}

/// Drops the separator after the last operation.
fn finish(mut update: String) -> String {
    if let Some(stripped) = update.strip_suffix(" ;\n") {
        update.truncate(stripped.len());
        update.push('\n');
    }
    update
}

/// `<iri>`, if `iri` can be written as a SPARQL IRIREF (no space, control character or
/// `<>"{}|^`\`), else `None`: `info:fedora/demo:1` becomes `<info:fedora/demo:1>`.
pub(crate) fn iri(iri: &str) -> Option<String> {
    let writable = iri
        .chars()
        .all(|c| c > ' ' && !matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\'));
    writable.then(|| format!("<{iri}>"))
}

/// A SPARQL string literal holding `s`.
fn string(s: &str) -> String {
    let mut literal = String::with_capacity(s.len() + 2);
    literal.push('"');
    for c in s.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            '\r' => literal.push_str("\\r"),
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iris_that_sparql_cannot_write_are_refused() {
        assert_eq!(
            iri("info:fedora/demo:1").as_deref(),
            Some("<info:fedora/demo:1>")
        );
        for bad in [
            "a b", "a<b", "a>b", "a\"b", "a{b", "a}b", "a|b", "a^b", "a`b", "a\\b", "a\u{7}",
        ] {
            assert_eq!(iri(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
    }

    #[test]
    fn routes_become_lower_case_prefixes() {
        let sparql = Sparql::new(
            Graphs::Default,
            ["info", "https://DOI.org"].into_iter(),
            None,
        );
        let query = sparql.term_candidates(Some(Page {
            after: Some("x\"y"),
            limit: 10,
        }));
        assert!(
            query.contains(r#"BIND(LCASE(SUBSTR(STR(?x), 1, 15)) AS ?head)"#),
            "{query}"
        );
        assert!(query.contains(r#""https://doi.org")"#), "{query}");
        assert!(query.contains(r#"STRSTARTS(?head, "info:")"#), "{query}");
        assert!(query.contains(r#"FILTER(STR(?x) > "x\"y")"#), "{query}");
        assert!(query.ends_with("ORDER BY STR(?x) LIMIT 10"), "{query}");
        let all = sparql.term_candidates(None);
        assert!(
            all.ends_with(r#"STRSTARTS(?head, "https://doi.org")) }"#),
            "{all}"
        );
        assert!(!all.contains("ORDER BY") && !all.contains("> \""), "{all}");
    }

    #[test]
    fn links_are_recorded_before_the_rewrite_and_left_out_of_it() {
        let sparql = Sparql::new(
            Graphs::All,
            ["info"].into_iter(),
            Some("<urn:links>".to_owned()),
        );
        let pairs = [("<info:a>".to_owned(), "<info:A>".to_owned())];
        let update = sparql.rewrite_terms(&pairs);
        let insert = update.find("INSERT DATA").expect("links recorded");
        let rewrite = update.find("DELETE").expect("a rewrite");
        assert!(insert < rewrite, "{update}");
        assert!(update.contains("FILTER(?g != <urn:links>)"), "{update}");
        assert_eq!(update.matches(" ;\n").count(), 6, "{update}");
        assert!(!update.trim_end().ends_with(';'), "{update}");
    }
}
