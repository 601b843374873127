//! Semantics of the front end on small kernels: promotion, constexpr evaluation, control flow,
//! helper functions, locations. Each kernel must build and verify; the checks count ops in the
//! TTIR as built (before any pass).

use tritium_dialects::melior::ir::operation::{OperationLike, OperationPrintingFlags};

const HEADER: &str = "import triton\nimport triton.language as tl\n";

/// The TTIR of `kernel` in `body` (after HEADER), with locations.
fn ttir(body: &str, kernel: &str, signature: &str) -> String {
    let context = tritium_dialects::context::new_context();
    let source = format!("{HEADER}{body}");
    let module = tritium_frontend::build(&context, &source, "k.py", Some(kernel), signature)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(module.as_operation().verify(), "{}", module.as_operation());
    module
        .as_operation()
        .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
        .unwrap()
}

fn error(body: &str, kernel: &str, signature: &str) -> String {
    let context = tritium_dialects::context::new_context();
    let source = format!("{HEADER}{body}");
    match tritium_frontend::build(&context, &source, "k.py", Some(kernel), signature) {
        Ok(m) => panic!("expected an error, got {}", m.as_operation()),
        Err(e) => e.to_string(),
    }
}

fn count(text: &str, op: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.contains(&format!(" {op} "))
                || l.trim_start().starts_with(&format!("{op} "))
                || l.contains(&format!("\"{op}\""))
        })
        .count()
}

#[test]
fn python_numbers_are_weakly_typed() {
    let t = ttir(
        "@triton.jit\ndef k(x, h, u, b):\n    i = tl.arange(0, 16)\n    a = i + 1.5\n    v = tl.load(h + i)\n    w = v + 2.0\n    d = v / v\n    s = tl.load(u + i) >> 3\n    c = tl.load(b + i) + i\n    tl.store(x + i, a + w + d + s + c)\n",
        "k",
        "*fp32, *fp16, *u32, *i8",
    );
    // int32 block + float → fp32; fp16 + 2.0 stays fp16; fp16 / fp16 computes in fp32.
    assert_eq!(count(&t, "arith.sitofp"), 2, "{t}");
    assert!(
        t.contains("arith.addf") && t.contains("tensor<16xf16>"),
        "{t}"
    );
    assert_eq!(count(&t, "arith.divf"), 1, "{t}");
    assert!(count(&t, "arith.extf") >= 2, "{t}");
    assert_eq!(count(&t, "arith.shrui"), 1, "{t}");
    assert_eq!(count(&t, "arith.extsi"), 1, "{t}");
}

#[test]
fn constexpr_if_and_static_range_are_evaluated() {
    let t = ttir(
        "SCALE: tl.constexpr = 3\n@triton.jit\ndef k(x, B: tl.constexpr):\n    i = tl.arange(0, B)\n    v = tl.load(x + i)\n    if B > 100:\n        v = v * 2.0\n    elif B == 16:\n        v = v - 1.0\n    else:\n        v = v + 1.0\n    for j in tl.static_range(SCALE):\n        v = v * j\n    tl.static_assert(B % 16 == 0, 'B must be a multiple of 16')\n    tl.store(x + i, v)\n",
        "k",
        "*fp32, 16",
    );
    assert_eq!(count(&t, "scf.if"), 0, "{t}");
    assert_eq!(count(&t, "arith.subf"), 1, "{t}");
    assert_eq!(count(&t, "arith.mulf"), 3, "{t}");
    let e = error(
        "@triton.jit\ndef k(x, B: tl.constexpr):\n    tl.static_assert(B % 16 == 0, 'B must be a multiple of 16')\n",
        "k",
        "*fp32, 8",
    );
    assert!(
        e.contains("k.py:5:5: error: static_assert failed: B must be a multiple of 16"),
        "{e}"
    );
}

