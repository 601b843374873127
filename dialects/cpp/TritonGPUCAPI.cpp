// C accessors of the `ttg` encodings and types for Rust (dialects/src/encoding.rs). Glue only.
//
// Array getters copy at most `capacity` values into `out` (which may be NULL when `capacity` is 0)
// and return the full length, so a caller can ask for the length first.
#include "TritonGPU.h"
#include "tritium-c.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::triton::gpu;

namespace {
template <typename T> intptr_t copyOut(ArrayRef<T> values, T *out, intptr_t capacity) {
  if (out && capacity > 0) std::copy_n(values.begin(), std::min<intptr_t>(capacity, values.size()), out);
  return values.size();
}

template <typename T> ArrayRef<T> arrayIn(const T *values, intptr_t size) {
  return values ? ArrayRef<T>(values, size) : ArrayRef<T>();
}

SmallVector<unsigned> reversedIota(size_t rank) {
  SmallVector<unsigned> order;
  for (size_t i = rank; i-- > 0;) order.push_back(i);
  return order;
}

// The CTA parameters of a rank-`rank` encoding; NULL arrays mean a single CTA.
struct CTAIn {
  SmallVector<unsigned> ctas, split, order;
  CTAIn(intptr_t rank, const unsigned *ctasPerCGA, const unsigned *ctaSplitNum, const unsigned *ctaOrder,
        bool fillDefaults) {
    if (ctasPerCGA) ctas.assign(ctasPerCGA, ctasPerCGA + rank);
    else if (fillDefaults) ctas.assign(rank, 1);
    if (ctaSplitNum) split.assign(ctaSplitNum, ctaSplitNum + rank);
    else if (fillDefaults) split.assign(rank, 1);
    if (ctaOrder) order.assign(ctaOrder, ctaOrder + rank);
    else if (fillDefaults) order = reversedIota(rank);
  }
};

template <typename Fn> intptr_t withCTAParams(MlirAttribute attr, Fn fn) {
  Attribute a = unwrap(attr);
  if (auto e = dyn_cast<BlockedEncodingAttr>(a)) return fn(e);
  if (auto e = dyn_cast<NvidiaMmaEncodingAttr>(a)) return fn(e);
  if (auto e = dyn_cast<SwizzledSharedEncodingAttr>(a)) return fn(e);
  if (auto e = dyn_cast<NVMMASharedEncodingAttr>(a)) return fn(e);
  return 0;
}
} // namespace

//===----------------------------------------------------------------------===//
// Encodings: kinds
//===----------------------------------------------------------------------===//

bool tritiumAttributeIsABlockedEncoding(MlirAttribute attr) { return isa_and_nonnull<BlockedEncodingAttr>(unwrap(attr)); }
bool tritiumAttributeIsASliceEncoding(MlirAttribute attr) { return isa_and_nonnull<SliceEncodingAttr>(unwrap(attr)); }
bool tritiumAttributeIsANvidiaMmaEncoding(MlirAttribute attr) { return isa_and_nonnull<NvidiaMmaEncodingAttr>(unwrap(attr)); }
bool tritiumAttributeIsADotOperandEncoding(MlirAttribute attr) {
  return isa_and_nonnull<DotOperandEncodingAttr>(unwrap(attr));
}
bool tritiumAttributeIsALinearEncoding(MlirAttribute attr) { return isa_and_nonnull<LinearEncodingAttr>(unwrap(attr)); }
bool tritiumAttributeIsASwizzledSharedEncoding(MlirAttribute attr) {
  return isa_and_nonnull<SwizzledSharedEncodingAttr>(unwrap(attr));
}
bool tritiumAttributeIsANvmmaSharedEncoding(MlirAttribute attr) {
  return isa_and_nonnull<NVMMASharedEncodingAttr>(unwrap(attr));
}
bool tritiumAttributeIsASharedEncoding(MlirAttribute attr) {
  return isa_and_nonnull<SwizzledSharedEncodingAttr, NVMMASharedEncodingAttr>(unwrap(attr));
}
bool tritiumAttributeIsASharedMemorySpace(MlirAttribute attr) { return isa_and_nonnull<SharedMemorySpaceAttr>(unwrap(attr)); }

