// The `ttng` dialect: Hopper-specific operations (wgmma, mbarriers, TMA).
#ifndef TRITIUM_TTNG_OPS
#define TRITIUM_TTNG_OPS

include "mlir/IR/OpBase.td"
include "ttg/TritonGPUOps.td"

def TritonNvidiaGPU_Dialect : Dialect {
  let name = "ttng";
  let cppNamespace = "::mlir::triton::nvidia_gpu";
  let summary = "Triton NVIDIA GPU IR: Hopper tensor cores, barriers and TMA";
  let dependentDialects = ["::mlir::triton::TritonDialect", "::mlir::triton::gpu::TritonGPUDialect"];
}

class TTNG_Op<string mnemonic, list<Trait> traits = []> : Op<TritonNvidiaGPU_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() { return ::tritium::verifyInRust(getOperation()); }
  }];
}

def TTNG_FenceAsyncSharedOp : TTNG_Op<"fence_async_shared"> {
  let summary = "fence between generic-proxy and async-proxy shared memory accesses";
  let arguments = (ins BoolAttr:$bCluster);
  let assemblyFormat = "attr-dict";
}

#endif
