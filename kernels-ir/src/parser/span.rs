//! Source positions: byte spans, line/column lookup, and the [`SourceMap`]
//! that remembers where each part of a parsed kernel was written.

use crate::verify::Location;

/// A half-open byte range `start..end` in the source text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The length in bytes.
    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// Line starts of a text, for turning byte offsets into line and column.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `src`.
    pub fn new(src: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// The 1-based line and 1-based column (in characters) of byte `offset`
    /// of `src` (the text this index was built from).
    pub fn line_col(&self, src: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = src
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        (line + 1, col)
    }
}

/// Where the parts of a parsed kernel are in its source text, so verifier
/// errors (which name a [`Location`]) can be shown as source snippets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The `kernel NAME` header.
    pub header: Span,
    /// The `regs` declaration (the header if there is none).
    pub regs: Span,
    /// The `shared` declaration (the header if there is none).
    pub shared: Span,
    /// Each parameter declaration, by index.
    pub params: Vec<Span>,
    /// Each label's definition, or its first use if it is never defined.
    pub labels: Vec<Span>,
    /// Each instruction, by `pc`.
    pub insts: Vec<Span>,
}

impl SourceMap {
    /// The span of `location` (the header for anything out of range).
    pub fn span(&self, location: Location) -> Span {
        let get = |spans: &[Span], i: usize| spans.get(i).copied().unwrap_or(self.header);
        match location {
            Location::Kernel => self.header,
            Location::Param(i) => get(&self.params, i),
            Location::Label(i) => get(&self.labels, i),
            Location::Inst(pc) => get(&self.insts, pc as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters_from_one() {
        let src = "ab\ncé d\n";
        let index = LineIndex::new(src);
        assert_eq!(index.line_col(src, 0), (1, 1));
        assert_eq!(index.line_col(src, 3), (2, 1));
        assert_eq!(index.line_col(src, 7), (2, 4));
        assert_eq!(index.line_col(src, src.len()), (3, 1));
        assert_eq!(index.line_col(src, 999), (3, 1));
    }
}
