//! Persistent Document Identifiers (Internet-Draft draft-mallery-urn-pdi-00, "Persistent
//! Document Identifiers", 1997).
//!
//! ```text
//! URN                 = "urn:" pdi                     ; §1, and "pdi:" alone as a URL (§3.8)
//! PDI                 = "pdi" ":" nss
//! NSS                 = resource-identifier [ citation-specifier / fragment-specifier ]
//! RESOURCE-IDENTIFIER = "//" document-series "/" iso-date "/" specifier
//! DOCUMENT-SERIES     = component *( "." component ) "." iso-country
//! ISO-DATE            = year "/" month "/" day         ; 4*digit / 2digit / 2digit, or "*"
//! SPECIFIER           = unique-id [ "." format [ "." version ] ]
//! CITATION-SPECIFIER  = "@" origin-position "=" pdi
//! FRAGMENT-SPECIFIER  = "#" [ fragment-scheme "=" ] position *( "," position )
//! ```
//!
//! The canonical form is `urn:pdi:` + the NSS normalized by §3.6.4: escapes of characters that
//! are not RESERVED decoded, hex digits lower-cased, everything but UNIQUE-ID and POSITION
//! lower-cased, an encapsulated identifier canonicalized by its own rules; and the fragment
//! defaults the draft states equivalent made explicit (`#37,51` on text → `#char=37,51`).
//! `docs/canonical-forms.md` lists every reading of the draft taken here.

use super::{Canonical, Registry, SchemeAdapter, checked, find_byte, split_byte, split_once_byte};
use crate::pct::{self, Escaping, HexCase, Splice};
use crate::url_prefix::starts_with_ignore_case;
use crate::{IdError, Kind, Policy, PolicyError, Rule};
use std::borrow::Cow;

/// The canonical prefix.
pub const PREFIX: &str = "urn:pdi:";
/// [`PREFIX`]'s bytes, compared as one word.
const PREFIX_BYTES: &[u8; 8] = b"urn:pdi:";
/// The URL form's prefix (§3.8), also the form of a cited PDI.
pub const URL_PREFIX: &str = "pdi:";

/// §1.2.4 `OTHER`.
fn is_other(c: char) -> bool {
    u8::try_from(c).is_ok_and(is_other_byte)
}

/// [`is_other`] for a byte; `const` for [`CLASSES`].
const fn is_other_byte(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'-' | b':' | b';' | b'$' | b'_' | b'!' | b'\''
    )
}

/// `URN-CHARS` that are not `RESERVED`: what §3.6.4 step 1 unescapes.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || is_other(c)
}

/// §3.6.4 steps 1 and 2 over a whole NSS.
const UNESCAPE: Escaping = Escaping {
    decode: is_plain,
    keep: |_| true,
    hex: HexCase::Lower,
};

/// The media type a FORMAT token stands for (§2.5), for the formats whose fragment defaults the
/// draft defines.
///
/// ```
/// assert_eq!(pidcanon::scheme::pdi::media_type("text"), Some("text/plain"));
/// assert_eq!(pidcanon::scheme::pdi::media_type("mpeg"), Some("video/mpeg"));
/// assert_eq!(pidcanon::scheme::pdi::media_type("pdf"), Some("application/pdf"));
/// assert_eq!(pidcanon::scheme::pdi::media_type("unknown"), None);
/// ```
#[must_use]
pub fn media_type(format: &str) -> Option<&'static str> {
    const TABLE: [(&str, &str); 25] = [
        ("text", "text/plain"),
        ("html", "text/html"),
        ("xml", "text/xml"),
        ("sgml", "text/sgml"),
        ("richtext", "text/richtext"),
        ("css", "text/css"),
        ("csv", "text/csv"),
        ("header", "message/header"),
        ("gif", "image/gif"),
        ("jpeg", "image/jpeg"),
        ("jpg", "image/jpeg"),
        ("png", "image/png"),
        ("tiff", "image/tiff"),
        ("bmp", "image/bmp"),
        ("ief", "image/ief"),
        ("au", "audio/basic"),
        ("basic", "audio/basic"),
        ("wav", "audio/wav"),
        ("aiff", "audio/aiff"),
        ("midi", "audio/midi"),
        ("mpeg", "video/mpeg"),
        ("mp4", "video/mp4"),
        ("quicktime", "video/quicktime"),
        ("avi", "video/x-msvideo"),
        ("pdf", "application/pdf"),
    ];
    TABLE
        .iter()
        .find(|(token, _)| token.eq_ignore_ascii_case(format))
        .map(|&(_, media)| media)
}

/// A PDI in canonical form.
///
/// ```
/// use pidcanon::scheme::pdi::Pdi;
/// let pdi = Pdi::parse("pdi://oma.eop.gov.us/1997/09/01/1.TEXT.1#37,51").unwrap();
/// assert_eq!(pdi.as_str(), "urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51");
/// assert_eq!(pdi.document_series(), "oma.eop.gov.us");
/// assert_eq!((pdi.unique_id(), pdi.format(), pdi.version()), ("1", Some("text"), Some("1")));
/// let err = Pdi::parse("urn:pdi://oma.eop.gov.us/1997/9/01/1.text.1").unwrap_err();
/// assert_eq!(err.to_string(), "pdi: month needs two digits (byte 30)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pdi<'a> {
    iri: Cow<'a, str>,
}

impl<'a> Pdi<'a> {
    /// Parses and canonicalizes a PDI, `urn:pdi:` or `pdi:`, without another adapter for
    /// encapsulated identifiers other than http(s) URLs.
    pub fn parse(iri: &'a str) -> Result<Self, IdError> {
        let adapter = PdiAdapter {
            foreign: Registry::empty(),
        };
        Ok(Self {
            iri: adapter.canonical(iri)?,
        })
    }

