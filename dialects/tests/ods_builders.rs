//! The typed builders generated from our ODS build ops that verify and print in Triton's syntax.

use tritium_dialects::melior::ir::{
    Block, BlockLike, Location, Module, Region, RegionLike, Type, operation::OperationLike,
    r#type::IntegerType,
};
use tritium_dialects::ods::tt;

#[test]
fn typed_builders_make_tt_ops_in_triton_syntax() {
    let context = tritium_dialects::context::new_context();
    let location = Location::unknown(&context);
    let i32_type: Type = IntegerType::new(&context, 32).into();
    let tensor: Type = Type::parse(&context, "tensor<128xi32>").unwrap();
    let module = Module::new(location);
    let block = Block::new(&[(i32_type, location)]);
    let splat = block.append_operation(
        tt::splat(
            &context,
            tensor,
            block.argument(0).unwrap().into(),
            location,
        )
        .into(),
    );
    let range = tt::make_range(
        &context,
        tensor,
        tritium_dialects::melior::ir::attribute::IntegerAttribute::new(i32_type, 0),
        tritium_dialects::melior::ir::attribute::IntegerAttribute::new(i32_type, 128),
        location,
    );
    let range = block.append_operation(range.into());
    // make_range has no operands: the verifier (Rust rules included) runs on it standalone.
    assert!(range.verify());
    assert_eq!(
        range.to_string().trim(),
        "%0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>"
    );
    let bad = tt::make_range(
        &context,
        Type::parse(&context, "tensor<100xi32>").unwrap(),
        tritium_dialects::melior::ir::attribute::IntegerAttribute::new(i32_type, 0),
        tritium_dialects::melior::ir::attribute::IntegerAttribute::new(i32_type, 100),
        location,
    );
    assert!(
        !block.append_operation(bad.into()).verify(),
        "a 100-element range must be rejected"
    );
    assert!(splat.to_string().contains("tt.splat"));
    assert!(
        splat
            .to_string()
            .trim_end()
            .ends_with(": i32 -> tensor<128xi32>")
    );
    let region = Region::new();
    region.append_block(block);
    let _ = module;
}
