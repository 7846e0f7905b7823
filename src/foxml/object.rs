//! One FOXML 1.1 (or 1.0) object: read in one streaming pass, then turned into the statements
//! Fedora 3's resource index holds for it.

use crate::position::{Location, TextPosition};
use crate::rdfxml::LocatedRdfXml;
use oxrdf::vocab::xsd;
use oxrdf::{GraphName, Literal, NamedNode, Quad, Term};
use oxrdfxml::RdfXmlParser;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::QName;
use std::io::BufRead;

const FOXML_NS: &[u8] = b"info:fedora/fedora-system:def/foxml#";
const MODEL: &str = "info:fedora/fedora-system:def/model#";
const VIEW: &str = "info:fedora/fedora-system:def/view#";
const DC_NS: &[u8] = b"http://purl.org/dc/elements/1.1/";

/// Why a file could not be read as a FOXML object.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FoxmlError {
    /// The root element is not `foxml:digitalObject`.
    #[error("not a FOXML object: the root element is <{0}>, not foxml:digitalObject")]
    NotFoxml(String),
    /// The XML is malformed.
    #[error("{location}: malformed XML: {message}")]
    Xml {
        /// Where: the line and column in the file.
        location: Location,
        /// Where: a byte offset in the file.
        offset: u64,
        /// The XML parser's message.
        message: String,
    },
    /// `foxml:digitalObject` has no `PID`.
    #[error("foxml:digitalObject has no PID attribute")]
    NoPid,
    /// The current version of RELS-EXT or RELS-INT is not inline XML.
    #[error(
        "the current version of {0} is not inline XML (foxml:xmlContent); managed RDF in the datastream store is not read"
    )]
    NotInline(String),
    /// RELS-EXT or RELS-INT is not RDF/XML.
    #[error("{datastream}: {message}")]
    Rdf {
        /// RELS-EXT or RELS-INT.
        datastream: String,
        /// The RDF/XML parser's message.
        message: String,
    },
    /// A value Fedora 3 would not accept: a state that is not `A`, `I` or `D`, a date that is
    /// not one, a DC `xml:lang` that is not a language tag.
    #[error("{location}: {message}")]
    Invalid {
        /// Where the value is written in the file.
        location: Location,
        /// What the value is and the rule it breaks.
        message: String,
    },
}

impl FoxmlError {
    /// Where in the file the error is, when known.
    ///
    /// ```
    /// use pidcanon::foxml::FoxmlObject;
    /// let broken = b"<foxml:digitalObject PID=\"demo:1\" xmlns:foxml=\"info:fedora/fedora-system:def/foxml#\">\n <a></b>";
    /// let error = FoxmlObject::parse(broken).unwrap_err();
    /// assert_eq!(error.location().map(|l| l.to_string()), Some("2:5".into()));
    /// ```
    #[must_use]
    pub fn location(&self) -> Option<Location> {
        match self {
            Self::Xml { location, .. } | Self::Invalid { location, .. } => Some(*location),
            _ => None,
        }
    }
}

/// A value Fedora would refuse, found while reading: an error when the statements need it
/// (`rels`: always; otherwise with `--foxml-properties`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Invalid {
    location: Location,
    message: String,
    rels: bool,
}

/// Whether a document that starts with `prefix` (its first few kilobytes) is a FOXML object:
/// its root element is `digitalObject` and the FOXML namespace is declared before the root
/// element's start tag ends.
///
/// ```
/// use pidcanon::foxml::looks_like_foxml;
/// assert!(looks_like_foxml(br#"<?xml version="1.0"?>
/// <!-- an object -->
/// <foxml:digitalObject xmlns:foxml="info:fedora/fedora-system:def/foxml#" PID="demo:1">"#));
/// assert!(!looks_like_foxml(br#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#));
/// ```
#[must_use]
pub fn looks_like_foxml(prefix: &[u8]) -> bool {
    let mut reader = quick_xml::Reader::from_reader(prefix);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(start) | Event::Empty(start)) => {
                let foxml_declared = start
                    .attributes()
                    .flatten()
                    .any(|a| a.key.as_ref().starts_with(b"xmlns") && a.value.as_ref() == FOXML_NS);
                return start.local_name().as_ref() == b"digitalObject" && foxml_declared;
            }
            Ok(Event::Eof) | Err(_) => return false,
            Ok(_) => buf.clear(),
        }
    }
}

/// A datastream: its attributes and its current version's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Datastream {
    /// `ID`, e.g. `DC`.
    pub id: String,
    /// `STATE` as written: `A`, `I` or `D` (or `Active`, `Inactive`, `Deleted`, or their
    /// `model#` IRIs); none is `A`.
    pub state: String,
    /// `CONTROL_GROUP`: `X`, `M`, `E` or `R`.
    pub control_group: String,
    /// The current version's `CREATED`.
    pub created: String,
    /// The current version's `MIMETYPE`.
    pub mime_type: String,
}

