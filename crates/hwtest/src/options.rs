//! The tests' options with sysbench 1.0.20's names and defaults (`sysbench <test>
//! help`, `sysbench --help`), read from `--name=value` pairs where the last one wins.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::error::OptionError;
use crate::result::{
    FileExtraFlag, FileIoMode, FileTestMode, MemoryAccessMode, MemoryOper, MemoryScope,
};
use crate::size::parse_size;

/// Which test the options are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    FileIo,
    Cpu,
    Memory,
}

impl TestKind {
    pub fn name(self) -> &'static str {
        match self {
            TestKind::FileIo => "fileio",
            TestKind::Cpu => "cpu",
            TestKind::Memory => "memory",
        }
    }

    pub fn from_name(name: &str) -> Option<TestKind> {
        match name {
            "fileio" => Some(TestKind::FileIo),
            "cpu" => Some(TestKind::Cpu),
            "memory" => Some(TestKind::Memory),
            _ => None,
        }
    }
}

/// sysbench's general options that these tests use.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneralOptions {
    pub threads: u32,
    /// `--time`: seconds, 0 = no limit.
    pub time_s: u64,
    /// `--events`: 0 = no limit.
    pub events: u64,
    /// `--report-interval`: seconds, 0 = no interval lines.
    pub report_interval_s: u64,
    /// `--percentile`: 0 disables the percentile line.
    pub percentile: u32,
    pub histogram: bool,
    /// `--rand-seed`: 0 seeds from the clock.
    pub rand_seed: u64,
}

impl Default for GeneralOptions {
    fn default() -> Self {
        GeneralOptions {
            threads: 1,
            time_s: 10,
            events: 0,
            report_interval_s: 0,
            percentile: 95,
            histogram: false,
            rand_seed: 0,
        }
    }
}

/// `--file-fsync-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsyncMode {
    Fsync,
    Fdatasync,
}

/// `sysbench fileio help`'s options, plus `--file-dir` (where the files live).
#[derive(Debug, Clone, PartialEq)]
pub struct FileIoOptions {
    pub file_num: u64,
    pub block_size: u64,
    pub total_size: u64,
    /// Required by `run` only.
    pub test_mode: Option<FileTestMode>,
    pub io_mode: FileIoMode,
    pub extra_flags: Vec<FileExtraFlag>,
    pub fsync_freq: u64,
    pub fsync_all: bool,
    pub fsync_end: bool,
    pub fsync_mode: FsyncMode,
    pub merged_requests: u64,
    pub rw_ratio: f64,
    /// Our addition: the directory of `test_file.N` (sysbench: the current one).
    pub dir: PathBuf,
}

impl Default for FileIoOptions {
    fn default() -> Self {
        FileIoOptions {
            file_num: 128,
            block_size: 16384,
            total_size: 2 << 30,
            test_mode: None,
            io_mode: FileIoMode::Sync,
            extra_flags: Vec::new(),
            fsync_freq: 100,
            fsync_all: false,
            fsync_end: true,
            fsync_mode: FsyncMode::Fsync,
            merged_requests: 0,
            rw_ratio: 1.5,
            dir: PathBuf::from("."),
        }
    }
}

impl FileIoOptions {
    /// sysbench: `file_size = total_size / num_files`.
    pub fn file_size(&self) -> u64 {
        self.total_size / self.file_num
    }

    /// A sequential request's size: `block × merged` when merging.
    pub fn request_size(&self) -> u64 {
        self.block_size * self.merged_requests.max(1)
    }

    /// `--file-fsync-all` turns periodic and final fsyncs off, as in sysbench.
    pub fn effective_fsync_freq(&self) -> u64 {
        if self.fsync_all {
            0
        } else {
            self.fsync_freq
        }
    }

