// Hooks through which C++ glue calls into Rust (defined with #[no_mangle] in dialects/src).
#pragma once
#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"
#include "mlir/IR/PatternMatch.h"

extern "C" {
bool tritium_verify_op(MlirOperation op);
// Checks a `ttg.*` discardable attribute of `op` (emits its own diagnostics; false on failure).
bool tritium_verify_ttg_attribute(MlirOperation op, MlirStringRef name, MlirAttribute value);
void tritium_add_canonicalization_patterns(MlirContext context, MlirStringRef dialect, MlirRewritePatternSet set);
}

namespace tritium {
void addRustCanonicalizationPatterns(llvm::StringRef dialect, mlir::RewritePatternSet &set);
}
