#include "scene/scene_arrays.h"

#include "io/npy.h"
#include "io/staged_file.h"
#include "scene/mlp_scene.h"
#include "scene/scene_backward.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tp {
namespace {

// Each array with its file name; `vector` marks the 1-D bias. A running sum is kept nowhere: it
// is named by the group it ends at and made when written.
struct NamedView {
    std::string name;
    const Matrix* matrix = nullptr;
    const RowVector* vector = nullptr;
    Index runningSumAfter = -1;
};

// The MLP block's arrays: both layers' parameters, x, h, a, linear2's partial sums, the output
// and the reference's, and with the backward pass dy and the gradients.
std::vector<NamedView> mlpArraysOf(const MlpScene& s) {
    std::vector<NamedView> arrays = {{"kernel1.npy", &s.params.kernel1, nullptr},
                                     {"bias1.npy", nullptr, &s.params.bias1},
                                     {"kernel2.npy", &s.params.kernel2, nullptr},
                                     {"bias2.npy", nullptr, &s.params.bias2},
                                     {"x.npy", &s.params.x, nullptr},
                                     {"h.npy", &s.split.h, nullptr},
                                     {"a.npy", &s.split.a, nullptr}};
    for (std::size_t k = 0; k < s.split.partials.size(); ++k)
        arrays.push_back({"partial_" + std::to_string(k) + ".npy", &s.split.partials[k], nullptr});
    arrays.push_back({"output.npy", &s.split.output, nullptr});
    arrays.push_back({"reference.npy", &s.reference.output, nullptr});
    if (s.backward) {
        const MlpGradients& g = s.backward->split.gradients;
        arrays.push_back({"dy.npy", &s.backward->dy, nullptr});
        arrays.push_back({"dx.npy", &g.dx, nullptr});
        arrays.push_back({"dkernel1.npy", &g.dkernel1, nullptr});
        arrays.push_back({"dbias1.npy", nullptr, &g.dbias1});
        arrays.push_back({"dkernel2.npy", &g.dkernel2, nullptr});
        arrays.push_back({"dbias2.npy", nullptr, &g.dbias2});
    }
    return arrays;
}

std::vector<NamedView> arraysOf(const Scene& scene, const SceneBackward* backward) {
    if (scene.mlp)
        return mlpArraysOf(*scene.mlp);
    std::vector<NamedView> arrays = {{"kernel.npy", &scene.params.kernel, nullptr},
                                     {"bias.npy", nullptr, &scene.params.bias},
                                     {"x.npy", &scene.params.x, nullptr}};
    const auto& partials = scene.result.partials;
    for (std::size_t k = 0; k < partials.size(); ++k)
        arrays.push_back({"partial_" + std::to_string(k) + ".npy", &partials[k], nullptr});
    if (scene.result.partialsAdded)
        for (std::size_t k = 0; k < partials.size(); ++k)
            arrays.push_back(
                {"running_sum_" + std::to_string(k) + ".npy", nullptr, nullptr, Index(k)});
    arrays.push_back({"output.npy", &scene.result.output, nullptr});
    arrays.push_back({"reference.npy", &scene.reference, nullptr});
    if (backward) {
        const Gradients& g = backward->result.gradients;
        arrays.push_back({"dy.npy", &backward->dy, nullptr});
        arrays.push_back({"dx.npy", &g.dx, nullptr});
        arrays.push_back({"dkernel.npy", &g.dkernel, nullptr});
        arrays.push_back({"dbias.npy", nullptr, &g.dbias});
    }
    return arrays;
}

}  // namespace

std::vector<std::string> sceneArrayFileNames(const Scene& scene, const SceneBackward* backward) {
    std::vector<std::string> names;
    for (const NamedView& array : arraysOf(scene, backward))
        names.push_back(array.name);
    return names;
}

