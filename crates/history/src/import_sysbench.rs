//! Sysbench text output into the history, figures exactly as printed: each file becomes
//! one run and each sysbench run in it one step. The CLI's `import sysbench` and the
//! app's History screen both import through [`import_sysbench`].
//!
//! A file's content is recognised by its SHA-256, so a log is not filed twice under
//! another name. The scenario comes from the caller, else a scenario name in the file
//! name, else a statement mix that only one standard script prints. Logs carry no clock:
//! a run starts when the caller says, else at the file's modification time minus the run
//! time, and its steps and intervals are placed one after the other from there.
//!
//! Non-goals: reading sysbench's text (the engine's `sysbench_text` does), wording what
//! to do about a problem: errors and notes here say what is wrong and each shell adds
//! its remedy in its own terms (the CLI names its options, the app its controls).

use std::fmt;
use std::path::{Path, PathBuf};

use dbdyno_engine::{Scenario, StepResult};
use dbdyno_sysbench_text::{parse_sysbench_output, ParseError, ParsedRun};

use crate::{BlockingHistory, HistoryError, ImportedFile, NewRun, RunSource, RunState};

/// What to do with a file whose content is already in the history, or was given before
/// it in the same import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicates {
    /// Refuse the file ([`FileError::Duplicate`]).
    Refuse,
    /// Leave it out, listed in [`ImportReport::duplicates`].
    Skip,
    /// Import it again.
    ImportAgain,
}

/// How to import a set of files.
#[derive(Debug, Clone)]
pub struct SysbenchImport {
    /// The environment the runs are filed under.
    pub env: String,
    /// The scenario of every step; None: from the file name or the statement mix.
    pub scenario: Option<Scenario>,
    pub labels: Vec<String>,
    /// When the (first) run of the one file imported started, Unix ms; None: the file's
    /// modification time minus the run time.
    pub started_at_ms: Option<i64>,
    pub duplicates: Duplicates,
    /// Import nothing when a file is refused (the files after it are not read then);
    /// otherwise every file that can be imported is.
    pub all_or_nothing: bool,
}

impl SysbenchImport {
    /// All or nothing, duplicates refused, no scenario, labels or start time given.
    pub fn new(env: impl Into<String>) -> SysbenchImport {
        SysbenchImport {
            env: env.into(),
            scenario: None,
            labels: Vec::new(),
            started_at_ms: None,
            duplicates: Duplicates::Refuse,
            all_or_nothing: true,
        }
    }

    /// The options alone, for `files` files: [`import_sysbench`] checks them first too,
    /// and a caller that opens the history only to import may check before opening it.
    pub fn check(&self, files: usize) -> Result<(), ImportError> {
        dbdyno_profile::validate::check_name(&self.env).map_err(|reason| ImportError::BadEnv {
            env: self.env.clone(),
            reason,
        })?;
        if self.started_at_ms.is_some() && files > 1 {
            return Err(ImportError::StartOfManyFiles);
        }
        Ok(())
    }
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// In the order the files were given.
    pub imported: Vec<ImportedRun>,
    /// Files left out because their content was imported before ([`Duplicates::Skip`]).
    pub duplicates: Vec<Duplicate>,
    /// Files that could not be imported. With [`SysbenchImport::all_or_nothing`] it
    /// holds the first one, and nothing was imported.
    pub refused: Vec<FileError>,
    /// What the imported runs' users should know: guesses made while filing them.
    pub notes: Vec<ImportNote>,
}

/// One file filed as a run.
#[derive(Debug, Clone)]
pub struct ImportedRun {
    pub path: PathBuf,
    /// The file's name, as stored with the run.
    pub file: String,
    pub run_id: i64,
    /// Interrupted when the log was cut off before its summary.
    pub state: RunState,
    /// Each step's scenario and threads, in order.
    pub steps: Vec<(Scenario, u32)>,
}

/// A file whose content is in the history already, or was given before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub path: PathBuf,
    pub of: Earlier,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Earlier {
    /// Imported before as run `id`, from a file named `file`.
    Run { id: i64, file: String },
    /// Given earlier in the same import, as `file`.
    GivenBefore { file: String },
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.of {
            Earlier::Run { id, file } => write!(
                f,
                "{path}: already imported as run {id} (from {file}, same content)"
            ),
            Earlier::GivenBefore { file } => {
                write!(f, "{path}: same content as {file} given before it")
            }
        }
    }
}

