//! Every TTIR kernel the project has: the Triton kernels and lowering inputs under `test/Inputs`,
//! the shared kernels and syntax sampler (`../shared/kernels`, when that folder is there), and
//! the lit tests' cases that are whole TTIR modules (split at `// -----`).

use std::path::{Path, PathBuf};

/// One kernel source.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Where it comes from: `path` or `path#case`.
    pub name: String,
    pub source: String,
}

/// The repository root (this crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn files_under(dir: &Path, suffixes: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, suffixes, out);
        } else if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| suffixes.iter().any(|s| n.ends_with(s)))
        {
            out.push(path);
        }
    }
}

fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whole-file TTIR kernels (`.ttir`, Triton's `.source.ttir` included).
pub fn ttir_files() -> Vec<Kernel> {
    let root = repo_root();
    let mut paths = Vec::new();
    files_under(&root.join("test/Inputs"), &[".ttir"], &mut paths);
    files_under(&root.join("../shared/kernels"), &[".ttir"], &mut paths);
    paths
        .into_iter()
        .filter_map(|path| {
            Some(Kernel {
                name: display(&root, &path),
                source: std::fs::read_to_string(&path).ok()?,
            })
        })
        .collect()
}

/// The cases of the lit tests (`test/**/*.mlir`), each `// -----` chunk on its own, that hold a
/// `tt.func` and no TTGIR.
pub fn lit_cases() -> Vec<Kernel> {
    let root = repo_root();
    let mut paths = Vec::new();
    files_under(&root.join("test"), &[".mlir"], &mut paths);
    let mut cases = Vec::new();
    for path in paths {
        if path.components().any(|c| c.as_os_str() == "Inputs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (i, chunk) in text.split("// -----").enumerate() {
            if chunk.contains("tt.func") && !chunk.contains("ttg.") && !chunk.contains("expected-")
            {
                // lit cases may leave the module implicit; one op must be parsed here.
                let source = if chunk.lines().any(|l| l.trim_start().starts_with("module")) {
                    chunk.to_owned()
                } else {
                    format!("module {{\n{chunk}\n}}")
                };
                cases.push(Kernel {
                    name: format!("{}#{i}", display(&root, &path)),
                    source,
                });
            }
        }
    }
    cases
}

/// Every kernel: [`ttir_files`] then [`lit_cases`].
pub fn all() -> Vec<Kernel> {
    let mut kernels = ttir_files();
    kernels.extend(lit_cases());
    kernels
}
