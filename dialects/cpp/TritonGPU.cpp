// Registration of `ttg` and `ttng`, the `<{key = value}>` syntax of the `ttg` encodings, the
// `!ttg.memdesc` syntax, and the `#blocked`/`#mma`/`#shared`/`#smem` aliases. Glue only: the rules
// about an encoding are Rust (layout/src/verify.rs), reached through tritium_verify_encoding.
#include "TritonGPU.h"
#include "RustHooks.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <string>

using namespace mlir;
using namespace mlir::triton::gpu;

#include "ttg/TritonGPUDialect.cpp.inc"
#include "ttg/TritonGPUEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ttg/TritonGPUAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "ttg/TritonGPUTypes.cpp.inc"

#include "ttng/TritonNvidiaGPUDialect.cpp.inc"

namespace {
// Encodings get the aliases Triton prints (`#blocked1`, `#mma`, `#shared2`, `#smem`); slices and
// dot operands are printed inline.
struct TritonGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) os << "blocked";
    else if (isa<NvidiaMmaEncodingAttr>(attr)) os << "mma";
    else if (isa<SwizzledSharedEncodingAttr, NVMMASharedEncodingAttr>(attr)) os << "shared";
    else if (isa<LinearEncodingAttr>(attr)) os << "linear";
    else if (isa<SharedMemorySpaceAttr>(attr)) os << "smem";
    else return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TritonGPUDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ttg/TritonGPUOps.cpp.inc"
      >();
  addInterfaces<TritonGPUOpAsmInterface>();
}

void TritonGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ttg/TritonGPUAttrs.cpp.inc"
      >();
}

void TritonGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ttg/TritonGPUTypes.cpp.inc"
      >();
}

void mlir::triton::nvidia_gpu::TritonNvidiaGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ttng/TritonNvidiaGPUOps.cpp.inc"
      >();
}

// `ttg.num-warps` and the other module attributes: the rules are Rust (dialects/src/verify/ttg.rs),
// which reports its own errors (at the op holding the attribute, or at a nested op whose layout
// disagrees with it).
LogicalResult TritonGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  return success(tritium_verify_ttg_attribute(wrap(op), wrap(attr.getName().strref()),
                                              wrap(attr.getValue())));
}

llvm::LogicalResult tritium::verifyEncodingInRust(Attribute attr,
                                                  llvm::function_ref<InFlightDiagnostic()> emitError) {
  std::string message;
  auto report = [](MlirStringRef text, void *user) {
    static_cast<std::string *>(user)->append(text.data, text.length);
  };
  if (tritium_verify_encoding(wrap(attr), report, &message)) return success();
  emitError() << message;
  return failure();
}

//===----------------------------------------------------------------------===//
// Encodings: `<{key = value, ...}>`
//===----------------------------------------------------------------------===//

namespace {
// Encodings are written `<{name = value, ...}>`; the body parses as a dictionary.
DictionaryAttr parseBody(AsmParser &parser) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater()) return {};
  return dict;
}

bool readUnsignedArray(AsmParser &parser, DictionaryAttr dict, StringRef key,
                       SmallVectorImpl<unsigned> &out, bool required) {
  Attribute value = dict.get(key);
  if (!value) {
    if (required) parser.emitError(parser.getNameLoc(), "expected key '") << key << "'";
    return !required;
  }
  auto array = dyn_cast<ArrayAttr>(value);
  if (!array) {
    parser.emitError(parser.getNameLoc(), "'") << key << "' must be an array of integers";
    return false;
  }
  for (Attribute element : array) {
    auto integer = dyn_cast<IntegerAttr>(element);
    if (!integer || integer.getInt() < 0) {
      parser.emitError(parser.getNameLoc(), "'") << key << "' must hold non-negative integers";
      return false;
    }
    out.push_back(integer.getInt());
  }
  return true;
}

bool readUnsigned(AsmParser &parser, DictionaryAttr dict, StringRef key, unsigned &out,
                  std::optional<unsigned> defaultValue = std::nullopt) {
  Attribute value = dict.get(key);
  if (!value && defaultValue) {
    out = *defaultValue;
    return true;
  }
  auto integer = dyn_cast_or_null<IntegerAttr>(value);
  if (!integer || integer.getType().isInteger(1) || integer.getInt() < 0) {
    parser.emitError(parser.getNameLoc(), "expected key '") << key << "' with a non-negative integer";
    return false;
  }
  out = integer.getInt();
  return true;
}

bool readBool(AsmParser &parser, DictionaryAttr dict, StringRef key, bool &out,
              std::optional<bool> defaultValue = std::nullopt) {
  Attribute value = dict.get(key);
  if (!value && defaultValue) {
    out = *defaultValue;
    return true;
  }
  auto flag = dyn_cast_or_null<BoolAttr>(value);
  if (!flag) {
    parser.emitError(parser.getNameLoc(), "expected key '") << key << "' with true or false";
    return false;
  }
  out = flag.getValue();
  return true;
}

