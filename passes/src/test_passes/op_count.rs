//! `-test-tritium-op-count{prefix=tt. fail-on=... error-on=...}`: annotates each function-like op
//! with the number of ops (whose name starts with `prefix`) it contains, and fails at the first op
//! named `fail-on`. `error-on` emits an error at the first op of that name but returns success, to
//! test that the pass machinery turns an error into a failure anyway.

use tritium_dialects::diag::emit_error;
use tritium_dialects::melior::ir::{
    Attribute, Location, OperationRef,
    attribute::IntegerAttribute,
    operation::OperationRefMut,
    operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    r#type::IntegerType,
};
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, fail, no_dialects,
};

pub static PASS: PassDef = PassDef {
    argument: "test-tritium-op-count",
    summary: "Annotate functions with their op count (test of the Rust pass API)",
    anchor: Some("builtin.module"),
    options: &[
        PassOption {
            name: "prefix",
            description: "Count only ops whose name starts with this",
            kind: OptionKind::String,
            default: "",
        },
        PassOption {
            name: "fail-on",
            description: "Fail at the first op with this name",
            kind: OptionKind::String,
            default: "",
        },
        PassOption {
            name: "error-on",
            description: "Emit an error (and still return success) at the first op with this name",
            kind: OptionKind::String,
            default: "",
        },
        PassOption {
            name: "scale",
            description: "Multiply the count by this",
            kind: OptionKind::Int,
            default: "1",
        },
    ],
    dependent_dialects: no_dialects,
    run,
};

fn run(module: OperationRef, options: &Options) -> PassResult {
    let prefix = options.string("prefix");
    let fail_on = options.string("fail-on");
    let error_on = options.string("error-on");
    let scale = options.int("scale");
    let context = module.context();
    let mut failure = None;
    let mut reported = false;
    let mut functions = Vec::new();
    module.walk(WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_owned();
        if !fail_on.is_empty() && name == fail_on && failure.is_none() {
            failure = Some(op.location().to_raw());
        }
        if !error_on.is_empty() && name == error_on && !reported {
            emit_error(
                op.location(),
                &format!("found '{error_on}' (an error without a failure)"),
            );
            reported = true;
        }
        if name == "tt.func" || name == "func.func" {
            // SAFETY: `op` is a live op of the module, which outlives this pass; only the borrow's
            // lifetime changes.
            functions.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    // SAFETY: `raw` is the location of a live op, owned by the context.
    if let Some(location) = failure.map(|raw| unsafe { Location::from_raw(raw) }) {
        return Err(fail(
            location,
            &format!("found '{fail_on}', which this test pass was told to reject"),
        ));
    }
    for function in functions {
        let mut count = 0i64;
        function.walk(WalkOrder::PreOrder, |op| {
            if op
                .name()
                .as_string_ref()
                .as_str()
                .unwrap_or("")
                .starts_with(prefix)
            {
                count += 1;
            }
            WalkResult::Advance
        });
        // SAFETY: the module's context outlives this pass.
        let i64_type = IntegerType::new(unsafe { context.to_ref() }, 64).into();
        let value: Attribute =
            IntegerAttribute::new(i64_type, (count - 1).saturating_mul(scale)).into();
        // SAFETY: `function` is a live function op; nothing else borrows it while its attribute is
        // set.
        let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
        function.set_discardable_attribute("tritium.op_count", value);
    }
    Ok(())
}
