// MlirOptMain with the registry Rust prepared: the only C++ triton-opt needs.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

extern "C" int tritiumOptMain(int argc, char **argv, void (*registerDialects)(MlirDialectRegistry)) {
  mlir::DialectRegistry registry;
  registerDialects(wrap(&registry));
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tritium optimizer driver: MLIR's opt with the tt, ttg and ttng dialects and Tritium's passes\n", registry));
}
