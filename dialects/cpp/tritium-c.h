// The C interface between Tritium's Rust crates and its C++ glue. Mirrored in dialects/src/ffi.rs.
#pragma once
#include "mlir-c/IR.h"
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
#ifdef __cplusplus
}
#endif
