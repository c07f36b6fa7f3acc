//===- TileModule.cpp - the `tile._tile` extension ------------------------===//
//
// nanobind bindings of Compilation: the IR builder the Python front end
// drives (python/tile/frontend.py), and compiling and running through the
// C++ that tile-run uses. Values and expressions cross as integer ids,
// source positions as (line, column) pairs. Failures raise the package's
// exceptions, which python/tile/errors.py defines and hands over with
// set_errors().
//
//===----------------------------------------------------------------------===//

#include "Compilation.h"

#include "tile/Frontend/DidYouMean.h"
#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/OutputFile.h"

#ifdef TILE_TEST_PASSES
#include "TestPasses.h"
#endif

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>

namespace nb = nanobind;
using namespace nb::literals;
using namespace ::tile::python;
using mlir::tile::KernelBuilder;
namespace rt = ::tile::runtime;

namespace {
using Pos = std::pair<unsigned, unsigned>;
/// A parameter's array: read-only ones too (np.frombuffer, a read-only
/// memmap); only those of parameters the kernel writes are written back.
using Array = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
/// A slice's dimensions as Python passes them: (start, extent), the extent
/// None for an index tile (a gather's coordinates) or a single index.
using RangeList = std::vector<std::pair<unsigned, std::optional<unsigned>>>;

std::vector<KernelBuilder::Range> ranges(const RangeList &list) {
  std::vector<KernelBuilder::Range> result;
  for (auto [start, extent] : list)
    result.push_back({start, extent});
  return result;
}
std::vector<KernelBuilder::Index> indices(const RangeList &list) {
  std::vector<KernelBuilder::Index> result;
  for (auto [start, extent] : list)
    result.push_back({start, extent});
  return result;
}

/// The package's exception classes, by Failure::Kind.
struct Errors {
  nb::object error, compile, noDevice, fault;
};
Errors &errors() {
  static Errors *instance = new Errors;
  return *instance;
}

[[noreturn]] void raise(const Failure &failure) {
  Errors &e = errors();
  nb::handle type;
  switch (failure.kind) {
  case Failure::Kind::Compile:
    type = e.compile;
    break;
  case Failure::Kind::NoDevice:
    type = e.noDevice;
    break;
  case Failure::Kind::Fault:
    type = e.fault;
    break;
  default:
    type = e.error;
  }
  if (!type.is_valid())
    type = PyExc_RuntimeError;
  PyErr_SetString(type.ptr(), failure.message.c_str());
  throw nb::python_error();
}

KernelBuilder::Pos pos(Pos p) { return {p.first, p.second}; }

template <typename T> T check(Compilation &c, mlir::FailureOr<T> result) {
  if (mlir::failed(result))
    raise(Failure{Failure::Kind::Compile, c.takeErrors()});
  return *result;
}
void check(Compilation &c, mlir::LogicalResult result) {
  if (mlir::failed(result))
    raise(Failure{Failure::Kind::Compile, c.takeErrors()});
}
template <typename T> T value(std::variant<T, Failure> result) {
  if (auto *failure = std::get_if<Failure>(&result))
    raise(*failure);
  return std::get<T>(std::move(result));
}

/// `get()` with the GIL released: it waits for the Compilation's lock,
/// which a run on another thread holds without the GIL.
template <typename Get> auto unlocked(Get get) {
  decltype(get()) result;
  {
    nb::gil_scoped_release release;
    result = get();
  }
  return value(std::move(result));
}

/// (name, pos, rotation id or None, stage): a var or a stage of a ring.
KernelBuilder::VarRef varRef(nb::handle item) {
  KernelBuilder::VarRef ref;
  ref.name = nb::cast<std::string>(item[0]);
  ref.pos = pos(nb::cast<Pos>(item[1]));
  if (!item[2].is_none())
    ref.rotation = nb::cast<unsigned>(item[2]);
  ref.stage = nb::cast<int64_t>(item[3]);
  return ref;
}

KernelBuilder::Kernel kernelFrom(const nb::dict &desc) {
  KernelBuilder::Kernel kernel;
  kernel.name = nb::cast<std::string>(desc["name"]);
  kernel.pos = pos(nb::cast<Pos>(desc["pos"]));
  for (nb::handle item : nb::cast<nb::list>(desc["params"])) {
    nb::dict entry = nb::cast<nb::dict>(item);
    KernelBuilder::Param &param = kernel.params.emplace_back();
    param.name = nb::cast<std::string>(entry["name"]);
    param.pos = pos(nb::cast<Pos>(entry["pos"]));
    param.isScalar = nb::cast<bool>(entry["scalar"]);
    param.dtype = nb::cast<std::string>(entry["dtype"]);
    param.dtypePos = pos(nb::cast<Pos>(entry["dtype_pos"]));
    for (nb::handle dim : nb::cast<nb::list>(entry["dims"])) {
      if (nb::isinstance<nb::str>(dim))
        param.dims.emplace_back(nb::cast<std::string>(dim));
      else
        param.dims.emplace_back(nb::cast<int64_t>(dim));
      param.dimPos.push_back(param.dtypePos);
    }
  }
  kernel.threads = nb::cast<int64_t>(desc["threads"]);
  kernel.threadsPos = pos(nb::cast<Pos>(desc["threads_pos"]));
  kernel.grid = nb::cast<std::vector<unsigned>>(desc["grid"]);
  kernel.gridPos = pos(nb::cast<Pos>(desc["grid_pos"]));
  for (nb::handle item : nb::cast<nb::list>(desc["registers"]))
    kernel.registers.emplace_back(nb::cast<std::string>(item[0]),
                                  pos(nb::cast<Pos>(item[1])));
  kernel.registersPos = pos(nb::cast<Pos>(desc["registers_pos"]));
  if (!desc["pipeline_pos"].is_none()) {
    kernel.pipelinePos = pos(nb::cast<Pos>(desc["pipeline_pos"]));
    for (nb::handle item : nb::cast<nb::list>(desc["pipeline_names"]))
      kernel.pipelineNames.emplace_back(nb::cast<std::string>(item[0]),
                                        pos(nb::cast<Pos>(item[1])));
    for (nb::handle item : nb::cast<nb::list>(desc["pipeline_options"])) {
      KernelBuilder::Kernel::Option &option =
          kernel.pipelineOptions.emplace_back();
      option.key = nb::cast<std::string>(item[0]);
      option.pos = pos(nb::cast<Pos>(item[1]));
      option.values = nb::cast<std::vector<unsigned>>(item[2]);
      option.isList = nb::cast<bool>(item[3]);
    }
  }
  return kernel;
}

nb::tuple describe(Compilation &c, unsigned id) {
  KernelBuilder::ValueInfo info = c.getBuilder().describe(id);
  using Kind = KernelBuilder::ValueInfo::Kind;
  switch (info.kind) {
  case Kind::IntLiteral:
    return nb::make_tuple("int", "", nb::none(), info.intValue);
  case Kind::FloatLiteral:
    return nb::make_tuple("float", "", nb::none(), info.floatValue);
  case Kind::BoolLiteral:
    return nb::make_tuple("bool", "", nb::none(), info.boolValue);
  case Kind::Scalar:
    return nb::make_tuple("scalar", info.dtype, nb::none(), nb::none());
  case Kind::Tile:
    return nb::make_tuple("tile", info.dtype, nb::tuple(nb::cast(info.shape)),
                          nb::none());
  }
  return nb::make_tuple();
}

nb::dict run(Compilation &c, nb::list params, const std::string &backend,
             bool check, int warmup, int runs, bool ptxFigures,
             const std::string &plantedBugs) {
  // Each parameter: (dtype name, contiguous numpy array or scalar, written).
  std::vector<rt::HostTensor> buffers;
  std::vector<Array> arrays;
  std::vector<bool> written;
  for (nb::handle item : params) {
    std::string dtypeName = nb::cast<std::string>(item[0]);
    std::optional<rt::DType> dtype = rt::parseDType(dtypeName);
    if (!dtype)
      raise(Failure{Failure::Kind::Input, "unknown dtype " + dtypeName});
    rt::HostTensor &tensor = buffers.emplace_back();
    tensor.dtype = *dtype;
    written.push_back(nb::cast<bool>(item[2]));
    if (!nb::isinstance<Array>(item[1])) {
      // A scalar parameter: shape [], its value rounded to the dtype.
      tensor.bytes.resize(rt::dtypeSize(*dtype));
      if (nb::isinstance<nb::int_>(item[1]) &&
          (*dtype == rt::DType::Index || *dtype == rt::DType::I32)) {
        int64_t value = nb::cast<int64_t>(item[1]);
        std::memcpy(tensor.bytes.data(), &value, tensor.bytes.size());
      } else {
        tensor.set(0, nb::cast<double>(item[1]));
      }
      arrays.emplace_back();
      continue;
    }
    Array array = nb::cast<Array>(item[1]);
    for (size_t d = 0; d < array.ndim(); ++d)
      tensor.shape.push_back(array.shape(d));
    tensor.bytes.resize(array.nbytes());
    if (array.nbytes())
      std::memcpy(tensor.bytes.data(), array.data(), array.nbytes());
    arrays.push_back(array);
  }
  std::variant<RunResult, Failure> outcome;
  {
    nb::gil_scoped_release release;
    outcome =
        c.run(buffers, backend, check, warmup, runs, ptxFigures, plantedBugs);
  }
  RunResult result = value(std::move(outcome));
  // The kernel's writes, back into the arrays it was given.
  for (auto [tensor, array, write] : llvm::zip(buffers, arrays, written))
    if (write && !tensor.isScalar() && tensor.bytes.size() == array.nbytes() &&
        array.nbytes())
      std::memcpy(const_cast<void *>(array.data()), tensor.bytes.data(),
                  tensor.bytes.size());

  nb::dict out;
  out["backend"] = result.backend;
  out["report"] = result.report;
  nb::list checks;
  for (const RunResult::Check &entry : result.checks) {
    nb::dict item;
    item["name"] = entry.name;
    item["elements"] = entry.elements;
    item["message"] = entry.message;
    item["shape"] = entry.shape;
    if (entry.mismatch) {
      item["index"] = entry.mismatch->index;
      item["got"] = entry.mismatch->got;
      item["want"] = entry.mismatch->want;
      item["count"] = entry.mismatch->count;
      switch (entry.mismatch->kind) {
      case rt::MismatchKind::Value:
        item["kind"] = "value";
        break;
      case rt::MismatchKind::NeverWritten:
        item["kind"] = "never written";
        break;
      case rt::MismatchKind::NotWritten:
        item["kind"] = "not written";
        break;
      case rt::MismatchKind::WrittenOutside:
        item["kind"] = "written outside";
        break;
      }
    }
    checks.append(item);
  }
  out["checks"] = checks;
  out["symbols"] = nb::cast(result.symbols);
  nb::dict figures;
  const mlir::tile::RunFigures &f = result.figures;
  figures["seconds"] = f.seconds;
  figures["entry"] = f.entry;
  if (f.launch) {
    const rt::LaunchReport &launch = *f.launch;
    figures["device"] = launch.device.name;
    figures["registers"] = launch.resources.registers;
    figures["local_bytes"] = launch.resources.localBytes;
    figures["static_shared_bytes"] = launch.resources.staticSharedBytes;
    figures["max_threads_per_block"] = launch.resources.maxThreadsPerBlock;
    figures["blocks_per_sm"] = launch.resources.blocksPerMultiprocessor;
    figures["occupancy_percent"] = launch.resources.occupancyPercent;
    figures["ms"] = launch.medianMs;
    figures["grid"] =
        nb::make_tuple(launch.grid[0], launch.grid[1], launch.grid[2]);
  }
  if (f.emulation) {
    figures["ctas"] = f.emulation->ctas;
    figures["threads"] = f.emulation->threads;
    figures["ops"] = f.emulation->steps;
  }
  using Status = mlir::tile::PtxasFigures::Status;
  const mlir::tile::PtxasFigures &p = result.ptxas;
  if (p.status == Status::Ok) {
    nb::dict ptxas;
    ptxas["registers"] = p.registers;
    ptxas["spill_store_bytes"] = p.spillStoreBytes;
    ptxas["spill_load_bytes"] = p.spillLoadBytes;
    ptxas["stack_bytes"] = p.stackBytes;
    ptxas["shared_bytes"] = p.sharedBytes;
    figures["ptxas"] = ptxas;
    // Without a GPU, the table's other figures computed from ptxas's.
    if (const std::optional<mlir::tile::ComputedResources> &computed =
            result.computed) {
      nb::dict table;
      table["max_threads_per_block"] = computed->resources.maxThreadsPerBlock;
      table["blocks_per_sm"] = computed->resources.blocksPerMultiprocessor;
      table["occupancy_percent"] = computed->resources.occupancyPercent;
      table["limited_by"] = computed->limitedBy.str();
      figures["computed"] = table;
    }
  } else {
    figures["ptxas"] = nb::none();
  }
  out["figures"] = figures;
  return out;
}
} // namespace

