//! `Cache::open_default` follows `$TRITIUM_CACHE_DIR`. A separate test binary with a single test,
//! so changing the process environment cannot race with other tests.

use tritium_runtime::Cache;

#[test]
fn env_var_relocates_the_default_cache() {
    let dir = std::env::temp_dir().join(format!("tritium-cache-env-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: this is the only test in this binary, so no other thread reads the environment.
    unsafe { std::env::set_var(Cache::ENV_VAR, &dir) };
    assert_eq!(Cache::default_dir(), dir);
    let cache = Cache::open_default().unwrap();
    assert_eq!(cache.root(), dir.as_path());
    assert!(dir.is_dir(), "open_default creates the directory");
    let key = Cache::key("ir", "", "sm_90a", "test");
    cache
        .put(&key, "// ptx\n", r#"{"name":"k","num_warps":1}"#)
        .unwrap();
    assert!(dir.join(&key).join("kernel.ptx").is_file());
    // A second handle opened the same way sees the entry.
    assert_eq!(
        Cache::open_default().unwrap().get(&key).unwrap().ptx,
        "// ptx\n"
    );
    // SAFETY: as above.
    unsafe { std::env::remove_var(Cache::ENV_VAR) };
    assert_ne!(Cache::default_dir(), dir);
    std::fs::remove_dir_all(&dir).unwrap();
}
