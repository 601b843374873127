// Operations of the `ttg` dialect, in Triton 3.6's textual format. Every op's verifier body is Rust
// (dialects/src/verify/ttg.rs); ODS only declares structure, traits, effects and syntax.
#ifndef TRITIUM_TTG_OPS
#define TRITIUM_TTG_OPS

include "ttg/TritonGPUDialect.td"
include "ttg/TritonGPUAttrs.td"
include "ttg/TritonGPUTypes.td"
include "tt/TritonTypes.td"
include "tt/TritonEnums.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Memory resources of the effects below (C++ in dialects/cpp/Triton.h and TritonGPU.h).
def TTG_GlobalMemory : Resource<"::mlir::triton::GlobalMemory">;
def TTG_SharedMemory : Resource<"::mlir::triton::gpu::SharedMemory">;

// Type constraints: the TypeDefs themselves (so `type($x)` prints a memdesc stripped, `<...>`).
defvar TTG_MemDesc = TTG_MemDescType;
defvar TTG_AsyncToken = TTG_AsyncTokenType;
def TTG_TensorOrMemDesc : AnyTypeOf<[TT_FloatTensor, TT_IntTensor, TTG_MemDesc],
                                    "tensor or memory descriptor">;

class TTG_Op<string mnemonic, list<Trait> traits = []> : Op<TritonGPU_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() { return ::tritium::verifyInRust(getOperation()); }
  }];
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def TTG_ConvertLayoutOp : TTG_Op<"convert_layout", [SameOperandsAndResultShape,
    SameOperandsAndResultElementType, Pure]> {
  let summary = "move a tensor to another layout";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

// An immutable buffer initialised from `src` is a value (no effects, so CSE/DCE apply); a mutable
// one allocates (and writes) shared memory. Effects are glue in TritonGPUOps.cpp.
def TTG_LocalAllocOp : TTG_Op<"local_alloc", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "allocate a buffer in shared memory, optionally initialised from a tensor";
  let arguments = (ins Optional<TT_Tensor>:$src, OptionalAttr<I32Attr>:$alignment);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
}

def TTG_LocalDeallocOp : TTG_Op<"local_dealloc"> {
  let summary = "free a shared-memory buffer (optional: buffers die after their last use)";
  let arguments = (ins Arg<TTG_MemDesc, "", [MemFree<TTG_SharedMemory>]>:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
}

def TTG_LocalLoadOp : TTG_Op<"local_load"> {
  let summary = "load a shared-memory buffer into a distributed tensor";
  let arguments = (ins Arg<TTG_MemDesc, "", [MemRead<TTG_SharedMemory>]>:$src,
                       Optional<TTG_AsyncToken>:$token);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src (`token` $token^)? attr-dict `:` qualified(type($src)) `->` type($result)";
}

def TTG_LocalStoreOp : TTG_Op<"local_store"> {
  let summary = "store a distributed tensor into a mutable shared-memory buffer";
  let arguments = (ins TT_Tensor:$src, Arg<TTG_MemDesc, "", [MemWrite<TTG_SharedMemory>]>:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))";
}

//===----------------------------------------------------------------------===//
// Views of a buffer (no memory effect)
//===----------------------------------------------------------------------===//

def TTG_MemDescIndexOp : TTG_Op<"memdesc_index", [Pure]> {
  let summary = "the `index`-th sub-buffer along dimension 0";
  let arguments = (ins TTG_MemDesc:$src, I32:$index);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
}

def TTG_MemDescSubsliceOp : TTG_Op<"memdesc_subslice", [Pure]> {
  let summary = "the sub-buffer of the result's shape starting at constant `offsets`";
  let arguments = (ins TTG_MemDesc:$src, DenseI32ArrayAttr:$offsets);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` custom<Offsets>($offsets) `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
}

def TTG_MemDescTransOp : TTG_Op<"memdesc_trans", [Pure]> {
  let summary = "a transposed view: result dim i is source dim order[i]";
  let arguments = (ins TTG_MemDesc:$src, DenseI32ArrayAttr:$order);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
}

def TTG_MemDescReshapeOp : TTG_Op<"memdesc_reshape", [Pure]> {
  let summary = "a view of the same elements with another shape";
  let arguments = (ins TTG_MemDesc:$src);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def TTG_AsyncCopyGlobalToLocalOp : TTG_Op<"async_copy_global_to_local", [AttrSizedOperandSegments,
    TypesMatchWith<"mask has i1 elements in the shape of the pointers", "src", "mask",
                   "::mlir::triton::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    TypesMatchWith<"other has the pointers' pointee type", "src", "other",
                   "::mlir::triton::getPointeeType($_self)",
                   "($_op.getOperands().size() <= 3) || std::equal_to<>()">]> {
  let summary = "start copying a tensor of global pointers' pointees into a shared-memory buffer";
  let arguments = (ins Arg<TT_PtrTensor, "", [MemRead<TTG_GlobalMemory>]>:$src,
                       Arg<TTG_MemDesc, "", [MemWrite<TTG_SharedMemory>]>:$result,
                       Optional<RankedTensorOf<[I1]>>:$mask,
                       Optional<TT_Type>:$other,
                       DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::triton::CacheModifier::NONE">:$cache,
                       DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::triton::EvictionPolicy::NORMAL">:$evict,
                       DefaultValuedAttr<BoolAttr, "false">:$isVolatile,
                       DefaultValuedAttr<I32Attr, "1">:$contiguity);
  let results = (outs TTG_AsyncToken:$token);
  let assemblyFormat = [{
    $src `,` $result (`mask` $mask^)? (`other` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($src) `->` type($result)
  }];
}

def TTG_AsyncCommitGroupOp : TTG_Op<"async_commit_group"> {
  let summary = "close the current group of async copies so it can be waited on";
  let arguments = (ins Variadic<TTG_AsyncToken>:$inputTokens);
  let results = (outs TTG_AsyncToken:$asyncToken);
  let assemblyFormat = "(`tokens` $inputTokens^)? attr-dict";
}

def TTG_AsyncWaitOp : TTG_Op<"async_wait"> {
  let summary = "wait until at most `num` groups of async copies are in flight";
  let arguments = (ins Variadic<TTG_AsyncToken>:$asyncToken, I32Attr:$num);
  let results = (outs TTG_AsyncToken:$retToken);
  let assemblyFormat = "($asyncToken^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Synchronisation and misc
//===----------------------------------------------------------------------===//

def TTG_BarrierOp : TTG_Op<"barrier"> {
  let summary = "CTA-wide barrier making the given address spaces' accesses visible";
  let arguments = (ins TTG_AddrSpaceAttr:$addrSpace);
  let assemblyFormat = "custom<AddrSpace>($addrSpace) attr-dict";
}

def TTG_WarpIdOp : TTG_Op<"warp_id", [Pure]> {
  let summary = "the id of the executing warp within the CTA";
  let arguments = (ins UnitAttr:$omitUniformHint);
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def TTG_GlobalScratchAllocOp : TTG_Op<"global_scratch_alloc"> {
  let summary = "a buffer of `nbytes` in global memory private to the program";
  let arguments = (ins I32Attr:$nbytes, I32Attr:$alignment,
                       OptionalAttr<UnitAttr>:$third_party_allocation);
  let results = (outs Res<TT_Ptr, "", [MemAlloc<TTG_GlobalMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

#endif
