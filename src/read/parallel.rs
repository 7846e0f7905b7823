//! Turtle parsed on several threads: the input is read in large blocks, cut into pieces at
//! statement ends found by a light lexical scan ([`super::scan`]), and each piece is parsed on a
//! thread of its own by the same line reader as on one thread, knowing the prefixes and base
//! declared before it. The statements are handed on in input order, so the output is the same
//! as on one thread, byte for byte. A consumer may have each parsing thread work on its pieces
//! as they are parsed ([`PieceWork`]: the rewrite canonicalizes there, and may write the
//! statements as lines, so that only bytes travel on).
//!
//! The scan only guesses; every guess is checked against what the parsers find. A piece is
//! parsed knowing the declarations the pieces before it left (a piece in which the scan sees a
//! declaration is waited for before the next one is sent), and the lines since the last
//! statement before it (its last line, for the locations of what is found). When a piece's
//! parse disagrees with what it was given — a syntax error in it, or the piece before it left
//! other declarations or lines than guessed — the rest of the input, from that piece on, is read
//! on one thread as it would have been from the start (recovery after syntax errors included).
//! So is the rest of an input whose scan loses track (a statement longer than [`MAX_PIECE`], a
//! line break in a short string or an IRI).
//!
//! Memory stays bounded: at most two pieces per thread are in flight, each about [`PIECE`]
//! bytes (a piece ends at the first statement end after that size).

use super::line_parser::LineParser;
use super::lines::{Ended, Resume, read_lines};
use super::scan::{Cut, MAX_PIECE, Scanner};
use super::statements::Statements;
use super::threads::spawn_worker;
use super::{Declarations, Item, PieceWork, RdfFormat, ReadError, Span, repeated_work};
use crate::position::line_breaks;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// The size a piece is cut at (at the first statement end after it): a piece is a few thousand
/// statements, enough that handing it on costs little; larger pieces (1 MiB) only held more
/// statements in flight (TTL→NT on two threads: peak RSS 124–142 MB at 1 MiB, 89–115 MB at
/// 256 KiB, on 1 M statements).
const PIECE: usize = 1 << 18;
/// How much is read from the input at a time.
const READ: usize = 1 << 20;

/// The prefixes and base declared before a piece, and the lines read since the last statement
/// before it (with the number of the first).
#[derive(Clone, PartialEq, Eq, Default)]
struct Before {
    declarations: Declarations,
    leftover: (u64, Vec<u8>),
}

/// A piece sent to a parsing thread.
struct Piece {
    text: Arc<Vec<u8>>,
    /// The lines before the piece.
    lines_before: u64,
    before: Before,
    /// The declarations before the input's first statement, if it is before the piece.
    first: Option<Declarations>,
}

/// Why a piece stops parsing: it is read again on one thread, where a syntax error is recovered
/// from or reported, and an I/O or usage error is told.
struct ReadAgain;

impl From<ReadError> for ReadAgain {
    fn from(_: ReadError) -> Self {
        Self
    }
}

/// A piece parsed: its statements, as read or as worked on, with how many were read and the
/// declarations before the first.
struct ParsedPiece<D> {
    statements: PieceStatements<D>,
    read: u64,
    /// The declarations before the piece's first statement, if it has one.
    declarations: Option<Declarations>,
}

/// A piece's statements: as read, or worked on where they were parsed ([`PieceWork`]).
enum PieceStatements<D> {
    Read(Statements),
    Done(D),
}

/// What a parsing thread gives back: the piece parsed, and what it leaves for the next one;
/// `None` when the piece does not parse on its own.
type Parsed<D> = Option<(ParsedPiece<D>, Before)>;

