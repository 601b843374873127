//! Semantics the GPU pattern suite does not pin down: tensor descriptors, block pointers'
//! boundary checks and padding, atomics program by program, and the errors for bad accesses.

use tritium_interp::{Arg, Buffer, Launch, run_source};

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn buffer(name: &str, values: &[f32]) -> Arg {
    Arg::Buffer(Buffer {
        name: name.into(),
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    })
}

fn out(outcome: &tritium_interp::Outcome, i: usize) -> Vec<f32> {
    match &outcome.args[i] {
        Arg::Buffer(b) => f32s(&b.bytes),
        _ => panic!("argument {i} is not a buffer"),
    }
}

#[test]
fn descriptor_tiles_zero_fill_and_drop_out_of_bounds_elements() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/Inputs/lowering/descriptor.ttir"
    ))
    .unwrap();
    // A 70x50 matrix (row stride 50): tile rows 64..127 of program 1 are partly outside, and
    // columns 50..63 of every tile are.
    let (m, n) = (70usize, 50usize);
    let a: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
    let b = vec![-1.0f32; m * n];
    let outcome = run_source(
        &source,
        "descriptor.ttir",
        None,
        Launch::new(
            [2, 1, 1],
            vec![
                buffer("a", &a),
                buffer("b", &b),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
            ],
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // b = 2a, then b += a: 3a everywhere inside, nothing written outside.
    let got = out(&outcome, 1);
    for (i, (&g, &x)) in got.iter().zip(&a).enumerate() {
        assert_eq!(g, 3.0 * x, "element {i}");
    }
}

const BLOCK_PTR: &str = r#"
module {
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i64
    %c1 = arith.constant 1 : i64
    %p = tt.make_tensor_ptr %x, [%c3, %c3], [%c3, %c1], [%c2, %c0] {order = array<i32: 1, 0>} : <tensor<2x4xf32>>
    %v = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : !tt.ptr<tensor<2x4xf32>>
    %q = tt.make_tensor_ptr %y, [%c3, %c3], [%c3, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<2x4xf32>>
    tt.store %q, %v {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<2x4xf32>>
    tt.return
  }
}
"#;

#[test]
fn block_pointers_pad_and_skip_what_they_check() {
    let x: Vec<f32> = (0..9).map(|i| i as f32).collect();
    let outcome = run_source(
        BLOCK_PTR,
        "block_ptr.ttir",
        None,
        Launch::new([1, 1, 1], vec![buffer("x", &x), buffer("y", &[0.0; 9])]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out(&outcome, 1);
    // Row 2 of x (6, 7, 8) then NaN padding (column 3, row 3); column 3 is not stored.
    assert_eq!(&y[..3], &[6.0, 7.0, 8.0]);
    assert!(y[3..6].iter().all(|v| v.is_nan()), "{y:?}");
    assert_eq!(&y[6..], &[0.0, 0.0, 0.0]);
}

const COUNTER: &str = r#"
module {
  tt.func public @k(%c: !tt.ptr<i32>, %old: !tt.ptr<i32>) {
    %one = arith.constant 1 : i32
    %true = arith.constant true
    %prev = tt.atomic_rmw add, acq_rel, gpu, %c, %one, %true : (!tt.ptr<i32>, i32, i1) -> i32
    %pid = tt.get_program_id x : i32
    %at = tt.addptr %old, %pid : !tt.ptr<i32>, i32
    tt.store %at, %prev : !tt.ptr<i32>
    tt.return
  }
}
"#;

#[test]
fn atomics_run_program_by_program() {
    let ints = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let outcome = run_source(
        COUNTER,
        "counter.ttir",
        None,
        Launch::new(
            [5, 1, 1],
            vec![
                Arg::Buffer(Buffer {
                    name: "c".into(),
                    bytes: ints(&[10]),
                }),
                Arg::Buffer(Buffer {
                    name: "old".into(),
                    bytes: ints(&[0; 5]),
                }),
            ],
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let Arg::Buffer(old) = &outcome.args[1] else {
        panic!()
    };
    assert_eq!(old.bytes, ints(&[10, 11, 12, 13, 14]));
    let Arg::Buffer(c) = &outcome.args[0] else {
        panic!()
    };
    assert_eq!(c.bytes, ints(&[15]));
}

const UNALIGNED: &str = r#"
module {
  tt.func public @k(%x: !tt.ptr<f32>) {
    %i = tt.ptr_to_int %x : !tt.ptr<f32> -> i64
    %c2 = arith.constant 2 : i64
    %j = arith.addi %i, %c2 : i64
    %p = tt.int_to_ptr %j : i64 -> !tt.ptr<f32>
    %v = tt.load %p : !tt.ptr<f32> loc("unaligned.py":7:9)
    tt.return
  }
}
"#;

#[test]
fn bad_accesses_are_located_errors() {
    let e = run_source(
        UNALIGNED,
        "unaligned.ttir",
        None,
        Launch::new([1, 1, 1], vec![buffer("x", &[0.0; 4])]),
    )
    .unwrap_err();
    assert_eq!(e.location, "unaligned.py:7:9");
    assert!(e.message.contains("unaligned access of 4 bytes"), "{e}");
    let e = run_source(
        UNALIGNED,
        "unaligned.ttir",
        None,
        Launch::new([1, 1, 1], vec![Arg::Int(3)]),
    )
    .unwrap_err();
    assert!(e.message.contains("cannot be passed"), "{e}");
}

const ENDLESS: &str = r#"
module {
  tt.func public @k(%n: i32) {
    %r = scf.while (%i = %n) : (i32) -> i32 {
      %go = arith.cmpi sge, %i, %i : i32
      scf.condition(%go) %i : i32
    } do {
    ^bb0(%j: i32):
      scf.yield %j : i32
    }
    tt.return
  }
}
"#;

#[test]
fn an_endless_loop_is_an_error() {
    let mut launch = Launch::new([1, 1, 1], vec![Arg::Int(0)]);
    launch.limits.max_steps = 10_000;
    let e = run_source(ENDLESS, "endless.ttir", None, launch).unwrap_err();
    assert!(e.message.contains("more than 10000 ops"), "{e}");
}

const GATHER_ROWS: &str = r#"
module {
  tt.func public @k(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>) {
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %s4 = arith.constant 4 : i64
    %s1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i32
    %da = tt.make_tensor_descriptor %a, [%c3, %c4], [%s4, %s1] : <f32>, <tensor<1x4xf32>>
    %db = tt.make_tensor_descriptor %b, [%c3, %c4], [%s4, %s1] : <f32>, <tensor<1x4xf32>>
    %rows = arith.constant dense<[2, 0, 5, 1]> : tensor<4xi32>
    %g = tt.descriptor_gather %da[%rows, %c2] : (!tt.tensordesc<tensor<1x4xf32>>, tensor<4xi32>, i32) -> tensor<4x4xf32>
    %two = "tt.map_elementwise"(%g) <{pack = 2 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      %d = arith.subf %x, %y : f32
      tt.map_elementwise.return %s, %d : f32, f32
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %zero = arith.constant 0 : i32
    %srows = arith.constant dense<[0, 1, 2, 7]> : tensor<4xi32>
    tt.descriptor_scatter %db[%srows, %zero], %two : !tt.tensordesc<tensor<1x4xf32>>, tensor<4xi32>, i32, tensor<4x4xf32>
    tt.return
  }
}
"#;

#[test]
fn descriptor_rows_and_map_elementwise() {
    let a: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let outcome = run_source(
        GATHER_ROWS,
        "gather.ttir",
        None,
        Launch::new([1, 1, 1], vec![buffer("a", &a), buffer("b", &[-1.0; 12])]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Gathered rows (columns 2..5, only 2 and 3 inside): [10 11 0 0], [2 3 0 0], [0 0 0 0],
    // [6 7 0 0]; pairs (x, y) become (x + y, x - y); row 7 of the scatter is dropped.
    let b = out(&outcome, 1);
    assert_eq!(
        b,
        [
            21.0, -1.0, 0.0, 0.0, 5.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        ]
    );
}
