#pragma once

// A layer's arrays from files: the kernel, and optionally the bias and x, each from an .npy file
// or a tensor of a .safetensors file. What no file gives is drawn from the seed as nnx does.

#include "io/float_array.h"
#include "layer/eigen_types.h"
#include "layer/layer_config.h"
#include "nnx/nnx_init.h"

#include <optional>
#include <string>
#include <vector>

namespace tp {

/// Where a scene's arrays come from when they come from files. Each is "FILE.npy" or
/// "FILE.safetensors:TENSOR_NAME"; empty means drawn from the seed.
struct ArrayFiles {
    std::string kernel;      ///< (inDim, features); sets inDim and features
    bool transpose = false;  ///< the kernel file holds (features, inDim), as PyTorch's Linear
    std::string bias;        ///< (features,); otherwise config.bias from the seed (zeros default)
    std::string x;           ///< (batch, inDim); sets batch; otherwise drawn from the seed

    bool any() const { return !kernel.empty() || !bias.empty() || !x.empty(); }
    bool operator==(const ArrayFiles&) const = default;
};

/// "FILE.safetensors:NAME" split into the file and the tensor name (at the first ':' after
/// ".safetensors"); any other text is a file with no tensor name.
struct ArraySpec {
    std::string file;
    std::optional<std::string> tensor;
};
ArraySpec splitArraySpec(const std::string& text);
std::string joinArraySpec(const ArraySpec& spec);

/// Reads the array a spec names: an .npy file, or a tensor of a .safetensors file (then
/// `transpose` may swap its two axes). A .safetensors file needs a tensor name (refused without
/// one, listing its 2-D tensors), an .npy none. An allocation that fails is refused in words.
FloatArrayRead readArrayFile(const std::string& spec, bool transpose, std::int64_t maxBytes);

/// The arrays read from files, before the others are drawn.
struct LoadedArrays {
    std::optional<Matrix> kernel;
    std::optional<RowVector> bias;
    std::optional<Matrix> x;
    std::vector<std::string> notices;  ///< e.g. "kernel: w.npy: converted from float64 ..."
};

/// Which sizes the caller set explicitly: a file's shape must agree with them.
struct FixedSizes {
    bool batch = false;
    bool inDim = false;
    bool features = false;
};

struct LoadedArraysRead {
    LoadedArrays arrays;
    std::vector<std::string>
        errors;  ///< each tagged "kernel: ", "bias: " or "x: "; empty if usable
};

/// Reads the files named in `files` (each within config.memoryBudgetBytes). The kernel's shape
/// sets config.inDim and config.features, x's sets config.batch, unless `fixed` says they were
/// given, in which case they must agree. The bias must be (features,) and x (batch, inDim). Every
/// problem starts with the array it belongs to: "kernel: ", "bias: " or "x: " (a size that does
/// not match belongs to the array whose shape disagrees).
LoadedArraysRead loadArrayFiles(const ArrayFiles& files, LayerConfig& config, FixedSizes fixed);

/// The sizes of arrays read already, by loadArrayFiles's rule: the kernel's (in_dim, features)
/// set config.inDim and config.features, x's (batch, in_dim) config.batch (and in_dim when no
/// kernel does), the bias's (features,) config.features when no kernel does; a size `fixed` says
/// was given, or one the kernel set, must agree instead. Each disagreement is added to `errors`,
/// tagged with the array whose shape disagrees.
void takeArrayShapes(const LoadedArrays& arrays, LayerConfig& config, FixedSizes fixed,
                     std::vector<std::string>& errors);

/// The full arrays of a scene: the loaded ones, and the others drawn exactly as initLayer draws
/// them (kernel lecun_normal, bias config.bias, x standard normal, each from its own key).
/// config must be valid and agree with the loaded shapes. Takes the loaded arrays over (no copy).
LayerParams completeLayerParams(const LayerConfig& config, LoadedArrays loaded);

}  // namespace tp
