// The verdict over a sweep of in_dim: correct splits and every mistake, both modes, tp 2 and 8,
// from in_dim 8 to 2^24. Run by hand:
//   build/tests/bench/sweep_verdict [--largest K]
// Every correct split must pass or be inconclusive, never fail; every mistake must fail or be
// inconclusive, never pass. One line per scene: its verdict, the largest error / rounding bound,
// the resolution against the values' size. Then, per in_dim, the worst ratio of the correct
// splits and the smallest margin (largest error / bound) of each mistake, and from which in_dim
// each mistake's verdict is inconclusive. Exits 1 when a verdict breaks the rule.

#include "layer/mistakes.h"
#include "layer/verification.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace tp;

namespace {

struct Row {
    std::int64_t inDim = 0;
    std::string what;  // "correct column", "column init-per-group", ...
    Verdict verdict = Verdict::Passed;
    double ratio = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
    std::int64_t largest = std::int64_t(1) << 24;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--largest") == 0)
            largest = std::atoll(argv[i + 1]);
    std::vector<Row> rows;
    int broken = 0;
    std::printf("%-9s %-6s %3s %-17s %-6s %-13s %11s %11s %11s\n", "in_dim", "mode", "tp",
                "mistake", "bias", "verdict", "err/bound", "resolution", "values");
    for (std::int64_t inDim = 8; inDim <= largest; inDim *= 8) {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            for (const std::int64_t tp : {2, 8}) {
                std::vector<Mistake> mistakes{Mistake::None};
                for (const Mistake m : blockMistakes(Block::Linear))
                    mistakes.push_back(m);
                for (const Mistake mistake : mistakes) {
                    for (const bool normalBias : {false, true}) {
                        LayerConfig config{.batch = 2,
                                           .inDim = inDim,
                                           .features = 16,
                                           .tpSize = tp,
                                           .seed = inDim + tp,
                                           .mode = mode};
                        // bias-per-partial is a mistake only with a bias to add twice; the
                        // others are run with both inits.
                        if (normalBias)
                            config.bias = BiasInit{BiasInit::Kind::Normal, 1.0f};
                        else if (mistake == Mistake::BiasPerPartial)
                            continue;
                        if (!config.validate().empty() || !mistakeProblems(config, mistake).empty())
                            continue;
                        const auto scene =
                            computeScene({config, SceneSource::Nnx, SceneRun{mistake, {}}});
                        const Verification& v = scene->verification;
                        const bool wrong = mistake != Mistake::None;
                        const bool ok =
                            wrong ? v.verdict != Verdict::Passed : v.verdict != Verdict::Failed;
                        broken += ok ? 0 : 1;
                        std::printf("%-9lld %-6s %3lld %-17s %-6s %-13s %11.3g %11.3g %11.3g%s\n",
                                    (long long)inDim, std::string(toString(mode)).c_str(),
                                    (long long)tp, std::string(toString(mistake)).c_str(),
                                    normalBias ? "1" : "zeros",
                                    std::string(toString(v.verdict)).c_str(), v.maxErrorOverBound,
                                    v.resolution, v.valueScale, ok ? "" : "   <-- BROKEN");
                        std::fflush(stdout);
                        rows.push_back({inDim,
                                        wrong ? std::string(toString(mode)) + " " +
                                                    std::string(toString(mistake))
                                              : "correct " + std::string(toString(mode)),
                                        v.verdict, v.maxErrorOverBound});
                    }
                }
            }
        }
    }

    // Per in_dim and kind: correct splits' worst ratio, mistakes' smallest margin.
    std::map<std::string, std::map<std::int64_t, double>> table;
    std::map<std::string, std::int64_t> inconclusiveFrom;
    for (const Row& r : rows) {
        const bool correct = r.what.rfind("correct", 0) == 0;
        auto& cell = table[r.what];
        auto [it, fresh] = cell.emplace(r.inDim, r.ratio);
        if (!fresh)
            it->second = correct ? std::max(it->second, r.ratio) : std::min(it->second, r.ratio);
        if (r.verdict == Verdict::Inconclusive && !inconclusiveFrom.count(r.what))
            inconclusiveFrom[r.what] = r.inDim;
    }
    std::printf("\n%-28s", "in_dim:");
    for (std::int64_t k = 8; k <= largest; k *= 8)
        std::printf(" %10lld", (long long)k);
    std::printf("   inconclusive from\n");
    for (const auto& [what, cells] : table) {
        std::printf("%-28s", what.c_str());
        for (std::int64_t k = 8; k <= largest; k *= 8) {
            const auto it = cells.find(k);
            if (it == cells.end())
                std::printf(" %10s", "-");
            else
                std::printf(" %10.3g", it->second);
        }
        const auto from = inconclusiveFrom.find(what);
        if (from == inconclusiveFrom.end())
            std::printf("   never\n");
        else
            std::printf("   %lld\n", (long long)from->second);
    }
    std::printf(
        "\ncorrect splits: worst error / bound per in_dim; mistakes: smallest error / "
        "bound per in_dim (above 1 fails)\n%d verdicts break the rule\n",
        broken);
    return broken == 0 ? 0 : 1;
}
