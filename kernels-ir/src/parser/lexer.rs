//! The lexer: `.kir` text to tokens with byte spans.
//!
//! Hand-written because the token set is tiny. Every call to
//! [`Lexer::next_token`] consumes at least one byte or returns `Eof`, so no
//! input can make it loop; bad characters and oversized numbers become
//! [`Tok::Error`] tokens that the parser reports and recovers from.

use super::span::Span;

/// A token's kind and payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    /// A name, keyword, opcode or register: `[A-Za-z_][A-Za-z0-9_.]*`.
    Ident(&'a str),
    /// `%name`: a special value (the text after `%`).
    Special(&'a str),
    /// `$name`: a parameter reference (the text after `$`).
    Param(&'a str),
    /// An unsigned decimal or `0x` hexadecimal number.
    Int(u64),
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `@`
    At,
    /// `!`
    Bang,
    /// The end of a line (comments are skipped up to it).
    Newline,
    /// The end of the input.
    Eof,
    /// Text that is no token; the message says why.
    Error(&'static str),
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match *self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Special(s) => format!("`%{s}`"),
            Tok::Param(s) => format!("`${s}`"),
            Tok::Int(n) => format!("`{n}`"),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::At => "`@`".into(),
            Tok::Bang => "`!`".into(),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of file".into(),
            Tok::Error(_) => "invalid text".into(),
        }
    }
}

/// A token and where it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    /// What it is.
    pub tok: Tok<'a>,
    /// Where it is.
    pub span: Span,
}

/// Splits source text into tokens.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub(crate) fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// All tokens, ending with one `Eof`.
    pub(crate) fn tokenize(src: &'a str) -> Vec<Token<'a>> {
        let mut lexer = Lexer::new(src);
        let mut tokens = Vec::new();
        loop {
            let token = lexer.next_token();
            tokens.push(token);
            if token.tok == Tok::Eof {
                return tokens;
            }
        }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    fn eat_while(&mut self, pred: impl Fn(u8) -> bool) {
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
    }

    /// The next token.
    pub(crate) fn next_token(&mut self) -> Token<'a> {
        // Skip blanks and comments (a comment stops before its newline).
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b';') => self.eat_while(|b| b != b'\n'),
                _ => break,
            }
        }
        let start = self.pos;
        let Some(b) = self.peek_byte(0) else {
            return Token {
                tok: Tok::Eof,
                span: Span::new(start, start),
            };
        };
        let tok = match b {
            b'\n' => self.single(Tok::Newline),
            b',' => self.single(Tok::Comma),
            b':' => self.single(Tok::Colon),
            b'{' => self.single(Tok::LBrace),
            b'}' => self.single(Tok::RBrace),
            b'[' => self.single(Tok::LBracket),
            b']' => self.single(Tok::RBracket),
            b'+' => self.single(Tok::Plus),
            b'-' => self.single(Tok::Minus),
            b'@' => self.single(Tok::At),
            b'!' => self.single(Tok::Bang),
            b'%' | b'$' => self.sigil_name(b),
            b'0'..=b'9' => self.number(),
            b if is_ident_start(b) => {
                self.eat_while(is_ident_continue);
                Tok::Ident(&self.src[start..self.pos])
            }
            _ => {
                // One whole character, so spans stay on char boundaries.
                let len = self.src[start..].chars().next().map_or(1, char::len_utf8);
                self.pos += len;
                Tok::Error("unexpected character")
            }
        };
        Token {
            tok,
            span: Span::new(start, self.pos),
        }
    }

    fn single(&mut self, tok: Tok<'a>) -> Tok<'a> {
        self.pos += 1;
        tok
    }

    fn sigil_name(&mut self, sigil: u8) -> Tok<'a> {
        self.pos += 1;
        let name_start = self.pos;
        self.eat_while(is_ident_continue);
        let name = &self.src[name_start..self.pos];
        match (sigil, name.is_empty()) {
            (b'%', true) => Tok::Error("expected a special value name after `%`"),
            (_, true) => Tok::Error("expected a parameter name after `$`"),
            (b'%', false) => Tok::Special(name),
            (_, false) => Tok::Param(name),
        }
    }

    fn number(&mut self) -> Tok<'a> {
        let start = self.pos;
        let hex = self.peek_byte(0) == Some(b'0') && matches!(self.peek_byte(1), Some(b'x' | b'X'));
        if hex {
            self.pos += 2;
        }
        let digits_start = self.pos;
        // Take the whole word, so `12ab` is one bad number, not two tokens.
        self.eat_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        let digits = &self.src[digits_start..self.pos];
        let radix = if hex { 16 } else { 10 };
        if digits.is_empty() || !digits.bytes().all(|b| (b as char).is_digit(radix)) {
            return Tok::Error(if hex {
                "invalid hexadecimal number"
            } else {
                "invalid number"
            });
        }
        debug_assert!(self.pos > start);
        match u64::from_str_radix(digits, radix) {
            Ok(n) => Tok::Int(n),
            Err(_) => Tok::Error("number too large (more than 64 bits)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok<'_>> {
        Lexer::tokenize(src).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_an_instruction_line() {
        assert_eq!(
            kinds("@!p0 ld.global.b32 {r1, r2}, [d1-8] ; comment\n"),
            vec![
                Tok::At,
                Tok::Bang,
                Tok::Ident("p0"),
                Tok::Ident("ld.global.b32"),
                Tok::LBrace,
                Tok::Ident("r1"),
                Tok::Comma,
                Tok::Ident("r2"),
                Tok::RBrace,
                Tok::Comma,
                Tok::LBracket,
                Tok::Ident("d1"),
                Tok::Minus,
                Tok::Int(8),
                Tok::RBracket,
                Tok::Newline,
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn lexes_numbers_specials_and_params() {
        assert_eq!(
            kinds("0x1F 42 %tid.x $n"),
            vec![
                Tok::Int(31),
                Tok::Int(42),
                Tok::Special("tid.x"),
                Tok::Param("n"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn bad_text_becomes_error_tokens_with_char_spans() {
        let tokens = Lexer::tokenize("é 12ab 0x 99999999999999999999 % $");
        let errors: Vec<_> = tokens
            .iter()
            .filter(|t| matches!(t.tok, Tok::Error(_)))
            .collect();
        assert_eq!(errors.len(), 6);
        assert_eq!(errors[0].span, Span::new(0, 2));
    }
}
