// Registration, type plumbing and interface hooks of the `tt` dialect.
#include "Triton.h"
#include "RustHooks.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton;

#include "tt/TritonDialect.cpp.inc"
#include "tt/TritonEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tt/TritonTypes.cpp.inc"

namespace {
// Everything in `tt` may be inlined; tt.return becomes a branch or a value replacement.
struct TritonInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret) return;
    OpBuilder builder(op);
    builder.create<cf::BranchOp>(op->getLoc(), newDest, ret.getOperands());
    op->erase();
  }
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto ret = cast<ReturnOp>(op);
    for (auto [from, to] : llvm::zip(valuesToRepl, ret.getOperands())) from.replaceAllUsesWith(to);
  }
};
} // namespace

void TritonDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tt/TritonOps.cpp.inc"
      >();
  addInterfaces<TritonInlinerInterface>();
}

void TritonDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tt/TritonTypes.cpp.inc"
      >();
}

Operation *TritonDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

void TritonDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  tritium::addRustCanonicalizationPatterns("tt", results);
}

Type mlir::triton::getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (auto ptr = dyn_cast<PointerType>(tensor.getElementType()))
      return RankedTensorType::get(tensor.getShape(), ptr.getPointeeType(), tensor.getEncoding());
    return type;
  }
  if (auto ptr = dyn_cast<PointerType>(type)) return ptr.getPointeeType();
  return type;
}

Type mlir::triton::getElementPointerOfBlockPointer(Type blockPointer) {
  auto ptr = dyn_cast<PointerType>(blockPointer);
  if (!ptr) return blockPointer;
  auto tensor = dyn_cast<RankedTensorType>(ptr.getPointeeType());
  if (!tensor) return blockPointer;
  return PointerType::get(tensor.getElementType(), ptr.getAddressSpace());
}

Type mlir::triton::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), i1, tensor.getEncoding());
  return i1;
}

// Volatile loads must not be removed or reordered: they also "write" global memory.
void LoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(), GlobalMemory::get());
  if (getIsVolatile()) effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

void ExternElementwiseOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure()) return;
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

void ElementwiseInlineAsmOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure()) return;
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(printer, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!fn) return emitOpError() << "'" << getCallee() << "' does not reference a valid tt.func";
  auto type = fn.getFunctionType();
  if (!llvm::equal(type.getInputs(), getOperandTypes()) || !llvm::equal(type.getResults(), getResultTypes()))
    return emitOpError("operand and result types do not match the callee's signature ") << type;
  return success();
}
