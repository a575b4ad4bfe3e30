//! `--buffer NAME=SPEC` values of `simsort run`: a byte count (`4k`), words
//! counting up (`iota:N`), seeded random words (`rand:N:SEED`) or a file's
//! bytes (`@PATH`). In the library so the fuzz targets reach the same code.

/// Parses a decimal or `0x` hexadecimal number.
pub fn number(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|e| format!("`{s}` is not a number: {e}"))
}

/// Parses a byte count with an optional `k`/`M`/`G` suffix (powers of 1024).
pub fn bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    number(digits)?
        .checked_mul(scale)
        .ok_or_else(|| format!("`{s}` bytes is too large"))
}

/// A buffer's initial contents: bytes, or `n` zero bytes (never built on
/// the host: device memory starts zeroed).
#[derive(Debug, PartialEq)]
pub enum BufferInit {
    /// These bytes, built on the host.
    Data(Vec<u8>),
    /// This many zero bytes.
    Zero(u64),
}

/// The size of file `path`, which must be a regular file: a device or a
/// pipe (`@/dev/zero`) has no size to check against the host's memory and
/// may never end.
fn file_len(path: &str) -> Result<u64, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{path} is not a regular file; give a file's path after @"
        ));
    }
    Ok(meta.len())
}

/// The size in bytes of a buffer spec, found without building it.
pub fn buffer_len(spec: &str) -> Result<u64, String> {
    let words = |n: &str| {
        number(n)?
            .checked_mul(4)
            .ok_or_else(|| format!("`{spec}`: {n} words is too many"))
    };
    if let Some(path) = spec.strip_prefix('@') {
        return file_len(path);
    }
    if let Some(n) = spec.strip_prefix("iota:") {
        return words(n);
    }
    if let Some(rest) = spec.strip_prefix("rand:") {
        let (n, seed) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{spec}`: expected rand:N:SEED"))?;
        // The seed is checked here too, so a spec that sizes also builds
        // (`rand:8:7-0` did not; found by the buffer_spec fuzz target).
        number(seed)?;
        return words(n);
    }
    bytes(spec)
}

/// The host memory a buffer costs: its host copy (zero buffers have none)
/// and its device copy.
pub fn buffer_cost(spec: &str) -> Result<u64, String> {
    let len = buffer_len(spec)?;
    let host = if spec.starts_with(['@']) || spec.contains(':') {
        len
    } else {
        0
    };
    Ok(len.saturating_add(host))
}

/// The initial contents of a buffer spec.
pub fn buffer_data(spec: &str) -> Result<BufferInit, String> {
    let too_big = || format!("`{spec}`: the host has not the memory to build it");
    if let Some(path) = spec.strip_prefix('@') {
        file_len(path)?;
        return std::fs::read(path)
            .map(BufferInit::Data)
            .map_err(|e| format!("cannot read {path}: {e}"));
    }
    let len = buffer_len(spec)?;
    let words = |mut word: Box<dyn FnMut(u64) -> u32>| {
        crate::host_memory::try_collect(len, |i| word(i / 4).to_le_bytes()[(i % 4) as usize])
            .map(BufferInit::Data)
            .ok_or_else(too_big)
    };
    if spec.starts_with("iota:") {
        return words(Box::new(|i| i as u32));
    }
    if let Some(rest) = spec.strip_prefix("rand:") {
        let (_, seed) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{spec}`: expected rand:N:SEED"))?;
        let mut state = number(seed)? | 1;
        let mut last = (u64::MAX, 0);
        return words(Box::new(move |i| {
            if last.0 != i {
                // xorshift64*: a fixed, documented generator, so runs repeat.
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                last = (i, (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32);
            }
            last.1
        }));
    }
    Ok(BufferInit::Zero(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_specs() {
        let data = |spec| match buffer_data(spec).unwrap() {
            BufferInit::Data(d) => d,
            BufferInit::Zero(n) => panic!("{spec}: {n} zero bytes"),
        };
        assert_eq!(buffer_data("2k").unwrap(), BufferInit::Zero(2048));
        assert_eq!(data("iota:3"), [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
        let a = data("rand:4:7");
        assert_eq!((a.len(), a.clone()), (16, data("rand:4:7")));
        assert_ne!(a, data("rand:4:8"));
        assert_eq!(buffer_len("rand:4:8"), Ok(16));
        assert_eq!(buffer_cost("iota:4"), Ok(32), "a host and a device copy");
        assert_eq!(
            buffer_cost("1k"),
            Ok(1024),
            "zero buffers have no host copy"
        );
        assert!(buffer_len("iota:99999999999999999999").is_err());
        assert!(buffer_data("rand:4").is_err());
        assert!(
            buffer_len("rand:8:7-0").is_err(),
            "a bad seed fails the sizing too"
        );
        assert!(buffer_data("lots").is_err());
        assert_eq!(number("0x10").unwrap(), 16);
    }

    #[test]
    fn only_regular_files_are_read() {
        let e = buffer_len("@/dev/zero").unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        assert!(buffer_data("@/dev/zero").is_err());
        assert!(buffer_data("@.").is_err());
    }
}