/// What the statements of an object include.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FoxmlOptions {
    /// Besides RELS-EXT and RELS-INT, the triples Fedora's resource index derives from the object
    /// properties, the datastreams and DC (see `docs/fedora.md`).
    pub properties: bool,
}

/// One FOXML object, as far as its statements need it.
///
/// ```
/// use pidcanon::foxml::{FoxmlObject, FoxmlOptions};
/// use oxrdf::GraphName;
///
/// let foxml = r#"<foxml:digitalObject PID="demo:1" xmlns:foxml="info:fedora/fedora-system:def/foxml#">
///  <foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A">
///   <foxml:datastreamVersion ID="RELS-EXT.0" CREATED="2008-07-02T05:09:42.937Z">
///    <foxml:xmlContent>
///     <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
///      <rdf:Description rdf:about="info:fedora/demo:1">
///       <isMemberOf xmlns="info:fedora/fedora-system:def/relations-external#"
///                   rdf:resource="info:fedora/demo:Collection"/>
///      </rdf:Description>
///     </rdf:RDF>
///    </foxml:xmlContent>
///   </foxml:datastreamVersion>
///  </foxml:datastream>
/// </foxml:digitalObject>"#;
/// let object = FoxmlObject::read(foxml.as_bytes())?;
/// assert_eq!(object.pid, "demo:1");
/// let quads = object.quads(FoxmlOptions::default(), &GraphName::DefaultGraph, &mut |_, _, _| {})?;
/// assert_eq!(
///     quads[0].to_string(),
///     "<info:fedora/demo:1> <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:Collection>"
/// );
/// # Ok::<(), pidcanon::foxml::FoxmlError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoxmlObject {
    /// The `PID` attribute, as written.
    pub pid: String,
    /// `VERSION` of `foxml:digitalObject` (`1.1`; none for FOXML 1.0).
    pub version: Option<String>,
    /// The object properties, `(NAME, VALUE)`, in order.
    pub properties: Vec<(String, String)>,
    /// The datastreams, in order.
    pub datastreams: Vec<Datastream>,
    /// Where the `foxml:digitalObject` start tag (with the PID) is in the file.
    pub pid_at: Location,
    /// The current versions of RELS-EXT and RELS-INT, as standalone XML documents with where
    /// each starts in the file (none when the current version is not inline XML).
    relations: Vec<(String, Option<Captured>)>,
    /// The current version of DC: its `dc:` elements.
    dublin_core: Vec<DcValue>,
    /// Values Fedora would refuse, in the order of the file.
    invalid: Vec<Invalid>,
}

/// One `dc:` element of DC: its local name, its text trimmed as Fedora trims it, and its own
/// `xml:lang` (as written; none when absent or empty).
#[derive(Debug, Clone, PartialEq, Eq)]
struct DcValue {
    element: String,
    text: String,
    language: Option<String>,
}

/// The inline XML of a datastream version as a standalone document: the content of its
/// `foxml:xmlContent`, byte for byte but for the namespace declarations in scope added to its
/// root element's start tag.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Captured {
    xml: Vec<u8>,
    /// Where the content starts in the file.
    origin: Location,
    /// The declarations added: the line of `xml` the root's start tag ends on, the column its
    /// `>` was at, and how many characters were added before it.
    added: (u64, u64, u64),
}

impl Captured {
    /// `at`, a location in `xml`, as a location in the file (an unknown location is the
    /// content's start).
    fn locate(&self, at: Location) -> Location {
        let (Some(line), Some(mut column)) = (at.line(), at.column()) else {
            return self.origin;
        };
        let (added_line, after, added) = self.added;
        if line == added_line && column > after + added {
            column -= added;
        }
        match (self.origin.line(), self.origin.column()) {
            (Some(origin_line), Some(origin_column)) if line == 1 => {
                Location::new(origin_line, origin_column + column - 1)
            }
            (Some(origin_line), _) => Location::new(origin_line + line - 1, column),
            _ => self.origin,
        }
    }
}

/// A datastream version being read: its `CREATED` and captured content.
#[derive(Default)]
struct Version {
    created: String,
    mime_type: String,
    /// RELS-EXT, RELS-INT: the inline XML; DC: the elements.
    xml: Option<Captured>,
    dc: Vec<DcValue>,
    /// A DC `xml:lang` that is not a language tag (only the current version's counts).
    invalid: Option<Invalid>,
}

