//! The recursive-descent parser: tokens to a [`Kernel`] and its [`SourceMap`].
//!
//! The grammar is line oriented (see the crate's `README.md`), so after a
//! syntax error the parser skips to the next line and keeps going: one run
//! reports every bad line. It checks syntax only (and resolves names, which
//! needs no semantics); everything else is the verifier's job.

use std::collections::HashMap;

use super::lexer::{Lexer, Tok, Token};
use super::span::{LineIndex, SourceMap, Span};
use super::suggest::closest_name;
use super::{ParseError, ParseErrors};
use crate::builder::UNBOUND;
use crate::entities::{Label, Param, Reg, RegClass};
use crate::inst::{Address, Guard, Inst, InstData, Operand, RegList, Special};
use crate::kernel::{Kernel, LabelData, ParamData, ParamType, RegCounts};
use crate::opcode::{Format, Opcode};

/// After this many errors the parser stops (the rest is usually noise).
const MAX_ERRORS: usize = 50;

type PResult<T> = Result<T, ParseError>;

/// A label while parsing: placed when its definition is seen.
struct PLabel {
    name: String,
    pos: Option<u32>,
    def_seq: Option<usize>,
    span: Span,
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token<'a>>,
    pos: usize,
    prev_end: usize,
    lines: LineIndex,
    errors: Vec<ParseError>,
    name: String,
    params: Vec<ParamData>,
    regs: Option<RegCounts>,
    shared: Option<u32>,
    insts: Vec<Inst>,
    labels: Vec<PLabel>,
    label_index: HashMap<&'a str, usize>,
    param_index: HashMap<&'a str, usize>,
    defs_seen: usize,
    map: SourceMap,
}

