#include "python_snippet.h"

#include "float_format.h"
#include "python_mesh_snippet.h"

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

std::string pythonSnippet(const LayerConfig& config, Tolerance tolerance) {
    const bool legacy = config.prng == PrngLayout::Legacy;
    const bool column = config.mode == ParallelMode::Column;
    const bool normalBias = config.bias.kind == BiasInit::Kind::Normal;
    std::ostringstream py;
    py << "# tpviz scene: nnx.Linear(" << config.inDim << ", " << config.features
       << ", rngs=nnx.Rngs(" << config.seed << ")), x of shape (" << config.batch << ", "
       << config.inDim << "), tp_size " << config.tpSize << ", " << toString(config.mode)
       << "-parallel\n"
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
    py << "np.testing.assert_allclose(output, reference, rtol="
       << pythonDoubleLiteral(tolerance.rtol) << ", atol=" << pythonDoubleLiteral(tolerance.atol)
       << ")\n"
       << "\n"
       << "np.set_printoptions(precision=8)\n"
       << "print(\"kernel[:2, :4] =\", np.asarray(kernel[:2, :4]))\n"
       << "print(\"bias[:4] =\", np.asarray(bias[:4]))\n"
       << "print(\"x[:2, :4] =\", np.asarray(x[:2, :4]))\n"
       << "print(\"output[:2, :4] =\", np.asarray(output[:2, :4]))\n"
       << "print(\"max |output - reference| =\", float(jnp.max(jnp.abs(output - reference))))\n";
    // A config that names the mesh also gets the same layer on a real device mesh.
    if (pythonMeshWanted(config))
        return pythonMeshPreamble(config) + py.str() + pythonMeshSnippet(config, tolerance);
    return py.str();
}

}  // namespace tp
