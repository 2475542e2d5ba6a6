// The check in words: the names of its rule and verdict, the rule explained for --help, and why a
// verdict is inconclusive.

#include "layer/verification.h"

#include <cstdio>
#include <string>

namespace tp {

std::string_view toString(CheckRule rule) {
    return rule == CheckRule::RoundingBound ? "rounding-bound" : "allclose";
}

std::string_view toString(Verdict verdict) {
    switch (verdict) {
        case Verdict::Passed:
            return "passed";
        case Verdict::Failed:
            return "failed";
        case Verdict::Inconclusive:
            break;
    }
    return "inconclusive";
}

std::string checkRuleHelp() {
    const std::string share = "1/" + std::to_string(int(1.0 / kResolutionShare));
    char lambda[16];
    std::snprintf(lambda, sizeof lambda, "%g", kRoundingLambda);
    const std::string lines[] = {
        "The check (rounding-bound, the default): every element of the output within",
        "  2 * min(gamma~(K + 1), gamma(K + 1)) * (|x| @ |kernel| + |bias|) of x @ kernel + bias,",
        "  K = in_dim, u = 2^-24, gamma~(n) = exp(" + std::string(lambda) +
            " * sqrt(n) * u + n * u^2 / (1 - u)) - 1",
        "  (Higham and Mary's probabilistic bound: with lambda " + std::string(lambda) +
            " a correct split exceeds it",
        "  with a chance below 1e-9 at any size), gamma(n) = n * u / (1 - n * u) (the worst case,",
        "  which no correct split exceeds on any data).",
        "  passed: every element within the bound and the bound at most " + share +
            " of the values'",
        "    size (root mean square), or every element bit-identical;",
        "  failed: an element beyond the worst case, a NaN or an infinity, or another shape;",
        "  inconclusive: an element between the two bounds, or rounding alone may reach more than",
        "    " + share + " of the values' size, so that a wrong computation could hide under it.",
        "Exit status: 0 passed, 1 failed or inconclusive, 2 invalid input.",
    };
    std::string text;
    for (const std::string& line : lines)
        text += line + '\n';
    return text;
}

std::string inconclusiveReason(const Verification& v) {
    if (v.verdict != Verdict::Inconclusive)
        return {};
    const auto figure = [](double value) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g", value);
        return std::string(text);
    };
    if (v.overBound > 0)
        return std::to_string(v.overBound) + " of " + std::to_string(v.elements) +
               " elements exceed the rounding bound (the worst " + figure(v.maxErrorOverBound) +
               " times it) but not its worst case (" + figure(v.maxErrorOverWorstCase) +
               " of it): more than independent roundings give, but within what roundings that "
               "agree can reach, as on constant arrays";
    return "summing " + std::to_string(v.inDim) + " terms, float32 rounding alone may reach " +
           figure(v.resolution) + ", more than 1/" + std::to_string(int(1.0 / kResolutionShare)) +
           " of the values' size (root mean square " + figure(v.valueScale) +
           "): an error the size of a wrong computation could hide under it";
}

}  // namespace tp
