//! Compiles `examples/add.ttir` through the on-disk cache, launches it on fresh random inputs and
//! checks every element against the CPU. Run: `cargo run -p tritium --example jit_add`.

use tritium::{Jit, JitOptions};
use tritium_runtime::KernelArg;

fn main() -> Result<(), String> {
    let jit = match Jit::new() {
        Ok(jit) => jit,
        Err(message) => {
            eprintln!("skipping: {message}");
            return Ok(());
        }
    };
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/add.ttir");
    let kernel = jit.load_file(
        path,
        &JitOptions {
            num_warps: 4,
            ..Default::default()
        },
    )?;
    let n = 1usize << 24;
    let mut rng =
        tritium_runtime::reference::Rng::new(tritium_runtime::reference::Rng::seed_from_time());
    let x = rng.normal_f32(n);
    let y = rng.normal_f32(n);
    let device = jit.device();
    let (xd, yd) = (
        device.upload(&x).map_err(|e| e.to_string())?,
        device.upload(&y).map_err(|e| e.to_string())?,
    );
    let out = device.alloc_elems::<f32>(n).map_err(|e| e.to_string())?;
    out.poison().map_err(|e| e.to_string())?;
    let stream = device.create_stream().map_err(|e| e.to_string())?;
    kernel
        .launch(
            &stream,
            ((n / 1024) as u32, 1, 1),
            &[
                KernelArg::Buffer(&xd),
                KernelArg::Buffer(&yd),
                KernelArg::Buffer(&out),
                KernelArg::I32(n as i32),
            ],
        )
        .map_err(|e| e.to_string())?;
    stream.synchronize().map_err(|e| e.to_string())?;
    let got: Vec<f32> = out.download().map_err(|e| e.to_string())?;
    let bad = (0..n).filter(|&i| got[i] != x[i] + y[i]).count();
    println!(
        "add: {n} elements, {bad} wrong (cache: {})",
        jit.cache().root().display()
    );
    if bad == 0 {
        Ok(())
    } else {
        Err(format!("{bad} wrong elements"))
    }
}