// `[[0, 1], [2, 0]]` -> rows of `rank` integers, appended to `flat`; the rank is fixed by the first
// row seen across all calls (`rank` < 0 until then).
bool readBases(AsmParser &parser, DictionaryAttr dict, StringRef key, int64_t &rank,
               SmallVectorImpl<int32_t> &flat) {
  Attribute value = dict.get(key);
  if (!value) {
    parser.emitError(parser.getNameLoc(), "expected key '") << key << "'";
    return false;
  }
  auto rows = dyn_cast<ArrayAttr>(value);
  if (!rows) {
    parser.emitError(parser.getNameLoc(), "'") << key << "' must be a list of bases ([[...], ...])";
    return false;
  }
  for (Attribute rowAttr : rows) {
    auto row = dyn_cast<ArrayAttr>(rowAttr);
    if (!row) {
      parser.emitError(parser.getNameLoc(), "'") << key << "' must be a list of bases ([[...], ...])";
      return false;
    }
    if (rank < 0) rank = row.size();
    if ((int64_t)row.size() != rank) {
      parser.emitError(parser.getNameLoc(), "every basis must have ") << rank << " entries";
      return false;
    }
    for (Attribute element : row) {
      auto integer = dyn_cast<IntegerAttr>(element);
      if (!integer || integer.getInt() < 0 || integer.getInt() > INT32_MAX) {
        parser.emitError(parser.getNameLoc(), "'") << key << "' must hold non-negative integers";
        return false;
      }
      flat.push_back(integer.getInt());
    }
  }
  return true;
}

bool checkKeys(AsmParser &parser, DictionaryAttr dict, ArrayRef<StringRef> allowed) {
  for (NamedAttribute entry : dict)
    if (!llvm::is_contained(allowed, entry.getName().strref())) {
      parser.emitError(parser.getNameLoc(), "unexpected key '") << entry.getName().strref() << "'";
      return false;
    }
  return true;
}

void printArray(AsmPrinter &printer, StringRef key, ArrayRef<unsigned> values) {
  printer << key << " = [";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

void printBases(AsmPrinter &printer, StringRef key, unsigned rank, ArrayRef<int32_t> flat) {
  printer << key << " = [";
  for (size_t start = 0; rank && start < flat.size(); start += rank) {
    if (start) printer << ", ";
    printer << "[";
    llvm::interleaveComma(flat.slice(start, rank), printer);
    printer << "]";
  }
  printer << "]";
}

SmallVector<unsigned> reversedIota(size_t rank) {
  SmallVector<unsigned> order;
  for (size_t i = rank; i-- > 0;) order.push_back(i);
  return order;
}

// The CTA parameters, read from the body. With `rank`, absent ones default to a single CTA;
// without (nvmma_shared), absent ones stay empty and single-CTA ones are emptied.
struct CTAParams {
  SmallVector<unsigned> ctasPerCGA, splitNum, order;
};

bool isSingleCTA(ArrayRef<unsigned> ctas, ArrayRef<unsigned> split, ArrayRef<unsigned> order) {
  return llvm::all_of(ctas, [](unsigned n) { return n == 1; }) &&
         llvm::all_of(split, [](unsigned n) { return n == 1; }) &&
         order == ArrayRef<unsigned>(reversedIota(order.size()));
}

bool readCTAParams(AsmParser &parser, DictionaryAttr dict, std::optional<size_t> rank, CTAParams &out) {
  if (!readUnsignedArray(parser, dict, "CTAsPerCGA", out.ctasPerCGA, false) ||
      !readUnsignedArray(parser, dict, "CTASplitNum", out.splitNum, false) ||
      !readUnsignedArray(parser, dict, "CTAOrder", out.order, false))
    return false;
  if (rank) {
    if (out.ctasPerCGA.empty()) out.ctasPerCGA.assign(*rank, 1);
    if (out.splitNum.empty()) out.splitNum.assign(*rank, 1);
    if (out.order.empty()) out.order = reversedIota(*rank);
  } else if (isSingleCTA(out.ctasPerCGA, out.splitNum, out.order)) {
    out = CTAParams();
  }
  return true;
}

void printCTAParams(AsmPrinter &printer, ArrayRef<unsigned> ctas, ArrayRef<unsigned> split,
                    ArrayRef<unsigned> order) {
  if (isSingleCTA(ctas, split, order)) return;
  printer << ", ";
  printArray(printer, "CTAsPerCGA", ctas);
  printer << ", ";
  printArray(printer, "CTASplitNum", split);
  printer << ", ";
  printArray(printer, "CTAOrder", order);
}

constexpr StringLiteral kCTAKeys[] = {"CTAsPerCGA", "CTASplitNum", "CTAOrder"};

SmallVector<StringRef> keysWithCTA(std::initializer_list<StringRef> keys) {
  SmallVector<StringRef> all(keys);
  all.append(std::begin(kCTAKeys), std::end(kCTAKeys));
  return all;
}

// The Rust checks of a freshly parsed encoding (reported at the attribute).
Attribute checked(AsmParser &parser, Attribute attr) {
  if (!attr) return {};
  SMLoc loc = parser.getNameLoc();
  if (failed(tritium::verifyEncodingInRust(attr, [&] { return parser.emitError(loc); }))) return {};
  return attr;
}
} // namespace

