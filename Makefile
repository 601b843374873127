# The two quick-start commands are `make example` and `make test` (see README.md).
.PHONY: bootstrap build example test lint gpu-bundle

LIT ?= /usr/lib/llvm-22/bin/lit

bootstrap:
	@scripts/bootstrap

build: bootstrap
	cargo build -p triton-opt -p tritium

# The main job on the built-in example: TTIR -> TTGIR -> LLVM -> PTX, with launch metadata.
example: build
	mkdir -p out
	target/debug/triton-opt examples/add.ttir --tritium-ttir --tritium-ttgir=num-warps=4 -o out/add.ttgir
	target/debug/tritium compile examples/add.ttir --num-warps 4 --arch sm_90a -o out --emit ttgir,llir,ll
	@echo "wrote out/add.ttgir, out/add.ptx, out/add.json:"; cat out/add.json

# Every test: Rust unit and snapshot tests, then lit. Fails if either fails.
test: build
	cargo test --workspace
	$(LIT) -sv test

lint: bootstrap
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

# PTX of the shared kernels and of the lowering-pattern kernels plus the GPU checker, for a GPU
# machine without Rust (see README and docs/gpu-testing.md). Every test/Inputs/gpu/K.ttir is
# compiled with --num-warps 4, or with the `tritium compile` flags in test/Inputs/gpu/K.flags;
# a pattern that does not compile is reported and left out (the checker skips absent kernels).
gpu-bundle: build
	cargo build --release -p tritium-runtime --bin tritium-gpu-check
	mkdir -p .gpu/ptx
	cp target/release/tritium-gpu-check .gpu/
	target/debug/tritium compile test/Inputs/kernels/add.ttir --num-warps 4 -o .gpu/ptx
	target/debug/tritium compile test/Inputs/kernels/softmax.ttir --num-warps 8 -o .gpu/ptx
	target/debug/tritium compile test/Inputs/kernels/rmsnorm.ttir --num-warps 8 -o .gpu/ptx
	-target/debug/tritium compile test/Inputs/kernels/matmul.ttir --num-warps 8 -o .gpu/ptx
	@left_out=""; for f in test/Inputs/gpu/*.ttir; do \
	  k=$$(basename $$f .ttir); flags="--num-warps 4"; \
	  if [ -f test/Inputs/gpu/$$k.flags ]; then flags=$$(cat test/Inputs/gpu/$$k.flags); fi; \
	  rm -f .gpu/ptx/$$k.ptx .gpu/ptx/$$k.json; \
	  echo "target/debug/tritium compile $$f $$flags -o .gpu/ptx"; \
	  target/debug/tritium compile $$f $$flags -o .gpu/ptx || left_out="$$left_out $$k"; \
	done; \
	if [ -n "$$left_out" ]; then echo "gpu-bundle: left out (do not compile):$$left_out"; fi
	@echo "on the GPU machine: .gpu/tritium-gpu-check .gpu/ptx --bench"