/// What was guessed while filing a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportNote {
    /// The statement mix told the scenario (stored as "guessed from the read/write/other mix").
    ScenarioGuessed {
        file: String,
        line: usize,
        scenario: Scenario,
    },
    /// The run is dated by the file's modification time, which a copy or an edit changes.
    DatedByFileTime { file: String, started_at_ms: i64 },
    /// The run printed no interval lines, so its step has no confidence intervals.
    NoIntervals { file: String, line: usize },
    /// A tpcc run whose log counts all transactions together: sysbench-tpcc prints no
    /// New-Order count, so tpmC and NOPM cannot be derived and are left out.
    TpmcUnknown { file: String, line: usize },
}

impl fmt::Display for ImportNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportNote::ScenarioGuessed {
                file,
                line,
                scenario,
            } => write!(
                f,
                "{file} (line {line}): scenario guessed as {scenario} from the query mix"
            ),
            ImportNote::DatedByFileTime {
                file,
                started_at_ms,
            } => write!(
                f,
                "{file}: start time taken from the file's modification time minus the run time ({})",
                crate::time::rfc3339(*started_at_ms)
            ),
            ImportNote::NoIntervals { file, line } => write!(
                f,
                "{file} (line {line}): no interval lines, so the step has no confidence intervals"
            ),
            ImportNote::TpmcUnknown { file, line } => write!(
                f,
                "{file} (line {line}): tpcc run without a New-Order count (sysbench-tpcc prints only all transactions together), so no tpmC or NOPM is recorded"
            ),
        }
    }
}

/// A statement mix that several scripts print, so it does not tell the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementMix {
    ReadsOnly,
    WritesOnly,
    /// No read/write/other counts are printed.
    NoCounts,
}

impl StatementMix {
    fn says(self) -> &'static str {
        match self {
            StatementMix::ReadsOnly => "reads only, which oltp_point_select, select_random_points, select_random_ranges and oltp_read_only --skip-trx all print",
            StatementMix::WritesOnly => "writes only, which oltp_insert, oltp_delete, oltp_update_index and oltp_update_non_index all print",
            StatementMix::NoCounts => "no read/write/other counts are printed",
        }
    }
}

/// Why one file cannot be imported. Each message carries its cause's text (see
/// [`HistoryError`] for why).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("reading {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },

    #[error("{}: not a text file (invalid UTF-8)", path.display())]
    NotText { path: PathBuf },

    #[error("{0}")]
    Duplicate(Duplicate),

    #[error("{}: {cause}", path.display())]
    Parse { path: PathBuf, cause: ParseError },

    /// Neither the caller, the file name nor the statement mix names the scenario.
    #[error("{file} (line {line}): cannot tell the scenario: the file name names none and the statement mix is {}", mix.says())]
    UnknownScenario {
        path: PathBuf,
        file: String,
        line: usize,
        mix: StatementMix,
    },

    #[error("{}: the file has no modification time to date the run by", path.display())]
    Undated { path: PathBuf },
}

impl FileError {
    pub fn path(&self) -> &Path {
        match self {
            FileError::Read { path, .. }
            | FileError::NotText { path }
            | FileError::Parse { path, .. }
            | FileError::UnknownScenario { path, .. }
            | FileError::Undated { path } => path,
            FileError::Duplicate(d) => &d.path,
        }
    }
}

/// Why nothing could be imported at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("environment name '{env}': {reason}")]
    BadEnv { env: String, reason: String },

    #[error("a start time names the start of one file's run; import the files one at a time")]
    StartOfManyFiles,

    #[error(transparent)]
    History(#[from] HistoryError),
}

/// Where a step's scenario came from (stored with the run, in the words the CLI's
/// first imports stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScenarioFrom {
    Given,
    FileName,
    QueryMix,
}

impl ScenarioFrom {
    fn as_str(self) -> &'static str {
        match self {
            ScenarioFrom::Given => "--scenario",
            ScenarioFrom::FileName => "the file name",
            ScenarioFrom::QueryMix => "guessed from the read/write/other mix",
        }
    }
}

/// The scenario of a log: `given`, else a scenario name in the file name (the seed
/// toolkit names logs `oltp_point_select_64.log`), else the statement mix where only
/// one standard script produces it. A reads-only mix does not tell: oltp_point_select,
/// select_random_points and select_random_ranges all print it, and so does
/// oltp_read_only with --skip-trx. Filing such a log under a guess would put it beside
/// the wrong runs, so the scenario must be given then.
fn scenario_of(
    run: &ParsedRun,
    path: &Path,
    file: &str,
    given: Option<Scenario>,
) -> Result<(Scenario, ScenarioFrom), FileError> {
    if let Some(s) = given {
        return Ok((s, ScenarioFrom::Given));
    }
    // Longest name first: a file named for oltp_update_non_index also contains "oltp_update".
    let mut all = Scenario::ALL.to_vec();
    all.sort_by_key(|s| std::cmp::Reverse(s.name().len()));
    if let Some(s) = all.into_iter().find(|s| file.contains(s.name())) {
        return Ok((s, ScenarioFrom::FileName));
    }
    let q = run.queries;
    if writes_like_tpcc(run) {
        return Ok((Scenario::Tpcc, ScenarioFrom::QueryMix));
    }
    let mix = match (q.read > 0, q.write > 0, q.other > 0) {
        (true, false, true) => return Ok((Scenario::OltpReadOnly, ScenarioFrom::QueryMix)),
        (true, true, _) => return Ok((Scenario::OltpReadWrite, ScenarioFrom::QueryMix)),
        (false, true, true) => return Ok((Scenario::OltpWriteOnly, ScenarioFrom::QueryMix)),
        (true, false, false) => StatementMix::ReadsOnly,
        (false, true, false) => StatementMix::WritesOnly,
        _ => StatementMix::NoCounts,
    };
    Err(FileError::UnknownScenario {
        path: path.to_path_buf(),
        file: file.to_string(),
        line: run.first_line,
        mix,
    })
}