impl FoxmlObject {
    /// Reads one FOXML object (into memory: then it is parsed without copying).
    pub fn read(mut input: impl BufRead) -> Result<Self, FoxmlError> {
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| xml_error(&bytes, bytes.len() as u64, format!("I/O error: {e}")))?;
        Self::parse(&bytes)
    }

    /// Reads one FOXML object from its bytes.
    ///
    /// ```
    /// use pidcanon::foxml::FoxmlObject;
    /// let foxml = br#"<foxml:digitalObject PID="demo:1" xmlns:foxml="info:fedora/fedora-system:def/foxml#"/>"#;
    /// assert_eq!(FoxmlObject::parse(foxml)?.pid, "demo:1");
    /// # Ok::<(), pidcanon::foxml::FoxmlError>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Self, FoxmlError> {
        Parser::new(bytes).run()
    }

    /// The object's `info:fedora/` IRI (not yet canonical: the rewriter canonicalizes it).
    #[must_use]
    pub fn iri(&self) -> String {
        format!("info:fedora/{}", self.pid)
    }

    /// The statements of the object in `graph`: its current RELS-EXT and RELS-INT, and with
    /// `options.properties` the resource index's triples about it. `warn` hears of legacy
    /// RDF/XML in the RELS datastreams (with the datastream's ID and where in the file).
    pub fn quads(
        &self,
        options: FoxmlOptions,
        graph: &GraphName,
        warn: &mut dyn FnMut(&str, Location, String),
    ) -> Result<Vec<Quad>, FoxmlError> {
        let located = self.located_quads(options, graph, warn)?;
        Ok(located.into_iter().map(|(quad, _)| quad).collect())
    }

    /// [`Self::quads`], each with where it is in the file: a RELS statement at the XML tag that
    /// completes it, a resource-index triple (made from the PID) at `foxml:digitalObject`.
    pub fn located_quads(
        &self,
        options: FoxmlOptions,
        graph: &GraphName,
        warn: &mut dyn FnMut(&str, Location, String),
    ) -> Result<Vec<(Quad, Location)>, FoxmlError> {
        let invalid = self.invalid.iter().filter(|i| i.rels || options.properties);
        // The first in the file.
        if let Some(invalid) = invalid.min_by_key(|i| (i.location.line(), i.location.column())) {
            return Err(FoxmlError::Invalid {
                location: invalid.location,
                message: invalid.message.clone(),
            });
        }
        let object = NamedNode::new(self.iri()).map_err(|e| FoxmlError::Rdf {
            datastream: "PID".into(),
            message: format!("{:?} is not a valid IRI: {e}", self.iri()),
        })?;
        let mut quads = Vec::new();
        // Whether RELS-EXT says the object has the model every object has.
        let mut has_model = false;
        for (datastream, xml) in &self.relations {
            let captured = xml
                .as_ref()
                .ok_or_else(|| FoxmlError::NotInline(datastream.clone()))?;
            let parser = RdfXmlParser::new()
                .with_base_iri(object.as_str())
                .map_err(|e| FoxmlError::Rdf {
                    datastream: datastream.clone(),
                    message: e.to_string(),
                })?;
            let triples = LocatedRdfXml::from_slice(parser, &captured.xml, |at, message| {
                warn(datastream, captured.locate(at), message);
            });
            for (triple, at) in triples {
                let at = captured.locate(at);
                let triple = triple.map_err(|e| FoxmlError::Rdf {
                    datastream: datastream.clone(),
                    message: format!("{at}: {e}"),
                })?;
                has_model |= triple.subject.to_string() == format!("<{}>", object.as_str())
                    && triple.predicate.as_str() == MODEL_HAS_MODEL
                    && triple.object.to_string() == format!("<{FEDORA_OBJECT}>");
                quads.push((triple.in_graph(graph.clone()), at));
            }
        }
        if options.properties {
            let mut add = |s: &NamedNode, p: String, o: Term| {
                let quad = Quad::new(s.clone(), NamedNode::new_unchecked(p), o, graph.clone());
                quads.push((quad, self.pid_at));
            };
            self.add_object_properties(&object, has_model, &mut add);
            for datastream in &self.datastreams {
                add_datastream(&object, datastream, &mut add);
            }
            for value in &self.dublin_core {
                let predicate = format!("http://purl.org/dc/elements/1.1/{}", value.element);
                let literal = match &value.language {
                    // Checked when read; the tag is kept as written, like every literal.
                    Some(language) => {
                        Literal::new_language_tagged_literal_unchecked(&value.text, language)
                    }
                    None => Literal::new_simple_literal(&value.text),
                };
                add(&object, predicate, literal.into());
            }
        }
        Ok(quads)
    }

    fn add_object_properties(
        &self,
        object: &NamedNode,
        has_model: bool,
        add: &mut impl FnMut(&NamedNode, String, Term),
    ) {
        // What the object has not is what Fedora gives it: Active, an empty label and owner.
        let mut missing = [("state", true), ("label", true), ("ownerId", true)];
        for (name, value) in &self.properties {
            let local = name.strip_prefix(MODEL).or(name.strip_prefix(VIEW));
            let term: Term = match local {
                // Checked when read.
                Some("state") => match state(value) {
                    Some(state) => state.into(),
                    None => continue,
                },
                Some("label" | "ownerId") => Literal::new_simple_literal(value).into(),
                Some("createdDate" | "lastModifiedDate") => match date(value) {
                    Some(date) => date.into(),
                    None => continue,
                },
                _ => continue,
            };
            for (property, absent) in &mut missing {
                *absent &= local != Some(property);
            }
            add(object, name.clone(), term);
        }
        for (property, absent) in missing {
            if !absent {
                continue;
            }
            let term: Term = match property {
                "state" => NamedNode::new_unchecked(format!("{MODEL}Active")).into(),
                _ => Literal::new_simple_literal("").into(),
            };
            add(object, format!("{MODEL}{property}"), term);
        }
        // Every Fedora 3 object has this model, whether its RELS-EXT says so or not.
        if !has_model {
            let model = NamedNode::new_unchecked(FEDORA_OBJECT);
            add(object, MODEL_HAS_MODEL.into(), model.into());
        }
    }
}

