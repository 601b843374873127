//! `tritium aot`: a kernel library to link into a C or Rust program (see [`tritium::aot`]).

use crate::{CompileArgs, cli_compiler};
use anyhow::Context;
use std::path::PathBuf;
use tritium::aot::{Grid, generate, integer_arguments};
use tritium::{Environment, assemble_cubin, write_atomic};

#[derive(clap::Args)]
pub struct AotArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Launch grid as C expressions over the kernel's integer arguments: X[,Y[,Z]], e.g.
    /// "(n + 1023) / 1024" [default: the launch function takes gridX, gridY, gridZ]
    #[arg(short, long, allow_hyphen_values = true)]
    pub grid: Option<String>,
    /// Output directory
    #[arg(short, long, default_value = ".")]
    pub output: PathBuf,
    /// Name of the launch function and of the files (short form -on) [default: the kernel's]
    #[arg(long)]
    pub out_name: Option<String>,
}

/// Compiles the kernel and writes NAME.h, NAME.c, NAME.rs, NAME.ptx and NAME.json.
pub fn run(args: AotArgs) -> anyhow::Result<()> {
    let request = args.compile.request(false)?;
    let output = cli_compiler(Environment::from_env()).compile(&request)?;
    let metadata = &output.metadata;
    let grid = args
        .grid
        .as_deref()
        .map(|grid| Grid::parse(grid, &integer_arguments(metadata)))
        .transpose()?;
    let name = args.out_name.unwrap_or_else(|| metadata.name.clone());
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || name.starts_with(|c: char| c.is_ascii_digit())
    {
        anyhow::bail!("--out-name '{name}' is not a C identifier");
    }
    let cubin = assemble_cubin(&output.ptx)?;
    if cubin.is_none() {
        eprintln!("note: ptxas not found on PATH; {name}.c embeds the PTX only");
    }
    let library = generate(
        &name,
        &output.ptx,
        cubin.as_deref(),
        metadata,
        grid.as_ref(),
    )?;
    std::fs::create_dir_all(&args.output).with_context(|| args.output.display().to_string())?;
    let files = [
        ("h", library.header.as_str()),
        ("c", library.source.as_str()),
        ("rs", library.rust.as_str()),
        ("ptx", output.ptx.as_str()),
        ("json", &metadata.to_json_line()),
    ];
    for (extension, text) in files {
        let path = args.output.join(format!("{name}.{extension}"));
        write_atomic(&path, text.as_bytes())?;
    }
    Ok(())
}
