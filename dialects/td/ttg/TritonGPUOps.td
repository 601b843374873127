#ifndef TRITIUM_TTG_OPS
#define TRITIUM_TTG_OPS

include "ttg/TritonGPUDialect.td"
include "ttg/TritonGPUAttrs.td"
include "tt/TritonTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TTG_Op<string mnemonic, list<Trait> traits = []> : Op<TritonGPU_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() { return ::tritium::verifyInRust(getOperation()); }
  }];
}

def TTG_ConvertLayoutOp : TTG_Op<"convert_layout", [SameOperandsAndResultShape,
    SameOperandsAndResultElementType, Pure]> {
  let summary = "move a tensor to another layout";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

#endif