#[test]
fn dynamic_control_flow_carries_values() {
    let t = ttir(
        "@triton.jit\ndef k(x, n):\n    acc = tl.zeros((16,), tl.float32)\n    i = 0\n    while i < n:\n        if i % 2 == 0:\n            acc += 1.0\n        elif i % 3 == 0:\n            acc = acc * 2.0\n        i += 1\n    for j in tl.range(0, n, num_stages=2):\n        acc += j\n    v = acc if n > 4 else acc + 1.0\n    tl.store(x + tl.arange(0, 16), v)\n",
        "k",
        "*fp32, i32",
    );
    assert_eq!(count(&t, "scf.while"), 1, "{t}");
    assert_eq!(count(&t, "scf.if"), 2, "{t}");
    assert_eq!(count(&t, "scf.for"), 1, "{t}");
    assert!(t.contains("tt.num_stages = 2 : i32"), "{t}");
    assert_eq!(count(&t, "arith.select"), 1, "{t}");
}

/// `x = tl.multiple_of(x, ...)` in a loop body leaves `x` the value from before the loop (a hint
/// returns its input), so the loop does not carry it and the hint lands on the op defining it,
/// where axis analysis reads it (as Triton's TTIR has it); a name the body also changes
/// otherwise is still carried, its hint given to the loop's argument.
#[test]
fn hints_in_loop_bodies_mark_the_value_from_before_the_loop() {
    let t = ttir(
        "@triton.jit\ndef k(x, sizes, n):\n    m = tl.load(sizes)\n    c = tl.load(sizes + 1)\n    i = 0\n    while i < n:\n        m = tl.max_contiguous(tl.multiple_of(m, 8), 8)\n        c = tl.multiple_of(input=c, values=4)\n        c = c + 1\n        for j in range(0, n):\n            m = tl.multiple_of(m, 8)\n            tl.store(x + m + j, 1.0)\n        i += 1\n    tl.store(x + c, 2.0)\n",
        "k",
        "*fp32, *i32, i32",
    );
    let loads: Vec<&str> = t.lines().filter(|l| l.contains("tt.load")).collect();
    assert_eq!(loads.len(), 2, "{t}");
    assert!(
        loads[0].contains("tt.divisibility = dense<8>")
            && loads[0].contains("tt.contiguity = dense<8>"),
        "{t}"
    );
    // `c` changes in the body: carried (the while's arguments are c and i, in scope order), its
    // hint goes on the loop for argument 0 and on the load that makes its first value.
    assert!(loads[1].contains("tt.divisibility = dense<4>"), "{t}");
    assert!(t.contains("tt.divisibility_arg0 = dense<4>"), "{t}");
    assert!(
        t.contains("scf.while") && t.contains("(i32, i32) -> (i32, i32)"),
        "{t}"
    );
    // The inner loop carries nothing.
    let inner = t
        .lines()
        .find(|l| l.contains("scf.for"))
        .unwrap_or_default();
    assert!(!inner.is_empty() && !inner.contains("iter_args"), "{t}");
}

/// A hint on a value the loop carries (`tl.multiple_of(ptrs, [16, 16])` as a statement, the
/// grouped-GEMM tutorial's K loop) goes on the loop as `tt.divisibility_argN` (N the block
/// argument's number) and on the op making the value before the loop, as Triton's TTIR has it.
#[test]
fn hints_on_loop_carried_values_go_on_the_loop_and_the_init() {
    let t = ttir(
        "@triton.jit\ndef k(x, n):\n    ptrs = x + tl.arange(0, 16)\n    for i in range(n):\n        tl.multiple_of(ptrs, 16)\n        tl.store(ptrs, 1.0)\n        ptrs += 16\n    j = 0\n    while j < n:\n        j = tl.max_constancy(j, 2)\n        j += 1\n",
        "k",
        "*fp32, i32",
    );
    let init = t
        .lines()
        .find(|l| l.contains("tt.addptr") && !l.contains("scf.for"))
        .unwrap_or_default();
    assert!(init.contains("tt.divisibility = dense<16>"), "{t}");
    assert!(t.contains("tt.divisibility_arg1 = dense<16>"), "{t}");
    assert!(t.contains("tt.constancy_arg0 = dense<2>"), "{t}");
}

