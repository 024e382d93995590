//! The report as a PDF for management: A4 or Letter, a cover page with the executive
//! summary, the environment table, analysis, one section per scenario (charts and
//! tables), the timeline and latency distribution, warnings and the reproducibility
//! appendix, with "Page N of M" on every page.
//!
//! Text is real PDF text in an embedded, subset font ([`font`]): the built-in Liberation
//! Sans, or a system font with CJK coverage when the report holds text it cannot draw; so
//! it can be searched and copied; charts are vector forms ([`chart`]).
//!
//! printpdf 0.12.8 was chosen over the 0.9.1 the issue measured: it is the newest release
//! with the `svg` feature that builds here, it carries the SVG form's own resources over
//! (the fix for issue #211's "Bad color space 'cs0'"), and it reads and subsets faces of
//! `.ttc` collections, which Debian's Noto Sans CJK ships.

use std::path::PathBuf;

use printpdf::{Mm, PdfDocument, PdfPage, PdfSaveOptions};

use crate::charts::report_charts::{self, Sizes};
use crate::error::ReportError;
use crate::model::Report;

pub mod chart;
pub mod font;
pub mod layout;
mod sections;
pub mod table;

pub use font::FontFiles;

/// Paper size of the PDF.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PageSize {
    #[default]
    A4,
    Letter,
}

impl PageSize {
    /// Width and height in millimetres.
    pub fn mm(self) -> (f32, f32) {
        match self {
            PageSize::A4 => (210.0, 297.0),
            PageSize::Letter => (215.9, 279.4),
        }
    }
}

impl std::str::FromStr for PageSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "a4" => Ok(PageSize::A4),
            "letter" | "us-letter" => Ok(PageSize::Letter),
            other => Err(format!("unknown page size '{other}' (a4 or letter)")),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct PdfOptions {
    pub page_size: PageSize,
    /// Fonts to use; `None` chooses them ([`font::choose`]): the built-in font, or system
    /// fonts when the report needs them.
    pub fonts: Option<FontFiles>,
    /// Where discovery looks for system fonts: the standard locations under this
    /// directory instead of the file system's root (`None`). Tests point it at an empty
    /// directory to play a machine with no fonts installed.
    pub font_root: Option<PathBuf>,
}

impl PdfOptions {
    pub fn new(page_size: PageSize) -> Self {
        PdfOptions {
            page_size,
            fonts: None,
            font_root: None,
        }
    }
}

/// Renders the report to PDF bytes. What printpdf reports along the way that is not
/// fatal is left out; [`render_with_warnings`] returns it (the tests require none).
pub fn render(r: &Report, opts: &PdfOptions) -> Result<Vec<u8>, ReportError> {
    render_with_warnings(r, opts).map(|(bytes, _)| bytes)
}

/// Renders the report to PDF bytes, with printpdf's non-fatal warnings (SVG import of the
/// charts, serialisation). An error printpdf reports while serialising fails the render.
pub fn render_with_warnings(
    r: &Report,
    opts: &PdfOptions,
) -> Result<(Vec<u8>, Vec<String>), ReportError> {
    let chosen = match &opts.fonts {
        Some(f) => font::Chosen::Files(f.clone()),
        None => font::choose(r, opts.font_root.as_deref())?,
    };
    let mut doc = document(r);
    let fonts = match chosen {
        font::Chosen::Embedded(faces) => font::Fonts::embedded(*faces, &mut doc),
        font::Chosen::Files(files) => font::Fonts::load(files, &mut doc)?,
    };

    let (wmm, hmm) = opts.page_size.mm();
    let geom = layout::PageGeom {
        width: Mm(wmm).into_pt().0,
        height: Mm(hmm).into_pt().0,
        margin_x: 42.0,
        margin_top: 44.0,
        margin_bottom: 50.0,
    };
    let charts = report_charts::build(r, Sizes::print());
    let mut l = layout::Layout::new(&fonts, geom);
    let mut warnings_out = sections::render_all(&mut l, &mut doc, r, &charts)?;
    l.footers(&r.title);
    let missing = fonts.missing();
    if !missing.is_empty() {
        warnings_out.push(format!(
            "no font has a glyph for {} (drawn as empty boxes)",
            missing.iter().collect::<String>()
        ));
    }

    let pages: Vec<PdfPage> = std::mem::take(&mut l.pages)
        .into_iter()
        .map(|ops| PdfPage::new(Mm(wmm), Mm(hmm), ops))
        .collect();
    let bytes = save(doc.with_pages(pages), &mut warnings_out)?;
    Ok((bytes, warnings_out))
}

/// An empty document carrying the report's title, maker and time.
fn document(r: &Report) -> PdfDocument {
    let mut doc = PdfDocument::new(&r.title);
    doc.metadata.info.creator = format!("DB Dyno {}", r.tool_version);
    doc.metadata.info.producer = "DB Dyno (printpdf)".to_string();
    doc.metadata.info.subject = "Database benchmark report".to_string();
    // printpdf defaults every date to 1970-01-01: the report's own time is the truth.
    if let Ok(t) = printpdf::OffsetDateTime::from_unix_timestamp(r.generated_at_ms / 1000) {
        doc.metadata.info.creation_date = t;
        doc.metadata.info.modification_date = t;
        doc.metadata.info.metadata_date = t;
    }
    doc
}

/// Serialises the finished document; printpdf's warnings go to `warnings_out`, and an
/// error among them fails the render.
fn save(doc: &PdfDocument, warnings_out: &mut Vec<String>) -> Result<Vec<u8>, ReportError> {
    let mut warnings = Vec::new();
    let save = PdfSaveOptions {
        subset_fonts: true,
        ..Default::default()
    };
    let mut pdf = doc.to_lopdf_document(&save, &mut warnings);
    // What printpdf 0.12 writes that the file is not: it heads every file `%PDF-1.3`,
    // though the chart forms are transparency groups (1.4), and writes an empty
    // `GTS_PDFXVersion` (and `Identifier`) into the document information, which viewers
    // read as a PDF/X claim. The report makes no conformance claim.
    pdf.version = PDF_VERSION.to_string();
    let info = pdf.trailer.get(b"Info").and_then(|o| o.as_reference()).ok();
    if let Some(dict) = info
        .and_then(|id| pdf.get_object_mut(id).ok())
        .and_then(|o| o.as_dict_mut().ok())
    {
        dict.remove(b"GTS_PDFXVersion");
        dict.remove(b"Identifier");
    }
    if save.optimize {
        pdf.compress();
    }
    for w in warnings {
        if w.severity == printpdf::PdfParseErrorSeverity::Error {
            return Err(ReportError::Pdf(w.msg));
        }
        warnings_out.push(format!("{:?}: {}", w.severity, w.msg));
    }
    let mut bytes = Vec::new();
    pdf.save_to(&mut bytes)
        .map_err(|e| ReportError::Pdf(e.to_string()))?;
    Ok(bytes)
}

/// The PDF version this file needs: SVG forms are transparency groups (PDF 1.4).
pub const PDF_VERSION: &str = "1.4";
