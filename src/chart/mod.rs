//! The plot layer every command draws with: a [`Figure`] of panels
//! ([`panel`]) with axes and ticks worked out from the data ([`axis`],
//! [`ticks`]) in one style ([`style`]), laid out as a [`Scene`] that writes
//! SVG or draws PNG. The commands' plots (`experiment::plot`,
//! `experiment::compare_plot`, `calib::plot`, `experiment::run_plot`)
//! only decide what goes on the page.

pub mod axis;
pub mod figure;
pub mod panel;
pub mod scene;
pub mod structure;
pub mod style;
pub mod ticks;

use std::io::Write as _;
use std::path::Path;
use std::sync::OnceLock;

pub use figure::{Block, Figure, Legend, Sample};
pub use scene::Scene;

use crate::atomic::AtomicFile;

/// The image formats, by file extension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (`.svg`).
    Svg,
    /// A bitmap (`.png`).
    Png,
}

impl Format {
    /// The format a path asks for, or `None` for an unknown extension.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            _ => None,
        }
    }
}

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The file name does not end in `.svg` or `.png`.
    #[error("cannot tell the plot format of `{0}`: use a .svg or .png file name")]
    Format(String),
    /// No font was found to measure (and, for PNG, draw) the text.
    #[error(
        "no TrueType font found for the plot's text (looked in {0}); set SIMSORT_FONT to a .ttf file"
    )]
    NoFont(String),
    /// No configuration finished, so there is nothing to draw.
    #[error("no configuration of the sweep finished: nothing to plot")]
    Empty,
    /// The plot options name something the data does not have.
    #[error("{0}")]
    Choice(String),
    /// The drawing backend failed (for example, the file cannot be written).
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The output file.
        path: String,
        /// The backend's message.
        message: String,
    },
}

/// Where fonts usually are; the first that exists is used.
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a sans-serif font with plotters once per process: from
/// `SIMSORT_FONT`, else the first of [`FONT_PATHS`] that loads. Fonts are
/// read at run time so the build needs no system font libraries. Text is
/// measured with it (so labels fit) and PNGs are drawn with it; bold text
/// uses the same face, measured a little wider.
pub fn register_font() -> Result<(), PlotError> {
    use plotters::style::FontStyle;
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    let result = FONT.get_or_init(|| {
        let env = std::env::var("SIMSORT_FONT").ok();
        let candidates = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied());
        for path in candidates {
            if let Ok(bytes) = std::fs::read(path) {
                // Plotters keeps fonts for the whole process.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font(style::FONT, FontStyle::Normal, bytes).is_ok() {
                    let _ = plotters::style::register_font(style::FONT, FontStyle::Bold, bytes);
                    return Ok(());
                }
            }
        }
        let looked: Vec<&str> = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied())
            .collect();
        Err(looked.join(", "))
    });
    result.clone().map_err(PlotError::NoFont)
}

/// Writes `scene` into `file`'s temporary file, as SVG or PNG by the
/// target's extension; the caller commits the file.
pub fn write_to(file: &AtomicFile, scene: &Scene) -> Result<(), PlotError> {
    let target = file.target();
    let format =
        Format::of(target).ok_or_else(|| PlotError::Format(target.display().to_string()))?;
    let draw_err = |message: String| PlotError::Draw {
        path: target.display().to_string(),
        message,
    };
    match format {
        Format::Svg => {
            let mut f =
                std::fs::File::create(file.temp_path()).map_err(|e| draw_err(e.to_string()))?;
            f.write_all(scene.to_svg().as_bytes())
                .map_err(|e| draw_err(e.to_string()))
        }
        Format::Png => scene.write_png(file.temp_path()).map_err(draw_err),
    }
}

/// Writes `scene` to `path` (SVG or PNG by extension), replacing the file
/// only when the picture is complete.
pub fn write(path: &Path, scene: &Scene) -> Result<(), PlotError> {
    Format::of(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    let draw_err = |message: String| PlotError::Draw {
        path: path.display().to_string(),
        message,
    };
    let file = AtomicFile::create(path).map_err(|e| draw_err(e.to_string()))?;
    write_to(&file, scene)?;
    file.commit().map_err(|e| draw_err(e.to_string()))
}

/// What went wrong when a drawing backend wrote its file, in words: the
/// I/O error behind it (a full disk, a read-only directory) rather than
/// the backends' debug text (`ImageError(IoError(Custom { .. }))`).
pub(crate) fn present_error<E>(e: plotters::drawing::DrawingAreaErrorKind<E>) -> String
where
    E: std::error::Error + Send + Sync + 'static,
{
    use plotters::drawing::DrawingAreaErrorKind;
    use plotters_backend::DrawingErrorKind;
    use plotters_bitmap::BitMapBackendError;
    if let DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(inner)) = &e {
        let inner: &(dyn std::error::Error + 'static) = inner;
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            return io.to_string();
        }
        match inner.downcast_ref::<BitMapBackendError>() {
            Some(BitMapBackendError::ImageError(image)) => return image.to_string(),
            Some(BitMapBackendError::IOError(io)) => return io.to_string(),
            _ => {}
        }
    }
    e.to_string()
}
