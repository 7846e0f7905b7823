//! The SPARQL text `pidcanon store` sends: the queries that find candidate IRIs and count
//! statements, and the updates that rewrite them.

use std::fmt::Write;

/// `owl:sameAs`, the predicate of the `--links` statements.
const SAME_AS: &str = "<http://www.w3.org/2002/07/owl#sameAs>";

/// The predicate of the mark `<G> <urn:pidcanon:linksGraph> true`, written in the graph
/// [`REGISTRY`] for every links graph `G` with its links: every run leaves a graph so marked (and
/// the registry) out of its scans and rewrites.
pub(crate) const LINKS_MARK: &str = "<urn:pidcanon:linksGraph>";

/// The named graph where the links graphs are marked.
pub(crate) const REGISTRY: &str = "<urn:pidcanon:graphs>";

/// Virtuoso's own graph (its RDF views), left out of `--all-graphs` on Virtuoso.
pub(crate) const VIRTRDF: &str = "<http://www.openlinksw.com/schemas/virtrdf#>";

/// Which graphs of the store are normalized.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Graphs {
    /// The default graph only (what the endpoint's queries see without a `GRAPH` clause).
    #[default]
    Default,
    /// The default graph, every named graph and the names of the named graphs. On Virtuoso,
    /// whose default graph is the union of the named graphs, the named graphs (but Virtuoso's
    /// own `virtrdf#`) and their names.
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
    /// The routes, in lower case, `scheme:` or `scheme://authority…`.
    prefixes: Vec<String>,
    /// The provenance graph, `<…>`, where this run records its links.
    links: Option<String>,
    /// The links graphs, `<…>` (this run's and those marked by earlier runs), left out of every
    /// scan and rewrite.
    excluded: Vec<String>,
    /// With [`Graphs::All`]: the default graph is the union of the named graphs (Virtuoso), so
    /// only the named graphs are read and rewritten.
    union_default: bool,
    /// The pattern inside `GRAPH ?x { … }` that finds the names of the named graphs: `{ }`, or
    /// `{ ?s ?p ?o }` on a store that answers `GRAPH ?x { }` with an unbound `?x` (Virtuoso).
    graph_pattern: &'static str,
    /// With a collapse, the equivalence predicates (`<…>`; none without): the links from a
    /// class's representative to its members, `<rep> P <member>`, keep their member.
    equivalence_predicates: Vec<String>,
}

/// An IRI an update rewrites (`<…>` both), and whether `new` is the representative of the class
/// that `old` was collapsed into: then the links `<new> P <old>` stay as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    pub(crate) old: String,
    pub(crate) new: String,
    pub(crate) collapsed: bool,
}

