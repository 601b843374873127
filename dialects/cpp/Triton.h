// Glue header for the `tt` dialect: includes what the generated code needs, plus the few C++ hooks
// that forward to Rust. No rules live here.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tritium {
// Runs the Rust verifier registered for `op`'s name (dialects/src/verify).
llvm::LogicalResult verifyInRust(mlir::Operation *op);
} // namespace tritium

namespace mlir::triton {
struct GlobalMemory : public SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};
// Pointee of a pointer, or the tensor of pointees of a tensor of pointers (encoding kept).
Type getPointeeType(Type type);
// `!tt.ptr<E, AS>` for a block pointer `!tt.ptr<tensor<...xE>, AS>`.
Type getElementPointerOfBlockPointer(Type blockPointer);
// An i1 scalar or tensor of the same shape and encoding as `type`.
Type getI1SameShape(Type type);
} // namespace mlir::triton

#include "tt/TritonDialect.h.inc"
#include "tt/TritonEnums.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tt/TritonTypes.h.inc"
#define GET_OP_CLASSES
#include "tt/TritonOps.h.inc"
