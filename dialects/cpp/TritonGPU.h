// Glue header for the `ttg` and `ttng` dialects: includes what the generated code needs, the
// shared-memory effect resource, and the hook through which encodings are checked in Rust.
#pragma once
#include "Triton.h"

#include "mlir-c/IR.h"
#include "mlir/IR/OpAsmSupport.h"

namespace mlir::triton::gpu {
// Effects on shared memory (local_load, local_store, mbarriers, TMA copies, ...).
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace mlir::triton::gpu

extern "C" {
// Defined in Rust (dialects/src/encoding.rs, rules in layout/src/verify.rs): checks a `ttg`
// encoding on its own; on failure calls `report` with the reason and returns false.
bool tritium_verify_encoding(MlirAttribute attr, void (*report)(MlirStringRef message, void *user),
                             void *user);
}

namespace tritium {
// Runs the Rust checks of an encoding; on failure emits the reason through `emitError`.
llvm::LogicalResult verifyEncodingInRust(mlir::Attribute attr,
                                         llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
} // namespace tritium

#include "ttg/TritonGPUDialect.h.inc"
#include "ttg/TritonGPUEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ttg/TritonGPUAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "ttg/TritonGPUTypes.h.inc"
#define GET_OP_CLASSES
#include "ttg/TritonGPUOps.h.inc"

#include "ttng/TritonNvidiaGPUDialect.h.inc"
#define GET_OP_CLASSES
#include "ttng/TritonNvidiaGPUOps.h.inc"
