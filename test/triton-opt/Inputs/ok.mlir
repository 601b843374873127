tt.func @ok() {
  tt.return
}