fn register(text: &str) -> Option<Reg> {
    let class = match text.as_bytes().first()? {
        b'r' => RegClass::B32,
        b'd' => RegClass::B64,
        b'p' => RegClass::Pred,
        _ => return None,
    };
    let digits = &text[1..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Too many digits for u32 means out of range too.
    let index = digits.parse::<u32>().unwrap_or(u32::MAX);
    (index <= Reg::MAX_INDEX).then(|| Reg::with_number(class, index))
}

fn looks_like_register(text: &str) -> bool {
    text.len() > 1
        && matches!(text.as_bytes()[0], b'r' | b'd' | b'p')
        && text[1..].bytes().all(|b| b.is_ascii_digit())
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            tokens: Lexer::tokenize(src),
            pos: 0,
            prev_end: 0,
            lines: LineIndex::new(src),
            errors: Vec::new(),
            name: String::new(),
            params: Vec::new(),
            regs: None,
            shared: None,
            insts: Vec::new(),
            labels: Vec::new(),
            label_index: HashMap::new(),
            param_index: HashMap::new(),
            defs_seen: 0,
            map: SourceMap::default(),
        }
    }

    fn peek(&self) -> Token<'a> {
        self.tokens[self.pos]
    }

    fn peek_at(&self, ahead: usize) -> Token<'a> {
        self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> Token<'a> {
        let token = self.peek();
        if token.tok != Tok::Eof {
            self.pos += 1;
            self.prev_end = token.span.end;
        }
        token
    }

    fn error(&self, span: Span, message: impl Into<String>) -> ParseError {
        let (line, col) = self.lines.line_col(self.src, span.start);
        ParseError {
            message: message.into(),
            span,
            line,
            col,
            help: None,
        }
    }

    /// An error at the next token: "expected X, found Y".
    fn expected(&self, what: &str) -> ParseError {
        let token = self.peek();
        match token.tok {
            Tok::Error(why) => self.error(token.span, why),
            tok => self.error(
                token.span,
                format!("expected {what}, found {}", tok.describe()),
            ),
        }
    }

    fn expect(&mut self, tok: Tok<'_>, what: &str) -> PResult<Span> {
        if self.peek().tok == tok {
            Ok(self.advance().span)
        } else {
            Err(self.expected(what))
        }
    }

    fn report(&mut self, error: ParseError) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(error);
        }
    }

    fn skip_line(&mut self) {
        while !matches!(self.peek().tok, Tok::Newline | Tok::Eof) {
            self.advance();
        }
        self.advance();
    }

    fn end_of_line(&mut self) -> PResult<()> {
        match self.peek().tok {
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => Err(self.expected("end of line")),
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek().tok == Tok::Newline {
            self.advance();
        }
    }

    /// Parses the whole input.
    pub(crate) fn parse(mut self) -> Result<(Kernel, SourceMap), ParseErrors> {
        self.skip_newlines();
        if let Err(e) = self.header() {
            let at_eof = self.peek().tok == Tok::Eof;
            self.report(e);
            if at_eof {
                return Err(ParseErrors(self.errors));
            }
            self.skip_line();
        }
        loop {
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
            match self.peek().tok {
                Tok::Newline => {
                    self.advance();
                }
                Tok::RBrace => {
                    self.advance();
                    self.trailing();
                    break;
                }
                Tok::Eof => {
                    let e = self.error(
                        self.peek().span,
                        "unexpected end of file: the kernel has no closing `}`",
                    );
                    self.report(e);
                    break;
                }
                _ => {
                    if let Err(e) = self.line() {
                        self.report(e);
                        self.skip_line();
                    }
                }
            }
        }
        if self.errors.is_empty() {
            Ok(self.finish())
        } else {
            Err(ParseErrors(self.errors))
        }
    }

    fn header(&mut self) -> PResult<()> {
        let start = self.peek().span;
        if self.peek().tok != Tok::Ident("kernel") {
            return Err(self.expected("`kernel NAME {`"));
        }
        self.advance();
        let (name, span) = self.name("kernel")?;
        self.name = name.to_string();
        self.map.header = start.to(span);
        self.expect(Tok::LBrace, "`{`")?;
        self.end_of_line()
    }

    fn trailing(&mut self) {
        if let Err(e) = self.end_of_line() {
            self.report(e);
            return;
        }
        self.skip_newlines();
        if self.peek().tok != Tok::Eof {
            let e = self.error(
                self.peek().span,
                format!(
                    "unexpected {} after the kernel (one kernel per file)",
                    self.peek().tok.describe()
                ),
            );
            self.report(e);
        }
    }

    fn name(&mut self, what: &str) -> PResult<(&'a str, Span)> {
        match self.peek().tok {
            Tok::Ident(name) if !name.contains('.') => Ok((name, self.advance().span)),
            Tok::Ident(name) => Err(self.error(
                self.peek().span,
                format!("`{name}` is not a valid {what} name (use letters, digits and `_`)"),
            )),
            _ => Err(self.expected(&format!("a {what} name"))),
        }
    }

    fn line(&mut self) -> PResult<()> {
        let token = self.peek();
        match token.tok {
            Tok::Ident(_) if self.peek_at(1).tok == Tok::Colon => self.label_def()?,
            Tok::Ident(kw @ ("param" | "regs" | "shared")) => {
                if !self.insts.is_empty() || !self.labels.is_empty() {
                    return Err(self.error(
                        token.span,
                        format!("`{kw}` must come before the first instruction or label"),
                    ));
                }
                match kw {
                    "param" => self.param_decl()?,
                    "regs" => self.regs_decl()?,
                    _ => self.shared_decl()?,
                }
            }
            Tok::At | Tok::Ident(_) => self.inst()?,
            _ => return Err(self.expected("an instruction, label or declaration")),
        }
        self.end_of_line()
    }

    fn param_decl(&mut self) -> PResult<()> {
        let start = self.advance().span;
        let (name, _) = self.name("parameter")?;
        self.expect(Tok::Colon, "`:`")?;
        let ty = match self.peek().tok {
            Tok::Ident("u32") => ParamType::U32,
            Tok::Ident("u64") => ParamType::U64,
            _ => return Err(self.expected("a parameter type (`u32` or `u64`)")),
        };
        let end = self.advance().span;
        if self.params.len() >= usize::from(u16::MAX) {
            return Err(self.error(start, "too many parameters"));
        }
        // Uses resolve to the first declaration; the verifier reports a second.
        self.param_index.entry(name).or_insert(self.params.len());
        self.params.push(ParamData {
            name: name.to_string(),
            ty,
        });
        self.map.params.push(start.to(end));
        Ok(())
    }

    fn regs_decl(&mut self) -> PResult<()> {
        let start = self.advance().span;
        if self.regs.is_some() {
            return Err(self.error(start, "duplicate `regs` declaration"));
        }
        let mut counts = RegCounts::default();
        let mut seen = [false; 3];
        let mut span = start;
        while let Tok::Ident(text) = self.peek().tok {
            let (slot, class) = match text.as_bytes()[0] {
                b'r' => (&mut counts.b32, 0),
                b'd' => (&mut counts.b64, 1),
                b'p' => (&mut counts.pred, 2),
                _ => return Err(self.expected("a register count such as `r8`, `d2` or `p1`")),
            };
            let digits = &text[1..];
            let count = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u32>().ok())
                .flatten();
            let Some(count) = count else {
                return Err(self.expected("a register count such as `r8`, `d2` or `p1`"));
            };
            if std::mem::replace(&mut seen[class], true) {
                return Err(self.error(self.peek().span, format!("`{text}`: count given twice")));
            }
            *slot = count;
            span = span.to(self.advance().span);
        }
        self.regs = Some(counts);
        self.map.regs = span;
        Ok(())
    }

    fn shared_decl(&mut self) -> PResult<()> {
        let start = self.advance().span;
        if self.shared.is_some() {
            return Err(self.error(start, "duplicate `shared` declaration"));
        }
        let bytes = self.u32_literal("a size in bytes")?;
        self.shared = Some(bytes);
        self.map.shared = start.to(Span::new(start.start, self.prev_end));
        Ok(())
    }

    fn u32_literal(&mut self, what: &str) -> PResult<u32> {
        match self.peek().tok {
            Tok::Int(n) => match u32::try_from(n) {
                Ok(n) => {
                    self.advance();
                    Ok(n)
                }
                Err(_) => Err(self.error(self.peek().span, format!("`{n}` does not fit 32 bits"))),
            },
            _ => Err(self.expected(what)),
        }
    }

    fn label_def(&mut self) -> PResult<()> {
        let (name, span) = self.name("label")?;
        self.advance(); // the `:`
        let pos = self.insts.len() as u32;
        let seq = self.defs_seen;
        self.defs_seen += 1;
        match self.label_index.get(name).copied() {
            Some(i) if self.labels[i].pos.is_none() => {
                let label = &mut self.labels[i];
                (label.pos, label.def_seq, label.span) = (Some(pos), Some(seq), span);
            }
            // A second definition: keep it as its own label for the verifier
            // to report; uses keep resolving to the first.
            found => {
                let label = PLabel {
                    name: name.to_string(),
                    pos: Some(pos),
                    def_seq: Some(seq),
                    span,
                };
                self.labels.push(label);
                if found.is_none() {
                    self.label_index.insert(name, self.labels.len() - 1);
                }
            }
        }
        Ok(())
    }

    fn label_use(&mut self) -> PResult<Label> {
        let (name, span) = self.name("label")?;
        let index = match self.label_index.get(name) {
            Some(&i) => i,
            None => {
                let label = PLabel {
                    name: name.to_string(),
                    pos: None,
                    def_seq: None,
                    span,
                };
                self.labels.push(label);
                self.label_index.insert(name, self.labels.len() - 1);
                self.labels.len() - 1
            }
        };
        Ok(Label::with_number(index as u32))
    }

    fn reg(&mut self) -> PResult<Reg> {
        let token = self.peek();
        match token.tok {
            Tok::Ident(text) => match register(text) {
                Some(reg) => {
                    self.advance();
                    Ok(reg)
                }
                None if looks_like_register(text) => {
                    Err(self.error(token.span, format!("register number of `{text}` too large")))
                }
                None => Err(self.expected("a register")),
            },
            _ => Err(self.expected("a register")),
        }
    }

    fn comma(&mut self) -> PResult<()> {
        self.expect(Tok::Comma, "`,`").map(|_| ())
    }

    /// A signed literal: `N` (any 64-bit pattern) or `-N` (N <= 2^63).
    fn signed_literal(&mut self, what: &str) -> PResult<(i64, Span)> {
        let start = self.peek().span;
        let negative = self.peek().tok == Tok::Minus;
        if negative {
            self.advance();
        }
        let Tok::Int(n) = self.peek().tok else {
            return Err(self.expected(what));
        };
        let span = start.to(self.advance().span);
        if !negative {
            return Ok((n as i64, span));
        }
        match 0i64.checked_sub_unsigned(n) {
            Some(v) => Ok((v, span)),
            None => Err(self.error(span, format!("`-{n}` is below -2^63"))),
        }
    }

    fn operand(&mut self) -> PResult<Operand> {
        let token = self.peek();
        match token.tok {
            Tok::Ident(_) => self.reg().map(Operand::Reg),
            Tok::Int(_) | Tok::Minus => Ok(Operand::Imm(self.signed_literal("a number")?.0)),
            Tok::Special(name) => {
                let full = format!("%{name}");
                match Special::from_name(&full) {
                    Some(s) => {
                        self.advance();
                        Ok(Operand::Special(s))
                    }
                    None => {
                        let mut e =
                            self.error(token.span, format!("unknown special value `{full}`"));
                        let names = Special::ALL.iter().map(|s| s.name());
                        e.help = closest_name(&full, names).map(|n| format!("did you mean `{n}`?"));
                        Err(e)
                    }
                }
            }
            Tok::Param(name) => match self.param_index.get(name).copied() {
                Some(i) => {
                    self.advance();
                    Ok(Operand::Param(Param::with_number(i as u16)))
                }
                None => Err(self.error(token.span, format!("undefined parameter `${name}`"))),
            },
            _ => Err(self.expected("an operand (register, number, `%special` or `$param`)")),
        }
    }

    fn address(&mut self) -> PResult<Address> {
        self.expect(Tok::LBracket, "an address `[...]`")?;
        let (base, sign) = match self.peek().tok {
            Tok::Ident(_) => {
                let base = self.reg()?;
                match self.peek().tok {
                    Tok::Plus => (Some(base), Some(false)),
                    Tok::Minus => (Some(base), Some(true)),
                    _ => (Some(base), None),
                }
            }
            _ => (None, None),
        };
        let offset = match (base, sign) {
            (Some(_), None) => 0,
            (Some(_), Some(negative)) => {
                self.advance();
                let Tok::Int(n) = self.peek().tok else {
                    return Err(self.expected("an offset"));
                };
                let span = self.advance().span;
                let value = if negative {
                    -i128::from(n)
                } else {
                    i128::from(n)
                };
                i32::try_from(value)
                    .map_err(|_| self.error(span, "offset does not fit 32 bits (signed)"))?
            }
            (None, _) => {
                let (value, span) = self.signed_literal("a register or an offset")?;
                i32::try_from(value)
                    .map_err(|_| self.error(span, "address does not fit 32 bits (signed)"))?
            }
        };
        self.expect(Tok::RBracket, "`]`")?;
        Ok(Address { base, offset })
    }

    fn reg_list(&mut self) -> PResult<RegList> {
        if self.peek().tok != Tok::LBrace {
            return self.reg().map(RegList::from);
        }
        let start = self.advance().span;
        let mut regs = vec![self.reg()?];
        while self.peek().tok == Tok::Comma {
            self.advance();
            regs.push(self.reg()?);
            if regs.len() > RegList::CAPACITY {
                return Err(self.error(start, "a register list holds 1 to 4 registers"));
            }
        }
        self.expect(Tok::RBrace, "`,` or `}`")?;
        Ok(RegList::new(&regs))
    }

    fn inst(&mut self) -> PResult<()> {
        let start = self.peek().span;
        let guard = if self.peek().tok == Tok::At {
            self.advance();
            let negated = self.peek().tok == Tok::Bang;
            if negated {
                self.advance();
            }
            Some(Guard {
                pred: self.reg()?,
                negated,
            })
        } else {
            None
        };
        let token = self.peek();
        let Tok::Ident(name) = token.tok else {
            return Err(self.expected("an opcode"));
        };
        let Some(opcode) = Opcode::from_name(name) else {
            let mut e = self.error(token.span, format!("unknown opcode `{name}`"));
            let names = Opcode::ALL.iter().map(|op| op.name());
            e.help = closest_name(name, names).map(|n| format!("did you mean `{n}`?"));
            return Err(e);
        };
        self.advance();
        let data = self.operands(opcode)?;
        self.insts.push(Inst { guard, data });
        self.map
            .insts
            .push(start.to(Span::new(start.start, self.prev_end)));
        Ok(())
    }

    fn operands(&mut self, opcode: Opcode) -> PResult<InstData> {
        Ok(match opcode.format() {
            Format::Unary => {
                let dst = self.reg()?;
                self.comma()?;
                InstData::Unary {
                    opcode,
                    dst,
                    src: self.operand()?,
                }
            }
            Format::Binary => {
                let dst = self.reg()?;
                self.comma()?;
                let a = self.operand()?;
                self.comma()?;
                InstData::Binary {
                    opcode,
                    dst,
                    args: [a, self.operand()?],
                }
            }
            Format::Select => {
                let dst = self.reg()?;
                self.comma()?;
                let a = self.operand()?;
                self.comma()?;
                let b = self.operand()?;
                self.comma()?;
                InstData::Select {
                    opcode,
                    dst,
                    args: [a, b],
                    pred: self.reg()?,
                }
            }
            Format::Cmpx => {
                let lo = self.reg()?;
                self.comma()?;
                InstData::Cmpx {
                    opcode,
                    regs: [lo, self.reg()?],
                }
            }
            Format::Load => {
                let dsts = self.reg_list()?;
                self.comma()?;
                InstData::Load {
                    opcode,
                    dsts,
                    addr: self.address()?,
                }
            }
            Format::Store => {
                let addr = self.address()?;
                self.comma()?;
                InstData::Store {
                    opcode,
                    addr,
                    srcs: self.reg_list()?,
                }
            }
            Format::Atomic => {
                let dst = self.reg()?;
                self.comma()?;
                let addr = self.address()?;
                self.comma()?;
                InstData::Atomic {
                    opcode,
                    dst,
                    addr,
                    src: self.operand()?,
                }
            }
            Format::Shfl => {
                let dst = self.reg()?;
                self.comma()?;
                let src = self.reg()?;
                self.comma()?;
                let lane = self.operand()?;
                self.comma()?;
                let width = self.u32_literal("a segment width")?;
                InstData::Shfl {
                    opcode,
                    dst,
                    src,
                    lane,
                    width,
                }
            }
            Format::Branch => InstData::Branch {
                opcode,
                target: self.label_use()?,
            },
            Format::Nullary => InstData::Nullary { opcode },
        })
    }

    /// Builds the kernel, numbering labels the canonical way: placed labels
    /// in definition order, then unplaced ones in order of first use.
    fn finish(mut self) -> (Kernel, SourceMap) {
        let mut order: Vec<usize> = (0..self.labels.len()).collect();
        order.sort_by_key(|&i| (self.labels[i].def_seq.is_none(), self.labels[i].def_seq, i));
        let mut new_index = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        for inst in &mut self.insts {
            if let InstData::Branch { target, .. } = &mut inst.data {
                *target = Label::with_number(new_index[target.index()]);
            }
        }
        let mut labels = Vec::with_capacity(order.len());
        for &old in &order {
            let label = &self.labels[old];
            labels.push(LabelData {
                name: label.name.clone(),
                pos: label.pos.unwrap_or(UNBOUND),
            });
            self.map.labels.push(label.span);
        }
        if self.regs.is_none() {
            self.map.regs = self.map.header;
        }
        if self.shared.is_none() {
            self.map.shared = self.map.header;
        }
        let kernel = Kernel {
            name: self.name,
            params: self.params,
            regs: self.regs.unwrap_or_default(),
            shared_bytes: self.shared.unwrap_or(0),
            insts: self.insts,
            labels,
        };
        (kernel, self.map)
    }
}
