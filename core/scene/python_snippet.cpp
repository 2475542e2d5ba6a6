#include "scene/python_snippet.h"

#include "layer/float_format.h"
#include "scene/python_backward_snippet.h"
#include "scene/python_layout_snippet.h"
#include "scene/python_mesh_snippet.h"
#include "scene/python_mlp_snippet.h"

#include <cassert>
#include <charconv>
#include <cstdlib>
#include <sstream>

namespace tp {

std::string pythonFloatLiteral(float value) {
    const std::string shortest = formatFloat(value);
    // Python parses the literal as a double; jnp then rounds it to float32.
    if (float(std::strtod(shortest.c_str(), nullptr)) == value)
        return shortest;
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, double(value));
    return std::string(buffer, result.ptr);
}

std::string pythonDoubleLiteral(double value) {
    std::string text = formatDouble(value);
    // to_chars pads the exponent to two digits ("1e-05"); Python reads "1e-5" as the same double.
    if (const auto e = text.find('e'); e != std::string::npos) {
        std::size_t digits = e + 1;
        if (digits < text.size() && (text[digits] == '-' || text[digits] == '+'))
            ++digits;
        while (digits + 1 < text.size() && text[digits] == '0')
            text.erase(digits, 1);
    }
    return text;
}

std::string pythonRoundingBoundFunction(const std::string& indent) {
    return indent + "def rounding_bound(K, s):\n" + indent + "    u = 2.0 ** -24\n" + indent +
           "    gamma = (K + 1) * u / (1 - (K + 1) * u)\n" + indent +
           "    return 2 * gamma * s + 2 * (K + 1) * 2.0 ** -125\n";
}

