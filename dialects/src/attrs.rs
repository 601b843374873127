//! Builtin attributes made in one MLIR context, for whatever holds one: the front end's and the
//! lowering's builders, and a bare `MlirContext` (the passes).

use crate::ffi::str_ref;
use mlir_sys::*;

/// Builtin attributes in [`ContextAttrs::context`]. Every type and attribute passed in must be
/// live and belong to that context; MLIR copies the strings and arrays passed in and uniques the
/// attributes it returns in the context, which owns them.
pub trait ContextAttrs {
    fn context(&self) -> MlirContext;

    /// An integer attribute of type `ty` (an integer or index type).
    fn int_attr(&self, ty: MlirType, value: i64) -> MlirAttribute {
        // SAFETY: `ty` is a live integer or index type (trait documentation).
        unsafe { mlirIntegerAttrGet(ty, value) }
    }
    /// An `i32` attribute.
    fn i32_attr(&self, value: i64) -> MlirAttribute {
        // SAFETY: the context is live (trait documentation).
        self.int_attr(unsafe { mlirIntegerTypeGet(self.context(), 32) }, value)
    }
    /// An `i64` attribute.
    fn i64_attr(&self, value: i64) -> MlirAttribute {
        // SAFETY: the context is live (trait documentation).
        self.int_attr(unsafe { mlirIntegerTypeGet(self.context(), 64) }, value)
    }
    /// A float attribute of type `ty` (a float type).
    fn float_attr(&self, ty: MlirType, value: f64) -> MlirAttribute {
        // SAFETY: `ty` is a live float type of the context (trait documentation).
        unsafe { mlirFloatAttrDoubleGet(self.context(), ty, value) }
    }
    fn bool_attr(&self, value: bool) -> MlirAttribute {
        // SAFETY: the context is live (trait documentation).
        unsafe { mlirBoolAttrGet(self.context(), value as i32) }
    }
    fn string_attr(&self, text: &str) -> MlirAttribute {
        // SAFETY: the context is live; MLIR copies the text.
        unsafe { mlirStringAttrGet(self.context(), str_ref(text)) }
    }
    fn unit_attr(&self) -> MlirAttribute {
        // SAFETY: the context is live (trait documentation).
        unsafe { mlirUnitAttrGet(self.context()) }
    }
    fn type_attr(&self, ty: MlirType) -> MlirAttribute {
        // SAFETY: `ty` is a live type of the context (trait documentation).
        unsafe { mlirTypeAttrGet(ty) }
    }
    /// `@symbol`.
    fn symbol_ref(&self, symbol: &str) -> MlirAttribute {
        // SAFETY: the context is live; MLIR copies the name.
        unsafe { mlirFlatSymbolRefAttrGet(self.context(), str_ref(symbol)) }
    }
    /// `array<i32: ...>`.
    fn i32_array(&self, values: &[i32]) -> MlirAttribute {
        // SAFETY: the context is live; MLIR copies the values.
        unsafe { mlirDenseI32ArrayGet(self.context(), values.len() as isize, values.as_ptr()) }
    }
    /// `array<i64: ...>`.
    fn i64_array(&self, values: &[i64]) -> MlirAttribute {
        // SAFETY: the context is live; MLIR copies the values.
        unsafe { mlirDenseI64ArrayGet(self.context(), values.len() as isize, values.as_ptr()) }
    }
    /// `[a, b, ...]`.
    fn array_attr(&self, attrs: &[MlirAttribute]) -> MlirAttribute {
        // SAFETY: the attributes are live in the context; MLIR copies the list.
        unsafe { mlirArrayAttrGet(self.context(), attrs.len() as isize, attrs.as_ptr()) }
    }
    /// `{key = value, ...}`.
    fn dictionary_attr(&self, entries: &[(&str, MlirAttribute)]) -> MlirAttribute {
        let named: Vec<MlirNamedAttribute> = entries
            .iter()
            .map(|(key, attr)| MlirNamedAttribute {
                // SAFETY: the context is live; identifiers are uniqued in it.
                name: unsafe { mlirIdentifierGet(self.context(), str_ref(key)) },
                attribute: *attr,
            })
            .collect();
        // SAFETY: the attributes are live in the context; MLIR copies the list.
        unsafe { mlirDictionaryAttrGet(self.context(), named.len() as isize, named.as_ptr()) }
    }
}

impl ContextAttrs for MlirContext {
    fn context(&self) -> MlirContext {
        *self
    }
}
