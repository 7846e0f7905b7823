//! Turtle parsed on several threads: the input is read in large blocks, cut into pieces at
//! statement ends found by a light lexical scan ([`Scanner`]), and each piece is parsed on a
//! thread of its own by the same line reader as on one thread, knowing the prefixes and base
//! declared before it. The statements are handed on in input order, so the output is the same
//! as on one thread, byte for byte. To N-Triples or N-Quads without `--dedup`, a parsing thread
//! also writes its statements as lines ([`super::worker::WrittenLines`]), and only bytes travel
//! on (TTL→NT on two threads, `benches/compare.sh`: CPU time 1.57 → 1.33 of the pass-through's,
//! peak RSS 100 → 53 MB); otherwise the statements travel, and come back to be freed where
//! they were allocated ([`Home`]).
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

use super::reader::{Ended, Premap, Resume, read_lines};
use super::worker::{GraphBatch, GraphWorker, mark_made_up};
use super::{Declarations, Item, Span, repeated_work};
use crate::position::{is_line_end, line_breaks, line_start};
use crate::rewrite::RdfFormat;
use crate::rewrite::RewriteError;
use crate::rewrite::events::Found;
use crate::rewrite::line_parser::LineParser;
use crate::rewrite::threads::spawn_worker;
use oxrdf::Quad;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};

/// The size a piece is cut at (at the first statement end after it): a piece is a few thousand
/// statements, enough that handing it on costs little; larger pieces (1 MiB) only held more
/// statements in flight (TTL→NT on two threads: peak RSS 124–142 MB at 1 MiB, 89–115 MB at
/// 256 KiB, on 1 M statements).
const PIECE: usize = 1 << 18;
/// The most a piece may grow to before the rest of the input is read on one thread.
const MAX_PIECE: usize = 1 << 26;
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

impl From<RewriteError> for ReadAgain {
    fn from(_: RewriteError) -> Self {
        Self
    }
}

/// What a parsing thread gives back: the statements, and what the piece leaves for the next
/// one; `None` when the piece does not parse on its own.
type Parsed = Option<(GraphBatch, Before)>;

/// Parses one piece, stopping at its first syntax error; canonicalizes its statements as they
/// are parsed if given a worker, into `home`'s vector (they come back to it once written).
fn parse(piece: &Piece, mut worker: Option<&mut GraphWorker<'_>>, home: &mut Home) -> Parsed {
    let (prefixes, base) = &piece.before.declarations;
    let parser = LineParser::declared(RdfFormat::Turtle, base.as_deref(), prefixes).ok()??;
    let mut batch = match &worker {
        Some(worker) if worker.writes_lines() => GraphBatch::of_lines(piece.text.len() * 2),
        Some(_) => {
            let mut batch = GraphBatch::default();
            batch.quads = home.vector();
            batch.home = Some(home.sender.clone());
            batch
        }
        None => GraphBatch::with_capacity(piece.text.len()),
    };
    if let Some(worker) = worker.as_deref_mut() {
        worker.start_piece(piece.first.clone().unwrap_or_default());
    }
    let mut found = Found::default();
    let mut read = 0;
    let resume = Resume {
        lines_before: piece.lines_before,
        context: &piece.before.leftover.1,
    };
    let mut on_item = |item, span: Span<'_>, declarations: &dyn Fn() -> Declarations| match item {
        Item::Statement(quad) => {
            read += 1;
            if read == 1 {
                batch.declarations = Some(declarations());
            }
            let Some(worker) = worker.as_deref_mut() else {
                batch.push(quad, span);
                return Ok(());
            };
            if read == 1 && piece.first.is_none() {
                // The input's first statement: IRIs are found with the declarations before it.
                worker.declare(declarations());
            }
            let mut quad = quad;
            mark_made_up(&mut quad, span.text);
            let mapped = worker.map_statement(quad, span, &mut found);
            match (&mut batch.lines, mapped) {
                (Some(lines), Some(mut quad)) => {
                    worker.label_written(&mut quad);
                    lines.write(&quad);
                }
                (None, Some(quad)) => batch.quads.push(quad),
                (_, None) => {}
            }
            Ok(())
        }
        Item::Notice(_) | Item::Mapped(_) => Err(ReadAgain),
    };
    let Ended { parser, leftover } =
        read_lines(&piece.text[..], parser, resume, &mut on_item).ok()?;
    if let Some(worker) = worker {
        worker.end_piece(&mut batch, found, read);
        if batch.premapped.as_ref().is_some_and(|p| p.guessed) {
            // Where an IRI is depends on the piece before: read again in order.
            return None;
        }
    }
    let declarations = (parser.prefixes(), parser.base_iri());
    Some((
        batch,
        Before {
            declarations,
            leftover,
        },
    ))
}