#[test]
fn helper_functions_are_called_and_return_tuples() {
    let t = ttir(
        "from triton import language as tl2\n@triton.jit\ndef stats(v, AXIS: tl.constexpr):\n    return tl2.max(v, axis=AXIS), tl2.sum(v, axis=AXIS)\n@triton.jit\ndef k(x, y):\n    i = tl.arange(0, 32)\n    v = tl.load(x + i)\n    m, s = stats(v, 0)\n    m2, s2 = stats(v, AXIS=0)\n    tl.store(y, m + s + m2 + s2)\n",
        "k",
        "*fp32, *fp32",
    );
    assert_eq!(count(&t, "tt.call"), 2, "{t}");
    // One instance for both calls (same types and constexprs).
    assert_eq!(t.matches("tt.func private").count(), 1, "{t}");
    assert!(t.contains("-> (f32, f32)"), "{t}");
}

#[test]
fn ops_carry_python_locations() {
    let t = ttir(
        "@triton.jit\ndef k(x):\n    i = tl.arange(0, 16)\n    tl.store(x + i, 1.0)\n",
        "k",
        "*fp32",
    );
    assert!(t.contains("loc(\"k.py\":5:8)"), "{t}");
    // Ops computing an assigned name are located under it, as Triton's.
    assert!(t.contains("loc(\"i\"(#loc"), "{t}");
    assert!(
        t.contains("loc(\"x\"(loc(\"k.py\":4:0)))") || t.contains("\"x\"(#loc"),
        "{t}"
    );
}

#[test]
fn reductions_over_all_axes_and_keep_dims() {
    let t = ttir(
        "@triton.jit\ndef k(x, y):\n    r = tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]\n    v = tl.load(x + r)\n    s = tl.sum(v)\n    m = tl.max(v, axis=1, keep_dims=True)\n    a = tl.argmin(v, 0)\n    c = tl.cumsum(v, 1)\n    tl.store(y + r, v - m + s + a[None, :] + c)\n",
        "k",
        "*fp32, *fp32",
    );
    assert_eq!(count(&t, "tt.reshape"), 1, "{t}");
    assert_eq!(count(&t, "tt.reduce"), 3, "{t}");
    assert_eq!(count(&t, "tt.scan"), 1, "{t}");
}

#[test]
fn type_errors_are_located() {
    let e = error(
        "@triton.jit\ndef k(x):\n    v = tl.load(x + tl.arange(0, 16))\n    tl.store(x, tl.dot(v, v))\n",
        "k",
        "*fp32",
    );
    assert!(
        e.starts_with("k.py:6:17: error: tl.dot needs two 2-D"),
        "{e}"
    );
    let e = error(
        "@triton.jit\ndef k(x):\n    v = tl.load(x + tl.arange(0, 16)) // 2\n",
        "k",
        "*fp32",
    );
    assert!(
        e.contains("floor division (//) needs integer operands"),
        "{e}"
    );
    let e = error(
        "@triton.jit\ndef k(x):\n    a = tl.load(x + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])\n    tl.dot_scaled(a, None, 'e4m3', a, None, 'e4m3')\n",
        "k",
        "*fp32",
    );
    assert!(
        e.contains("k.py:6:5")
            && e.contains("lhs in format e4m3 must hold fp8e4nv (or uint8), got fp32"),
        "{e}"
    );
}

