//! The PDF's fonts: built in or found at run time, embedded as subsets, measured for
//! layout.
//!
//! A report whose text is Latin (and Greek or Cyrillic) is set in Liberation Sans, which is
//! compiled into the binary ([`EMBEDDED_NAME`], `crates/report/fonts/`, SIL OFL 1.1), so
//! such a PDF renders on a machine with no font installed at all: a server, a container, a
//! CI runner. Only a report holding text that font cannot draw ([`lacking`]: environment
//! names are often Chinese) needs a system font, found as follows.
//!
//! The system font must cover CJK as well as Latin. The path comes from
//! `DBDYNO_REPORT_FONT` (a `.ttf`, `.otf` or `.ttc`; append `#N` to pick face N of a
//! collection), or else the first of [`CANDIDATES`] that exists. Noto Sans CJK
//! (Debian: fonts-noto-cjk) comes as collections of CFF faces; printpdf 0.12 reads a face
//! out of a collection and subsets it, so a 20 MB collection adds only the glyphs used
//! (a few hundred kilobytes) to the file. Droid Sans Fallback (fonts-droid-fallback) is a
//! CJK-only face: with it, Latin text is set in DejaVu Sans (fonts-dejavu-core) and each
//! character the Latin face lacks falls back to the CJK face, run by run.
//!
//! Widths come from the font's own advance table, so tables and right-aligned numbers
//! line up exactly in any viewer.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use printpdf::{ParsedFont, PdfDocument, PdfFontHandle};

use crate::error::ReportError;
use crate::model::Report;

/// Environment variable that names the font file to use.
pub const FONT_ENV: &str = "DBDYNO_REPORT_FONT";

/// The built-in font, named in messages and documentation.
pub const EMBEDDED_NAME: &str = "Liberation Sans";
/// Liberation Sans 2.1.5 (Debian fonts-liberation2), SIL OFL 1.1: see
/// `crates/report/fonts/OFL.txt`. About 400 KB each; a PDF embeds only the glyphs it uses.
static EMBEDDED_REGULAR: &[u8] = include_bytes!("../../../fonts/LiberationSans-Regular.ttf");
static EMBEDDED_BOLD: &[u8] = include_bytes!("../../../fonts/LiberationSans-Bold.ttf");

/// Characters the PDF draws as shapes when no face has them: the "best thread count"
/// mark of the tables, which Liberation Sans lacks. Drawing it keeps a Latin report free
/// of system fonts; it is one em wide, like a CJK font's ★.
pub const DRAWN_STAR: char = '★';
const DRAWN_STAR_EM: f32 = 1.0;

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

/// `p`, a standard location, as seen under `root` (`/` when `None`): tests point `root`
/// at an empty directory to play a machine with no fonts installed.
fn under(root: Option<&Path>, p: &str) -> PathBuf {
    match root {
        None => PathBuf::from(p),
        // Only the path's names: a Windows `C:\` prefix or a leading `/` must not
        // replace the root.
        Some(root) => {
            let mut out = root.to_path_buf();
            let p = p.replace('\\', "/");
            for c in Path::new(&p).components() {
                if let Component::Normal(n) = c {
                    out.push(n);
                }
            }
            out
        }
    }
}

/// The characters of the report's text that the built-in font cannot draw, in order.
/// Every string of the model is read (its JSON form: names, labels, warnings, commands,
/// the plan); what the PDF adds itself (headings, "—", "Δ", "→", "≥", "★" …) is covered
/// by the built-in font or drawn ([`DRAWN_STAR`]), which the PDF tests check through
/// the missing-glyph warning.
pub fn lacking(r: &Report, builtin: &Embedded) -> Vec<char> {
    let json = serde_json::to_string(r).unwrap_or_default();
    let mut seen = BTreeSet::new();
    json.chars()
        // Printable ASCII is in every Latin font; whitespace and controls are not drawn.
        .filter(|c| !c.is_ascii() && !c.is_whitespace() && !c.is_control())
        .filter(|&c| c != DRAWN_STAR && !builtin.regular.has_glyph(c))
        .filter(|&c| seen.insert(c))
        .collect()
}

/// The faces a PDF is set in: the built-in font, or files of the system.
pub enum Chosen {
    Embedded(Box<Embedded>),
    Files(FontFiles),
}

