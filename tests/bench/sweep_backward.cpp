// The backward pass's check over a sweep of shapes up to batch 4096 and in_dim 16384, both modes,
// on a data axis of 2. Run by hand:
//   build/tests/bench/sweep_backward [--largest-batch N]
// Every gradient of a correct split must pass or be inconclusive, never fail. One line per scene
// and gradient: its verdict, its K, the largest error / rounding bound and the resolution against
// the values' size, and the seconds the backward pass and its check took (dy drawn, the groups'
// gradients, the reference, the three checks); then the worst error / bound of each gradient over
// the sweep. Exits 1 when a correct gradient fails.

#include "scene/scene.h"
#include "scene/scene_backward.h"
#include "scene/scene_request.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace tp;

namespace {

struct Shape {
    std::int64_t batch, inDim, features, tp;
};

// Each within the 2 GiB budget with the backward's arrays: the largest, (4096, 16384, 16) in
// column mode, holds x, dx, its reference and two dx partials of 256 MiB each, and x^T for the
// check of dkernel.
constexpr Shape kShapes[] = {
    {8, 4096, 16384, 8},    // the layer of docs/cli.md's backward costs: a wide kernel, few rows
    {64, 16384, 1024, 4},   // in_dim at its largest
    {1024, 4096, 512, 4},   //
    {4096, 1024, 1024, 8},  // batch at its largest: dkernel and dbias sum 4096 terms
    {4096, 16384, 16, 2},   // both at their largest
};

}  // namespace

int main(int argc, char** argv) {
    std::int64_t largestBatch = 4096;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--largest-batch") == 0)
            largestBatch = std::atoll(argv[i + 1]);
    int failed = 0;
    double worst[3] = {0, 0, 0};
    const char* names[3] = {"dx", "dkernel", "dbias"};
    std::printf("%-20s %-6s %3s %2s %-8s %6s %-13s %11s %11s %11s %8s\n", "batch x in x feat",
                "mode", "tp", "D", "gradient", "K", "verdict", "err/bound", "resolution", "values",
                "seconds");
    for (const Shape& s : kShapes) {
        if (s.batch > largestBatch)
            continue;
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            LayerConfig config{.batch = s.batch,
                               .inDim = s.inDim,
                               .features = s.features,
                               .tpSize = s.tp,
                               .seed = s.batch + s.inDim,
                               .mode = mode};
            config.dataSize = 2;
            if (!config.validate().empty()) {
                std::printf("skipped %lld x %lld x %lld %s: %s\n", (long long)s.batch,
                            (long long)s.inDim, (long long)s.features,
                            std::string(toString(mode)).c_str(),
                            config.validate().front().message.c_str());
                continue;
            }
            const auto scene = computeScene({config, SceneSource::Nnx});
            const auto start = std::chrono::steady_clock::now();
            const SceneBackward backward = computeBackward(*scene);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const BackwardVerification& b = backward.verification;
            const Verification* checks[3] = {&b.dx, &b.dkernel, &b.dbias};
            const std::string shape = std::to_string(s.batch) + "x" + std::to_string(s.inDim) +
                                      "x" + std::to_string(s.features);
            for (int g = 0; g < 3; ++g) {
                const Verification& v = *checks[g];
                failed += v.verdict == Verdict::Failed ? 1 : 0;
                worst[g] = std::max(worst[g], v.maxErrorOverBound);
                std::printf(
                    "%-20s %-6s %3lld %2lld %-8s %6lld %-13s %11.3g %11.3g %11.3g %8.2f%s\n",
                    shape.c_str(), std::string(toString(mode)).c_str(), (long long)config.tpSize,
                    (long long)config.dataSize, names[g], (long long)v.inDim,
                    std::string(toString(v.verdict)).c_str(), v.maxErrorOverBound, v.resolution,
                    v.valueScale, seconds, v.verdict == Verdict::Failed ? "   <-- FAILED" : "");
            }
            std::fflush(stdout);
        }
    }
    std::printf(
        "\nworst error / rounding bound over the sweep: dx %.3g, dkernel %.3g, dbias %.3g\n"
        "%d correct gradients failed\n",
        worst[0], worst[1], worst[2], failed);
    return failed == 0 ? 0 : 1;
}