    /// The segments of the resource identifier: series, year, month, day, specifier.
    fn resource(&self) -> [&str; 5] {
        let nss = &self.iri[PREFIX.len() + 2..];
        let end = nss.find(['@', '#']).unwrap_or(nss.len());
        let mut parts = nss[..end].split('/');
        std::array::from_fn(|_| parts.next().unwrap_or_default())
    }

    /// The DOCUMENT-SERIES, e.g. `oma.eop.gov.us`.
    #[must_use]
    pub fn document_series(&self) -> &str {
        self.resource()[0]
    }

    /// YEAR, MONTH and DAY (each possibly `*`).
    #[must_use]
    pub fn date(&self) -> (&str, &str, &str) {
        let [_, year, month, day, _] = self.resource();
        (year, month, day)
    }

    /// The UNIQUE-ID.
    #[must_use]
    pub fn unique_id(&self) -> &str {
        self.resource()[4].split('.').next().unwrap_or_default()
    }

    /// The FORMAT, if given.
    #[must_use]
    pub fn format(&self) -> Option<&str> {
        self.resource()[4].split('.').nth(1)
    }

    /// The VERSION, if given.
    #[must_use]
    pub fn version(&self) -> Option<&str> {
        self.resource()[4].split('.').nth(2)
    }

    /// An owned copy.
    #[must_use]
    pub fn into_owned(self) -> Pdi<'static> {
        Pdi {
            iri: Cow::Owned(self.iri.into_owned()),
        }
    }
}

canonical_text!(Pdi, iri);

fn error(rule: Rule, at: usize) -> IdError {
    IdError::new(Kind::Pdi, rule, at)
}

fn grammar(rule: &'static str, at: usize) -> IdError {
    error(Rule::Grammar(rule), at)
}

