#ifndef TRITIUM_TT_TYPES
#define TRITIUM_TT_TYPES

include "tt/TritonDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class TT_TypeDef<string name, string mnemonic_, list<Trait> traits = []>
    : TypeDef<Triton_Dialect, name, traits> {
  let mnemonic = mnemonic_;
}

// `!tt.ptr<f32>` or `!tt.ptr<f32, 3>`; the address space is printed only when it is not 1 (global).
def TT_PtrType : TT_TypeDef<"Pointer", "ptr"> {
  let summary = "pointer to a value (or to a block, for block pointers) in an address space";
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType, "int":$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
}

// `!tt.tensordesc<tensor<64x64xf32>>`: a TMA-style descriptor of a 2-D block of global memory.
def TT_TensorDescType : TT_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "descriptor of a block of a tensor in global memory";
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
}

// Type constraints.
def TT_Float : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F16, BF16, F32, F64]>;
def TT_FloatTensor : RankedTensorOf<[TT_Float]>;
def TT_FloatLike : AnyTypeOf<[TT_Float, TT_FloatTensor]>;
def TT_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def TT_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def TT_IntTensor : RankedTensorOf<[TT_Int]>;
def TT_IntLike : AnyTypeOf<[TT_Int, TT_IntTensor]>;
def TT_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def TT_I64Like : AnyTypeOf<[I64, RankedTensorOf<[I64]>]>;

def TT_Ptr : DialectType<Triton_Dialect, CPred<"::llvm::isa<::mlir::triton::PointerType>($_self)">,
                         "pointer", "::mlir::triton::PointerType">;
def TT_PtrTensor : RankedTensorOf<[TT_Ptr]>;
def TT_PtrLike : AnyTypeOf<[TT_Ptr, TT_PtrTensor]>;
// A block pointer: `!tt.ptr<tensor<...>>`, printed stripped (`<tensor<...>>`) where the op knows its type.
def TT_TensorPtr : DialectType<Triton_Dialect,
    And<[CPred<"::llvm::isa<::mlir::triton::PointerType>($_self)">,
         CPred<"::llvm::isa<::mlir::RankedTensorType>(::llvm::cast<::mlir::triton::PointerType>($_self).getPointeeType())">]>,
    "block pointer", "::mlir::triton::PointerType">;
def TT_TensorDesc : DialectType<Triton_Dialect, CPred<"::llvm::isa<::mlir::triton::TensorDescType>($_self)">,
                                "tensor descriptor", "::mlir::triton::TensorDescType">;

def TT_Tensor : RankedTensorOf<[TT_Float, TT_Int, TT_Ptr]>;
def TT_Type : AnyTypeOf<[TT_FloatLike, TT_IntLike, TT_PtrLike, TT_TensorPtr]>;

#endif
