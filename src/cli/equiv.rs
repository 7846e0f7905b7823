//! The options of `rewrite` that go beyond spellings: `--collapse` (a first pass over
//! the inputs gathers equivalence classes), `--rename`, `--literals`.

use super::files::Input;
use super::summary::count;
use super::temporary::Temporary;
use clap::Args;
use pidcanon::collapse::{CollapseOptions, CollectError, Collector};
use pidcanon::equivalence::literals::{DoiCase, LiteralOptions, LiteralRewriter, Predicates};
use pidcanon::equivalence::mapping::IriMapping;
use pidcanon::equivalence::mapping::{Pair, PairFileError, read_pairs_file};
use pidcanon::equivalence::rename::RenameTable;
use pidcanon::equivalence::{Equivalences, LargeClass};
use pidcanon::rewrite::{RdfFormat, Report, Rewriter};
use pidcanon::{Policy, Registry};
use std::io::{self, Write};
use std::path::PathBuf;

/// How many statements that joined a large class are printed (all are counted).
const JOINS_SHOWN: usize = 20;

#[derive(Debug, Args)]
pub(crate) struct EquivalenceArgs {
    #[command(flatten)]
    pub(crate) collapse: CollapseArgs,
    /// Take the classes from the --equivalences files alone and read the inputs once, for
    /// classes gathered beforehand over more than these inputs (as the Spark job does).
    #[arg(long, requires = "equivalences")]
    equivalences_only: bool,
    #[command(flatten)]
    identifiers: IdentifierArgs,
    /// Also write `<s> PREDICATE <canonical-IRI>` for each identifier literal (with --collapse
    /// and an equivalence predicate, these join the classes too).
    #[arg(long, value_name = "PREDICATE", requires = "literals")]
    literal_links: Option<String>,
}

/// What `rewrite` and `store` share of `--collapse`.
#[derive(Debug, Args)]
pub(crate) struct CollapseArgs {
    /// Collapse equivalent IRIs onto one representative per class: owl:sameAs statements
    /// between IRIs, --equivalence-predicate statements and --equivalences files (`rewrite`:
    /// two passes, stdin spooled to a temporary file). See docs/equivalence.md.
    #[arg(long)]
    pub(crate) collapse: bool,
    /// Another predicate whose statements assert equivalence, e.g. skos:exactMatch's IRI
    /// (repeatable).
    #[arg(long, value_name = "IRI", requires = "collapse")]
    equivalence_predicate: Vec<String>,
    /// A TSV file of equivalent IRIs, `iri<TAB>iri[<TAB>kind]` per line, as --map writes
    /// (repeatable).
    #[arg(long, value_name = "FILE", requires = "collapse")]
    equivalences: Vec<PathBuf>,
    /// Report classes larger than N with the statements that joined them, and refuse to run.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_class: usize,
    /// Collapse classes larger than --max-class anyway (they are still reported).
    #[arg(long, requires = "collapse")]
    allow_large_classes: bool,
    /// Drop equivalence statements whose two sides become one IRI.
    #[arg(long, requires = "collapse")]
    drop_reflexive: bool,
}

impl CollapseArgs {
    /// The options of the collapse, with the policy's representative order.
    pub(crate) fn options(&self, policy: &Policy) -> Result<CollapseOptions, String> {
        let mut options = CollapseOptions::for_policy(policy)
            .map_err(|e| format!("policy representative_order: {e}"))?;
        for p in &self.equivalence_predicate {
            options
                .add_predicate(p)
                .map_err(|e| format!("--equivalence-predicate <{p}>: {e}"))?;
        }
        options.max_class = self.max_class;
        options.collapse_large = self.allow_large_classes;
        options.drop_reflexive = self.drop_reflexive;
        Ok(options)
    }

    /// The pairs of each `--equivalences` file; their problems listed, saying nothing was
    /// `done`.
    pub(crate) fn pairs(&self, registry: &Registry, done: &str) -> Result<Vec<Vec<Pair>>, String> {
        self.equivalences
            .iter()
            .map(|path| read_pairs_file(path, registry).map_err(|e| file_message(&e, done)))
            .collect()
    }

