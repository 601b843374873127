// The generated op definitions of `ttg` and `ttng`, plus their glue: the `[0, 32]` offsets
// directive, effects that depend on an op's types, and warp_group_dot_wait's result types.
#include "TritonGPU.h"

using namespace mlir;
using namespace mlir::triton::gpu;

namespace {
// `custom<Offsets>($offsets)`: a DenseI32ArrayAttr written as `0, 32`.
ParseResult parseOffsets(OpAsmParser &parser, DenseI32ArrayAttr &offsets) {
  SmallVector<int32_t> values;
  auto parseOne = [&]() -> ParseResult {
    int32_t value;
    if (parser.parseInteger(value)) return failure();
    values.push_back(value);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseOne)) return failure();
  offsets = DenseI32ArrayAttr::get(parser.getContext(), values);
  return success();
}

void printOffsets(OpAsmPrinter &printer, Operation *, DenseI32ArrayAttr offsets) {
  llvm::interleaveComma(offsets.asArrayRef(), printer);
}

// `custom<AddrSpace>($addrSpace)`: `local|global_read`, `none` or `all`, without `#ttg.addr_space<>`.
ParseResult parseAddrSpace(OpAsmParser &parser, AddrSpaceAttr &addrSpace) {
  AddrSpace value = AddrSpace::None;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword)) return failure();
    std::optional<AddrSpace> space = symbolizeAddrSpace(keyword);
    if (!space)
      return parser.emitError(loc, "expected an address space (none, local, global_read, global_write, "
                                   "tensor_read, tensor_write or all), got '")
             << keyword << "'";
    value = value | *space;
  } while (succeeded(parser.parseOptionalVerticalBar()));
  addrSpace = AddrSpaceAttr::get(parser.getContext(), value);
  return success();
}

void printAddrSpace(OpAsmPrinter &printer, Operation *, AddrSpaceAttr addrSpace) {
  printer << stringifyAddrSpace(addrSpace.getValue());
}
} // namespace

#define GET_OP_CLASSES
#include "ttg/TritonGPUOps.cpp.inc"

#define GET_OP_CLASSES
#include "ttng/TritonNvidiaGPUOps.cpp.inc"

// An immutable buffer initialised from a tensor is a value: no effects, so it can be CSE'd and
// removed when unused. A mutable buffer is allocated (and written when initialised).
void LocalAllocOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (!getType().getMutableMemory() && getSrc()) return;
  effects.emplace_back(MemoryEffects::Allocate::get(), getOperation()->getOpResult(0), SharedMemory::get());
  if (getSrc()) effects.emplace_back(MemoryEffects::Write::get(), getOperation()->getOpResult(0), SharedMemory::get());
}

// wgmma reads its shared-memory operands.
void mlir::triton::nvidia_gpu::WarpGroupDotOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (isa<MemDescType>(getA().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getAMutable(), SharedMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), &getBMutable(), SharedMemory::get());
}

// The results have the types of the inputs.
llvm::LogicalResult mlir::triton::nvidia_gpu::WarpGroupDotWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value operand : operands) inferredReturnTypes.push_back(operand.getType());
  return success();
}
