tt.func @bad() {
  %0 = tt.get_program_id w : i32
  tt.return
}
