// RUN: triton-opt %s --test-tritium-op-count | FileCheck %s --check-prefix=ALL
// RUN: triton-opt %s --pass-pipeline='builtin.module(test-tritium-op-count{prefix=tt. scale=10})' | FileCheck %s --check-prefix=TT
// RUN: not triton-opt %s --test-tritium-op-count=fail-on=tt.store 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not triton-opt %s --pass-pipeline='builtin.module(test-tritium-op-count{scale=abc})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not triton-opt %s --test-tritium-op-count=error-on=tt.load 2>&1 | FileCheck %s --check-prefix=ERROR

// ALL: tt.func @count{{.*}}tritium.op_count = 5 : i64
// TT: tt.func @count{{.*}}tritium.op_count = 50 : i64
// FAIL: test-tritium-op-count.mlir:[[@LINE+8]]:3: error: found 'tt.store', which this test pass was told to reject
// BADOPT: for the --scale option: 'abc' value invalid
// A pass that emits an error fails (and triton-opt exits non-zero) even if it returns success.
// ERROR: test-tritium-op-count.mlir:[[@LINE+4]]:8: error: found 'tt.load' (an error without a failure)
tt.func @count(%p: !tt.ptr<f32>) {
  %pid = tt.get_program_id x : i32
  %q = tt.addptr %p, %pid : !tt.ptr<f32>, i32
  %v = tt.load %q : !tt.ptr<f32>
  tt.store %q, %v : !tt.ptr<f32>
  tt.return
}