namespace {

// nnx.Linear(...) keyword arguments after the sizes, as the scene's model is built.
std::string linearArguments(const LayerConfig& config, const std::string& rngs) {
    if (config.bias.kind == BiasInit::Kind::Normal)
        return "bias_init=nnx.initializers.normal(" + pythonFloatLiteral(config.bias.stddev) +
               "), rngs=" + rngs;
    return "rngs=" + rngs;
}

// The wrong split, as tpviz computes it for `mistake`, ending with `output`.
void writeMistake(std::ostringstream& py, const LayerConfig& config, Mistake mistake) {
    const std::string own = linearArguments(config, "nnx.Rngs(seed)");
    switch (mistake) {
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's, written with its own snippet
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
            break;
        case Mistake::SumGroups:
            py << "chunk = features // tp_size\n"
               << "pieces = [x @ kernel[:, start:start + chunk] + bias[start:start + chunk]\n"
               << "          for start in range(0, features, chunk)]\n"
               << "# MISTAKE (sum-groups): the groups' outputs are added instead of concatenated.\n"
               << "# They are different output columns, not partial sums of the same columns:\n"
               << "# the result has shape (batch, chunk).\n"
               << "output = pieces[0]\n"
               << "for piece in pieces[1:]:\n"
               << "    output = output + piece\n";
            break;
        case Mistake::ConcatPartials:
            py << "chunk = in_dim // tp_size\n"
               << "partials = [x[:, start:start + chunk] @ kernel[start:start + chunk, :]\n"
               << "            for start in range(0, in_dim, chunk)]\n"
               << "# MISTAKE (concat-partials): the partial sums of the same outputs are\n"
               << "# concatenated along the last axis instead of added: (batch, tp_size * "
                  "features).\n";
            if (config.tpSize > 1)
                py << "# The bias, (features,), no longer fits that shape and is left out.\n"
                   << "output = jnp.concatenate(partials, axis=-1)\n";
            else
                py << "output = jnp.concatenate(partials, axis=-1) + bias\n";
            break;
        case Mistake::BiasPerPartial:
            py << "chunk = in_dim // tp_size\n"
               << "# MISTAKE (bias-per-partial): the bias is added to every partial sum instead "
                  "of once:\n"
               << "# output = x @ kernel + tp_size * bias.\n"
               << "partials = [x[:, start:start + chunk] @ kernel[start:start + chunk, :] + bias\n"
               << "            for start in range(0, in_dim, chunk)]\n"
               << "output = partials[0]\n"
               << "for partial in partials[1:]:\n"
               << "    output = output + partial\n";
            break;
        case Mistake::InitPerGroup:
            py << "# MISTAKE (init-per-group): each group builds its own nnx.Linear of its "
                  "shard's\n"
               << "# shape with nnx.Rngs(seed) instead of slicing the one layer. Every group "
                  "draws\n"
               << "# the same weights, and they are not the slices of the one kernel.\n";
            if (config.mode == ParallelMode::Column) {
                py << "chunk = features // tp_size\n"
                   << "pieces = []\n"
                   << "for start in range(0, features, chunk):\n"
                   << "    own = nnx.Linear(in_dim, chunk, " << own << ")\n"
                   << "    pieces.append(x @ own.kernel[...] + own.bias[...])\n"
                   << "output = jnp.concatenate(pieces, axis=-1)\n";
            } else {
                py << "chunk = in_dim // tp_size\n"
                   << "partial_sum = None\n"
                   << "for start in range(0, in_dim, chunk):\n"
                   << "    own = nnx.Linear(chunk, features, " << own << ")\n"
                   << "    partial = x[:, start:start + chunk] @ own.kernel[...]\n"
                   << "    partial_sum = partial if partial_sum is None else partial_sum + "
                      "partial\n"
                   << "output = partial_sum + own.bias[...]\n";
            }
            break;
        case Mistake::SliceX:
            py << "chunk = features // tp_size\n"
               << "block = in_dim // tp_size\n"
               << "# MISTAKE (slice-x): each group also takes only its own block of x's columns\n"
               << "# and the matching kernel rows, as if column-parallel split the input too.\n"
               << "# Each output column misses the products of the other blocks of x.\n"
               << "pieces = [x[:, g * block:(g + 1) * block]\n"
               << "          @ kernel[g * block:(g + 1) * block, g * chunk:(g + 1) * chunk]\n"
               << "          + bias[g * chunk:(g + 1) * chunk]\n"
               << "          for g in range(tp_size)]\n"
               << "output = jnp.concatenate(pieces, axis=-1)\n";
            break;
    }
}

// Every element of `output` against the float32 rounding bound of verification.h, which no correct
// split exceeds whatever the order of its sums: asserted for a correct split, reported for a
// mistake (after the shapes, the first thing a mistake can change).
void writeRoundingCheck(std::ostringstream& py, bool exposing) {
    py << "\n";
    if (exposing)
        py << "# The check that exposes it: the shapes, then every element against the float32\n"
           << "# rounding bound 2 * gamma(K + 1) * (|x| @ |kernel| + |bias|), which no correct "
              "split\n"
           << "# exceeds, whatever the order of its sums.\n"
           << "if output.shape != reference.shape:\n"
           << "    print(f\"FAILED: shapes differ: {output.shape} vs {reference.shape}\")\n"
           << "else:\n";
    else
        py << "# The check: every element within the float32 rounding bound\n"
           << "# 2 * gamma(K + 1) * (|x| @ |kernel| + |bias|), which no correct split exceeds,\n"
           << "# whatever the order of its sums (a fixed atol would cry wolf at large in_dim).\n";
    const std::string in = exposing ? "    " : "";
    py << in << "f64 = lambda a: np.asarray(a, dtype=np.float64)\n"
       << pythonRoundingBoundFunction(in) << in
       << "s = np.abs(f64(x)) @ np.abs(f64(kernel)) + np.abs(f64(bias))\n"
       << in << "bound = rounding_bound(in_dim, s)\n"
       << in << "error = np.abs(f64(output) - f64(reference))\n"
       << in << "print(\"largest error / rounding bound:\", float(np.max(error / bound)))\n";
    if (exposing)
        py << in
           << "print(\"passed\" if np.all(error <= bound) else \"FAILED: more than rounding can "
              "explain\")\n";
    else
        py << "assert np.all(error <= bound), \"more than rounding can explain\"\n";
}

}  // namespace

