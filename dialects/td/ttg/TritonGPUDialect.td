// The `ttg` dialect: tensors with GPU layouts (encodings), shared memory, async copies.
#ifndef TRITIUM_TTG_DIALECT
#define TRITIUM_TTG_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TritonGPU_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::triton::gpu";
  let summary = "Triton GPU IR: layouts, shared memory and async copies";
  let dependentDialects = ["::mlir::triton::TritonDialect"];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif
