//! `tritium run` and `tritium bench`: compile, make inputs, launch through the runtime.

use crate::CompileArgs;
use anyhow::Context;
use tritium_runtime::reference::Rng;
use tritium_runtime::{Device, DeviceBuffer, Kernel, KernelArg, L2Flush, median};

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Launch grid: X[,Y[,Z]]
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub grid: Vec<u32>,
    /// A kernel argument, in order: NAME=SCALAR (e.g. n=1024, eps=1e-6) or
    /// NAME=buf:ELEM:COUNT[:rand|zeros|ones|iota] (ELEM: f32, f16, i32, i64, f64)
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Run TTIR in the reference interpreter on the CPU (no GPU, no compilation); ELEM may also
    /// be bf16, i8, i16, fp8e4, fp8e5
    #[arg(long)]
    pub interpret: bool,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Timed launches (the median is reported)
    #[arg(long, default_value_t = 100)]
    pub reps: usize,
    /// Untimed warm-up launches
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// Floating-point operations per launch, to report TFLOP/s
    #[arg(long)]
    pub flops: Option<f64>,
}

enum Value {
    Buffer { elem: String, data: Vec<u8> },
    Scalar(String),
}

fn element_bytes(elem: &str) -> anyhow::Result<usize> {
    Ok(match elem {
        "f32" | "i32" => 4,
        "f16" | "bf16" | "i16" => 2,
        "f64" | "i64" => 8,
        "i8" | "u8" => 1,
        _ => anyhow::bail!("unknown element type '{elem}'"),
    })
}

fn make_buffer(elem: &str, count: usize, fill: &str, rng: &mut Rng) -> anyhow::Result<Vec<u8>> {
    let bytes = element_bytes(elem)?;
    let mut data = Vec::with_capacity(count * bytes);
    for i in 0..count {
        let unit = rng.next_f64() * 2.0 - 1.0;
        let value = match fill {
            "rand" => unit,
            "zeros" => 0.0,
            "ones" => 1.0,
            "iota" => i as f64,
            _ => anyhow::bail!("unknown fill '{fill}' (rand, zeros, ones, iota)"),
        };
        match elem {
            "f32" => data.extend_from_slice(&(value as f32).to_le_bytes()),
            "f64" => data.extend_from_slice(&value.to_le_bytes()),
            "f16" => data.extend_from_slice(
                &tritium_runtime::reference::f32_to_f16(value as f32).to_le_bytes(),
            ),
            "i32" => data.extend_from_slice(
                &(if fill == "rand" {
                    (unit * 100.0) as i32
                } else {
                    value as i32
                })
                .to_le_bytes(),
            ),
            "i64" => data.extend_from_slice(
                &(if fill == "rand" {
                    (unit * 100.0) as i64
                } else {
                    value as i64
                })
                .to_le_bytes(),
            ),
            _ => data.extend(std::iter::repeat_n(0u8, bytes)),
        }
    }
    Ok(data)
}

fn parse_args(specs: &[String]) -> anyhow::Result<Vec<(String, Value)>> {
    let mut rng = Rng::new(Rng::seed_from_time());
    specs
        .iter()
        .map(|spec| {
            let (name, value) = spec
                .split_once('=')
                .with_context(|| format!("--arg '{spec}': expected NAME=VALUE"))?;
            if let Some(rest) = value.strip_prefix("buf:") {
                let parts: Vec<&str> = rest.split(':').collect();
                if parts.len() < 2 {
                    anyhow::bail!("--arg '{spec}': expected buf:ELEM:COUNT[:FILL]");
                }
                let count: usize = parts[1]
                    .parse()
                    .with_context(|| format!("--arg '{spec}': bad count '{}'", parts[1]))?;
                let data = make_buffer(
                    parts[0],
                    count,
                    parts.get(2).copied().unwrap_or("rand"),
                    &mut rng,
                )?;
                Ok((
                    name.to_owned(),
                    Value::Buffer {
                        elem: parts[0].to_owned(),
                        data,
                    },
                ))
            } else {
                Ok((name.to_owned(), Value::Scalar(value.to_owned())))
            }
        })
        .collect()
}

struct Prepared {
    device: Device,
    kernel: Kernel,
    grid: (u32, u32, u32),
    buffers: Vec<(String, String, DeviceBuffer)>,
    scalars: Vec<(usize, String, String)>,
    order: Vec<(bool, usize)>,
}