/// `tl.dot_scaled` as Triton 3.6's frontend builds it: raw bytes bitcast to fp8, e2m1 kept
/// packed, K of the packed operand doubled, absent scales absent from the operand list.
#[test]
fn dot_scaled_builds_the_scaled_dot() {
    let text = ttir(
        "@triton.jit\ndef k(a_ptr, b_ptr, s_ptr, out):\n    r = tl.arange(0, 64)\n    h = tl.arange(0, 32)\n    a = tl.load(a_ptr + r[:, None] * 32 + h[None, :])\n    b = tl.load(b_ptr + r[:, None] * 64 + r[None, :])\n    s = tl.load(s_ptr + r[:, None] * 2 + tl.arange(0, 2)[None, :])\n    d = tl.dot_scaled(a, s, 'e2m1', b, None, 'e4m3', fast_math=True)\n    tl.store(out + r[:, None] * 64 + r[None, :], d)\n",
        "k",
        "*u8, *u8, *u8, *fp32",
    );
    assert!(
        text.contains("tt.bitcast") && text.contains("tensor<64x64xi8> -> tensor<64x64xf8E4M3FN>"),
        "{text}"
    );
    assert!(
        text.contains("tt.dot_scaled")
            && text.contains("lhs = e2m1 rhs = e4m3 {fastMath = true}")
            && text.contains(
                ": tensor<64x32xi8>, tensor<64x2xi8> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>"
            ),
        "{text}"
    );
}

#[test]
fn random_numbers_use_philox_from_the_prelude() {
    let t = ttir(
        "@triton.jit\ndef k(x, seed):\n    offs = tl.arange(0, 64)\n    tl.store(x + offs, tl.rand(seed, offs) + tl.randn(seed, offs) + tl.randint(seed, offs).to(tl.float32))\n",
        "k",
        "*fp32, i32",
    );
    // One Philox instance (10 rounds, two multiplies each) shared by the three calls.
    assert_eq!(count(&t, "tt.mulhiui"), 20, "{t}");
    assert!(t.contains("tritium.language.philox_rounds"), "{t}");
    assert!(t.contains("<tritium>/prelude.py"), "{t}");
}

#[test]
fn prelude_sort_flip_softmax_swizzle() {
    let t = ttir(
        "@triton.jit\ndef k(x, y, z):\n    r = tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]\n    v = tl.load(x + r)\n    s = tl.sort(v)\n    f = tl.flip(v, 0)\n    m = tl.softmax(tl.load(x + tl.arange(0, 16)))\n    i, j = tl.swizzle2d(tl.program_id(0), tl.program_id(1), 8, 8, 4)\n    tl.store(y + r, s + f + tl.ravel(v).to(tl.float32).reshape(8, 16))\n    tl.store(z + tl.arange(0, 16) + i + j, m)\n",
        "k",
        "*fp32, *fp32, *fp32",
    );
    // Bitonic network over 16: 4 + 3 + 2 + 1 = 10 compare-exchanges, each a gather; flip one.
    assert_eq!(count(&t, "tt.gather"), 11, "{t}");
    assert_eq!(count(&t, "math.exp"), 1, "{t}");
    assert_eq!(count(&t, "arith.minsi"), 1, "{t}");
}

#[test]
fn bad_constexprs_are_errors_not_crashes() {
    for (body, message) in [
        ("    a = 1 << 200\n", "shift count 200 is out of range"),
        (
            "    a = 2 ** 200\n",
            "integer overflow in a constexpr expression",
        ),
        ("    a = 10 // 0\n", "integer division or modulo by zero"),
        (
            "    a = tl.zeros((-4,), tl.float32)\n",
            "every dimension of a block must be a power of 2",
        ),
        (
            "    a = tl.zeros((12,), tl.float32)\n",
            "every dimension of a block must be a power of 2",
        ),
        (
            "    a = tl.reshape(tl.arange(0, 16), (-4, -4))\n",
            "cannot reshape",
        ),
        (
            "    a = tl.arange(0, 12)\n",
            "tl.arange's range must be a power of 2",
        ),
        ("    a = tl.program_id(3)\n", "axis must be 0, 1 or 2"),
        (
            "    a = tl.sum(tl.arange(0, 16), axis=2)\n",
            "axis 2 is out of range",
        ),
        ("    a = (1, 2)[5]\n", "tuple index 5 out of range"),
        ("    a, b = tl.arange(0, 16)\n", "cannot unpack"),
        ("    a = x.nope\n", "a tensor has no attribute 'nope'"),
    ] {
        let e = error(&format!("@triton.jit\ndef k(x):\n{body}"), "k", "*fp32");
        assert!(e.contains(message), "{body}: {e}");
        assert!(e.starts_with("k.py:5:"), "{body}: {e}");
    }
}