/// Writes per transaction from which a read/write/other mix is sysbench-tpcc's: its
/// New-Order alone writes about 23 rows (10 stock updates, 10 order lines, the order, its
/// new-order row, the district), which gives about 14 writes per transaction over the
/// mix, while oltp_read_write writes 4 with its defaults and needs its write options
/// doubled to reach 8.
const TPCC_MIN_WRITES_PER_TRANSACTION: f64 = 8.0;

/// Whether the log's statement mix is sysbench-tpcc's: reads, writes and BEGIN/COMMIT,
/// with far more writes per transaction than the OLTP scripts print by default.
fn writes_like_tpcc(run: &ParsedRun) -> bool {
    let q = run.queries;
    q.read > 0
        && q.other > 0
        && run.transactions > 0
        && q.write as f64 / run.transactions as f64 >= TPCC_MIN_WRITES_PER_TRANSACTION
}

/// SHA-256 of a file's bytes, hex: how a second import of the same log is recognised
/// whatever its name or modification time.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// How long a step measured: its summary's total time, else (no summary) the last
/// interval line's, which is all there is.
fn measured_s(s: &StepResult) -> f64 {
    if s.total_time_s > 0.0 {
        s.total_time_s
    } else {
        s.intervals.last().map_or(0.0, |i| i.elapsed_s)
    }
}

/// Gives the steps of one imported file wall-clock times: the first run starts at
/// `start_ms`, each run follows the previous one, and each interval ends at its step's
/// start plus its elapsed time. Logs carry no clock, so this is the best consistent
/// placement (gaps between runs of a shell loop are unknown and left out).
fn place_in_time(steps: &mut [StepResult], start_ms: i64) -> i64 {
    let mut at = start_ms;
    for s in steps.iter_mut() {
        s.started_unix_ms = at;
        s.ended_unix_ms = at + (measured_s(s) * 1000.0).round() as i64;
        for i in &mut s.intervals {
            i.end_unix_ms = at + (i.elapsed_s * 1000.0).round() as i64;
        }
        at = s.ended_unix_ms;
    }
    at
}

/// A file read, recognised and checked against the earlier imports.
struct Read {
    /// The file's name (what runs list and duplicates name).
    name: String,
    sha256: String,
    text: String,
}

/// A file ready to be stored.
struct Ready {
    path: PathBuf,
    name: String,
    new: NewRun,
    steps: Vec<StepResult>,
    state: RunState,
    ended_ms: i64,
    notes: Vec<ImportNote>,
}

enum Outcome {
    Ready(Box<Ready>),
    Duplicate(Duplicate),
    Refused(FileError),
}

/// Files `files` into the history under `o.env` (see the module doc). Refused files and
/// skipped duplicates are in the report; an error means nothing was imported.
pub fn import_sysbench(
    h: &BlockingHistory,
    files: &[PathBuf],
    o: &SysbenchImport,
) -> Result<ImportReport, ImportError> {
    o.check(files.len())?;
    let mut report = ImportReport::default();
    let mut ready = Vec::new();
    // (sha256, file name) of the files given so far.
    let mut seen: Vec<(String, String)> = Vec::new();
    for path in files {
        match prepare(h, path, o, &mut seen)? {
            Outcome::Ready(r) => ready.push(*r),
            Outcome::Duplicate(d) => report.duplicates.push(d),
            Outcome::Refused(e) => {
                report.refused.push(e);
                if o.all_or_nothing {
                    return Ok(report);
                }
            }
        }
    }
    for r in ready {
        let run_id = h.insert_finished_run(&r.new, &r.steps, r.state, Some(r.ended_ms))?;
        report.notes.extend(r.notes);
        report.imported.push(ImportedRun {
            path: r.path,
            file: r.name,
            run_id,
            state: r.state,
            steps: r.steps.iter().map(|s| (s.scenario, s.threads)).collect(),
        });
    }
    Ok(report)
}

fn prepare(
    h: &BlockingHistory,
    path: &Path,
    o: &SysbenchImport,
    seen: &mut Vec<(String, String)>,
) -> Result<Outcome, ImportError> {
    let read = match read(path) {
        Ok(r) => r,
        Err(e) => return Ok(Outcome::Refused(e)),
    };
    if o.duplicates != Duplicates::ImportAgain {
        let earlier = match seen.iter().find(|(sha, _)| *sha == read.sha256) {
            Some((_, first)) => Some(Earlier::GivenBefore {
                file: first.clone(),
            }),
            None => h
                .find_imports(&read.sha256)?
                .into_iter()
                .next()
                .map(|(id, file)| Earlier::Run { id, file }),
        };
        if let Some(of) = earlier {
            let d = Duplicate {
                path: path.to_path_buf(),
                of,
            };
            return Ok(match o.duplicates {
                Duplicates::Skip => Outcome::Duplicate(d),
                _ => Outcome::Refused(FileError::Duplicate(d)),
            });
        }
    }
    seen.push((read.sha256.clone(), read.name.clone()));
    Ok(match to_run(path, read, o) {
        Ok(r) => Outcome::Ready(Box::new(r)),
        Err(e) => Outcome::Refused(e),
    })
}

fn read(path: &Path) -> Result<Read, FileError> {
    let bytes = std::fs::read(path).map_err(|cause| FileError::Read {
        path: path.to_path_buf(),
        cause,
    })?;
    let sha256 = sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| FileError::NotText {
        path: path.to_path_buf(),
    })?;
    let name = path
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("?")
        .to_string();
    Ok(Read { name, sha256, text })
}

/// The run a read file becomes: its steps with their scenarios, dated and placed in time.
fn to_run(path: &Path, f: Read, o: &SysbenchImport) -> Result<Ready, FileError> {
    let parsed = parse_sysbench_output(&f.text).map_err(|cause| FileError::Parse {
        path: path.to_path_buf(),
        cause,
    })?;
    let mut notes = Vec::new();
    let mut steps: Vec<StepResult> = Vec::new();
    let mut how = Vec::new();
    for r in &parsed {
        let (sc, from) = scenario_of(r, path, &f.name, o.scenario)?;
        if from == ScenarioFrom::QueryMix {
            notes.push(ImportNote::ScenarioGuessed {
                file: f.name.clone(),
                line: r.first_line,
                scenario: sc,
            });
        }
        how.push(from.as_str());
        // Only the engine's own log carries a New-Order count; sysbench-tpcc's does not.
        let step = r.to_step_result(sc);
        if sc == Scenario::Tpcc && step.tpcc.is_none() {
            notes.push(ImportNote::TpmcUnknown {
                file: f.name.clone(),
                line: r.first_line,
            });
        }
        if r.intervals.is_empty() {
            notes.push(ImportNote::NoIntervals {
                file: f.name.clone(),
                line: r.first_line,
            });
        }
        steps.push(step);
    }
    let (started, started_from) = match o.started_at_ms {
        Some(t) => (t, "--started-at"),
        None => {
            let total_ms = steps.iter().map(measured_s).sum::<f64>() * 1000.0;
            let at = modified_ms(path).ok_or_else(|| FileError::Undated {
                path: path.to_path_buf(),
            })? - total_ms as i64;
            notes.push(ImportNote::DatedByFileTime {
                file: f.name.clone(),
                started_at_ms: at,
            });
            (at, "the file's modification time minus the run time")
        }
    };
    let ended_ms = place_in_time(&mut steps, started);
    let first = &parsed[0];
    let environment = serde_json::json!({
        "import": {
            "file": f.name,
            "sha256": f.sha256,
            "sysbench_version": first.sysbench_version,
            "version_line": first.version_line,
            "scenario_from": how,
            "started_at_from": started_from,
            "runs_in_file": parsed.len(),
        }
    });
    let mut new = NewRun::new(&o.env, format!("import sysbench {}", f.name));
    new.source = RunSource::Import;
    new.labels = o.labels.clone();
    new.environment = Some(environment);
    new.started_at_ms = Some(started);
    new.import_file = Some(ImportedFile {
        sha256: f.sha256,
        name: f.name.clone(),
    });
    // A log cut off before its summary is a run that did not finish.
    let state = if parsed.iter().all(|r| r.complete) {
        RunState::Complete
    } else {
        RunState::Interrupted
    };
    Ok(Ready {
        path: path.to_path_buf(),
        name: f.name,
        new,
        steps,
        state,
        ended_ms,
        notes,
    })
}

fn modified_ms(path: &Path) -> Option<i64> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