Attribute BlockedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, keysWithCTA({"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"})))
    return {};
  SmallVector<unsigned> spt, tpw, wpc, order;
  CTAParams cta;
  if (!readUnsignedArray(parser, dict, "sizePerThread", spt, true) ||
      !readUnsignedArray(parser, dict, "threadsPerWarp", tpw, true) ||
      !readUnsignedArray(parser, dict, "warpsPerCTA", wpc, true) ||
      !readUnsignedArray(parser, dict, "order", order, true) ||
      !readCTAParams(parser, dict, spt.size(), cta))
    return {};
  return checked(parser, BlockedEncodingAttr::get(parser.getContext(), spt, tpw, wpc, order, cta.ctasPerCGA,
                                                  cta.splitNum, cta.order));
}

void BlockedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printArray(printer, "sizePerThread", getSizePerThread());
  printer << ", ";
  printArray(printer, "threadsPerWarp", getThreadsPerWarp());
  printer << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printer << ", ";
  printArray(printer, "order", getOrder());
  printCTAParams(printer, getCTAsPerCGA(), getCTASplitNum(), getCTAOrder());
  printer << "}>";
}

Attribute SliceEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, {"dim", "parent"})) return {};
  unsigned dim;
  if (!readUnsigned(parser, dict, "dim", dim)) return {};
  Attribute parent = dict.get("parent");
  if (!parent) {
    parser.emitError(parser.getNameLoc(), "expected key 'parent' (an encoding)");
    return {};
  }
  return checked(parser, SliceEncodingAttr::get(parser.getContext(), dim, parent));
}

void SliceEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = " << getParent() << "}>";
}

Attribute NvidiaMmaEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict ||
      !checkKeys(parser, dict, keysWithCTA({"versionMajor", "versionMinor", "warpsPerCTA", "instrShape"})))
    return {};
  unsigned major, minor;
  SmallVector<unsigned> wpc, instrShape;
  CTAParams cta;
  if (!readUnsigned(parser, dict, "versionMajor", major) || !readUnsigned(parser, dict, "versionMinor", minor) ||
      !readUnsignedArray(parser, dict, "warpsPerCTA", wpc, true) ||
      !readUnsignedArray(parser, dict, "instrShape", instrShape, true) ||
      !readCTAParams(parser, dict, wpc.size(), cta))
    return {};
  return checked(parser, NvidiaMmaEncodingAttr::get(parser.getContext(), major, minor, wpc, cta.ctasPerCGA,
                                                    cta.splitNum, cta.order, instrShape));
}

void NvidiaMmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{versionMajor = " << getVersionMajor() << ", versionMinor = " << getVersionMinor() << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printCTAParams(printer, getCTAsPerCGA(), getCTASplitNum(), getCTAOrder());
  printer << ", ";
  printArray(printer, "instrShape", getInstrShape());
  printer << "}>";
}

Attribute DotOperandEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, {"opIdx", "parent", "kWidth"})) return {};
  unsigned opIdx, kWidth;
  if (!readUnsigned(parser, dict, "opIdx", opIdx) || !readUnsigned(parser, dict, "kWidth", kWidth, 0u))
    return {};
  Attribute parent = dict.get("parent");
  if (!parent) {
    parser.emitError(parser.getNameLoc(), "expected key 'parent' (an encoding)");
    return {};
  }
  return checked(parser, DotOperandEncodingAttr::get(parser.getContext(), opIdx, parent, kWidth));
}

void DotOperandEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{opIdx = " << getOpIdx() << ", parent = " << getParent();
  if (getKWidth() != 0) printer << ", kWidth = " << getKWidth();
  printer << "}>";
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, {"register", "lane", "warp", "block"})) return {};
  int64_t rank = -1;
  SmallVector<int32_t> reg, lane, warp, block;
  if (!readBases(parser, dict, "register", rank, reg) || !readBases(parser, dict, "lane", rank, lane) ||
      !readBases(parser, dict, "warp", rank, warp) || !readBases(parser, dict, "block", rank, block))
    return {};
  return checked(parser, LinearEncodingAttr::get(parser.getContext(), std::max<int64_t>(rank, 0), reg, lane,
                                                 warp, block));
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printBases(printer, "register", getRank(), getRegisterBases());
  printer << ", ";
  printBases(printer, "lane", getRank(), getLaneBases());
  printer << ", ";
  printBases(printer, "warp", getRank(), getWarpBases());
  printer << ", ";
  printBases(printer, "block", getRank(), getBlockBases());
  printer << "}>";
}

Attribute SwizzledSharedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, keysWithCTA({"vec", "perPhase", "maxPhase", "order"}))) return {};
  unsigned vec, perPhase, maxPhase;
  SmallVector<unsigned> order;
  CTAParams cta;
  if (!readUnsigned(parser, dict, "vec", vec) || !readUnsigned(parser, dict, "perPhase", perPhase) ||
      !readUnsigned(parser, dict, "maxPhase", maxPhase) || !readUnsignedArray(parser, dict, "order", order, true) ||
      !readCTAParams(parser, dict, order.size(), cta))
    return {};
  return checked(parser, SwizzledSharedEncodingAttr::get(parser.getContext(), vec, perPhase, maxPhase, order,
                                                         cta.ctasPerCGA, cta.splitNum, cta.order));
}

void SwizzledSharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{vec = " << getVec() << ", perPhase = " << getPerPhase() << ", maxPhase = " << getMaxPhase()
          << ", ";
  printArray(printer, "order", getOrder());
  printCTAParams(printer, getCTAsPerCGA(), getCTASplitNum(), getCTAOrder());
  printer << "}>";
}

Attribute NVMMASharedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict ||
      !checkKeys(parser, dict, keysWithCTA({"swizzlingByteWidth", "transposed", "elementBitWidth", "fp4Padded"})))
    return {};
  unsigned swizzle, bitWidth;
  bool transposed, fp4Padded;
  CTAParams cta;
  if (!readUnsigned(parser, dict, "swizzlingByteWidth", swizzle) || !readBool(parser, dict, "transposed", transposed) ||
      !readUnsigned(parser, dict, "elementBitWidth", bitWidth) ||
      !readBool(parser, dict, "fp4Padded", fp4Padded, false) || !readCTAParams(parser, dict, std::nullopt, cta))
    return {};
  return checked(parser, NVMMASharedEncodingAttr::get(parser.getContext(), swizzle, transposed, bitWidth, fp4Padded,
                                                      cta.ctasPerCGA, cta.splitNum, cta.order));
}

void NVMMASharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{swizzlingByteWidth = " << getSwizzlingByteWidth()
          << ", transposed = " << (getTransposed() ? "true" : "false")
          << ", elementBitWidth = " << getElementBitWidth();
  if (getFp4Padded()) printer << ", fp4Padded = true";
  printCTAParams(printer, getCTAsPerCGA(), getCTASplitNum(), getCTAOrder());
  printer << "}>";
}

//===----------------------------------------------------------------------===//
// `!ttg.memdesc<3x128x64xf16, #shared, #smem, mutable[, 4x128x64]>`
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding, memorySpace;
  bool mutableMemory = false;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() || parser.parseAttribute(encoding) ||
      parser.parseComma() || parser.parseAttribute(memorySpace))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    bool wantShape = true;
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      mutableMemory = true;
      wantShape = succeeded(parser.parseOptionalComma());
    }
    if (wantShape && parser.parseDimensionList(allocShape, /*allowDynamic=*/false, /*withTrailingX=*/false))
      return {};
  }
  if (parser.parseGreater()) return {};
  if (allocShape.empty()) allocShape = shape;
  return MemDescType::get(parser.getContext(), shape, elementType, encoding, memorySpace, mutableMemory,
                          allocShape);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape()) printer << dim << "x";
  printer << getElementType();
  if (getEncoding()) printer << ", " << getEncoding();
  if (getMemorySpace()) printer << ", " << getMemorySpace();
  if (getMutableMemory()) printer << ", mutable";
  if (getAllocShape() != getShape()) {
    printer << ", ";
    llvm::interleave(getAllocShape(), printer, "x");
  }
  printer << ">";
}

ShapedType MemDescType::cloneWith(std::optional<ArrayRef<int64_t>> shape, Type elementType) const {
  ArrayRef<int64_t> newShape = shape ? *shape : getShape();
  return MemDescType::get(getContext(), newShape, elementType ? elementType : getElementType(), getEncoding(),
                          getMemorySpace(), getMutableMemory(), shape ? newShape : getAllocShape());
}
