#include "scene/python_backward_snippet.h"

#include "devices/backward_collectives.h"
#include "devices/mesh_costs.h"
#include "layer/range_text.h"
#include "scene/python_mesh_snippet.h"
#include "scene/python_snippet.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace tp {
namespace {

// The name that holds `of` on a device before its collective: column mode's dx is a partial sum
// until the all-reduce; every other array is the device's block.
std::string beforeCollective(const std::string& of, bool column) {
    return column && of == "dx" ? "dx_partial" : of + "_block";
}

// The shard_map statement of one backward collective, with what it does in a comment.
std::string collectiveStatement(const BackwardCollective& c, bool column) {
    const std::string axis(toString(c.axis));
    switch (c.cost.kind) {
        case CollectiveKind::AllGather:
            // The only gather of the backward: row + sharded, dy's column blocks over "model".
            assert(c.of == "dy" && c.axis == MeshAxis::Model);
            return "    # All-gather of dy over \"model\", the conjugate of the forward's "
                   "reduce-scatter:\n"
                   "    # every device needs all of dy for its rows of dkernel and its slice of "
                   "dx.\n"
                   "    dy_block = gather_columns(dy_block)\n";
        case CollectiveKind::AllReduce: {
            const std::string why =
                c.axis == MeshAxis::Model
                    ? "    # All-reduce over \"model\" (Megatron's f): each device's dx is a "
                      "partial sum of all of it.\n"
                    : "    # All-reduce over \"data\" (data parallelism's): each data row saw only "
                      "its batch rows.\n";
            return why + "    " + c.of + "_block = jax.lax.psum(" + beforeCollective(c.of, column) +
                   ", \"" + axis + "\")\n";
        }
        case CollectiveKind::None:
        case CollectiveKind::ReduceScatter:
            break;
    }
    assert(false && "the backward has no such collective");
    return {};
}

}  // namespace