/// Where the statements a parsing thread canonicalized come back once written: they are freed
/// on the thread that allocated them (freeing them on the writing thread kept the allocator's
/// pages of both threads from being reused).
struct Home {
    sender: Sender<Vec<Quad>>,
    returned: Receiver<Vec<Quad>>,
}

impl Home {
    fn new() -> Self {
        let (sender, returned) = mpsc::channel();
        Self { sender, returned }
    }

    /// A vector for the next piece's statements: the last one back, emptied here.
    fn vector(&mut self) -> Vec<Quad> {
        let mut vector = Vec::new();
        for mut back in self.returned.try_iter() {
            back.clear();
            vector = back;
        }
        vector
    }
}

/// A parsing thread's two ends.
struct Parser {
    pieces: SyncSender<Arc<Piece>>,
    parsed: Receiver<Parsed>,
}

/// Reads a Turtle document on `threads` threads, handing its items to `on_item` in order (as
/// [`read_lines`] does on one).
pub(crate) fn read(
    mut input: impl BufRead,
    parser: LineParser,
    threads: usize,
    premap: Option<Premap<'_>>,
    on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
) -> Result<(), RewriteError> {
    let first = premap.as_ref().and_then(|p| p.declared.clone());
    let start = Before {
        declarations: (parser.prefixes(), parser.base_iri()),
        leftover: (0, Vec::new()),
    };
    std::thread::scope(|scope| {
        let mut parsers = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..threads {
            let (pieces, to_parse) = mpsc::sync_channel::<Arc<Piece>>(2);
            let (to_session, parsed) = mpsc::sync_channel::<Parsed>(2);
            let premap = premap.clone();
            let handle = spawn_worker(scope, move || {
                let mut worker = premap.map(|p| GraphWorker::new(p.rewriter, p.needs, p.input));
                let mut home = Home::new();
                for piece in to_parse {
                    if to_session
                        .send(parse(&piece, worker.as_mut(), &mut home))
                        .is_err()
                    {
                        break;
                    }
                }
            })?;
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
fn read_pieces(
    parsers: Vec<Parser>,
    start: Before,
    first: Option<Declarations>,
    mut input: impl BufRead,
    on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
) -> Result<(), RewriteError> {
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
        }) = scanner.cut(&buffer[unsent..], ended)
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
            let read = read_some(&mut input, &mut buffer[filled..])?;
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
struct Pipeline {
    parsers: Vec<Parser>,
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

impl Pipeline {
    /// Sends a piece, first handing on the oldest when enough are in flight; false when a piece
    /// disagreed (the rest is to be read on one thread).
    fn send(
        &mut self,
        piece: Piece,
        on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<bool, RewriteError> {
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
    fn drain(
        &mut self,
        on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<bool, RewriteError> {
        while !self.in_flight.is_empty() {
            if !self.hand_on_oldest(on_item)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Hands the statements of the oldest piece in flight to `on_item`, if its parse agrees with
    /// the pieces before it; false (and the piece kept) if not, and for every later call.
    fn hand_on_oldest(
        &mut self,
        on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<bool, RewriteError> {
        let Some(piece) = self.in_flight.front().filter(|_| !self.disagreed) else {
            return Ok(!self.disagreed);
        };
        let index = self.sent - self.in_flight.len();
        let parser = &self.parsers[index % self.parsers.len()];
        let parsed = parser.parsed.recv().map_err(|_| stopped())?;
        let Some((mut batch, after)) = parsed.filter(|_| piece.before == self.last) else {
            self.disagreed = true;
            return Ok(false);
        };
        let statements = batch
            .premapped
            .as_ref()
            .map_or(!batch.quads.is_empty(), |p| p.read > 0);
        if self.first.is_none() && statements {
            self.first.clone_from(&batch.declarations);
        }
        if batch.premapped.is_some() {
            let declarations = batch.declarations.clone().unwrap_or_default();
            let span = Span {
                first_line: 0,
                column: None,
                text: b"",
            };
            on_item(Item::Mapped(Box::new(batch)), span, &|| {
                declarations.clone()
            })?;
            self.last = after;
            self.in_flight.pop_front();
            return Ok(true);
        }
        let declarations = batch.declarations.take().unwrap_or_default();
        batch.drain(|quad, span| on_item(Item::Statement(quad), span, &|| declarations.clone()))?;
        self.last = after;
        self.in_flight.pop_front();
        Ok(true)
    }

    /// Reads on one thread from the oldest piece in flight on (its text and the later ones'),
    /// or else from `buffer` (after `lines_before` lines), then the rest of `input`.
    fn read_rest(
        self,
        lines_before: u64,
        buffer: &[u8],
        input: impl BufRead,
        on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
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

fn stopped() -> RewriteError {
    RewriteError::Io(io::Error::other("a parsing thread stopped"))
}

/// Where a piece can end: after the line break that follows a statement's final `.`.
struct Cut {
    end: usize,
    /// Where the lines since the last statement start: at the line of its final `.`.
    leftover: usize,
    /// Whether the piece holds something that looks like a prefix or base declaration.
    declares: bool,
}

/// The bytes the scan stops at within a statement: line breaks (where a piece may end), and
/// what starts or ends a comment, an IRI, a string, an escape, brackets or a statement.
static SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    let mut i = 0;
    let bytes = b"\n#<>\"'\\[](){}.";
    while i < bytes.len() {
        special[bytes[i] as usize] = true;
        i += 1;
    }
    special
};

/// The lexical state of the scan.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum State {
    /// Between tokens, or in a token without quotes or brackets.
    #[default]
    Code,
    /// After a statement's final `.`: spaces, a comment and a line break may follow.
    AfterDot,
    /// In a comment after a statement's final `.`.
    AfterDotComment,
    Comment,
    Iri,
    /// In a string quoted by the byte; `long` for `"""` / `'''`.
    String {
        quote: u8,
        long: bool,
    },
}

/// Finds where statements end in Turtle text, following strings, IRIs, comments, escapes and
/// brackets; and whether a statement looks like a declaration (`@prefix`, `@base`, `PREFIX`,
/// `BASE`). It loses track (and finds no more ends) where the text cannot be Turtle.
struct Scanner {
    state: State,
    /// How far the buffer has been scanned.
    at: usize,
    depth: usize,
    /// At the start of a statement (only spaces and comments since the last one).
    statement_start: bool,
    /// Something like a declaration was seen since the last cut.
    declares: bool,
    /// The start of the line of the last statement's final `.`.
    dot_line: usize,
    /// The text cannot be Turtle here: no more cuts.
    lost: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Self {
            state: State::Code,
            at: 0,
            depth: 0,
            statement_start: true,
            declares: false,
            dot_line: 0,
            lost: false,
        }
    }
}

impl Scanner {
    /// The first place after [`PIECE`] bytes of `buffer` where a piece can end, scanning on
    /// from where the last call stopped; at the end of the input, the rest of it.
    fn cut(&mut self, buffer: &[u8], ended: bool) -> Option<Cut> {
        #[cfg(feature = "fuzzing")]
        if let Some(size) = crate::fuzzing::piece_size() {
            // Smaller pieces, for the fuzz targets (`crate::fuzzing::with_piece_size`).
            return self.cut_after(buffer, ended, size, false);
        }
        self.cut_after(buffer, ended, PIECE, false)
    }

    /// As [`Scanner::cut`], with pieces of at least `min` bytes; `whole_lines` when `buffer`
    /// ends with a whole line (a `\r` at its end is a line break of its own, not the start of
    /// a `\r\n`).
    fn cut_after(
        &mut self,
        buffer: &[u8],
        ended: bool,
        min: usize,
        whole_lines: bool,
    ) -> Option<Cut> {
        if self.at == 0 && buffer.is_empty() {
            return None;
        }
        if self.lost {
            return None;
        }
        while self.at < buffer.len() {
            let Some(step) = self.step(buffer, ended) else {
                // Needs more input to decide.
                break;
            };
            self.at += step;
            if self.lost {
                return None;
            }
            // A piece ends at a line break, never between the `\r` and the `\n` of a `\r\n`.
            let line_end = match buffer[self.at - 1] {
                b'\n' => true,
                b'\r' => buffer
                    .get(self.at)
                    .map_or(whole_lines || ended, |&next| next != b'\n'),
                _ => false,
            };
            if self.state == State::Code
                && self.depth == 0
                && line_end
                && self.statement_start
                && self.at >= min
            {
                return Some(Cut {
                    end: self.at,
                    declares: std::mem::take(&mut self.declares),
                    leftover: self.dot_line,
                });
            }
        }
        (ended && !buffer.is_empty() && self.at >= buffer.len()).then_some(Cut {
            end: buffer.len(),
            declares: false,
            leftover: self.dot_line,
        })
    }

    /// The buffer lost its first `end` bytes (a piece cut there).
    fn cut_at(&mut self, end: usize) {
        self.at -= end;
        self.dot_line = self.dot_line.saturating_sub(end);
    }

    /// Scans the token at `self.at`; gives how many bytes it took, or `None` when more input
    /// is needed to tell.
    fn step(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        // At the end of the input, a token may look past it (a `\` that ends a string, whose
        // escaped byte would be there): the step ends with the input.
        let left = buffer.len() - self.at;
        self.token(buffer, ended).map(|step| step.min(left))
    }

    /// [`Scanner::step`], the step maybe past the end of an ended input.
    fn token(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        let rest = &buffer[self.at..];
        let byte = rest[0];
        let peek = |n: usize| peek(rest, n, ended);
        match self.state {
            State::Comment | State::AfterDotComment => {
                if is_line_end(byte) {
                    self.state = if self.state == State::Comment {
                        State::Code
                    } else {
                        self.statement_start = true;
                        State::Code
                    };
                    return Some(1);
                }
                Some(memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len()))
            }
            State::Iri => match memchr::memchr3(b'>', b'\n', b'"', rest) {
                // (A `\r` in an IRI is refused by `oxttl`, which then has the last word.)
                Some(at) if rest[at] == b'>' => {
                    self.state = State::Code;
                    self.statement_start = false;
                    Some(at + 1)
                }
                Some(_) => {
                    self.lost = true;
                    Some(1)
                }
                None => Some(rest.len()),
            },
            State::String { quote, long } => {
                let Some(at) = memchr::memchr3(quote, b'\\', b'\n', rest) else {
                    if !long && memchr::memchr(b'\r', rest).is_some() {
                        self.lost = true;
                        return Some(1);
                    }
                    return Some(rest.len());
                };
                if !long && memchr::memchr(b'\r', &rest[..at]).is_some() {
                    // A line break in a short string: not Turtle.
                    self.lost = true;
                    return Some(1);
                }
                match rest[at] {
                    b'\\' => {
                        peek(at + 1)?;
                        Some(at + 2)
                    }
                    b'\n' if !long => {
                        self.lost = true;
                        Some(1)
                    }
                    b'\n' => Some(at + 1),
                    _ if !long => {
                        self.state = State::Code;
                        Some(at + 1)
                    }
                    _ => {
                        let closes = (1..3).all(|n| peek(at + n) == Some(quote));
                        if (1..3).any(|n| peek(at + n).is_none()) {
                            return if at > 0 { Some(at) } else { None };
                        }
                        if closes {
                            self.state = State::Code;
                            Some(at + 3)
                        } else {
                            Some(at + 1)
                        }
                    }
                }
            }
            State::AfterDot => match byte {
                b' ' | b'\t' => Some(1),
                b'\r' | b'\n' => {
                    self.state = State::Code;
                    self.statement_start = true;
                    Some(1)
                }
                b'#' => {
                    self.state = State::AfterDotComment;
                    Some(1)
                }
                _ => {
                    self.state = State::Code;
                    self.statement_start = true;
                    self.code(buffer, ended)
                }
            },
            State::Code => self.code(buffer, ended),
        }
    }

    /// A step in [`State::Code`].
    fn code(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        let rest = &buffer[self.at..];
        if !self.statement_start {
            // Within a statement, a run of plain bytes (names, numbers, spaces) at once.
            let plain = rest
                .iter()
                .take_while(|&&b| !SPECIAL[usize::from(b)])
                .count();
            if plain > 0 {
                return Some(plain);
            }
        }
        let byte = rest[0];
        let peek = |n: usize| peek(rest, n, ended);
        if byte.is_ascii_whitespace() {
            return Some(1);
        }
        if byte == b'#' {
            self.state = State::Comment;
            return Some(1);
        }
        if std::mem::take(&mut self.statement_start) && self.depth == 0 {
            let word: Vec<u8> = (0..6).map_while(&peek).collect();
            if word.len() < 6 && !ended && rest.len() < 6 {
                self.statement_start = true;
                return None;
            }
            let lower = word.to_ascii_lowercase();
            let keyword = |k: &[u8]| {
                lower.starts_with(k) && lower.get(k.len()).is_none_or(u8::is_ascii_whitespace)
            };
            if byte == b'@' || keyword(b"prefix") || keyword(b"base") {
                self.declares = true;
            }
        }
        match byte {
            b'<' => match peek(1)? {
                b'<' => {
                    self.depth += 1;
                    Some(2)
                }
                _ => {
                    self.state = State::Iri;
                    Some(1)
                }
            },
            b'>' => {
                // Only `>>` ends a quoted triple here: IRIs take their own `>`.
                if peek(1)? != b'>' || self.depth == 0 {
                    self.lost = true;
                    return Some(1);
                }
                self.depth -= 1;
                Some(2)
            }
            b'"' | b'\'' => {
                let long = peek(1)? == byte && peek(2)? == byte;
                self.state = State::String { quote: byte, long };
                Some(if long { 3 } else { 1 })
            }
            b'\\' => {
                peek(1)?;
                Some(2)
            }
            b'[' | b'(' | b'{' => {
                self.depth += 1;
                Some(1)
            }
            b']' | b')' | b'}' => {
                if self.depth == 0 {
                    self.lost = true;
                } else {
                    self.depth -= 1;
                }
                Some(1)
            }
            b'.' if self.depth == 0 => {
                let next = peek(1)?;
                if next.is_ascii_whitespace() || next == b'#' {
                    self.state = State::AfterDot;
                    self.dot_line = line_start(buffer, self.at);
                }
                Some(1)
            }
            _ => Some(1),
        }
    }
}

/// Follows Turtle text fed line by line from a statement boundary, and tells when it is at
/// one again (as far as the light scan can tell: `oxttl` has the last word on the statements).
#[derive(Default)]
pub(crate) struct Boundaries {
    scanner: Scanner,
    /// The text since the last boundary.
    text: Vec<u8>,
}

impl Boundaries {
    /// Feeds a line: `Some(true)` when the text fed so far ends at a statement boundary,
    /// `None` when the scan lost track (or a statement grew past [`MAX_PIECE`]).
    pub(crate) fn line(&mut self, line: &[u8]) -> Option<bool> {
        self.text.extend_from_slice(line);
        while let Some(cut) = self.scanner.cut_after(&self.text, false, 0, true) {
            self.text.drain(..cut.end);
            self.scanner.cut_at(cut.end);
            if self.text.is_empty() {
                return Some(true);
            }
        }
        (!self.scanner.lost && self.text.len() <= MAX_PIECE).then_some(false)
    }

    /// Whether the text fed so far ends inside a long string that `line` cannot close (it
    /// holds neither the quote nor a backslash): no statement ends in `line`.
    pub(crate) fn stays_in_long_string(&self, line: &[u8]) -> bool {
        match self.scanner.state {
            State::String { quote, long: true } => {
                !self.scanner.lost
                    && self.scanner.at == self.text.len()
                    && memchr::memchr2(quote, b'\\', line).is_none()
            }
            _ => false,
        }
    }
}

/// Finds where statements end in Turtle text fed line by line from a statement boundary, so
/// that a statement's triples can be held until it ends (and dropped whole when it turns out
/// bad).
#[derive(Default)]
pub(crate) struct StatementEnds {
    scanner: Scanner,
    /// The text since the last statement end.
    text: Vec<u8>,
}

impl StatementEnds {
    /// Feeds a line: the offsets in it just after each statement's final `.` and the byte after
    /// it; `None` when the scan lost track (from then on it tells nothing).
    pub(crate) fn line(&mut self, line: &[u8]) -> Option<Vec<usize>> {
        if self.scanner.lost {
            return None;
        }
        let offset = self.text.len();
        self.text.extend_from_slice(line);
        let mut ends = Vec::new();
        while self.scanner.at < self.text.len() {
            let was_after_dot = self.scanner.state == State::AfterDot;
            let Some(step) = self.scanner.step(&self.text, false) else {
                break;
            };
            self.scanner.at += step;
            if self.scanner.lost {
                return None;
            }
            if !was_after_dot && self.scanner.state == State::AfterDot && self.scanner.depth == 0 {
                // The `.` and the byte after it (read to tell the `.` from a name's or a
                // number's); at the line's start if that byte ended the line before.
                ends.push((self.scanner.at + 1).saturating_sub(offset));
            }
        }
        if let Some(&last) = ends.last() {
            // A `.` in an earlier line, found once this one came (the scan waited for more
            // text after it): the end is told at this line's start, and the text is dropped
            // only as far as it was scanned.
            let end = (offset + last).min(self.scanner.at);
            self.text.drain(..end);
            self.scanner.cut_at(end);
        }
        Some(ends)
    }
}

/// Whether `line` holds the end of exactly one statement and nothing after it but spaces and a
/// comment, as far as the light scan can tell from the line alone (false where it cannot tell:
/// a line that starts within a long string, say).
///
/// ```text
/// "  ex:d .  # done\n"        true
/// "ex:a ex:p ex:b . ex:c ex:p" false (a statement starts after the end)
/// "ex:a ex:p ex:b ;"          false (no end)
/// ```
pub(crate) fn ends_one_statement(line: &[u8]) -> bool {
    let mut scanner = Scanner::default();
    let mut ends = 0;
    while scanner.at < line.len() {
        let was_after_dot = scanner.state == State::AfterDot;
        let Some(step) = scanner.step(line, true) else {
            return false;
        };
        scanner.at += step;
        if scanner.lost {
            return false;
        }
        ends += usize::from(!was_after_dot && scanner.state == State::AfterDot);
    }
    ends == 1 && scanner.depth == 0 && scanner.statement_start
        || ends == 1 && matches!(scanner.state, State::AfterDot | State::AfterDotComment)
}

/// The byte `n` of `rest`: `None` when it is not read yet; at the end of the input, a space.
fn peek(rest: &[u8], n: usize, ended: bool) -> Option<u8> {
    match rest.get(n) {
        Some(&b) => Some(b),
        None if ended => Some(b' '),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::ends_one_statement;
    use crate::Registry;
    use crate::rewrite::graph::REPEATED_WORK;
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

    #[test]
    fn a_line_ends_one_statement_when_only_spaces_and_a_comment_follow_its_end() {
        for line in [
            "  ex:d .\n",
            "  ex:d .  # done\n",
            "ex:a ex:p ex:b .",
            "ex:a ex:p \"x . y\" .\n",
        ] {
            assert!(ends_one_statement(line.as_bytes()), "{line:?}");
        }
        for line in [
            "ex:a ex:p ex:b . ex:c ex:p\n",
            "ex:a ex:p ex:b ;\n",
            "ex:a ex:p ex:b . ex:c ex:p ex:d .\n",
            "lines\"\"\" .\n",
            "ex:a ex:p ex:b . \"\"\"open\n",
            "}\n",
            "\n",
        ] {
            assert!(!ends_one_statement(line.as_bytes()), "{line:?}");
        }
    }
}