#[test]
fn negative_steps_run_the_loop_reversed() {
    let t = ttir(
        "@triton.jit\ndef k(x, n):\n    acc = 0\n    for i in range(n, 0, -2):\n        acc += i\n    tl.store(x, acc)\n",
        "k",
        "*i32, i32",
    );
    assert_eq!(count(&t, "scf.for"), 1, "{t}");
    // i = 0 + n - i'
    assert_eq!(count(&t, "arith.subi"), 1, "{t}");
    let e = error(
        "@triton.jit\ndef k(x):\n    tl.store(x, tl.arange(0, 16))\n",
        "k",
        "*i32",
    );
    assert!(e.contains("cannot store a block"), "{e}");
}

#[test]
fn tuples_are_carried_through_loops_and_ifs() {
    let t = ttir(
        "@triton.jit\ndef k(x, n):\n    st = (tl.zeros((16,), tl.float32), 0)\n    for i in range(n):\n        a, c = st\n        st = (a + 1.0, c + i)\n    if n > 3:\n        st = (st[0] * 2.0, st[1])\n    j = 0\n    while j < n:\n        st = (st[0] + 1.0, st[1] + 1)\n        j += 1\n    tl.store(x + tl.arange(0, 16), st[0] + st[1])\n",
        "k",
        "*fp32, i32",
    );
    assert!(t.contains("-> (tensor<16xf32>, i32)"), "{t}");
    assert!(t.contains("scf.while") && t.contains("scf.if"), "{t}");
    let e = error(
        "@triton.jit\ndef k(x, n):\n    st = (1.0, 2)\n    for i in range(n):\n        st = (st[0], 2.0)\n",
        "k",
        "*fp32, i32",
    );
    assert!(
        e.contains("loop-carried variable 'st' has type int32 before the loop but fp32"),
        "{e}"
    );
}

#[test]
fn booleans_are_bytes_in_memory() {
    let t = ttir(
        "@triton.jit\ndef k(m, o):\n    i = tl.arange(0, 16)\n    b = tl.load(m + i)\n    tl.store(o + i, b & (i > 3))\n",
        "k",
        "*i1, *i1",
    );
    assert_eq!(count(&t, "tt.bitcast"), 2, "{t}");
    assert!(t.contains("tensor<16xi8>"), "{t}");
    assert_eq!(count(&t, "arith.extui"), 1, "{t}");
}

#[test]
fn early_returns_make_the_rest_the_other_branch() {
    let t = ttir(
        "@triton.jit\ndef k(x, n):\n    pid = tl.program_id(0)\n    if pid >= n:\n        return\n    v = tl.load(x + pid)\n    if v > 0:\n        tl.store(x + pid, v * 2.0)\n        return\n    tl.store(x + pid, -v)\n",
        "k",
        "*fp32, i32",
    );
    assert_eq!(count(&t, "scf.if"), 2, "{t}");
    assert_eq!(count(&t, "tt.store"), 2, "{t}");
    // A return deeper inside dynamic control flow stays an error.
    let e = error(
        "@triton.jit\ndef k(x, n):\n    for i in range(n):\n        if i > 2:\n            return\n",
        "k",
        "*fp32, i32",
    );
    assert!(e.contains("return inside dynamic control flow"), "{e}");
}

#[test]
fn atomics_check_element_widths() {
    let e = error(
        "@triton.jit\ndef k(p):\n    tl.atomic_xchg(p, 1.0)\n",
        "k",
        "*bf16",
    );
    assert!(
        e.contains("atomic_xchg does not support bf16 elements"),
        "{e}"
    );
    let e = error(
        "@triton.jit\ndef k(p):\n    tl.atomic_cas(p, 0, 1)\n",
        "k",
        "*i8",
    );
    assert!(
        e.contains("atomic_cas does not support int8 elements"),
        "{e}"
    );
    ttir(
        "@triton.jit\ndef k(p):\n    tl.atomic_add(p, 1.0)\n",
        "k",
        "*fp16",
    );
}

