//! `--dedup`: a statement is known by a 128-bit fingerprint of its N-Quads form, and the set of
//! fingerprints seen holds about 18 bytes per distinct statement, whatever the statements' length.
//! Both pipelines use it: the line pipeline fingerprints each line's rewritten statement on its
//! workers, the graph pipeline each mapped statement before it is serialized.
//!
//! The set ([`Fingerprints`]) is an open-addressing table cut into [`SHARDS`] shards by the
//! fingerprint's top 12 bits. A shard keeps the fingerprint's low 96 bits in a slot (12 bytes, no
//! per-entry overhead, all zeros meaning empty), so the shard number and the slot together keep
//! 108 of the 128 bits: two distinct statements in a billion share a fingerprint with a
//! probability below 10⁻¹³. Each shard grows by half when it is four fifths full, so a shard is
//! always between 53 % and 80 % full; the shards start at sizes spread evenly (in log scale) over
//! one growth step, so they do not all grow at once and the whole set's cost per statement stays
//! near its mean (12 / 0.8 × 1.23 ≈ 18.5 bytes) as it grows, instead of jumping at each doubling
//! as a single table would — and only one shard at a time is ever copied.

use oxrdf::QuadRef;
use std::fmt::Write as _;

/// The fingerprint of one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Fingerprint(u128);

impl Fingerprint {
    /// The fingerprint of `quad`; `scratch` is a buffer reused between calls.
    pub(crate) fn of<'a>(quad: impl Into<QuadRef<'a>>, scratch: &mut String) -> Self {
        scratch.clear();
        let _ = write!(scratch, "{}", quad.into());
        Self(xxhash_rust::xxh3::xxh3_128(scratch.as_bytes()))
    }

    /// The fingerprint of the statement a valid N-Triples / N-Quads `line` writes, when the line
    /// writes it as [`Fingerprint::of`] does (terms one space apart, then ` .` and the line
    /// break; no escape, control character, upper-case language tag, direction or
    /// `^^xsd:string` — the shape of nearly every line of a dump): then its bytes are hashed
    /// as they stand, with no parse. `None` for a line in any other shape.
    pub(crate) fn of_written(line: &[u8]) -> Option<Self> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let form = line.strip_suffix(b" .")?;
        let mut at = 0;
        let mut terms = 0;
        loop {
            at = written_term_end(form, at)?;
            terms += 1;
            match form.get(at) {
                None => break,
                Some(b' ') => at += 1,
                Some(_) => return None,
            }
        }
        matches!(terms, 3 | 4).then(|| Self(xxhash_rust::xxh3::xxh3_128(form)))
    }

    /// Its 32 lower-case hex digits, most significant first.
    pub(crate) fn hex(self) -> [u8; 32] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0; 32];
        for (i, digit) in hex.iter_mut().enumerate() {
            *digit = DIGITS[(self.0 >> (124 - 4 * i) & 0xF) as usize];
        }
        hex
    }

    /// The shard this fingerprint belongs to: its top 12 bits.
    fn shard(self) -> usize {
        (self.0 >> (128 - SHARD_BITS)) as usize
    }

    /// What a shard keeps of it: its low 96 bits, never all zeros (the empty slot).
    fn slot(self) -> Slot {
        let low = self.0 as u64;
        let high = (self.0 >> 64) as u32;
        if low == 0 && high == 0 {
            return [1, 0, 0];
        }
        [low as u32, (low >> 32) as u32, high]
    }
}

/// Puts at `at` in `out` what [`Rewriter::fingerprint_statements`] writes before a line: the
/// fingerprint of its statement in hex and a tab, or a tab alone for a line with no statement.
///
/// [`Rewriter::fingerprint_statements`]: super::Rewriter::fingerprint_statements
pub(crate) fn insert_prefix(out: &mut Vec<u8>, at: usize, fingerprint: Option<Fingerprint>) {
    match fingerprint {
        Some(fingerprint) => {
            let hex = fingerprint.hex();
            out.splice(at..at, hex.into_iter().chain([b'\t']));
        }
        None => out.insert(at, b'\t'),
    }
}