//===----------------------------------------------------------------------===//
// Encodings: parameters
//===----------------------------------------------------------------------===//

intptr_t tritiumBlockedEncodingGetSizePerThread(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return copyOut(cast<BlockedEncodingAttr>(unwrap(attr)).getSizePerThread(), out, capacity);
}
intptr_t tritiumBlockedEncodingGetThreadsPerWarp(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return copyOut(cast<BlockedEncodingAttr>(unwrap(attr)).getThreadsPerWarp(), out, capacity);
}
intptr_t tritiumEncodingGetWarpsPerCTA(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  Attribute a = unwrap(attr);
  if (auto e = dyn_cast<BlockedEncodingAttr>(a)) return copyOut(e.getWarpsPerCTA(), out, capacity);
  if (auto e = dyn_cast<NvidiaMmaEncodingAttr>(a)) return copyOut(e.getWarpsPerCTA(), out, capacity);
  return 0;
}
intptr_t tritiumEncodingGetOrder(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  Attribute a = unwrap(attr);
  if (auto e = dyn_cast<BlockedEncodingAttr>(a)) return copyOut(e.getOrder(), out, capacity);
  if (auto e = dyn_cast<SwizzledSharedEncodingAttr>(a)) return copyOut(e.getOrder(), out, capacity);
  return 0;
}
intptr_t tritiumEncodingGetCTAsPerCGA(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return withCTAParams(attr, [&](auto e) { return copyOut(e.getCTAsPerCGA(), out, capacity); });
}
intptr_t tritiumEncodingGetCTASplitNum(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return withCTAParams(attr, [&](auto e) { return copyOut(e.getCTASplitNum(), out, capacity); });
}
intptr_t tritiumEncodingGetCTAOrder(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return withCTAParams(attr, [&](auto e) { return copyOut(e.getCTAOrder(), out, capacity); });
}

unsigned tritiumSliceEncodingGetDim(MlirAttribute attr) { return cast<SliceEncodingAttr>(unwrap(attr)).getDim(); }
MlirAttribute tritiumSliceEncodingGetParent(MlirAttribute attr) {
  return wrap(cast<SliceEncodingAttr>(unwrap(attr)).getParent());
}

unsigned tritiumNvidiaMmaEncodingGetVersionMajor(MlirAttribute attr) {
  return cast<NvidiaMmaEncodingAttr>(unwrap(attr)).getVersionMajor();
}
unsigned tritiumNvidiaMmaEncodingGetVersionMinor(MlirAttribute attr) {
  return cast<NvidiaMmaEncodingAttr>(unwrap(attr)).getVersionMinor();
}
intptr_t tritiumNvidiaMmaEncodingGetInstrShape(MlirAttribute attr, unsigned *out, intptr_t capacity) {
  return copyOut(cast<NvidiaMmaEncodingAttr>(unwrap(attr)).getInstrShape(), out, capacity);
}

unsigned tritiumDotOperandEncodingGetOpIdx(MlirAttribute attr) {
  return cast<DotOperandEncodingAttr>(unwrap(attr)).getOpIdx();
}
MlirAttribute tritiumDotOperandEncodingGetParent(MlirAttribute attr) {
  return wrap(cast<DotOperandEncodingAttr>(unwrap(attr)).getParent());
}
unsigned tritiumDotOperandEncodingGetKWidth(MlirAttribute attr) {
  return cast<DotOperandEncodingAttr>(unwrap(attr)).getKWidth();
}

unsigned tritiumLinearEncodingGetRank(MlirAttribute attr) { return cast<LinearEncodingAttr>(unwrap(attr)).getRank(); }
intptr_t tritiumLinearEncodingGetBases(MlirAttribute attr, int which, int32_t *out, intptr_t capacity) {
  auto e = cast<LinearEncodingAttr>(unwrap(attr));
  switch (which) {
  case TRITIUM_LINEAR_REGISTER: return copyOut(e.getRegisterBases(), out, capacity);
  case TRITIUM_LINEAR_LANE: return copyOut(e.getLaneBases(), out, capacity);
  case TRITIUM_LINEAR_WARP: return copyOut(e.getWarpBases(), out, capacity);
  case TRITIUM_LINEAR_BLOCK: return copyOut(e.getBlockBases(), out, capacity);
  default: return 0;
  }
}