impl Replacement {
    /// A rewrite of `old` (`<…>`) to `new` that is not a collapse.
    #[cfg(test)]
    fn plain(old: &str, new: &str) -> Self {
        Self {
            old: old.to_owned(),
            new: new.to_owned(),
            collapsed: false,
        }
    }
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
            prefixes,
            excluded: std::iter::once(REGISTRY.to_owned())
                .chain(links.iter().cloned())
                .collect(),
            links,
            union_default: false,
            graph_pattern: "{ }",
            equivalence_predicates: Vec::new(),
        }
    }

    /// A collapse with these equivalence predicates (`<…>`) runs: their links from a class's
    /// representative to a member are left as they are when the member is rewritten.
    pub(crate) fn collapse(&mut self, predicates: &[String]) {
        self.equivalence_predicates = predicates.to_vec();
    }

    /// `?p IN (…)` of the equivalence predicates.
    fn is_equivalence_predicate(&self) -> String {
        format!("?p IN ({})", self.equivalence_predicates.join(", "))
    }

    /// The filter that keeps a statement `?s ?p <old>` out of the rewrite of a collapsed `old`
    /// when it is a link from `new`, the representative; empty otherwise.
    fn not_a_link(&self, new: &str, collapsed: bool) -> String {
        if collapsed && !self.equivalence_predicates.is_empty() {
            format!(
                " FILTER(!(sameTerm(?s, {new}) && {}))",
                self.is_equivalence_predicate()
            )
        } else {
            String::new()
        }
    }

    /// The equivalence statements between two IRIs in scope (`?s ?p ?o`, and `?g` in a named
    /// graph).
    pub(crate) fn equivalence_statements(&self) -> String {
        format!(
            "SELECT DISTINCT ?s ?p ?o ?g WHERE {{ VALUES ?p {{ {} }} {} }}",
            self.equivalence_predicates.join(" "),
            self.in_scope("?s ?p ?o FILTER(isIRI(?s) && isIRI(?o))")
        )
    }

    /// Of the collapsed IRIs `pairs` (old IRI and representative), those held in scope in a
    /// statement other than a link from their representative (`?x`). The filter stands beside
    /// the `VALUES` that binds `?r` (a filter inside a `FILTER EXISTS` branch does not see it
    /// on Virtuoso), and each position has variables of its own: only the object position
    /// binds `?s` and `?p`.
    pub(crate) fn held_apart_from_links(&self, pairs: &[Replacement]) -> String {
        let values: Vec<String> = pairs
            .iter()
            .map(|Replacement { old, new, .. }| format!("({old} {new})"))
            .collect();
        let positions = ["?x ?p1 ?o1", "?s2 ?x ?o2", "?s ?p ?x"]
            .map(|pattern| self.in_scope(pattern))
            .join(" UNION ");
        format!(
            "SELECT DISTINCT ?x WHERE {{ VALUES (?x ?r) {{ {} }} {{ {positions} }} \
             FILTER(!BOUND(?s) || !(sameTerm(?s, ?r) && {})) }}",
            values.join(" "),
            self.is_equivalence_predicate()
        )
    }

    /// One `INSERT DATA` (or `DELETE DATA`, as `operation` says) of `statements` (`s p o`,
    /// each in its graph `<…>` or the default graph), one `GRAPH` block per graph: Virtuoso 7.2
    /// applies only some of the blocks of a `DELETE DATA` that names a graph twice (tested).
    pub(crate) fn data(operation: &str, statements: &[(Option<&str>, String)]) -> String {
        let mut update = format!("{operation} DATA {{\n");
        for (graph, statements) in by_graph(statements.iter().map(|(g, s)| (*g, s.as_str()))) {
            match graph {
                Some(graph) => {
                    let _ = writeln!(update, "  GRAPH {graph} {{");
                    for statement in statements {
                        let _ = writeln!(update, "    {statement} .");
                    }
                    // No `.` after a `GRAPH` block: Virtuoso refuses it (SPARQL allows it).
                    update.push_str("  }\n");
                }
                None => {
                    for statement in statements {
                        let _ = writeln!(update, "  {statement} .");
                    }
                }
            }
        }
        update.push_str("}\n");
        update
    }

    /// How many of `statements` (as [`Self::data`] takes them) the store holds: the statements
    /// of each graph as the values of `?s ?p ?o`, so that the store looks each up in an index (a
    /// branch per statement overflowed Virtuoso's stack at 500).
    pub(crate) fn count_statements(statements: &[(Option<&str>, String)]) -> String {
        let branches: Vec<String> = by_graph(statements.iter().map(|(g, s)| (*g, s.as_str())))
            .iter()
            .map(|(graph, statements)| {
                let values: Vec<String> = statements.iter().map(|s| format!("({s})")).collect();
                format!(
                    "{{ VALUES (?s ?p ?o) {{ {} }} {} }}",
                    values.join(" "),
                    Self::in_graph(*graph, "?s ?p ?o")
                )
            })
            .collect();
        format!("SELECT (COUNT(*) AS ?n) WHERE {{ {} }}", union(&branches))
    }

    /// The update that replaces each statement `old` by `new` (`s p o`, SPARQL text) in its
    /// graph (`<…>`, or the default graph) if the store still holds it; with links, records those
    /// of `links` first. One operation per graph, the statements as the values of `?s ?p ?o` and
    /// `?s2 ?p2 ?o2`, so that the store looks each old one up in an index, and moves only those
    /// it still holds: a statement another client deleted meanwhile does not come back.
    pub(crate) fn replace_statements(
        &self,
        links: &[Replacement],
        changes: &[(Option<&str>, &str, &str)],
    ) -> String {
        let mut update = if links.is_empty() {
            String::new()
        } else {
            self.record_links(links)
        };
        let graphs = by_graph(changes.iter().map(|&(graph, old, new)| (graph, (old, new))));
        for (graph, pairs) in graphs {
            let (old, new) = (
                Self::in_graph(graph, "?s ?p ?o"),
                Self::in_graph(graph, "?s2 ?p2 ?o2"),
            );
            let _ = writeln!(
                update,
                "DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ VALUES (?s ?p ?o ?s2 ?p2 ?o2) {{"
            );
            for (old, new) in pairs {
                let _ = writeln!(update, "  ({old} {new})");
            }
            let _ = writeln!(update, "}} {old} }} ;");
        }
        finish(update)
    }

    /// Every statement in scope (`?s ?p ?o`, and `?g` in a named graph), in the order the store
    /// gives them; or those of `predicates` (`<…>`), which the store looks up in its index.
    pub(crate) fn statements(&self, predicates: Option<&[String]>) -> String {
        let pattern = match predicates {
            Some(predicates) => format!("VALUES ?p {{ {} }} ?s ?p ?o", predicates.join(" ")),
            None => "?s ?p ?o".to_owned(),
        };
        format!("SELECT ?s ?p ?o ?g WHERE {}", self.in_scope(&pattern))
    }

    /// The statements in scope, counted by predicate (`?p`, `?n`).
    pub(crate) fn statements_by_predicate(&self) -> String {
        format!(
            "SELECT ?p (COUNT(*) AS ?n) WHERE {} GROUP BY ?p",
            self.in_scope("?s ?p ?o")
        )
    }

    /// Whether `predicate` (`<…>`) is an equivalence predicate of the collapse.
    pub(crate) fn is_equivalence(&self, predicate: &str) -> bool {
        self.equivalence_predicates.iter().any(|p| p == predicate)
    }

    /// Whether any of `statements` (as [`Self::data`] takes them) is in the store.
    pub(crate) fn any_statement(statements: &[(Option<&str>, String)]) -> String {
        let branches: Vec<String> = statements
            .iter()
            .map(|(graph, statement)| format!("{{ {} }}", Self::in_graph(*graph, statement)))
            .collect();
        format!("ASK {{ {} }}", union(&branches))
    }

    /// The default graph is the union of the named graphs (Virtuoso): with [`Graphs::All`], only
    /// the named graphs are read and rewritten (rewriting the default graph would rewrite them
    /// twice; Virtuoso refuses an update of the default graph without a `GRAPH`).
    pub(crate) fn default_graph_is_union(&mut self) {
        self.union_default = true;
    }

    /// The store answers `GRAPH ?x { }` with an unbound `?x` (Virtuoso): find the names of the
    /// named graphs from their statements (`GRAPH ?x { ?s ?p ?o }`), which costs a scan of them.
    pub(crate) fn find_graphs_by_statements(&mut self) {
        self.graph_pattern = "{ ?s ?p ?o }";
    }

    /// Whether the store answers `GRAPH ?x { }` as SPARQL says (a row per named graph, or
    /// none): a row without `?x` says it does not.
    pub(crate) fn empty_graph_probe() -> &'static str {
        "SELECT ?x WHERE { GRAPH ?x { } } LIMIT 1"
    }

    /// Whether the scan for candidates finds `iri` (an adapter's route leads to it), as its
    /// `FILTER` decides.
    pub(crate) fn routed(&self, iri: &str) -> bool {
        let head: String = iri
            .chars()
            .take(self.head)
            .collect::<String>()
            .to_lowercase();
        self.prefixes.iter().any(|p| head.starts_with(p.as_str()))
    }

    /// Of `iris` (`<…>`), those in subject, predicate or object position in scope (`?x`): each
    /// looked up by name.
    pub(crate) fn terms_among(&self, iris: &[&str]) -> String {
        let positions = ["?x ?p ?o", "?s ?x ?o", "?s ?p ?x"]
            .map(|pattern| self.in_scope(pattern))
            .join(" UNION ");
        format!(
            "SELECT ?x WHERE {{ VALUES ?x {{ {} }} FILTER EXISTS {{ {positions} }} }}",
            iris.join(" ")
        )
    }

    /// Of `iris` (`<…>`), those that name a named graph in scope (`?x`; with [`Graphs::All`]
    /// only).
    pub(crate) fn graph_names_among(&self, iris: &[&str]) -> String {
        format!(
            "SELECT ?x WHERE {{ VALUES ?x {{ {} }} FILTER EXISTS {{ GRAPH ?x {} }}{} }}",
            iris.join(" "),
            self.graph_pattern,
            self.not_excluded("?x")
        )
    }

    /// The statements in scope (`?s ?p ?o`, and `?g` in a named graph) whose object is a
    /// literal, of `predicates` (`<…>`; every predicate if `None`), and those of `hints` (`<…>`,
    /// whatever their object): the windows of the literal pass.
    pub(crate) fn literal_statements(
        &self,
        predicates: Option<&[String]>,
        hints: &[&str],
    ) -> String {
        let only = match predicates {
            Some(list) => format!("VALUES ?p {{ {} }} ", list.join(" ")),
            None => String::new(),
        };
        format!(
            "SELECT DISTINCT ?s ?p ?o ?g WHERE {{ {{ {only}{} FILTER(isLITERAL(?o)) }} UNION \
             {{ VALUES ?p {{ {} }} {} }} }}",
            self.in_scope("?s ?p ?o"),
            hints.join(" "),
            self.in_scope("?s ?p ?o")
        )
    }

    /// `statement` (`s p o`, IRIs and literals) in `graph` (`<…>`, or the default graph).
    fn in_graph(graph: Option<&str>, statement: &str) -> String {
        match graph {
            Some(graph) => format!("GRAPH {graph} {{ {statement} }}"),
            None => statement.to_owned(),
        }
    }

    /// The update that replaces `old` by `new` (statements whose subject is an IRI, written
    /// out), each in its graph (`<…>`, or the default graph).
    pub(crate) fn rewrite_statements(&self, pairs: &[(Option<String>, String, String)]) -> String {
        let mut update = String::new();
        for (graph, old, new) in pairs {
            let (old, new) = (
                Self::in_graph(graph.as_deref(), old),
                Self::in_graph(graph.as_deref(), new),
            );
            let _ = writeln!(
                update,
                "DELETE DATA {{ {old} }} ;\nINSERT DATA {{ {new} }} ;"
            );
        }
        finish(update)
    }

    /// The update that replaces the literal `old` by `new` under `predicate` (`<…>`) for every
    /// blank node subject in `graph` (`<…>`, or the default graph).
    pub(crate) fn rewrite_blank_literals(
        &self,
        groups: &[(Option<String>, String, String, String)],
    ) -> String {
        let mut update = String::new();
        for (graph, predicate, old, new) in groups {
            let (old, new) = (
                Self::in_graph(graph.as_deref(), &format!("?s {predicate} {old}")),
                Self::in_graph(graph.as_deref(), &format!("?s {predicate} {new}")),
            );
            let _ = writeln!(
                update,
                "DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ {old} FILTER(isBLANK(?s)) }} ;"
            );
        }
        finish(update)
    }

    /// Leaves these graphs (`<…>`, links graphs marked by earlier runs) out too.
    pub(crate) fn exclude(&mut self, graphs: impl IntoIterator<Item = String>) {
        for graph in graphs {
            if !self.excluded.contains(&graph) {
                self.excluded.push(graph);
            }
        }
    }

    /// The filter that keeps named graph `var` in scope: not a links graph.
    fn not_excluded(&self, var: &str) -> String {
        if self.excluded.is_empty() {
            return String::new();
        }
        let tests: Vec<String> = self
            .excluded
            .iter()
            .map(|graph| format!("{var} != {graph}"))
            .collect();
        format!(" FILTER({})", tests.join(" && "))
    }

    /// The filter that keeps named graph `?g` in scope: not a links graph.
    fn not_links(&self) -> String {
        self.not_excluded("?g")
    }

    /// The links graphs marked by earlier runs (`?g`).
    pub(crate) fn marked_links_graphs() -> String {
        format!("SELECT DISTINCT ?g WHERE {{ GRAPH {REGISTRY} {{ ?g {LINKS_MARK} true }} }}")
    }

    /// Whether the default graph shows a links graph's mark: a default graph that is the union
    /// of the named graphs (`?g`, the graphs whose marks it shows).
    pub(crate) fn marks_in_default_graph() -> String {
        format!("SELECT DISTINCT ?g WHERE {{ ?g {LINKS_MARK} true }}")
    }

    /// Whether `graph` (`<…>`) holds any statement.
    pub(crate) fn graph_holds_statements(graph: &str) -> String {
        format!("ASK {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
    }

    /// Marks `graph` (`<…>`) as a links graph.
    pub(crate) fn mark_links(graph: &str) -> String {
        format!("INSERT DATA {{ GRAPH {REGISTRY} {{ {graph} {LINKS_MARK} true }} }}")
    }

    /// Whether any of the old IRIs (`<…>`) is still in subject, predicate or object position
    /// in scope (or, for `graph_names`, still names a graph): written out one by one, so that
    /// the store looks each up in an index.
    pub(crate) fn still_there(&self, olds: &[&Replacement], graph_names: bool) -> String {
        let branches: Vec<String> = olds
            .iter()
            .flat_map(
                |Replacement {
                     old,
                     new,
                     collapsed,
                 }| {
                    if graph_names {
                        vec![format!("{{ GRAPH {old} {{ ?s ?p ?o }} }}")]
                    } else {
                        [
                            format!("{old} ?p ?o"),
                            format!("?s {old} ?o"),
                            format!("?s ?p {old}{}", self.not_a_link(new, *collapsed)),
                        ]
                        .iter()
                        .map(|pattern| self.in_scope(pattern))
                        .collect()
                    }
                },
            )
            .collect();
        format!("ASK {{ {} }}", union(&branches))
    }

    /// Counts the distinct statements in scope that hold one of `iris` (`<…>`) in subject,
    /// predicate or object position (for `graph_names`: the statements of the graphs they
    /// name). Asked before and after the update of a batch, with its old and new IRIs and then
    /// with its new ones only: the update maps the first set onto the second, so the difference
    /// is the statements the update collapsed (what other clients write meanwhile to other
    /// statements does not change it). The IRIs are given as the values of one variable per
    /// position (`VALUES ?s { … }`, then `?p`, then `?o`): the store looks each up in its
    /// indexes, three times faster on Oxigraph than a branch per IRI and position (0.11 s
    /// against 0.35 s for 1 000 pairs of IRIs on a million statements).
    pub(crate) fn count_holding(&self, iris: &[&str], graph_names: bool) -> String {
        let values = iris.join(" ");
        let holding = if graph_names {
            format!("VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }}")
        } else {
            ["?s", "?p", "?o"]
                .iter()
                .map(|var| {
                    format!(
                        "{{ VALUES {var} {{ {values} }} {} }}",
                        self.in_scope("?s ?p ?o")
                    )
                })
                .collect::<Vec<_>>()
                .join(" UNION ")
        };
        format!(
            "SELECT (COUNT(*) AS ?n) WHERE {{ SELECT DISTINCT ?s ?p ?o ?g WHERE {{ {holding} }} }}"
        )
    }

    /// `pattern` (over `?s ?p ?o`-like variables) in every graph in scope, as a group.
    fn in_scope(&self, pattern: &str) -> String {
        match &self.graphs {
            Graphs::Default => format!("{{ {pattern} }}"),
            Graphs::All if self.union_default => {
                format!("{{ GRAPH ?g {{ {pattern} }}{} }}", self.not_links())
            }
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

    /// The routed IRIs in one position — subject, predicate, object — all of them: three
    /// queries a store may answer at once, where [`Self::term_candidates`] is one.
    pub(crate) fn term_candidates_by_position(&self) -> [String; 3] {
        ["?x ?p ?o", "?s ?x ?o", "?s ?p ?x"]
            .map(|pattern| self.candidates(&self.in_scope(pattern), None))
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
        let not_links = self.not_excluded("?x");
        self.candidates(&format!("GRAPH ?x {}{not_links}", self.graph_pattern), page)
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
    pub(crate) fn rewrite_terms(&self, pairs: &[Replacement]) -> String {
        let mut update = self.record_links(pairs);
        for Replacement {
            old,
            new: representative,
            collapsed,
        } in pairs
        {
            for position in 0..3 {
                let pattern = |term: &str| match position {
                    0 => format!("{term} ?p ?o"),
                    1 => format!("?s {term} ?o"),
                    _ => format!("?s ?p {term}"),
                };
                let (old, new) = (pattern(old), pattern(representative));
                let kept = match position {
                    2 => self.not_a_link(representative, *collapsed),
                    _ => String::new(),
                };
                let default = |update: &mut String| {
                    let _ = writeln!(
                        update,
                        "DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ {old}{kept} }} ;"
                    );
                };
                let named = |update: &mut String, graphs: &str, filter: &str| {
                    let _ = writeln!(
                        update,
                        "DELETE {{ GRAPH ?g {{ {old} }} }} INSERT {{ GRAPH ?g {{ {new} }} }} \
                         WHERE {{ {graphs}GRAPH ?g {{ {old}{kept} }}{filter} }} ;"
                    );
                };
                match &self.graphs {
                    Graphs::Default => default(&mut update),
                    Graphs::All => {
                        if !self.union_default {
                            default(&mut update);
                        }
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
    pub(crate) fn rewrite_graph_names(&self, pairs: &[Replacement]) -> String {
        let mut update = self.record_links(pairs);
        for Replacement { old, new, .. } in pairs {
            let _ = writeln!(
                update,
                "DELETE {{ GRAPH {old} {{ ?s ?p ?o }} }} INSERT {{ GRAPH {new} {{ ?s ?p ?o }} }} \
                 WHERE {{ GRAPH {old} {{ ?s ?p ?o }} }} ;\nDROP SILENT GRAPH {old} ;"
            );
        }
        finish(update)
    }

    /// `INSERT DATA` of the links of `pairs` (never a reflexive one), with the mark that makes
    /// every later run leave the links graph alone.
    fn record_links(&self, pairs: &[Replacement]) -> String {
        let mut update = String::new();
        if let Some(links) = &self.links {
            let _ = writeln!(
                update,
                "INSERT DATA {{ GRAPH {REGISTRY} {{ {links} {LINKS_MARK} true }}"
            );
            let _ = writeln!(update, "  GRAPH {links} {{");
            for Replacement { old, new, .. } in pairs.iter().filter(|r| r.old != r.new) {
                let _ = writeln!(update, "  {old} {SAME_AS} {new} .");
            }
            update.push_str("} } ;\n");
        }
        update
    }
}

/// `{ A } UNION { B } UNION …` of `branches` (each a group), nested as a balanced tree: a store
/// builds a flat list of unions as a chain as deep as the list is long (Oxigraph passed each row
/// through every level, which made counting the statements of 400 IRIs take 1.3 s, and its
/// evaluation of 6 000 branches overflowed its stack), where a balanced one is at most 13 deep
/// for 6 000.
fn union(branches: &[String]) -> String {
    match branches {
        [] => "{ FILTER(false) }".to_owned(),
        [one] => one.clone(),
        _ => {
            let (left, right) = branches.split_at(branches.len() / 2);
            format!("{{ {} UNION {} }}", union(left), union(right))
        }
    }
}

/// `items` grouped by the graph each is in (statements, or pairs of them), the default graph first.
fn by_graph<'a, T>(
    items: impl IntoIterator<Item = (Option<&'a str>, T)>,
) -> std::collections::BTreeMap<Option<&'a str>, Vec<T>> {
    let mut graphs: std::collections::BTreeMap<Option<&str>, Vec<T>> =
        std::collections::BTreeMap::new();
    for (graph, item) in items {
        graphs.entry(graph).or_default().push(item);
    }
    graphs
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
    fn unions_are_balanced() {
        let branches: Vec<String> = (0..5).map(|i| format!("{{ {i} }}")).collect();
        assert_eq!(
            union(&branches),
            "{ { { 0 } UNION { 1 } } UNION { { 2 } UNION { { 3 } UNION { 4 } } } }"
        );
        assert_eq!(union(&branches[..1]), "{ 0 }");
        // 6 000 branches nest 12 or 13 deep (12 opening braces before the first one).
        let many: Vec<String> = (0..6000).map(|i| format!("{{ {i} }}")).collect();
        let text = union(&many);
        assert_eq!(
            text.find("{ 0 }").map(|at| text[..at].matches('{').count()),
            Some(12)
        );
    }

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
        let pairs = [Replacement::plain("<info:a>", "<info:A>")];
        let update = sparql.rewrite_terms(&pairs);
        let insert = update.find("INSERT DATA").expect("links recorded");
        let rewrite = update.find("DELETE").expect("a rewrite");
        assert!(insert < rewrite, "{update}");
        assert!(
            update.contains("FILTER(?g != <urn:pidcanon:graphs> && ?g != <urn:links>)"),
            "{update}"
        );
        assert!(
            update.contains(
                "GRAPH <urn:pidcanon:graphs> { <urn:links> <urn:pidcanon:linksGraph> true }"
            ),
            "{update}"
        );
        assert_eq!(update.matches(" ;\n").count(), 6, "{update}");
        assert!(!update.trim_end().ends_with(';'), "{update}");
    }

    #[test]
    fn the_statements_holding_a_batchs_iris_are_counted_distinct_and_in_scope() {
        let sparql = Sparql::new(
            Graphs::All,
            ["info"].into_iter(),
            Some("<urn:links>".to_owned()),
        );
        let query = sparql.count_holding(&["<info:a>", "<info:A>"], false);
        assert!(
            query.starts_with(
                "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o ?g WHERE { "
            ),
            "{query}"
        );
        // Each position, in the default graph and in the named graphs in scope (links graphs
        // left out), the IRIs as its values.
        assert_eq!(query.matches(" UNION ").count(), 5, "{query}");
        for var in ["?s", "?p", "?o"] {
            assert!(
                query.contains(&format!(
                    "{{ VALUES {var} {{ <info:a> <info:A> }} {{ {{ ?s ?p ?o }} UNION \
                     {{ GRAPH ?g {{ ?s ?p ?o }} \
                     FILTER(?g != <urn:pidcanon:graphs> && ?g != <urn:links>) }} }} }}"
                )),
                "{query}"
            );
        }
        let names = sparql.count_holding(&["<info:g>", "<info:h>"], true);
        assert!(
            names.contains("{ VALUES ?g { <info:g> <info:h> } GRAPH ?g { ?s ?p ?o } }"),
            "{names}"
        );
    }

    #[test]
    fn marked_links_graphs_are_left_out_and_no_link_is_reflexive() {
        let mut sparql = Sparql::new(
            Graphs::All,
            ["info"].into_iter(),
            Some("<urn:links>".to_owned()),
        );
        sparql.exclude(["<urn:old-links>".to_owned(), "<urn:links>".to_owned()]);
        let filter =
            "FILTER(?g != <urn:pidcanon:graphs> && ?g != <urn:links> && ?g != <urn:old-links>)";
        assert!(sparql.term_candidates(None).contains(filter));
        assert!(sparql.count().contains(filter));
        assert!(
            sparql
                .graph_candidates(None)
                .contains("?x != <urn:links> && ?x != <urn:old-links>)")
        );
        let pairs = [
            Replacement::plain("<info:a>", "<info:a>"),
            Replacement::plain("<info:b>", "<info:B>"),
        ];
        let update = sparql.rewrite_terms(&pairs);
        assert!(!update.contains("<info:a> <http://www.w3.org/2002/07/owl#sameAs>"));
        assert!(update.contains("<info:b> <http://www.w3.org/2002/07/owl#sameAs> <info:B> ."));
        let check = sparql.still_there(&[&pairs[1]], false);
        assert!(check.starts_with("ASK {"), "{check}");
        assert!(check.contains("GRAPH ?g { <info:b> ?p ?o }"), "{check}");
        assert!(check.contains(filter), "{check}");
    }

    #[test]
    fn a_collapsed_iri_is_rewritten_everywhere_but_in_the_links_from_its_representative() {
        let mut sparql = Sparql::new(Graphs::Default, ["info"].into_iter(), None);
        sparql.collapse(&[
            "<http://www.w3.org/2002/07/owl#sameAs>".to_owned(),
            "<urn:p>".to_owned(),
        ]);
        let filter = "FILTER(!(sameTerm(?s, <info:rep>) && ?p IN \
                      (<http://www.w3.org/2002/07/owl#sameAs>, <urn:p>)))";
        let collapsed = Replacement {
            collapsed: true,
            ..Replacement::plain("<info:m>", "<info:rep>")
        };
        let update = sparql.rewrite_terms(std::slice::from_ref(&collapsed));
        // The object position only: a link's subject is the representative itself.
        assert_eq!(update.matches(filter).count(), 1, "{update}");
        assert!(
            update.contains(&format!("WHERE {{ ?s ?p <info:m> {filter} }}")),
            "{update}"
        );
        assert!(sparql.still_there(&[&collapsed], false).contains(filter));
        // A spelling that is not collapsed is rewritten in every statement.
        let plain = Replacement::plain("<info:M>", "<info:m>");
        assert!(!sparql.rewrite_terms(&[plain]).contains("sameTerm"));
        let held = sparql.held_apart_from_links(std::slice::from_ref(&collapsed));
        assert_eq!(
            held,
            "SELECT DISTINCT ?x WHERE { VALUES (?x ?r) { (<info:m> <info:rep>) } { { ?x ?p1 ?o1 } \
             UNION { ?s2 ?x ?o2 } UNION { ?s ?p ?x } } FILTER(!BOUND(?s) || !(sameTerm(?s, ?r) \
             && ?p IN (<http://www.w3.org/2002/07/owl#sameAs>, <urn:p>))) }"
        );
        let statements = sparql.equivalence_statements();
        assert!(
            statements.contains("VALUES ?p { <http://www.w3.org/2002/07/owl#sameAs> <urn:p> }"),
            "{statements}"
        );
        assert!(
            statements.contains("FILTER(isIRI(?s) && isIRI(?o))"),
            "{statements}"
        );
        // One block per graph, the default graph first.
        let data = [
            (Some("<urn:g>"), "<info:rep> <urn:p> <info:m>".to_owned()),
            (None, "<info:rep> <urn:p> <info:n>".to_owned()),
            (Some("<urn:g>"), "<info:rep> <urn:p> <info:o>".to_owned()),
        ];
        assert_eq!(
            Sparql::data("INSERT", &data),
            "INSERT DATA {\n  <info:rep> <urn:p> <info:n> .\n  GRAPH <urn:g> {\n    \
             <info:rep> <urn:p> <info:m> .\n    <info:rep> <urn:p> <info:o> .\n  }\n}\n"
        );
    }

    #[test]
    fn on_virtuoso_graph_names_are_found_from_statements_and_the_union_is_left_alone() {
        let mut sparql = Sparql::new(Graphs::All, ["info"].into_iter(), None);
        sparql.default_graph_is_union();
        sparql.find_graphs_by_statements();
        sparql.exclude([VIRTRDF.to_owned()]);
        let names = sparql.graph_candidates(None);
        assert!(
            names.contains(
                "SELECT DISTINCT ?x WHERE { GRAPH ?x { ?s ?p ?o } FILTER(?x != \
                 <urn:pidcanon:graphs> && ?x != <http://www.openlinksw.com/schemas/virtrdf#>) }"
            ),
            "{names}"
        );
        let among = sparql.graph_names_among(&["<info:g>"]);
        assert!(
            among.contains("FILTER EXISTS { GRAPH ?x { ?s ?p ?o } }"),
            "{among}"
        );
        assert_eq!(
            sparql.count(),
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(?g != \
             <urn:pidcanon:graphs> && ?g != <http://www.openlinksw.com/schemas/virtrdf#>) }"
        );
        let update = sparql.rewrite_terms(&[Replacement::plain("<info:a>", "<info:A>")]);
        assert_eq!(
            update.matches("GRAPH ?g { <info:a> ?p ?o }").count(),
            2,
            "{update}"
        );
        assert!(!update.contains("DELETE { <info:a>"), "{update}");
    }

    #[test]
    fn renamed_iris_no_route_leads_to_are_looked_for_by_name() {
        let sparql = Sparql::new(
            Graphs::All,
            ["info", "https://DOI.org"].into_iter(),
            Some("<urn:links>".to_owned()),
        );
        assert!(sparql.routed("INFO:fedora/x"));
        assert!(sparql.routed("https://doi.org/10.1/x"));
        assert!(!sparql.routed("http://purl.org/dc/terms/relation"));
        assert!(!sparql.routed("inf"));
        let terms = sparql.terms_among(&["<http://a/>", "<http://b/>"]);
        assert!(
            terms.starts_with(
                "SELECT ?x WHERE { VALUES ?x { <http://a/> <http://b/> } FILTER EXISTS { "
            ),
            "{terms}"
        );
        assert!(terms.contains("GRAPH ?g { ?s ?x ?o }"), "{terms}");
        assert!(terms.contains("?g != <urn:links>"), "{terms}");
        let names = sparql.graph_names_among(&["<http://g/>"]);
        assert!(
            names.contains("FILTER EXISTS { GRAPH ?x { } } FILTER(?x != <urn:pidcanon:graphs>"),
            "{names}"
        );
    }
}
