//! `-tritium-host-descriptors`: a `tt.make_tensor_descriptor` of a kernel whose base, shape and
//! strides are the kernel's own arguments (or constants) becomes a kernel parameter, a
//! `!tt.tensordesc` the launcher encodes on the host (`cuTensorMapEncodeTiled`) and passes by
//! value, as Triton passes host-side `TensorDescriptor` arguments.
//!
//! Why: a descriptor made in the kernel costs every program, before its first TMA copy, the
//! 128-byte `CUtensorMap` written to shared memory field by field, copied to global scratch with
//! a release fence, a barrier and an acquire fence (`ttng.tensormap_create`). Made by the
//! launcher, it is read from the kernel's parameters: tutorial 03 with
//! `-tritium-descriptor-loads`, where no program runs a second tile, lost about 1.3 µs a launch
//! to two device-made descriptors (2048³ f16 on an H100: 1.077 of cuBLAS's time against 1.032
//! with pointers; `bench/persistent-ab.py`).
//!
//! A descriptor is moved when its base is a pointer argument of the function's entry block and
//! each shape and stride operand is an argument, a constant, a 32-bit product of arguments and
//! constants (`M * K`), or (strides) the sign extension of either, or (extents)
//! `tt.get_num_programs` (a batch dimension indexed by the
//! program id: `-tritium-descriptor-loads`' batched tiles), and it pads with zeros (a
//! NaN-padded one stays: the launcher's stand-in for an empty tensor reads zeros). Descriptors
//! built the same way share one parameter. The new parameters follow every other (after
//! `-tritium-persistent-programs`'s program count), each with the argument attribute
//!
//! ```text
//! tritium.host_descriptor = {base = B : i64, shape = [E, ...], strides = [E, ...]}
//! ```
//!
//! where each entry `E` is `{arg = i : i64}` (argument `i`), `{value = c : i64}` (the constant
//! `c`), `{programs = a : i64}` (the number of programs along grid axis `a`) or `{product = [E,
//! ...]}` (the product of arguments and constants, which the launcher refuses when it leaves the
//! 32 bits the kernel computed it in), as the metadata's JSON writes them. The compiler leaves these
//! parameters out of the kernel's signature and describes them in its metadata
//! (`host_descriptors`) for the runtime, which encodes them at each launch. Only public
//! functions (kernels) are rewritten: their launcher is the one that passes the parameters.

use crate::ir_util::*;
use crate::ttir::util::{append_argument_attrs, erase, replace_uses, result};
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::ffi::str_ref;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-host-descriptors",
    summary: "Pass a kernel's tensor descriptors made from its arguments as host-encoded parameters",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt()],
    run,
};

/// The argument attribute of a parameter the launcher encodes.
pub const HOST_DESCRIPTOR: &str = "tritium.host_descriptor";

/// `tt.make_tensor_descriptor`'s `padding` for NaN (Triton's `PAD_NAN`).
const PAD_NAN: i64 = 2;

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    // The module's own ops: rewriting a function erases ops nested in it.
    for block in blocks_of(module) {
        for func in block_ops(block) {
            let visibility = string_attr(func, "sym_visibility");
            if op_name(func) == "tt.func" && visibility.is_none_or(|v| v == "public") {
                rewrite_function(func);
            }
        }
    }
    Ok(())
}

/// Where one extent, stride or base comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Argument(usize),
    Constant(i64),
    /// The number of programs along a grid axis.
    Programs(i64),
    /// The product of arguments and constants, computed in 32 bits (`M * K`: a batch's stride).
    Product(Vec<Source>),
}

impl Source {
    /// The attribute's entry (see the module documentation).
    fn attr(&self, ctx: MlirContext) -> MlirAttribute {
        // SAFETY: attributes of the live context, built from vectors that outlive the calls
        // copying them.
        unsafe {
            let (key, value) = match self {
                Source::Argument(index) => ("arg", ctx.i64_attr(*index as i64)),
                Source::Constant(value) => ("value", ctx.i64_attr(*value)),
                Source::Programs(axis) => ("programs", ctx.i64_attr(*axis)),
                Source::Product(factors) => ("product", list(ctx, factors)),
            };
            let entry = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str_ref(key)), value);
            mlirDictionaryAttrGet(ctx, 1, &entry)
        }
    }
}

/// The array of `sources`' entries.
fn list(ctx: MlirContext, sources: &[Source]) -> MlirAttribute {
    let entries: Vec<MlirAttribute> = sources.iter().map(|s| s.attr(ctx)).collect();
    // SAFETY: an array attribute of the live context copied from `entries`.
    unsafe { mlirArrayAttrGet(ctx, entries.len() as isize, entries.as_ptr()) }
}

/// What a descriptor is made of: base argument, extents, strides, and its type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Recipe {
    base: usize,
    shape: Vec<Source>,
    strides: Vec<Source>,
    /// The descriptor type (uniqued, so compared by handle): descriptors of different blocks
    /// are different parameters.
    desc_type: usize,
}