    /// Prints the classes found and every class over the limit, naming where each join was
    /// made with `source` (the number of an input, or of an `--equivalences` file after
    /// `files_after` inputs).
    pub(crate) fn print_classes(
        &self,
        equivalences: &Equivalences,
        quiet: bool,
        inputs: &dyn Fn(u32) -> Option<String>,
        files_after: usize,
    ) {
        let mut stderr = io::stderr().lock();
        if !quiet {
            let _ = writeln!(
                stderr,
                "pidcanon: --collapse: {}, {} of {} (gathered in {:.1} MB, {} bytes an identifier)",
                count(
                    equivalences.pairs(),
                    "equivalence pair",
                    "equivalence pairs"
                ),
                count(equivalences.classes() as u64, "class", "classes"),
                count(equivalences.members() as u64, "identifier", "identifiers"),
                equivalences.gathered_bytes() as f64 / 1e6,
                equivalences.gathered_bytes() / equivalences.identifiers().max(1),
            );
        }
        let where_ = |source: u32, line: u64| {
            let name = inputs(source).unwrap_or_else(|| {
                (source as usize)
                    .checked_sub(files_after)
                    .and_then(|i| self.equivalences.get(i))
                    .map_or("?".into(), |p| p.display().to_string())
            });
            if line == 0 {
                name
            } else {
                format!("{name}:{line}")
            }
        };
        for class in equivalences.large_classes() {
            let _ = print_class(&mut stderr, class, self.max_class, &where_);
        }
    }

    /// The refusal of classes over the limit, when there are some and they may not be
    /// collapsed.
    pub(crate) fn refusal(&self, large: usize, done: &str) -> Option<String> {
        (large > 0 && !self.allow_large_classes).then(|| {
            format!(
                "{} larger than --max-class {}: nothing {done}. Fix the statements that joined \
                 {}, raise --max-class, or pass --allow-large-classes",
                count(large as u64, "equivalence class", "equivalence classes"),
                self.max_class,
                if large == 1 { "it" } else { "them" },
            )
        })
    }
}

/// What `rewrite` and `store` share: renames and identifier literals.
#[derive(Debug, Args)]
pub(crate) struct IdentifierArgs {
    /// Rename IRIs by a TSV file `old<TAB>new` (old spellings are canonicalized first).
    #[arg(long, value_name = "FILE")]
    rename: Option<PathBuf>,
    /// Rewrite identifiers written as literals: of the default predicates (bibo:doi, prism:doi,
    /// dcterms:identifier, dc:identifier, schema:identifier, schema:value,
    /// literal:hasLiteralValue), of `all` literals, or of the predicates listed (comma-separated
    /// IRIs or prefixed names), given as `--literals=LIST` (`--literals FILE` reads FILE as an
    /// input with the default predicates).
    #[arg(
        long,
        value_name = "PREDICATES",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "default"
    )]
    literals: Option<String>,
    /// How DOI literals are cased [default: the policy's doi_literal_case, else preserve].
    #[arg(long, value_enum)]
    doi_literal_case: Option<DoiCase>,
}

impl IdentifierArgs {
    /// The rename table of `--rename`, if given; its problems listed, saying nothing was `done`.
    pub(crate) fn rename_table(
        &self,
        registry: &Registry,
        done: &str,
    ) -> Result<Option<RenameTable>, String> {
        self.rename
            .as_deref()
            .map(|path| RenameTable::read_file(path, registry).map_err(|e| file_message(&e, done)))
            .transpose()
    }

    /// The literal rewriter of `--literals`, if given, writing `link` statements if asked.
    pub(crate) fn literal_rewriter(
        &self,
        policy: &Policy,
        link: Option<oxrdf::NamedNode>,
    ) -> Result<Option<LiteralRewriter>, String> {
        let Some(list) = &self.literals else {
            return Ok(None);
        };
        Ok(Some(LiteralRewriter::new(LiteralOptions {
            predicates: Predicates::parse(list)?,
            doi_case: self.doi_literal_case.unwrap_or(policy.doi_literal_case),
            link,
        })))
    }
}

