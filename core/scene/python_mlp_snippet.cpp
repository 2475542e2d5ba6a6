#include "scene/python_mlp_snippet.h"

#include "block/mlp_costs.h"
#include "devices/mesh_costs.h"
#include "layer/range_text.h"
#include "nnx/nnx_init.h"
#include "scene/python_mesh_snippet.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace tp {
namespace {

std::string hexBits(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", unsigned(bits));
    return text;
}

// The arrays the script draws, in the order of their counts.
std::vector<MlpArray> drawnArrays(SnippetPasses passes) {
    std::vector<MlpArray> arrays = {MlpArray::Kernel1, MlpArray::Bias1, MlpArray::Kernel2,
                                    MlpArray::Bias2, MlpArray::X};
    if (passes == SnippetPasses::ForwardAndBackward)
        arrays.push_back(MlpArray::Dy);
    return arrays;
}

// The array's flat element `index` (row-major), drawn alone.
float drawnValue(const LayerConfig& config, MlpArray array, std::int64_t index) {
    const Index cols = mlpArrayShape(config, array).second;
    const Index row = index / cols, col = index % cols;
    return mlpArrayBlock(config, array, {row, row + 1}, {col, col + 1})(0, 0);
}

// "an all-reduce of the partial sums (144 bytes sent per device)", each of the costs' forward
// collectives, joined with "and" on a comment's next line; "no collective" on one device.
std::string collectivesText(const MlpCosts& costs) {
    std::string text;
    for (const MlpCollective& c : costs.collectives) {
        if (c.backward)
            continue;
        text += std::string(text.empty() ? "" : "\n# and ") + "an " +
                std::string(toString(c.cost.kind)) + " of " + c.of + " (" +
                std::to_string(c.cost.bytesSentPerDevice) + " bytes sent per device)";
    }
    return text.empty() ? "no collective (one device)" : text;
}

// The forward's header: the device flag, the PRNG flags, the imports and the sizes.
void writeHeader(std::ostringstream& py, const LayerConfig& c) {
    py << "# tpviz scene: the Megatron MLP block linear2(gelu(linear1(x))), linear1 = nnx.Linear("
       << c.inDim << ", " << c.hidden << "),\n"
       << "# linear2 = nnx.Linear(" << c.hidden << ", " << c.features << "), from one nnx.Rngs("
       << c.seed << "); x of shape " << shapeTuple(c.batch, c.inDim) << ", tp_size " << c.tpSize
       << " over \"model\"\n"
       << "# threefry bits: " << toString(c.prng) << (c.x64 ? ", jax_enable_x64" : "") << ", bias "
       << toString(c.bias) << "\n"
       << pythonMeshPreamble(c) << "import jax\n"
       << "\n"
       << "# The PRNG settings come first: they must be in place before JAX draws anything.\n"
       << "jax.config.update(\"jax_threefry_partitionable\", "
       << (c.prng == PrngLayout::Legacy ? "False" : "True") << ")\n";
    if (c.x64)
        py << "jax.config.update(\"jax_enable_x64\", True)  # changes seed -> key\n";
    py << "\n"
       << "import re\n"
       << "import sys\n"
       << "from functools import partial\n"
       << "import inspect\n"
       << "import jax.numpy as jnp\n"
       << "import numpy as np\n"
       << "from flax import nnx\n"
       << "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
       << "try:\n"
       << "    from jax import shard_map\n"
       << "except ImportError:  # JAX before 0.6\n"
       << "    from jax.experimental.shard_map import shard_map\n"
       << "\n"
       << "batch, in_dim, hidden, features, tp_size = " << c.batch << ", " << c.inDim << ", "
       << c.hidden << ", " << c.features << ", " << c.tpSize << "\n"
       << "seed = " << c.seed << "\n";
}

// The module, its arrays from one nnx.Rngs, x (and dy) and the reference.
void writeModel(std::ostringstream& py, const LayerConfig& c, bool backward) {
    const std::string bias =
        c.bias.kind == BiasInit::Kind::Normal
            ? "bias_init=nnx.initializers.normal(" + pythonFloatLiteral(c.bias.stddev) + "), "
            : "";
    py << "\n"
       << "\n"
       << "class MLP(nnx.Module):\n"
       << "    def __init__(self, in_dim, hidden, features, *, rngs):\n"
       << "        # Both Linears draw from the one rngs, in this order.\n"
       << "        self.linear1 = nnx.Linear(in_dim, hidden, " << bias
       << "rngs=rngs)  # kernel: count 0, bias: 1\n"
       << "        self.linear2 = nnx.Linear(hidden, features, " << bias
       << "rngs=rngs)  # kernel: count 2, bias: 3\n"
       << "\n"
       << "    def __call__(self, x):\n"
       << "        return self.linear2(nnx.gelu(self.linear1(x)))\n"
       << "\n"
       << "\n"
       << "rngs = nnx.Rngs(seed)\n"
       << "model = MLP(in_dim, hidden, features, rngs=rngs)\n"
       << "x = jax.random.normal(rngs.params(), (batch, in_dim), dtype=jnp.float32)  # count 4\n";
    if (backward)
        py << "# The backward's cotangent, from the stream's next key.\n"
           << "dy = jax.random.normal(rngs.params(), (batch, features), dtype=jnp.float32)  # "
              "count 5\n";
    py << "\n"
       << "kernel1, bias1 = model.linear1.kernel[...], model.linear1.bias[...]  # (in_dim, "
          "hidden), "
          "(hidden,)\n"
       << "kernel2, bias2 = model.linear2.kernel[...], model.linear2.bias[...]  # (hidden, "
          "features), (features,)\n"
       << "reference = model(x)  # linear2(nnx.gelu(linear1(x))), unsharded\n";
}

// The forward's bound, carried through the block as block/mlp_check.h carries it, with the
// worst-case rounding bound of each product.
void writeForwardBound(std::ostringstream& py) {
    py << "\n"
       << "# The check, as tpviz's block check carries it through the stages (block/mlp_check.h), "
          "with the\n"
       << "# worst-case rounding bound of each product: h = linear1(x) within its own rounding; a "
          "= gelu(h)\n"
       << "# within the GeLU's slope (at most 1.13) times h's bound, plus the GeLU's own rounding "
          "twice;\n"
       << "# the output within linear2's own rounding plus a's bound carried through kernel2.\n"
       << "f64 = lambda a: np.asarray(a, dtype=np.float64)\n"
       << pythonRoundingBoundFunction() << "u = 2.0 ** -24\n"
       << "\n"
       << "\n"
       << "def gelu_rounding(v):\n"
       << "    # One float32 evaluation of the tanh-form GeLU: tpviz allows 6 u |v| for its tanhf; "
          "XLA's\n"
       << "    # float32 tanh is a rational approximation of its own, allowed four times as much "
          "here.\n"
       << "    return 4 * (6 * u * np.abs(v) + 2.0 ** -120)\n"
       << "\n"
       << "\n"
       << "ax, ak1, ab1, ak2, ab2 = (np.abs(f64(a)) for a in (x, kernel1, bias1, kernel2, bias2))\n"
       << "h = f64(model.linear1(x))\n"
       << "bound_h = rounding_bound(in_dim, ax @ ak1 + ab1)\n"
       << "bound_a = 1.13 * bound_h + 2 * gelu_rounding(np.abs(h) + bound_h)\n"
       << "a_magnitude = np.abs(f64(nnx.gelu(model.linear1(x)))) + bound_a\n"
       << "bound_output = rounding_bound(hidden, a_magnitude @ ak2 + ab2) + bound_a @ ak2\n";
}

// The mesh, the arrays placed on it, and the helper that lists a program's collectives.
void writeMesh(std::ostringstream& py, const LayerConfig& c) {
    const MlpCosts costs = mlpCosts(c);
    const MlpHoldings& h = costs.perDevice;
    py << "\n"
       << "# The block on a real device mesh: tp_size devices along \"model\". Each holds kernel1 "
       << h.kernel1Bytes << " B,\n"
       << "# kernel2 " << h.kernel2Bytes << " B, x " << h.xBytes << " B, h and a " << h.hiddenBytes
       << " B, its partial sum " << h.partialBytes << " B and the output " << h.outputBytes
       << " B.\n"
       << "cpus = jax.devices(\"cpu\")[:tp_size]\n"
       << "assert len(cpus) == tp_size, \"set XLA_FLAGS as at the top\"\n"
       << "try:\n"
       << "    mesh = jax.make_mesh((tp_size,), (\"model\",), devices=cpus)\n"
       << "except (AttributeError, TypeError):  # JAX before make_mesh or its devices argument\n"
       << "    mesh = Mesh(np.array(cpus), (\"model\",))\n"
       << "\n"
       << "\n"
       << "def placed(arrays, specs):\n"
       << "    # On a mesh of explicit axes (jax.make_mesh's default) shard_map asks that its "
          "inputs'\n"
       << "    # shardings match its in_specs.\n"
       << "    return [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(arrays, specs)]\n"
       << "\n"
       << "\n"
       << "def collectives(program, *args):\n"
       << "    # The collectives a program runs, by the names of their primitives in its jaxpr "
          "(psum or\n"
       << "    # psum_invariant, all_gather or all_gather_invariant, as the JAX version binds "
          "them).\n"
       << "    names = re.findall(r\"\\b([a-z_][a-z0-9_]*)\\[\", "
          "str(jax.make_jaxpr(program)(*args)))\n"
       << "    return [n for n in names if n.startswith((\"psum\", \"all_gather\", "
          "\"reduce_scatter\",\n"
       << "                                              \"all_to_all\", \"ppermute\"))]\n"
       << "\n";
}

// The shard_map program of the correct split or of `mistake`, as mlp_on_mesh with its specs.
void writeProgram(std::ostringstream& py, const LayerConfig& c, Mistake mistake) {
    const std::int64_t slice = c.hidden / c.tpSize;
    switch (mistake) {
        case Mistake::RowThenColumn:
            py << "\n"
               << pythonGatherColumnsFunction("all of the\n    # output") << "\n"
               << "\n"
               << "in_specs = (P(None, \"model\"), P(\"model\", None), P(), P(None, \"model\"), "
                  "P(\"model\"))\n"
               << "\n"
               << "\n"
               << "@partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=P())\n"
               << "def mlp_on_mesh(x_block, kernel1_block, bias1, kernel2_block, bias2_block):\n"
               << "    # linear1 row-parallel: this device's rows of kernel1 and columns of x, a "
                  "partial sum of\n"
               << "    # every h, bias1 with device 0's.\n"
               << "    first = jax.lax.axis_index(\"model\") == 0\n"
               << "    h_partial = x_block @ kernel1_block + jnp.where(first, bias1, "
                  "jnp.zeros_like(bias1))\n"
               << "    # MISTAKE (row-then-column): the GeLU is applied to each partial sum, and "
                  "the GeLUs are\n"
               << "    # all-reduced: the sum of the GeLUs is not the GeLU of the sum.\n"
               << "    a = jax.lax.psum(nnx.gelu(h_partial), \"model\")  # "
               << shapeTuple(c.batch, c.hidden) << "\n"
               << "    # linear2 column-parallel: this device's output columns, then "
                  "all-gathered.\n"
               << "    return gather_columns(a @ kernel2_block + bias2_block)\n";
            return;
        case Mistake::GatherBetween:
            py << "\n"
               << pythonGatherColumnsFunction("all of a, or of\n    # the output") << "\n"
               << "\n"
               << "in_specs = (P(), P(None, \"model\"), P(\"model\"), P(None, \"model\"), "
                  "P(\"model\"))\n"
               << "\n"
               << "\n"
               << "@partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=P())\n"
               << "def mlp_on_mesh(x, kernel1_block, bias1_block, kernel2_block, bias2_block):\n"
               << "    # linear1 column-parallel and the GeLU on this device's slice, as Megatron "
                  "does.\n"
               << "    a_block = nnx.gelu(x @ kernel1_block + bias1_block)  # "
               << shapeTuple(c.batch, slice) << "\n"
               << "    # MISTAKE (gather-between): a is all-gathered between the layers, and "
                  "linear2 runs\n"
               << "    # column-parallel on all of it. Each device already held the slice of a "
                  "linear2 needs\n"
               << "    # row-parallel: the output is right, but the gathers move "
               << shapeTuple(c.batch, c.hidden) << " and " << shapeTuple(c.batch, c.features)
               << ",\n"
               << "    # and every device holds all of a.\n"
               << "    a = gather_columns(a_block)  # " << shapeTuple(c.batch, c.hidden) << "\n"
               << "    return gather_columns(a @ kernel2_block + bias2_block)\n";
            return;
        default:
            break;
    }
    const bool perPartial = mistake == Mistake::Bias2PerPartial;
    py << "\n"
       << "in_specs = (P(), P(None, \"model\"), P(\"model\"), P(\"model\", None), P())  # x, "
          "kernel1, bias1, kernel2, bias2\n"
       << "\n"
       << "\n"
       << "@partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=P())\n"
       << "def mlp_on_mesh(x, kernel1_block, bias1_block, kernel2_block, bias2):\n"
       << "    # linear1 column-parallel: this device's slice s of the hidden features; nothing "
          "moves.\n"
       << "    h_block = x @ kernel1_block + bias1_block  # " << shapeTuple(c.batch, slice) << "\n"
       << "    a_block = nnx.gelu(h_block)  # the GeLU on its own slice\n"
       << "    # linear2 row-parallel on the same slice: a partial sum of every output.\n";
    if (perPartial)
        py << "    # MISTAKE (bias2-per-partial): every device adds bias2 to its partial sum, so "
              "the\n"
           << "    # all-reduce adds it tp_size times.\n"
           << "    partial_sum = a_block @ kernel2_block + bias2  # "
           << shapeTuple(c.batch, c.features) << "\n"
           << "    return jax.lax.psum(partial_sum, \"model\")\n";
    else
        py << "    partial_sum = a_block @ kernel2_block  # " << shapeTuple(c.batch, c.features)
           << "\n"
           << "    # The block's one collective: all-reduce over \"model\" (Megatron's g), then "
              "bias2 once.\n"
           << "    return jax.lax.psum(partial_sum, \"model\") + bias2\n";
}

// Runs the program on the mesh and checks its output: asserted for the correct split, printed
// for a mistake, with what exposes it.
void writeForwardCheck(std::ostringstream& py, const LayerConfig& c, Mistake mistake,
                       const CheckSettings& check) {
    py << "\n"
       << "\n"
       << "arrays = placed((x, kernel1, bias1, kernel2, bias2), in_specs)\n"
       << "mesh_output = mlp_on_mesh(*arrays)\n"
       << "found = collectives(mlp_on_mesh, *arrays)\n"
       << "print(\"collectives the mesh program runs:\", found)\n";
    if (mistake == Mistake::None) {
        if (check.rule == CheckRule::Allclose) {
            py << "np.testing.assert_allclose(np.asarray(mesh_output), np.asarray(reference), "
                  "rtol="
               << pythonDoubleLiteral(check.tolerance.rtol)
               << ", atol=" << pythonDoubleLiteral(check.tolerance.atol) << ")\n";
        } else {
            py << "error = np.abs(f64(mesh_output) - f64(reference))\n"
               << "print(\"largest error / bound:\", float(np.max(error / bound_output)))\n"
               << "assert np.all(error <= bound_output), \"more than rounding can explain\"\n";
        }
        py << "np.set_printoptions(precision=8)\n"
           << "print(\"output[:2, :4] =\", np.asarray(mesh_output[:2, :4]))\n";
        return;
    }
    py << "\n"
       << "# The check that exposes it: the shapes, then every element against the bound carried "
          "through\n"
       << "# the block, which no correct split exceeds, whatever the order of its sums.\n"
       << "if mesh_output.shape != reference.shape:\n"
       << "    print(f\"FAILED: shapes differ: {mesh_output.shape} vs {reference.shape}\")\n"
       << "else:\n"
       << "    error = np.abs(f64(mesh_output) - f64(reference))\n"
       << "    print(\"largest error / bound:\", float(np.max(error / bound_output)))\n"
       << "    print(\"passed\" if np.all(error <= bound_output) else \"FAILED: more than rounding "
          "can explain\")\n";
    if (mistake == Mistake::GatherBetween) {
        py << "# The output is right: what exposes gather-between is what it moves. The Megatron "
              "split runs\n"
           << "# " << collectivesText(mlpCosts(c)) << ";\n"
           << "# this program runs " << collectivesText(mlpCosts(c, Mistake::GatherBetween))
           << ",\n"
           << "# and every device holds all of a.\n"
           << "gathers = [name for name in found if name.startswith(\"all_gather\")]\n"
           << "print(f\"FAILED: {len(gathers)} all-gathers the Megatron split does not run\" if "
              "gathers\n"
           << "      else \"passed\")\n";
    }
}

// The backward: jax.vjp's gradients, their carried bounds, and the same in shard_map.
void writeBackward(std::ostringstream& py, const CheckSettings& check) {
    py << "\n"
       << "# The backward pass. The reference: jax.vjp of the block on plain arrays, pulled back "
          "from dy.\n"
       << "def block(x, kernel1, bias1, kernel2, bias2):\n"
       << "    return nnx.gelu(x @ kernel1 + bias1) @ kernel2 + bias2  # the model's arithmetic\n"
       << "\n"
       << "\n"
       << "_, pullback = jax.vjp(block, x, kernel1, bias1, kernel2, bias2)\n"
       << "reference_gradients = dict(zip((\"dx\", \"dkernel1\", \"dbias1\", \"dkernel2\", "
          "\"dbias2\"), pullback(dy)))\n";
    if (check.rule != CheckRule::Allclose)
        py << "\n"
           << "# Each gradient's bound, carried from the forward's as tpviz's check carries it: "
              "dkernel2 =\n"
           << "# a.T @ dy and dbias2 = dy.sum(0) (K = batch), da = dy @ kernel2.T (K = features), "
              "dh =\n"
           << "# da * gelu'(h) (gelu'' at most 0.8, the derivative's own rounding twice), dkernel1 "
              "= x.T @ dh\n"
           << "# and dbias1 = dh.sum(0) (K = batch), dx = dh @ kernel1.T (K = hidden).\n"
           << "sqrt_2_over_pi = np.float64(np.float32(np.sqrt(2 / np.pi)))\n"
           << "\n"
           << "\n"
           << "def gelu_derivative(v):\n"
           << "    t = np.tanh(sqrt_2_over_pi * (v + 0.044715 * v ** 3))\n"
           << "    return 0.5 * (1 + t) + v * 0.5 * (1 - t * t) * sqrt_2_over_pi * (1 + 3 * "
              "0.044715 * v * v)\n"
           << "\n"
           << "\n"
           << "def gelu_derivative_rounding(v):\n"
           << "    # tpviz's allowance for its derivative, four times as much for XLA's tanh (as "
              "above).\n"
           << "    w = np.abs(v)\n"
           << "    return 4 * (u * (8 + 8 * w * (1 + 0.135 * w * w) + 4 * "
              "np.abs(gelu_derivative(w))) + 2.0 ** -120)\n"
           << "\n"
           << "\n"
           << "ady = np.abs(f64(dy))\n"
           << "da = f64(dy) @ f64(kernel2).T\n"
           << "bound_da = rounding_bound(features, ady @ ak2.T)\n"
           << "slope = np.abs(gelu_derivative(h))\n"
           << "bound_slope = 0.8 * bound_h + 2 * gelu_derivative_rounding(np.abs(h) + bound_h)\n"
           << "bound_dh = (bound_da * (slope + bound_slope) + np.abs(da) * bound_slope\n"
           << "            + 2 * u * (np.abs(da) + bound_da) * (slope + bound_slope))\n"
           << "dh_magnitude = np.abs(da) * slope + bound_dh\n"
           << "bounds = {\n"
           << "    \"dx\": rounding_bound(hidden, dh_magnitude @ ak1.T) + bound_dh @ ak1.T,\n"
           << "    \"dkernel1\": rounding_bound(batch, ax.T @ dh_magnitude) + ax.T @ bound_dh,\n"
           << "    \"dbias1\": rounding_bound(batch, dh_magnitude.sum(0)) + bound_dh.sum(0),\n"
           << "    \"dkernel2\": rounding_bound(batch, a_magnitude.T @ ady) + bound_a.T @ ady,\n"
           << "    \"dbias2\": rounding_bound(batch, ady.sum(0)),\n"
           << "}\n";
    py << "\n"
       << "backward_in_specs = (P(), P(None, \"model\"), P(\"model\"), P(\"model\", None), P())  "
          "# x, kernel1, bias1, kernel2, dy\n"
       << "backward_out_specs = (P(), P(None, \"model\"), P(\"model\"), P(\"model\", None), P())  "
          "# dx, dkernel1, dbias1, dkernel2, dbias2\n"
       << "\n"
       << "\n"
       << "@partial(shard_map, mesh=mesh, in_specs=backward_in_specs, "
          "out_specs=backward_out_specs)\n"
       << "def backward_on_mesh(x, kernel1_block, bias1_block, kernel2_block, dy):\n"
       << "    h_block = x @ kernel1_block + bias1_block\n"
       << "    a_block, gelu_pullback = jax.vjp(nnx.gelu, h_block)\n"
       << "    # linear2's row backward: its rows of dkernel2 and its own slice of da; no "
          "collective (the\n"
       << "    # conjugate of the forward's all-reduce). dbias2 = dy.sum(0), which every device "
          "holds.\n"
       << "    dkernel2_block = a_block.T @ dy\n"
       << "    da_block = dy @ kernel2_block.T\n"
       << "    dbias2 = dy.sum(0)\n"
       << "    # The GeLU's derivative on its own slice.\n"
       << "    (dh_block,) = gelu_pullback(da_block)\n"
       << "    # linear1's column backward: its columns of dkernel1 and dbias1, and a partial sum "
          "of dx.\n"
       << "    dkernel1_block = x.T @ dh_block\n"
       << "    dbias1_block = dh_block.sum(0)\n"
       << "    dx_partial = dh_block @ kernel1_block.T\n"
       << "    # All-reduce of dx over \"model\" (Megatron's f): the backward's one collective.\n"
       << "    dx = jax.lax.psum(dx_partial, \"model\")\n"
       << "    return dx, dkernel1_block, dbias1_block, dkernel2_block, dbias2\n"
       << "\n"
       << "\n"
       << "backward_arrays = placed((x, kernel1, bias1, kernel2, dy), backward_in_specs)\n"
       << "mesh_gradients = dict(zip(reference_gradients, backward_on_mesh(*backward_arrays)))\n"
       << "print(\"collectives the backward runs:\", collectives(backward_on_mesh, "
          "*backward_arrays))\n"
       << "for name, actual in mesh_gradients.items():\n"
       << "    expected = reference_gradients[name]\n"
       << "    assert actual.shape == expected.shape, (name, actual.shape, expected.shape)\n";
    if (check.rule == CheckRule::Allclose)
        py << "    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol="
           << pythonDoubleLiteral(check.tolerance.rtol)
           << ", atol=" << pythonDoubleLiteral(check.tolerance.atol) << ", err_msg=name)\n";
    else
        py << "    error = np.abs(f64(actual) - f64(expected))\n"
           << "    print(name, \"largest error / bound:\", float(np.max(error / bounds[name])))\n"
           << "    assert np.all(error <= bounds[name]), f\"{name}: more than rounding can "
              "explain\"\n";
}

}  // namespace

