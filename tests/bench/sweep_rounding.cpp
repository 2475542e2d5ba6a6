// The rounding check over a sweep of correct splits of real nnx.Linear layers: how close each
// comes to its bound, and what the check costs next to the forward pass. Run by hand:
//   build/tests/bench/sweep_rounding [--quick] [SHAPE...]
// --quick: one seed, 3 timing repetitions; SHAPE: indices into the list below, to run only those.
// One line per scene: the largest error / roundingBound over every element (from the full
// magnitude product), the same figure as verify() reports it, the constant a sqrt(K) estimate
// |y - ref| <= c * sqrt(K + 1) * u * s would have needed, and the median time of verify() against
// the median time of the split forward pass (medians of 5, measured back to back).

#include "layer/forward.h"
#include "layer/verification.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include "bench_arrays.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace tp;
using namespace tp::bench;

namespace {

struct Shape {
    std::int64_t batch, inDim, features, tp;
};

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::vector<std::size_t> only;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else
            only.push_back(std::size_t(std::atoi(argv[i])));
    }
    const std::vector<Shape> shapes = {
        {2, 8, 12, 4},        {16, 128, 256, 8},     {256, 256, 256, 64},   {64, 1024, 1024, 8},
        {1, 4096, 64, 64},    {256, 1024, 4096, 64}, {64, 4096, 4096, 8},   {8, 16384, 4096, 16},
        {4, 2048, 2048, 2},   {256, 16384, 64, 64},  {256, 4096, 1024, 16}, {1, 16384, 4096, 8},
        {128, 4096, 4096, 4}, {256, 2048, 8192, 32},
    };
    const std::vector<std::int64_t> seeds =
        quick ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{0, 1, 2};
    double worstRatio = 0.0, worstSqrt = 0.0, worstCost = 0.0;
    std::printf("%-24s %-6s %-13s %4s %-5s %11s %11s %9s %9s %9s %6s\n", "shape", "mode", "prng",
                "seed", "bias", "max ratio", "reported", "sqrt c", "check ms", "fwd ms", "cost");
    for (std::size_t index = 0; index < shapes.size(); ++index) {
        if (!only.empty() && std::find(only.begin(), only.end(), index) == only.end())
            continue;
        const Shape& shape = shapes[index];
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            for (const PrngLayout prng : {PrngLayout::Partitionable, PrngLayout::Legacy}) {
                for (const std::int64_t seed : seeds) {
                    LayerConfig config{.batch = shape.batch,
                                       .inDim = shape.inDim,
                                       .features = shape.features,
                                       .tpSize = shape.tp,
                                       .seed = seed,
                                       .mode = mode,
                                       .prng = prng};
                    if (seed % 2 == 1)
                        config.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
                    if (!config.validate().empty())
                        continue;
                    const auto scene = computeScene({config, SceneSource::Nnx});
                    const LayerParams& p = scene->params;
                    const Matrix s = magnitudes(p.x, p.kernel, p.bias);
                    const Index k = config.inDim;
                    double maxRatio = 0.0, maxSqrt = 0.0;
                    for (Index r = 0; r < s.rows(); ++r)
                        for (Index c = 0; c < s.cols(); ++c) {
                            const double error = std::abs(double(scene->result.output(r, c)) -
                                                          double(scene->reference(r, c)));
                            maxRatio = std::max(maxRatio, error / roundingBound(s(r, c), k));
                            maxSqrt = std::max(
                                maxSqrt, error / (std::sqrt(double(k + 1)) * 0x1p-24 * s(r, c)));
                        }
                    const ShardingPlan plan = ShardingPlan::make(config);
                    std::vector<double> checkTimes, forwardTimes;
                    for (int rep = 0; rep < (quick ? 3 : 5); ++rep) {
                        forwardTimes.push_back(
                            seconds([&] { forwardParallel(p.x, p.kernel, p.bias, plan); }));
                        checkTimes.push_back(seconds([&] {
                            verify(scene->result.output, scene->reference, p.x, p.kernel, p.bias);
                        }));
                    }
                    const double check = median(checkTimes), forward = median(forwardTimes);
                    worstRatio = std::max(worstRatio, maxRatio);
                    worstSqrt = std::max(worstSqrt, maxSqrt);
                    worstCost = std::max(worstCost, check / forward);
                    char name[64];
                    std::snprintf(name, sizeof name, "(%lld, %lld, %lld) tp %lld",
                                  (long long)shape.batch, (long long)shape.inDim,
                                  (long long)shape.features, (long long)shape.tp);
                    std::printf(
                        "%-24s %-6s %-13s %4lld %-5s %11.3g %11.3g %9.3g %9.3f %9.3f %6.3f\n", name,
                        mode == ParallelMode::Column ? "column" : "row",
                        prng == PrngLayout::Legacy ? "legacy" : "partitionable", (long long)seed,
                        seed % 2 == 1 ? "0.5" : "zeros", maxRatio,
                        scene->verification.maxErrorOverBound, maxSqrt, check * 1e3, forward * 1e3,
                        check / forward);
                    std::fflush(stdout);
                }
            }
        }
    }
    std::printf(
        "\nlargest error/bound %.3g, largest sqrt(K) constant %.3g, largest check/forward %.3f\n",
        worstRatio, worstSqrt, worstCost);
    return 0;
}