/// Where the term starting at `at` ends, if it is written as `Display` writes it.
fn written_term_end(form: &[u8], at: usize) -> Option<usize> {
    let rest = &form[at..];
    match rest.first()? {
        b'<' => written_iri_end(form, at),
        b'_' if rest.get(1) == Some(&b':') => {
            Some(at + memchr::memchr(b' ', rest).unwrap_or(rest.len()))
        }
        b'"' => {
            let close = at + 1 + memchr::memchr(b'"', &rest[1..])?;
            if form[at + 1..close]
                .iter()
                .any(|&b| b == b'\\' || b < 0x20 || b == 0x7F)
            {
                return None;
            }
            let after = close + 1;
            match form.get(after) {
                None | Some(b' ') => Some(after),
                Some(b'@') => {
                    let tag = &form[after + 1..];
                    let end = memchr::memchr(b' ', tag).unwrap_or(tag.len());
                    let tag = &tag[..end];
                    let lower = tag
                        .iter()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-');
                    (lower && !tag.is_empty() && memchr::memmem::find(tag, b"--").is_none())
                        .then_some(after + 1 + end)
                }
                Some(b'^') if form.get(after + 1) == Some(&b'^') => {
                    let end = written_iri_end(form, after + 2)?;
                    (&form[after + 3..end - 1] != XSD_STRING.as_bytes()).then_some(end)
                }
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Where the IRI `<…>` starting at `at` ends, if it has no escape (and is not `<<`).
fn written_iri_end(form: &[u8], at: usize) -> Option<usize> {
    if form.get(at) != Some(&b'<') {
        return None;
    }
    let close = at + 1 + memchr::memchr2(b'>', b'\\', &form[at + 1..])?;
    (form[close] == b'>' && close > at + 1 && form[at + 1] != b'<').then_some(close + 1)
}

/// The datatype `Display` leaves out.
const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";

/// How many bits of a fingerprint choose its shard.
const SHARD_BITS: u32 = 12;
/// How many shards the set has.
pub(crate) const SHARDS: usize = 1 << SHARD_BITS;
/// The smallest first size of a shard; shard `i` starts at `MIN_CAPACITY × 1.5^(i / SHARDS)`.
const MIN_CAPACITY: usize = 16;

/// 96 bits of a fingerprint, as three 32-bit words so that a slot is 12 bytes.
type Slot = [u32; 3];
/// The empty slot.
const EMPTY: Slot = [0, 0, 0];

/// The fingerprints of the statements written so far.
#[derive(Debug)]
pub(crate) struct Fingerprints {
    shards: Vec<Shard>,
}

impl Default for Fingerprints {
    fn default() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
        }
    }
}

impl Fingerprints {
    /// Remembers `fingerprint`; false if it was there already (the statement is a duplicate).
    pub(crate) fn first_time(&mut self, fingerprint: Fingerprint) -> bool {
        let index = fingerprint.shard();
        self.shards[index].insert(fingerprint, index)
    }

    /// How many distinct fingerprints the set holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.shards.iter().map(|shard| shard.len).sum()
    }

    /// The bytes its slots take.
    #[cfg(test)]
    fn slot_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.slots.len() * size_of::<Slot>())
            .sum()
    }
}

/// One shard: slots probed linearly from a fingerprint's start, wrapping at the end.
#[derive(Debug, Default)]
struct Shard {
    slots: Box<[Slot]>,
    len: usize,
}

impl Shard {
    /// Adds `fingerprint` (of shard number `index`); false if it was there already.
    fn insert(&mut self, fingerprint: Fingerprint, index: usize) -> bool {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.grow(index);
        }
        let slot = fingerprint.slot();
        let mut at = probe_start(&slot, self.slots.len());
        loop {
            match self.slots[at] {
                EMPTY => {
                    self.slots[at] = slot;
                    self.len += 1;
                    return true;
                }
                kept if kept == slot => return false,
                _ => {
                    at = if at + 1 == self.slots.len() {
                        0
                    } else {
                        at + 1
                    }
                }
            }
        }
    }

    /// Moves every slot into a table half as large again (the first: the shard's first size).
    fn grow(&mut self, index: usize) {
        let capacity = match self.slots.len() {
            0 => first_capacity(index),
            capacity => capacity + capacity / 2,
        };
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; capacity].into_boxed_slice());
        for slot in old.iter().filter(|slot| **slot != EMPTY) {
            let mut at = probe_start(slot, capacity);
            while self.slots[at] != EMPTY {
                at = if at + 1 == capacity { 0 } else { at + 1 };
            }
            self.slots[at] = *slot;
        }
    }
}

