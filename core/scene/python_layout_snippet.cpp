#include "scene/python_layout_snippet.h"

#include "devices/layout_costs.h"
#include "layer/range_text.h"
#include "scene/python_backward_snippet.h"
#include "scene/python_mesh_snippet.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace tp {
namespace {

// The one wording of a collective (describe), for a step of the layout's program.
std::string described(const LayoutCollective& step) {
    return describe(BackwardCollective{step.axis, step.of, step.cost});
}

// The statement of one of the layout's collectives before or after the products, with what it
// does in a comment. The output's own collective is the product's (pythonProductOnMesh, or the
// sequence layout's reduce-scatter along the rows in layoutForwardBody).
std::string collectiveStatement(const LayoutCollective& step, const LayerConfig& c) {
    const bool column = c.mode == ParallelMode::Column;
    const bool sequence = c.layout == ShardingLayout::Sequence;
    const std::string axis(toString(step.axis));
    const std::string block = step.of == "dx" ? "dx_partial" : step.of + "_block";
    switch (step.cost.kind) {
        case CollectiveKind::AllGather:
            if (step.of == "dy")
                return sequence ? "    # All-gather of dy along its rows over \"model\", the "
                                  "conjugate of the forward's\n"
                                  "    # reduce-scatter: every device needs all of its data row's "
                                  "dy.\n"
                                  "    dy_block = gather_rows(dy_block)\n"
                                : "    # All-gather of dy over \"model\", the conjugate of the "
                                  "forward's reduce-scatter:\n"
                                  "    # every device needs all of dy for its rows of dkernel.\n"
                                  "    dy_block = gather_columns(dy_block)\n";
            if (step.of == "x")
                return "    # Sequence parallelism: all-gather of x's batch rows over \"model\", "
                       "each device's\n"
                       "    # product needs all of its data row's.\n"
                       "    x_block = jax.lax.all_gather(x_block, \"model\", axis=0, tiled=True)  "
                       "# " +
                       shapeTuple(c.batch / c.dataSize, c.inDim) + "\n";
            // FSDP: the kernel's and the bias's model blocks, gathered from their data slices.
            return "    # FSDP: all-gather of this device's " + step.of +
                   " block from its slices over \"data\".\n"
                   "    " +
                   block + " = jax.lax.all_gather(" + block +
                   ", \"data\", axis=0, tiled=True)  # " +
                   (step.of == "kernel" ? shapeTuple(column ? c.inDim : c.inDim / c.tpSize,
                                                     column ? c.features / c.tpSize : c.features)
                                        : shapeTuple(column ? c.features / c.tpSize : c.features)) +
                   "\n";
        case CollectiveKind::ReduceScatter:
            if (step.of == "dx")
                return "    # Reduce-scatter of dx's partial sums over \"model\" along the rows, "
                       "instead of\n"
                       "    # all-reducing them: each device keeps its own batch rows of dx.\n"
                       "    dx_block = jax.lax.psum_scatter(dx_partial, \"model\", "
                       "scatter_dimension=0, tiled=True)\n";
            return "    # FSDP: reduce-scatter over \"data\": each device keeps its slice of the "
                   "summed " +
                   step.of + ".\n    " + block + " = jax.lax.psum_scatter(" + block + ", \"" +
                   axis + "\", scatter_dimension=0, tiled=True)\n";
        case CollectiveKind::AllReduce:
            return std::string(step.axis == MeshAxis::Model
                                   ? "    # All-reduce over \"model\" (Megatron's f): each "
                                     "device's dx is a partial sum of all of it.\n"
                                   : "    # All-reduce over \"data\" (data parallelism's): each "
                                     "data row saw only its batch rows.\n") +
                   "    " + step.of + "_block = jax.lax.psum(" + block + ", \"" + axis + "\")\n";
        case CollectiveKind::None:
            break;
    }
    assert(false && "a layout has no such collective");
    return {};
}

// The gathers run before the products, which need what they bring; the output's own gather is
// the product's.
bool runsBefore(const LayoutCollective& step) {
    return step.cost.kind == CollectiveKind::AllGather && step.of != "output";
}

// layer_on_mesh's body: the gathers, the product and the output's collective.
std::string layoutForwardBody(const LayerConfig& c, const std::vector<LayoutCollective>& program) {
    std::string py;
    for (const LayoutCollective& step : program)
        if (step.phase == PassPhase::Forward && runsBefore(step))
            py += collectiveStatement(step, c);
    if (c.layout != ShardingLayout::Sequence || c.mode == ParallelMode::Column)
        return py + pythonProductOnMesh(c);
    const std::int64_t p = c.tpSize, nd = c.batch / c.dataSize;
    const bool scatters = std::any_of(program.begin(), program.end(), [](const auto& step) {
        return step.phase == PassPhase::Forward && step.of == "output";
    });
    py += "    # x_block " + shapeTuple(nd, c.inDim / p) + ", kernel_block " +
          shapeTuple(c.inDim / p, c.features) +
          ": a partial sum of every output.\n"
          "    partial_sum = x_block @ kernel_block  # " +
          shapeTuple(nd, c.features) + "\n";
    if (scatters)
        py +=
            "    # Reduce-scatter over \"model\" along the batch rows: device m keeps rows block m "
            "of the\n"
            "    # sum, then adds the whole bias once.\n"
            "    y_block = jax.lax.psum_scatter(partial_sum, \"model\", scatter_dimension=0, "
            "tiled=True)\n";
    else
        py +=
            "    y_block = partial_sum  # one device on \"model\": its partial sum is all of it\n";
    return py + "    return y_block + bias_block  # " + shapeTuple(nd / p, c.features) + "\n";
}

// One device's arrays at rest: shapes as the layout splits them, bytes as layoutMemory counts.
std::string restAssertion(const LayerConfig& c) {
    const bool column = c.mode == ParallelMode::Column;
    const std::int64_t p = c.tpSize, nd = c.batch / c.dataSize;
    const std::int64_t dk = c.layout == ShardingLayout::Fsdp ? c.dataSize : 1;
    const std::int64_t px = c.layout == ShardingLayout::Sequence && column ? p : 1;
    const std::string kernel = column ? shapeTuple(c.inDim / dk, c.features / p)
                                      : shapeTuple(c.inDim / p / dk, c.features);
    const std::string bias = shapeTuple((column ? c.features / p : c.features) / dk);
    const std::string x = column ? shapeTuple(nd / px, c.inDim) : shapeTuple(nd, c.inDim / p);
    auto atRest = [memory = layoutMemory(c, false)](const char* name) {
        const auto array = std::find_if(memory.arrays.begin(), memory.arrays.end(),
                                        [name](const ArrayMemory& a) { return a.name == name; });
        assert(array != memory.arrays.end());
        return std::to_string(array->atRest);
    };
    return "# What one device holds at rest, as tpviz's --costs counts it.\n"
           "for array, shape, nbytes in ((kernel_d, " +
           kernel + ", " + atRest("kernel") + "), (bias_d, " + bias + ", " + atRest("bias") +
           "),\n"
           "                             (x_d, " +
           x + ", " + atRest("x") +
           ")):\n"
           "    shard = array.addressable_shards[0].data\n"
           "    assert shard.shape == shape and shard.nbytes == nbytes, (shard.shape, "
           "shard.nbytes)\n";
}

}  // namespace