NB_MODULE(_tile, m) {
  m.doc() = "The C++ side of the tile package: an IR builder and the "
            "compile and run path of tile-run.";
  // Compiled kernels may live until exit in registries the package does
  // not own (torch.library's ops): not leaks of the bindings.
  nb::set_leak_warnings(false);
#ifdef TILE_TEST_PASSES
  // The tile-test-* passes that plant bugs, for the tests of the check.
  mlir::tile::registerEmulatorTestPasses();
#endif
  m.def("set_errors", [](nb::object error, nb::object compile,
                         nb::object noDevice, nb::object fault) {
    errors() = {error, compile, noDevice, fault};
  });
  m.def("builtin_names", &KernelBuilder::getBuiltinNames);
  m.def(
      "suggest_builtin",
      [](const std::string &name) {
        return KernelBuilder::suggestBuiltin(name);
      },
      "name"_a,
      "What an unknown function suggests: \"; did you mean 'tile.exp'?\", "
      "the language's spelling of another library's function, or \"\".");
  m.def(
      "did_you_mean",
      [](const std::string &name, const std::vector<std::string> &candidates) {
        std::vector<llvm::StringRef> names(candidates.begin(),
                                           candidates.end());
        return mlir::tile::formatDidYouMean(name, names);
      },
      "name"_a, "candidates"_a,
      "\"; did you mean 'NAME'?\" for the candidate closest to `name`, or "
      "\"\" (the C++ front end's rule).");
  m.def(
      "write_file",
      [](const std::string &path, nb::bytes data) {
        if (rt::Error error = rt::writeFileAtomically(
                path, std::string_view(data.c_str(), data.size()))) {
          PyErr_SetString(PyExc_OSError, error.message().c_str());
          throw nb::python_error();
        }
      },
      "path"_a, "data"_a,
      "Writes `data` to `path` whole or not at all, as the tools write "
      "their outputs (tile/Runtime/OutputFile.h): a temporary file beside "
      "it, renamed over it; a device or a pipe written in place. OSError "
      "\"cannot write PATH: REASON\" on failure, `path` then as it was.");
  m.def(
      "probe_cuda",
      []() -> nb::object {
        rt::Expected<rt::DeviceInfo> device = rt::probeCudaDevice();
        if (!device)
          return nb::none();
        return nb::cast(device->name);
      },
      "The name of CUDA device 0, or None without a driver or a device "
      "(the runtime's own probe, as backend='auto' asks it).");

  nb::class_<Compilation>(m, "Compilation")
      .def(nb::init<const std::string &, const std::string &>(), "filename"_a,
           "source"_a)
      // Kernels.
      .def("begin_kernel",
           [](Compilation &c, nb::dict desc) {
             check(c, c.getBuilder().beginKernel(kernelFrom(desc)));
           })
      .def(
          "load_file",
          [](Compilation &c, const std::string &kernel, bool remarks,
             const std::string &chip, const std::string &fpDiv) {
            return unlocked(
                [&] { return c.load(kernel, remarks, chip, fpDiv); });
          },
          "kernel"_a, "remarks"_a, "chip"_a, "fp_div"_a,
          "Parses the source as a .tile (or .mlir) file and takes its "
          "kernel `kernel` (\"\": the only one) instead of building one; "
          "returns its name.")
      .def("end_kernel",
           [](Compilation &c) { check(c, c.getBuilder().endKernel()); })
      .def("finish",
           [](Compilation &c, const std::string &name, bool remarks,
              const std::string &chip, const std::string &fpDiv) {
             if (std::optional<Failure> failure =
                     c.finish(name, remarks, chip, fpDiv))
               raise(*failure);
           })
      // Expressions.
      .def("int_", [](Compilation &c, int64_t v,
                      Pos p) { return c.getBuilder().intLiteral(v, pos(p)); })
      .def("float_",
           [](Compilation &c, double v, Pos p) {
             return c.getBuilder().floatLiteral(v, pos(p));
           })
      .def("bool_", [](Compilation &c, bool v,
                       Pos p) { return c.getBuilder().boolLiteral(v, pos(p)); })
      .def("name",
           [](Compilation &c, const std::string &name, Pos p) {
             return check(c, c.getBuilder().name(name, pos(p)));
           })
      .def("context",
           [](Compilation &c, const std::string &field, unsigned dim, Pos p) {
             return check(c, c.getBuilder().context(field, dim, pos(p)));
           })
      .def("unary",
           [](Compilation &c, const std::string &op, unsigned a, Pos p) {
             return check(c, c.getBuilder().unary(op, a, pos(p)));
           })
      .def("binary",
           [](Compilation &c, const std::string &op, unsigned a, unsigned b,
              Pos p) {
             return check(c, c.getBuilder().binary(op, a, b, pos(p)));
           })
      .def("call",
           [](Compilation &c, const std::string &callee,
              std::vector<unsigned> args, Pos p) {
             return check(c, c.getBuilder().call(callee, args, pos(p)));
           })
      .def("call_with",
           [](Compilation &c, const std::string &callee, nb::list items, Pos p,
              bool statement) -> nb::object {
             // Each argument: (kind, name, pos, payload).
             std::vector<KernelBuilder::CallArg> args;
             for (nb::handle item : items) {
               KernelBuilder::CallArg &arg = args.emplace_back();
               std::string kind = nb::cast<std::string>(item[0]);
               arg.name = nb::cast<std::string>(item[1]);
               arg.pos = pos(nb::cast<Pos>(item[2]));
               nb::handle payload = item[3];
               if (kind == "value") {
                 arg.value = nb::cast<unsigned>(payload);
               } else if (kind == "int") {
                 arg.kind = KernelBuilder::CallArg::Kind::Int;
                 arg.ints = {nb::cast<int64_t>(payload)};
               } else if (kind == "name") {
                 arg.kind = KernelBuilder::CallArg::Kind::Name;
                 arg.word = nb::cast<std::string>(payload);
               } else if (kind == "ints") {
                 arg.kind = KernelBuilder::CallArg::Kind::IntList;
                 arg.ints = nb::cast<std::vector<int64_t>>(payload);
               } else {
                 arg.kind = KernelBuilder::CallArg::Kind::Slice;
                 arg.tensor = nb::cast<std::string>(payload[0]);
                 arg.tensorPos = pos(nb::cast<Pos>(payload[1]));
                 arg.ranges = ranges(nb::cast<RangeList>(payload[2]));
               }
             }
             std::optional<unsigned> result =
                 check(c, c.getBuilder().call(callee, args, pos(p), statement));
             return result ? nb::cast(*result) : nb::none();
           })
      .def("load",
           [](Compilation &c, const std::string &tensor, Pos tensorPos,
              const RangeList &list, Pos p) {
             std::vector<KernelBuilder::Range> r = ranges(list);
             return check(
                 c, c.getBuilder().load(tensor, pos(tensorPos), r, pos(p)));
           })
      .def("full",
           [](Compilation &c, std::vector<int64_t> shape,
              const std::string &dtype, unsigned literal, Pos p) {
             return check(c,
                          c.getBuilder().full(shape, dtype, literal, pos(p)));
           })
      .def("index",
           [](Compilation &c, unsigned base, const RangeList &list, Pos p) {
             return check(c, c.getBuilder().index(base, indices(list), pos(p)));
           })
      .def(
          "assign_part",
          [](Compilation &c, nb::tuple ref, const RangeList &list,
             const std::string &op, Pos opPos, unsigned value, Pos p,
             std::optional<unsigned> whole) {
            check(c,
                  c.getBuilder().assignPart(varRef(ref), indices(list), op,
                                            pos(opPos), value, pos(p), whole));
          },
          "ref"_a, "indices"_a, "op"_a, "op_pos"_a, "value"_a, "pos"_a,
          "whole"_a.none() = nb::none())
      .def(
          "set_var_placement",
          [](Compilation &c, const std::string &name, bool shared,
             nb::object stages, Pos p) {
            std::optional<int64_t> count;
            if (!stages.is_none())
              count = nb::cast<int64_t>(stages);
            check(c,
                  c.getBuilder().setVarPlacement(name, shared, count, pos(p)));
          },
          "name"_a, "shared"_a, "stages"_a.none(), "pos"_a)
      .def("read_var",
           [](Compilation &c, nb::tuple ref, Pos p) {
             return check(c, c.getBuilder().readVar(varRef(ref), pos(p)));
           })
      .def("write_var",
           [](Compilation &c, nb::tuple ref, unsigned value, Pos p) {
             check(c, c.getBuilder().writeVar(varRef(ref), value, pos(p)));
           })
      .def(
          "copy",
          [](Compilation &c, nb::tuple source, std::vector<unsigned> from,
             nb::tuple dest, std::vector<unsigned> to,
             std::vector<int64_t> shape, int64_t width, nb::object mask,
             bool async, Pos p) {
            std::optional<unsigned> maskId;
            if (!mask.is_none())
              maskId = nb::cast<unsigned>(mask);
            check(c, c.getBuilder().copy({varRef(source), from},
                                         {varRef(dest), to}, shape, width,
                                         maskId, async, pos(p)));
          },
          "source"_a, "source_offsets"_a, "dest"_a, "dest_offsets"_a, "shape"_a,
          "width"_a, "mask"_a.none(), "async_"_a, "pos"_a)
      .def("barrier",
           [](Compilation &c, Pos p) { c.getBuilder().barrier(pos(p)); })
      .def("add_register",
           [](Compilation &c, const std::string &name, Pos p) {
             c.getBuilder().addRegister(name, pos(p));
           })
      .def("describe", &describe)
      // Statements.
      .def(
          "declare_var",
          [](Compilation &c, const std::string &name, Pos p,
             nb::object typeObject, nb::object initObject, Pos typePos,
             unsigned depth) {
            std::optional<std::pair<std::string, std::vector<int64_t>>> type;
            if (!typeObject.is_none())
              type = nb::cast<std::pair<std::string, std::vector<int64_t>>>(
                  typeObject);
            std::optional<unsigned> init;
            if (!initObject.is_none())
              init = nb::cast<unsigned>(initObject);
            check(c, c.getBuilder().declareVar(name, pos(p), type, init,
                                               pos(typePos), depth));
          },
          "name"_a, "pos"_a, "type"_a.none(), "init"_a.none(), "type_pos"_a,
          "depth"_a)
      .def("assign",
           [](Compilation &c, const std::string &name, Pos namePos,
              const std::string &op, Pos opPos, unsigned v, Pos p) {
             check(c, c.getBuilder().assign(name, pos(namePos), op, pos(opPos),
                                            v, pos(p)));
           })
      .def("prepare_slice",
           [](Compilation &c, const std::string &tensor, Pos tensorPos,
              const RangeList &list, Pos p) {
             std::vector<KernelBuilder::Range> r = ranges(list);
             return check(c, c.getBuilder().prepareSlice(tensor, pos(tensorPos),
                                                         r, pos(p)));
           })
      .def("load_slice",
           [](Compilation &c, unsigned slice, Pos p) {
             return check(c, c.getBuilder().loadSlice(slice, pos(p)));
           })
      .def("store_slice",
           [](Compilation &c, unsigned slice, unsigned v, Pos p) {
             check(c, c.getBuilder().storeSlice(slice, v, pos(p)));
           })
      // Control flow.
      .def(
          "begin_for",
          [](Compilation &c, const std::string &index, Pos indexPos,
             unsigned lower, unsigned upper, nb::object stepObject, Pos p) {
            std::optional<unsigned> step;
            if (!stepObject.is_none())
              step = nb::cast<unsigned>(stepObject);
            return check(c, c.getBuilder().beginFor(index, pos(indexPos), lower,
                                                    upper, step, pos(p)));
          },
          "index"_a, "index_pos"_a, "lower"_a, "upper"_a, "step"_a.none(),
          "pos"_a)
      .def("begin_if",
           [](Compilation &c, unsigned cond, bool hasElse, Pos p) {
             check(c, c.getBuilder().beginIf(cond, hasElse, pos(p)));
           })
      .def("begin_else", [](Compilation &c) { c.getBuilder().beginElse(); })
      .def("begin_while",
           [](Compilation &c, Pos p) { c.getBuilder().beginWhile(pos(p)); })
      .def("begin_while_body",
           [](Compilation &c, unsigned cond, Pos p) {
             check(c, c.getBuilder().beginWhileBody(cond, pos(p)));
           })
      .def("end_block", [](Compilation &c) { c.getBuilder().endBlock(); })
      .def_prop_ro("depth",
                   [](Compilation &c) { return c.getBuilder().getDepth(); })
      // Attribute expressions.
      .def("expr_int", [](Compilation &c, int64_t v,
                          Pos p) { return c.getBuilder().exprInt(v, pos(p)); })
      .def("expr_float",
           [](Compilation &c, double v, Pos p) {
             return c.getBuilder().exprFloat(v, pos(p));
           })
      .def("expr_bool",
           [](Compilation &c, bool v, Pos p) {
             return c.getBuilder().exprBool(v, pos(p));
           })
      .def("expr_name",
           [](Compilation &c, const std::string &name, Pos p) {
             return c.getBuilder().exprName(name, pos(p));
           })
      .def("expr_unary",
           [](Compilation &c, const std::string &op, unsigned a, Pos p) {
             return c.getBuilder().exprUnary(op, a, pos(p));
           })
      .def("expr_binary",
           [](Compilation &c, const std::string &op, unsigned a, unsigned b,
              Pos p) { return c.getBuilder().exprBinary(op, a, b, pos(p)); })
      .def("expr_call",
           [](Compilation &c, const std::string &callee,
              std::vector<unsigned> args,
              Pos p) { return c.getBuilder().exprCall(callee, args, pos(p)); })
      // Products.
      .def(
          "ir",
          [](Compilation &c, const std::string &stage, bool locations) {
            return unlocked([&] { return c.getIR(stage, locations); });
          },
          "stage"_a, "locations"_a = false)
      .def("stages", &Compilation::getStages,
           nb::call_guard<nb::gil_scoped_release>())
      .def("ptx",
           [](Compilation &c) { return unlocked([&] { return c.getPTX(); }); })
      .def("set_ptx", &Compilation::setPTX,
           nb::call_guard<nb::gil_scoped_release>())
      .def("manifest",
           [](Compilation &c) {
             return unlocked([&] { return c.getManifest(); });
           })
      .def("run", &run, "params"_a, "backend"_a, "check"_a, "warmup"_a,
           "runs"_a, "ptx_figures"_a, "planted_bugs"_a = "")
      .def_prop_ro("remarks", &Compilation::getRemarks,
                   nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("warnings", &Compilation::getWarnings,
                   nb::call_guard<nb::gil_scoped_release>());
}
