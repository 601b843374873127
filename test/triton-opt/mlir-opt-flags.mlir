// The mlir-opt flags users rely on work as in mlir-opt.
// RUN: triton-opt %s --split-input-file | FileCheck %s --check-prefix=SPLIT
// RUN: triton-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: triton-opt %s --split-input-file --test-tritium-op-count --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: triton-opt %s --split-input-file --canonicalize --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: triton-opt %s --split-input-file -o %t && FileCheck %s --check-prefix=SPLIT < %t

// SPLIT: tt.func @first
// SPLIT: tt.func @second
// GENERIC: "tt.func"() <{function_type = () -> (), sym_name = "first"}>
// AFTER: IR Dump After {{.*}}test-tritium-op-count
// TIMING: Execution time report
tt.func @first() {
  tt.return
}

// -----

tt.func @second() {
  tt.return
}