/// The first character of `s` (at offset `at`) for which `allowed` is false, as an error.
fn check_chars(
    s: &str,
    at: usize,
    part: &'static str,
    allowed: impl Fn(char) -> bool,
) -> Result<(), IdError> {
    match s.char_indices().find(|&(_, c)| !allowed(c)) {
        Some((i, ch)) => Err(error(Rule::Char { ch, part }, at + i)),
        None if s.is_empty() => Err(error(Rule::Empty { part }, at)),
        None => Ok(()),
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// How the positions of a fragment are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    /// `char`, `elt`, `byte`, `sec`, `msec`: two numbers.
    Interval,
    /// `name`: two element names (URN characters, case-sensitive).
    Names,
    /// `rect`: two coordinates and a frame, `,0` when omitted.
    Rect,
    /// `crop`: a time scheme, two times, optionally two coordinates.
    Crop,
    /// An extension scheme: `ext-position`s.
    Extension,
}

fn scheme_of(name: &str) -> Scheme {
    match name {
        "char" | "elt" | "byte" | "sec" | "msec" => Scheme::Interval,
        "name" => Scheme::Names,
        "rect" => Scheme::Rect,
        "crop" => Scheme::Crop,
        _ => Scheme::Extension,
    }
}

/// Splits a position list at the commas outside parentheses and calls `visit` with each
/// position and its offset; returns how many there are. Allocates nothing.
fn each_position<'t>(
    body: &'t str,
    at: usize,
    mut visit: impl FnMut(&'t str, usize) -> Result<(), IdError>,
) -> Result<usize, IdError> {
    let mut emit = |start: usize, end: usize| {
        if start == end {
            Err(error(Rule::Empty { part: "POSITION" }, at + start))
        } else {
            visit(&body[start..end], at + start)
        }
    };
    let (mut depth, mut start, mut count) = (0u32, 0, 0);
    // Bytes, not characters: the delimiters are ASCII, and no byte of another character is one.
    for (i, b) in body.bytes().enumerate() {
        match b {
            b'(' if depth == 0 => depth = 1,
            b'(' => return Err(grammar("coordinates do not nest", at + i)),
            b')' if depth == 1 => depth = 0,
            b')' => return Err(grammar("')' without '('", at + i)),
            b',' if depth == 0 => {
                emit(start, i)?;
                count += 1;
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(grammar("'(' without ')'", at + body.len()));
    }
    emit(start, body.len())?;
    Ok(count + 1)
}

/// A position and its offset.
type Position<'t> = (&'t str, usize);

/// The first positions of a list (as many as any defined scheme takes) and the count.
fn first_positions(body: &str, at: usize) -> Result<([Position<'_>; 5], usize), IdError> {
    let mut first = [("", 0); 5];
    let mut n = 0;
    let count = each_position(body, at, |p, p_at| {
        if let Some(slot) = first.get_mut(n) {
            *slot = (p, p_at);
        }
        n += 1;
        Ok(())
    })?;
    Ok((first, count))
}

/// `EXT-POSITION = position-specifier / "(" position-specifier *( "," position-specifier ) ")"`.
fn ext_position(p: &str, at: usize) -> Result<(), IdError> {
    let alphadigits = |c: char| c.is_ascii_alphanumeric();
    match p.strip_prefix('(').and_then(|p| p.strip_suffix(')')) {
        Some(inner) => {
            let mut offset = at + 1;
            for spec in inner.split(',') {
                check_chars(spec, offset, "POSITION-SPECIFIER", alphadigits)?;
                offset += spec.len() + 1;
            }
            Ok(())
        }
        None => check_chars(p, at, "POSITION-SPECIFIER", alphadigits),
    }
}

fn number(p: &str, at: usize, what: &'static str) -> Result<(), IdError> {
    check_chars(p, at, what, |c| c.is_ascii_digit())
}

/// `2-DIM-COORDINATE = "(" x-coordinate "," y-coordinate ")"`.
fn coordinate(p: &str, at: usize) -> Result<(), IdError> {
    let inner = p
        .strip_prefix('(')
        .and_then(|p| p.strip_suffix(')'))
        .ok_or_else(|| grammar("a coordinate is \"(\" x \",\" y \")\"", at))?;
    let (x, y) = inner
        .split_once(',')
        .ok_or_else(|| grammar("a coordinate is \"(\" x \",\" y \")\"", at))?;
    number(x, at + 1, "X-COORDINATE")?;
    number(y, at + 2 + x.len(), "Y-COORDINATE")
}

/// Checks the positions of a fragment body under `scheme`; returns whether a `rect` lacks its
/// frame.
fn check_positions(scheme: Scheme, body: &str, at: usize, end: usize) -> Result<bool, IdError> {
    if scheme == Scheme::Extension {
        each_position(body, at, ext_position)?;
        return Ok(false);
    }
    let (list, count) = first_positions(body, at)?;
    let expect = |n: &[usize], rule: &'static str| {
        if n.contains(&count) {
            Ok(())
        } else {
            Err(grammar(rule, end))
        }
    };
    match scheme {
        Scheme::Interval => {
            expect(
                &[2],
                "this fragment scheme takes a start and an end position",
            )?;
            list[..2]
                .iter()
                .try_for_each(|&(p, at)| number(p, at, "POSITION"))?;
        }
        Scheme::Names => {
            expect(
                &[2],
                "the name scheme takes a start and an end element name",
            )?;
            list[..2].iter().try_for_each(|&(p, at)| {
                check_chars(p, at, "ELEMENT-NAME", |c| is_plain(c) || c == '%')
            })?;
        }
        Scheme::Rect => {
            expect(
                &[2, 3],
                "a rectangle is two coordinates and an optional frame",
            )?;
            coordinate(list[0].0, list[0].1)?;
            coordinate(list[1].0, list[1].1)?;
            if count == 3 {
                number(list[2].0, list[2].1, "FRAME")?;
            }
            return Ok(count == 2);
        }
        Scheme::Crop => {
            expect(
                &[3, 5],
                "crop takes a time scheme, two times and optionally two coordinates",
            )?;
            let (time_scheme, at) = list[0];
            check_chars(time_scheme, at, "TIME-POSITION-SCHEME", |c| {
                c.is_ascii_alphanumeric() || c == '-'
            })?;
            number(list[1].0, list[1].1, "START-TIME")?;
            number(list[2].0, list[2].1, "END-TIME")?;
            for &(p, at) in &list[3..count] {
                coordinate(p, at)?;
            }
        }
        Scheme::Extension => {}
    }
    Ok(false)
}

/// Canonicalizes PDIs; encapsulated identifiers go through the other adapters.
#[derive(Debug)]
pub struct PdiAdapter {
    /// The adapters for encapsulated foreign identifiers (§2.4.1).
    foreign: Registry,
}

impl PdiAdapter {
    /// The adapter for `policy`: encapsulated identifiers are canonicalized by the other built-in
    /// adapters under the same policy.
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        Ok(Self::with_foreign(Registry::foreign(
            policy,
            &policy.prefixes()?,
        )))
    }

    /// The adapter whose encapsulated identifiers go through `foreign`.
    pub(crate) fn with_foreign(foreign: Registry) -> Self {
        Self { foreign }
    }

    /// The length of `iri`'s prefix, `urn:pdi:` or `pdi:` in any case, if it has one.
    fn prefix_len(iri: &str) -> Option<usize> {
        if starts_with_ignore_case(iri, PREFIX) {
            Some(PREFIX.len())
        } else {
            starts_with_ignore_case(iri, URL_PREFIX).then_some(URL_PREFIX.len())
        }
    }

    /// The canonical form of `urn:pdi:…` or `pdi:…`.
    fn canonical<'a>(&self, iri: &'a str) -> Result<Cow<'a, str>, IdError> {
        let start = Self::prefix_len(iri)
            .ok_or_else(|| grammar("a PDI starts with \"urn:pdi:\" or \"pdi:\"", 0))?;
        match self.one_pass(iri, start) {
            Some(canonical) => Ok(canonical),
            None => self.canonical_in_full(iri, start),
        }
    }

    /// The canonical form of a PDI whose NSS starts at `start`, by the full parse: the escapes
    /// normalized first (§3.6.4 steps 1–2), then the NSS read part by part.
    fn canonical_in_full<'a>(&self, iri: &'a str, start: usize) -> Result<Cow<'a, str>, IdError> {
        let input = &iri[start..];
        let unescaped = pct::normalize(input, &UNESCAPE).map_err(|e| e.at(Kind::Pdi, start))?;
        let nss =
            pct::then(Cow::Borrowed(unescaped.as_ref()), |nss| self.nss(nss, 0)).map_err(|e| {
                let at = input_offset(input, &unescaped, e.offset());
                IdError::new(Kind::Pdi, e.rule().clone(), start + at)
            })?;
        if iri.starts_with(PREFIX) && nss == input {
            return Ok(Cow::Borrowed(iri));
        }
        Ok(Cow::Owned(format!("{PREFIX}{nss}")))
    }

    /// The canonical form of a PDI whose NSS starts at `start`, read in one pass, without
    /// allocating when it is canonical: a resource identifier and a fragment or none, without
    /// escapes or a citation. What it changes: the prefix, the case of the series, the format
    /// and the fragment scheme, an encapsulated identifier, the fragment defaults. `None` leaves
    /// every other input, valid or not, to the full parse, which gives the same result (tested
    /// side by side).
    fn one_pass<'a>(&self, iri: &'a str, start: usize) -> Option<Cow<'a, str>> {
        let nss = &iri[start..];
        // Without escapes, §3.6.4 steps 1 and 2 change nothing: no part of the resource
        // identifier read here may hold a `%`, and a fragment is searched for one.
        let resource = nss.strip_prefix("//")?;
        // Each part is read up to the byte that ends it, every byte once.
        let (series, series_upper) = series_case(resource)?;
        let (date, rest) = date_prefix(&resource[series.len() + 1..])?;
        // A citation is not read here: `@` is in none of the specifier's parts.
        let (specifier, body) = match split_once_byte(rest, b'#') {
            Some((specifier, f)) => (specifier, Some(f)),
            None => (rest, None),
        };
        let spec = Specifier::read(specifier)?;
        let unique_id = match spec.format {
            Some(_) => self.encapsulated(spec.unique_id),
            None => Cow::Borrowed(spec.unique_id),
        };
        let fragment = match body {
            None => None,
            Some(f) if spec.format.is_some() && is_canonical_interval(f) => Some(Cow::Borrowed(f)),
            Some(f) if find_byte(f, b'%').is_none() => {
                Some(fragment(f, spec.format, iri.len() - f.len()).ok()?)
            }
            Some(_) => return None,
        };
        let canonical = iri.as_bytes().first_chunk() == Some(PREFIX_BYTES)
            && !series_upper
            && !spec.format_upper
            && matches!(unique_id, Cow::Borrowed(_))
            && matches!(fragment, None | Some(Cow::Borrowed(_)));
        if canonical {
            return Some(Cow::Borrowed(iri));
        }
        let mut out = String::with_capacity(PREFIX.len() + nss.len() + 8);
        out.push_str(PREFIX);
        out.push_str("//");
        push_lowercase(&mut out, series);
        out.push('/');
        out.push_str(date);
        out.push_str(&unique_id);
        if let Some(format) = spec.format {
            out.push('.');
            push_lowercase(&mut out, format);
        }
        if let Some(version) = spec.version {
            out.push('.');
            out.push_str(version);
        }
        if let Some(fragment) = fragment {
            out.push('#');
            out.push_str(&fragment);
        }
        Some(Cow::Owned(out))
    }

    /// The canonical form of an NSS whose escapes are already normalized (steps 1–2); `at` is its
    /// offset in the unescaped NSS of the whole identifier.
    fn nss<'t>(&self, t: &'t str, at: usize) -> Result<Cow<'t, str>, IdError> {
        if !t.starts_with("//") {
            return Err(grammar("the NSS starts with \"//\"", at));
        }
        let end = t
            .bytes()
            .position(|b| matches!(b, b'@' | b'#'))
            .unwrap_or(t.len());
        let mut segments = split_byte(&t[2..end], b'/');
        let mut next = || segments.next();
        let (Some(series), Some(year), Some(month), Some(day), Some(specifier)) =
            (next(), next(), next(), next(), next())
        else {
            return Err(grammar(
                "RESOURCE-IDENTIFIER is \"//\" DOCUMENT-SERIES \"/\" YEAR \"/\" MONTH \"/\" DAY \"/\" SPECIFIER",
                at + end,
            ));
        };
        let specifier_at = end - specifier.len();
        if let Some(extra) = next() {
            return Err(error(
                Rule::Char {
                    ch: '/',
                    part: "SPECIFIER",
                },
                at + end - extra.len() - 1,
            ));
        }
        let mut out = Splice::new(t);
        out.keep(0..2);
        check_series(series, at + 2)?;
        out.put(2..2 + series.len(), &pct::ascii_lowercase(series));
        let date_at = 2 + series.len();
        check_date(year, month, day, at + date_at + 1)?;
        out.keep(date_at..specifier_at);
        let format = self.specifier(&mut out, specifier, specifier_at, at)?;
        match t[end..].chars().next() {
            None => {}
            Some('@') => self.citation(&mut out, t, end, at)?,
            Some(_) => {
                let fragment = fragment(&t[end + 1..], format, at + end + 1)?;
                out.keep(end..end + 1);
                out.put(end + 1..t.len(), &fragment);
            }
        }
        Ok(out.finish())
    }

    /// `SPECIFIER = unique-id [ "." format [ "." version ] ]` at `s_at` in `t`; returns the format.
    fn specifier<'t>(
        &self,
        out: &mut Splice<'t>,
        s: &'t str,
        s_at: usize,
        at: usize,
    ) -> Result<Option<&'t str>, IdError> {
        let mut parts = split_byte(s, b'.');
        let unique_id = parts.next().unwrap_or_default();
        let format = parts.next();
        let version = parts.next();
        if parts.next().is_some() {
            return Err(grammar(
                "SPECIFIER is UNIQUE-ID [\".\" FORMAT [\".\" VERSION]]",
                at + s_at + s.len(),
            ));
        }
        if unique_id != "*" {
            check_chars(unique_id, at + s_at, "UNIQUE-ID", |c| {
                is_plain(c) || c == '%'
            })?;
        }
        let unique = match format {
            Some(_) => self.encapsulated(unique_id),
            None => Cow::Borrowed(unique_id),
        };
        out.put(s_at..s_at + unique_id.len(), &unique);
        let mut offset = s_at + unique_id.len();
        if let Some(format) = format {
            if format != "*" {
                check_chars(format, at + offset + 1, "FORMAT", |c| {
                    c.is_ascii_alphanumeric() || c == '-'
                })?;
            }
            out.keep(offset..offset + 1);
            out.put(
                offset + 1..offset + 1 + format.len(),
                &pct::ascii_lowercase(format),
            );
            offset += 1 + format.len();
        }
        if let Some(version) = version {
            if version != "*" {
                number(version, at + offset + 1, "VERSION")?;
                if version.bytes().all(|b| b == b'0') {
                    return Err(grammar(
                        "VERSION is a positive integer (§2.6)",
                        at + offset + 1,
                    ));
                }
            }
            out.keep(offset..offset + 1 + version.len());
        }
        Ok(format)
    }

    /// An encapsulated foreign identifier (§2.4.1) canonicalized by its own rules (step 4), then
    /// re-escaped; any other unique id as it is.
    fn encapsulated<'t>(&self, unique_id: &'t str) -> Cow<'t, str> {
        // After step 1 a ':' is never escaped: without a raw scheme nothing is encapsulated.
        if super::scheme_of(unique_id).is_none() {
            return Cow::Borrowed(unique_id);
        }
        let Ok(decoded) = pct::decode(unique_id) else {
            return Cow::Borrowed(unique_id);
        };
        let Some(scheme) = super::scheme_of(&decoded) else {
            return Cow::Borrowed(unique_id);
        };
        let canonical = if let Some(adapter) = self.foreign.adapter_for(&decoded) {
            match adapter.canonicalize(&decoded) {
                Ok(c) => c.iri.into_owned(),
                Err(_) => return Cow::Borrowed(unique_id),
            }
        } else if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
            match iri_string::types::IriStr::new(decoded.as_ref()) {
                Ok(iri) => iri.normalize().to_string(),
                Err(_) => return Cow::Borrowed(unique_id),
            }
        } else {
            return Cow::Borrowed(unique_id);
        };
        let escaped = pct::encode(&canonical, is_plain, HexCase::Lower);
        if escaped == unique_id {
            Cow::Borrowed(unique_id)
        } else {
            Cow::Owned(escaped.into_owned())
        }
    }

    /// `"@" origin-position "=" pdi` starting at `end` in `t`.
    fn citation<'t>(
        &self,
        out: &mut Splice<'t>,
        t: &'t str,
        end: usize,
        at: usize,
    ) -> Result<(), IdError> {
        let Some(eq) = find_byte(&t[end..], b'=').map(|i| end + i) else {
            return Err(grammar(
                "CITATION-SPECIFIER is \"@\" ORIGIN-POSITION \"=\" PDI",
                at + t.len(),
            ));
        };
        // One position by the grammar; §3.5.2 writes a three-dimensional origin `0,0,0`, so a
        // comma-separated list of positions is read as one origin.
        each_position(&t[end + 1..eq], at + end + 1, |position, position_at| {
            if position.starts_with('(') {
                coordinate(position, position_at)
            } else {
                check_chars(position, position_at, "ORIGIN-POSITION", |c| {
                    is_plain(c) || c == '%'
                })
            }
        })?;
        out.keep(end..eq + 1);
        let cited = &t[eq + 1..];
        if !starts_with_ignore_case(cited, URL_PREFIX) {
            return Err(grammar("the cited PDI starts with \"pdi:\"", at + eq + 1));
        }
        let nss_at = eq + 1 + URL_PREFIX.len();
        out.put(eq + 1..nss_at, URL_PREFIX);
        let nss = self.nss(&t[nss_at..], at + nss_at)?;
        out.put(nss_at..t.len(), &nss);
        Ok(())
    }
}

