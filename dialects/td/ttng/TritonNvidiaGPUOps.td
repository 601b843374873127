// The `ttng` dialect: Hopper-specific operations (wgmma, mbarriers, TMA), in Triton 3.6's textual
// format. Every op's verifier body is Rust (dialects/src/verify/ttg.rs).
#ifndef TRITIUM_TTNG_OPS
#define TRITIUM_TTNG_OPS

include "mlir/IR/OpBase.td"
include "ttg/TritonGPUOps.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

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

// An mbarrier: a `!ttg.memdesc<1xi64, ...>` in shared memory.
defvar TTNG_BarrierWrite = Arg<TTG_MemDesc, "mbarrier", [MemWrite<TTG_SharedMemory>]>;
defvar TTNG_BarrierReadWrite = Arg<TTG_MemDesc, "mbarrier",
                                   [MemRead<TTG_SharedMemory>, MemWrite<TTG_SharedMemory>]>;

//===----------------------------------------------------------------------===//
// Fences
//===----------------------------------------------------------------------===//

def TTNG_FenceAsyncSharedOp : TTNG_Op<"fence_async_shared"> {
  let summary = "fence between generic-proxy and async-proxy shared memory accesses";
  let arguments = (ins BoolAttr:$bCluster);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

// Reads of shared memory by A (when a memdesc) and B are glue in TritonGPUOps.cpp.
def TTNG_WarpGroupDotOp : TTNG_Op<"warp_group_dot", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"the accumulator has the result's type", "d", "c", "$_self">]> {
  let summary = "d = a * b + c on a warp group's tensor cores (wgmma); A in registers or shared";
  let arguments = (ins TTG_TensorOrMemDesc:$a,
                       TTG_MemDesc:$b,
                       RankedTensorOf<[TT_Float, TT_Int]>:$c,
                       Optional<I1>:$useC,
                       DefaultValuedAttr<TT_InputPrecisionAttr, "::mlir::triton::InputPrecision::IEEE">:$inputPrecision,
                       DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc,
                       DefaultValuedAttr<BoolAttr, "false">:$isAsync);
  let results = (outs RankedTensorOf<[TT_Float, TT_Int]>:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` $useC^)? attr-dict `:` type($a) `*` qualified(type($b)) `->` type($d)
  }];
}

// The results are the inputs, available once at most `pendings` async dots are in flight.
def TTNG_WarpGroupDotWaitOp : TTNG_Op<"warp_group_dot_wait", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait until at most `pendings` async warp_group_dots are in flight";
  let arguments = (ins Variadic<TTG_TensorOrMemDesc>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<TTG_TensorOrMemDesc>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def TTNG_InitBarrierOp : TTNG_Op<"init_barrier"> {
  let summary = "initialise an mbarrier expecting `count` arrivals per phase";
  let arguments = (ins TTNG_BarrierWrite:$alloc, I32Attr:$count);
  let assemblyFormat = "$alloc `,` $count attr-dict `:` qualified(type($alloc))";
}

def TTNG_InvalBarrierOp : TTNG_Op<"inval_barrier"> {
  let summary = "invalidate an mbarrier so its memory can be reused";
  let arguments = (ins TTNG_BarrierWrite:$alloc);
  let assemblyFormat = "$alloc attr-dict `:` qualified(type($alloc))";
}

def TTNG_BarrierExpectOp : TTNG_Op<"barrier_expect"> {
  let summary = "tell an mbarrier to expect `size` more bytes of async transfers (when pred)";
  let arguments = (ins TTNG_BarrierWrite:$alloc, I32Attr:$size, I1:$pred);
  let assemblyFormat = "$alloc `,` $size attr-dict `,` $pred `:` qualified(type($alloc))";
}

def TTNG_WaitBarrierOp : TTNG_Op<"wait_barrier", [AttrSizedOperandSegments]> {
  let summary = "block until the mbarrier's phase `phase` (parity) completes";
  let arguments = (ins TTNG_BarrierReadWrite:$alloc, I32:$phase, Optional<I1>:$pred,
                       Variadic<TTG_MemDesc>:$deps);
  let assemblyFormat = [{
    $alloc `,` $phase (`,` $pred^)? (`deps` $deps^)? attr-dict `:` qualified(type($alloc))
    (`,` type($deps)^)?
  }];
}

def TTNG_ArriveBarrierOp : TTNG_Op<"arrive_barrier"> {
  let summary = "arrive `count` times on an mbarrier (when pred)";
  let arguments = (ins TTNG_BarrierReadWrite:$alloc, I32Attr:$count, Optional<I1>:$pred);
  let assemblyFormat = "$alloc `,` $count (`,` $pred^)? attr-dict `:` qualified(type($alloc))";
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

def TTNG_AsyncTMACopyGlobalToLocalOp : TTNG_Op<"async_tma_copy_global_to_local"> {
  let summary = "start a TMA load of the descriptor's block at `coord`; completion arrives on the barrier";
  let arguments = (ins Arg<TT_TensorDesc, "", [MemRead<TTG_GlobalMemory>]>:$desc,
                       Variadic<I32>:$coord,
                       TTNG_BarrierWrite:$barrier,
                       Arg<TTG_MemDesc, "", [MemWrite<TTG_SharedMemory>]>:$result,
                       I1:$pred,
                       DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::triton::CacheModifier::NONE">:$cache,
                       DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::triton::EvictionPolicy::NORMAL">:$evict,
                       DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let assemblyFormat = [{
    $desc `[` $coord `]` $result `,` $barrier `,` $pred
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` qualified(type($desc)) `,` qualified(type($barrier)) `->` qualified(type($result))
  }];
}

