// C entry points: dialect handles, the Rust verifier/canonicalizer hooks, and registration of Rust
// passes and pipelines in MLIR's pass registry. Glue only: every rule runs in Rust.
#include "Triton.h"
#include "TritonGPU.h"
#include "RustHooks.h"
#include "tritium-c.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Rewrite.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Triton, tt, mlir::triton::TritonDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TritonGPU, ttg, mlir::triton::gpu::TritonGPUDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TritonNvidiaGPU, ttng, mlir::triton::nvidia_gpu::TritonNvidiaGPUDialect)

llvm::LogicalResult tritium::verifyInRust(mlir::Operation *op) {
  return llvm::success(tritium_verify_op(wrap(op)));
}

void tritium::addRustCanonicalizationPatterns(llvm::StringRef dialect, mlir::RewritePatternSet &set) {
  tritium_add_canonicalization_patterns(wrap(set.getContext()), wrap(dialect), wrap(&set));
}

namespace {
using namespace mlir;

// Typed options created at run time from the Rust description; values go back to Rust as text.
template <typename Parent, template <typename> class OptionT>
struct DynamicOptions {
  std::vector<std::unique_ptr<llvm::cl::Option>> owned;
  std::vector<std::function<std::string()>> values;

  void create(Parent &parent, const TritiumOptionInfo *infos, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const TritiumOptionInfo &info = infos[i];
      llvm::StringRef name(info.name), desc(info.description), def(info.default_value);
      switch (info.kind) {
      case TRITIUM_OPTION_INT: {
        long long init = 0;
        def.getAsInteger(10, init);
        auto *opt = new OptionT<long long>(parent, name, llvm::cl::desc(desc), llvm::cl::init(init));
        owned.emplace_back(opt);
        values.push_back([opt] { return std::to_string((long long)*opt); });
        break;
      }
      case TRITIUM_OPTION_BOOL: {
        auto *opt = new OptionT<bool>(parent, name, llvm::cl::desc(desc), llvm::cl::init(def == "true"));
        owned.emplace_back(opt);
        values.push_back([opt] { return std::string((bool)*opt ? "true" : "false"); });
        break;
      }
      case TRITIUM_OPTION_FLOAT: {
        double init = 0;
        def.getAsDouble(init);
        auto *opt = new OptionT<double>(parent, name, llvm::cl::desc(desc), llvm::cl::init(init));
        owned.emplace_back(opt);
        values.push_back([opt] {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", (double)*opt);
          return std::string(buf);
        });
        break;
      }
      default: {
        auto *opt = new OptionT<std::string>(parent, name, llvm::cl::desc(desc), llvm::cl::init(def.str()));
        owned.emplace_back(opt);
        values.push_back([opt] { return (std::string)*opt; });
        break;
      }
      }
    }
  }

  // Calls `fn` with the current values as MlirStringRefs (valid during the call).
  template <typename Fn> auto withValues(Fn fn) const {
    std::vector<std::string> text;
    for (auto &value : values) text.push_back(value());
    std::vector<MlirStringRef> refs;
    for (auto &t : text) refs.push_back(mlirStringRefCreate(t.data(), t.size()));
    return fn(refs.data(), refs.size());
  }
};

struct RegisteredRustPass {
  TritiumPassInfo info;
  TypeID typeId;
};

TypeIDAllocator &passTypeIds() {
  static TypeIDAllocator allocator;
  return allocator;
}

class RustPass : public Pass {
public:
  template <typename T> using PassOption = Pass::Option<T>;

  explicit RustPass(const RegisteredRustPass *reg)
      : Pass(reg->typeId, reg->info.op_name && *reg->info.op_name
                              ? std::optional<llvm::StringRef>(reg->info.op_name)
                              : std::nullopt),
        reg(reg) {
    options.create(*this, reg->info.options, reg->info.num_options);
  }

  llvm::StringRef getName() const override { return reg->info.argument; }
  llvm::StringRef getArgument() const override { return reg->info.argument; }
  llvm::StringRef getDescription() const override { return reg->info.summary; }

  void getDependentDialects(DialectRegistry &registry) const override {
    for (size_t i = 0; i < reg->info.num_dependent_dialects; ++i)
      mlirDialectHandleInsertDialect(reg->info.dependent_dialects[i], wrap(&registry));
  }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  std::unique_ptr<Pass> clonePass() const override {
    auto pass = std::make_unique<RustPass>(reg);
    pass->copyOptionValuesFrom(this);
    return pass;
  }

