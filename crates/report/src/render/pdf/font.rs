//! The PDF's fonts: found at run time, embedded as subsets, measured for layout.
//!
//! Environment names are often Chinese, so the font must cover CJK as well as Latin. The
//! path comes from `DBDYNO_REPORT_FONT` (a `.ttf`, `.otf` or `.ttc`; append `#N` to pick
//! face N of a collection), or else the first of [`CANDIDATES`] that exists. Noto Sans CJK
//! (Debian: fonts-noto-cjk) comes as collections of CFF faces; printpdf 0.12 reads a face
//! out of a collection and subsets it, so a 20 MB collection adds only the glyphs used
//! (a few hundred kilobytes) to the file. Droid Sans Fallback (fonts-droid-fallback) is a
//! CJK-only face: with it, Latin text is set in DejaVu Sans (fonts-dejavu-core) and each
//! character the Latin face lacks falls back to the CJK face, run by run.
//!
//! Widths come from the font's own advance table, so tables and right-aligned numbers
//! line up exactly in any viewer.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use printpdf::{ParsedFont, PdfDocument, PdfFontHandle};

use crate::error::ReportError;

/// Environment variable that names the font file to use.
pub const FONT_ENV: &str = "DBDYNO_REPORT_FONT";

/// A font file and the faces to use from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub regular: (&'static str, usize),
    pub bold: Option<(&'static str, usize)>,
    pub mono: Option<(&'static str, usize)>,
    /// Face for the characters `regular` lacks (CJK beside a Latin face).
    pub fallback: Option<(&'static str, usize)>,
}

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const DEJAVU_BOLD: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const DEJAVU_MONO: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";

/// Standard locations, best first (Debian/Ubuntu, then Fedora and Arch layouts, then
/// macOS and Windows).
/// Face 2 of the Noto CJK collections is Simplified Chinese, face 7 its monospaced twin.
pub const CANDIDATES: &[Candidate] = &[
    Candidate {
        regular: ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
        bold: Some(("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 2)),
        mono: Some(("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 7)),
        fallback: None,
    },
    Candidate {
        regular: ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),
        bold: Some(("/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc", 2)),
        mono: Some(("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 7)),
        fallback: None,
    },
    Candidate {
        regular: (
            "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
            2,
        ),
        bold: Some(("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Bold.ttc", 2)),
        mono: Some((
            "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
            7,
        )),
        fallback: None,
    },
    Candidate {
        regular: (DEJAVU, 0),
        bold: Some((DEJAVU_BOLD, 0)),
        mono: Some((DEJAVU_MONO, 0)),
        fallback: Some((
            "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
            0,
        )),
    },
    Candidate {
        regular: ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
        bold: None,
        mono: None,
        fallback: None,
    },
    // macOS: PingFang (10.11+), Hiragino Sans GB, STHeiti, then Arial Unicode (Office).
    Candidate {
        regular: ("/System/Library/Fonts/PingFang.ttc", 0),
        bold: None,
        mono: Some(("/System/Library/Fonts/Menlo.ttc", 0)),
        fallback: None,
    },
    Candidate {
        regular: ("/System/Library/Fonts/Hiragino Sans GB.ttc", 0),
        bold: Some(("/System/Library/Fonts/Hiragino Sans GB.ttc", 1)),
        mono: Some(("/System/Library/Fonts/Menlo.ttc", 0)),
        fallback: None,
    },
    Candidate {
        regular: ("/System/Library/Fonts/STHeiti Light.ttc", 0),
        bold: Some(("/System/Library/Fonts/STHeiti Medium.ttc", 0)),
        mono: Some(("/System/Library/Fonts/Menlo.ttc", 0)),
        fallback: None,
    },
    Candidate {
        regular: ("/System/Library/Fonts/Supplemental/Arial Unicode.ttf", 0),
        bold: None,
        mono: None,
        fallback: None,
    },
    Candidate {
        regular: ("/Library/Fonts/Arial Unicode.ttf", 0),
        bold: None,
        mono: None,
        fallback: None,
    },
    // Windows: Microsoft YaHei (Vista+), SimSun, Arial Unicode MS.
    Candidate {
        regular: (r"C:\Windows\Fonts\msyh.ttc", 0),
        bold: Some((r"C:\Windows\Fonts\msyhbd.ttc", 0)),
        mono: Some((r"C:\Windows\Fonts\consola.ttf", 0)),
        fallback: None,
    },
    Candidate {
        regular: (r"C:\Windows\Fonts\simsun.ttc", 0),
        bold: None,
        mono: Some((r"C:\Windows\Fonts\consola.ttf", 0)),
        fallback: None,
    },
    Candidate {
        regular: (r"C:\Windows\Fonts\arialuni.ttf", 0),
        bold: None,
        mono: None,
        fallback: None,
    },
];

/// Which faces to load, resolved from the environment or the standard locations.
#[derive(Debug, Clone, PartialEq)]
pub struct FontFiles {
    pub regular: (PathBuf, usize),
    pub bold: Option<(PathBuf, usize)>,
    pub mono: Option<(PathBuf, usize)>,
    /// Face for the characters the others lack (a CJK face beside a Latin one).
    pub fallback: Option<(PathBuf, usize)>,
}

/// `path#index` → (path, index).
fn split_index(s: &str) -> (PathBuf, usize) {
    match s.rsplit_once('#') {
        Some((p, i)) if i.parse::<usize>().is_ok() => (PathBuf::from(p), i.parse().unwrap_or(0)),
        _ => (PathBuf::from(s), 0),
    }
}

/// Finds the fonts: `DBDYNO_REPORT_FONT` first (regular face only; bold is then drawn
/// from the same face), then [`CANDIDATES`].
pub fn discover() -> Result<FontFiles, ReportError> {
    if let Some(v) = std::env::var_os(FONT_ENV).filter(|v| !v.is_empty()) {
        let (path, index) = split_index(&v.to_string_lossy());
        if !path.is_file() {
            return Err(ReportError::Font {
                path,
                detail: format!("{FONT_ENV} names a file that does not exist"),
            });
        }
        // A CJK-only face (Droid Sans Fallback) serves as the fallback of DejaVu Sans.
        return Ok(FontFiles {
            regular: (path, index),
            bold: None,
            mono: None,
            fallback: Path::new(DEJAVU)
                .is_file()
                .then(|| (PathBuf::from(DEJAVU), 0)),
        });
    }
    let exists = |p: &str| Path::new(p).is_file();
    for c in CANDIDATES {
        let fallback_ok = c.fallback.is_none_or(|(p, _)| exists(p));
        if exists(c.regular.0) && fallback_ok {
            let own = |f: Option<(&'static str, usize)>| {
                f.filter(|(p, _)| exists(p))
                    .map(|(p, i)| (PathBuf::from(p), i))
            };
            return Ok(FontFiles {
                regular: (PathBuf::from(c.regular.0), c.regular.1),
                bold: own(c.bold),
                mono: own(c.mono),
                fallback: own(c.fallback),
            });
        }
    }
    Err(ReportError::FontNotFound {
        looked: std::iter::once(format!("${FONT_ENV}"))
            .chain(CANDIDATES.iter().map(|c| c.regular.0.to_string()))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// A loaded face with an advance-width cache.
pub struct Face {
    pub parsed: ParsedFont,
    units_per_em: f32,
    widths: RefCell<HashMap<char, f32>>,
}

impl Face {
    fn load(bytes: &[u8], index: usize, path: &Path) -> Result<Face, ReportError> {
        let mut warnings = Vec::new();
        let parsed = ParsedFont::from_bytes(bytes, index, &mut warnings).ok_or_else(|| {
            ReportError::Font {
                path: path.to_path_buf(),
                detail: format!(
                    "face {index} could not be read as a TrueType/OpenType font{}",
                    warnings
                        .first()
                        .map(|w| format!(" ({w:?})"))
                        .unwrap_or_default()
                ),
            }
        })?;
        let upem = parsed.pdf_font_metrics.units_per_em.max(1) as f32;
        Ok(Face {
            parsed,
            units_per_em: upem,
            widths: RefCell::new(HashMap::new()),
        })
    }

    pub fn has_glyph(&self, c: char) -> bool {
        self.parsed
            .lookup_glyph_index(c as u32)
            .is_some_and(|g| g != 0)
    }

    /// Advance width of `c` in em (missing glyphs count as half an em).
    fn advance_em(&self, c: char) -> f32 {
        if let Some(w) = self.widths.borrow().get(&c) {
            return *w;
        }
        let w = match self.parsed.lookup_glyph_index(c as u32) {
            Some(g) if g != 0 => self.parsed.get_horizontal_advance(g) as f32 / self.units_per_em,
            _ => 0.5,
        };
        self.widths.borrow_mut().insert(c, w);
        w
    }

    /// Width of `s` at `size` points.
    pub fn width(&self, s: &str, size: f32) -> f32 {
        s.chars().map(|c| self.advance_em(c)).sum::<f32>() * size
    }
}

/// The report's faces, registered with the document.
pub struct Fonts {
    pub regular: Face,
    /// `None`: bold text is drawn with the regular face, filled and stroked.
    pub bold: Option<Face>,
    pub mono: Option<Face>,
    /// Characters the styled face lacks are drawn with this one (CJK beside Latin).
    pub fallback: Option<Face>,
    pub regular_id: PdfFontHandle,
    pub bold_id: Option<PdfFontHandle>,
    pub mono_id: Option<PdfFontHandle>,
    pub fallback_id: Option<PdfFontHandle>,
    pub files: FontFiles,
}

/// Which face a piece of text uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Regular,
    Bold,
    Mono,
}

/// A font file's bytes, read once and shared by the faces taken from it.
type Shared = std::rc::Rc<Vec<u8>>;

/// A stretch of text drawn with one face.
pub struct Run<'a> {
    pub text: String,
    pub face: &'a Face,
    pub handle: &'a PdfFontHandle,
    /// Draw filled and stroked: bold wanted, no bold face for these characters.
    pub fake_bold: bool,
}

impl Fonts {
    /// Reads the faces and adds them to `doc` (subset when the document is saved).
    pub fn load(files: FontFiles, doc: &mut PdfDocument) -> Result<Fonts, ReportError> {
        // Faces of one collection (a 20 MB .ttc) share one read of the file.
        let mut cache: HashMap<PathBuf, Shared> = HashMap::new();
        let mut read = |p: &Path| -> Result<Shared, ReportError> {
            if let Some(b) = cache.get(p) {
                return Ok(b.clone());
            }
            let b = std::rc::Rc::new(std::fs::read(p).map_err(|e| ReportError::Font {
                path: p.to_path_buf(),
                detail: e.to_string(),
            })?);
            cache.insert(p.to_path_buf(), b.clone());
            Ok(b)
        };
        let mut regular = Face::load(&read(&files.regular.0)?, files.regular.1, &files.regular.0)?;
        let mut fallback = match &files.fallback {
            Some((p, i)) => Some(Face::load(&read(p)?, *i, p)?),
            None => None,
        };
        // A CJK-only main face (Droid Sans Fallback named by DBDYNO_REPORT_FONT) swaps
        // roles with a Latin fallback.
        if !regular.has_glyph('A') && fallback.as_ref().is_some_and(|f| f.has_glyph('A')) {
            if let Some(f) = fallback.as_mut() {
                std::mem::swap(&mut regular, f);
            }
        }
        let cjk = regular.has_glyph('中') || fallback.as_ref().is_some_and(|f| f.has_glyph('中'));
        if !regular.has_glyph('A') || !cjk {
            return Err(ReportError::Font {
                path: files.regular.0.clone(),
                detail: "the fonts lack Latin or CJK glyphs; DB Dyno needs both (Noto Sans CJK, or DejaVu Sans with Droid Sans Fallback)".into(),
            });
        }
        // Bold and mono are optional: a face that does not load is left out, not an error.
        let optional =
            |f: &Option<(PathBuf, usize)>,
             read: &mut dyn FnMut(&Path) -> Result<Shared, ReportError>| {
                f.as_ref()
                    .and_then(|(p, i)| read(p).ok().and_then(|b| Face::load(&b, *i, p).ok()))
            };
        let bold = optional(&files.bold, &mut read);
        let mono = optional(&files.mono, &mut read);
        let mut add = |f: &Face| PdfFontHandle::External(doc.add_font(&f.parsed));
        let regular_id = add(&regular);
        let bold_id = bold.as_ref().map(&mut add);
        let mono_id = mono.as_ref().map(&mut add);
        let fallback_id = fallback.as_ref().map(&mut add);
        Ok(Fonts {
            regular,
            bold,
            mono,
            fallback,
            regular_id,
            bold_id,
            mono_id,
            fallback_id,
            files,
        })
    }

    fn styled(&self, style: Style) -> (&Face, &PdfFontHandle, bool) {
        match style {
            Style::Regular => (&self.regular, &self.regular_id, false),
            Style::Bold => match (&self.bold, &self.bold_id) {
                (Some(f), Some(h)) => (f, h, false),
                _ => (&self.regular, &self.regular_id, true),
            },
            Style::Mono => match (&self.mono, &self.mono_id) {
                (Some(f), Some(h)) => (f, h, false),
                _ => (&self.regular, &self.regular_id, false),
            },
        }
    }

    /// The face for one character: the styled face when it has the glyph, else the
    /// fallback when that has it, else the styled face (which draws its missing glyph).
    fn pick(&self, c: char, style: Style) -> (&Face, &PdfFontHandle, bool) {
        let (face, handle, fake) = self.styled(style);
        if c == ' ' || face.has_glyph(c) {
            return (face, handle, fake);
        }
        match (&self.fallback, &self.fallback_id) {
            (Some(f), Some(h)) if f.has_glyph(c) => (f, h, style == Style::Bold),
            _ => (face, handle, fake),
        }
    }

    /// Splits `s` into runs of one face each.
    pub fn runs(&self, s: &str, style: Style) -> Vec<Run<'_>> {
        let mut out: Vec<Run<'_>> = Vec::new();
        for c in s.chars() {
            let (face, handle, fake_bold) = self.pick(c, style);
            match out.last_mut() {
                Some(r) if std::ptr::eq(r.face, face) => r.text.push(c),
                _ => out.push(Run {
                    text: c.to_string(),
                    face,
                    handle,
                    fake_bold,
                }),
            }
        }
        out
    }

    pub fn width(&self, s: &str, size: f32, style: Style) -> f32 {
        s.chars()
            .map(|c| self.pick(c, style).0.advance_em(c))
            .sum::<f32>()
            * size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macos_and_windows_fonts_are_candidates_and_the_error_says_what_to_do() {
        let regular: Vec<&str> = CANDIDATES.iter().map(|c| c.regular.0).collect();
        for want in [
            "/System/Library/Fonts/PingFang.ttc",
            "/System/Library/Fonts/Hiragino Sans GB.ttc",
            "/System/Library/Fonts/STHeiti Light.ttc",
            "/Library/Fonts/Arial Unicode.ttf",
            r"C:\Windows\Fonts\msyh.ttc",
            r"C:\Windows\Fonts\simsun.ttc",
            r"C:\Windows\Fonts\arialuni.ttf",
        ] {
            assert!(regular.contains(&want), "{want} is not a candidate");
        }
        let e = ReportError::FontNotFound { looked: "x".into() }.to_string();
        for want in [
            "fonts-noto-cjk",
            "DBDYNO_REPORT_FONT",
            "PingFang",
            "Microsoft YaHei",
        ] {
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn collection_index_is_read_from_the_path() {
        assert_eq!(split_index("/a/b.ttc#2"), (PathBuf::from("/a/b.ttc"), 2));
        assert_eq!(split_index("/a/b.ttf"), (PathBuf::from("/a/b.ttf"), 0));
        assert_eq!(
            split_index("/a/odd#name.ttf"),
            (PathBuf::from("/a/odd#name.ttf"), 0)
        );
    }
}
