// The C interface between Tritium's Rust crates and its C++ glue. Mirrored in dialects/src/ffi.rs.
#pragma once
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TRITIUM_OPTION_STRING = 0, TRITIUM_OPTION_INT = 1, TRITIUM_OPTION_BOOL = 2, TRITIUM_OPTION_FLOAT = 3 };

typedef struct {
  const char *name;
  const char *description;
  int kind;
  const char *default_value;
} TritiumOptionInfo;

typedef struct {
  const char *argument;
  const char *summary;
  const char *op_name; // anchor op, or empty for any op
  const TritiumOptionInfo *options;
  size_t num_options;
  const MlirDialectHandle *dependent_dialects;
  size_t num_dependent_dialects;
  bool (*run)(const void *user_data, MlirOperation op, const MlirStringRef *option_values, size_t num_values);
  const void *user_data;
} TritiumPassInfo;

typedef void (*TritiumAppendText)(MlirStringRef text, void *out);

typedef struct {
  const char *argument;
  const char *summary;
  const TritiumOptionInfo *options;
  size_t num_options;
  bool (*build)(const void *user_data, const MlirStringRef *option_values, size_t num_values,
                TritiumAppendText append, void *out);
  const void *user_data;
} TritiumPipelineInfo;

MLIR_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__tt__(void);
MLIR_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__ttg__(void);
MLIR_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__ttng__(void);

void tritiumRegisterPass(const TritiumPassInfo *info);
void tritiumRegisterPipeline(const TritiumPipelineInfo *info);

/// MLIR's crash reproducer (`PassManager::enableCrashReproducerGeneration`, not in the C API):
/// when a pass fails or crashes, the pipeline and the IR it started from are written to `path`.
void tritiumPassManagerEnableCrashReproducer(MlirPassManager pm, MlirStringRef path);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
extern "C" {
#endif
bool tritiumTypeIsPointer(MlirType type);
MlirType tritiumPointerTypeGet(MlirType pointee, int addressSpace);
MlirType tritiumPointerTypeGetPointee(MlirType type);
int tritiumPointerTypeGetAddressSpace(MlirType type);
bool tritiumTypeIsTensorDesc(MlirType type);
MlirType tritiumTensorDescTypeGetBlockType(MlirType type);
MlirType tritiumTensorDescTypeGet(MlirType blockType);
/// `#arith.fastmath<...>` from its flag bits (no C-API constructor upstream).
MlirAttribute tritiumArithFastMathAttrGet(MlirContext context, unsigned flags);
#ifdef __cplusplus
}
#endif

//===----------------------------------------------------------------------===//
// `ttg` encodings and types (dialects/cpp/TritonGPUCAPI.cpp). Array getters copy at most
// `capacity` values into `out` (NULL when `capacity` is 0) and return the full length.
//===----------------------------------------------------------------------===//