unsigned tritiumSwizzledSharedEncodingGetVec(MlirAttribute attr) {
  return cast<SwizzledSharedEncodingAttr>(unwrap(attr)).getVec();
}
unsigned tritiumSwizzledSharedEncodingGetPerPhase(MlirAttribute attr) {
  return cast<SwizzledSharedEncodingAttr>(unwrap(attr)).getPerPhase();
}
unsigned tritiumSwizzledSharedEncodingGetMaxPhase(MlirAttribute attr) {
  return cast<SwizzledSharedEncodingAttr>(unwrap(attr)).getMaxPhase();
}

unsigned tritiumNvmmaSharedEncodingGetSwizzlingByteWidth(MlirAttribute attr) {
  return cast<NVMMASharedEncodingAttr>(unwrap(attr)).getSwizzlingByteWidth();
}
bool tritiumNvmmaSharedEncodingGetTransposed(MlirAttribute attr) {
  return cast<NVMMASharedEncodingAttr>(unwrap(attr)).getTransposed();
}
unsigned tritiumNvmmaSharedEncodingGetElementBitWidth(MlirAttribute attr) {
  return cast<NVMMASharedEncodingAttr>(unwrap(attr)).getElementBitWidth();
}
bool tritiumNvmmaSharedEncodingGetFp4Padded(MlirAttribute attr) {
  return cast<NVMMASharedEncodingAttr>(unwrap(attr)).getFp4Padded();
}

//===----------------------------------------------------------------------===//
// Encodings: constructors
//===----------------------------------------------------------------------===//

MlirAttribute tritiumBlockedEncodingGet(MlirContext ctx, intptr_t rank, const unsigned *sizePerThread,
                                        const unsigned *threadsPerWarp, const unsigned *warpsPerCTA,
                                        const unsigned *order, const unsigned *ctasPerCGA,
                                        const unsigned *ctaSplitNum, const unsigned *ctaOrder) {
  CTAIn cta(rank, ctasPerCGA, ctaSplitNum, ctaOrder, /*fillDefaults=*/true);
  return wrap(BlockedEncodingAttr::get(unwrap(ctx), arrayIn(sizePerThread, rank), arrayIn(threadsPerWarp, rank),
                                       arrayIn(warpsPerCTA, rank), arrayIn(order, rank), cta.ctas, cta.split,
                                       cta.order));
}

MlirAttribute tritiumSliceEncodingGet(MlirContext ctx, unsigned dim, MlirAttribute parent) {
  return wrap(SliceEncodingAttr::get(unwrap(ctx), dim, unwrap(parent)));
}

MlirAttribute tritiumNvidiaMmaEncodingGet(MlirContext ctx, unsigned versionMajor, unsigned versionMinor,
                                          intptr_t rank, const unsigned *warpsPerCTA, intptr_t instrRank,
                                          const unsigned *instrShape, const unsigned *ctasPerCGA,
                                          const unsigned *ctaSplitNum, const unsigned *ctaOrder) {
  CTAIn cta(rank, ctasPerCGA, ctaSplitNum, ctaOrder, /*fillDefaults=*/true);
  return wrap(NvidiaMmaEncodingAttr::get(unwrap(ctx), versionMajor, versionMinor, arrayIn(warpsPerCTA, rank),
                                         cta.ctas, cta.split, cta.order, arrayIn(instrShape, instrRank)));
}

MlirAttribute tritiumDotOperandEncodingGet(MlirContext ctx, unsigned opIdx, MlirAttribute parent, unsigned kWidth) {
  return wrap(DotOperandEncodingAttr::get(unwrap(ctx), opIdx, unwrap(parent), kWidth));
}

