//! One module per output format. Each takes the finished [`crate::model::Report`] and only
//! lays it out: no renderer computes a figure.
//!
//! - [`html`]: one self-contained file (inline CSS and SVG), prints well;
//! - [`pdf`]: A4 or Letter, cover page with the executive summary, vector charts, real
//!   text in an embedded font (the built-in Latin one, or a system CJK font when the
//!   report needs it), page numbers;
//! - [`markdown`]: the seed toolkit's `performance_report.md` / `mysql_sysbench.md` shapes;
//! - [`csv`]: the performance matrix, one row per environment × scenario × threads;
//! - [`json`]: the report model itself;
//! - [`side`]: the side-by-side comparison table that HTML, PDF and Markdown share;
//! - [`capacity`]: the capacity-at-the-latency-target table of HTML and Markdown.

use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::Report;

pub mod capacity;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod pdf;
pub mod side;

pub use pdf::PageSize;

/// Where to write each format (`None`: not wanted).
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub html: Option<PathBuf>,
    pub pdf: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub page_size: PageSize,
}

impl Outputs {
    /// Every format into `dir`, named `report.html`, `report.pdf`, ….
    pub fn all_in(dir: &Path, page_size: PageSize) -> Self {
        Outputs {
            html: Some(dir.join("report.html")),
            pdf: Some(dir.join("report.pdf")),
            markdown: Some(dir.join("report.md")),
            csv: Some(dir.join("report.csv")),
            json: Some(dir.join("report.json")),
            page_size,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.html.is_none()
            && self.pdf.is_none()
            && self.markdown.is_none()
            && self.csv.is_none()
            && self.json.is_none()
    }
}

/// Renders and writes every requested format; returns the files written.
pub fn write_all(r: &Report, out: &Outputs) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    let mut put = |path: &Option<PathBuf>, bytes: &dyn Fn() -> Result<Vec<u8>, ReportError>| {
        if let Some(p) = path {
            let b = bytes()?;
            std::fs::write(p, b).map_err(|source| ReportError::Write {
                path: p.clone(),
                source,
            })?;
            written.push(p.clone());
        }
        Ok::<(), ReportError>(())
    };
    put(&out.json, &|| Ok(json::render(r).into_bytes()))?;
    put(&out.csv, &|| Ok(csv::render(r).into_bytes()))?;
    put(&out.markdown, &|| Ok(markdown::render(r).into_bytes()))?;
    put(&out.html, &|| Ok(html::render(r).into_bytes()))?;
    put(&out.pdf, &|| {
        pdf::render(r, &pdf::PdfOptions::new(out.page_size))
    })?;
    Ok(written)
}