std::string pythonLayoutSnippet(const LayerConfig& c, const CheckSettings& check, bool backward) {
    assert(c.layout != ShardingLayout::Tensor && c.block == Block::Linear);
    const std::vector<LayoutCollective> program = layoutCollectives(c, backward);
    const PartitionSpecs specs = layoutPartitionSpecs(c);
    const LayoutMemory memory = layoutMemory(c, false);
    const std::string layout(toString(c.layout));
    auto gathers = [&](const char* of) {
        return std::any_of(program.begin(), program.end(), [of](const LayoutCollective& step) {
            return step.cost.kind == CollectiveKind::AllGather && step.of == of;
        });
    };

    std::ostringstream py;
    py << "\n"
       << "# The same layer on a real device mesh in the " << layout << " layout: data "
       << c.dataSize << " x model " << c.tpSize << " = " << c.dataSize * c.tpSize << " devices.\n"
       << "# Each device keeps " << memory.atRest << " B at rest (kernel, bias and x)";
    if (program.empty()) {
        py << " and needs no collective.\n";
    } else {
        py << "; the collectives,\n# in the order they run:\n";
        for (const LayoutCollective& step : program)
            py << "#   " << toString(step.phase) << ": " << described(step) << "\n";
    }
    py << pythonMeshSetup(c);
    if (c.dataSize == 1 || c.tpSize == 1)
        py << "# An axis of one device is left out of these specs (None): shard_map's check then "
              "takes a\n"
           << "# value as one copy over it, with no collective over one device.\n";
    py << "# Where each array rests in the " << layout << " layout.\n"
       << "kernel_spec, bias_spec, x_spec = " << pythonSpecOnMesh(specs.kernel, c) << ", "
       << pythonSpecOnMesh(specs.bias, c) << ", " << pythonSpecOnMesh(specs.x, c) << "\n"
       << "out_spec = " << pythonSpecOnMesh(specs.output, c) << "\n"
       << "kernel_d = jax.device_put(kernel, NamedSharding(mesh, kernel_spec))\n"
       << "bias_d = jax.device_put(bias, NamedSharding(mesh, bias_spec))\n"
       << "x_d = jax.device_put(x, NamedSharding(mesh, x_spec))\n"
       << "\n"
       << restAssertion(c) << "\n";
    const bool replicatedColumns =
        c.mode == ParallelMode::Column && c.outputLayout() == OutputLayout::Replicated;
    if (replicatedColumns || (gathers("dy") && c.layout == ShardingLayout::Fsdp))
        py << "\n"
           << pythonGatherColumnsFunction(
                  "the replicated\n    # output, or the dy every device sums into dbias")
           << "\n";
    if (gathers("dy") && c.layout == ShardingLayout::Sequence)
        py << "\n"
           << pythonInvariantGatherFunction("gather_rows", 0,
                                            "its data row's dy,\n    # which every device sums "
                                            "into dbias")
           << "\n";
    py << "\n"
       << "@partial(shard_map, mesh=mesh, in_specs=(x_spec, kernel_spec, bias_spec),\n"
       << "         out_specs=out_spec)\n"
       << "def layer_on_mesh(x_block, kernel_block, bias_block):\n"
       << layoutForwardBody(c, program) << "\n"
       << "\n"
       << "mesh_output = layer_on_mesh(x_d, kernel_d, bias_d)\n"
       << pythonMeshOutputCheck(check);
    return py.str();
}

std::string pythonLayoutBackwardSnippet(const LayerConfig& c) {
    assert(c.layout != ShardingLayout::Tensor && c.block == Block::Linear);
    std::vector<LayoutCollective> program = layoutCollectives(c, true);
    program.erase(std::remove_if(program.begin(), program.end(),
                                 [](const LayoutCollective& step) {
                                     return step.phase == PassPhase::Forward;
                                 }),
                  program.end());
    std::vector<BackwardCollective> described;
    for (const LayoutCollective& step : program)
        described.push_back({step.axis, step.of, step.cost});
    const bool dxSummed = std::any_of(program.begin(), program.end(),
                                      [](const LayoutCollective& step) { return step.of == "dx"; });

    std::string py = pythonBackwardMeshOpening(c, layoutPartitionSpecs(c), described);
    // The gathers come first, in their order: the products need what they bring.
    for (const LayoutCollective& step : program)
        if (runsBefore(step))
            py += collectiveStatement(step, c);
    py += pythonGradientsOnMesh(c, dxSummed);
    for (const LayoutCollective& step : program)
        if (!runsBefore(step))
            py += collectiveStatement(step, c);
    return py + pythonBackwardMeshClosing();
}

}  // namespace tp