fn rewrite_function(func: MlirOperation) {
    let Some(&entry) = blocks_of(func).first() else {
        return;
    };
    let args = block_args(entry);
    let argument = |value: MlirValue| args.iter().position(|a| a.ptr == value.ptr);
    let source = |value: MlirValue| -> Option<Source> {
        if let Some(index) = argument(value) {
            return Some(Source::Argument(index));
        }
        if let Some(c) = constant_int(value) {
            return (c >= 0).then_some(Source::Constant(c));
        }
        let op = defining_op(value)?;
        match op_name(op).as_str() {
            "arith.extsi" => {
                let inner = operands(op)[0];
                match argument(inner) {
                    Some(index) => Some(Source::Argument(index)),
                    None => product(inner, &argument).map(Source::Product),
                }
            }
            "arith.muli" => product(value, &argument).map(Source::Product),
            "tt.get_num_programs" => int_attr(op, "axis").map(Source::Programs),
            _ => None,
        }
    };
    let mut made: Vec<(MlirOperation, Recipe)> = Vec::new();
    for op in collect_ops(func) {
        if op_name(op) != "tt.make_tensor_descriptor" || int_attr(op, "padding") == Some(PAD_NAN) {
            continue;
        }
        let ins = operands(op);
        let rank = (ins.len() - 1) / 2;
        let Some(base) = argument(ins[0]) else {
            continue;
        };
        let shape: Option<Vec<Source>> = ins[1..1 + rank].iter().map(|&v| source(v)).collect();
        let strides: Option<Vec<Source>> = ins[1 + rank..].iter().map(|&v| source(v)).collect();
        let (Some(shape), Some(strides)) = (shape, strides) else {
            continue;
        };
        // A stride is an argument, a constant or a product of them, never a program count.
        if strides.iter().any(|s| matches!(s, Source::Programs(_))) {
            continue;
        }
        let recipe = Recipe {
            base,
            shape,
            strides,
            desc_type: value_type(result(op, 0)).ptr as usize,
        };
        made.push((op, recipe));
    }
    if made.is_empty() {
        return;
    }
    let ctx = context_of(func);
    let mut parameters: HashMap<Recipe, MlirValue> = HashMap::new();
    // Per new parameter, its argument attributes: `{tritium.host_descriptor = {...}}`.
    let mut new_attrs: Vec<MlirAttribute> = Vec::new();
    for (op, recipe) in made {
        let desc = result(op, 0);
        let parameter = *parameters.entry(recipe.clone()).or_insert_with(|| {
            // SAFETY: a new argument of the function's live entry block, typed and located as
            // the descriptor it stands for.
            let value = unsafe {
                mlirBlockAddArgument(entry, value_type(desc), mlirOperationGetLocation(op))
            };
            let entry = recipe_attr(ctx, &recipe);
            // SAFETY: a one-entry dictionary of the live context.
            new_attrs.push(unsafe {
                let named =
                    mlirNamedAttributeGet(mlirIdentifierGet(ctx, str_ref(HOST_DESCRIPTOR)), entry);
                mlirDictionaryAttrGet(ctx, 1, &named)
            });
            value
        });
        replace_uses(desc, parameter);
        erase(op);
    }
    append_argument_attrs(func, args.len(), &new_attrs);
}

/// The factors of `value`, an `i32` product (`arith.muli`, nested) of arguments and
/// non-negative constants.
fn product(value: MlirValue, argument: &dyn Fn(MlirValue) -> Option<usize>) -> Option<Vec<Source>> {
    let op = defining_op(value).filter(|op| op_name(*op) == "arith.muli")?;
    // SAFETY: `value` is a live value; its type is read only as an integer type.
    if unsafe {
        let ty = mlirValueGetType(value);
        !mlirTypeIsAInteger(ty) || mlirIntegerTypeGetWidth(ty) != 32
    } {
        return None;
    }
    let mut factors = Vec::new();
    for operand in operands(op) {
        if let Some(index) = argument(operand) {
            factors.push(Source::Argument(index));
        } else if let Some(c) = constant_int(operand) {
            factors.push((c >= 0).then_some(Source::Constant(c))?);
        } else {
            factors.extend(product(operand, argument)?);
        }
    }
    Some(factors)
}

/// The `tritium.host_descriptor` dictionary of `recipe`.
fn recipe_attr(ctx: MlirContext, recipe: &Recipe) -> MlirAttribute {
    // SAFETY: attributes of the live context, built from vectors that outlive the calls copying
    // them.
    unsafe {
        let named = |name: &str, value: MlirAttribute| {
            mlirNamedAttributeGet(mlirIdentifierGet(ctx, str_ref(name)), value)
        };
        let entries = [
            named("base", ctx.i64_attr(recipe.base as i64)),
            named("shape", list(ctx, &recipe.shape)),
            named("strides", list(ctx, &recipe.strides)),
        ];
        mlirDictionaryAttrGet(ctx, entries.len() as isize, entries.as_ptr())
    }
}
