// Registration and `<{key = value}>` syntax of the `ttg` encodings, and the `ttng` dialect.
#include "TritonGPU.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton::gpu;

#include "ttg/TritonGPUDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ttg/TritonGPUAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "ttg/TritonGPUOps.cpp.inc"

#include "ttng/TritonNvidiaGPUDialect.cpp.inc"
#define GET_OP_CLASSES
#include "ttng/TritonNvidiaGPUOps.cpp.inc"

void TritonGPUDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ttg/TritonGPUOps.cpp.inc"
      >();
}

void TritonGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ttg/TritonGPUAttrs.cpp.inc"
      >();
}

void mlir::triton::nvidia_gpu::TritonNvidiaGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ttng/TritonNvidiaGPUOps.cpp.inc"
      >();
}

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

SmallVector<unsigned> reversedIota(size_t rank) {
  SmallVector<unsigned> order;
  for (size_t i = rank; i-- > 0;) order.push_back(i);
  return order;
}
} // namespace

Attribute BlockedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict) return {};
  if (!checkKeys(parser, dict, {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA",
                                "CTASplitNum", "CTAOrder"}))
    return {};
  SmallVector<unsigned> spt, tpw, wpc, order, ctas, split, ctaOrder;
  if (!readUnsignedArray(parser, dict, "sizePerThread", spt, true) ||
      !readUnsignedArray(parser, dict, "threadsPerWarp", tpw, true) ||
      !readUnsignedArray(parser, dict, "warpsPerCTA", wpc, true) ||
      !readUnsignedArray(parser, dict, "order", order, true) ||
      !readUnsignedArray(parser, dict, "CTAsPerCGA", ctas, false) ||
      !readUnsignedArray(parser, dict, "CTASplitNum", split, false) ||
      !readUnsignedArray(parser, dict, "CTAOrder", ctaOrder, false))
    return {};
  size_t rank = spt.size();
  if (ctas.empty()) ctas.assign(rank, 1);
  if (split.empty()) split.assign(rank, 1);
  if (ctaOrder.empty()) ctaOrder = reversedIota(rank);
  return BlockedEncodingAttr::get(parser.getContext(), spt, tpw, wpc, order, ctas, split, ctaOrder);
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
  bool singleCta = llvm::all_of(getCTAsPerCGA(), [](unsigned n) { return n == 1; }) &&
                   llvm::all_of(getCTASplitNum(), [](unsigned n) { return n == 1; }) &&
                   getCTAOrder() == ArrayRef<unsigned>(reversedIota(getOrder().size()));
  if (!singleCta) {
    printer << ", ";
    printArray(printer, "CTAsPerCGA", getCTAsPerCGA());
    printer << ", ";
    printArray(printer, "CTASplitNum", getCTASplitNum());
    printer << ", ";
    printArray(printer, "CTAOrder", getCTAOrder());
  }
  printer << "}>";
}

Attribute SliceEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict = parseBody(parser);
  if (!dict || !checkKeys(parser, dict, {"dim", "parent"})) return {};
  auto dim = dyn_cast_or_null<IntegerAttr>(dict.get("dim"));
  Attribute parent = dict.get("parent");
  if (!dim || dim.getInt() < 0 || !parent) {
    parser.emitError(parser.getNameLoc(), "expected 'dim' (non-negative integer) and 'parent' (encoding)");
    return {};
  }
  return SliceEncodingAttr::get(parser.getContext(), dim.getInt(), parent);
}

void SliceEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = " << getParent() << "}>";
}