/// The classes of a byte the one-pass path reads with one look-up ([`CLASSES`]): a letter,
/// digit or `-` (a COMPONENT's or a FORMAT's byte), an upper-case letter, a UNIQUE-ID's byte
/// ([`is_plain`]), a digit.
const COMPONENT: u8 = 1;
const UPPER: u8 = 2;
const PLAIN: u8 = 4;
const DIGIT: u8 = 8;

/// The [`COMPONENT`], [`UPPER`], [`PLAIN`] and [`DIGIT`] bits of every byte.
const CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        let plain = b.is_ascii_alphanumeric() || is_other_byte(b);
        table[i] = if b.is_ascii_alphanumeric() || b == b'-' {
            COMPONENT
        } else {
            0
        } | if b.is_ascii_uppercase() { UPPER } else { 0 }
            | if plain { PLAIN } else { 0 }
            | if b.is_ascii_digit() { DIGIT } else { 0 };
        i += 1;
    }
    table
};

/// Whether `b` has any of the class bits `class`.
fn is(b: u8, class: u8) -> bool {
    CLASSES[usize::from(b)] & class != 0
}

/// The DOCUMENT-SERIES that `resource` starts with, up to its first `/`, and whether it has
/// upper-case letters; `None` when it is not valid or no `/` follows (the one pass over its bytes
/// of [`check_series`]).
fn series_case(resource: &str) -> Option<(&str, bool)> {
    let (mut seen, mut word_start, mut last_dot) = (0, true, None);
    for (i, b) in resource.bytes().enumerate() {
        let class = CLASSES[usize::from(b)];
        if class & COMPONENT != 0 {
            seen |= class;
            word_start = false;
        } else if b == b'.' && !word_start {
            (word_start, last_dot) = (true, Some(i));
        } else if b == b'/' {
            let country = &resource.as_bytes()[last_dot? + 1..i];
            let valid = country.len() == 2 && country.iter().all(u8::is_ascii_alphabetic);
            return valid.then_some((&resource[..i], seen & UPPER != 0));
        } else {
            return None;
        }
    }
    None
}

