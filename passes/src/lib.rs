//! TTIR and TTGIR transforms and analyses, each a Rust pass registered in MLIR's pass registry
//! (through `tritium_lowering::pass_registry`, which lists every pass of both crates).
//!
//! Every `unsafe` block says why it is sound in a `// SAFETY:` comment (handles valid, lifetimes,
//! bounds); `clippy::undocumented_unsafe_blocks` checks it.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod accelerate_matmul;
pub mod axis_info;
pub mod coalesce;
pub mod combine_tensor_select_and_if;
pub mod convert_to_gpu;
pub mod decompose_dot_scaled;
pub mod descriptor_loads;
pub mod early_loads;
pub mod f32_dot_tc;
pub mod fence_insertion;
pub mod fuse_nested_loops;
pub mod host_descriptors;
pub mod ir_util;
pub mod loop_pointer_offsets;
pub mod optimize_accumulator_init;
pub mod optimize_descriptor_encoding;
pub mod optimize_dot_operands;
pub mod optimize_thread_locality;
pub mod persistent_programs;
pub mod pipeline;
pub mod pipeline_tma;
pub mod pipeline_tma_stores;
pub mod pipelines;
pub mod prefetch;
pub mod prefetch_loop_loads;
pub mod reduce_data_duplication;
pub mod remove_layout_conversions;
pub mod reorder_instructions;
pub mod schedule;
pub mod test_passes;
pub mod tma;
pub mod tma_lowering;
pub mod ttir;

use tritium_dialects::pass::{PassEntry, PipelineDef};

