#include "io/array_source.h"

#include "io/file_text.h"
#include "io/npy.h"
#include "io/safetensors.h"

#include <algorithm>
#include <cassert>
#include <new>
#include <utility>

namespace tp {

ArraySpec splitArraySpec(const std::string& text) {
    constexpr std::string_view kSuffix = ".safetensors:";
    const auto at = text.find(kSuffix);
    if (at == std::string::npos)
        return {text, std::nullopt};
    const auto colon = at + kSuffix.size() - 1;
    return {text.substr(0, colon), text.substr(colon + 1)};
}

std::string joinArraySpec(const ArraySpec& spec) {
    return spec.tensor ? spec.file + ":" + *spec.tensor : spec.file;
}

namespace {

FloatArrayRead readSpec(const ArraySpec& spec, bool transpose, std::int64_t maxBytes) {
    if (spec.tensor)
        return readSafetensor(spec.file, *spec.tensor, transpose, maxBytes);
    if (spec.file.ends_with(".safetensors")) {
        const SafetensorsIndexRead index = readSafetensorsIndex(spec.file);
        if (!index.index)
            return {std::nullopt, index.error};
        return {std::nullopt, printablePath(spec.file) +
                                  ": name the tensor to read as FILE.safetensors:TENSOR_NAME "
                                  "(its 2-D tensors: " +
                                  listedNames(index.index->twoDimensionalNames()) + ")"};
    }
    if (transpose)
        return {std::nullopt, printablePath(spec.file) +
                                  ": transposing applies to a kernel from a .safetensors file"};
    return readNpy(spec.file, maxBytes);
}

}  // namespace

FloatArrayRead readArrayFile(const std::string& text, bool transpose, std::int64_t maxBytes) {
    const ArraySpec spec = splitArraySpec(text);
    try {
        return readSpec(spec, transpose, maxBytes);
    } catch (const std::bad_alloc&) {  // within the budget, but over what the system gives
        return {std::nullopt, printablePath(spec.file) +
                                  ": not enough memory to read it: an allocation failed within "
                                  "the memory budget of " +
                                  formatBytes(maxBytes) + "; choose a smaller array"};
    }
}

namespace {

// Reads one file, tagging its error and notice with the array's name.
std::optional<FloatArray> readTagged(const char* what, const std::string& spec, bool transpose,
                                     std::int64_t maxBytes, LoadedArraysRead& read) {
    FloatArrayRead result = readArrayFile(spec, transpose, maxBytes);
    if (!result.array) {
        read.errors.push_back(std::string(what) + ": " + result.error);
        return std::nullopt;
    }
    const std::vector<std::int64_t>& shape = result.array->shape;
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        // A size of 0 would reach the layer's own check, which cannot name the file.
        read.errors.push_back(std::string(what) + ": " + printablePath(splitArraySpec(spec).file) +
                              " has shape " + shapeText(shape) +
                              ", an empty array; every size of a layer is at least 1");
        return std::nullopt;
    }
    if (!result.array->notice.empty())
        read.arrays.notices.push_back(std::string(what) + ": " +
                                      printablePath(splitArraySpec(spec).file) + ": " +
                                      result.array->notice);
    return std::move(result.array);
}

// Sets a size from an array's dimension, or checks it against the size the caller fixed; a
// mismatch is the problem of the array `tag` names ("kernel", "bias" or "x").
void takeSize(std::int64_t& size, bool fixed, std::int64_t fromFile, const std::string& sizeName,
              const char* tag, const std::string& what, std::vector<std::string>& errors) {
    if (!fixed)
        size = fromFile;
    else if (size != fromFile)
        errors.push_back(std::string(tag) + ": " + sizeName + " (" + std::to_string(size) +
                         ") does not match " + what);
}

}  // namespace

void takeArrayShapes(const LoadedArrays& arrays, LayerConfig& config, FixedSizes fixed,
                     std::vector<std::string>& errors) {
    if (arrays.kernel) {
        const std::vector<std::int64_t> shape{arrays.kernel->rows(), arrays.kernel->cols()};
        const std::string what = "the kernel's shape " + shapeText(shape) + ", (in_dim, features)";
        takeSize(config.inDim, fixed.inDim, shape[0], "in_dim", "kernel", what, errors);
        takeSize(config.features, fixed.features, shape[1], "features", "kernel", what, errors);
    }
    if (arrays.x) {
        const std::vector<std::int64_t> shape{arrays.x->rows(), arrays.x->cols()};
        const std::string what = "x's shape " + shapeText(shape) + ", (batch, in_dim)";
        takeSize(config.batch, fixed.batch, shape[0], "batch", "x", what, errors);
        // The kernel (or --in-dim) fixes in_dim first; x must then agree with it.
        takeSize(config.inDim, fixed.inDim || arrays.kernel.has_value(), shape[1], "in_dim", "x",
                 what, errors);
    }
    if (arrays.bias) {
        const std::int64_t features = arrays.bias->size();
        takeSize(config.features, fixed.features || arrays.kernel.has_value(), features, "features",
                 "bias", "the bias's shape " + shapeText({features}) + ", (features,)", errors);
    }
}

LoadedArraysRead loadArrayFiles(const ArrayFiles& files, LayerConfig& config, FixedSizes fixed) {
    LoadedArraysRead read;
    const std::int64_t budget = config.memoryBudgetBytes;
    if (!files.kernel.empty()) {
        if (auto kernel = readTagged("kernel", files.kernel, files.transpose, budget, read)) {
            if (kernel->shape.size() != 2)
                read.errors.push_back("kernel: " + printablePath(files.kernel) + " has shape " +
                                      shapeText(kernel->shape) +
                                      "; a kernel is 2-D, (in_dim, features)");
            else
                read.arrays.kernel = std::move(kernel->values);
        }
    } else if (files.transpose) {
        read.errors.push_back("kernel: transposing applies to a kernel from a .safetensors file");
    }
    if (!files.x.empty()) {
        if (auto x = readTagged("x", files.x, false, budget, read)) {
            if (x->shape.size() != 2)
                read.errors.push_back("x: " + printablePath(files.x) + " has shape " +
                                      shapeText(x->shape) + "; x is 2-D, (batch, in_dim)");
            else
                read.arrays.x = std::move(x->values);
        }
    }
    if (!files.bias.empty()) {
        if (auto bias = readTagged("bias", files.bias, false, budget, read)) {
            if (bias->shape.size() != 1)
                read.errors.push_back("bias: " + printablePath(files.bias) + " has shape " +
                                      shapeText(bias->shape) + "; a bias is 1-D, (features,)");
            else
                read.arrays.bias = RowVector(bias->values.row(0));
        }
    }
    takeArrayShapes(read.arrays, config, fixed, read.errors);
    return read;
}

LayerParams completeLayerParams(const LayerConfig& config, LoadedArrays loaded) {
    assert(config.validate().empty());
    const IndexRange inRows{0, Index(config.inDim)};
    const IndexRange featureCols{0, Index(config.features)};
    LayerParams params;
    params.kernel =
        loaded.kernel ? std::move(*loaded.kernel) : kernelBlock(config, inRows, featureCols);
    params.bias = loaded.bias ? std::move(*loaded.bias) : biasSlice(config, featureCols);
    params.x =
        loaded.x ? std::move(*loaded.x) : inputBlock(config, {0, Index(config.batch)}, inRows);
    assert(params.kernel.rows() == config.inDim && params.kernel.cols() == config.features);
    assert(params.bias.size() == config.features);
    assert(params.x.rows() == config.batch && params.x.cols() == config.inDim);
    return params;
}

}  // namespace tp
