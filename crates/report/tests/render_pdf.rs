//! The PDF as a reader gets it: every page rendered to an image by poppler's pdftoppm
//! (which must not complain: printpdf issue #211's "Bad color space" or any "Syntax
//! Error" fails the test), pages not blank, and the text read back by pdftotext: the
//! environment names (CJK included), the headline figures, "Page 1 of N". Needs
//! poppler-utils and a CJK font (scripts/deps.sh installs both). A Latin report needs no
//! system font at all (the built-in Liberation Sans): tests point font discovery at an
//! empty directory (`PdfOptions::font_root`) to play a machine without fonts (run them
//! with `DBDYNO_REPORT_FONT` unset: that variable picks the font for every report).

mod support;

use std::path::Path;

use dbdyno_report::format;
use dbdyno_report::render::pdf::{self, PageSize, PdfOptions};
use support::{report, tool};

/// Share of pixels darker than near-white in a binary PGM (P5) image.
fn ink_share(pgm: &[u8]) -> f64 {
    // Header: "P5\n<w> <h>\n<max>\n" (pdftoppm writes no comments).
    let mut fields = 0;
    let mut i = 0;
    while fields < 4 && i < pgm.len() {
        while i < pgm.len() && pgm[i].is_ascii_whitespace() {
            i += 1;
        }
        while i < pgm.len() && !pgm[i].is_ascii_whitespace() {
            i += 1;
        }
        fields += 1;
    }
    let pixels = &pgm[i + 1..];
    pixels.iter().filter(|&&p| p < 235).count() as f64 / pixels.len().max(1) as f64
}

fn render_and_check(size: PageSize, dir: &Path) -> (String, usize) {
    let r = report("three_envs.json", Some("idc"));
    check_pdf(&r, &PdfOptions::new(size), dir)
}

/// Renders `r`, checks the file as [`render_and_check`] says, and returns its text (read
/// by `pdftotext -layout`) and page count.
fn check_pdf(r: &dbdyno_report::Report, opts: &PdfOptions, dir: &Path) -> (String, usize) {
    let size = opts.page_size;
    let (bytes, warnings) = pdf::render_with_warnings(r, opts).expect("pdf renders");
    assert!(warnings.is_empty(), "printpdf warned: {warnings:#?}");
    assert!(bytes.starts_with(b"%PDF-"));
    // Fonts are subset: a 20 MB CJK collection must not be embedded whole.
    assert!(bytes.len() < 2_000_000, "{} bytes", bytes.len());
    let path = dir.join("report.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();

    let (info, _) = tool("pdfinfo", &[p]);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("page count");
    let want = match size {
        PageSize::A4 => "595.276 x 841.89 pts (A4)",
        PageSize::Letter => "612 x 792 pts (letter)",
    };
    assert!(info.contains(want), "{info}");
    // Metadata tells the truth: the report's own date (support::opts pins 2025-06-15
    // 15:06:40 UTC), PDF 1.4 for the transparency groups of the charts, no PDF/X claim.
    assert!(bytes.starts_with(b"%PDF-1.4"), "{:?}", &bytes[..9]);
    let version = info.lines().find_map(|l| l.strip_prefix("PDF version:"));
    assert_eq!(version.map(str::trim), Some("1.4"), "{info}");
    for date in ["CreationDate:", "ModDate:"] {
        let line = info.lines().find(|l| l.starts_with(date)).unwrap_or("");
        assert!(line.contains("2025") && line.contains("Jun 15"), "{info}");
    }
    assert!(!info.contains("PDF subtype"), "{info}");

    // Every page to an image; poppler must not complain about anything.
    let prefix = dir.join("page");
    let (_, stderr) = tool(
        "pdftoppm",
        &["-r", "30", "-gray", p, prefix.to_str().unwrap()],
    );
    for bad in ["Bad color space", "Syntax Error", "Syntax Warning", "Error"] {
        assert!(!stderr.contains(bad), "pdftoppm: {stderr}");
    }
    let mut images: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgm"))
        .collect();
    images.sort();
    assert_eq!(images.len(), pages);
    for img in &images {
        let share = ink_share(&std::fs::read(img).unwrap());
        assert!(share > 0.005, "{} is blank ({share})", img.display());
    }

    let (fonts, _) = tool("pdffonts", &[p]);
    assert!(
        fonts.lines().skip(2).all(|l| l.contains(" yes yes yes ")),
        "every font embedded, subset, with a Unicode map:\n{fonts}"
    );
    let (text, stderr) = tool("pdftotext", &["-layout", p, "-"]);
    assert!(stderr.is_empty(), "pdftotext: {stderr}");
    (text, pages)
}

#[test]
fn a4_pdf_renders_clean_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let (text, pages) = render_and_check(PageSize::A4, dir.path());
    assert!(pages >= 10, "{pages} pages");
    for needle in [
        "idc",
        "华为云",
        "ali_cloud",
        "Executive summary",
        "Environments",
        "Appendix",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }
    assert!(text.contains(&format!("Page 1 of {pages}")));
    assert!(text.contains(&format!("Page {pages} of {pages}")));
    // Headline figures are text, not outlines.
    let r = report("three_envs.json", Some("idc"));
    let peak = r.scenarios[0].envs[0].peak.unwrap();
    assert!(
        text.contains(&format!("{} TPS", format::rate(peak.tps))),
        "peak TPS"
    );
    assert!(text.contains("35% more oltp_write_only TPS than idc"));
    assert!(text.contains("FAIL"));
    headings_keep_their_tables(&text);
    assert!(
        text.contains("Regressed"),
        "the cover's table of regressed cells"
    );
    // The comparison is a side-by-side table of real text.
    assert!(text.contains("Side by side against the baseline idc"));
    // Chart labels are real text as well.
    assert!(text.contains("oltp_read_write: QPS by threads"));
}

