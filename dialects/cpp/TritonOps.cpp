// The generated op definitions of `tt` (kept alone: it is the largest translation unit).
#include "Triton.h"

using namespace mlir;
using namespace mlir::triton;

#define GET_OP_CLASSES
#include "tt/TritonOps.cpp.inc"
