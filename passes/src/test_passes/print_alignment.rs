//! `-test-print-alignment`: prints the axis info of every op result as a remark-like line on
//! stderr (`loc: contiguity = [..], divisibility = [..], constancy = [..]`), for lit tests.

use crate::axis_info::AxisInfoAnalysis;
use crate::ir_util::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, no_dialects};

pub static PASS: PassDef = PassDef {
    argument: "test-print-alignment",
    summary: "Print the axis info (contiguity, divisibility, constancy) of every value",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: no_dialects,
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let analysis = AxisInfoAnalysis::run(module.to_raw());
    for op in collect_ops(module.to_raw()) {
        let name = op_name(op);
        for (i, result) in results(op).into_iter().enumerate() {
            let info = analysis.get(result);
            eprintln!(
                "{name} #{i}: contiguity = {:?}, divisibility = {:?}, constancy = {:?}",
                info.contiguity, info.divisibility, info.constancy
            );
        }
    }
    Ok(())
}