/// The valid ISO-DATE that `s` starts with, `year/month/day/`, as it is written (with its
/// slashes) and the rest of `s`; `None` when there is none (see [`check_date`]).
fn date_prefix(s: &str) -> Option<(&str, &str)> {
    let year = find_byte(s, b'/')?;
    let month = year + 1 + find_byte(&s[year + 1..], b'/')?;
    let day = month + 1 + find_byte(&s[month + 1..], b'/')?;
    check_date(&s[..year], &s[year + 1..month], &s[month + 1..day], 0).ok()?;
    Some((&s[..=day], &s[day + 1..]))
}

/// Whether the fragment body `f` is an interval written canonically: `char=`, `elt=`, `byte=`,
/// `sec=` or `msec=` and two numbers. [`fragment`] returns such a body unchanged (for any format).
fn is_canonical_interval(f: &str) -> bool {
    let Some((name, body)) = split_once_byte(f, b'=') else {
        return false;
    };
    matches!(
        name.as_bytes(),
        b"char" | b"elt" | b"byte" | b"sec" | b"msec"
    ) && split_once_byte(body, b',').is_some_and(|(start, end)| is_digits(start) && is_digits(end))
}

/// Appends `s` with ASCII letters in lower case, lower-cased in place: no string for it alone.
fn push_lowercase(out: &mut String, s: &str) {
    let at = out.len();
    out.push_str(s);
    out[at..].make_ascii_lowercase();
}

