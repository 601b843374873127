// The `ttg` dialect: tensors with GPU layouts (encodings), shared memory, async copies.
#ifndef TRITIUM_TTG_DIALECT
#define TRITIUM_TTG_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TritonGPU_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::triton::gpu";
  let summary = "Triton GPU IR: layouts, shared memory and async copies";
  let description = [{
    Module attributes `ttg.num-warps`, `ttg.threads-per-warp`, `ttg.num-ctas` (i32) and
    `ttg.target` (string) give the launch shape every encoding in the module is checked against.
  }];
  let dependentDialects = ["::mlir::triton::TritonDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // `ttg.*` attributes on any op (the module's launch shape) are checked in Rust.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

#endif
