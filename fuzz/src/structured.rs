//! Turtle documents made from the fuzzer's bytes, each byte a choice: directives in every form
//! (`@prefix`, `PREFIX`, `prefix`, `@base`, `BASE`), prefixed names with escapes and non-ASCII,
//! `[ … ]` nested, collections, the four string forms with escapes and line breaks, numbers,
//! booleans, `;` and `,` lists, comments between any two tokens, and LF, CRLF and lone CR line
//! ends. When the bytes run out every choice is the first, which ends the document.

/// The fuzzer's bytes, read as choices.
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, at: 0 }
    }

    /// A choice among `n` (0 once the bytes run out).
    pub fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        usize::from(byte) % n
    }

    /// One of `items`.
    pub fn one<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.pick(items.len())]
    }

    /// Whether the bytes have run out.
    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// A document: its statements (directives and triples), each as tokens that carry the space
/// after them.
pub struct Document {
    pub statements: Vec<Statement>,
}

pub struct Statement {
    pub tokens: Vec<String>,
    /// Triples (not a directive).
    pub triples: bool,
}

impl Statement {
    pub fn text(&self) -> String {
        self.tokens.concat()
    }
}

impl Document {
    pub fn text(&self) -> String {
        self.statements.iter().map(Statement::text).collect()
    }

    /// The document without statement `skip`.
    pub fn text_without(&self, skip: usize) -> String {
        let mut text = String::new();
        for (i, s) in self.statements.iter().enumerate() {
            if i != skip {
                text.push_str(&s.text());
            }
        }
        text
    }
}

const PREFIXES: [(&str, &str); 5] = [
    ("ex", "http://example.org/"),
    ("", "http://e/"),
    ("e.x", "http://x.example/a#"),
    ("fedora", "info:fedora/"),
    ("é", "http://é.example/"),
];

const LOCAL_NAMES: [&str; 18] = [
    "a", "b", "demo:1", "c.d", "b-c", "\\-x", "%41", "é", "1", "a:b", "a\\.b", "_x", "", "x\\~y",
    "demo%3A2", "日本", "a.b.c", "x·",
];

const IRIS: [&str; 12] = [
    "<http://example.org/s>",
    "<http://e/p>",
    "<info:fedora/demo:1>",
    "<info:fedora/demo%3a1>",
    "<hdl:10013/x>",
    "<http://hdl.handle.net/10013/X>",
    "<doi:10.1000/ABC>",
    "<rel>",
    "<#frag>",
    "<http://a/\\u0041>",
    "<http://é/ü>",
    "<>",
];

const STRING_PIECES: [&str; 20] = [
    "x",
    " ",
    "é",
    "\\n",
    "\\t",
    "\\\\",
    "\\\"",
    "\\'",
    "\\u00E9",
    "\\U0001F600",
    "#",
    ".",
    ";",
    "<",
    ">",
    "@",
    "info:fedora/demo:1",
    "\\r",
    "日",
    "a b",
];

/// What only a long string may hold: line breaks and lone quotes.
const LONG_PIECES: [&str; 6] = ["\n", "\r\n", "\r", "Q", "QQ", "\n\n"];

const NUMBERS: [&str; 10] = [
    "1",
    "-1",
    "+1.5",
    ".5",
    "1e5",
    "1.0E-3",
    "01",
    "0.0",
    "-.5e+2",
    "12345678901234567890",
];

/// Builds documents.
pub struct Writer<'c, 'a> {
    c: &'c mut Choices<'a>,
    /// The line end of the document (a token's space may use another).
    eol: &'static str,
    /// Whether the writer may write what is not Turtle (an undeclared prefix, say).
    strict: bool,
}

impl<'c, 'a> Writer<'c, 'a> {
    fn space(&mut self) -> String {
        match self.c.pick(12) {
            0..=4 => " ".to_owned(),
            5 => self.eol.to_owned(),
            6 => "\t".to_owned(),
            7 => format!(" # c{}", self.eol),
            8 => format!("# x . \"{}", self.c.one(&["\n", "\r\n", "\r"])),
            9 => self.c.one(&["\n", "\r\n", "\r"]).to_owned(),
            10 => format!("{}  ", self.eol),
            _ => " #\r\n".to_owned(),
        }
    }

    fn iri(&mut self) -> String {
        self.c.one(&IRIS).to_owned()
    }

    fn name(&mut self, declared: usize) -> String {
        let prefix = if !self.strict && self.c.pick(16) == 0 {
            "undeclared"
        } else {
            PREFIXES[self.c.pick(declared.max(1))].0
        };
        format!("{prefix}:{}", self.c.one(&LOCAL_NAMES))
    }

    fn string(&mut self) -> String {
        let quote = self.c.one(&["\"", "'", "\"\"\"", "'''"]);
        let long = quote.len() == 3;
        let mut text = String::new();
        for _ in 0..self.c.pick(5) {
            if long && self.c.pick(3) == 0 {
                let piece = self.c.one(&LONG_PIECES);
                text.push_str(&piece.replace('Q', &quote[..1]));
            } else {
                text.push_str(self.c.one(&STRING_PIECES));
            }
        }
        if long {
            // No closing quote inside, nor a quote just before the closing one.
            let triple = &quote[..1].repeat(3);
            while text.contains(triple.as_str()) {
                text = text.replace(triple.as_str(), &format!("{}x", &triple[..2]));
            }
            if text.ends_with(&quote[..1]) {
                text.push('x');
            }
        }
        if !long && !self.strict && self.c.pick(20) == 0 {
            text.push_str(self.c.one(&["\n", "\r", "\\q"]));
        }
        let suffix = match self.c.pick(5) {
            0 | 1 => String::new(),
            2 => format!(
                "@{}",
                self.c.one(&["en", "en-GB", "EN", "fr-ca-x-y", "en--ltr"])
            ),
            3 => format!("^^{}", self.iri()),
            _ => format!("^^{}", self.name(1)),
        };
        format!("{quote}{text}{quote}{suffix}")
    }