fn prepare(args: &RunArgs) -> anyhow::Result<Prepared> {
    let values = parse_args(&args.args)?;
    let request = args.compile.request(false)?;
    let started = std::time::Instant::now();
    let output = crate::cli_compiler(tritium::Environment::from_env()).compile(&request)?;
    eprintln!(
        "compiled in {:.1} ms{}",
        started.elapsed().as_secs_f64() * 1e3,
        if output.cached {
            " (from the cache)"
        } else {
            ""
        }
    );
    let metadata = output.metadata;
    let signature: Vec<String> = metadata.signature.iter().map(|t| t.to_string()).collect();
    if values.len() != signature.len() {
        anyhow::bail!(
            "kernel `{}` takes {} arguments ({}), got {}",
            metadata.name,
            signature.len(),
            signature.join(", "),
            values.len()
        );
    }
    // After compiling, so that compile errors and debug dumps come without a GPU too.
    let device = Device::new(0)?;
    let kernel = Kernel::from_ptx(&device, &output.ptx, metadata)?;
    let mut buffers = Vec::new();
    let mut scalars = Vec::new();
    let mut order = Vec::new();
    for (i, (name, value)) in values.into_iter().enumerate() {
        let ty = &signature[i];
        match value {
            Value::Buffer { elem, data } => {
                if !ty.starts_with('*') {
                    anyhow::bail!("argument {i} (`{name}`) is {ty}, not a pointer");
                }
                let buffer = device
                    .upload(&data)?
                    .with_elem(tritium_runtime::ElemType::parse(&elem));
                order.push((true, buffers.len()));
                buffers.push((name, elem, buffer));
            }
            Value::Scalar(text) => {
                order.push((false, scalars.len()));
                scalars.push((i, ty.clone(), text));
            }
        }
    }
    let grid = (
        args.grid.first().copied().unwrap_or(1),
        args.grid.get(1).copied().unwrap_or(1),
        args.grid.get(2).copied().unwrap_or(1),
    );
    Ok(Prepared {
        device,
        kernel,
        grid,
        buffers,
        scalars,
        order,
    })
}

fn kernel_args<'a>(prepared: &'a Prepared) -> anyhow::Result<Vec<KernelArg<'a>>> {
    prepared
        .order
        .iter()
        .map(|&(is_buffer, index)| {
            if is_buffer {
                return Ok(KernelArg::Buffer(&prepared.buffers[index].2));
            }
            let (i, ty, text) = &prepared.scalars[index];
            let bad = || anyhow::anyhow!("argument {i}: '{text}' is not a valid {ty}");
            Ok(match ty.as_str() {
                "i32" => KernelArg::I32(text.parse().map_err(|_| bad())?),
                "i64" => KernelArg::I64(text.parse().map_err(|_| bad())?),
                "i1" => KernelArg::I1(text == "1" || text == "true"),
                "f32" => KernelArg::F32(text.parse().map_err(|_| bad())?),
                "f64" => KernelArg::F64(text.parse().map_err(|_| bad())?),
                _ => anyhow::bail!("argument {i}: unsupported scalar type {ty}"),
            })
        })
        .collect()
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if args.interpret {
        let report = tritium_interp::cli::run(&args.compile.input, &args.grid, &args.args)
            .map_err(anyhow::Error::msg)?;
        print!("{report}");
        return Ok(());
    }
    let prepared = prepare(&args)?;
    let launch_args = kernel_args(&prepared)?;
    let stream = prepared.device.create_stream()?;
    prepared
        .kernel
        .launch(&stream, prepared.grid, &launch_args)?;
    stream.synchronize()?;
    for (name, elem, buffer) in &prepared.buffers {
        let bytes: Vec<u8> = buffer.download()?;
        let preview: Vec<String> = match elem.as_str() {
            "f32" => bytes
                .chunks_exact(4)
                .take(8)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()).to_string())
                .collect(),
            "i32" => bytes
                .chunks_exact(4)
                .take(8)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()).to_string())
                .collect(),
            _ => bytes.iter().take(8).map(|b| format!("{b:02x}")).collect(),
        };
        println!(
            "{name}: {elem} x {} = [{}, ...]",
            bytes.len() / element_bytes(elem)?,
            preview.join(", ")
        );
    }
    Ok(())
}

pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    if args.run.interpret {
        anyhow::bail!("--interpret is for `tritium run`: the interpreter is not timed");
    }
    let prepared = prepare(&args.run)?;
    let launch_args = kernel_args(&prepared)?;
    let stream = prepared.device.create_stream()?;
    let flush = L2Flush::new(&prepared.device)?;
    let times = stream.time_launches(
        |s| prepared.kernel.launch(s, prepared.grid, &launch_args),
        args.warmup,
        args.reps,
        Some(&flush),
    )?;
    let ms = median(&times).unwrap_or(f32::NAN) as f64;
    let bytes: usize = prepared.buffers.iter().map(|(_, _, b)| b.len_bytes()).sum();
    print!(
        "{}: median {ms:.4} ms over {} runs, {:.0} GB/s (all buffers read or written once)",
        prepared.kernel.metadata().name,
        args.reps,
        bytes as f64 / ms / 1e6
    );
    if let Some(flops) = args.flops {
        print!(", {:.1} TFLOP/s", flops / ms / 1e9);
    }
    println!();
    Ok(())
}
