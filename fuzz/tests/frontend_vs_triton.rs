//! The front end's TTIR against Triton's own on the same Python source: the benchmark kernels of
//! `test/Inputs/frontend/cases_visible.py`, built by `tritium-frontend` with the specialization
//! Triton compiled `test/Inputs/kernels/K.source.ttir` with, run in the interpreter on the same
//! random inputs, must write the same buffers.

use tritium_fuzz::corpus::repo_root;
use tritium_fuzz::differential::{compare, first_clean_run};

const CASES: &[(&str, &str, &str)] = &[
    (
        "add",
        "add_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
    ),
    (
        "softmax",
        "softmax_kernel",
        "*fp32:16, *fp32:16, i32, i32, i32, 1024",
    ),
    (
        "rmsnorm",
        "rmsnorm_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096",
    ),
    (
        "matmul",
        "matmul_kernel",
        "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8",
    ),
];

#[test]
fn front_end_kernels_compute_what_tritons_ttir_computes() {
    let root = repo_root();
    let python =
        std::fs::read_to_string(root.join("test/Inputs/frontend/cases_visible.py")).unwrap();
    let mut problems = Vec::new();
    for (name, kernel, signature) in CASES {
        let (context, sink) = tritium_interp::new_context_with_sink();
        let path = root.join(format!("test/Inputs/kernels/{name}.source.ttir"));
        let triton_source = std::fs::read_to_string(&path).unwrap();
        let triton =
            tritium_interp::parse(&context, &sink, &triton_source, &path.display().to_string())
                .unwrap_or_else(|e| panic!("{e}"));
        let ours = tritium_frontend::build(
            &context,
            &python,
            "cases_visible.py",
            Some(kernel),
            signature,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (triton_op, our_op) = (triton.as_operation().to_raw(), ours.as_operation().to_raw());
        let params = tritium_interp::kernel_params(triton_op, None).unwrap();
        let our_params = tritium_interp::kernel_params(our_op, None).unwrap();
        let kinds =
            |p: &[tritium_interp::Param]| p.iter().map(|p| p.kind.clone()).collect::<Vec<_>>();
        if kinds(&params) != kinds(&our_params) {
            problems.push(format!(
                "{name}: parameters {:?} vs Triton's {:?}",
                our_params, params
            ));
            continue;
        }
        let (launch, expected) =
            first_clean_run(triton_op, &params, 5).unwrap_or_else(|e| panic!("{name}: {e}"));
        match tritium_interp::run_module(our_op, None, launch) {
            Ok(got) => {
                if let Some(difference) = compare(&params, &expected, &got) {
                    problems.push(format!("{name}: {difference}"));
                }
            }
            Err(e) => problems.push(format!("{name}: the front end's kernel fails: {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