const MODEL_HAS_MODEL: &str = "info:fedora/fedora-system:def/model#hasModel";
const FEDORA_OBJECT: &str = "info:fedora/fedora-system:FedoraObject-3.0";

/// The resource index's triples about one datastream.
fn add_datastream(
    object: &NamedNode,
    datastream: &Datastream,
    add: &mut impl FnMut(&NamedNode, String, Term),
) {
    let id = &datastream.id;
    let Ok(node) = NamedNode::new(format!("{}/{id}", object.as_str())) else {
        return;
    };
    add(object, format!("{VIEW}disseminates"), node.clone().into());
    let dissemination_type = NamedNode::new_unchecked(format!("info:fedora/*/{id}"));
    add(
        &node,
        format!("{VIEW}disseminationType"),
        dissemination_type.into(),
    );
    let volatile = matches!(datastream.control_group.as_str(), "E" | "R");
    add(
        &node,
        format!("{VIEW}isVolatile"),
        Literal::new_simple_literal(volatile.to_string()).into(),
    );
    if let Some(created) = date(&datastream.created) {
        add(&node, format!("{VIEW}lastModifiedDate"), created.into());
    }
    if !datastream.mime_type.is_empty() {
        add(
            &node,
            format!("{VIEW}mimeType"),
            Literal::new_simple_literal(&datastream.mime_type).into(),
        );
    }
    // Checked when read.
    if let Some(state) = state(&datastream.state) {
        add(&node, format!("{MODEL}state"), state.into());
    }
}

/// `model#Active`, `model#Inactive` or `model#Deleted`, from a state as Fedora 3 reads it
/// (`DOTranslationUtility.readStateAttribute`): `A`, `Active` or the `model#Active` IRI (and
/// so on), case as written; none written is Active. `None` for anything else.
fn state(value: &str) -> Option<NamedNode> {
    let name = state_name(value)?;
    Some(NamedNode::new_unchecked(format!("{MODEL}{name}")))
}

/// The local name in `model#` of the state `value` stands for.
fn state_name(value: &str) -> Option<&'static str> {
    match value.strip_prefix(MODEL).unwrap_or(value) {
        "" | "A" | "Active" => Some("Active"),
        "I" | "Inactive" => Some("Inactive"),
        "D" | "Deleted" => Some("Deleted"),
        _ => None,
    }
}

/// Why `value` is no state Fedora knows, if it is not one (`what` names it).
fn state_error(what: impl FnOnce() -> String, value: &str) -> Option<String> {
    state_name(value).is_none().then(|| {
        format!(
            "{} {value:?} is not a Fedora state (A, I or D; Active, Inactive or Deleted)",
            what()
        )
    })
}

/// An `xsd:dateTime` as Fedora writes it (`DateUtility.convertDateToXSDString`), from a date
/// as it reads one ([`utc_date`]); `None` if `value` is no date.
fn date(value: &str) -> Option<Literal> {
    Some(Literal::new_typed_literal(utc_date(value)?, xsd::DATE_TIME))
}

/// Why `value` is no date, if it is not one. None written is no error: an object made for
/// ingest leaves the dates to Fedora, and so gives no date triple.
fn date_error(what: impl FnOnce() -> String, value: &str) -> Option<String> {
    (!value.is_empty() && utc_date(value).is_none()).then(|| {
        format!(
            "{} {value:?} is not a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with a \
             fraction of a second, Z or an offset, as Fedora reads them)",
            what()
        )
    })
}

