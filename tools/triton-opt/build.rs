//! Compiles the one C++ file of triton-opt: the call into MlirOptMain.
fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=cpp/OptMain.cpp");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file("cpp/OptMain.cpp")
        .include(format!("{prefix}/include"))
        .flag("-fno-exceptions")
        .warnings(false)
        .opt_level(2)
        .debug(false)
        .compile("triton_opt_main");
}
