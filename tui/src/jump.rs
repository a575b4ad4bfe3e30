//! What the `:` (or `g`) prompt jumps to, read from what the user typed.
//!
//! `1234` or `c 1234` is a cycle, `pc 104` the focused warp's next issue of
//! that instruction, `w 3` a warp of the block, `b 5` a block, `sm 2` the
//! block SM 2 runs at the cursor, `l 2` the
//! second launch (as the status line counts them), and any other text the
//! next launch whose label contains it (`fm`, `round 2`).

/// A place to jump to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A cycle (any launch's).
    Cycle(u64),
    /// The focused warp's next issue of this pc.
    Pc(u32),
    /// A warp of the focused block.
    Warp(u32),
    /// A block of the launch.
    Block(u32),
    /// The block an SM runs at the cursor.
    Sm(u32),
    /// A launch, counted from 1.
    Launch(usize),
    /// The next launch whose label contains this text.
    Label(String),
}

/// Reads a jump; `None` for empty text.
pub fn parse(text: &str) -> Option<Target> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let number = |s: &str| s.trim().replace([',', '_'], "").parse::<u64>().ok();
    if let Some(n) = number(t) {
        return Some(Target::Cycle(n));
    }
    let split = t
        .find(|c: char| c.is_ascii_digit() || c == ' ')
        .unwrap_or(t.len());
    let (word, rest) = t.split_at(split);
    if let Some(n) = number(rest) {
        let small = u32::try_from(n).ok();
        let target = match word.to_ascii_lowercase().as_str() {
            "c" | "cycle" => Some(Target::Cycle(n)),
            "pc" => small.map(Target::Pc),
            "w" | "warp" => small.map(Target::Warp),
            "b" | "block" => small.map(Target::Block),
            "sm" => small.map(Target::Sm),
            "l" | "launch" => usize::try_from(n).ok().map(Target::Launch),
            _ => None,
        };
        if target.is_some() {
            return target;
        }
    }
    Some(Target::Label(t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_read_as_typed() {
        assert_eq!(parse("4388"), Some(Target::Cycle(4388)));
        assert_eq!(parse("72,404"), Some(Target::Cycle(72404)));
        assert_eq!(parse("c 12"), Some(Target::Cycle(12)));
        assert_eq!(parse("pc104"), Some(Target::Pc(104)));
        assert_eq!(parse("w 3"), Some(Target::Warp(3)));
        assert_eq!(parse("block 7"), Some(Target::Block(7)));
        assert_eq!(parse("sm 2"), Some(Target::Sm(2)));
        assert_eq!(parse("l 2"), Some(Target::Launch(2)));
        assert_eq!(parse("round 2"), Some(Target::Label("round 2".into())));
        assert_eq!(parse("fm"), Some(Target::Label("fm".into())));
        assert_eq!(parse("  "), None);
    }
}