/// Parses one piece, stopping at its first syntax error; works on its statements as they are
/// parsed if given `work`.
fn parse<W: PieceWork>(piece: &Piece, mut work: Option<&mut W>) -> Parsed<W::Done> {
    let (prefixes, base) = &piece.before.declarations;
    let parser = LineParser::declared(RdfFormat::Turtle, base.as_deref(), prefixes).ok()??;
    let mut statements = match work.as_deref_mut() {
        Some(work) => PieceStatements::Done(work.start(piece.text.len(), piece.first.clone())),
        None => PieceStatements::Read(Statements::with_capacity(piece.text.len())),
    };
    let mut read = 0;
    let mut first_declarations = None;
    let resume = Resume {
        lines_before: piece.lines_before,
        context: &piece.before.leftover.1,
    };
    let mut on_item = |item, span: Span<'_>, declarations: &dyn Fn() -> Declarations| match item {
        Item::Statement(quad) => {
            read += 1;
            if read == 1 {
                first_declarations = Some(declarations());
            }
            match (&mut statements, work.as_deref_mut()) {
                (PieceStatements::Done(done), Some(work)) => {
                    work.statement(done, quad, span, declarations);
                }
                (PieceStatements::Read(statements), _) => statements.push(quad, span),
                (PieceStatements::Done(_), None) => unreachable!("only work makes work done"),
            }
            Ok(())
        }
        Item::Notice(_) | Item::Piece(_) => Err(ReadAgain),
    };
    let Ended { parser, leftover } =
        read_lines::<W::Done, _>(&piece.text[..], parser, resume, &mut on_item).ok()?;
    if let (PieceStatements::Done(done), Some(work)) = (&mut statements, work)
        && !work.end(done, read)
    {
        // What was done depends on the piece before: read again in order.
        return None;
    }
    let declarations = (parser.prefixes(), parser.base_iri());
    Some((
        ParsedPiece {
            statements,
            read,
            declarations: first_declarations,
        },
        Before {
            declarations,
            leftover,
        },
    ))
}

/// A parsing thread's two ends.
struct Parser<D> {
    pieces: SyncSender<Arc<Piece>>,
    parsed: Receiver<Parsed<D>>,
}