/// A SPECIFIER without escapes as the one-pass path reads it.
struct Specifier<'t> {
    unique_id: &'t str,
    format: Option<&'t str>,
    version: Option<&'t str>,
    /// Whether the format has upper-case letters.
    format_upper: bool,
}

impl<'t> Specifier<'t> {
    /// `unique-id [ "." format [ "." version ] ]`, each valid or `*`; `None` otherwise. Every
    /// byte is read once: no part may hold a `.`.
    fn read(s: &'t str) -> Option<Self> {
        let bytes = s.as_bytes();
        let id_end = part_end(bytes, 0, |b| is(b, PLAIN))?;
        let mut spec = Self {
            unique_id: &s[..id_end],
            format: None,
            version: None,
            format_upper: false,
        };
        if id_end == s.len() {
            return Some(spec);
        }
        let format_end = part_end(bytes, id_end + 1, |b| is(b, COMPONENT))?;
        let format = &s[id_end + 1..format_end];
        spec.format = Some(format);
        spec.format_upper = format.bytes().any(|b| b.is_ascii_uppercase());
        if format_end == s.len() {
            return Some(spec);
        }
        let version_end = part_end(bytes, format_end + 1, |b| is(b, DIGIT))?;
        let version = &s[format_end + 1..];
        let positive = version.bytes().any(|b| b != b'0');
        spec.version = Some(version);
        (version_end == s.len() && positive).then_some(spec)
    }
}

/// The end of the part of `s` that starts at `from` (at the next `.` or the end of `s`) when the
/// part is `*` or a non-empty run of bytes that are `valid` (never `.` or `*`); `None` otherwise.
fn part_end(s: &[u8], from: usize, valid: impl Fn(u8) -> bool) -> Option<usize> {
    let run = s[from..]
        .iter()
        .position(|&b| !valid(b))
        .unwrap_or(s.len() - from);
    let end = from
        + if run == 0 && s.get(from) == Some(&b'*') {
            1
        } else {
            run
        };
    (end > from && matches!(s.get(end), None | Some(b'.'))).then_some(end)
}

/// `DOCUMENT-SERIES = component *( "." component ) "." iso-country`.
fn check_series(series: &str, at: usize) -> Result<(), IdError> {
    let Some((components, country)) = series.rsplit_once('.') else {
        return Err(grammar(
            "DOCUMENT-SERIES needs a component and a country code",
            at + series.len(),
        ));
    };
    let mut offset = at;
    for component in split_byte(components, b'.') {
        check_chars(component, offset, "COMPONENT", |c| {
            c.is_ascii_alphanumeric() || c == '-'
        })?;
        offset += component.len() + 1;
    }
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(grammar(
            "the country code is two letters (ISO 3166, §2.2)",
            offset,
        ));
    }
    Ok(())
}

/// `ISO-DATE = year "/" month "/" day`, each a number or `*`, and a calendar date.
fn check_date(year: &str, month: &str, day: &str, at: usize) -> Result<(), IdError> {
    let y =
        date_field(year, false).ok_or_else(|| grammar("year needs at least four digits", at))?;
    let month_at = at + year.len() + 1;
    let m = date_field(month, true).ok_or_else(|| grammar("month needs two digits", month_at))?;
    let day_at = month_at + month.len() + 1;
    let d = date_field(day, true).ok_or_else(|| grammar("day needs two digits", day_at))?;
    if m.is_some_and(|m| !(1..=12).contains(&m)) {
        return Err(grammar("month is 01 to 12", month_at));
    }
    if let Some(d) = d {
        let leap = y.is_none_or(|y| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
        let last = match m {
            Some(4 | 6 | 9 | 11) => 30,
            Some(2) if leap => 29,
            Some(2) => 28,
            _ => 31,
        };
        if !(1..=last).contains(&d) {
            return Err(grammar("the date is not a calendar date (§2.3)", day_at));
        }
    }
    Ok(())
}

/// A field of a date: `Some(None)` for `*`, `Some` of its number for digits, two of them or at
/// least four as `two_digits` says (`Some(None)` too for a number that does not fit a `u32`: a
/// year that long is read like `*`); `None` for anything else. One pass over the digits.
fn date_field(s: &str, two_digits: bool) -> Option<Option<u32>> {
    if s == "*" {
        return Some(None);
    }
    if two_digits && s.len() != 2 || !two_digits && s.len() < 4 {
        return None;
    }
    let mut n = Some(0u32);
    for b in s.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.and_then(|n| n.checked_mul(10)?.checked_add(u32::from(b - b'0')));
    }
    Some(n)
}

/// The canonical fragment body (after `#`) for a resource of `format`; `at` is its offset.
fn fragment<'t>(f: &'t str, format: Option<&str>, at: usize) -> Result<Cow<'t, str>, IdError> {
    let Some(format) = format else {
        return Err(grammar(
            "a fragment needs a FORMAT to be interpreted (§2.5)",
            at - 1,
        ));
    };
    let explicit = find_byte(f, b'=')
        .map(|eq| (&f[..eq], eq))
        .filter(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
        });
    let (name, body, body_at): (Cow<'_, str>, &str, usize) = match explicit {
        Some((name, eq)) => (pct::ascii_lowercase(name), &f[eq + 1..], at + eq + 1),
        None => (Cow::Borrowed(default_scheme(format, f, at)?), f, at),
    };
    let missing_frame = check_positions(scheme_of(&name), body, body_at, at + f.len())?;
    let crop_scheme = (name == "crop").then(|| body.split(',').next().unwrap_or_default());
    let unchanged = explicit.is_some_and(|(given, _)| given == name) && !missing_frame;
    if unchanged && crop_scheme.is_none_or(|s| !s.bytes().any(|b| b.is_ascii_uppercase())) {
        return Ok(Cow::Borrowed(f));
    }
    let mut out = format!("{name}=");
    match crop_scheme {
        Some(time_scheme) => {
            out.push_str(&time_scheme.to_ascii_lowercase());
            out.push_str(&body[time_scheme.len()..]);
        }
        None => out.push_str(body),
    }
    if missing_frame {
        out.push_str(",0");
    }
    Ok(Cow::Owned(out))
}