#[test]
fn kernel_defaults_fill_a_short_signature() {
    let t = ttir(
        "@triton.jit\ndef k(x, BLOCK: tl.constexpr = 64, SCALE: tl.constexpr = 2.0):\n    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i) * SCALE)\n",
        "k",
        "*fp32",
    );
    assert!(t.contains("tensor<64xf32>"), "{t}");
}

#[test]
fn early_returns_below_constexpr_ifs() {
    let t = ttir(
        "@triton.jit\ndef k(x, n, CHECK: tl.constexpr):\n    pid = tl.program_id(0)\n    if CHECK:\n        if pid >= n:\n            return\n        v = 1.0\n    else:\n        v = 2.0\n    tl.store(x + pid, v)\n",
        "k",
        "*fp32, i32, True",
    );
    assert_eq!(count(&t, "scf.if"), 1, "{t}");
    assert_eq!(count(&t, "tt.store"), 1, "{t}");
}

#[test]
fn helpers_return_values_from_both_ways_of_an_if() {
    let t = ttir(
        "@triton.jit\ndef pick(a, b):\n    if tl.sum(a, 0) > 0:\n        return a, b\n    return b, a\n@triton.jit\ndef k(x):\n    i = tl.arange(0, 16)\n    u, v = pick(tl.load(x + i), i * 2)\n    tl.store(x + i, u + v)\n",
        "k",
        "*i32",
    );
    assert!(
        t.contains("scf.if") && t.contains("-> (tensor<16xi32>, tensor<16xi32>)"),
        "{t}"
    );
    let e = error(
        "@triton.jit\ndef f(a):\n    if a > 0:\n        return a\n    return 1.0\n@triton.jit\ndef k(x, n):\n    tl.store(x, f(n))\n",
        "k",
        "*fp32, i32",
    );
    assert!(
        e.contains("return different types: (int32) and (fp32)"),
        "{e}"
    );
}

#[test]
fn tritium_imports_read_as_triton() {
    // The Python package's spelling: only the import line differs from a Triton kernel.
    let context = tritium_dialects::context::new_context();
    let source = "import tritium as triton\nimport tritium.language as tl\nfrom tritium.language import float16\n\n@triton.jit\ndef k(x, BLOCK: tl.constexpr):\n    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i).to(float16).to(tl.float32) * 2.0)\n";
    let module = tritium_frontend::build(&context, source, "k.py", Some("k"), "*fp32, 64")
        .unwrap_or_else(|e| panic!("{e}"));
    let text = module.as_operation().to_string();
    assert!(text.contains("tensor<64xf16>"), "{text}");
}

#[test]
fn every_listed_language_function_is_dispatched() {
    // `tritium.language` exposes LANGUAGE_FUNCTIONS: each must reach its implementation (which
    // may then reject the missing arguments), never "unknown function".
    for name in tritium_frontend::LANGUAGE_FUNCTIONS {
        let body = format!("@triton.jit\ndef k(x):\n    tl.{name}()\n");
        let context = tritium_dialects::context::new_context();
        let source = format!("{HEADER}{body}");
        if let Err(e) = tritium_frontend::build(&context, &source, "k.py", Some("k"), "*fp32") {
            let e = e.to_string();
            assert!(!e.contains("unknown function"), "tl.{name}: {e}");
        }
    }
    let body = "@triton.jit\ndef k(x):\n    tl.not_a_function()\n";
    assert!(error(body, "k", "*fp32").contains("unknown function"));
}

#[test]
fn assume_builds_a_verified_llvm_assume() {
    // tl.assume(cond) is llvm.intr.assume with no operand bundles (as Triton's matmul tutorial).
    let t = ttir(
        "@triton.jit\ndef k(x, stride):\n    tl.assume(stride > 0)\n    tl.store(x + stride, 1.0)\n",
        "k",
        "*fp32, i32",
    );
    assert_eq!(count(&t, "llvm.intr.assume"), 1, "{t}");
}