std::string pythonBackwardSnippet(const LayerConfig& config, const CheckSettings& check) {
    const bool column = config.mode == ParallelMode::Column;
    std::ostringstream py;
    py << "\n"
       << "# The backward pass. The cotangent dy is drawn as x was, from the stream's next key.\n"
       << "dy = jax.random.normal(rngs.params(), (batch, features), dtype=jnp.float32)  # count 3\n"
       << "\n"
       << "# The reference: jax.vjp of the full layer at (x, kernel, bias), pulled back from dy.\n"
       << "_, pullback = jax.vjp(lambda x, kernel, bias: x @ kernel + bias, x, kernel, bias)\n"
       << "reference_dx, reference_dkernel, reference_dbias = pullback(dy)\n"
       << "\n"
       << "\n"
       << "def check_gradients(where, dx, dkernel, dbias):\n";
    if (check.rule == CheckRule::Allclose) {
        py << "    for name, actual, expected in ((\"dx\", dx, reference_dx),\n"
           << "                                   (\"dkernel\", dkernel, reference_dkernel),\n"
           << "                                   (\"dbias\", dbias, reference_dbias)):\n"
           << "        np.testing.assert_allclose(actual, expected, rtol="
           << pythonDoubleLiteral(check.tolerance.rtol)
           << ", atol=" << pythonDoubleLiteral(check.tolerance.atol)
           << ",\n                                   err_msg=where + \" \" + name)\n";
    } else {
        py << "    # Each gradient is one product, checked as the output was with the K of that "
              "product:\n"
           << "    # features for dx = dy @ kernel.T, batch for dkernel = x.T @ dy and for\n"
           << "    # dbias = ones(1, batch) @ dy.\n"
           << "    ady, akernel, ax = np.abs(f64(dy)), np.abs(f64(kernel)), np.abs(f64(x))\n"
           << "    for name, actual, expected, K, s in (\n"
           << "            (\"dx\", dx, reference_dx, features, ady @ akernel.T),\n"
           << "            (\"dkernel\", dkernel, reference_dkernel, batch, ax.T @ ady),\n"
           << "            (\"dbias\", dbias, reference_dbias, batch, ady.sum(0))):\n"
           << "        assert actual.shape == expected.shape, (where, name, actual.shape, "
              "expected.shape)\n"
           << "        error = np.abs(f64(actual) - f64(expected))\n"
           << "        bound = rounding_bound(K, s)\n"
           << "        print(where, name, \"largest error / rounding bound:\", "
              "float(np.max(error / bound)))\n"
           << "        assert np.all(error <= bound), f\"{where} {name}: more than rounding can "
              "explain\"\n";
    }
    py << "\n"
       << "\n";
    if (column) {
        py << "# Column-parallel: group i takes its columns of dy, cols = i*chunk:(i+1)*chunk. Its "
              "dkernel\n"
           << "# and dbias are its columns of the whole; its dy[:, cols] @ kernel[:, cols].T is a "
              "partial\n"
           << "# sum of all of dx, and the groups' partials are added (on devices, the "
              "all-reduce).\n"
           << "chunk = features // tp_size\n"
           << "dx_partials = [dy[:, start:start + chunk] @ kernel[:, start:start + chunk].T\n"
           << "               for start in range(0, features, chunk)]\n"
           << "dx = dx_partials[0]\n"
           << "for dx_partial in dx_partials[1:]:\n"
           << "    dx = dx + dx_partial\n"
           << "dkernel = jnp.concatenate([x.T @ dy[:, start:start + chunk]\n"
           << "                           for start in range(0, features, chunk)], axis=-1)\n"
           << "dbias = jnp.concatenate([dy[:, start:start + chunk].sum(0)\n"
           << "                         for start in range(0, features, chunk)])\n";
    } else {
        py << "# Row-parallel: group i holds kernel[rows, :], rows = i*chunk:(i+1)*chunk, and the "
              "same\n"
           << "# columns of x. Its dkernel is its rows of the whole, and dy @ kernel[rows, :].T is "
              "exactly\n"
           << "# its own columns of dx: nothing is summed. dbias = dy.sum(0), once.\n"
           << "chunk = in_dim // tp_size\n"
           << "dx = jnp.concatenate([dy @ kernel[start:start + chunk, :].T\n"
           << "                      for start in range(0, in_dim, chunk)], axis=-1)\n"
           << "dkernel = jnp.concatenate([x[:, start:start + chunk].T @ dy\n"
           << "                           for start in range(0, in_dim, chunk)], axis=0)\n"
           << "dbias = dy.sum(0)\n";
    }
    py << "check_gradients(\"split\", dx, dkernel, dbias)\n";
    return py.str();
}

std::string pythonBackwardMeshOpening(const LayerConfig& config, const PartitionSpecs& specs,
                                      const std::vector<BackwardCollective>& collectives) {
    std::ostringstream py;
    py << "\n"
       << "# The backward on the mesh. dy arrives laid out as the output; each gradient leaves "
          "laid out\n"
       << "# as its array: dx as x, dkernel as kernel, dbias as bias.";
    if (collectives.empty()) {
        py << " It needs no collective.\n";
    } else {
        py << " The collectives, in the\n# order they run:\n";
        for (const BackwardCollective& c : collectives)
            py << "#   " << describe(c) << "\n";
    }
    if (config.dataSize == 1 || config.tpSize == 1)
        py << "# An axis of one device is left out of these specs (None): shard_map's check then "
              "takes a\n"
           << "# gradient as one copy over it, with no collective over one device.\n";
    py << "backward_in_specs = (" << pythonSpecOnMesh(specs.x, config) << ", "
       << pythonSpecOnMesh(specs.kernel, config) << ", " << pythonSpecOnMesh(specs.output, config)
       << ")  # x, kernel, dy\n"
       << "backward_out_specs = (" << pythonSpecOnMesh(specs.x, config) << ", "
       << pythonSpecOnMesh(specs.kernel, config) << ", " << pythonSpecOnMesh(specs.bias, config)
       << ")  # dx, dkernel, dbias\n"
       << "# Placed as these specs say: on a mesh of explicit axes (jax.make_mesh's default) "
          "shard_map\n"
       << "# asks that its inputs' shardings match its in_specs.\n"
       << "x_b, kernel_b, dy_b = (jax.device_put(a, NamedSharding(mesh, spec))\n"
       << "                       for a, spec in zip((x, kernel, dy), backward_in_specs))\n"
       << "\n"
       << "\n"
       << "@partial(shard_map, mesh=mesh, in_specs=backward_in_specs, "
          "out_specs=backward_out_specs)\n"
       << "def backward_on_mesh(x_block, kernel_block, dy_block):\n";
    return py.str();
}

