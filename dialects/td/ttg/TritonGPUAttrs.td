// Layout encodings and the shared memory space of `ttg`. The encodings' `<{key = value, ...}>`
// syntax is parsed as a dictionary by glue (dialects/cpp/TritonGPU.cpp); every rule about them is
// Rust (layout/src/verify.rs for an encoding on its own, dialects/src/verify/ttg.rs in context).
#ifndef TRITIUM_TTG_ATTRS
#define TRITIUM_TTG_ATTRS

include "ttg/TritonGPUDialect.td"
include "ttg/TritonGPUEnums.td"

class TTG_Attr<string name, string mnemonic_, list<Trait> traits = []>
    : AttrDef<TritonGPU_Dialect, name, traits> {
  let mnemonic = mnemonic_;
  let hasCustomAssemblyFormat = 1;
}

// The CTA (CGA) parameters every multi-CTA-capable encoding carries. Printed only when they differ
// from a single CTA (all ones, CTAOrder = [rank-1, ..., 0]).
defvar CTAParams = (ins ArrayRefParameter<"unsigned">:$CTAsPerCGA,
                        ArrayRefParameter<"unsigned">:$CTASplitNum,
                        ArrayRefParameter<"unsigned">:$CTAOrder);

//===----------------------------------------------------------------------===//
// Distributed encodings (tensors in registers)
//===----------------------------------------------------------------------===//

def TTG_BlockedEncodingAttr : TTG_Attr<"BlockedEncoding", "blocked"> {
  let summary = "each thread holds sizePerThread contiguous elements, tiled over lanes then warps";
  let parameters = !con((ins ArrayRefParameter<"unsigned">:$sizePerThread,
                             ArrayRefParameter<"unsigned">:$threadsPerWarp,
                             ArrayRefParameter<"unsigned">:$warpsPerCTA,
                             ArrayRefParameter<"unsigned">:$order), CTAParams);
}

def TTG_SliceEncodingAttr : TTG_Attr<"SliceEncoding", "slice"> {
  let summary = "the parent layout with dimension `dim` removed";
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
}

def TTG_NvidiaMmaEncodingAttr : TTG_Attr<"NvidiaMmaEncoding", "nvidia_mma"> {
  let summary = "accumulator layout of NVIDIA tensor-core instructions (v2: mma.sync, v3: wgmma)";
  let parameters = !con((ins "unsigned":$versionMajor,
                             "unsigned":$versionMinor,
                             ArrayRefParameter<"unsigned">:$warpsPerCTA),
                        CTAParams,
                        (ins ArrayRefParameter<"unsigned">:$instrShape));
}

def TTG_DotOperandEncodingAttr : TTG_Attr<"DotOperandEncoding", "dot_op"> {
  let summary = "layout of operand `opIdx` (0: A, 1: B) of a dot whose result has layout `parent`";
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent, "unsigned":$kWidth);
}

// `#ttg.linear<{register = [[0, 1], ...], lane = [...], warp = [...], block = [...]}>`: the image of
// each power-of-two input coordinate. The bases are stored flattened, `rank` entries per basis.
def TTG_LinearEncodingAttr : TTG_Attr<"LinearEncoding", "linear"> {
  let summary = "a linear layout given by its bases over registers, lanes, warps and blocks";
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int32_t">:$registerBases,
                        ArrayRefParameter<"int32_t">:$laneBases,
                        ArrayRefParameter<"int32_t">:$warpBases,
                        ArrayRefParameter<"int32_t">:$blockBases);
}

//===----------------------------------------------------------------------===//
// Shared encodings (buffers in shared memory)
//===----------------------------------------------------------------------===//

def TTG_SwizzledSharedEncodingAttr : TTG_Attr<"SwizzledSharedEncoding", "swizzled_shared"> {
  let summary = "rows of vec-element vectors XOR-swizzled by (row / perPhase) % maxPhase";
  let parameters = !con((ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                             ArrayRefParameter<"unsigned">:$order), CTAParams);
}

// Its rank is not known from the attribute, so absent CTA parameters stay empty.
def TTG_NVMMASharedEncodingAttr : TTG_Attr<"NVMMASharedEncoding", "nvmma_shared"> {
  let summary = "the swizzled layout wgmma and TMA read and write directly";
  let parameters = !con((ins "unsigned":$swizzlingByteWidth, "bool":$transposed,
                             "unsigned":$elementBitWidth, "bool":$fp4Padded), CTAParams);
}

//===----------------------------------------------------------------------===//
// Memory spaces and enums
//===----------------------------------------------------------------------===//

def TTG_SharedMemorySpaceAttr : AttrDef<TritonGPU_Dialect, "SharedMemorySpace"> {
  let mnemonic = "shared_memory";
  let summary = "memory space of a !ttg.memdesc in shared memory";
}

// `#ttg.addr_space<local|global_read>`; ttg.barrier writes it bare (`custom<AddrSpace>`).
def TTG_AddrSpaceAttr : EnumAttr<TritonGPU_Dialect, TTG_AddrSpaceEnum, "addr_space">;

#endif
