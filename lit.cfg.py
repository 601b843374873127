# lit configuration for Tritium's tests: `lit test/` (the README's test command runs it).
import os
import shutil

import lit.formats

config.name = "Tritium"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".ttir", ".ttgir", ".test"]
root = os.path.dirname(os.path.abspath(__file__))
# Tests live under test/; everything else at the root is not a test.
config.excludes = ["Inputs", "README.md"] + [entry for entry in os.listdir(root) if entry != "test"]
config.test_source_root = root
config.test_exec_root = os.path.join(root, "target", "lit")

# Our tools come from the cargo target directory (debug by default, TRITIUM_PROFILE=release to switch);
# FileCheck, not and split-file from Debian's llvm-22-tools.
profile = os.environ.get("TRITIUM_PROFILE", "debug")
target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
llvm_bin = "/usr/lib/llvm-22/bin"
paths = [os.path.join(target_dir, profile), llvm_bin, config.environment.get("PATH", os.environ["PATH"])]
config.environment["PATH"] = os.pathsep.join(paths)
for tool in ["triton-opt", "tritium"]:
    if not os.path.exists(os.path.join(target_dir, profile, tool)):
        lit_config.warning(f"{tool} not found in {target_dir}/{profile}: run cargo build first")
for tool in ["FileCheck", "not", "split-file"]:
    if shutil.which(tool, path=config.environment["PATH"]) is None:
        lit_config.fatal(f"{tool} not found: run scripts/bootstrap")
config.substitutions.append(("%kernels", os.path.join(root, "test", "Inputs", "kernels")))
config.environment["RUST_BACKTRACE"] = "0"
