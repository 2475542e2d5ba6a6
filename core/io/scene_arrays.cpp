#include "scene_arrays.h"

#include "npy.h"

#include <filesystem>
#include <system_error>

namespace tp {
namespace {

// Each array with its file name; `vector` marks the 1-D bias.
struct NamedView {
    std::string name;
    const Matrix* matrix = nullptr;
    const RowVector* vector = nullptr;
};

std::vector<NamedView> arraysOf(const Scene& scene) {
    std::vector<NamedView> arrays = {{"kernel.npy", &scene.params.kernel, nullptr},
                                     {"bias.npy", nullptr, &scene.params.bias},
                                     {"x.npy", &scene.params.x, nullptr}};
    const auto& partials = scene.result.partials;
    for (std::size_t k = 0; k < partials.size(); ++k)
        arrays.push_back({"partial_" + std::to_string(k) + ".npy", &partials[k], nullptr});
    const auto& sums = scene.result.runningSums;
    for (std::size_t k = 0; k < sums.size(); ++k)
        arrays.push_back({"running_sum_" + std::to_string(k) + ".npy", &sums[k], nullptr});
    arrays.push_back({"output.npy", &scene.result.output, nullptr});
    arrays.push_back({"reference.npy", &scene.reference, nullptr});
    return arrays;
}

}  // namespace

std::vector<std::string> sceneArrayFileNames(const Scene& scene) {
    std::vector<std::string> names;
    for (const NamedView& array : arraysOf(scene))
        names.push_back(array.name);
    return names;
}

std::string saveSceneArrays(const Scene& scene, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return dir + ": the folder cannot be created: " + ec.message();
    for (const NamedView& array : arraysOf(scene)) {
        const std::string path = (std::filesystem::path(dir) / array.name).string();
        const std::string error =
            array.vector ? writeNpy(path, *array.vector, true) : writeNpy(path, *array.matrix);
        if (!error.empty())
            return error;
    }
    return "";
}

}  // namespace tp
