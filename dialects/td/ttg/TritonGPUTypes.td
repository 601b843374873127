// Types of `ttg`: shared-memory descriptors and async tokens.
#ifndef TRITIUM_TTG_TYPES
#define TRITIUM_TTG_TYPES

include "ttg/TritonGPUDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class TTG_TypeDef<string name, string mnemonic_, list<Trait> traits = []>
    : TypeDef<TritonGPU_Dialect, name, traits> {
  let mnemonic = mnemonic_;
}

// `!ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>`; a view of part of an allocation adds the
// allocation's shape: `!ttg.memdesc<128x32xf16, #shared, #smem, mutable, 3x128x64>`.
def TTG_MemDescType : TTG_TypeDef<"MemDesc", "memdesc", [ShapedTypeInterface]> {
  let summary = "descriptor of a buffer in shared memory: shape, element type, layout";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding,
                        "::mlir::Attribute":$memorySpace,
                        "bool":$mutableMemory,
                        ArrayRefParameter<"int64_t">:$allocShape);
  let hasCustomAssemblyFormat = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::mlir::Attribute":$encoding,
        "::mlir::Attribute":$memorySpace, CArg<"bool", "false">:$mutableMemory), [{
      return $_get(elementType.getContext(), shape, elementType, encoding, memorySpace,
                   mutableMemory, shape);
    }]>
  ];
  let extraClassDeclaration = [{
    // ShapedTypeInterface.
    bool hasRank() const { return true; }
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;
  }];
}

def TTG_AsyncTokenType : TTG_TypeDef<"AsyncToken", "async.token"> {
  let summary = "completion token of asynchronous copies";
}

#endif