std::string pythonMlpBitsCheck(const LayerConfig& config, SnippetPasses passes) {
    const std::vector<MlpArray> arrays = drawnArrays(passes);
    std::ostringstream py;
    py << "# The parameters, x";
    if (passes == SnippetPasses::ForwardAndBackward)
        py << " and dy";
    py << " are the bits tpviz draws: the float32 bits of each array's first\n"
       << "# values (row-major) and its last one. tpviz-cli --block mlp"
       << (passes == SnippetPasses::ForwardAndBackward ? " --backward" : "")
       << " --save-npy DIR writes every\n"
       << "# value: give DIR to this script (python3 script.py DIR) to compare them all.\n"
       << "tpviz_bits = {\n";
    for (const MlpArray array : arrays) {
        const auto [rows, cols] = mlpArrayShape(config, array);
        const std::int64_t size = rows * cols;
        py << "    \"" << mlpArrayName(array) << "\": ([";
        for (std::int64_t k = 0; k < std::min<std::int64_t>(4, size); ++k)
            py << (k ? ", " : "") << hexBits(drawnValue(config, array, k));
        py << "], " << hexBits(drawnValue(config, array, size - 1)) << "),\n";
    }
    py << "}\n"
       << "drawn = {";
    for (std::size_t i = 0; i < arrays.size(); ++i)
        py << (i ? ", " : "") << "\"" << mlpArrayName(arrays[i])
           << "\": " << mlpArrayName(arrays[i]);
    py << "}\n"
       << "\n"
       << "\n"
       << "def float32_bits(array):\n"
       << "    return np.asarray(array, dtype=np.float32).reshape(-1).view(np.uint32)\n"
       << "\n"
       << "\n"
       << "for name, (first, last) in tpviz_bits.items():\n"
       << "    bits = float32_bits(drawn[name])\n"
       << "    got = [int(b) for b in bits[:len(first)]] + [int(bits[-1])]\n"
       << "    assert got == first + [last], f\"{name}: bits {[hex(b) for b in got]}, tpviz draws "
          "{[hex(b) for b in first + [last]]}\"\n"
       << "if len(sys.argv) > 1:\n"
       << "    for name, array in drawn.items():\n"
       << "        saved = np.load(os.path.join(sys.argv[1], name + \".npy\"))\n"
       << "        assert saved.dtype == np.float32 and saved.shape == np.shape(array), (name, "
          "saved.dtype, saved.shape)\n"
       << "        assert np.array_equal(float32_bits(array), float32_bits(saved)), f\"{name}: not "
          "the bits of {name}.npy\"\n"
       << "    print(\"every value bit for bit as in\", sys.argv[1])\n"
       << "print(\", \".join(drawn), \"hold the float32 bits tpviz draws\")\n";
    return py.str();
}

std::string pythonMlpSnippet(const LayerConfig& config, Mistake mistake, const CheckSettings& check,
                             SnippetPasses passes) {
    assert(config.block == Block::Mlp);
    const bool backward = passes == SnippetPasses::ForwardAndBackward;
    assert(!backward || mistake == Mistake::None);
    std::ostringstream py;
    writeHeader(py, config);
    writeModel(py, config, backward);
    py << "\n" << pythonMlpBitsCheck(config, passes);
    writeForwardBound(py);
    writeMesh(py, config);
    writeProgram(py, config, mistake);
    writeForwardCheck(py, config, mistake, check);
    if (backward)
        writeBackward(py, check);
    return py.str();
}

}  // namespace tp
