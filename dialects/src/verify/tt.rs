//! Verifier rules of the `tt` dialect, one function per op. ODS has already checked operand counts,
//! type classes and the declared type relations (`TypesMatchWith`, `SameOperandsAndResultShape`,
//! ...) when these run; the rules here add what ODS cannot say: shape arithmetic, encodings,
//! attribute ranges, element-type combinations and region signatures. The rules are stricter than
//! Triton's own verifiers where Triton leaves a check to its Python front end (docs/tt.md lists
//! every rule).

mod compute;
mod memory;
mod scalar;
mod shapes;
mod util;

use super::Check;
use melior::ir::OperationRef;

pub fn verify(name: &str, op: OperationRef) -> Check {
    util::static_shapes(&op)?;
    match name {
        "int_to_ptr" | "ptr_to_int" => scalar::int_pointer_cast(&op),
        "bitcast" => scalar::bitcast(&op),
        "fp_to_fp" => scalar::fp_to_fp(&op),
        "extern_elementwise" => scalar::extern_elementwise(&op),
        "elementwise_inline_asm" => scalar::inline_asm(&op),
        "addptr" => memory::addptr(&op),
        "advance" => memory::advance(&op),
        "make_tensor_ptr" => memory::make_tensor_ptr(&op),
        "load" => memory::load(&op),
        "store" => memory::store(&op),
        "atomic_rmw" => memory::atomic_rmw(&op),
        "atomic_cas" => memory::atomic_cas(&op),
        "make_tensor_descriptor" => memory::make_tensor_descriptor(&op),
        "descriptor_load" | "descriptor_store" | "descriptor_reduce" => {
            memory::descriptor_block_access(name, &op)
        }
        "descriptor_gather" | "descriptor_scatter" => memory::descriptor_rows_access(name, &op),
        "splat" => shapes::splat(&op),
        "unsplat" => shapes::unsplat(&op),
        "expand_dims" => shapes::expand_dims(&op),
        "reshape" => shapes::reshape(&op),
        "broadcast" => shapes::broadcast(&op),
        "cat" => shapes::cat(&op),
        "join" => shapes::join(&op),
        "split" => shapes::split(&op),
        "trans" => shapes::trans(&op),
        "make_range" => shapes::make_range(&op),
        "gather" => shapes::gather(&op),
        "histogram" => shapes::histogram(&op),
        "dot" => compute::dot(&op),
        "dot_scaled" => compute::dot_scaled(&op),
        "reduce" => compute::reduce(&op),
        "scan" => compute::scan(&op),
        "map_elementwise" => compute::map_elementwise(&op),
        "reduce.return" | "scan.return" | "map_elementwise.return" => {
            compute::combine_return(name, &op)
        }
        "print" => compute::print(&op),
        "return" => compute::func_return(&op),
        // clampf, precise_sqrt, precise_divf and mulhiui are fully described by
        // SameOperandsAndResultType; get_program_id/get_num_programs by their i32 result and enum;
        // assert by its i1 condition; func/call by FunctionOpInterface and verifySymbolUses.
        _ => Ok(()),
    }
}
