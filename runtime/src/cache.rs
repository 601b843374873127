//! On-disk compile cache, independent of MLIR.
//!
//! Layout: `ROOT/KEY/` holds `kernel.ptx`, `kernel.json` and `checksum` (the SHA-256 of both
//! files, in `sha256sum` format, so `sha256sum -c checksum` works inside an entry). An entry may
//! also hold extra files (`kernel.ttir`, `kernel.ttgir`, `kernel.llir`: the stages the Python
//! package shows as `asm`), whose sums follow in `checksum`; [`CacheEntry::extra`] verifies one
//! when it is read. `KEY` is the
//! hex SHA-256 of the IR text, the options string, the target and the compiler version
//! ([`Cache::key`]).
//!
//! Writers build an entry in a private temporary directory under `ROOT` and `rename` it into
//! place, which is atomic: readers see a complete entry or none. When two writers race, the
//! first rename wins and the other keeps the winner's entry. An entry that fails verification
//! (missing file, checksum mismatch, JSON that is not valid [`KernelMetadata`]) is treated as a
//! miss and removed, so the kernel is compiled again.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Result, RuntimeError};
use crate::metadata::KernelMetadata;
use sha2::{Digest, Sha256};

const PTX_FILE: &str = "kernel.ptx";
const JSON_FILE: &str = "kernel.json";
const CHECKSUM_FILE: &str = "checksum";

/// One verified cache entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    /// The entry's directory.
    pub dir: PathBuf,
    /// `kernel.ptx`.
    pub ptx: String,
    /// `kernel.json`, verbatim.
    pub json: String,
    /// `kernel.json`, parsed.
    pub metadata: KernelMetadata,
    /// The extra files of the entry and their SHA-256, from `checksum`.
    pub extras: Vec<(String, String)>,
}

impl CacheEntry {
    /// The extra file `name` of the entry (see [`Cache::put_with_extras`]), when it was stored
    /// and still matches its checksum.
    pub fn extra(&self, name: &str) -> Option<String> {
        let (_, sum) = self.extras.iter().find(|(n, _)| n == name)?;
        let text = fs::read_to_string(self.dir.join(name)).ok()?;
        (sha256_hex(text.as_bytes()) == *sum).then_some(text)
    }
}

/// A compile cache rooted at a directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

static UNIQUE: AtomicU64 = AtomicU64::new(0);

fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{}-{}-{:x}",
        std::process::id(),
        UNIQUE.fetch_add(1, Ordering::Relaxed),
        nanos
    )
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex SHA-256 of `data`, as `sha256sum` prints it.
fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn checksum_text(ptx: &str, json: &str) -> String {
    format!(
        "{}  {PTX_FILE}\n{}  {JSON_FILE}\n",
        sha256_hex(ptx.as_bytes()),
        sha256_hex(json.as_bytes())
    )
}

/// The `checksum` lines of extra files: `HASH  NAME`.
fn extra_sums(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let (sum, name) = line.split_once("  ")?;
            Some((name.to_owned(), sum.to_owned()))
        })
        .filter(|(name, _)| valid_extra_name(name))
        .collect()
}