/// Reads a Turtle document on `threads` threads, handing its items to `on_item` in order (as
/// [`read_lines`] does on one). Each parsing thread works on its pieces with what `work`
/// makes, if given, taking `first` for the declarations before the input's first statement if
/// given (else those the input makes).
pub(crate) fn read<W: PieceWork, E: From<ReadError>>(
    mut input: impl BufRead,
    parser: LineParser,
    threads: usize,
    work: Option<&(dyn Fn() -> W + Sync)>,
    first: Option<Declarations>,
    on_item: &mut impl FnMut(Item<W::Done>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    let start = Before {
        declarations: (parser.prefixes(), parser.base_iri()),
        leftover: (0, Vec::new()),
    };
    std::thread::scope(|scope| {
        let mut parsers = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..threads {
            let (pieces, to_parse) = mpsc::sync_channel::<Arc<Piece>>(2);
            let (to_reader, parsed) = mpsc::sync_channel::<Parsed<W::Done>>(2);
            let handle = spawn_worker(scope, move || {
                let mut work = work.map(|make| make());
                for piece in to_parse {
                    if to_reader.send(parse(&piece, work.as_mut())).is_err() {
                        break;
                    }
                }
            })
            .map_err(ReadError::from)?;
            handles.push(handle);
            parsers.push(Parser { pieces, parsed });
        }
        let read = read_pieces(parsers, start, first, &mut input, on_item);
        // The parsing threads stop once the pipeline is gone; they are joined, not only waited
        // for (as the scope does, until their work returns): a joined thread has also run its
        // thread-local destructors, so that nothing of it is left allocated when this returns
        // (LeakSanitizer took what was left for a leak, fuzzing turtle_threads).
        for handle in handles {
            if let Err(panic) = handle.join() {
                // As the scope would: a parsing thread's panic is not an error of the input.
                std::panic::resume_unwind(panic);
            }
        }
        read
    })
}

/// [`read`] once the parsing threads are started.
fn read_pieces<D, E: From<ReadError>>(
    parsers: Vec<Parser<D>>,
    start: Before,
    first: Option<Declarations>,
    mut input: impl BufRead,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    let mut pipeline = Pipeline {
        parsers,
        sent: 0,
        in_flight: VecDeque::new(),
        last: start.clone(),
        disagreed: false,
        first,
    };
    let mut buffer = Vec::new();
    // Where the text not yet sent starts in `buffer`.
    let mut unsent = 0;
    let mut scanner = Scanner::default();
    let mut ended = false;
    let mut lines_before = 0;
    // What the next piece is sent with, while the pieces before it agree.
    let mut guess = start;
    let fell_back = loop {
        let Some(Cut {
            end,
            declares,
            leftover,
        }) = cut(&mut scanner, &buffer[unsent..], ended)
        else {
            if scanner.lost || buffer.len() - unsent > MAX_PIECE {
                break true;
            }
            if ended {
                break false;
            }
            buffer.drain(..unsent);
            unsent = 0;
            let filled = buffer.len();
            buffer.resize(filled + READ, 0);
            let read = read_some(&mut input, &mut buffer[filled..]).map_err(ReadError::from)?;
            buffer.truncate(filled + read);
            ended = read == 0;
            continue;
        };
        let text = buffer[unsent..unsent + end].to_vec();
        unsent += end;
        scanner.cut_at(end);
        let piece = Piece {
            lines_before,
            before: {
                repeated_work(guess.declarations.0.len());
                guess.clone()
            },
            text: Arc::new(text),
            first: pipeline.first.clone(),
        };
        lines_before += line_breaks(&piece.text);
        let leftover = piece.text[leftover..].to_vec();
        let leftover_lines = line_breaks(&leftover);
        guess.leftover = (lines_before + 1 - leftover_lines, leftover);
        if !pipeline.send(piece, on_item)? {
            break true;
        }
        if declares || pipeline.first.is_none() {
            // The next piece needs the declarations this one makes, or those before the
            // input's first statement (for the IRI finder), which may be in this one.
            if !pipeline.drain(on_item)? {
                break true;
            }
            guess = pipeline.last.clone();
        }
    };
    if !pipeline.drain(on_item)? || fell_back {
        return pipeline.read_rest(lines_before, &buffer[unsent..], input, on_item);
    }
    Ok(())
}

/// Reads into `buffer`, again when interrupted.
fn read_some(input: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buffer) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// The pieces sent and not yet handed on, and what the last one handed on left.
struct Pipeline<D> {
    parsers: Vec<Parser<D>>,
    /// Pieces sent so far (piece `n` goes to parser `n % parsers.len()`).
    sent: usize,
    in_flight: VecDeque<Arc<Piece>>,
    last: Before,
    /// A piece disagreed: nothing more is handed on.
    disagreed: bool,
    /// The declarations before the input's first statement, once a piece with statements has
    /// been handed on.
    first: Option<Declarations>,
}

impl<D> Pipeline<D> {
    /// Sends a piece, first handing on the oldest when enough are in flight; false when a piece
    /// disagreed (the rest is to be read on one thread).
    fn send<E: From<ReadError>>(
        &mut self,
        piece: Piece,
        on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
    ) -> Result<bool, E> {
        let piece = Arc::new(piece);
        if self.in_flight.len() >= 2 * self.parsers.len() && !self.hand_on_oldest(on_item)? {
            // Not parsed, but read on one thread with the others.
            self.in_flight.push_back(piece);
            return Ok(false);
        }
        let parser = &self.parsers[self.sent % self.parsers.len()];
        parser
            .pieces
            .send(Arc::clone(&piece))
            .map_err(|_| stopped())?;
        self.sent += 1;
        self.in_flight.push_back(piece);
        Ok(true)
    }

    /// Hands on every piece in flight; false when one disagreed.
    fn drain<E: From<ReadError>>(
        &mut self,
        on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
    ) -> Result<bool, E> {
        while !self.in_flight.is_empty() {
            if !self.hand_on_oldest(on_item)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Hands the statements of the oldest piece in flight to `on_item`, if its parse agrees with
    /// the pieces before it; false (and the piece kept) if not, and for every later call.
    fn hand_on_oldest<E: From<ReadError>>(
        &mut self,
        on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
    ) -> Result<bool, E> {
        let Some(piece) = self.in_flight.front().filter(|_| !self.disagreed) else {
            return Ok(!self.disagreed);
        };
        let index = self.sent - self.in_flight.len();
        let parser = &self.parsers[index % self.parsers.len()];
        let parsed = parser.parsed.recv().map_err(|_| stopped())?;
        let Some((parsed, after)) = parsed.filter(|_| piece.before == self.last) else {
            self.disagreed = true;
            return Ok(false);
        };
        let ParsedPiece {
            statements,
            read,
            declarations,
        } = parsed;
        if self.first.is_none() && read > 0 {
            self.first.clone_from(&declarations);
        }
        let declarations = declarations.unwrap_or_default();
        match statements {
            PieceStatements::Done(done) => {
                let span = Span {
                    first_line: 0,
                    column: None,
                    text: b"",
                };
                on_item(Item::Piece(Box::new(done)), span, &|| declarations.clone())?;
            }
            PieceStatements::Read(mut statements) => statements.drain(|quad, span| {
                on_item(Item::Statement(quad), span, &|| declarations.clone())
            })?,
        }
        self.last = after;
        self.in_flight.pop_front();
        Ok(true)
    }

    /// Reads on one thread from the oldest piece in flight on (its text and the later ones'),
    /// or else from `buffer` (after `lines_before` lines), then the rest of `input`.
    fn read_rest<E: From<ReadError>>(
        self,
        lines_before: u64,
        buffer: &[u8],
        input: impl BufRead,
        on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
    ) -> Result<(), E> {
        let Self {
            parsers,
            in_flight,
            last,
            ..
        } = self;
        // The parsing threads stop once their pieces are done.
        drop(parsers);
        let lines_before = in_flight.front().map_or(lines_before, |p| p.lines_before);
        let mut unread: Vec<u8> = Vec::new();
        for piece in &in_flight {
            unread.extend_from_slice(&piece.text);
        }
        unread.extend_from_slice(buffer);
        let (prefixes, base) = &last.declarations;
        let Some(parser) = LineParser::declared(RdfFormat::Turtle, base.as_deref(), prefixes)?
        else {
            unreachable!("Turtle has a line parser")
        };
        let resume = Resume {
            lines_before,
            context: &last.leftover.1,
        };
        read_lines(unread.as_slice().chain(input), parser, resume, on_item).map(drop)
    }
}

fn stopped() -> ReadError {
    ReadError::Io(io::Error::other("a parsing thread stopped"))
}

/// The first place after [`PIECE`] bytes of `buffer` where a piece can end, scanning on
/// from where the last call stopped; at the end of the input, the rest of it.
fn cut(scanner: &mut Scanner, buffer: &[u8], ended: bool) -> Option<Cut> {
    #[cfg(feature = "fuzzing")]
    if let Some(size) = crate::fuzzing::piece_size() {
        // Smaller pieces, for the fuzz targets (`crate::fuzzing::with_piece_size`).
        return scanner.cut_after(buffer, ended, size, false);
    }
    scanner.cut_after(buffer, ended, PIECE, false)
}

#[cfg(test)]
mod tests {
    use crate::Registry;
    use crate::read::REPEATED_WORK;
    use crate::rewrite::{RdfFormat, Rewriter};

    /// Declarations on two threads: each piece is sent with those before it, and a piece is
    /// not cut after each declaration (which cost the square of their number).
    #[test]
    fn declarations_on_several_threads_cost_the_same_whatever_came_before() {
        let text: String = (0..20_000)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\n"))
            .chain(["p1:a p2:b p3:c .\n".to_owned()])
            .collect();
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::Turtle)
            .with_threads(2);
        REPEATED_WORK.with(|work| work.set(0));
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(text.as_bytes()).expect("rewrites");
        session.finish().expect("finishes");
        assert_eq!(out, b"<http://e/1/a> <http://e/2/b> <http://e/3/c> .\n");
        let work = REPEATED_WORK.with(std::cell::Cell::get);
        assert!(work <= 2 * text.len(), "{work} > {}", 2 * text.len());
    }
}