def TTNG_AsyncTMACopyLocalToGlobalOp : TTNG_Op<"async_tma_copy_local_to_global"> {
  let summary = "start a TMA store of a shared-memory buffer to the descriptor's block at `coord`";
  let arguments = (ins Arg<TT_TensorDesc, "", [MemRead<TTG_GlobalMemory>, MemWrite<TTG_GlobalMemory>]>:$desc,
                       Variadic<I32>:$coord,
                       Arg<TTG_MemDesc, "", [MemRead<TTG_SharedMemory>]>:$src);
  let assemblyFormat = [{
    $desc `[` $coord `]` $src attr-dict `:` qualified(type($desc)) `,` qualified(type($src))
  }];
}

def TTNG_AsyncTMAReduceOp : TTNG_Op<"async_tma_reduce"> {
  let summary = "start a TMA reduction (`kind`) of a shared-memory buffer into global memory";
  let arguments = (ins TT_DescriptorReduceKindAttr:$kind,
                       Arg<TT_TensorDesc, "", [MemRead<TTG_GlobalMemory>, MemWrite<TTG_GlobalMemory>]>:$desc,
                       Variadic<I32>:$coord,
                       Arg<TTG_MemDesc, "", [MemRead<TTG_SharedMemory>]>:$src);
  let assemblyFormat = [{
    $kind `,` $desc `[` $coord `]` $src attr-dict `:` qualified(type($desc)) `,` qualified(type($src))
  }];
}

def TTNG_TMAStoreWaitOp : TTNG_Op<"async_tma_store_wait"> {
  let summary = "wait until at most `pendings` TMA stores are in flight";
  let arguments = (ins I32Attr:$pendings);
  let assemblyFormat = "attr-dict";
}

def TTNG_TensormapCreateOp : TTNG_Op<"tensormap_create", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<TTG_GlobalMemory>, MemWrite<TTG_GlobalMemory>]>]> {
  let summary = "write a TMA descriptor for a global tensor into `desc_ptr` (128 bytes)";
  let arguments = (ins TT_Ptr:$desc_ptr,
                       TT_Ptr:$global_address,
                       Variadic<I32>:$box_dim,
                       Variadic<I32>:$global_dim,
                       Variadic<I64>:$global_stride,
                       Variadic<I32>:$element_stride,
                       I32Attr:$elem_type,
                       I32Attr:$interleave_layout,
                       I32Attr:$swizzle_mode,
                       I32Attr:$fill_mode);
  let assemblyFormat = [{
    $desc_ptr `,` $global_address `,` `[` $box_dim `]` `,` `[` $global_dim `]` `,`
    `[` $global_stride `]` `,` `[` $element_stride `]` attr-dict `:` functional-type(operands, results)
  }];
}

def TTNG_TensormapFenceproxyAcquireOp : TTNG_Op<"tensormap_fenceproxy_acquire",
    [MemoryEffects<[MemWrite<TTG_GlobalMemory>]>]> {
  let summary = "acquire fence making a TMA descriptor written in global memory visible to TMA";
  let arguments = (ins TT_Ptr:$desc_ptr);
  let assemblyFormat = "$desc_ptr attr-dict `:` qualified(type($desc_ptr))";
}

def TTNG_ReinterpretTensorDescOp : TTNG_Op<"reinterpret_tensor_descriptor", [Pure]> {
  let summary = "view a pointer to a TMA descriptor as a typed tensor descriptor";
  let arguments = (ins TT_Ptr:$rawDesc);
  let results = (outs TT_TensorDesc:$result);
  let assemblyFormat = "$rawDesc attr-dict `:` qualified(type($rawDesc)) `to` qualified(type($result))";
}

#endif