bool isSceneArrayFileName(const std::string& name) {
    for (const char* fixed :
         {"kernel.npy", "bias.npy", "x.npy", "output.npy", "reference.npy", "dy.npy", "dx.npy",
          "dkernel.npy", "dbias.npy", "kernel1.npy", "bias1.npy", "kernel2.npy", "bias2.npy",
          "h.npy", "a.npy", "dkernel1.npy", "dbias1.npy", "dkernel2.npy", "dbias2.npy"})
        if (name == fixed)
            return true;
    for (const std::string prefix : {"partial_", "running_sum_"}) {
        if (!name.starts_with(prefix) || !name.ends_with(".npy"))
            continue;
        const std::string index = name.substr(prefix.size(), name.size() - prefix.size() - 4);
        return !index.empty() && index.size() <= 19 && (index == "0" || index[0] != '0') &&
               std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
    }
    return false;
}

std::string sceneArrayFolderProblem(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(dir, ec);
    if (status.type() == fs::file_type::not_found) {
        if (fs::is_symlink(fs::symlink_status(dir, ec)))
            return dir + ": is a link to " + fs::read_symlink(dir, ec).string() +
                   ", which does not exist; --save-npy writes into a folder, never through a "
                   "link that leads nowhere: remove the link or choose another folder";
        return "";
    }
    if (ec)
        return dir + ": the folder cannot be read: " + ec.message();
    if (status.type() != fs::file_type::directory)
        return dir + ": is not a folder";
    std::vector<std::string> foreign;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const fs::file_type type = it->symlink_status(ec).type();
        if (ec)
            break;
        if (!isSceneArrayFileName(name))
            foreign.push_back(name);
        else if (type != fs::file_type::regular && type != fs::file_type::symlink)
            return dir + ": " + name +
                   " is not a file, and --save-npy writes a file of that name; remove it or "
                   "choose another folder";
    }
    if (ec)
        return dir + ": the folder cannot be read: " + ec.message();
    if (foreign.empty())
        return "";
    std::sort(foreign.begin(), foreign.end());
    std::string names = foreign.front();
    const std::size_t shown = std::min<std::size_t>(foreign.size(), 3);
    for (std::size_t i = 1; i < shown; ++i)
        names += (i + 1 == foreign.size() ? " and " : ", ") + foreign[i];
    if (foreign.size() > shown)
        names += " and " + std::to_string(foreign.size() - shown) + " more";
    return dir + ": holds " + names + (foreign.size() == 1 ? ", which is" : ", which are") +
           " not arrays tpviz writes; --save-npy writes into a new or empty folder, or one holding "
           "only the arrays it wrote before (which it replaces), so that the folder holds one "
           "scene's arrays; choose another folder";
}

std::string saveSceneArrays(const Scene& scene, const std::string& dir,
                            const SceneBackward* backward) {
    namespace fs = std::filesystem;
    if (std::string problem = sceneArrayFolderProblem(dir); !problem.empty())
        return problem;
    std::error_code ec;
    const bool created = fs::create_directories(dir, ec);
    if (ec)
        return dir + ": the folder cannot be created: " + ec.message();
    const auto removeCreated = [&] {
        if (created)
            fs::remove(dir, ec);
    };

    std::vector<StagedFile> files;
    Matrix sum;  // the running sum after the group last written, one addition per group
    for (const NamedView& array : arraysOf(scene, backward)) {
        files.emplace_back((fs::path(dir) / array.name).string());
        const Index k = array.runningSumAfter;
        if (k >= 0)
            sum = nextRunningSum(scene.result, sum, k);
        const std::string error = array.vector ? writeNpy(files.back(), *array.vector, true)
                                  : k >= 0     ? writeNpy(files.back(), sum)
                                               : writeNpy(files.back(), *array.matrix);
        if (!error.empty()) {
            files.clear();
            removeCreated();
            return error + "; nothing in " + dir + " was changed";
        }
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (const std::string error = files[i].commit(); !error.empty()) {
            for (std::size_t j = 0; j < i; ++j)
                fs::remove(files[j].path(), ec);
            files.clear();
            removeCreated();
            return error + "; the arrays this run had put in " + dir + " were removed";
        }
    }

    const std::vector<std::string> written = sceneArrayFileNames(scene, backward);
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (isSceneArrayFileName(name) &&
            std::find(written.begin(), written.end(), name) == written.end())
            stale.push_back(it->path());
    }
    for (const fs::path& path : stale)
        if (!ec)
            fs::remove(path, ec);  // a link itself, never its target
    if (ec)
        return dir + ": the arrays of an earlier scene cannot be removed: " + ec.message();
    return "";
}

}  // namespace tp