    pub fn effective_fsync_end(&self) -> bool {
        self.fsync_end && !self.fsync_all
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CpuOptions {
    pub max_prime: u64,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions { max_prime: 10000 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryOptions {
    pub block_size: u64,
    /// 0 = no limit (the time limit ends the test).
    pub total_size: u64,
    pub scope: MemoryScope,
    pub oper: MemoryOper,
    pub access_mode: MemoryAccessMode,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            block_size: 1024,
            total_size: 100 << 30,
            scope: MemoryScope::Global,
            oper: MemoryOper::Write,
            access_mode: MemoryAccessMode::Seq,
        }
    }
}

/// The options of one test.
#[derive(Debug, Clone, PartialEq)]
pub enum TestOptions {
    FileIo(FileIoOptions),
    Cpu(CpuOptions),
    Memory(MemoryOptions),
}

/// Everything one invocation was given.
#[derive(Debug, Clone, PartialEq)]
pub struct HwTestOptions {
    pub general: GeneralOptions,
    pub test: TestOptions,
    /// The pairs as given, last value per name (recorded in the result).
    pub given: BTreeMap<String, String>,
}

impl HwTestOptions {
    /// Reads `(name, value)` pairs (names without `--`, dashed); later pairs win. A
    /// flag given without a value (`--file-fsync-all`) comes as value `""` and means on.
    pub fn from_pairs(
        kind: TestKind,
        pairs: &[(String, String)],
    ) -> Result<HwTestOptions, OptionError> {
        let mut general = GeneralOptions::default();
        let mut test = match kind {
            TestKind::FileIo => TestOptions::FileIo(FileIoOptions::default()),
            TestKind::Cpu => TestOptions::Cpu(CpuOptions::default()),
            TestKind::Memory => TestOptions::Memory(MemoryOptions::default()),
        };
        let mut given = BTreeMap::new();
        for (name, value) in pairs {
            let v = Value { name, value };
            let taken = set_general(&mut general, &v)?
                || match &mut test {
                    TestOptions::FileIo(o) => set_fileio(o, &v)?,
                    TestOptions::Cpu(o) => set_cpu(o, &v)?,
                    TestOptions::Memory(o) => set_memory(o, &v)?,
                };
            if !taken {
                return Err(OptionError::Unknown {
                    name: name.clone(),
                    test: kind.name(),
                });
            }
            given.insert(name.clone(), value.clone());
        }
        Ok(HwTestOptions {
            general,
            test,
            given,
        })
    }

    pub fn kind(&self) -> TestKind {
        match self.test {
            TestOptions::FileIo(_) => TestKind::FileIo,
            TestOptions::Cpu(_) => TestKind::Cpu,
            TestOptions::Memory(_) => TestKind::Memory,
        }
    }
}

/// One `--name=value` being read.
struct Value<'a> {
    name: &'a str,
    value: &'a str,
}

impl Value<'_> {
    fn invalid(&self, expected: &str) -> OptionError {
        OptionError::Invalid {
            name: self.name.to_string(),
            value: self.value.to_string(),
            expected: expected.to_string(),
        }
    }

    fn unsupported(&self, reason: &'static str) -> OptionError {
        OptionError::Unsupported {
            name: self.name.to_string(),
            // A flag given bare is on: say so rather than print an empty value.
            value: if self.value.is_empty() {
                "on"
            } else {
                self.value
            }
            .to_string(),
            reason,
        }
    }

    fn int(&self) -> Result<u64, OptionError> {
        self.value
            .trim()
            .parse()
            .map_err(|_| self.invalid("expected a whole number (0 or more)"))
    }

    fn positive(&self) -> Result<u64, OptionError> {
        match self.int()? {
            0 => Err(self.invalid("expected a whole number above 0")),
            n => Ok(n),
        }
    }

    fn size(&self) -> Result<u64, OptionError> {
        parse_size(self.value).ok_or_else(|| {
            self.invalid("expected a size: a number with an optional K, M, G or T (powers of 1024)")
        })
    }

    /// sysbench's BOOL: on/off, true/false, yes/no, 1/0; no value means on.
    fn flag(&self) -> Result<bool, OptionError> {
        match self.value.trim().to_ascii_lowercase().as_str() {
            "" | "on" | "true" | "yes" | "1" => Ok(true),
            "off" | "false" | "no" | "0" => Ok(false),
            _ => Err(self.invalid("expected on or off")),
        }
    }

    fn one_of<T: Copy>(&self, choices: &[(&str, T)]) -> Result<T, OptionError> {
        choices
            .iter()
            .find(|(n, _)| *n == self.value.trim())
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                self.invalid(&format!("expected one of {}", names.join(", ")))
            })
    }
}