/// How the first pass of `--collapse` reads an input that is not read by lines: exactly as the
/// rewrite reads it, into the collector.
pub(crate) struct FirstPass<'a> {
    /// The inputs are FOXML (files or object stores), never read by lines.
    pub(crate) foxml: bool,
    /// Collects one input, numbered as given (what does not read is the rewrite's to report:
    /// it reads the same).
    pub(crate) read: Box<ReadInput<'a>>,
}

/// Collects one input, numbered as given, as the rewrite reads it.
pub(crate) type ReadInput<'a> =
    dyn Fn(&Input, &mut Collector<'_>, u32) -> Result<(), CollectError> + 'a;

/// What outlives the configuration: the temporary copy of stdin.
pub(crate) struct Spooled {
    _file: Option<Temporary>,
}

/// Applies the options to `rewriter` (running the first pass of `--collapse` over `inputs`,
/// read as `first_pass` reads them: with the rewrite's own reader); a usage error is printed and
/// gives `Err`.
pub(crate) fn configure<'a>(
    args: &EquivalenceArgs,
    policy: &Policy,
    rewriter: Rewriter,
    inputs: &mut [Input],
    quiet: bool,
    first_pass: impl FnOnce() -> Result<FirstPass<'a>, String>,
) -> Result<(Rewriter, Spooled), String> {
    let registry = rewriter.registry();
    let link = args
        .literal_links
        .as_deref()
        .map(|p| oxrdf::NamedNode::new(p).map_err(|e| format!("--literal-links <{p}>: {e}")))
        .transpose()?;
    let literals = args.identifiers.literal_rewriter(policy, link)?;
    let rename = args.identifiers.rename_table(registry, "written")?;
    let mut spooled = None;
    let mapping = if args.collapse.collapse {
        if !args.equivalences_only {
            spooled = spool_stdin(inputs)?;
        }
        let options = args.collapse.options(policy)?;
        let equivalences = collect(
            args,
            &options,
            &rewriter,
            first_pass()?,
            inputs,
            (rename.as_ref(), literals.as_ref()),
        )?;
        let names = |source: u32| inputs.get(source as usize).map(|i| i.name.clone());
        args.collapse
            .print_classes(&equivalences, quiet, &names, inputs.len());
        if let Some(refusal) = args
            .collapse
            .refusal(equivalences.large_classes().len(), "written")
        {
            return Err(refusal);
        }
        Some(options.mapping(rename, equivalences))
    } else {
        rename.map(|table| IriMapping::new().with_rename(table))
    };
    let mut rewriter = match mapping {
        Some(mapping) => rewriter.with_mapping(mapping),
        None => rewriter,
    };
    if let Some(literals) = literals {
        rewriter = rewriter.with_literals(literals);
    }
    Ok((rewriter, Spooled { _file: spooled }))
}

/// The first pass: every input and every `--equivalences` file. N-Triples and N-Quads files are
/// read line by line, as the rewrite cuts them, only the lines that may be equivalence
/// statements parsed; every other input is read by `first_pass` as the rewrite reads it (the
/// same parser, the legacy RDF/XML reading, `--lenient`'s recovery, FOXML objects and object
/// stores).
fn collect(
    args: &EquivalenceArgs,
    options: &CollapseOptions,
    rewriter: &Rewriter,
    first_pass: FirstPass<'_>,
    inputs: &[Input],
    (rename, literals): (Option<&RenameTable>, Option<&LiteralRewriter>),
) -> Result<Equivalences, String> {
    let registry: &Registry = rewriter.registry();
    let mut collector = options.collector(registry, rename);
    let links_join = literals
        .and_then(|l| l.options().link.as_ref())
        .is_some_and(|link| options.predicates.iter().any(|p| p == link.as_str()));
    if let (Some(literals), true) = (literals, links_join) {
        collector = collector.with_literal_links(literals);
    }
    let read = if args.equivalences_only {
        0
    } else {
        inputs.len()
    };
    let lines = matches!(
        rewriter.input_format(),
        RdfFormat::NTriples | RdfFormat::NQuads
    ) && !first_pass.foxml;
    for (source, input) in inputs[..read].iter().enumerate() {
        let source = source as u32;
        let collected = if lines {
            // Decompressed as the rewrite reads it.
            let (reader, _) = input.open(true).map_err(|e| e.to_string())?;
            collector.read_graph(reader, rewriter.input_format(), None, source)
        } else {
            (first_pass.read)(input, &mut collector, source)
        };
        collected.map_err(|e| format!("{}: {e}", input.name))?;
    }
    for (i, pairs) in args.collapse.pairs(registry, "written")?.iter().enumerate() {
        collector
            .add_pairs(pairs, (inputs.len() + i) as u32)
            .map_err(|e| e.to_string())?;
    }
    Ok(options.finish(collector))
}