#[test]
fn letter_pdf_renders_clean() {
    let dir = tempfile::tempdir().unwrap();
    let (text, _) = render_and_check(PageSize::Letter, dir.path());
    assert!(text.contains("华为云"));
}

#[test]
fn a_missing_font_file_is_a_clear_error() {
    let r = report("seed_000.json", None);
    let opts = PdfOptions {
        page_size: PageSize::A4,
        fonts: Some(pdf::FontFiles {
            regular: ("/nonexistent/font.ttf".into(), 0),
            bold: None,
            mono: None,
            fallback: None,
        }),
        font_root: None,
    };
    let e = pdf::render(&r, &opts).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/font.ttf"), "{e}");
}

#[test]
fn dejavu_with_droid_sans_fallback_sets_latin_and_cjk() {
    // The second choice of fonts (fonts-dejavu-core + fonts-droid-fallback): Latin from
    // DejaVu Sans, every CJK character from Droid Sans Fallback.
    let dejavu = "/usr/share/fonts/truetype/dejavu/";
    let droid = Path::new("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf");
    assert!(
        droid.is_file(),
        "install fonts-droid-fallback (bash scripts/deps.sh) for this test"
    );
    let mut rs = support::runs("seed_003_cold_start.json");
    rs[0].env_name = "华为云 lab".into();
    let r = dbdyno_report::build(&rs, &support::opts(None)).unwrap();
    let opts = PdfOptions {
        page_size: PageSize::A4,
        fonts: Some(pdf::FontFiles {
            regular: (format!("{dejavu}DejaVuSans.ttf").into(), 0),
            bold: Some((format!("{dejavu}DejaVuSans-Bold.ttf").into(), 0)),
            mono: Some((format!("{dejavu}DejaVuSansMono.ttf").into(), 0)),
            fallback: Some((droid.into(), 0)),
        }),
        font_root: None,
    };
    let bytes = pdf::render(&r, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("droid.pdf");
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap();
    let (text, _) = tool("pdftotext", &[p, "-"]);
    assert!(text.contains("76.84"), "{text}");
    assert!(text.contains("prewarm was off"));
    assert!(text.contains("华为云 lab"), "{text}");
    let (fonts, _) = tool("pdffonts", &[p]);
    assert!(
        fonts.contains("DejaVuSans") && fonts.contains("DroidSansFallback"),
        "{fonts}"
    );
    let (_, stderr) = tool(
        "pdftoppm",
        &[
            "-r",
            "20",
            "-f",
            "1",
            "-l",
            "1",
            p,
            dir.path().join("d").to_str().unwrap(),
        ],
    );
    assert!(stderr.is_empty(), "{stderr}");
}

/// Options for a machine with no system font: discovery looks under an empty directory.
fn no_system_fonts(size: PageSize, empty: &Path) -> PdfOptions {
    PdfOptions {
        font_root: Some(empty.to_path_buf()),
        ..PdfOptions::new(size)
    }
}

/// The issue's case: a report whose text is all Latin renders on a machine without any
/// font (before the built-in font, this failed with "no font with CJK coverage found"),
/// in Liberation Sans only, clean, and its text reads back: accented Latin, Greek and
/// Cyrillic names too, and the ★ of the tables (drawn, not a glyph) leaves no empty box.
#[test]
fn a_latin_report_renders_with_no_system_font() {
    let empty = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut runs = support::runs("three_envs.json");
    let names = ["idc", "Zürich café–prod", "Αθήνα Москва"];
    for (r, n) in runs.iter_mut().zip(names) {
        r.env_name = n.to_string();
    }
    let r = dbdyno_report::build(&runs, &support::opts(Some("idc"))).unwrap();
    let opts = no_system_fonts(PageSize::A4, empty.path());
    let (text, pages) = check_pdf(&r, &opts, dir.path());
    assert!(pages >= 10, "{pages} pages");
    for needle in names.into_iter().chain([
        "Executive summary",
        "Environments",
        "Appendix",
        "35% more oltp_write_only TPS than idc",
        "best thread count: the knee",
        "oltp_read_write: QPS by threads",
    ]) {
        assert!(text.contains(needle), "missing {needle:?}");
    }
    assert!(text.contains(&format!("Page 1 of {pages}")));
    let (fonts, _) = tool(
        "pdffonts",
        &[dir.path().join("report.pdf").to_str().unwrap()],
    );
    let faces: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!faces.is_empty(), "{fonts}");
    assert!(
        faces.iter().all(|l| l.contains("LiberationSans")),
        "only the built-in font:\n{fonts}"
    );
    assert!(fonts.contains("LiberationSans-Bold"), "{fonts}");
}