/// Where the probe of a slot starts in a shard of `capacity` slots: 64 of its bits (the
/// fingerprint's bits 32–95) scaled to the capacity (a multiply instead of a modulo, so
/// capacities need not be powers of two).
fn probe_start(slot: &Slot, capacity: usize) -> usize {
    let bits = u64::from(slot[1]) | (u64::from(slot[2]) << 32);
    ((bits as u128 * capacity as u128) >> 64) as usize
}

/// The first size of shard `index`: spread over one growth step (×1.5) in log scale, so that
/// shards do not all grow at the same time.
fn first_capacity(index: usize) -> usize {
    let step = index as f64 / SHARDS as f64;
    (MIN_CAPACITY as f64 * 1.5f64.powf(step)).round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(n: u64) -> Fingerprint {
        Fingerprint(xxhash_rust::xxh3::xxh3_128(&n.to_le_bytes()))
    }

    #[test]
    fn hex_is_the_fingerprint_in_32_lower_case_digits() {
        let digits = Fingerprint(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        assert_eq!(&digits.hex(), b"0123456789abcdeffedcba9876543210");
        assert_eq!(&Fingerprint(0).hex(), &[b'0'; 32]);
        let any = fingerprint(7);
        assert_eq!(any.hex().as_slice(), format!("{:032x}", any.0).as_bytes());
    }

    #[test]
    fn the_prefix_goes_where_the_line_starts() {
        let mut out = b"a\n<s> <p> <o> .\n".to_vec();
        let fingerprint = Fingerprint(u128::MAX);
        insert_prefix(&mut out, 2, Some(fingerprint));
        insert_prefix(&mut out, 0, None);
        let expected = format!("\ta\n{}\t<s> <p> <o> .\n", "f".repeat(32));
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn a_fingerprint_is_new_once() {
        let mut set = Fingerprints::default();
        for n in 0..100_000 {
            assert!(set.first_time(fingerprint(n)), "{n} is new");
        }
        for n in 0..100_000 {
            assert!(!set.first_time(fingerprint(n)), "{n} was seen");
        }
        assert_eq!(set.len(), 100_000);
    }

    #[test]
    fn agrees_with_a_hash_set() {
        // Repeats drawn from a small range, so that most are seen again, across many growths.
        let mut set = Fingerprints::default();
        let mut reference = std::collections::HashSet::new();
        let mut state = 1u64;
        for _ in 0..300_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = (state >> 33) % 150_000;
            assert_eq!(set.first_time(fingerprint(n)), reference.insert(n), "{n}");
        }
        assert_eq!(set.len(), reference.len());
    }

    #[test]
    fn the_empty_slot_is_not_a_fingerprint() {
        // A fingerprint whose low 96 bits are zero is kept as another slot, not as empty.
        let mut set = Fingerprints::default();
        let zero = Fingerprint(0);
        let top = Fingerprint(u128::MAX << 96);
        assert!(set.first_time(zero));
        assert!(!set.first_time(zero));
        assert!(set.first_time(top));
        assert!(!set.first_time(top));
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn the_slots_cost_at_most_24_bytes_a_fingerprint() {
        // Once every shard holds something, the slots stay between 12/0.8 and 12/0.53 bytes
        // a fingerprint, near 18.5 on average since shards grow at different times.
        let mut set = Fingerprints::default();
        let mut n = 0;
        for target in [200_000, 300_000, 450_000, 700_000, 1_000_000] {
            while n < target {
                set.first_time(fingerprint(n as u64));
                n += 1;
            }
            let per = set.slot_bytes() as f64 / set.len() as f64;
            assert!((15.0..=21.0).contains(&per), "{per:.1} bytes at {target}");
        }
    }

    /// The fingerprint of each statement oxttl reads in `line` (N-Quads, so both forms);
    /// nothing if it finds an error.
    fn parsed(line: &[u8]) -> Vec<Fingerprint> {
        let mut scratch = String::new();
        oxttl::NQuadsParser::new()
            .for_slice(line)
            .map(|quad| quad.map(|quad| Fingerprint::of(&quad, &mut scratch)))
            .collect::<Result<_, _>>()
            .unwrap_or_default()
    }

    #[test]
    fn a_line_in_the_written_shape_is_hashed_as_it_stands() {
        for line in [
            "<http://a> <http://b> <http://c> .\n",
            "<http://a> <http://b> <http://c> <http://g> .\n",
            "_:b1 <http://b> _:b.2 _:g .\r\n",
            "<http://a> <http://b> \"x y\" .",
            "<http://a> <http://b> \"\" .\n",
            "<http://a> <http://b> \"chat\"@fr-be .\n",
            "<http://a> <http://b> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
            "<http://a> <http://b> \"é 😀 '\" <http://g> .\n",
        ] {
            let fingerprint = Fingerprint::of_written(line.as_bytes());
            assert!(fingerprint.is_some(), "{line:?} is in the shape");
            assert_eq!(
                vec![fingerprint.unwrap()],
                parsed(line.as_bytes()),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_line_in_another_shape_is_left_to_the_parser() {
        for line in [
            "<http://a>  <http://b> <http://c> .\n",
            "<http://a>\t<http://b> <http://c> .\n",
            " <http://a> <http://b> <http://c> .\n",
            "<http://a> <http://b> <http://c>.\n",
            "<http://a> <http://b> <http://c> . # note\n",
            "<http://a> <http://b> <http://\\u0063> .\n",
            "<http://a> <http://b> \"a\\\"b\" .\n",
            "<http://a> <http://b> \"a\\nb\" .\n",
            "<http://a> <http://b> \"a\tb\" .\n",
            "<http://a> <http://b> \"chat\"@FR .\n",
            "<http://a> <http://b> \"chat\"@en--ltr .\n",
            "<http://a> <http://b> \"x\"^^<http://www.w3.org/2001/XMLSchema#string> .\n",
            "<http://a> <http://b> <<( <http://a> <http://b> <http://c> )>> .\n",
            "<http://a> <http://b> .\n",
        ] {
            assert_eq!(Fingerprint::of_written(line.as_bytes()), None, "{line:?}");
        }
    }

    #[test]
    fn every_fixture_line_in_the_written_shape_hashes_as_oxttl_reads_it() {
        let mut checked = 0;
        let mut files = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures"
        ))];
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if !path.extension().is_some_and(|e| e == "nt" || e == "nq") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                if let Some(fingerprint) = Fingerprint::of_written(line) {
                    let parsed = parsed(line);
                    // The shape is checked on valid lines only: a bad line of a negative test is not.
                    if !parsed.is_empty() {
                        assert_eq!(vec![fingerprint], parsed, "{}: {line:?}", path.display());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 4_000, "{checked} lines checked");
    }

    #[test]
    fn every_combination_of_terms_in_the_written_shape_hashes_as_oxttl_reads_it() {
        let subjects = [
            "<http://a>",
            "_:b",
            "_:b.1",
            "<http://a/\\u00E9>",
            "<<( <s> <p> <o> )>>",
        ];
        let objects = [
            "<http://c>",
            "_:o",
            "\"x\"",
            "\"\"",
            "\"a b\\\"c\"",
            "\"tab\tin\"",
            "\"\\u0041\"",
            "\"é\"@en",
            "\"x\"@EN-gb",
            "\"x\"@en-GB",
            "\"x\"@ar--rtl",
            "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            "\"x\"^^<http://www.w3.org/2001/XMLSchema#string>",
            "\"x\"^^<http://e/\\u0041>",
        ];
        let graphs = ["", " <http://g>", " _:g", " <http://g/\\U0001F600>"];
        let gaps = [" ", "  ", "\t"];
        let ends = [" .\n", ".\n", " . \n", " .\r\n", " .", " . # c\n", " .\r"];
        let (mut hashed, mut parsed_only) = (0, 0);
        for subject in subjects {
            for object in objects {
                for graph in graphs {
                    for gap in gaps {
                        for end in ends {
                            let line = format!("{subject}{gap}<http://p>{gap}{object}{graph}{end}");
                            let parsed = parsed(line.as_bytes());
                            match Fingerprint::of_written(line.as_bytes()) {
                                Some(fingerprint) => {
                                    assert_eq!(vec![fingerprint], parsed, "{line:?}");
                                    hashed += 1;
                                }
                                None if !parsed.is_empty() => parsed_only += 1,
                                None => {}
                            }
                        }
                    }
                }
            }
        }
        assert!(
            hashed > 50 && parsed_only > 500,
            "{hashed} hashed, {parsed_only} parsed"
        );
    }

    #[test]
    fn first_capacities_cover_one_growth_step() {
        assert_eq!(first_capacity(0), MIN_CAPACITY);
        assert_eq!(first_capacity(SHARDS - 1), MIN_CAPACITY * 3 / 2);
        let mut sizes: Vec<_> = (0..SHARDS).map(first_capacity).collect();
        sizes.dedup();
        assert_eq!(sizes.len(), MIN_CAPACITY / 2 + 1);
    }
}
