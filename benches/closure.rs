//! The closure of `owl:sameAs` graphs shaped like LOD-a-lot's (sameAs.cc, ESWC 2018: 559 M
//! statements, 180 M terms, 49 M classes, 64 % of classes of size 2, the largest 177 794):
//! generated pairs fed to `EquivalencesBuilder`, then frozen. Prints, per size, the time to add
//! the pairs, to freeze, the peak memory of the process, and the projection to 559 M statements.
//!
//! usage: cargo bench --bench closure -- [STATEMENTS…] (default: 1000000 10000000)
//!
//! The generator: class sizes follow a power law P(k) ∝ k^-3.1 for k ≥ 2 (which gives 64 % of
//! size 2), cut at the largest class scaled to the statements asked for (177 794 at 559 M), with
//! that largest class present once; each class gets a random spanning tree (each member joined to
//! an earlier one: stars, chains and everything between) plus redundant statements within the
//! class until there are 3.1 statements per term (559 M / 180 M). Members are IRIs of ~50 bytes in
//! four schemes (DOI, handle, Fedora, URL), numbered through a hash so that neither the IRIs nor
//! the classes come in order. Everything is streamed: the peak memory is the closure's.

use pidcanon::Kind;
use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
use std::fmt::Write as _;
use std::time::Instant;

const LOD_STATEMENTS: f64 = 559e6;
const LOD_LARGEST: f64 = 177_794.0;
const STATEMENTS_PER_TERM: f64 = 559.0 / 180.0;
const EXPONENT: f64 = 3.1;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The cumulative distribution of class sizes 2..=largest.
fn size_table(largest: usize) -> Vec<f64> {
    let weights: Vec<f64> = (2..=largest).map(|k| (k as f64).powf(-EXPONENT)).collect();
    let total: f64 = weights.iter().sum();
    let mut sum = 0.0;
    weights
        .iter()
        .map(|w| {
            sum += w / total;
            sum
        })
        .collect()
}

/// The IRI of term `id`: one of four schemes, its number hashed.
fn iri(id: u64, out: &mut String) -> Kind {
    out.clear();
    let h = xxhash_rust::xxh3::xxh3_64(&id.to_le_bytes());
    match id % 4 {
        0 => {
            let _ = write!(out, "https://doi.org/10.{}/{h:016x}", 1000 + id % 9000);
            Kind::Doi
        }
        1 => {
            let _ = write!(out, "hdl:20.500.{}/{h:016x}", id % 100);
            Kind::Handle
        }
        2 => {
            let _ = write!(out, "info:fedora/repo{}:{h:016x}", id % 50);
            Kind::FedoraObject
        }
        _ => {
            let _ = write!(out, "http://dbpedia.example.org/resource/E_{h:016x}");
            Kind::Iri
        }
    }
}

/// CPU time (user and system) of this process so far, in seconds (Linux `/proc/self/stat`, in
/// clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses): utime and stime are the
    // 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Peak resident memory of this process, in bytes (Linux `VmHWM`).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

struct Measured {
    statements: u64,
    terms: usize,
    classes: usize,
    largest: usize,
    add_seconds: f64,
    freeze_seconds: f64,
}

fn run(statements: u64) -> Measured {
    let scale = statements as f64 / LOD_STATEMENTS;
    let largest = ((LOD_LARGEST * scale) as usize).max(2);
    let table = size_table(largest);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ statements);
    let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
    let (mut a, mut b) = (String::new(), String::new());
    let mut next_term = 0u64;
    let mut emitted = 0u64;
    let mut first = true;
    let started = Instant::now();
    while emitted < statements {
        let size = if std::mem::take(&mut first) {
            largest
        } else {
            let u = rng.unit();
            2 + table.partition_point(|&c| c < u).min(table.len() - 1)
        };
        let base = next_term;
        next_term += size as u64;
        let edges = ((size as f64 * STATEMENTS_PER_TERM).round() as u64).max(size as u64 - 1);
        for e in 0..edges {
            let (x, y) = if e + 1 < size as u64 {
                // The spanning tree: member e + 1 joined to an earlier one.
                (e + 1, rng.below(e + 1))
            } else {
                (rng.below(size as u64), rng.below(size as u64))
            };
            let ka = iri(base + x, &mut a);
            let kb = iri(base + y, &mut b);
            let origin = Origin {
                source: 0,
                line: emitted + 1,
            };
            if builder.add((&a, ka), (&b, kb), origin).is_err() {
                panic!("too many identifiers");
            }
            emitted += 1;
            if emitted == statements {
                break;
            }
        }
    }
    let add_seconds = started.elapsed().as_secs_f64();
    let terms = builder.identifiers();
    let started = Instant::now();
    let equivalences = builder.freeze_with(usize::MAX, true);
    let freeze_seconds = started.elapsed().as_secs_f64();
    Measured {
        statements,
        terms,
        classes: equivalences.classes(),
        largest,
        add_seconds,
        freeze_seconds,
    }
}

fn main() {
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000_000, 10_000_000]
    } else {
        sizes
    };
    let child = std::env::var_os("CLOSURE_CHILD").is_some();
    if !child {
        println!(
            "| statements | terms | classes | largest | add pairs | freeze | total wall | CPU | peak RSS | projected to 559 M: wall, CPU, memory |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
    }
    for statements in sizes {
        // Each size in its own process, so that the peak memory is its own.
        if !child {
            let status = std::process::Command::new(std::env::current_exe().expect("this program"))
                .arg(statements.to_string())
                .env("CLOSURE_CHILD", "1")
                .status()
                .expect("the benchmark runs");
            assert!(status.success());
            continue;
        }
        let m = run(statements);
        let total = m.add_seconds + m.freeze_seconds;
        let rss = peak_rss().unwrap_or(0);
        let cpu = cpu_seconds().unwrap_or(0.0);
        let factor = LOD_STATEMENTS / m.statements as f64;
        println!(
            "| {} | {} | {} | {} | {:.1} s | {:.1} s | {:.1} s | {:.1} s | {:.2} GiB | {:.0} min, {:.0} min, {:.1} GiB |",
            m.statements,
            m.terms,
            m.classes,
            m.largest,
            m.add_seconds,
            m.freeze_seconds,
            total,
            cpu,
            rss as f64 / (1u64 << 30) as f64,
            total * factor / 60.0,
            cpu * factor / 60.0,
            rss as f64 * factor / (1u64 << 30) as f64,
        );
    }
}