/// `value` in UTC with a `Z`, the fraction of a second without trailing zeros:
/// `YYYY-MM-DDTHH:MM:SS[.fff]Z`. Read as Fedora 3's `DateUtility` reads dates: `YYYY-MM-DD`
/// (midnight), `YYYY-MM-DDTHH:MM:SS` with an optional fraction, each with or without `Z`
/// (none is UTC); an offset (`+02:00`) is turned into UTC. `None` for anything else, or a
/// field out of its range.
fn utc_date(value: &str) -> Option<String> {
    let digits = |text: &str| -> Option<i64> {
        (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse().ok())
            .flatten()
    };
    let field = |at: usize, len: usize| value.get(at..at + len).and_then(digits);
    let bytes = value.as_bytes();
    if value.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let (year, month, day) = (field(0, 4)?, field(5, 2)?, field(8, 2)?);
    let (mut time, mut rest) = ((0, 0, 0), &value[10..]);
    let mut fraction = "";
    if let Some(after) = rest.strip_prefix('T') {
        let clock = after.as_bytes();
        if after.len() < 8 || clock[2] != b':' || clock[5] != b':' {
            return None;
        }
        let part = |at: usize| after.get(at..at + 2).and_then(digits);
        time = (part(0)?, part(3)?, part(6)?);
        rest = &after[8..];
        if let Some(after) = rest.strip_prefix('.') {
            let end = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            fraction = after[..end].trim_end_matches('0');
            if end == 0 {
                return None;
            }
            rest = &after[end..];
        }
    }
    let offset = match rest {
        "" | "Z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let zone = &rest[1..];
            if zone.len() != 5 || zone.as_bytes()[2] != b':' {
                return None;
            }
            let (hours, minutes) = (digits(&zone[..2])?, digits(&zone[3..])?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            sign * (hours * 60 + minutes)
        }
    };
    let (hour, minute, second) = time;
    let month_days = match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if day < 1 || day > month_days || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Minutes since 1970-01-01T00:00Z, then back to a civil date in UTC.
    let minutes = days_from_civil(year, month, day) * 1440 + hour * 60 + minute - offset;
    let (days, minute_of_day) = (minutes.div_euclid(1440), minutes.rem_euclid(1440));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute) = (minute_of_day / 60, minute_of_day % 60);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let fraction = if fraction.is_empty() {
        String::new()
    } else {
        format!(".{fraction}")
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z"
    ))
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (H. Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A `CREATED` value as a key that sorts in time order: the UTC date with its fraction of a
/// second padded (a value that is no date sorts as written).
fn created_key(created: &str) -> String {
    let utc = utc_date(created);
    let body = utc.as_deref().unwrap_or(created);
    let body = body.strip_suffix('Z').unwrap_or(body);
    let (seconds, fraction) = body.split_once('.').unwrap_or((body, ""));
    format!("{seconds}.{fraction:0<9}")
}

/// Lines and columns of a document's offsets, counted on from the last offset asked for.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    position: TextPosition,
}

impl LineCounter {
    fn location(&mut self, input: &[u8], offset: usize) -> Location {
        let offset = offset.min(input.len());
        if offset < self.offset {
            *self = Self::default();
        }
        self.position.advance(&input[self.offset..offset]);
        self.offset = offset;
        self.position.location()
    }
}

/// The namespace declarations of one element: `(xmlns or xmlns:prefix, namespace)`.
type Declarations = Vec<(Vec<u8>, Vec<u8>)>;

/// The reader of one FOXML document, over its bytes. It resolves the names of the FOXML
/// elements (and of DC's elements) itself, from the declarations it keeps for the captured XML,
/// and skips the content of the datastreams it does not read (the audit trail, other inline XML)
/// without looking at their namespaces.
struct Parser<'a> {
    input: &'a [u8],
    reader: Reader<&'a [u8]>,
    lines: LineCounter,
    /// Where the event read last starts.
    event_start: usize,
    object: FoxmlObject,
    /// Namespace declarations of the open FOXML elements (and, in DC, of the open DC elements).
    declarations: Vec<Declarations>,
    /// The datastream being read, and its current version so far.
    datastream: Option<(Datastream, Option<Version>)>,
    version: Option<Version>,
    /// The datastream's versions so far, and the `CREATED` values among them that are no date.
    versions: (usize, Vec<Invalid>),
}

impl<'a> Parser<'a> {
    fn new(input: &'a [u8]) -> Self {
        let mut reader = Reader::from_reader(input);
        reader.config_mut().expand_empty_elements = true;
        Self {
            input,
            reader,
            lines: LineCounter::default(),
            event_start: 0,
            object: FoxmlObject::default(),
            declarations: Vec::new(),
            datastream: None,
            version: None,
            versions: (0, Vec::new()),
        }
    }

    fn xml_error(&self, e: impl std::fmt::Display) -> FoxmlError {
        xml_error(self.input, self.reader.error_position(), e.to_string())
    }

    /// Records a value Fedora would refuse, written at `offset`.
    fn invalid(&mut self, offset: usize, message: String, rels: bool) -> Invalid {
        Invalid {
            location: self.location(offset as u64),
            message,
            rels,
        }
    }