/// Picks the report's fonts: `DBDYNO_REPORT_FONT` when set (the user's choice, for every
/// report, as before); else the built-in Latin font when it can draw all of the report's
/// text; else a system font with CJK coverage ([`discover`], whose error says what to
/// install and which characters need it). The built-in font comes first so that a
/// Latin report never depends on what the machine has installed; the system font is
/// kept for the text only it can draw, and then sets the whole report as before (its
/// Latin matches its CJK, and its monospaced face serves the appendix).
pub fn choose(r: &Report, root: Option<&Path>) -> Result<Chosen, ReportError> {
    if std::env::var_os(FONT_ENV).is_some_and(|v| !v.is_empty()) {
        return discover(root, &[]).map(Chosen::Files);
    }
    let builtin = Embedded::load()?;
    let need = lacking(r, &builtin);
    if need.is_empty() {
        return Ok(Chosen::Embedded(Box::new(builtin)));
    }
    discover(root, &need).map(Chosen::Files)
}

/// Finds the system fonts: `DBDYNO_REPORT_FONT` first (regular face only; bold is then
/// drawn from the same face), then [`CANDIDATES`], under `root` (`/` when `None`).
/// `need` are the characters that call for a system font, named in the error when none
/// is found.
pub fn discover(root: Option<&Path>, need: &[char]) -> Result<FontFiles, ReportError> {
    if let Some(v) = std::env::var_os(FONT_ENV).filter(|v| !v.is_empty()) {
        let (path, index) = split_index(&v.to_string_lossy());
        if !path.is_file() {
            return Err(ReportError::Font {
                path,
                detail: format!("{FONT_ENV} names a file that does not exist"),
            });
        }
        // A CJK-only face (Droid Sans Fallback) serves as the fallback of DejaVu Sans.
        let dejavu = under(root, DEJAVU);
        return Ok(FontFiles {
            regular: (path, index),
            bold: None,
            mono: None,
            fallback: dejavu.is_file().then_some((dejavu, 0)),
        });
    }
    let exists = |p: &str| under(root, p).is_file();
    for c in CANDIDATES {
        let fallback_ok = c.fallback.is_none_or(|(p, _)| exists(p));
        if exists(c.regular.0) && fallback_ok {
            let own = |f: Option<(&'static str, usize)>| {
                f.filter(|(p, _)| exists(p))
                    .map(|(p, i)| (under(root, p), i))
            };
            return Ok(FontFiles {
                regular: (under(root, c.regular.0), c.regular.1),
                bold: own(c.bold),
                mono: own(c.mono),
                fallback: own(c.fallback),
            });
        }
    }
    Err(ReportError::FontNotFound {
        needed: describe_chars(need),
        looked: std::iter::once(format!("${FONT_ENV}"))
            .chain(
                CANDIDATES
                    .iter()
                    .map(|c| under(root, c.regular.0).display().to_string()),
            )
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The characters for the error: the first dozen, then how many more.
fn describe_chars(need: &[char]) -> String {
    if need.is_empty() {
        return "text".to_string();
    }
    const SHOWN: usize = 12;
    let mut s: String = need.iter().take(SHOWN).collect();
    if need.len() > SHOWN {
        s.push_str(&format!(" and {} more", need.len() - SHOWN));
    }
    format!("text the built-in {EMBEDDED_NAME} cannot draw ({s})")
}

/// The built-in faces, parsed.
pub struct Embedded {
    pub regular: Face,
    pub bold: Face,
}

impl Embedded {
    pub fn load() -> Result<Embedded, ReportError> {
        let name = |f: &str| PathBuf::from(format!("(built in) {f}"));
        Ok(Embedded {
            regular: Face::load(EMBEDDED_REGULAR, 0, &name("LiberationSans-Regular.ttf"))?,
            bold: Face::load(EMBEDDED_BOLD, 0, &name("LiberationSans-Bold.ttf"))?,
        })
    }
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
    /// The system files the faces come from; `None`: the built-in font.
    pub files: Option<FontFiles>,
    /// Characters drawn that no face has (they show as the font's empty box): reported
    /// as a warning by [`super::render_with_warnings`].
    missing: RefCell<BTreeSet<char>>,
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
    /// No face has these characters ([`DRAWN_STAR`]): the layout draws them as shapes.
    pub drawn: bool,
}

impl Run<'_> {
    /// Width of the run at `size` points.
    pub fn width(&self, size: f32) -> f32 {
        if self.drawn {
            self.text.chars().count() as f32 * DRAWN_STAR_EM * size
        } else {
            self.face.width(&self.text, size)
        }
    }
}

impl Fonts {
    /// Adds the built-in faces to `doc` (subset when the document is saved). No
    /// monospaced face: the appendix's commands and plan are set in the regular one.
    pub fn embedded(faces: Embedded, doc: &mut PdfDocument) -> Fonts {
        let Embedded { regular, bold } = faces;
        let regular_id = PdfFontHandle::External(doc.add_font(&regular.parsed));
        let bold_id = PdfFontHandle::External(doc.add_font(&bold.parsed));
        Fonts {
            regular,
            bold: Some(bold),
            mono: None,
            fallback: None,
            regular_id,
            bold_id: Some(bold_id),
            mono_id: None,
            fallback_id: None,
            files: None,
            missing: RefCell::new(BTreeSet::new()),
        }
    }

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
            files: Some(files),
            missing: RefCell::new(BTreeSet::new()),
        })
    }

    /// Characters drawn so far that no face has, in code point order.
    pub fn missing(&self) -> Vec<char> {
        self.missing.borrow().iter().copied().collect()
    }

    /// Whether no face has `c` and the layout draws it as a shape.
    fn drawn(&self, c: char) -> bool {
        c == DRAWN_STAR
            && !self.regular.has_glyph(c)
            && !self.fallback.as_ref().is_some_and(|f| f.has_glyph(c))
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
    /// fallback when that has it, else the regular face (bold drawn stroked), else the
    /// styled face (which draws its missing glyph, noted in `missing`).
    fn pick(&self, c: char, style: Style) -> (&Face, &PdfFontHandle, bool) {
        let (face, handle, fake) = self.styled(style);
        if c == ' ' || face.has_glyph(c) {
            return (face, handle, fake);
        }
        match (&self.fallback, &self.fallback_id) {
            (Some(f), Some(h)) if f.has_glyph(c) => (f, h, style == Style::Bold),
            _ if self.regular.has_glyph(c) => {
                (&self.regular, &self.regular_id, style == Style::Bold)
            }
            _ => {
                if !c.is_whitespace() && !c.is_control() && !self.drawn(c) {
                    self.missing.borrow_mut().insert(c);
                }
                (face, handle, fake)
            }
        }
    }

    /// Splits `s` into runs of one face each.
    pub fn runs(&self, s: &str, style: Style) -> Vec<Run<'_>> {
        let mut out: Vec<Run<'_>> = Vec::new();
        for c in s.chars() {
            let (face, handle, fake_bold) = self.pick(c, style);
            let drawn = self.drawn(c);
            match out.last_mut() {
                Some(r) if std::ptr::eq(r.face, face) && r.drawn == drawn => r.text.push(c),
                _ => out.push(Run {
                    text: c.to_string(),
                    face,
                    handle,
                    fake_bold,
                    drawn,
                }),
            }
        }
        out
    }

    pub fn width(&self, s: &str, size: f32, style: Style) -> f32 {
        s.chars()
            .map(|c| {
                if self.drawn(c) {
                    DRAWN_STAR_EM
                } else {
                    self.pick(c, style).0.advance_em(c)
                }
            })
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
        let e = ReportError::FontNotFound {
            needed: describe_chars(&['华', '为']),
            looked: "x".into(),
        }
        .to_string();
        for want in [
            "fonts-noto-cjk",
            "DBDYNO_REPORT_FONT",
            "PingFang",
            "Microsoft YaHei",
            "Liberation Sans cannot draw (华为)",
        ] {
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn the_built_in_font_loads_and_draws_the_pdfs_own_symbols() {
        let f = Embedded::load().expect("built-in font");
        // What the PDF writes itself besides ASCII (format.rs, sections, charts); ★ is
        // drawn as a shape instead.
        for c in "—–×Δ…→·−≥≤±≠µ°%‰éüßçñ".chars() {
            assert!(f.regular.has_glyph(c), "{c} (U+{:04X}) regular", c as u32);
            assert!(f.bold.has_glyph(c), "{c} (U+{:04X}) bold", c as u32);
        }
        assert!(!f.regular.has_glyph(DRAWN_STAR));
        assert!(!f.regular.has_glyph('中'));
    }

    #[test]
    fn standard_locations_are_looked_up_under_the_root() {
        let root = Path::new("/tmp/fonts-root");
        assert_eq!(
            under(Some(root), "/usr/share/fonts/a.ttc"),
            PathBuf::from("/tmp/fonts-root/usr/share/fonts/a.ttc")
        );
        // A Windows location stays under the root too (its names only, on Unix).
        #[cfg(unix)]
        assert_eq!(
            under(Some(root), r"C:\Windows\Fonts\msyh.ttc"),
            PathBuf::from("/tmp/fonts-root/C:/Windows/Fonts/msyh.ttc")
        );
        assert_eq!(under(None, "/usr/a.ttf"), PathBuf::from("/usr/a.ttf"));
        // An empty root: nothing found, and the error names the characters that need a
        // system font.
        let dir = tempfile::tempdir().unwrap();
        if std::env::var_os(FONT_ENV).is_none() {
            let e = discover(Some(dir.path()), &['华']).unwrap_err().to_string();
            assert!(
                e.contains("cannot draw (华)") && e.contains("fonts-noto-cjk"),
                "{e}"
            );
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
