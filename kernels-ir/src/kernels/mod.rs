//! The kernels this project can generate, by name: what `simsort kernels`
//! lists and `simsort kernels --print NAME` prints.
//!
//! Generators whose code depends on the warp width (shuffle segments,
//! shared-memory sizes) are built for the width the caller asks for; nothing
//! here assumes 32 lanes. The parameterised families (`smem_stride_S`,
//! `gmem_stride_S`) can be built for any stride in [`STRIDES`], and the
//! catalogue lists a few representative ones.

use std::ops::RangeInclusive;

use crate::kernel::Kernel;

pub mod examples;

/// The strides `smem_stride_S` and `gmem_stride_S` accept.
pub const STRIDES: RangeInclusive<u32> = 1..=128;

/// The strides the catalogue lists for each strided family.
const LISTED_STRIDES: [u32; 4] = [1, 2, 32, 33];

/// A generated kernel with a one-line description.
#[derive(Clone, Debug)]
pub struct NamedKernel {
    /// What the kernel does and which parameters it takes, one line.
    pub description: String,
    /// The kernel (its `name` is the catalogue name).
    pub kernel: Kernel,
}

impl NamedKernel {
    fn new(kernel: Kernel, description: impl Into<String>) -> NamedKernel {
        NamedKernel {
            description: description.into(),
            kernel,
        }
    }

    /// The catalogue name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }
}

fn smem_stride(stride: u32, warp: u32) -> NamedKernel {
    NamedKernel::new(
        examples::smem_stride(stride, warp),
        format!(
            "(out) lane l stores and reloads the shared word l*{stride}: bank-conflict probe, \
             stride {stride}"
        ),
    )
}

fn gmem_stride(stride: u32) -> NamedKernel {
    NamedKernel::new(
        examples::gmem_stride(stride),
        format!("(src, dst, n) dst[i] = src[i*{stride}]: global coalescing probe, stride {stride}"),
    )
}

/// Every listed kernel, built for warps of `warp` lanes, in catalogue order.
pub fn catalog(warp: u32) -> Vec<NamedKernel> {
    let mut all = vec![
        NamedKernel::new(
            examples::vcopy(),
            "(src, dst, n) dst[i] = src[i], one word per thread",
        ),
        NamedKernel::new(
            examples::vcopy4(),
            "(src, dst, n) dst[i] = src[i] in 128-bit accesses, n counts 16-byte elements",
        ),
        NamedKernel::new(
            examples::reduce(warp),
            "(src, dst, n) dst[block] = sum of the block's elements: shuffles, shared memory, \
             bar.sync",
        ),
        NamedKernel::new(
            examples::histogram(),
            "(src, dst, n) dst[block*64 + b] = how many of the block's src[i] (i < n) have \
             src[i] % 64 = b: shared atomics",
        ),
        NamedKernel::new(
            examples::diverge(),
            "(out) out[i] = (lane even ? 10 : 20) + lane % 4: if/else and a per-lane loop",
        ),
    ];
    all.extend(LISTED_STRIDES.iter().map(|&s| smem_stride(s, warp)));
    all.extend(LISTED_STRIDES.iter().map(|&s| gmem_stride(s)));
    all
}

/// The kernel called `name`, built for warps of `warp` lanes: a catalogue
/// entry or any member of a strided family (`smem_stride_7`).
pub fn find(name: &str, warp: u32) -> Option<NamedKernel> {
    let stride = |prefix: &str| {
        let digits = name.strip_prefix(prefix)?;
        // Canonical spelling only, so the kernel's name is the one asked for.
        let s: u32 = digits
            .parse()
            .ok()
            .filter(|s: &u32| s.to_string() == digits)?;
        STRIDES.contains(&s).then_some(s)
    };
    if let Some(s) = stride("smem_stride_") {
        return Some(smem_stride(s, warp));
    }
    if let Some(s) = stride("gmem_stride_") {
        return Some(gmem_stride(s));
    }
    catalog(warp).into_iter().find(|k| k.name() == name)
}

/// Every listed kernel, built for the reference machine's warp width
/// ([`REFERENCE_WARP_SIZE`]).
pub fn all() -> Vec<Kernel> {
    catalog(REFERENCE_WARP_SIZE)
        .into_iter()
        .map(|k| k.kernel)
        .collect()
}

/// The warp width of the reference machine (the H200 preset); the default
/// for callers that do not name one.
pub const REFERENCE_WARP_SIZE: u32 = 32;

#[cfg(test)]
mod tests;
