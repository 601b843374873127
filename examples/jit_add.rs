//! Compiles `examples/add.ttir` through the on-disk cache, launches it on fresh random inputs and
//! checks every element against the CPU. Run: `cargo run -p tritium --example jit_add`.

use tritium::{Error, Jit, JitOptions};
use tritium_runtime::KernelArg;

fn main() -> Result<(), Error> {
    let jit = match Jit::new() {
        Ok(jit) => jit,
        Err(Error::Runtime(error)) if error.is_unavailable() => {
            eprintln!("skipping: {error}");
            return Ok(());
        }
        Err(error) => return Err(error),
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
    let (xd, yd) = (device.upload(&x)?, device.upload(&y)?);
    let out = device.alloc_elems::<f32>(n)?;
    out.poison()?;
    let stream = device.create_stream()?;
    kernel.launch(
        &stream,
        ((n / 1024) as u32, 1, 1),
        &[
            KernelArg::Buffer(&xd),
            KernelArg::Buffer(&yd),
            KernelArg::Buffer(&out),
            KernelArg::I32(n as i32),
        ],
    )?;
    stream.synchronize()?;
    let got: Vec<f32> = out.download()?;
    let bad = (0..n).filter(|&i| got[i] != x[i] + y[i]).count();
    let cache = jit
        .compiler()
        .cache()
        .map(|c| c.root().display().to_string());
    println!(
        "add: {n} elements, {bad} wrong (cache: {})",
        cache.unwrap_or_else(|| "none".into())
    );
    if bad == 0 {
        Ok(())
    } else {
        Err(Error::Usage(format!("{bad} wrong elements")))
    }
}
