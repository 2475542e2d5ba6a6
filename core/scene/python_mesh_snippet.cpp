#include "scene/python_mesh_snippet.h"

#include "devices/backward_collectives.h"
#include "devices/mesh_costs.h"
#include "layer/range_text.h"
#include "scene/python_snippet.h"

#include <algorithm>
#include <sstream>

namespace tp {

std::string pythonSpec(const std::string& spec) {
    std::string s = spec;
    for (char& ch : s)
        if (ch == '\'')
            ch = '"';
    return s;
}

std::string pythonInvariantGatherFunction(const std::string& name, int axis,
                                          const std::string& oneCopy) {
    const std::string call = "(block, \"model\", axis=" + std::to_string(axis) + ", tiled=True";
    return "def " + name +
           "(block):\n"
           "    # Varying to invariant: the result is one copy over \"model\" (" +
           oneCopy +
           "), which shard_map's check\n"
           "    # (check_vma) accepts only from an invariant gather; plain all_gather is\n"
           "    # varying to varying.\n"
           "    if \"to\" in inspect.signature(jax.lax.all_gather).parameters:\n"
           "        return jax.lax.all_gather" +
           call +
           ", to=\"invarying\")\n"
           "    if hasattr(jax.lax, \"all_gather_invariant\"):\n"
           "        return jax.lax.all_gather_invariant" +
           call +
           ")\n"
           "    return jax.lax.all_gather" +
           call + ")  # JAX before check_vma\n";
}

std::string pythonGatherColumnsFunction(const std::string& oneCopy) {
    return pythonInvariantGatherFunction("gather_columns", 1, oneCopy);
}

std::string pythonSpecOnMesh(const std::string& spec, const LayerConfig& config) {
    std::string s = spec;
    auto dropped = [&config](const std::string& axis) {
        return (axis == "data" && config.dataSize == 1) || (axis == "model" && config.tpSize == 1);
    };
    // Each `from` in s, but not the parenthesis of P itself: "P('data', 'model')" holds no pair.
    auto replaceAll = [&s](const std::string& from, const std::string& to, bool pair) {
        for (std::size_t at = s.find(from); at != std::string::npos;) {
            if (pair && at > 0 && s[at - 1] == 'P') {
                at = s.find(from, at + 1);
                continue;
            }
            s.replace(at, from.size(), to);
            at = s.find(from, at + to.size());
        }
    };
    // A dimension split over both axes keeps the one that has more than one device.
    for (const auto& [major, minor] : {std::pair{"data", "model"}, std::pair{"model", "data"}}) {
        const std::string kept = dropped(major)
                                     ? (dropped(minor) ? "None" : std::string("'") + minor + "'")
                                     : (dropped(minor) ? std::string("'") + major + "'" : "");
        if (!kept.empty())
            replaceAll(std::string("('") + major + "', '" + minor + "')", kept, true);
    }
    for (const char* axis : {"data", "model"})
        if (dropped(axis))
            replaceAll(std::string("'") + axis + "'", "None", false);
    return pythonSpec(s);
}

bool pythonMeshWanted(const LayerConfig& config, SnippetPasses passes) {
    // Row mode always has its collective (an all-reduce by default), even on one data row.
    return config.dataSize > 1 || config.output.has_value() ||
           config.layout != ShardingLayout::Tensor ||
           meshCosts(config).collective.kind != CollectiveKind::None ||
           (passes == SnippetPasses::ForwardAndBackward && !backwardCollectives(config).empty());
}

std::string pythonMeshPreamble(const LayerConfig& config) {
    const std::int64_t devices = config.dataSize * config.tpSize;
    return "# The mesh part below needs " + std::to_string(devices) +
           " devices; XLA shows that many CPU devices when told before JAX starts\n"
           "# (the flag counts CPU devices only: the mesh asks for jax.devices(\"cpu\")):\n"
           "import os\n"
           "os.environ[\"XLA_FLAGS\"] = os.environ.get(\"XLA_FLAGS\", \"\") + "
           "\" --xla_force_host_platform_device_count=" +
           std::to_string(devices) + "\"\n\n";
}

std::string pythonMeshSnippet(const LayerConfig& config, const CheckSettings& check,
                              SnippetPasses passes) {
    const bool column = config.mode == ParallelMode::Column;
    const bool sharded = config.outputLayout() == OutputLayout::Sharded;
    const MeshCosts costs = meshCosts(config);
    const DeviceHoldings& h = costs.perDevice;
    const PartitionSpecs specs = partitionSpecs(config);
    const std::int64_t p = config.tpSize, d = config.dataSize, nd = costs.rowsPerDevice;
    const std::int64_t kernelRows = column ? config.inDim : config.inDim / p;
    const std::int64_t kernelCols = column ? config.features / p : config.features;
    const std::int64_t xCols = column ? config.inDim : config.inDim / p;
    const std::int64_t biasSize = column ? config.features / p : config.features;
    const std::string collective(toString(costs.collective.kind));
    const std::vector<BackwardCollective> backward = backwardCollectives(config);

    std::ostringstream py;
    py << "\n"
       << "# The same layer on a real device mesh: data " << d << " x model " << p << " = " << d * p
       << " devices.\n"
       << "# Each device holds kernel " << h.kernelBytes << " B, bias " << h.biasBytes << " B, x "
       << h.xBytes << " B";
    if (!column)
        py << ", its partial sum " << h.partialBytes << " B";
    py << " and its output " << h.outputBytes << " B;\n"
       << "# the collective (" << collective << ") sends " << costs.collective.bytesSentPerDevice
       << " B per device in " << countText(costs.collective.ringSteps, "ring step") << ".\n"
       << pythonMeshSetup(config) << "kernel_spec, bias_spec, x_spec = " << pythonSpec(specs.kernel)
       << ", " << pythonSpec(specs.bias) << ", " << pythonSpec(specs.x) << "\n"
       << "out_spec = " << pythonSpec(specs.output) << "  # the output "
       << (sharded ? "stays sharded" : "is replicated over \"model\"") << "\n"
       << "kernel_d = jax.device_put(kernel, NamedSharding(mesh, kernel_spec))\n"
       << "bias_d = jax.device_put(bias, NamedSharding(mesh, bias_spec))\n"
       << "x_d = jax.device_put(x, NamedSharding(mesh, x_spec))\n"
       << "\n"
       << "# What one device holds, as tpviz's devices view shows it.\n"
       << "for array, shape, nbytes in ((kernel_d, " << shapeTuple(kernelRows, kernelCols) << ", "
       << h.kernelBytes << "), (bias_d, " << shapeTuple(biasSize) << ", " << h.biasBytes << "),\n"
       << "                             (x_d, " << shapeTuple(nd, xCols) << ", " << h.xBytes
       << ")):\n"
       << "    shard = array.addressable_shards[0].data\n"
       << "    assert shard.shape == shape and shard.nbytes == nbytes, (shard.shape, "
          "shard.nbytes)\n"
       << "\n"
       << "\n";
    const bool backwardGathers =
        passes == SnippetPasses::ForwardAndBackward &&
        std::any_of(backward.begin(), backward.end(), [](const BackwardCollective& b) {
            return b.cost.kind == CollectiveKind::AllGather;
        });
    if ((column && !sharded) || backwardGathers)
        py << "\n"
           << pythonGatherColumnsFunction(
                  "the replicated\n    # output, or the dy every device "
                  "sums into dbias")
           << "\n";
    py << "\n"
       << "@partial(shard_map, mesh=mesh, in_specs=(x_spec, kernel_spec, bias_spec),\n"
       << "         out_specs=out_spec)\n"
       << "def layer_on_mesh(x_block, kernel_block, bias_block):\n";
    py << pythonProductOnMesh(config);
    py << "\n"
       << "\n"
       << "mesh_output = layer_on_mesh(x_d, kernel_d, bias_d)\n";
    py << pythonMeshOutputCheck(check);
    return py.str();
}

std::string pythonProductOnMesh(const LayerConfig& config) {
    const bool column = config.mode == ParallelMode::Column;
    const bool sharded = config.outputLayout() == OutputLayout::Sharded;
    const std::int64_t p = config.tpSize, nd = config.batch / config.dataSize;
    const std::int64_t kernelRows = column ? config.inDim : config.inDim / p;
    const std::int64_t kernelCols = column ? config.features / p : config.features;
    const std::int64_t xCols = column ? config.inDim : config.inDim / p;
    std::ostringstream py;
    if (column) {
        py << "    # x_block " << shapeTuple(nd, config.inDim) << ", kernel_block "
           << shapeTuple(kernelRows, kernelCols) << ": this device's output columns.\n"
           << "    y_block = x_block @ kernel_block + bias_block  # " << shapeTuple(nd, kernelCols)
           << "\n";
        if (sharded)
            py << "    return y_block  # no communication: each device keeps its columns\n";
        else
            py << "    # Ring all-gather over \"model\": every device ends with all " << p
               << " column blocks.\n"
               << "    return gather_columns(y_block)  # " << shapeTuple(nd, config.features)
               << "\n";
    } else {
        py << "    # x_block " << shapeTuple(nd, xCols) << ", kernel_block "
           << shapeTuple(kernelRows, kernelCols) << ": a partial sum of every output.\n"
           << "    partial_sum = x_block @ kernel_block  # " << shapeTuple(nd, config.features)
           << "\n";
        if (sharded)
            py << "    # Reduce-scatter over \"model\": device m keeps chunk m summed over the "
                  "devices,\n"
               << "    # then adds its slice of the bias once.\n"
               << "    chunk = features // tp_size\n"
               << "    y_block = jax.lax.psum_scatter(partial_sum, \"model\", "
                  "scatter_dimension=1, tiled=True)\n"
               << "    start = jax.lax.axis_index(\"model\") * chunk\n"
               << "    return y_block + jax.lax.dynamic_slice_in_dim(bias_block, start, chunk)  # "
               << shapeTuple(nd, config.features / p) << "\n";
        else
            py << "    # All-reduce over \"model\" (psum), then the bias added once.\n"
               << "    return jax.lax.psum(partial_sum, \"model\") + bias_block  # "
               << shapeTuple(nd, config.features) << "\n";
    }
    return py.str();
}

std::string pythonMeshSetup(const LayerConfig& config) {
    return "from functools import partial\n"
           "import inspect\n"
           "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
           "try:\n"
           "    from jax import shard_map\n"
           "except ImportError:  # JAX before 0.6\n"
           "    from jax.experimental.shard_map import shard_map\n"
           "\n"
           "data_size = " +
           std::to_string(config.dataSize) +
           "\n"
           "# CPU devices: on a machine with a GPU, jax.devices() lists the GPU alone.\n"
           "cpus = jax.devices(\"cpu\")[:data_size * tp_size]\n"
           "assert len(cpus) == data_size * tp_size, \"set XLA_FLAGS as at the top\"\n"
           "try:\n"
           "    mesh = jax.make_mesh((data_size, tp_size), (\"data\", \"model\"), devices=cpus)\n"
           "except (AttributeError, TypeError):  # JAX before make_mesh or its devices argument\n"
           "    mesh = Mesh(np.array(cpus).reshape(data_size, tp_size), (\"data\", \"model\"))\n";
}

std::string pythonMeshOutputCheck(const CheckSettings& check) {
    std::string py;
    if (check.rule == CheckRule::Allclose)
        py = "np.testing.assert_allclose(np.asarray(mesh_output), np.asarray(reference), rtol=" +
             pythonDoubleLiteral(check.tolerance.rtol) +
             ", atol=" + pythonDoubleLiteral(check.tolerance.atol) + ")\n";
    else
        py = "# The mesh sums in its own order: the same rounding bound as above.\n"
             "assert np.all(np.abs(f64(mesh_output) - f64(reference)) <= bound), "
             "\"more than rounding can explain\"\n";
    return py +
           "print(\"mesh output\", mesh_output.shape, \"laid out as\", "
           "mesh_output.sharding.spec)\n";
}

}  // namespace tp