  void runOnOperation() override {
    MlirOperation op = wrap(getOperation());
    bool ok = options.withValues([&](const MlirStringRef *values, size_t count) {
      return reg->info.run(reg->info.user_data, op, values, count);
    });
    if (!ok) signalPassFailure();
  }

private:
  template <typename T> struct Opt : Pass::Option<T> {
    using Pass::Option<T>::Option;
  };
  const RegisteredRustPass *reg;
  DynamicOptions<Pass, Opt> options;
};

template <typename T> using PipelineOpt = detail::PassOptions::Option<T>;

struct RustPipelineOptions : public PassPipelineOptions<RustPipelineOptions> {
  DynamicOptions<detail::PassOptions, PipelineOpt> options;
};

std::string copyString(const char *text) { return text ? std::string(text) : std::string(); }
} // namespace

extern "C" void tritiumRegisterPass(const TritiumPassInfo *info) {
  // Registered passes live for the whole process, like MLIR's own static registrations.
  auto *reg = new RegisteredRustPass{*info, passTypeIds().allocate()};
  registerPass([reg] { return std::make_unique<RustPass>(reg); });
}

extern "C" void tritiumRegisterPipeline(const TritiumPipelineInfo *info) {
  TritiumPipelineInfo copy = *info;
  auto makeOptions = [copy] {
    auto options = std::make_unique<RustPipelineOptions>();
    options->options.create(*options, copy.options, copy.num_options);
    return options;
  };
  registerPassPipeline(
      copy.argument, copy.summary,
      [copy, makeOptions](OpPassManager &pm, llvm::StringRef optionsText,
                          llvm::function_ref<llvm::LogicalResult(const llvm::Twine &)> errorHandler) {
        auto options = makeOptions();
        if (failed(options->parseFromString(optionsText))) return llvm::failure();
        std::string pipeline;
        bool ok = options->options.withValues([&](const MlirStringRef *values, size_t count) {
          return copy.build(copy.user_data, values, count,
                            [](MlirStringRef text, void *out) {
                              static_cast<std::string *>(out)->append(text.data, text.length);
                            },
                            &pipeline);
        });
        if (!ok) return errorHandler("pipeline '" + llvm::Twine(copy.argument) + "' could not be built");
        return parsePassPipeline(pipeline, pm, llvm::errs());
      },
      [makeOptions](llvm::function_ref<void(const detail::PassOptions &)> handler) {
        auto options = makeOptions();
        handler(*options);
      });
}


//===----------------------------------------------------------------------===//
// `tt` types
//===----------------------------------------------------------------------===//

extern "C" bool tritiumTypeIsPointer(MlirType type) { return llvm::isa<mlir::triton::PointerType>(unwrap(type)); }

extern "C" MlirType tritiumPointerTypeGet(MlirType pointee, int addressSpace) {
  return wrap(mlir::triton::PointerType::get(unwrap(pointee), addressSpace));
}

extern "C" MlirType tritiumPointerTypeGetPointee(MlirType type) {
  return wrap(llvm::cast<mlir::triton::PointerType>(unwrap(type)).getPointeeType());
}

extern "C" int tritiumPointerTypeGetAddressSpace(MlirType type) {
  return llvm::cast<mlir::triton::PointerType>(unwrap(type)).getAddressSpace();
}

extern "C" bool tritiumTypeIsTensorDesc(MlirType type) {
  return llvm::isa<mlir::triton::TensorDescType>(unwrap(type));
}

extern "C" MlirType tritiumTensorDescTypeGetBlockType(MlirType type) {
  return wrap(llvm::cast<mlir::triton::TensorDescType>(unwrap(type)).getBlockType());
}

extern "C" MlirType tritiumTensorDescTypeGet(MlirType blockType) {
  auto block = llvm::cast<mlir::RankedTensorType>(unwrap(blockType));
  return wrap(mlir::triton::TensorDescType::get(block.getContext(), block));
}

//===----------------------------------------------------------------------===//
// Upstream attributes the MLIR C API has no constructor for (used by the lowering)
//===----------------------------------------------------------------------===//

extern "C" MlirAttribute tritiumArithFastMathAttrGet(MlirContext context, unsigned flags) {
  return wrap(mlir::arith::FastMathFlagsAttr::get(unwrap(context), static_cast<mlir::arith::FastMathFlags>(flags)));
}

void tritiumPassManagerEnableCrashReproducer(MlirPassManager pm, MlirStringRef path) {
  // Not local: the reproducer holds the whole pipeline and the IR it ran on, as Triton writes it.
  unwrap(pm)->enableCrashReproducerGeneration(unwrap(path), /*genLocalReproducer=*/false);
}