#ifdef __cplusplus
extern "C" {
#endif
enum { TRITIUM_LINEAR_REGISTER = 0, TRITIUM_LINEAR_LANE = 1, TRITIUM_LINEAR_WARP = 2, TRITIUM_LINEAR_BLOCK = 3 };

bool tritiumAttributeIsABlockedEncoding(MlirAttribute attr);
bool tritiumAttributeIsASliceEncoding(MlirAttribute attr);
bool tritiumAttributeIsANvidiaMmaEncoding(MlirAttribute attr);
bool tritiumAttributeIsADotOperandEncoding(MlirAttribute attr);
bool tritiumAttributeIsALinearEncoding(MlirAttribute attr);
bool tritiumAttributeIsASwizzledSharedEncoding(MlirAttribute attr);
bool tritiumAttributeIsANvmmaSharedEncoding(MlirAttribute attr);
// swizzled_shared or nvmma_shared
bool tritiumAttributeIsASharedEncoding(MlirAttribute attr);
bool tritiumAttributeIsASharedMemorySpace(MlirAttribute attr);

intptr_t tritiumBlockedEncodingGetSizePerThread(MlirAttribute attr, unsigned *out, intptr_t capacity);
intptr_t tritiumBlockedEncodingGetThreadsPerWarp(MlirAttribute attr, unsigned *out, intptr_t capacity);
// blocked, nvidia_mma
intptr_t tritiumEncodingGetWarpsPerCTA(MlirAttribute attr, unsigned *out, intptr_t capacity);
// blocked, swizzled_shared
intptr_t tritiumEncodingGetOrder(MlirAttribute attr, unsigned *out, intptr_t capacity);
// blocked, nvidia_mma, swizzled_shared, nvmma_shared (empty there for a single CTA)
intptr_t tritiumEncodingGetCTAsPerCGA(MlirAttribute attr, unsigned *out, intptr_t capacity);
intptr_t tritiumEncodingGetCTASplitNum(MlirAttribute attr, unsigned *out, intptr_t capacity);
intptr_t tritiumEncodingGetCTAOrder(MlirAttribute attr, unsigned *out, intptr_t capacity);
unsigned tritiumSliceEncodingGetDim(MlirAttribute attr);
MlirAttribute tritiumSliceEncodingGetParent(MlirAttribute attr);
unsigned tritiumNvidiaMmaEncodingGetVersionMajor(MlirAttribute attr);
unsigned tritiumNvidiaMmaEncodingGetVersionMinor(MlirAttribute attr);
intptr_t tritiumNvidiaMmaEncodingGetInstrShape(MlirAttribute attr, unsigned *out, intptr_t capacity);
unsigned tritiumDotOperandEncodingGetOpIdx(MlirAttribute attr);
MlirAttribute tritiumDotOperandEncodingGetParent(MlirAttribute attr);
unsigned tritiumDotOperandEncodingGetKWidth(MlirAttribute attr);
unsigned tritiumLinearEncodingGetRank(MlirAttribute attr);
// The bases of input `which` (TRITIUM_LINEAR_*), flattened: `rank` values per basis.
intptr_t tritiumLinearEncodingGetBases(MlirAttribute attr, int which, int32_t *out, intptr_t capacity);
unsigned tritiumSwizzledSharedEncodingGetVec(MlirAttribute attr);
unsigned tritiumSwizzledSharedEncodingGetPerPhase(MlirAttribute attr);
unsigned tritiumSwizzledSharedEncodingGetMaxPhase(MlirAttribute attr);
unsigned tritiumNvmmaSharedEncodingGetSwizzlingByteWidth(MlirAttribute attr);
bool tritiumNvmmaSharedEncodingGetTransposed(MlirAttribute attr);
unsigned tritiumNvmmaSharedEncodingGetElementBitWidth(MlirAttribute attr);
bool tritiumNvmmaSharedEncodingGetFp4Padded(MlirAttribute attr);

// Constructors. Arrays hold `rank` values; NULL CTA arrays mean a single CTA.
MlirAttribute tritiumBlockedEncodingGet(MlirContext ctx, intptr_t rank, const unsigned *sizePerThread,
                                        const unsigned *threadsPerWarp, const unsigned *warpsPerCTA,
                                        const unsigned *order, const unsigned *ctasPerCGA,
                                        const unsigned *ctaSplitNum, const unsigned *ctaOrder);
MlirAttribute tritiumSliceEncodingGet(MlirContext ctx, unsigned dim, MlirAttribute parent);
MlirAttribute tritiumNvidiaMmaEncodingGet(MlirContext ctx, unsigned versionMajor, unsigned versionMinor,
                                          intptr_t rank, const unsigned *warpsPerCTA, intptr_t instrRank,
                                          const unsigned *instrShape, const unsigned *ctasPerCGA,
                                          const unsigned *ctaSplitNum, const unsigned *ctaOrder);
MlirAttribute tritiumDotOperandEncodingGet(MlirContext ctx, unsigned opIdx, MlirAttribute parent, unsigned kWidth);
// Each `*Bases` array holds `num* x rank` values.
MlirAttribute tritiumLinearEncodingGet(MlirContext ctx, unsigned rank, const int32_t *registerBases,
                                       intptr_t numRegister, const int32_t *laneBases, intptr_t numLane,
                                       const int32_t *warpBases, intptr_t numWarp, const int32_t *blockBases,
                                       intptr_t numBlock);
MlirAttribute tritiumSwizzledSharedEncodingGet(MlirContext ctx, unsigned vec, unsigned perPhase, unsigned maxPhase,
                                               intptr_t rank, const unsigned *order, const unsigned *ctasPerCGA,
                                               const unsigned *ctaSplitNum, const unsigned *ctaOrder);
// The CTA arrays hold `ctaRank` values (0 and NULL for a single CTA).
MlirAttribute tritiumNvmmaSharedEncodingGet(MlirContext ctx, unsigned swizzlingByteWidth, bool transposed,
                                            unsigned elementBitWidth, bool fp4Padded, intptr_t ctaRank,
                                            const unsigned *ctasPerCGA, const unsigned *ctaSplitNum,
                                            const unsigned *ctaOrder);
MlirAttribute tritiumSharedMemorySpaceGet(MlirContext ctx);

// `!ttg.memdesc<...>`; a NULL `allocShape` means the shape itself.
bool tritiumTypeIsMemDesc(MlirType type);
MlirType tritiumMemDescTypeGet(MlirType elementType, intptr_t rank, const int64_t *shape, MlirAttribute encoding,
                               MlirAttribute memorySpace, bool mutableMemory, intptr_t allocRank,
                               const int64_t *allocShape);
intptr_t tritiumMemDescTypeGetShape(MlirType type, int64_t *out, intptr_t capacity);
intptr_t tritiumMemDescTypeGetAllocShape(MlirType type, int64_t *out, intptr_t capacity);
MlirType tritiumMemDescTypeGetElementType(MlirType type);
MlirAttribute tritiumMemDescTypeGetEncoding(MlirType type);
MlirAttribute tritiumMemDescTypeGetMemorySpace(MlirType type);
bool tritiumMemDescTypeIsMutable(MlirType type);
// `!ttg.async.token`
bool tritiumTypeIsAsyncToken(MlirType type);
MlirType tritiumAsyncTokenTypeGet(MlirContext ctx);
#ifdef __cplusplus
}
#endif