fn set_general(o: &mut GeneralOptions, v: &Value) -> Result<bool, OptionError> {
    match v.name {
        "threads" => {
            o.threads = u32::try_from(v.positive()?).map_err(|_| v.invalid("too many threads"))?
        }
        "time" => o.time_s = v.int()?,
        "events" => o.events = v.int()?,
        "report-interval" => o.report_interval_s = v.int()?,
        "percentile" => {
            let p = v.int()?;
            if p > 100 {
                return Err(v.invalid("expected a percentile rank from 0 to 100"));
            }
            o.percentile = p as u32;
        }
        "histogram" => o.histogram = v.flag()?,
        "rand-seed" => o.rand_seed = v.int()?,
        // fileio and memory draw uniform numbers whatever --rand-type says (sysbench
        // calls sb_rand_uniform_double directly), so the type is taken and recorded.
        "rand-type" => {
            v.one_of(&[
                ("uniform", ()),
                ("gaussian", ()),
                ("special", ()),
                ("pareto", ()),
            ])?;
        }
        "validate" => {
            if v.flag()? {
                return Err(v.unsupported(
                    "checksum validation of fileio blocks is not implemented; run without it",
                ));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn set_fileio(o: &mut FileIoOptions, v: &Value) -> Result<bool, OptionError> {
    match v.name {
        "file-num" => o.file_num = v.positive()?,
        "file-block-size" => o.block_size = v.positive()?,
        "file-total-size" => {
            o.total_size = v.size()?;
            if o.total_size == 0 {
                return Err(v.invalid("expected a size above 0"));
            }
        }
        "file-test-mode" => {
            o.test_mode = Some(v.one_of(&[
                ("seqwr", FileTestMode::Seqwr),
                ("seqrewr", FileTestMode::Seqrewr),
                ("seqrd", FileTestMode::Seqrd),
                ("rndrd", FileTestMode::Rndrd),
                ("rndwr", FileTestMode::Rndwr),
                ("rndrw", FileTestMode::Rndrw),
            ])?)
        }
        "file-io-mode" => {
            o.io_mode = v.one_of(&[
                ("sync", FileIoMode::Sync),
                ("async", FileIoMode::Async),
                ("mmap", FileIoMode::Mmap),
            ])?;
            if o.io_mode == FileIoMode::Async {
                return Err(v.unsupported(
                    "Linux native AIO is not implemented; use sync with more --threads for the same queue depth",
                ));
            }
        }
        "file-async-backlog" => {
            v.positive()?;
        }
        "file-extra-flags" => {
            let mut flags = Vec::new();
            for word in v.value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                let flag = Value {
                    name: v.name,
                    value: word,
                }
                .one_of(&[
                    ("sync", FileExtraFlag::Sync),
                    ("dsync", FileExtraFlag::Dsync),
                    ("direct", FileExtraFlag::Direct),
                ])?;
                if !flags.contains(&flag) {
                    flags.push(flag);
                }
            }
            o.extra_flags = flags;
        }
        "file-fsync-freq" => o.fsync_freq = v.int()?,
        "file-fsync-all" => o.fsync_all = v.flag()?,
        "file-fsync-end" => o.fsync_end = v.flag()?,
        "file-fsync-mode" => {
            o.fsync_mode = v.one_of(&[
                ("fsync", FsyncMode::Fsync),
                ("fdatasync", FsyncMode::Fdatasync),
            ])?
        }
        "file-merged-requests" => o.merged_requests = v.int()?,
        "file-rw-ratio" => {
            o.rw_ratio = v
                .value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r >= 0.0)
                .ok_or_else(|| v.invalid("expected a number (0 or more)"))?
        }
        "file-dir" => {
            if v.value.trim().is_empty() {
                return Err(v.invalid("expected a directory"));
            }
            o.dir = PathBuf::from(v.value)
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn set_cpu(o: &mut CpuOptions, v: &Value) -> Result<bool, OptionError> {
    match v.name {
        "cpu-max-prime" => o.max_prime = v.positive()?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn set_memory(o: &mut MemoryOptions, v: &Value) -> Result<bool, OptionError> {
    match v.name {
        "memory-block-size" => {
            let size = v.size()?;
            // sysbench: at least one machine word, at most 2 GiB, a whole number of words.
            if !(8..=(2 << 30)).contains(&size) || !size.is_multiple_of(8) {
                return Err(v.invalid("expected a multiple of 8 bytes, from 8 to 2G"));
            }
            o.block_size = size;
        }
        "memory-total-size" => o.total_size = v.size()?,
        "memory-scope" => {
            o.scope = v.one_of(&[
                ("global", MemoryScope::Global),
                ("local", MemoryScope::Local),
            ])?
        }
        "memory-hugetlb" => {
            if v.flag()? {
                return Err(v.unsupported(
                    "allocation from the HugeTLB pool (SysV shared memory) is not implemented",
                ));
            }
        }
        "memory-oper" => {
            o.oper = v.one_of(&[
                ("read", MemoryOper::Read),
                ("write", MemoryOper::Write),
                ("none", MemoryOper::None),
            ])?
        }
        "memory-access-mode" => {
            o.access_mode = v.one_of(&[
                ("seq", MemoryAccessMode::Seq),
                ("rnd", MemoryAccessMode::Rnd),
            ])?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_sysbench_1_0_20s() {
        let o = HwTestOptions::from_pairs(TestKind::FileIo, &[]).unwrap();
        assert_eq!(o.general, GeneralOptions::default());
        assert_eq!(o.general.time_s, 10);
        let TestOptions::FileIo(f) = o.test else {
            panic!()
        };
        assert_eq!(
            (f.file_num, f.block_size, f.total_size),
            (128, 16384, 2 << 30)
        );
        assert_eq!((f.fsync_freq, f.fsync_end, f.rw_ratio), (100, true, 1.5));
        assert_eq!(f.file_size(), 16 << 20);
    }

    #[test]
    fn the_last_value_wins_and_is_recorded() {
        let o = HwTestOptions::from_pairs(
            TestKind::Cpu,
            &pairs(&[
                ("cpu-max-prime", "100"),
                ("cpu-max-prime", "20000"),
                ("threads", "2"),
            ]),
        )
        .unwrap();
        assert_eq!(o.test, TestOptions::Cpu(CpuOptions { max_prime: 20000 }));
        assert_eq!(o.given["cpu-max-prime"], "20000");
        assert_eq!(o.general.threads, 2);
    }

    #[test]
    fn bad_values_say_what_would_do_in_one_line() {
        let err = HwTestOptions::from_pairs(TestKind::FileIo, &pairs(&[("file-test-mode", "rnd")]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--file-test-mode=rnd: expected one of seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw"
        );
        let err =
            HwTestOptions::from_pairs(TestKind::FileIo, &pairs(&[("file-total-size", "8GB")]))
                .unwrap_err()
                .to_string();
        assert!(
            err.starts_with("--file-total-size=8GB: expected a size"),
            "{err}"
        );
        let err = HwTestOptions::from_pairs(TestKind::Cpu, &pairs(&[("file-num", "3")]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--file-num: not an option of the cpu test (see `cpu help`)"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn extra_flags_are_a_list_and_flags_need_no_value() {
        let o = HwTestOptions::from_pairs(
            TestKind::FileIo,
            &pairs(&[("file-extra-flags", "direct,dsync"), ("file-fsync-all", "")]),
        )
        .unwrap();
        let TestOptions::FileIo(f) = o.test else {
            panic!()
        };
        assert_eq!(f.extra_flags, [FileExtraFlag::Direct, FileExtraFlag::Dsync]);
        assert!(f.fsync_all);
        assert_eq!(
            (f.effective_fsync_freq(), f.effective_fsync_end()),
            (0, false)
        );
    }

    #[test]
    fn what_is_not_implemented_is_refused_with_its_reason() {
        for (kind, name, value) in [
            (TestKind::FileIo, "file-io-mode", "async"),
            (TestKind::Memory, "memory-hugetlb", "on"),
            (TestKind::FileIo, "validate", "on"),
        ] {
            let err = HwTestOptions::from_pairs(kind, &pairs(&[(name, value)])).unwrap_err();
            assert!(matches!(err, OptionError::Unsupported { .. }), "{err}");
        }
        assert!(
            HwTestOptions::from_pairs(TestKind::Memory, &pairs(&[("memory-hugetlb", "off")]))
                .is_ok()
        );
    }
}