std::string pythonSnippet(const LayerConfig& config, Mistake mistake, const CheckSettings& check,
                          SnippetPasses passes) {
    if (config.block == Block::Mlp)
        return pythonMlpSnippet(config, mistake, check, passes);
    const bool backward = passes == SnippetPasses::ForwardAndBackward;
    assert(!backward || mistake == Mistake::None);
    const bool legacy = config.prng == PrngLayout::Legacy;
    const bool column = config.mode == ParallelMode::Column;
    const bool normalBias = config.bias.kind == BiasInit::Kind::Normal;
    std::ostringstream py;
    py << "# tpviz scene: nnx.Linear(" << config.inDim << ", " << config.features
       << ", rngs=nnx.Rngs(" << config.seed << ")), x of shape (" << config.batch << ", "
       << config.inDim << "), tp_size " << config.tpSize << ", " << toString(config.mode)
       << "-parallel"
       << (config.layout != ShardingLayout::Tensor
               ? ", " + std::string(toString(config.layout)) + " layout"
               : std::string())
       << "\n"
       << "# threefry bits: " << toString(config.prng) << (config.x64 ? ", jax_enable_x64" : "")
       << ", bias " << toString(config.bias) << "\n"
       << "import jax\n"
       << "\n"
       << "# The PRNG settings come first: they must be in place before JAX draws anything.\n"
       << "jax.config.update(\"jax_threefry_partitionable\", " << (legacy ? "False" : "True")
       << ")\n";
    if (config.x64)
        py << "jax.config.update(\"jax_enable_x64\", True)  # changes seed -> key\n";
    py << "\n"
       << "import jax.numpy as jnp\n"
       << "import numpy as np\n"
       << "from flax import nnx\n"
       << "\n"
       << "batch, in_dim, features, tp_size = " << config.batch << ", " << config.inDim << ", "
       << config.features << ", " << config.tpSize << "\n"
       << "seed = " << config.seed << "\n"
       << "\n"
       << "rngs = nnx.Rngs(seed)\n";
    if (normalBias) {
        py << "model = nnx.Linear(in_dim, features,\n"
           << "                   bias_init=nnx.initializers.normal("
           << pythonFloatLiteral(config.bias.stddev) << "),\n"
           << "                   rngs=rngs)  # kernel: rngs count 0, bias: count 1\n";
    } else {
        py << "model = nnx.Linear(in_dim, features, rngs=rngs)  # kernel: rngs count 0, bias: "
              "count 1\n";
    }
    py << "x = jax.random.normal(rngs.params(), (batch, in_dim), dtype=jnp.float32)  # count 2\n"
       << "\n"
       << "kernel = model.kernel[...]  # (in_dim, features)\n"
       << "bias = model.bias[...]  # (features,)\n"
       << "reference = x @ kernel + bias\n"
       << "\n";
    if (mistake != Mistake::None) {
        writeMistake(py, config, mistake);
        writeRoundingCheck(py, true);
        return py.str();
    }
    if (column) {
        py << "# Column-parallel: group i uses kernel[:, i*chunk:(i+1)*chunk] and the same slice "
              "of the bias,\n"
           << "# slices of the one kernel; the pieces are different output columns, "
              "concatenated, never summed.\n"
           << "chunk = features // tp_size\n"
           << "pieces = [x @ kernel[:, start:start + chunk] + bias[start:start + chunk]\n"
           << "          for start in range(0, features, chunk)]\n"
           << "output = jnp.concatenate(pieces, axis=-1)\n";
    } else {
        py << "# Row-parallel: group i uses kernel[i*chunk:(i+1)*chunk, :] and the matching "
              "columns of x;\n"
           << "# the partial sums of the same outputs are added, and the bias is added once.\n"
           << "chunk = in_dim // tp_size\n"
           << "partials = [x[:, start:start + chunk] @ kernel[start:start + chunk, :]\n"
           << "            for start in range(0, in_dim, chunk)]\n"
           << "partial_sum = partials[0]\n"
           << "for partial in partials[1:]:\n"
           << "    partial_sum = partial_sum + partial\n"
           << "output = partial_sum + bias\n";
    }
    if (check.rule == CheckRule::Allclose)
        py << "np.testing.assert_allclose(output, reference, rtol="
           << pythonDoubleLiteral(check.tolerance.rtol)
           << ", atol=" << pythonDoubleLiteral(check.tolerance.atol) << ")\n";
    else
        writeRoundingCheck(py, false);
    py << "\n"
       << "np.set_printoptions(precision=8)\n"
       << "print(\"kernel[:2, :4] =\", np.asarray(kernel[:2, :4]))\n"
       << "print(\"bias[:4] =\", np.asarray(bias[:4]))\n"
       << "print(\"x[:2, :4] =\", np.asarray(x[:2, :4]))\n"
       << "print(\"output[:2, :4] =\", np.asarray(output[:2, :4]))\n"
       << "print(\"max |output - reference| =\", float(jnp.max(jnp.abs(output - reference))))\n";
    // A config that names the mesh, or has a collective to show, also gets the same layer on a
    // real device mesh.
    const bool mesh = pythonMeshWanted(config, passes);
    // The fsdp and sequence layouts run in place of the tensor layout's mesh part.
    const bool layout = config.layout != ShardingLayout::Tensor;
    std::string script = mesh ? pythonMeshPreamble(config) + py.str() : py.str();
    if (mesh)
        script += layout ? pythonLayoutSnippet(config, check, backward)
                         : pythonMeshSnippet(config, check, passes);
    if (backward)
        script += pythonBackwardSnippet(config, check);
    if (backward && mesh)
        script += layout ? pythonLayoutBackwardSnippet(config) : pythonBackwardMeshSnippet(config);
    return script;
}

}  // namespace tp