    fn next_event(&mut self) -> Result<Event<'a>, FoxmlError> {
        self.event_start = usize::try_from(self.reader.buffer_position()).unwrap_or(usize::MAX);
        self.reader.read_event().map_err(|e| self.xml_error(e))
    }

    /// The line and column of `offset` in the file.
    fn location(&mut self, offset: u64) -> Location {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        self.lines.location(self.input, offset)
    }

    /// The namespace `name`'s prefix (or the default namespace) is bound to, by the open
    /// elements' declarations.
    fn namespace(&self, name: QName<'_>) -> Option<&[u8]> {
        let prefix = name.prefix().map(|p| p.into_inner());
        let binds = |key: &[u8]| match prefix {
            Some(prefix) => key.strip_prefix(b"xmlns:") == Some(prefix),
            None => key == b"xmlns",
        };
        let (_, namespace) = self
            .declarations
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(key, _)| binds(key))?;
        // `xmlns=""` takes the default namespace away.
        (!namespace.is_empty()).then_some(namespace.as_slice())
    }

    fn run(mut self) -> Result<FoxmlObject, FoxmlError> {
        loop {
            match self.next_event()? {
                Event::Start(start) => {
                    let root = self.declarations.is_empty();
                    self.declarations.push(declarations(&start));
                    let in_foxml = self.namespace(start.name()) == Some(FOXML_NS);
                    let local = start.local_name();
                    if root && !(in_foxml && local.as_ref() == b"digitalObject") {
                        let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                        return Err(FoxmlError::NotFoxml(name));
                    }
                    if in_foxml {
                        self.foxml_start(local.as_ref(), &start)?;
                    }
                }
                Event::End(end) => {
                    let in_foxml = self.namespace(end.name()) == Some(FOXML_NS);
                    self.declarations.pop();
                    if in_foxml {
                        self.foxml_end(end.local_name().as_ref());
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if self.declarations.is_empty() && self.object.pid.is_empty() {
            return Err(FoxmlError::NotFoxml("(none)".into()));
        }
        Ok(self.object)
    }

    fn foxml_start(&mut self, local: &[u8], start: &BytesStart<'a>) -> Result<(), FoxmlError> {
        if local == b"xmlContent" {
            return self.capture_content(start);
        }
        if !matches!(
            local,
            b"digitalObject" | b"property" | b"extproperty" | b"datastream" | b"datastreamVersion"
        ) {
            return Ok(());
        }
        // The attributes, read once, up to the first malformed one: an attribute after it, like
        // a missing one, reads as empty.
        let attributes: Vec<_> = start.attributes().map_while(Result::ok).collect();
        let attribute = |name: &[u8]| -> String {
            match attributes.iter().find(|a| a.key.as_ref() == name) {
                Some(a) => a
                    .unescape_value()
                    .map(|v| v.into_owned())
                    .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned()),
                None => String::new(),
            }
        };
        match local {
            b"digitalObject" => {
                self.object.pid = attribute(b"PID");
                self.object.pid_at = self.location(self.event_start as u64);
                if self.object.pid.is_empty() {
                    return Err(FoxmlError::NoPid);
                }
                let version = attribute(b"VERSION");
                self.object.version = (!version.is_empty()).then_some(version);
            }
            b"property" | b"extproperty" => {
                let (name, value) = (attribute(b"NAME"), attribute(b"VALUE"));
                let problem = match name.strip_prefix(MODEL).or(name.strip_prefix(VIEW)) {
                    Some("state") => state_error(|| "the object's state".into(), &value),
                    Some(date @ ("createdDate" | "lastModifiedDate")) => {
                        date_error(|| format!("the object's {date}"), &value)
                    }
                    _ => None,
                };
                if let Some(message) = problem {
                    let invalid = self.invalid(self.event_start, message, false);
                    self.object.invalid.push(invalid);
                }
                self.object.properties.push((name, value));
            }
            b"datastream" => {
                let datastream = Datastream {
                    id: attribute(b"ID"),
                    state: attribute(b"STATE"),
                    control_group: attribute(b"CONTROL_GROUP"),
                    ..Datastream::default()
                };
                self.versions = (0, Vec::new());
                let what = || format!("datastream {}: STATE", datastream.id);
                if let Some(message) = state_error(what, &datastream.state) {
                    let invalid = self.invalid(self.event_start, message, false);
                    self.object.invalid.push(invalid);
                }
                self.datastream = Some((datastream, None));
            }
            b"datastreamVersion" => {
                let created = attribute(b"CREATED");
                let what = || format!("datastream version {}: CREATED", attribute(b"ID"));
                self.versions.0 += 1;
                if let Some(message) = date_error(what, &created) {
                    let invalid = self.invalid(self.event_start, message, false);
                    self.versions.1.push(invalid);
                }
                self.version = Some(Version {
                    created,
                    mime_type: attribute(b"MIMETYPE"),
                    ..Version::default()
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn foxml_end(&mut self, local: &[u8]) {
        match local {
            b"datastreamVersion" => {
                let (Some(version), Some((_, current))) =
                    (self.version.take(), &mut self.datastream)
                else {
                    return;
                };
                // Strictly later, as Fedora compares: of two versions created at once, the
                // first in the file is current.
                let later = current
                    .as_ref()
                    .is_none_or(|c| created_key(&version.created) > created_key(&c.created));
                if later {
                    *current = Some(version);
                }
            }
            b"datastream" => {
                let Some((mut datastream, current)) = self.datastream.take() else {
                    return;
                };
                let current = current.unwrap_or_default();
                // The current RELS version is chosen by its date: when there is a choice,
                // that needs dates.
                let (versions, mut dates) = std::mem::take(&mut self.versions);
                let rels = matches!(datastream.id.as_str(), "RELS-EXT" | "RELS-INT");
                for invalid in &mut dates {
                    invalid.rels = rels && versions > 1;
                }
                self.object.invalid.append(&mut dates);
                datastream.created = current.created;
                datastream.mime_type = current.mime_type;
                match datastream.id.as_str() {
                    "RELS-EXT" | "RELS-INT" => {
                        self.object
                            .relations
                            .push((datastream.id.clone(), current.xml));
                    }
                    "DC" => {
                        self.object.dublin_core = current.dc;
                        self.object.invalid.extend(current.invalid);
                    }
                    _ => {}
                }
                self.object.datastreams.push(datastream);
            }
            _ => {}
        }
    }

    /// Reads a `foxml:xmlContent` to its end: RELS-EXT and RELS-INT as a standalone document
    /// (the namespaces declared on the FOXML elements around it added), DC as its elements;
    /// any other datastream's content is skipped.
    fn capture_content(&mut self, content: &BytesStart<'a>) -> Result<(), FoxmlError> {
        let id = self.datastream.as_ref().map(|(d, _)| d.id.as_str());
        let rels = matches!(id, Some("RELS-EXT" | "RELS-INT"));
        let dc = id == Some("DC");
        if !rels && !dc {
            self.reader
                .read_to_end(content.name())
                .map_err(|e| self.xml_error(e))?;
            self.declarations.pop();
            return Ok(());
        }
        let origin = self.location(self.reader.buffer_position());
        let mut xml = Vec::new();
        // Whether the last start tag written was an empty element (`<a/>`, which the reader
        // gives as a start and an end): it is written as it was, so that what the RDF/XML
        // parser reports is located in the file as written.
        let mut empty = false;
        let mut added = (0, 0, 0);
        let mut dc_elements = Vec::new();
        let mut depth = 0usize;
        let mut dc_text: Option<DcValue> = None;
        let mut dc_invalid = None;
        loop {
            let event = self.next_event()?;
            let at = self.reader.buffer_position();
            let input = self.input;
            let error = |message: String| xml_error(input, at, message);
            match &event {
                Event::Start(start) => {
                    depth += 1;
                    if dc {
                        self.declarations.push(declarations(start));
                        if self.namespace(start.name()) == Some(DC_NS) {
                            let element =
                                String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
                            // Fedora's DCFields reads the element's own xml:lang.
                            let language = start
                                .attributes()
                                .flatten()
                                .find(|a| a.key.as_ref() == b"xml:lang")
                                .map(|a| match a.unescape_value() {
                                    Ok(value) => value.into_owned(),
                                    Err(_) => String::from_utf8_lossy(&a.value).into_owned(),
                                })
                                .filter(|language| !language.is_empty());
                            if let Some(language) = &language
                                && dc_invalid.is_none()
                                && oxilangtag::LanguageTag::parse(language.as_str()).is_err()
                            {
                                let message = format!(
                                    "DC: dc:{element} xml:lang={language:?} is not a language \
                                     tag (BCP 47)"
                                );
                                dc_invalid = Some(self.invalid(self.event_start, message, false));
                            }
                            dc_text = Some(DcValue {
                                element,
                                text: String::new(),
                                language,
                            });
                        }
                    }
                }
                Event::Text(text) => {
                    if let Some(value) = &mut dc_text {
                        let unescaped = text.unescape().map_err(|e| error(e.to_string()))?;
                        value.text.push_str(&unescaped);
                    }
                }
                Event::CData(cdata) => {
                    if let Some(value) = &mut dc_text {
                        value.text.push_str(&String::from_utf8_lossy(cdata));
                    }
                }
                Event::End(_) => {
                    if dc || depth == 0 {
                        self.declarations.pop();
                    }
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    if let Some(mut value) = dc_text.take() {
                        // As Java's String.trim(), which DCFields applies: every character up
                        // to U+0020 at either end.
                        let trimmed = value.text.trim_matches(|c: char| c <= ' ');
                        if trimmed.len() != value.text.len() {
                            value.text = trimmed.to_owned();
                        }
                        dc_elements.push(value);
                    }
                }
                Event::Eof => {
                    return Err(error("the document ends inside foxml:xmlContent".into()));
                }
                _ => {}
            }
            if rels {
                let was_empty = matches!(event, Event::Start(_))
                    && self.input[..usize::try_from(at)
                        .unwrap_or(usize::MAX)
                        .min(self.input.len())]
                        .ends_with(b"/>");
                if std::mem::replace(&mut empty, was_empty) && matches!(event, Event::End(_)) {
                    continue;
                }
                let event = match event {
                    Event::Start(start) if depth == 1 => {
                        let written = start.len();
                        let start = with_declarations(start, &self.declarations);
                        let columns = start[written..]
                            .iter()
                            .filter(|&&b| b & 0xC0 != 0x80)
                            .count() as u64;
                        // The tag's `>` goes after what is in `xml` and the start tag as it was.
                        let line_start = memchr::memrchr(b'\n', &xml).map_or(0, |i| i + 1);
                        let line = memchr::memchr_iter(b'\n', &xml).count() as u64 + 1;
                        let before = xml[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80);
                        let tag = start[..written].iter().filter(|&&b| b & 0xC0 != 0x80);
                        let after = (before.count() + tag.count()) as u64 + 2;
                        added = (line, after, columns);
                        if was_empty {
                            Event::Empty(start)
                        } else {
                            Event::Start(start)
                        }
                    }
                    Event::Start(start) if was_empty => Event::Empty(start),
                    other => other,
                };
                quick_xml::Writer::new(&mut xml)
                    .write_event(event)
                    .map_err(|e| error(e.to_string()))?;
            }
        }
        if let Some(version) = &mut self.version {
            if rels {
                version.xml = Some(Captured { xml, origin, added });
            }
            version.dc = dc_elements;
            version.invalid = dc_invalid;
        }
        Ok(())
    }
}

/// A malformed XML error at `offset` in `input`, located by line and column.
fn xml_error(input: &[u8], offset: u64, message: String) -> FoxmlError {
    let end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(input.len());
    let mut position = TextPosition::default();
    position.advance(&input[..end]);
    FoxmlError::Xml {
        location: position.location(),
        offset,
        message,
    }
}

/// The namespace declarations on `start`.
fn declarations(start: &BytesStart<'_>) -> Vec<(Vec<u8>, Vec<u8>)> {
    // Most elements declare nothing: a look at their bytes says so.
    let raw = start.attributes_raw();
    if !memchr::memchr_iter(b'x', raw).any(|at| raw[at..].starts_with(b"xmlns")) {
        return Vec::new();
    }
    start
        .attributes()
        .flatten()
        .filter(|a| a.key.as_ref() == b"xmlns" || a.key.as_ref().starts_with(b"xmlns:"))
        .map(|a| (a.key.as_ref().to_vec(), a.value.into_owned()))
        .collect()
}

/// `start` with the declarations in scope around it that it does not make itself.
fn with_declarations<'a>(
    mut start: BytesStart<'a>,
    scopes: &[Vec<(Vec<u8>, Vec<u8>)>],
) -> BytesStart<'a> {
    let own = declarations(&start);
    let mut added: Vec<&[u8]> = Vec::new();
    for (key, value) in scopes.iter().rev().flatten() {
        if own.iter().any(|(k, _)| k == key) || added.contains(&key.as_slice()) {
            continue;
        }
        added.push(key);
        start.push_attribute((key.as_slice(), value.as_slice()));
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_keys_sort_in_time_order() {
        assert!(created_key("2008-07-02T05:09:42.94Z") > created_key("2008-07-02T05:09:42.937Z"));
        assert!(created_key("2008-07-02T05:09:43Z") > created_key("2008-07-02T05:09:42.999Z"));
    }

    #[test]
    fn created_keys_compare_instants() {
        assert_eq!(
            created_key("2008-07-02T07:09:42.5+02:00"),
            created_key("2008-07-02T05:09:42.500Z")
        );
        assert!(created_key("2008-07-02T05:09:43") > created_key("2008-07-02T05:09:42.9Z"));
    }

    #[test]
    fn dates_lose_trailing_zeros() {
        for (written, utc) in [
            ("2008-07-02T05:09:42.500Z", "2008-07-02T05:09:42.5Z"),
            ("2008-07-02T05:09:42.000Z", "2008-07-02T05:09:42Z"),
            ("2008-07-02T05:09:42.015Z", "2008-07-02T05:09:42.015Z"),
        ] {
            assert_eq!(
                date(written).map(|d| d.value().to_owned()),
                Some(utc.into())
            );
        }
    }

    #[test]
    fn dates_cross_days_months_and_years_into_utc() {
        assert_eq!(
            utc_date("2008-03-01T00:30:00+01:00").as_deref(),
            Some("2008-02-29T23:30:00Z")
        );
        assert_eq!(
            utc_date("2007-03-01T00:30:00+01:00").as_deref(),
            Some("2007-02-28T23:30:00Z")
        );
        assert_eq!(
            utc_date("1969-12-31T23:59:59-00:01").as_deref(),
            Some("1970-01-01T00:00:59Z")
        );
        assert_eq!(utc_date("2008-02-30"), None);
        assert_eq!(utc_date("2008-07-02T24:00:00Z"), None);
        assert_eq!(utc_date("2008-07-02T05:09:42.Z"), None);
        assert_eq!(utc_date("2008-07-02T05:09:42+2:00"), None);
    }
}
