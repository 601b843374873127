// Layout encodings of `ttg`. Their `<{key = value, ...}>` syntax is parsed as a dictionary by glue
// (dialects/cpp/TritonGPU.cpp); every rule about them is Rust (dialects/src/verify/ttg.rs).
#ifndef TRITIUM_TTG_ATTRS
#define TRITIUM_TTG_ATTRS

include "ttg/TritonGPUDialect.td"

class TTG_Attr<string name, string mnemonic_, list<Trait> traits = []>
    : AttrDef<TritonGPU_Dialect, name, traits> {
  let mnemonic = mnemonic_;
  let hasCustomAssemblyFormat = 1;
}

def TTG_BlockedEncodingAttr : TTG_Attr<"BlockedEncoding", "blocked"> {
  let summary = "each thread holds sizePerThread contiguous elements, tiled over lanes then warps";
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order,
                        ArrayRefParameter<"unsigned">:$CTAsPerCGA,
                        ArrayRefParameter<"unsigned">:$CTASplitNum,
                        ArrayRefParameter<"unsigned">:$CTAOrder);
}

def TTG_SliceEncodingAttr : TTG_Attr<"SliceEncoding", "slice"> {
  let summary = "the parent layout with dimension `dim` removed";
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
}

#endif