/// The fragment scheme a fragment without `scheme=` is read with, by the format's media type
/// (§3.3–§3.4).
fn default_scheme(format: &str, f: &str, at: usize) -> Result<&'static str, IdError> {
    let major = media_type(format).and_then(|m| m.split('/').next());
    match major {
        Some("text") => Ok("char"),
        Some("image") => Ok("rect"),
        Some("audio") => Ok("sec"),
        Some("video") if f.starts_with(|c: char| c.is_ascii_alphabetic()) => Ok("crop"),
        Some("video") => Ok("sec"),
        _ => Err(grammar(
            "this format has no default fragment scheme: write \"scheme=\" (§3.3)",
            at,
        )),
    }
}

/// The offset in `input` of the byte at `at` in `unescaped` (the same text with some escapes
/// decoded by step 1).
fn input_offset(input: &str, unescaped: &str, at: usize) -> usize {
    let (input, unescaped) = (input.as_bytes(), unescaped.as_bytes());
    let (mut i, mut j) = (0, 0);
    while j < at && i < input.len() {
        let decoded_here = input[i] == b'%' && unescaped.get(j) != Some(&b'%');
        i += if decoded_here { 3 } else { 1 };
        j += 1;
    }
    i
}

impl SchemeAdapter for PdiAdapter {
    fn names(&self) -> &'static [&'static str] {
        &["pdi"]
    }

    fn routes(&self) -> Vec<String> {
        vec!["urn".to_owned(), "pdi".to_owned()]
    }

    fn claims(&self, iri: &str) -> bool {
        Self::prefix_len(iri).is_some()
    }

    fn canonicalize<'a>(&self, iri: &'a str) -> Result<Canonical<'a>, IdError> {
        Ok(Canonical::new(self.canonical(iri)?, Kind::Pdi))
    }

    /// A PDI by the one-pass path, whose forms are IRIs by construction (every character it
    /// writes is one the grammar allows where it stands), else by the full parse.
    fn claim_valid<'a>(
        &self,
        iri: &'a str,
        _: super::sealed::Sealed,
    ) -> Option<Result<Canonical<'a>, IdError>> {
        let start = Self::prefix_len(iri)?;
        let pdi = |iri| Canonical::new(iri, Kind::Pdi);
        Some(match self.one_pass(iri, start) {
            Some(canonical) => Ok(pdi(canonical)),
            None => checked(self.canonical_in_full(iri, start).map(pdi)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_rule_and_the_byte() {
        for (input, offset, message) in [
            (
                "urn:pdi://oma.eop.gov.us/97/09/01/1.text.1",
                25,
                "year needs at least four digits",
            ),
            (
                "urn:pdi://oma.eop.gov.us/1997/13/01/1.text.1",
                30,
                "month is 01 to 12",
            ),
            (
                "urn:pdi://oma.eop.gov.us/1997/02/29/1.text.1",
                33,
                "the date is not a calendar date (§2.3)",
            ),
            (
                "urn:pdi://oma/1997/09/01/1.text.1",
                13,
                "DOCUMENT-SERIES needs a component and a country code",
            ),
            (
                "urn:pdi://o_a.us/1997/09/01/1",
                11,
                "character '_' is not allowed in COMPONENT",
            ),
            (
                "urn:pdi://oma.usa/1997/09/01/1",
                14,
                "the country code is two letters (ISO 3166, §2.2)",
            ),
            ("urn:pdi://oma.us/1997/09/01/", 28, "UNIQUE-ID is empty"),
            (
                "urn:pdi://oma.us/1997/09/01/a~b",
                29,
                "character '~' is not allowed in UNIQUE-ID",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.text.1.2",
                38,
                "SPECIFIER is UNIQUE-ID [\".\" FORMAT [\".\" VERSION]]",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.text.x",
                35,
                "character 'x' is not allowed in VERSION",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.text.1#char=1",
                43,
                "this fragment scheme takes a start and an end position",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.text.1#char=1,",
                44,
                "POSITION is empty",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.gif#(1,2),(3",
                42,
                "'(' without ')'",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.pdf#1,2",
                34,
                "this format has no default fragment scheme: write \"scheme=\" (§3.3)",
            ),
            (
                "urn:pdi://oma.us/1997/09/01/1.text.1@1=urn:pdi://oma.us/1997/09/01/2",
                39,
                "the cited PDI starts with \"pdi:\"",
            ),
            (
                "urn:pdi://oma.us/1997/%30%39/1/1",
                29,
                "day needs two digits",
            ),
            ("urn:pdi://oma.us/1997/09/%30/1", 25, "day needs two digits"),
        ] {
            let err = Pdi::parse(input).unwrap_err();
            assert_eq!(
                (err.offset(), err.rule().to_string().as_str()),
                (offset, message),
                "{input}"
            );
        }
    }

    /// Runs the one-pass path and the full parse (its result checked to be an IRI, as the
    /// registry does) side by side on `iri`: the same result whenever the one-pass path takes
    /// it, borrowed alike. Returns whether it took it.
    fn one_pass_agrees(adapter: &PdiAdapter, iri: &str) -> bool {
        let Some(start) = PdiAdapter::prefix_len(iri) else {
            return false;
        };
        let full = adapter.canonical_in_full(iri, start);
        let Some(fast) = adapter.one_pass(iri, start) else {
            // A canonical PDI without escapes or a citation must not be left to the full parse.
            assert!(
                !matches!(full, Ok(Cow::Borrowed(_))) || iri.contains(['%', '@']),
                "{iri}: canonical, left to the full parse"
            );
            return false;
        };
        let full = full.unwrap_or_else(|e| panic!("{iri}: the one-pass path took it, full: {e}"));
        assert_eq!(fast, full, "{iri}");
        assert_eq!(
            matches!(fast, Cow::Borrowed(_)),
            matches!(full, Cow::Borrowed(_)),
            "{iri}"
        );
        let pdi = |iri| Canonical::new(iri, Kind::Pdi);
        assert_eq!(Ok(pdi(fast)), checked(Ok(pdi(full))), "{iri}");
        true
    }

    #[test]
    fn the_one_pass_path_agrees_with_the_full_parse_on_generated_pdis() {
        let adapter = PdiAdapter::new(&Policy::default()).expect("the default policy");
        let prefixes = [
            "urn:pdi:",
            "URN:PDI:",
            "pdi:",
            "Pdi:",
            "urn:pdi",
            "urn:pdi:/",
        ];
        let series = [
            "oma.eop.gov.us",
            "OMA.eop.gov.US",
            "oma",
            "o_a.us",
            "oma..us",
            ".us",
            "oma.us.",
            "oma.usa",
            "oma.u1",
            "a-1.b2.us",
            "oma.eop.gov.u%73",
            "om\u{e4}.us",
            "",
        ];
        let dates = [
            "1997/09/01",
            "97/09/01",
            "1997/9/01",
            "1997/02/29",
            "2000/02/29",
            "1900/02/29",
            "*/*/*",
            "*/02/29",
            "1997/*/31",
            "1997/13/01",
            "1997/00/01",
            "1997/09/31",
            "1997/09/%30%31",
            "1997/09",
            "19970/09/01",
            "1997/09/01/x",
        ];
        let specifiers = [
            "1",
            "1.text",
            "1.TEXT.1",
            "1.text.0",
            "1.text.01",
            "1.text.00",
            "*.*.*",
            "1.*",
            "1.text.1.2",
            "a~b.text",
            "(x):y;$_!'.html.1",
            "hdl:10013.text",
            "HDL:10013%2fx.text",
            "http%3a%2f%2fwww%2ewhitehouse%2egov%2f.html.1",
            "",
            "1.",
            "1..1",
            "1.te_xt.1",
            "1.text.x",
            "1.gif.1",
            "1.mpeg.1",
            "1.MPEG",
            "1.au",
            "1.pdf.1",
            "1.html.1",
            "a%41.text",
            "a%2e.text",
        ];
        let tails = [
            "",
            "#char=37,51",
            "#37,51",
            "#CHAR=37,51",
            "#char=1",
            "#char=1,",
            "#char=a,1",
            "#(5,10),(25,30)",
            "#rect=(5,10),(25,30),0",
            "#rect=(5,10),(25,30)",
            "#sec,23,51",
            "#SEC,23,51",
            "#crop=SEC,23,51",
            "#crop=sec,23,51,(1,1),(2,2)",
            "#name=a,b",
            "#name=a%41,b",
            "#foo=a,b",
            "#x-y=(a,b),c",
            "#",
            "#\u{e9}",
            "#char=1,2#3",
            "#char=1,2@3",
            "#char=3%37,51",
            "#Char=37,51",
            "#char=37,51,52",
            "#char=,51",
            "#msec=1,2",
            "#elt=01,2",
            "#rect=1,2",
            "#crop=1,2",
            "#foo=1,2",
            "@103=pdi://oma.eop.gov.us/1997/09/01/1.text.1#37,51",
            "@1=urn:pdi://a.us/1997/09/01/1",
        ];
        let mut taken = 0;
        for prefix in prefixes {
            for series in series {
                for date in dates {
                    for specifier in specifiers {
                        for tail in tails {
                            let iri = format!("{prefix}//{series}/{date}/{specifier}{tail}");
                            taken += usize::from(one_pass_agrees(&adapter, &iri));
                        }
                    }
                }
            }
        }
        assert!(taken > 5_000, "the one-pass path took only {taken}");
        // The cases of benches/canonicalize.rs.
        for iri in [
            "urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51",
            "pdi://oma.eop.gov.us/1997/09/01/1.TEXT.1#37,51",
        ] {
            assert!(one_pass_agrees(&adapter, iri), "{iri} not taken");
        }
    }

    #[test]
    fn the_one_pass_path_agrees_with_the_full_parse_on_the_conformance_vectors() {
        let adapter = PdiAdapter::new(&Policy::default()).expect("the default policy");
        let taken = crate::scheme::conformance_inputs()
            .iter()
            .filter(|(input, _)| one_pass_agrees(&adapter, input))
            .count();
        assert!(taken > 40, "the one-pass path took only {taken}");
    }

    #[test]
    fn canonical_pdis_are_borrowed() {
        for input in [
            "urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51",
            "urn:pdi://oma.eop.gov.us/1997/11/03/4.text.1@103=pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51",
            "urn:pdi://video.cnn.co.us/1997/09/30/1234.mpeg.1#crop=sec,23,51,(10,10),(20,20)",
        ] {
            assert!(
                matches!(Pdi::parse(input).unwrap().into_cow(), Cow::Borrowed(_)),
                "{input}"
            );
        }
    }

    #[test]
    fn typed_value_exposes_the_parts() {
        let pdi: Pdi<'static> = "pdi://oma.eop.gov.us/1997/*/*/*".parse().unwrap();
        assert_eq!(pdi.date(), ("1997", "*", "*"));
        assert_eq!(
            (pdi.unique_id(), pdi.format(), pdi.version()),
            ("*", None, None)
        );
    }
}
