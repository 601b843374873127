# The two quick-start commands are `make example` and `make test` (see README.md).
.PHONY: bootstrap build example test lint gpu-bundle wheel python-test gpu-wheel

LIT ?= /usr/lib/llvm-22/bin/lit
PYTHON ?= python3
# The Python package's build and test tools (maturin, pytest) live in this venv (git-ignored).
VENV ?= .venv
WHEEL_DIR ?= target/wheels

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

# Every test: Rust unit and snapshot tests, lit, then the Python package's tests (pytest, from
# the wheel installed in a venv). Fails if any fails.
test: build
	cargo test --workspace
	$(LIT) -sv test
	$(MAKE) python-test

$(VENV)/bin/maturin:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q 'maturin>=1.9.4,<2' 'pytest>=7'

# The Python package (`import tritium`, see docs/python.md): one abi3 wheel for CPython >= 3.9,
# stripped, LLVM and MLIR linked in: $(WHEEL_DIR)/tritium-VERSION-cp39-abi3-linux_x86_64.whl.
wheel: bootstrap $(VENV)/bin/maturin
	rm -f $(WHEEL_DIR)/tritium-*.whl
	cd python && ../$(VENV)/bin/maturin build --release --strip -o ../$(WHEEL_DIR)
	@ls -l $(WHEEL_DIR)/tritium-*.whl

# pytest on the wheel installed in the venv (no GPU needed; GPU tests: python/tests/gpu).
python-test: wheel
	$(VENV)/bin/pip install -q --force-reinstall --no-deps $(WHEEL_DIR)/tritium-*.whl
	cd python/tests && ../../$(VENV)/bin/python -m pytest -q -p no:cacheprovider .

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
	  rm -f .gpu/ptx/$$k.ptx .gpu/ptx/$$k.json; src=$$f; \
	  if [ -f test/Inputs/gpu/$$k.passes ]; then \
	    src=.gpu/$$k.ttir; target/debug/triton-opt $$f $$(cat test/Inputs/gpu/$$k.passes) --mlir-print-debuginfo -o $$src; \
	  fi; \
	  echo "target/debug/tritium compile $$src $$flags --out-name $$k -o .gpu/ptx"; \
	  target/debug/tritium compile $$src $$flags --out-name $$k -o .gpu/ptx || left_out="$$left_out $$k"; \
	  rm -f .gpu/$$k.ttir; \
	done; \
	for f in test/Inputs/gpu/*.ttgir; do \
	  k=$$(basename $$f .ttgir); passes=""; \
	  if [ -f test/Inputs/gpu/$$k.passes ]; then passes=$$(cat test/Inputs/gpu/$$k.passes); fi; \
	  rm -f .gpu/ptx/$$k.ptx .gpu/ptx/$$k.json; \
	  echo "target/debug/triton-opt $$f $$passes, then target/debug/tritium compile (as $$k)"; \
	  target/debug/triton-opt $$f $$passes --mlir-print-debuginfo -o .gpu/$$k.ttgir \
	    && target/debug/tritium compile .gpu/$$k.ttgir --out-name $$k -o .gpu/ptx || left_out="$$left_out $$k"; \
	  rm -f .gpu/$$k.ttgir; \
	done; \
	if [ -n "$$left_out" ]; then echo "gpu-bundle: left out (do not compile):$$left_out"; fi
	@echo "on the GPU machine: .gpu/tritium-gpu-check .gpu/ptx --bench"

# The wheel for a GPU machine without Rust, small enough to carry: repacked without zip
# compression, then xz (.gpu/tritium-*.whl.xz, about 33 MB). There: python/tests/gpu/run.sh
# (see docs/python.md).
gpu-wheel: wheel
	mkdir -p .gpu
	rm -f .gpu/tritium-*.whl .gpu/tritium-*.whl.xz
	$(PYTHON) scripts/repack-wheel $(WHEEL_DIR)/tritium-*.whl .gpu
	xz -T0 -6 .gpu/tritium-*.whl
	@ls -l .gpu/tritium-*.whl.xz
