// Glue header for the `ttg` and `ttng` dialects.
#pragma once
#include "Triton.h"

#include "ttg/TritonGPUDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ttg/TritonGPUAttrs.h.inc"
#define GET_OP_CLASSES
#include "ttg/TritonGPUOps.h.inc"

#include "ttng/TritonNvidiaGPUDialect.h.inc"
#define GET_OP_CLASSES
#include "ttng/TritonNvidiaGPUOps.h.inc"