/// A CJK name with no CJK font on the machine is still today's clear error: what to
/// install, the variable to set, and which characters need it.
#[test]
fn a_cjk_name_with_no_cjk_font_is_a_clear_error() {
    let empty = tempfile::tempdir().unwrap();
    let r = report("three_envs.json", Some("idc"));
    let e = pdf::render(&r, &no_system_fonts(PageSize::A4, empty.path()))
        .unwrap_err()
        .to_string();
    for want in [
        "no font with CJK coverage found",
        "Liberation Sans cannot draw (华为云)",
        "apt-get install fonts-noto-cjk",
        "DBDYNO_REPORT_FONT",
    ] {
        assert!(e.contains(want), "{want:?} not in: {e}");
    }
    assert!(
        e.contains(&empty.path().display().to_string()),
        "looked under the root: {e}"
    );
}

/// With a CJK font in a standard location (here under the root), the CJK report is set
/// in it, as before the built-in font.
#[test]
fn a_cjk_report_uses_the_system_font_found_under_the_root() {
    let noto = Path::new("/usr/share/fonts/opentype/noto");
    assert!(
        noto.join("NotoSansCJK-Regular.ttc").is_file(),
        "install fonts-noto-cjk (bash scripts/deps.sh) for this test"
    );
    let root = tempfile::tempdir().unwrap();
    let dest = root.path().join("usr/share/fonts/opentype/noto");
    std::fs::create_dir_all(&dest).unwrap();
    for f in ["NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc"] {
        std::os::unix::fs::symlink(noto.join(f), dest.join(f)).unwrap();
    }
    let mut rs = support::runs("seed_003_cold_start.json");
    rs[0].env_name = "华为云 lab".into();
    let r = dbdyno_report::build(&rs, &support::opts(None)).unwrap();
    let (bytes, warnings) =
        pdf::render_with_warnings(&r, &no_system_fonts(PageSize::A4, root.path())).unwrap();
    assert!(warnings.is_empty(), "{warnings:#?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cjk.pdf");
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap();
    let (text, _) = tool("pdftotext", &[p, "-"]);
    assert!(text.contains("华为云 lab"), "{text}");
    let (fonts, _) = tool("pdffonts", &[p]);
    assert!(
        fonts.contains("NotoSansCJK") && !fonts.contains("Liberation"),
        "{fonts}"
    );
}

/// Hostile and CJK environment names and a title too long for the cover: the PDF renders
/// clean, names read back, the title's third line ends with "…", and a heading is never
/// left alone at the foot of a page: each table heading shares its page with its table.
#[test]
fn hostile_names_and_a_long_title_lay_out_cleanly() {
    let mut runs = support::runs("three_envs.json");
    let names = [
        "<script>alert(1)</script> & \"quoted\"",
        "华为云 (cn-east-3) 生产环境",
        "ali_cloud'; DROP TABLE x; --",
    ];
    for (r, n) in runs.iter_mut().zip(names) {
        r.env_name = n.to_string();
    }
    let mut opts = support::opts(Some("idc"));
    opts.title = Some(format!(
        "Quarterly database platform comparison {} with a title far too long to fit three lines of the cover band at twenty-two points",
        names.join(" versus ")
    ));
    let r = dbdyno_report::build(&runs, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.pdf");
    let (bytes, warnings) = pdf::render_with_warnings(&r, &PdfOptions::new(PageSize::A4)).unwrap();
    assert!(warnings.is_empty(), "printpdf warned: {warnings:#?}");
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap();
    let prefix = dir.path().join("page");
    let (_, stderr) = tool(
        "pdftoppm",
        &["-r", "20", "-gray", p, prefix.to_str().unwrap()],
    );
    assert!(
        !stderr.contains("Error") && !stderr.contains("Bad"),
        "{stderr}"
    );
    let (text, _) = tool("pdftotext", &["-layout", p, "-"]);
    for n in names {
        assert!(text.contains(n), "{n} in the PDF text");
    }
    let pages: Vec<&str> = text.split('\u{c}').collect();
    assert!(
        pages[0].contains('…'),
        "the cover title is cut with …:\n{}",
        pages[0]
    );
    headings_keep_their_tables(&text);
}

/// Each table heading shares its page with its table's header row.
fn headings_keep_their_tables(text: &str) {
    for page in text.split('\u{c}') {
        for heading in [
            "Key figures: peak TPS per scenario",
            "Knee and bottleneck per scenario",
            "Per environment",
            "Side by side against the baseline",
        ] {
            if let Some(at) = page.find(heading) {
                let after = &page[at + heading.len()..];
                assert!(
                    after.contains("Threads") || after.contains("Scenario"),
                    "{heading:?} is not followed by its table on its page:\n{page}"
                );
            }
        }
    }
}
