//! Canonicalization patterns of our dialects (Rust), handed to MLIR through the dialect hook.
//!
//! `Dialect::getCanonicalizationPatterns` of each dialect calls
//! [`tritium_add_canonicalization_patterns`] with the dialect's name; the patterns of `tt` live in
//! [`tt`]. Every pattern is a plain function from the matched op and the rewriter to "rewrote it";
//! [`add_pattern`] wraps it as an MLIR `RewritePattern` that never unwinds into C++.

mod tt;

use crate::ffi::string_ref_str;
use melior::{ContextRef, RewriterBase, create_op_rewrite_pattern, ir::OperationRef};
use mlir_sys::{
    MlirContext, MlirRewritePatternSet, MlirStringRef, mlirPatternRewriterAsBase,
    mlirRewritePatternSetAdd,
};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A pattern body: rewrites `op` through `rewriter` (inserting before `op`) and returns whether
/// it changed anything. Returning false must leave the IR untouched.
pub type PatternFn = for<'c, 'a> fn(OperationRef<'c, 'a>, &RewriterBase<'c, 'a>) -> bool;

/// Adds `pattern` for ops named `root` to `set`.
pub fn add_pattern(
    context: ContextRef,
    set: MlirRewritePatternSet,
    root: &str,
    pattern: PatternFn,
) {
    let rewrite = create_op_rewrite_pattern(
        root,
        1,
        // SAFETY: `context` is the live context the patterns are added for; it outlives the pattern
        // set.
        unsafe { context.to_ref() },
        move |_pattern, op, rewriter| {
            catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: MLIR passes the live op the pattern matched; it lives for this call.
                let op = unsafe { OperationRef::from_raw(op) };
                let rewriter =
                    // SAFETY: MLIR passes the live pattern rewriter driving this match; it lives
                    // for this call.
                    unsafe { RewriterBase::from_raw(mlirPatternRewriterAsBase(rewriter)) };
                rewriter.set_insertion_point_before(op);
                pattern(op, &rewriter)
            }))
            .unwrap_or(false)
        },
        &[],
    );
    // SAFETY: `set` is the live pattern set of the C++ caller, which takes ownership of the
    // pattern.
    unsafe { mlirRewritePatternSetAdd(set, rewrite.into_raw()) };
}

/// Called by `Dialect::getCanonicalizationPatterns` in the glue.
#[unsafe(no_mangle)]
pub extern "C" fn tritium_add_canonicalization_patterns(
    context: MlirContext,
    dialect: MlirStringRef,
    set: MlirRewritePatternSet,
) {
    let _ = catch_unwind(|| {
        // SAFETY: the C++ glue passes the live context the patterns are collected for.
        let context = unsafe { ContextRef::from_raw(context) };
        // SAFETY: `dialect` is the dialect's name, owned by the context, valid during the call.
        if unsafe { string_ref_str(dialect) } == "tt" {
            tt::add_patterns(context, set);
        }
    });
}
