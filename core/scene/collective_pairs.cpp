#include "scene/collective_pairs.h"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace tp {
namespace {

// The collectives of `collectives` along `axis`.
std::vector<StepCollective> along(const std::vector<StepCollective>& collectives, MeshAxis axis) {
    std::vector<StepCollective> kept;
    std::copy_if(collectives.begin(), collectives.end(), std::back_inserter(kept),
                 [axis](const StepCollective& c) { return c.axis == axis; });
    return kept;
}

// The kind of the collective of `of` in `collectives`, None when it has none.
CollectiveKind kindOf(const std::vector<StepCollective>& collectives, std::string_view of) {
    const auto it = std::find_if(collectives.begin(), collectives.end(),
                                 [of](const StepCollective& c) { return c.of == of; });
    return it == collectives.end() ? CollectiveKind::None : it->kind;
}

std::string listed(const std::vector<StepCollective>& collectives, const std::string& none) {
    if (collectives.empty())
        return none;
    std::string text;
    for (const StepCollective& c : collectives)
        text += (text.empty() ? "" : ", ") + describe(c);
    return text;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const std::string& p : parts)
        text += (text.empty() ? "" : "; ") + p;
    return text;
}

// How one mode's collectives over "model" pair, from their kinds: x's (nothing forward) with
// dx's, y's with dy's.
std::string modelPair(const std::vector<StepCollective>& forward,
                      const std::vector<StepCollective>& backward) {
    std::vector<std::string> pairs;
    const CollectiveKind y = forward.empty() ? CollectiveKind::None : forward.front().kind;
    const CollectiveKind dy = kindOf(backward, "dy");
    if (kindOf(backward, "dx") == CollectiveKind::AllReduce)
        pairs.push_back("f: the identity forward (x is on every device), an all-reduce backward");
    if (y == CollectiveKind::AllReduce && dy == CollectiveKind::None)
        pairs.push_back("g: an all-reduce forward, the identity backward (dy is on every device)");
    if (y == CollectiveKind::ReduceScatter && dy == CollectiveKind::AllGather)
        pairs.push_back("the reduce-scatter's conjugate is the all-gather");
    if (y == CollectiveKind::AllGather && dy == CollectiveKind::None)
        pairs.push_back(
            "the all-gather's conjugate is a slice: each device takes its own "
            "columns of dy");
    return pairs.empty() ? "one device per data row: nothing to pair" : joined(pairs);
}

}  // namespace

ProgramCollectives programCollectives(const Timeline& program) {
    ProgramCollectives collectives;
    for (const TimelineStep& s : program.steps) {
        if (s.ringStep != 0 || s.ring.phase == RingPhase::AddBias)
            continue;  // each collective once, at its first ring step
        (s.backward ? collectives.backward : collectives.forward).push_back(s.collective);
    }
    return collectives;
}

std::vector<CollectivePairLine> collectivePairLines(const LayerConfig& config) {
    assert(config.validate().empty());
    std::vector<CollectivePairLine> lines;
    for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
        // The collectives depend on the mode, the layout, tp_size and D only: a mode the sizes do
        // not split reads its line from the same mesh with sizes it splits.
        LayerConfig c = config;
        c.mode = mode;
        if (!c.validate().empty())
            c.inDim = c.features = c.tpSize;
        const ProgramCollectives all = programCollectives(meshProgram(c, Mistake::None, true));
        const std::vector<StepCollective> forward = along(all.forward, MeshAxis::Model);
        const std::vector<StepCollective> backward = along(all.backward, MeshAxis::Model);
        lines.push_back({mode, MeshAxis::Model, listed(forward, "nothing"),
                         listed(backward, "nothing"), modelPair(forward, backward)});
        if (mode != config.mode)
            continue;
        const std::vector<StepCollective> data = along(all.backward, MeshAxis::Data);
        if (!data.empty())
            lines.push_back({mode, MeshAxis::Data, "nothing: the parameters are replicated",
                             listed(data, "nothing"),
                             "f over \"data\": data parallelism's all-reduce"});
    }
    // The line over "data" last: it belongs to both modes.
    std::stable_partition(lines.begin(), lines.end(),
                          [](const CollectivePairLine& l) { return l.axis == MeshAxis::Model; });
    return lines;
}

}  // namespace tp