/// Copies stdin to a temporary file that the inputs then name, so that it can be read twice.
fn spool_stdin(inputs: &mut [Input]) -> Result<Option<Temporary>, String> {
    let Some(input) = inputs.iter_mut().find(|i| i.path.is_none()) else {
        return Ok(None);
    };
    let spool = || -> io::Result<Temporary> {
        let temp = Temporary::for_what("stdin")?;
        let mut file = temp.as_file();
        io::copy(&mut io::stdin().lock(), &mut file)?;
        file.flush()?;
        Ok(temp)
    };
    let temp = spool().map_err(|e| format!("cannot spool stdin to a temporary file: {e}"))?;
    input.path = Some(temp.path().to_owned());
    Ok(Some(temp))
}

fn print_class(
    out: &mut impl Write,
    class: &LargeClass,
    max_class: usize,
    where_: &impl Fn(u32, u64) -> String,
) -> io::Result<()> {
    writeln!(
        out,
        "pidcanon: a class of {} (over --max-class {max_class}), representative <{}>, joined by \
         {}:",
        count(class.size as u64, "identifier", "identifiers"),
        class.representative,
        count(class.joins.len() as u64, "statement", "statements")
    )?;
    if let Some(join) = &class.largest_join {
        writeln!(
            out,
            "pidcanon:   the largest join (of a part of {} to one at least as large): {}: <{}> = \
             <{}>",
            count(join.smaller_side as u64, "member", "members"),
            where_(join.origin.source, join.origin.line),
            join.a,
            join.b
        )?;
    }
    for join in class.joins.iter().take(JOINS_SHOWN) {
        writeln!(
            out,
            "pidcanon:   {}: <{}> = <{}>",
            where_(join.origin.source, join.origin.line),
            join.a,
            join.b
        )?;
    }
    if class.joins.len() > JOINS_SHOWN {
        writeln!(
            out,
            "pidcanon:   … and {} more",
            class.joins.len() - JOINS_SHOWN
        )?;
    }
    Ok(())
}

/// Prints the identifier literals found, per predicate, and what became of the equivalence
/// statements.
pub(crate) fn print_literal_counts(report: &Report, quiet: bool) {
    if quiet {
        return;
    }
    let mut stderr = io::stderr().lock();
    for (predicate, n) in &report.literals {
        let _ = writeln!(
            stderr,
            "pidcanon: literals of <{predicate}>: {}, {} rewritten, {} invalid, {} linked",
            count(n.recognized, "identifier", "identifiers"),
            n.rewritten,
            n.invalid,
            n.linked
        );
    }
    if report.equivalence_statements_linked > 0 || report.equivalence_links_written > 0 {
        let _ = writeln!(
            stderr,
            "pidcanon: --collapse: {} equivalence statements within classes written as {} links \
             from their representatives (counted as written)",
            report.equivalence_statements_linked, report.equivalence_links_written
        );
    }
    if report.reflexive_dropped > 0 {
        let _ = writeln!(
            stderr,
            "pidcanon: {} dropped",
            count(
                report.reflexive_dropped,
                "reflexive equivalence statement",
                "reflexive equivalence statements"
            )
        );
    }
}

/// The message of a `--rename` or `--equivalences` file that cannot be used: its problems
/// counted and listed, saying that nothing was `done`.
fn file_message(error: &PairFileError, done: &str) -> String {
    match error {
        PairFileError::Problems { problems, .. } => format!(
            "{}, nothing {done}:\n{error}",
            count(problems.len() as u64, "problem", "problems"),
        ),
        _ => error.to_string(),
    }
}