/// An extra file's name: `kernel.EXT`, no path separators, not one of the entry's own files.
fn valid_extra_name(name: &str) -> bool {
    name.starts_with("kernel.")
        && name != PTX_FILE
        && name != JSON_FILE
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 128
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn write_file(path: &Path, data: &[u8]) -> Result<()> {
    let mut f = fs::File::create(path).map_err(|e| RuntimeError::io(path, e))?;
    f.write_all(data).map_err(|e| RuntimeError::io(path, e))?;
    f.sync_all().map_err(|e| RuntimeError::io(path, e))
}

impl Cache {
    /// Environment variable naming the cache directory (wins over the XDG/HOME default).
    pub const ENV_VAR: &'static str = "TRITIUM_CACHE_DIR";

    /// Opens (creating it if needed) a cache rooted at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Cache> {
        let root = root.into();
        fs::create_dir_all(&root).map_err(|e| RuntimeError::io(&root, e))?;
        Ok(Cache { root })
    }

    /// Opens the default cache: `$TRITIUM_CACHE_DIR` if set, else `tritium` in the platform's
    /// cache directory (`$XDG_CACHE_HOME` or `~/.cache` on Linux, from the `directories`
    /// crate), else `tritium-cache` in the temporary directory.
    pub fn open_default() -> Result<Cache> {
        Self::open(Self::default_dir())
    }

    /// The directory [`Cache::open_default`] uses, from the process environment.
    pub fn default_dir() -> PathBuf {
        Self::default_dir_from(
            std::env::var_os(Self::ENV_VAR),
            directories::BaseDirs::new().map(|dirs| dirs.cache_dir().to_path_buf()),
        )
    }

    /// The default directory for a `$TRITIUM_CACHE_DIR` value (empty counts as unset) and the
    /// platform's cache directory, when there is one.
    pub fn default_dir_from(
        tritium_cache_dir: Option<OsString>,
        platform_cache: Option<PathBuf>,
    ) -> PathBuf {
        match tritium_cache_dir.filter(|dir| !dir.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => platform_cache.map_or_else(
                || std::env::temp_dir().join("tritium-cache"),
                |cache| cache.join("tritium"),
            ),
        }
    }

    /// The cache directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The cache key for a compilation: hex SHA-256 over the IR text, the options string, the
    /// target (e.g. `sm_90a`) and the compiler version, each length-prefixed.
    pub fn key(ir: &str, options: &str, target: &str, compiler_version: &str) -> String {
        let mut hasher = Sha256::new();
        // Each field as its 8-byte length and its bytes: a sequence of fields hashes
        // unambiguously.
        for field in ["tritium-cache-v1", ir, options, target, compiler_version] {
            hasher.update((field.len() as u64).to_le_bytes());
            hasher.update(field.as_bytes());
        }
        hex(&hasher.finalize())
    }

    fn entry_dir(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Looks an entry up. Returns `None` on a miss and for an entry that fails verification;
    /// such an entry is removed.
    pub fn get(&self, key: &str) -> Option<CacheEntry> {
        if !valid_key(key) {
            return None;
        }
        let dir = self.entry_dir(key);
        if !dir.exists() {
            return None;
        }
        match Self::read_entry(&dir) {
            Some(e) => Some(e),
            None => {
                self.discard(&dir);
                None
            }
        }
    }

    fn read_entry(dir: &Path) -> Option<CacheEntry> {
        let ptx = fs::read_to_string(dir.join(PTX_FILE)).ok()?;
        let json = fs::read_to_string(dir.join(JSON_FILE)).ok()?;
        let sum = fs::read_to_string(dir.join(CHECKSUM_FILE)).ok()?;
        let extras = extra_sums(sum.strip_prefix(&checksum_text(&ptx, &json))?);
        let metadata = KernelMetadata::from_json(&json).ok()?;
        Some(CacheEntry {
            dir: dir.to_path_buf(),
            ptx,
            json,
            metadata,
            extras,
        })
    }

    /// Removes a directory by first renaming it out of the way (so nobody sees it half
    /// deleted). Errors are ignored: someone else may have removed it already.
    fn discard(&self, dir: &Path) {
        let trash = self.root.join(format!(".trash-{}", unique_suffix()));
        if fs::rename(dir, &trash).is_ok() {
            let _ = fs::remove_dir_all(&trash);
        }
    }

    /// Removes the entry for `key`, if any.
    pub fn remove(&self, key: &str) {
        if valid_key(key) {
            let dir = self.entry_dir(key);
            if dir.exists() {
                self.discard(&dir);
            }
        }
    }

    /// Stores `ptx` and `json` under `key` and returns the entry now in the cache: this
    /// writer's, or, when another writer stored the key first, theirs. `json` must be valid
    /// [`KernelMetadata`].
    pub fn put(&self, key: &str, ptx: &str, json: &str) -> Result<CacheEntry> {
        self.put_with_extras(key, ptx, json, &[])
    }

    /// [`Cache::put`] with extra files `(name, text)` in the entry (`name` is `kernel.EXT`),
    /// read back with [`CacheEntry::extra`].
    pub fn put_with_extras(
        &self,
        key: &str,
        ptx: &str,
        json: &str,
        extras: &[(&str, &str)],
    ) -> Result<CacheEntry> {
        if let Some((bad, _)) = extras.iter().find(|(name, _)| !valid_extra_name(name)) {
            return Err(RuntimeError::InvalidArgument(format!(
                "bad extra cache file name {bad:?} (expected kernel.EXT)"
            )));
        }
        if !valid_key(key) {
            return Err(RuntimeError::InvalidArgument(format!(
                "bad cache key {key:?} (expected [0-9A-Za-z_-], at most 128 characters)"
            )));
        }
        let metadata = KernelMetadata::from_json(json)?;
        let tmp = self.root.join(format!(".tmp-{key}-{}", unique_suffix()));
        let written = (|| {
            fs::create_dir(&tmp).map_err(|e| RuntimeError::io(&tmp, e))?;
            write_file(&tmp.join(PTX_FILE), ptx.as_bytes())?;
            write_file(&tmp.join(JSON_FILE), json.as_bytes())?;
            let mut sums = checksum_text(ptx, json);
            for (name, text) in extras {
                write_file(&tmp.join(name), text.as_bytes())?;
                sums += &format!("{}  {name}\n", sha256_hex(text.as_bytes()));
            }
            write_file(&tmp.join(CHECKSUM_FILE), sums.as_bytes())
        })();
        if let Err(e) = written {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
        let dest = self.entry_dir(key);
        let mut last_err = None;
        for _ in 0..4 {
            match fs::rename(&tmp, &dest) {
                Ok(()) => {
                    return Ok(CacheEntry {
                        dir: dest,
                        ptx: ptx.to_string(),
                        json: json.to_string(),
                        metadata,
                        extras: extras
                            .iter()
                            .map(|(name, text)| ((*name).to_owned(), sha256_hex(text.as_bytes())))
                            .collect(),
                    });
                }
                Err(e) => {
                    if dest.exists() {
                        // Another writer won (or a corrupt entry is in the way: `get` removes
                        // it and the next attempt succeeds).
                        if let Some(theirs) = self.get(key) {
                            let _ = fs::remove_dir_all(&tmp);
                            return Ok(theirs);
                        }
                    }
                    last_err = Some(e);
                }
            }
        }
        let _ = fs::remove_dir_all(&tmp);
        Err(RuntimeError::io(
            &dest,
            last_err.unwrap_or_else(|| std::io::Error::other("rename failed")),
        ))
    }

    /// Returns the entry for `key`, calling `compile` (which returns `(ptx, json)`) and
    /// storing its output on a miss.
    pub fn get_or_insert_with<E>(
        &self,
        key: &str,
        compile: impl FnOnce() -> std::result::Result<(String, String), E>,
    ) -> std::result::Result<CacheEntry, E>
    where
        E: From<RuntimeError>,
    {
        if let Some(e) = self.get(key) {
            return Ok(e);
        }
        let (ptx, json) = compile()?;
        Ok(self.put(key, &ptx, &json)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let p =
                std::env::temp_dir().join(format!("tritium-cache-test-{tag}-{}", unique_suffix()));
            fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const JSON: &str = r#"{"name":"add_kernel","num_warps":4,"shared":0,"arch":"sm_90a","signature":["*f32","*f32","*f32","i32"]}"#;
    const PTX: &str =
        ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry add_kernel() { ret; }\n";

    fn entries(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn key_is_stable_and_separates_fields() {
        let k = Cache::key("ir", "opts", "sm_90a", "0.1.0");
        assert_eq!(k.len(), 64);
        assert!(k.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(k, Cache::key("ir", "opts", "sm_90a", "0.1.0"));
        assert_ne!(k, Cache::key("iro", "pts", "sm_90a", "0.1.0"));
        assert_ne!(k, Cache::key("ir", "opts", "sm_80", "0.1.0"));
        assert_ne!(k, Cache::key("ir", "opts", "sm_90a", "0.1.1"));
        // Pinned: the key must not change between builds or platforms.
        assert_eq!(
            Cache::key("", "", "", ""),
            "d5f4677991faf4b10303a0bc29c29830fba7fd2ad8ce17f918e49efe42d12adf"
        );
    }

    #[test]
    fn roundtrip() {
        let t = TempDir::new("rt");
        let cache = Cache::open(t.0.join("c")).unwrap();
        let key = Cache::key("module {}", "-O3", "sm_90a", "test");
        assert!(cache.get(&key).is_none());
        let put = cache.put(&key, PTX, JSON).unwrap();
        let got = cache.get(&key).unwrap();
        assert_eq!(put, got);
        assert_eq!(got.ptx, PTX);
        assert_eq!(got.json, JSON);
        assert_eq!(got.metadata.name, "add_kernel");
        assert_eq!(entries(cache.root()), vec![key.clone()]);
        // sha256sum-compatible checksum file.
        let sum = fs::read_to_string(got.dir.join("checksum")).unwrap();
        assert!(sum.contains(&format!("{}  kernel.ptx", sha256_hex(PTX.as_bytes()))));
        cache.remove(&key);
        assert!(cache.get(&key).is_none());
        assert!(entries(cache.root()).is_empty());
    }

    #[test]
    fn extras_roundtrip_and_are_verified() {
        let t = TempDir::new("extras");
        let cache = Cache::open(t.0.join("c")).unwrap();
        let key = Cache::key("module {}", "extras", "sm_90a", "test");
        let extras = [("kernel.ttir", "module {}\n"), ("kernel.ttgir", "ttg\n")];
        let put = cache.put_with_extras(&key, PTX, JSON, &extras).unwrap();
        assert_eq!(put.extra("kernel.ttir").as_deref(), Some("module {}\n"));
        let got = cache.get(&key).unwrap();
        assert_eq!(put, got);
        assert_eq!(got.extra("kernel.ttgir").as_deref(), Some("ttg\n"));
        assert_eq!(got.extra("kernel.llir"), None);
        // A changed extra is not returned; the entry itself stays valid.
        fs::write(got.dir.join("kernel.ttgir"), "changed").unwrap();
        assert_eq!(cache.get(&key).unwrap().extra("kernel.ttgir"), None);
        assert!(
            cache
                .put_with_extras(&key, PTX, JSON, &[("../x", "")])
                .is_err()
        );
        // An entry without extras (written by `put`) still reads.
        let plain = Cache::key("module {}", "plain", "sm_90a", "test");
        cache.put(&plain, PTX, JSON).unwrap();
        assert!(cache.get(&plain).unwrap().extras.is_empty());
    }

    #[test]
    fn corrupt_entries_are_dropped_and_recompiled() {
        let t = TempDir::new("corrupt");
        let cache = Cache::open(&t.0).unwrap();
        let key = Cache::key("k", "", "sm_90a", "test");
        type Corrupt = Box<dyn Fn(&Path)>;
        let corruptions: Vec<(&str, Corrupt)> = vec![
            (
                "missing ptx",
                Box::new(|d: &Path| fs::remove_file(d.join(PTX_FILE)).unwrap()),
            ),
            (
                "missing json",
                Box::new(|d: &Path| fs::remove_file(d.join(JSON_FILE)).unwrap()),
            ),
            (
                "missing checksum",
                Box::new(|d: &Path| fs::remove_file(d.join(CHECKSUM_FILE)).unwrap()),
            ),
            (
                "truncated ptx",
                Box::new(|d: &Path| fs::write(d.join(PTX_FILE), &PTX[..10]).unwrap()),
            ),
            (
                "bad json (checksum updated)",
                Box::new(|d: &Path| {
                    fs::write(d.join(JSON_FILE), "{oops").unwrap();
                    fs::write(d.join(CHECKSUM_FILE), checksum_text(PTX, "{oops")).unwrap();
                }),
            ),
        ];
        for (what, corrupt) in corruptions {
            let e = cache.put(&key, PTX, JSON).unwrap();
            corrupt(&e.dir);
            assert!(cache.get(&key).is_none(), "{what}: corrupt entry returned");
            assert!(!e.dir.exists(), "{what}: corrupt entry left behind");
            // The caller recompiles: get_or_insert_with runs the compiler again.
            let mut compiled = false;
            let again = cache
                .get_or_insert_with::<RuntimeError>(&key, || {
                    compiled = true;
                    Ok((PTX.to_string(), JSON.to_string()))
                })
                .unwrap();
            assert!(compiled, "{what}: not recompiled");
            assert_eq!(again.ptx, PTX);
            cache.remove(&key);
        }
        // A hit does not recompile.
        cache.put(&key, PTX, JSON).unwrap();
        let hit = cache
            .get_or_insert_with::<RuntimeError>(&key, || panic!("should not compile on a hit"))
            .unwrap();
        assert_eq!(hit.json, JSON);
        assert_eq!(entries(cache.root()), vec![key]);
    }

    #[test]
    fn put_over_a_corrupt_entry_replaces_it() {
        let t = TempDir::new("replace");
        let cache = Cache::open(&t.0).unwrap();
        let key = "abc123";
        fs::create_dir_all(t.0.join(key)).unwrap();
        fs::write(t.0.join(key).join(PTX_FILE), "junk").unwrap();
        let e = cache.put(key, PTX, JSON).unwrap();
        assert_eq!(e.ptx, PTX);
        assert_eq!(cache.get(key).unwrap().ptx, PTX);
        assert_eq!(entries(cache.root()), vec![key.to_string()]);
    }

    #[test]
    fn bad_inputs_are_rejected() {
        let t = TempDir::new("bad");
        let cache = Cache::open(&t.0).unwrap();
        for key in ["", "../x", "a/b", ".tmp", &"a".repeat(129)] {
            assert!(cache.put(key, PTX, JSON).is_err(), "{key:?}");
            assert!(cache.get(key).is_none());
        }
        let e = cache.put("k", PTX, "{not json").unwrap_err();
        assert!(matches!(e, RuntimeError::Metadata(_)), "{e}");
        assert!(
            entries(cache.root()).is_empty(),
            "{:?}",
            entries(cache.root())
        );
    }

    #[test]
    fn concurrent_writers_leave_one_valid_entry() {
        let t = TempDir::new("race");
        let cache = Cache::open(&t.0).unwrap();
        let key = Cache::key("race", "", "sm_90a", "test");
        for round in 0..5 {
            let n = 8;
            let barrier = Arc::new(Barrier::new(n));
            let results: Vec<CacheEntry> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..n)
                    .map(|i| {
                        let barrier = barrier.clone();
                        let (cache, key) = (&cache, &key);
                        s.spawn(move || {
                            let ptx = format!("{PTX}// writer {i}\n");
                            barrier.wait();
                            cache.put(key, &ptx, JSON).unwrap()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let winner = cache.get(&key).expect("a valid entry");
            for r in &results {
                assert_eq!(r, &winner, "round {round}: a writer saw a different entry");
            }
            assert_eq!(
                entries(cache.root()),
                vec![key.clone()],
                "round {round}: leftovers"
            );
            cache.remove(&key);
        }
    }

    #[test]
    fn default_dir_follows_environment() {
        let platform = Some(PathBuf::from("/home/u/.cache"));
        assert_eq!(
            Cache::default_dir_from(Some("/x/cache".into()), platform.clone()),
            PathBuf::from("/x/cache")
        );
        assert_eq!(
            Cache::default_dir_from(Some("".into()), platform.clone()),
            PathBuf::from("/home/u/.cache/tritium")
        );
        assert_eq!(
            Cache::default_dir_from(None, platform),
            PathBuf::from("/home/u/.cache/tritium")
        );
        assert_eq!(
            Cache::default_dir_from(None, None),
            std::env::temp_dir().join("tritium-cache")
        );
    }
}
