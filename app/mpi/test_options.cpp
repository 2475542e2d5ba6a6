#include "test_options.h"

#include "layer/layer_config.h"

namespace tp::mpi {
namespace {

// Removes "name VALUE" or "name=VALUE" from args; the value, or nullopt when absent. A missing
// value is an error.
std::optional<std::string> takeValue(std::vector<std::string>& args, const std::string& name,
                                     std::vector<std::string>& errors) {
    for (auto it = args.begin(); it != args.end(); ++it) {
        if (it->rfind(name + "=", 0) == 0) {
            std::string value = it->substr(name.size() + 1);
            args.erase(it);
            return value;
        }
        if (*it != name)
            continue;
        if (std::next(it) == args.end()) {
            errors.push_back(name + " needs a value");
            args.erase(it);
            return std::nullopt;
        }
        std::string value = *std::next(it);
        args.erase(it, std::next(it, 2));
        return value;
    }
    return std::nullopt;
}

}  // namespace

TestOptions takeTestOptions(std::vector<std::string>& args) {
    TestOptions options;
    if (const auto value = takeValue(args, "--fail-rank", options.errors)) {
        FailureDrill drill;
        const std::size_t colon = value->find(':');
        const std::optional<std::int64_t> rank = parseInt64(value->substr(0, colon));
        if (colon != std::string::npos && value->substr(colon + 1) != "signal")
            options.errors.push_back("--fail-rank (" + *value +
                                     "): the failure after ':' must be \"signal\"");
        else if (!rank || *rank < 0 || *rank > (1 << 20))
            options.errors.push_back("--fail-rank (" + *value + "): R must be a rank number");
        else {
            drill.rank = int(*rank);
            drill.kind =
                colon == std::string::npos ? FailureDrill::Kind::Alloc : FailureDrill::Kind::Signal;
            options.drill = drill;
        }
    }
    if (const auto value = takeValue(args, "--memory-budget", options.errors)) {
        const std::optional<std::int64_t> bytes = parseInt64(*value);
        if (!bytes || *bytes <= 0)
            options.errors.push_back("--memory-budget (" + *value +
                                     ") must be a positive number of bytes");
        else
            options.memoryBudget = bytes;
    }
    if (const auto value = takeValue(args, "--skip-collective", options.errors)) {
        if (*value == "dy" || *value == "dx" || *value == "dkernel" || *value == "dbias" ||
            *value == "partials")
            options.skippedCollective = *value;
        else
            options.errors.push_back("--skip-collective (" + *value +
                                     ") must name dy, dx, dkernel or dbias, or the MLP block's "
                                     "partials or dx");
    }
    return options;
}

std::string skippedCollectiveProblem(const TestOptions& options, Block block) {
    const std::string& of = options.skippedCollective;
    if (of.empty() || of == "dx")
        return {};
    if (block == Block::Mlp && of != "partials")
        return "--skip-collective (" + of +
               "): the MLP block's collectives are the all-reduces of the partial sums "
               "(partials) and of dx";
    if (block == Block::Linear && of == "partials")
        return "--skip-collective (partials): the all-reduce of linear2's partial sums is the "
               "MLP block's; add --block mlp";
    return {};
}

}  // namespace tp::mpi
