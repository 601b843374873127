// The `tt` dialect: Triton's tile-level IR (TTIR), textually compatible with Triton 3.6.
#ifndef TRITIUM_TT_DIALECT
#define TRITIUM_TT_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Triton_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::mlir::triton";
  let summary = "Triton tile-level IR";
  let description = [{
    Block-level operations on tensors of values and tensors of pointers,
    executed by every program of an SPMD grid.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

#endif