    fn subject(&mut self, out: &mut Vec<String>, declared: usize, depth: usize) {
        match self.c.pick(6) {
            0 | 1 => out.push(self.iri()),
            2 => out.push(self.name(declared)),
            3 => out.push(format!("_:{}", self.c.one(&["b", "b1", "b.c", "_x", "é"]))),
            4 if depth < 4 => {
                out.push("[".to_owned());
                let space = self.space();
                push_space(out, space);
                self.predicate_objects(out, declared, depth + 1);
                out.push("]".to_owned());
            }
            _ if depth < 4 => self.collection(out, declared, depth + 1),
            _ => out.push(self.iri()),
        }
        let space = self.space();
        push_space(out, space);
    }

    fn object(&mut self, out: &mut Vec<String>, declared: usize, depth: usize) {
        match self.c.pick(12) {
            0..=2 => out.push(self.string()),
            3 => out.push(self.c.one(&NUMBERS).to_owned()),
            4 => out.push(self.c.one(&["true", "false"]).to_owned()),
            5 if depth < 4 => {
                out.push("[".to_owned());
                let space = self.space();
                push_space(out, space);
                if self.c.pick(3) > 0 {
                    self.predicate_objects(out, declared, depth + 1);
                }
                out.push("]".to_owned());
                let space = self.space();
                push_space(out, space);
            }
            6 if depth < 4 => self.collection(out, declared, depth + 1),
            _ => return self.subject(out, declared, depth),
        }
        let space = self.space();
        push_space(out, space);
    }

    fn collection(&mut self, out: &mut Vec<String>, declared: usize, depth: usize) {
        out.push("(".to_owned());
        let space = self.space();
        push_space(out, space);
        for _ in 0..self.c.pick(4) {
            self.object(out, declared, depth);
        }
        out.push(")".to_owned());
    }

    fn predicate_objects(&mut self, out: &mut Vec<String>, declared: usize, depth: usize) {
        loop {
            match self.c.pick(4) {
                0 => out.push(self.name(declared)),
                1 => out.push("a".to_owned()),
                _ => out.push(self.iri()),
            }
            let space = self.space();
            push_space(out, space);
            loop {
                self.object(out, declared, depth);
                if self.c.pick(3) != 1 {
                    break;
                }
                out.push(",".to_owned());
                let space = self.space();
                push_space(out, space);
            }
            if self.c.pick(3) != 1 {
                break;
            }
            out.push(";".to_owned());
            let space = self.space();
            push_space(out, space);
            if self.c.pick(4) == 0 {
                // A `;` with nothing after it.
                break;
            }
        }
    }

    fn directive(&mut self, declared: usize) -> Vec<String> {
        let eol = self.eol;
        let (name, iri) = PREFIXES[self.c.pick(declared.max(1))];
        let iri = if self.c.pick(4) == 0 {
            "http://changed.example/"
        } else {
            iri
        };
        let base = self
            .c
            .one(&["http://base.example/", "sub/", "http://b2/x#"]);
        vec![match self.c.pick(6) {
            0 | 1 => format!("@prefix {name}: <{iri}> .{eol}"),
            2 => format!("PREFIX {name}: <{iri}>{eol}"),
            3 => format!("prefix {name}:<{iri}> # declared{eol}"),
            4 => format!("@base <{base}> .{eol}"),
            _ => format!("BASE <{base}>{eol}"),
        }]
    }

    fn triples(&mut self, declared: usize) -> Vec<String> {
        let mut out = Vec::new();
        self.subject(&mut out, declared, 0);
        if !out[0].starts_with('[') || self.c.pick(2) == 0 {
            self.predicate_objects(&mut out, declared, 0);
        }
        out.push(self.c.one(&[".", " .", "."]).to_owned());
        let end = match self.c.pick(4) {
            0 => format!(" # end{}", self.eol),
            _ => self.eol.to_owned(),
        };
        out.push(end);
        out
    }
}

/// Adds `space` to the last token.
fn push_space(out: &mut [String], space: String) {
    if let Some(last) = out.last_mut() {
        last.push_str(&space);
    }
}

/// A document made from `c`: declarations of (some of) the prefixes first, then directives
/// and statements; `strict`: Turtle only (but for what a redefined prefix or base makes of
/// later names), else now and then something that is not.
pub fn document(c: &mut Choices<'_>, strict: bool) -> Document {
    let eol = c.one(&["\n", "\r\n", "\r", "\n"]);
    let declared = 1 + c.pick(PREFIXES.len());
    let mut statements = Vec::new();
    for (name, iri) in &PREFIXES[..declared] {
        // `@PREFIX` is not Turtle (with `@`, the keyword is lower case).
        let form = c.pick(if strict { 2 } else { 3 });
        statements.push(Statement {
            tokens: vec![match form {
                0 => format!("@prefix {name}: <{iri}> .{eol}"),
                1 => format!("PREFIX {name}: <{iri}>{eol}"),
                _ => format!("@PREFIX {name}: <{iri}> .{eol}"),
            }],
            triples: false,
        });
    }
    let mut w = Writer { c, eol, strict };
    while !w.c.done() && statements.len() < 64 {
        let statement = if w.c.pick(8) == 0 {
            Statement {
                tokens: w.directive(declared),
                triples: false,
            }
        } else {
            Statement {
                tokens: w.triples(declared),
                triples: true,
            }
        };
        statements.push(statement);
    }
    Document { statements }
}