MlirAttribute tritiumLinearEncodingGet(MlirContext ctx, unsigned rank, const int32_t *registerBases,
                                       intptr_t numRegister, const int32_t *laneBases, intptr_t numLane,
                                       const int32_t *warpBases, intptr_t numWarp, const int32_t *blockBases,
                                       intptr_t numBlock) {
  return wrap(LinearEncodingAttr::get(unwrap(ctx), rank, arrayIn(registerBases, numRegister * rank),
                                      arrayIn(laneBases, numLane * rank), arrayIn(warpBases, numWarp * rank),
                                      arrayIn(blockBases, numBlock * rank)));
}

MlirAttribute tritiumSwizzledSharedEncodingGet(MlirContext ctx, unsigned vec, unsigned perPhase, unsigned maxPhase,
                                               intptr_t rank, const unsigned *order, const unsigned *ctasPerCGA,
                                               const unsigned *ctaSplitNum, const unsigned *ctaOrder) {
  CTAIn cta(rank, ctasPerCGA, ctaSplitNum, ctaOrder, /*fillDefaults=*/true);
  return wrap(SwizzledSharedEncodingAttr::get(unwrap(ctx), vec, perPhase, maxPhase, arrayIn(order, rank), cta.ctas,
                                              cta.split, cta.order));
}

MlirAttribute tritiumNvmmaSharedEncodingGet(MlirContext ctx, unsigned swizzlingByteWidth, bool transposed,
                                            unsigned elementBitWidth, bool fp4Padded, intptr_t ctaRank,
                                            const unsigned *ctasPerCGA, const unsigned *ctaSplitNum,
                                            const unsigned *ctaOrder) {
  CTAIn cta(ctaRank, ctasPerCGA, ctaSplitNum, ctaOrder, /*fillDefaults=*/false);
  return wrap(NVMMASharedEncodingAttr::get(unwrap(ctx), swizzlingByteWidth, transposed, elementBitWidth, fp4Padded,
                                           cta.ctas, cta.split, cta.order));
}

MlirAttribute tritiumSharedMemorySpaceGet(MlirContext ctx) { return wrap(SharedMemorySpaceAttr::get(unwrap(ctx))); }

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

bool tritiumTypeIsMemDesc(MlirType type) { return isa_and_nonnull<MemDescType>(unwrap(type)); }

MlirType tritiumMemDescTypeGet(MlirType elementType, intptr_t rank, const int64_t *shape, MlirAttribute encoding,
                               MlirAttribute memorySpace, bool mutableMemory, intptr_t allocRank,
                               const int64_t *allocShape) {
  Type element = unwrap(elementType);
  ArrayRef<int64_t> dims = arrayIn(shape, rank);
  ArrayRef<int64_t> allocDims = allocShape ? ArrayRef<int64_t>(allocShape, allocRank) : dims;
  return wrap(MemDescType::get(element.getContext(), dims, element, unwrap(encoding), unwrap(memorySpace),
                               mutableMemory, allocDims));
}

intptr_t tritiumMemDescTypeGetShape(MlirType type, int64_t *out, intptr_t capacity) {
  return copyOut(cast<MemDescType>(unwrap(type)).getShape(), out, capacity);
}
intptr_t tritiumMemDescTypeGetAllocShape(MlirType type, int64_t *out, intptr_t capacity) {
  return copyOut(cast<MemDescType>(unwrap(type)).getAllocShape(), out, capacity);
}
MlirType tritiumMemDescTypeGetElementType(MlirType type) {
  return wrap(cast<MemDescType>(unwrap(type)).getElementType());
}
MlirAttribute tritiumMemDescTypeGetEncoding(MlirType type) {
  return wrap(cast<MemDescType>(unwrap(type)).getEncoding());
}
MlirAttribute tritiumMemDescTypeGetMemorySpace(MlirType type) {
  return wrap(cast<MemDescType>(unwrap(type)).getMemorySpace());
}
bool tritiumMemDescTypeIsMutable(MlirType type) { return cast<MemDescType>(unwrap(type)).getMutableMemory(); }

bool tritiumTypeIsAsyncToken(MlirType type) { return isa_and_nonnull<AsyncTokenType>(unwrap(type)); }
MlirType tritiumAsyncTokenTypeGet(MlirContext ctx) { return wrap(AsyncTokenType::get(unwrap(ctx))); }