/// Every pass of this crate with its description, in pipeline order, test passes last (like
/// Triton's `Passes.td`). `tritium_lowering::pass_registry::all_passes` appends the lowering's.
pub static PASSES: &[PassEntry] = &[
    PassEntry {
        pass: &ttir::rewrite_tensor_pointer::PASS,
        description: "Replaces block pointers (tt.make_tensor_ptr, moved by tt.advance) by tensors \
            of pointers and masks. A block pointer is tracked as its base, shape and strides and \
            per-dimension i64 offsets; at each tt.load/tt.store the pass builds the pointers \
            splat(base) + sum(offset_d * stride_d) and, for each boundary-checked dimension, the \
            mask 0 <= offset_d < shape_d (masked loads take NaN for padding = nan, else zeros). \
            scf.for and scf.if carry the offsets instead of the block pointer; block pointers \
            crossing a function boundary or an scf.while are errors.",
    },
    PassEntry {
        pass: &ttir::rewrite_tensor_descriptor::PASS,
        description: "Replaces tensor descriptors made in the kernel (tt.make_tensor_descriptor) \
            by tensors of pointers and masks, for targets without TMA: tt.descriptor_load \
            becomes a tt.load of splat(base) + sum(extsi(index_d + range_d) * stride_d) masked by \
            0 <= index_d < shape_d in every dimension (other zero, NaN for padding = nan), \
            tt.descriptor_store a masked tt.store, tt.descriptor_reduce a masked relaxed \
            tt.atomic_rmw (add is fadd on floats; inc and dec are errors). Descriptors passed \
            as arguments or through control flow are errors. Not in the pipelines: the \
            lowering also takes descriptors per element.",
    },
    PassEntry {
        pass: &ttir::combine::PASS,
        description: "Triton's peephole combines, with MLIR's greedy driver: add(dot(a, b, 0), c) \
            becomes dot(a, b, c); addptr(addptr(p, a), b) becomes addptr(p, a + b); a select of a \
            masked load on the same mask becomes the load with `other`; broadcast(splat x) becomes \
            splat x; a 1-D reshape feeding only a reduce or histogram gets allow_reorder; a \
            reshape dropping only leading unit dims of a tt.descriptor_load used nowhere else \
            becomes the rank-reduced load, and a descriptor store or reduction of a reshape \
            adding only leading unit dims stores the reshape's source (rank-reduced).",
    },
    PassEntry {
        pass: &ttir::reorder_broadcast::PASS,
        description: "Computes elementwise ops on the small tensor (or scalar) before it is \
            broadcast or splat instead of on every element of the big one: \
            elementwise(splat a, splat b) becomes splat(elementwise(a, b)), elementwise of \
            broadcasts of one shape becomes a broadcast of the elementwise op, and \
            expand_dims/broadcast of a splat become the splat.",
    },
    PassEntry {
        pass: &ttir::loop_unroll::PASS,
        description: "Unrolls each scf.for carrying tt.loop_unroll_factor = N (N > 1) by N, as \
            MLIR's loopUnrollByFactor: the main loop steps by step * N over the largest multiple \
            of N iterations with N copies of the body, and a remainder loop (tt.num_stages = 1) \
            runs what is left. Constant bounds fold the trip count; loops left with one \
            iteration are inlined.",
    },
    PassEntry {
        pass: &ttir::licm::PASS,
        description: "Loop-invariant code motion for scf.for, inner loops first: pure, speculatable \
            ops whose operands come from outside the loop move before it, and so do non-volatile \
            tt.loads with invariant operands when nothing in the loop writes memory, their mask \
            guarded by the trip-count condition lb < ub.",
    },
    PassEntry {
        pass: &ttir::loop_aware_cse::PASS,
        description: "Merges scf.for iter_args that start from the same value and yield \
            structurally equal expressions (assuming the two iter_args equal, by coinduction), \
            then runs CSE of pure region-free ops, until nothing changes. Memory reads are not \
            merged.",
    },
    PassEntry {
        pass: &convert_to_gpu::PASS,
        description: "Sets the module attributes (ttg.num-warps, ttg.threads-per-warp, \
            ttg.num-ctas, ttg.target) and gives every tensor Triton's default blocked encoding \
            for its shape. Operand/result layout relations are kept with ttg.convert_layout: a \
            tt.reduce result is a slice of its operand's layout, tt.expand_dims consumes a slice \
            of its result's, tt.dot takes dot_op operands of the accumulator's layout. Dense \
            constants and function signatures are retyped; invalid options fail the pass. \
            tt.dot_scaled is decomposed first, as no supported target has block-scaled tensor \
            cores: operands upcast to bf16 (f16 with an fp16 operand), multiplied by their e8m0 \
            scales broadcast along K (NaN for scale 0xFF unless fastMath), then a tt.dot.",
    },
    PassEntry {
        pass: &coalesce::PASS,
        description: "Gives each global tt.load/tt.store through a tensor of pointers the blocked \
            layout that makes it coalesced and vectorized: dimensions ordered by contiguity, as \
            many elements per thread as axis info proves contiguous and aligned (up to 16 \
            bytes), lanes and warps over the rest. Operands are converted into that layout and \
            the result back; -tritongpu-remove-layout-conversions then propagates it.",
    },
    PassEntry {
        pass: &f32_dot_tc::PASS,
        description: "Splits every f32 tt.dot at tf32x3 precision into three tf32 dots (the \
            3xTF32 trick, close to f32 accuracy on tensor cores): each operand x becomes big = \
            cvt.rna.tf32(x) (tt.elementwise_inline_asm) and small = x - big, and the dot \
            dot(big_a, big_b, s) + c with s = dot(big_a, small_b, dot(small_a, big_b, 0)), NaNs \
            of s zeroed (infinite operands make small NaN). tf32 and ieee dots are left alone.",
    },
    PassEntry {
        pass: &accelerate_matmul::PASS,
        description: "Puts tt.dot on tensor cores with Triton 3.6's choices. On sm_90, 2-D dots \
            of f16, bf16, f32 at tf32 precision, fp8 or i8 whose M fills whole warpgroups become \
            ttng.warp_group_dot with an #ttg.nvidia_mma version 3 accumulator (instrShape [16, N, \
            256/bits], N the largest that divides the tile per warp column; warps as \
            warpsPerTileV3, all along M for chained dots); B, and A unless computed in registers, \
            is staged by ttg.local_alloc where it is defined into a #ttg.nvmma_shared buffer \
            (widest swizzle, K-major for 8/32-bit types). Elsewhere (sm_80+), f16/bf16 dots with \
            f32 accumulators tiling by 16x8x16 get mma version 2 with #ttg.dot_op operands \
            (kWidth 2). Loop-carried accumulators stay in the mma layout; other dots stay on CUDA \
            cores. Not yet: f16 accumulators, tf32x3, fp8/i8 on mma v2.",
    },
    PassEntry {
        pass: &optimize_dot_operands::PASS,
        description: "Folds a transposition of a wgmma operand into its shared-memory layout: \
            ttg.local_alloc(tt.trans(x)) read only by ttng.warp_group_dot becomes \
            ttg.memdesc_trans(ttg.local_alloc(x)), x staged as it is held into the \
            #ttg.nvmma_shared layout with transposed flipped, so no register transpose goes \
            through shared memory (attention's dot(q, trans(k))).",
    },
    PassEntry {
        pass: &optimize_accumulator_init::PASS,
        description: "A ttng.warp_group_dot in an scf.for whose accumulator is loop-carried from \
            a zero constant, or reset to zeros by an arith.select on a scalar condition, gets the \
            dot's useC flag instead: the loop carries an i1 that is false until the first dot \
            (true from the start when only the select resets), the select goes, and useC is the \
            flag (and not the reset condition). The tensor cores then start those tiles with \
            scale-d = 0.",
    },
    PassEntry {
        pass: &combine_tensor_select_and_if::PASS,
        description: "An arith.select of tensors on a scalar condition that also guards an scf.if \
            in the same block becomes a result of that scf.if: the then region yields the true \
            value, the else region (created if missing) the false one. Applies when both values \
            are available before the if and every use of the select comes after it.",
    },
    PassEntry {
        pass: &fuse_nested_loops::PASS,
        description: "Fuses an scf.for marked tt.flatten (or ttg.always-fuse) holding exactly one \
            innermost scf.for, whose bounds are defined outside it and whose induction variable \
            has the same type, into one loop over len(outer) * max(1, len(inner)) iterations: a \
            counter T runs 0 .. max(1, len(inner)) - 1 per outer iteration; the prologue (ops \
            before the inner loop) runs under scf.if T == 0, the inner body under T < \
            len(inner), the epilogue under T == last; prologue values read later, the inner \
            iter args (but not their inits) and both induction variables are carried, with \
            ub.poison placeholders for tensors. A tt.flatten nest is first prepared as Triton \
            does: the outer loop's pure invariants are hoisted, prologue ops only the epilogue \
            reads move into it, and the inner length is speculated: scf.if len(inner) <= 0 \
            runs a copy of the nest without the inner loop, else the nest with its inner loop \
            marked ttg.must-execute, which fuses over len(outer) * len(inner) iterations with \
            the inner body unguarded (where the pipeliner stages its loads). The inner loop's \
            tt.num_stages moves to the fused loop.",
    },
    PassEntry {
        pass: &schedule::ASSIGN_LATENCIES,
        description: "In each innermost scf.for, marks every load -tritongpu-pipeline can stage \
            with tt.latency = S - 1 (S: the loop's tt.num_stages, from \
            tl.range(num_stages=...), else the num-stages option; nothing below 2): tt.load \
            feeding dots through shared memory or mma.sync operands with cp.async-sized \
            accesses and addresses the loop can compute ahead, and on sm_90 tt.descriptor_load \
            of a loop-invariant TMA descriptor staged for wgmma. A single accumulating \
            ttng.warp_group_dot the pipeliner keeps in flight gets tt.self_latency = 1.",
    },
    PassEntry {
        pass: &schedule::SCHEDULE_LOOPS,
        description: "Gives each loop with latencies a coarse schedule: tt.scheduled_max_stage \
            (the largest latency) on the loop; a load of latency L and the body ops computing \
            its address loop.stage = max - L, loop.cluster = 1; every other op of the body \
            loop.stage = max, loop.cluster = 0. -tritongpu-pipeline follows it.",
    },
    PassEntry {
        pass: &pipeline::PASS,
        description: "Software-pipelines the global loads that feed tensor-core dots in innermost \
            scf.for loops: each load staged by a ttg.local_alloc read only by \
            ttng.warp_group_dot becomes ttg.async_copy_global_to_local (cp.async) into a \
            num-stages ring of buffers, num-stages - 1 iterations ahead (prologue before the \
            loop, one commit group per iteration, masked past the end), ttg.async_wait \
            {num = num-stages - 2} at the top of each iteration and the dots reading \
            ttg.memdesc_index of the current slot; the prefetched addresses are the load \
            operands' pure computations cloned for the prefetched iteration, value-only scf.if \
            branches included (a fused loop's prologue, run only when that iteration exists). \
            A single accumulating wgmma stays in flight (warp_group_dot_wait {pendings = 1}), \
            with a wait {pendings = 0} before its result's reads in later branches (a fused \
            loop's epilogue); iter args nothing needs any more are yielded unchanged. Loads read back \
            into registers (mma.sync operands, through ldmatrix-swizzled buffers, and operands \
            upcast or scaled before a dot) are pipelined too; in a loop without wgmmas whose \
            rings are all read into registers, a ring has num-stages - 1 slots and the copies \
            go at the end of the body into the slot just read, as Triton's. Loads with a \
            nonzero other are left alone. Stages per loop: a schedule's \
            (tt.scheduled_max_stage + 1, staging only the loads with a tt.latency; the \
            schedule's attributes are then removed), else the loop's tt.num_stages, else \
            num-stages; below 2 the loop is left alone. On sm_90, tt.descriptor_load of a \
            loop-invariant TMA descriptor staged for wgmma becomes ttng.async_tma_copy_global_to_local \
            into a ring, one mbarrier a stage (ttng.barrier_expect, ttng.wait_barrier), and \
            tt.descriptor_store / tt.descriptor_reduce in a pipelined loop (under its scf.ifs too) \
            goes through one buffer allocated before the loop: ttng.async_tma_store_wait \
            {pendings = 0} for the previous store, ttg.local_store, ttng.fence_async_shared and \
            the TMA store, left in flight until the next one or the wait after the loop.",
    },
    PassEntry {
        pass: &remove_layout_conversions::PASS,
        description: "Removes ttg.convert_layout ops by moving values into the layout their memory \
            accesses prefer (per function and shape, the layout all loads and stores of that \
            shape agree on) and keeping values computed from a dot's result in its mma layout. \
            Conversions into a load/store layout are rematerialized backward through cheap ops, \
            conversions out of the preferred or mma layout are pushed forward through elementwise \
            ops, expand_dims, broadcast and reductions, loop-carried values are carried in the \
            layout they are converted to; chains fold and identity conversions vanish. The rest \
            stay for the lowering, which handles any conversion.",
    },
    PassEntry {
        pass: &optimize_thread_locality::PASS,
        description: "A loop that reduces a tensor every iteration and folds the result into a \
            loop-carried value instead carries an unreduced accumulator in the tensor's own \
            layout, combined elementwise per thread, and reduces once after the loop. Applies to \
            single-op associative, commutative combines with an identity (add, mul, max, min); \
            float sums are reassociated, as Triton does. Beyond Triton, the online-softmax pair \
            (a running maximum m' = max(m, max(x)) and l' = l*exp(m - m') + sum(exp(x - m')), \
            exp2 alike, over a 1-D x) is kept per thread: x is viewed as [repeats, threads, \
            vector] without moving data, reduced in registers only, and the threads' pairs merge \
            once after the loop.",
    },
    PassEntry {
        pass: &reduce_data_duplication::PASS,
        description: "Routes each conversion from a distributed layout into a #ttg.dot_op layout \
            (which duplicates data across threads) explicitly through shared memory: a \
            ttg.local_alloc of the source in a #ttg.swizzled_shared layout following the \
            source's order (for an mma operand swizzled as Triton's, so that ldmatrix reads \
            8 rows of 16 bytes from 8 different bank groups), then a ttg.local_load into the \
            dot-operand layout.",
    },
    PassEntry {
        pass: &persistent_programs::PASS,
        description: "Tritium's own (Triton's persistent kernels are written by hand): a kernel \
            whose programs each run a tt.dot loop gets an i32 parameter N, the number of programs \
            asked for along axis 0, and its body becomes scf.for v = program_id(0) to N step \
            num_programs(0), program_id(0) read as v; the runtime launches at most as many \
            programs as fit on the GPU at once and passes N, so each SM runs its tiles one \
            after another in one program instead of one program each. The function is marked \
            tritium.virtual_programs (N is its last argument, left out of the kernel's \
            signature). Only kernels with one body block, a tt.dot or tt.dot_scaled in an \
            scf.for, program ids along axis 0 only and loop trip counts that do not depend on \
            them, without atomics, scf.while, \
            tt.get_num_programs or a loop starting at program_id(0) (a hand-written persistent \
            kernel), tt.print, tt.assert, inline assembly, calls or tensor \
            descriptors made in the kernel, are rewritten. -tritium-ttgir runs it first with \
            persistent-programs=true (the Python package's default).",
    },
    PassEntry {
        pass: &descriptor_loads::PASS,
        description: "Tritium's own, for targets with TMA (sm_90+): a tt.load in an scf.for whose \
            2-D tile feeds only tt.dot operands, through a pointer iter arg starting at \
            splat(base) + rows * S + cols (rows, cols: x + make_range, optionally % m; unit \
            column stride) and advanced by a splat of a * S + b each iteration, becomes a \
            tt.descriptor_load of a tt.make_tensor_descriptor made at the function's top level \
            (a base moved by program_id(axis) * stride, a batch, becomes a leading dimension of \
            extent tt.get_num_programs(axis), box 1, read rank-reduced): \
            before a loop around the dot loop (once per launched program), or, when its base, \
            extents and stride are the function's arguments or constants, before the dot loop \
            (-tritium-host-descriptors then passes it from the launcher). Every dimension \
            must be bounded: masked by index < bound where the bound plus the iteration's \
            advance is loop-invariant (tutorial 03's offs_k < K - k * BLOCK_K: column < K), the \
            masked-off elements zero; or wrapped by % m, where the descriptor reads zeros past m \
            instead of wrapping, which is allowed only when those rows (columns) of every dot \
            result they reach are excluded by the mask of every tt.store they reach (followed \
            through dots, loop-carried values and elementwise ops; any other use keeps the \
            load). The base and the row stride must be 16-byte aligned by divisibility facts, \
            the tile at most 256x256 with rows of a multiple of 16 bytes. Pointer iter args no \
            longer read are dropped. -tritium-ttgir runs it after -tritium-persistent-programs \
            with descriptor-loads=true on sm_90.",
    },
    PassEntry {
        pass: &host_descriptors::PASS,
        description: "Tritium's own: a tt.make_tensor_descriptor of a public function whose base \
            is a pointer argument and whose extents and strides are arguments, constants, i32 \
            products of them or sign extensions of these (extents also tt.get_num_programs; \
            zero padding) becomes a new last parameter of the function, a !tt.tensordesc \
            marked tritium.host_descriptor = {base, shape, strides} (entries {arg = i}, \
            {value = c}, {product = [...]} or {programs = axis}); descriptors made alike share \
            one. The compiler leaves these \
            parameters out of the kernel's signature and lists them in its metadata \
            (host_descriptors); the runtime encodes each with \
            cuTensorMapEncodeTiled at launch and passes it by value, so no program builds a \
            descriptor. -tritium-ttgir runs it after -tritium-descriptor-loads with \
            descriptor-loads=true.",
    },
    PassEntry {
        pass: &loop_pointer_offsets::PASS,
        description: "Tritium's own (Triton leaves it to LLVM): an scf.for iter arg that is a \
            tensor of pointers advanced each iteration by tt.addptr of a splat (a scalar or a \
            constant), read only by ttg.async_copy_global_to_local (a pipelined loop's copies) \
            and holding at most 16 addresses a thread, is replaced by an i64 scalar offset iter \
            arg starting at 0: the copies read tt.addptr(init, splat(offset)), the offset passing \
            through an empty mov.b64 inline asm that keeps LLVM's loop strength reduction from \
            making each address its own induction variable again. The pointer iter arg is left \
            unused for canonicalize to drop. A copy whose addresses are recomputed every \
            iteration from a moving scalar (block pointers: tt.addptr of a loop-invariant base \
            and i64 offsets built from splats, adds, expand_dims, broadcasts and multiplies by \
            a uniform invariant) reads the invariant part, added to the base once before the \
            loop, plus a splat of the scalar part, through the same opaque move.",
    },
    PassEntry {
        pass: &prefetch::PASS,
        description: "In an scf.for whose single tt.dot accumulates in an mma.sync layout and \
            reads both operands from shared buffers the loop carries (ttg.local_load of an \
            iter-arg memdesc, possibly through single-use tt.fp_to_fp / extf / truncf / sitofp \
            / uitofp), the first K slice (256 bits of operand elements wide) of each operand is \
            read one iteration early: loaded before the loop from the initial buffers and at \
            the end of the body from the yielded ones, and carried; the dot becomes K / W dots \
            chained through the accumulator, the later slices read just before their dot. \
            Loops reading a ring slot (pipelined loops) are left alone.",
    },
    PassEntry {
        pass: &prefetch_loop_loads::PASS,
        description: "Tritium's own (Triton's pipeliner stages only loads that feed dots): in an \
            scf.for whose body only loads and computes (no stores, atomics, dots, shared memory \
            or nested loops), each global tt.load through a tensor of pointers whose operands \
            the loop can compute one iteration ahead (from the induction variable, loop \
            invariants and iter args updated by such ops) is issued one iteration early: the \
            load of iteration 0 before the loop, the next iteration's at the top of the body \
            masked by iv + step < ub, its value carried as a new iter arg. At most 32 registers \
            a thread of prefetched data per loop; nothing with num-stages below 2 or a \
            tt.num_stages below 2 on the loop.",
    },
    PassEntry {
        pass: &reorder_instructions::PASS,
        description: "Moves ops within their block without changing a value: a \
            ttg.convert_layout sinks to just before its first user in the block (past \
            local_deallocs, loops and work it does not feed); a ttg.local_load into a dot-operand \
            layout with a single user sinks to just before it, A read before B for a tt.dot; \
            a ttg.local_alloc of a tt.load moves to just after the load; a ttg.memdesc_trans \
            to just after its operand's definition. Values used by several ops (or outside the \
            block) stay.",
    },
    PassEntry {
        pass: &early_loads::PASS,
        description: "Tritium's own (Triton issues loads where the source puts them): in a \
            function's entry block, a global tt.load through a tensor of pointers placed below \
            a tt.reduce or tt.scan it does not depend on moves to just before the last such op, \
            with the side-effect-free ops computing its operands, where the loaded and float \
            tensors a thread then holds across that op take at most 24 registers. It moves \
            above no op that may write memory (stores, atomics, barriers, calls, prints, \
            asserts), no loop or scf.if, and no reduction it depends on.",
    },
    PassEntry {
        pass: &fence_insertion::PASS,
        description: "Inserts ttng.fence_async_shared (fence.proxy.async) right before each \
            ttng.warp_group_dot that reads a shared-memory operand written by threads: a \
            ttg.local_alloc of a tensor or a buffer a ttg.local_store writes, through memdesc \
            views. wgmma reads through the async proxy, which needs the fence to see those \
            generic-proxy writes. Nothing is inserted below compute capability 90.",
    },
    PassEntry {
        pass: &optimize_descriptor_encoding::PASS,
        description: "Gives each tensor descriptor whose block TMA can move (rank 1 to 5, \
            power-of-two dims, rows of at least 32 bytes) the #ttg.nvmma_shared layout Triton \
            picks for it: not transposed, the widest swizzle (128, 64 or 32 bytes) its rows \
            fill; on tt.make_tensor_descriptor results and kernel arguments (the function type \
            follows). Descriptors with a layout, or used other than by loads, stores and \
            reductions of their block, are left alone.",
    },
    PassEntry {
        pass: &tma_lowering::PASS,
        description: "On sm_90: tt.make_tensor_descriptor becomes a 128-byte \
            ttg.global_scratch_alloc written by ttng.tensormap_create (box, dims and byte \
            strides innermost first, the block's swizzle, NaN fill for padding = nan), \
            ttng.tensormap_fenceproxy_acquire and ttng.reinterpret_tensor_descriptor; \
            tt.descriptor_load becomes a shared buffer filled by \
            ttng.async_tma_copy_global_to_local and waited on a one-arrival mbarrier \
            (init_barrier, barrier_expect of the block's bytes, wait_barrier, inval_barrier), \
            then ttg.local_load; tt.descriptor_store / descriptor_reduce become ttg.local_alloc \
            of the value, ttng.fence_async_shared, async_tma_copy_local_to_global / \
            async_tma_reduce and async_tma_store_wait. Descriptors TMA cannot take (see \
            -triton-nvidia-optimize-descriptor-encoding, a last stride other than 1, control \
            flow) keep the per-element lowering.",
    },
    PassEntry {
        pass: &test_passes::op_count::PASS,
        description: "Test of the Rust pass API: annotates each function-like op with the number \
            of ops whose name starts with `prefix`, and fails at the first op named `fail-on`.",
    },
    PassEntry {
        pass: &test_passes::print_alignment::PASS,
        description: "Test of the axis-info analysis: prints the contiguity, divisibility and \
            constancy of every op result on stderr, one line per result, for lit tests.",
    },
];

/// The named pipelines of this crate, built from the stage pass lists in [`pipelines`].
pub static PIPELINES: &[&PipelineDef] = &[&pipelines::TTIR, &pipelines::TTGIR];

pub(crate) fn convert_to_gpu_retype(op: mlir_sys::MlirOperation, ty: mlir_sys::MlirType) {
    convert_to_gpu::retype_dense_constant(op, ty);
}