std::string pythonGradientsOnMesh(const LayerConfig& config, bool dxSummed) {
    const bool column = config.mode == ParallelMode::Column;
    const bool replicated = config.outputLayout() == OutputLayout::Replicated;
    const std::int64_t p = config.tpSize;
    const std::int64_t nd = config.batch / config.dataSize;
    const std::int64_t rows = column ? config.inDim : config.inDim / p;
    const std::int64_t cols = column ? config.features / p : config.features;
    std::ostringstream py;
    if (column) {
        if (replicated && p > 1)
            py << "    # dy is replicated over \"model\": this device takes its own columns, no "
                  "communication.\n"
               << "    chunk = features // tp_size\n"
               << "    start = jax.lax.axis_index(\"model\") * chunk\n"
               << "    dy_block = jax.lax.dynamic_slice_in_dim(dy_block, start, chunk, axis=1)\n";
        py << "    # dy_block " << shapeTuple(nd, cols) << ", this device's columns of dy.\n"
           << "    dkernel_block = x_block.T @ dy_block  # " << shapeTuple(rows, cols) << "\n"
           << "    dbias_block = dy_block.sum(0)  # " << shapeTuple(cols) << "\n"
           << "    dx_partial = dy_block @ kernel_block.T  # " << shapeTuple(nd, config.inDim)
           << ", a partial sum of dx\n";
        if (!dxSummed)
            py << "    dx_block = dx_partial  # one device on \"model\": its partial sum is all of "
                  "dx\n";
    } else {
        py << "    # dy_block " << shapeTuple(nd, config.features)
           << ": all of dy on every device.\n"
           << "    dkernel_block = x_block.T @ dy_block  # " << shapeTuple(rows, cols) << "\n"
           << "    dbias_block = dy_block.sum(0)  # " << shapeTuple(cols)
           << ", the same on every device of a data row\n"
           << "    dx_block = dy_block @ kernel_block.T  # " << shapeTuple(nd, rows)
           << ", its own columns of dx: nothing summed\n";
    }
    return py.str();
}

std::string pythonBackwardMeshClosing() {
    return "    return dx_block, dkernel_block, dbias_block\n"
           "\n"
           "\n"
           "mesh_dx, mesh_dkernel, mesh_dbias = backward_on_mesh(x_b, kernel_b, dy_b)\n"
           "# The mesh sums in its own order: the same check as the split's.\n"
           "check_gradients(\"mesh\", mesh_dx, mesh_dkernel, mesh_dbias)\n"
           "print(\"mesh dx, dkernel, dbias laid out as\", mesh_dx.sharding.spec, "
           "mesh_dkernel.sharding.spec,\n"
           "      mesh_dbias.sharding.spec)\n";
}

std::string pythonBackwardMeshSnippet(const LayerConfig& config) {
    const bool column = config.mode == ParallelMode::Column;
    const std::vector<BackwardCollective> collectives = backwardCollectives(config);
    const bool dxSummed = std::any_of(collectives.begin(), collectives.end(),
                                      [](const BackwardCollective& c) { return c.of == "dx"; });
    std::string py = pythonBackwardMeshOpening(config, partitionSpecs(config), collectives);
    // The gather of dy comes first: the products need all of it.
    for (const BackwardCollective& c : collectives)
        if (c.of == "dy")
            py += collectiveStatement(c, column);
    py += pythonGradientsOnMesh(config, dxSummed);
    for (const BackwardCollective& c : collectives)
        if (c.of != "dy")
            py += collectiveStatement(c, column);
    return py + pythonBackwardMeshClosing();
}

}  // namespace tp