#[test]
fn helpers_imported_from_other_modules() {
    // `from helpers import f`, `import pkg.more as m; m.g(...)`, a relative import, and a
    // constexpr global of the other module.
    let context = tritium_dialects::context::new_context();
    let helpers = tritium_frontend::OtherModule {
        name: "helpers".into(),
        source: format!(
            "{HEADER}K: tl.constexpr = 3\n\n@triton.jit\ndef triple(x):\n    return x * K\n"
        ),
        file: "helpers.py".into(),
    };
    let more = tritium_frontend::OtherModule {
        name: "pkg.more".into(),
        source: format!("{HEADER}@triton.jit\ndef plus(x, y):\n    return x + y\n"),
        file: "pkg/more.py".into(),
    };
    let source = format!(
        "{HEADER}from helpers import triple, K\nimport pkg.more as m\nfrom .more import plus\n\n@triton.jit\ndef k(x):\n    i = tl.arange(0, 16)\n    v = tl.load(x + i)\n    tl.store(x + i, plus(m.plus(triple(v), v), K))\n"
    );
    let module = tritium_frontend::build_with_modules(
        &context,
        &source,
        "k.py",
        Some("k"),
        "*fp32",
        Default::default(),
        &[helpers, more],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(module.as_operation().verify());
    let text = module
        .as_operation()
        .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
        .unwrap();
    assert!(text.contains("@helpers.triple__"), "{text}");
    assert!(text.contains("@pkg.more.plus__"), "{text}");
    assert!(text.contains("\"helpers.py\":7"), "{text}");
    // An unknown function of an unknown module is still an error at the call.
    let bad = format!(
        "{HEADER}import nowhere\n\n@triton.jit\ndef k(x):\n    tl.store(x, nowhere.f(1.0))\n"
    );
    assert!(error(&bad, "k", "*fp32").contains("unknown function 'nowhere.f'"));
}

/// An fp8 `tl.dot` naming no `max_num_imprecise_acc` takes the target's default (Triton's CUDA
/// backend: 2^30 on Hopper, where wgmma accumulates fp8 itself, 0 elsewhere); other types get 0;
/// a named value over K is refused, as Triton refuses it.
#[test]
fn fp8_dots_take_the_targets_imprecise_accumulation_default() {
    let kernel = |dtype: &str, extra: &str| {
        format!(
            "@triton.jit\ndef k(a_ptr, out):\n    r = tl.arange(0, 32)\n    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :]).to({dtype})\n    d = tl.dot(a, a{extra})\n    tl.store(out + r[:, None] * 32 + r[None, :], d)\n"
        )
    };
    let build = |body: &str, capability: u32| {
        let context = tritium_dialects::context::new_context();
        let source = format!("{HEADER}{body}");
        let options = tritium_frontend::BuildOptions::for_capability(capability);
        tritium_frontend::build_with(
            &context,
            &source,
            "k.py",
            Some("k"),
            "*fp16, *fp32",
            options,
        )
        .map(|m| m.as_operation().to_string())
        .map_err(|e| e.to_string())
    };
    let hopper = build(&kernel("tl.float8e4nv", ""), 90).unwrap();
    assert!(
        hopper.contains("maxNumImpreciseAcc = 1073741824"),
        "{hopper}"
    );
    let ampere = build(&kernel("tl.float8e4nv", ""), 80).unwrap();
    assert!(
        !ampere.contains("maxNumImpreciseAcc = 1073741824"),
        "{ampere}"
    );
    let half = build(&kernel("tl.float16", ""), 90).unwrap();
    assert!(!half.contains("maxNumImpreciseAcc = 1073741824"), "{half}");
    let named = build(&kernel("tl.float8e4nv", ", max_num_imprecise_acc=32"), 90).unwrap();
    assert!(named.contains("maxNumImpreciseAcc = 32"), "{named}");
    let over = build(&kernel("tl.float8e4nv", ", max_num_imprecise_acc=64"), 90).unwrap_err();
    assert!(
        over.contains("k.py:7:9") && over.contains("max_num_imprecise_acc (64) must be <= K (32)"),
        "{over}"
    );
}
