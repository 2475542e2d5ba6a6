#include "layer/layer_config.h"

#include "layer/float_format.h"
#include "layer/range_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>

namespace tp {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// a * b, saturating at INT64_MAX; inputs are >= 0.
std::int64_t mulSat(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kInt64Max : r;
}

std::int64_t addSat(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kInt64Max : r;
}

std::string joinNumbers(const std::vector<std::int64_t>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0)
            text += ", ";
        text += std::to_string(values[i]);
    }
    return text;
}

// " Valid tp sizes: 1, 2, 4." for the divisors of n; `one` names a single value ("tp_size"),
// `many` the list ("tp sizes").
// Listing divisors takes sqrt(n) steps: past 10^12 (10^6 steps) the list is not worth a pause,
// and such a layer is refused for its memory anyway.
constexpr std::int64_t kListable = 1'000'000'000'000;

std::string validValuesText(std::int64_t n, const char* one, const char* many) {
    const auto valid = n <= kListable ? divisors(n) : std::vector<std::int64_t>{};
    std::string text;
    if (valid.empty()) {
        text = std::string(" Choose a ") + one + " that divides it";
    } else if (valid.size() <= 24) {
        text = std::string(" Valid ") + many + ": " + joinNumbers(valid);
    } else {
        text = ' ' + std::to_string(valid.size()) + ' ' + many + " divide it, from " +
               joinNumbers({valid.begin(), valid.begin() + 12}) + " to " +
               std::to_string(valid.back());
    }
    return text + '.';
}

}  // namespace

std::vector<ConfigProblem> LayerConfig::validate() const {
    std::vector<ConfigProblem> problems;
    auto requirePositive = [&](std::int64_t value, const char* name, ConfigField field) {
        if (value <= 0)
            problems.push_back({field, std::string(name) + " (" + std::to_string(value) +
                                           ") must be a positive integer"});
        return value > 0;
    };
    requirePositive(batch, "batch N", ConfigField::Batch);
    const bool inOk = requirePositive(inDim, "in_dim", ConfigField::InDim);
    const bool featuresOk = requirePositive(features, "features", ConfigField::Features);
    const bool tpOk = requirePositive(tpSize, "tp_size", ConfigField::TpSize);

    const bool column = mode == ParallelMode::Column;
    const bool mlp = block == Block::Mlp;
    if (mlp) {
        if (requirePositive(hidden, "hidden", ConfigField::Hidden) && tpOk && hidden % tpSize != 0)
            problems.push_back({ConfigField::Hidden,
                                "hidden (" + std::to_string(hidden) +
                                    ") is not divisible by tp_size (" + std::to_string(tpSize) +
                                    "): each device needs the same number of hidden features, "
                                    "linear1's columns and linear2's rows." +
                                    validValuesText(hidden, "tp_size", "tp sizes")});
    } else if (tpOk && (column ? featuresOk : inOk) && splitDim() % tpSize != 0) {
        const char* dim = column ? "features" : "in_dim";
        const char* what = column ? "columns" : "rows";
        std::string message = std::string(dim) + " (" + std::to_string(splitDim()) +
                              ") is not divisible by tp_size (" + std::to_string(tpSize) +
                              "): each group needs the same number of kernel " + what + ".";
        message += validValuesText(splitDim(), "tp_size", "tp sizes");
        problems.push_back({ConfigField::TpSize, message});
    }
    // The block runs on one row of devices and ends in one all-reduce: its output is replicated.
    if (mlp && dataSize != 1)
        problems.push_back(
            {ConfigField::Data, "the MLP block runs on one row of devices: data D (" +
                                    std::to_string(dataSize) + ") must be 1"});
    if (mlp && output == OutputLayout::Sharded)
        problems.push_back({ConfigField::Output,
                            "the MLP block's output is all-reduced, so it is replicated: a sharded "
                            "output is one Linear's"});

    const bool dataOk = requirePositive(dataSize, "data D", ConfigField::Data);
    if (dataOk && batch > 0 && batch % dataSize != 0)
        problems.push_back({ConfigField::Data,
                            "batch N (" + std::to_string(batch) + ") is not divisible by data (" +
                                std::to_string(dataSize) +
                                "): each row of devices on the data axis needs the same number of "
                                "batch rows." +
                                validValuesText(batch, "data size", "data sizes")});

    const bool sequence = layout == ShardingLayout::Sequence;
    if (layout != ShardingLayout::Tensor && mlp)
        problems.push_back({ConfigField::Layout, "the MLP block runs the tensor layout; the " +
                                                     std::string(toString(layout)) +
                                                     " layout is one Linear's"});
    // FSDP splits each device's model shard of the kernel (its rows) and of the bias over "data".
    if (layout == ShardingLayout::Fsdp && !mlp && dataOk && tpOk && inOk && featuresOk &&
        splitDim() % tpSize == 0) {
        const std::int64_t kernelRows = column ? inDim : inDim / tpSize;
        const std::int64_t biasLength = column ? features / tpSize : features;
        if (kernelRows % dataSize != 0 || biasLength % dataSize != 0)
            problems.push_back(
                {ConfigField::Layout,
                 "the fsdp layout splits each device's kernel block (" +
                     std::to_string(kernelRows) + " rows) and bias block (" +
                     std::to_string(biasLength) + " values) over data D (" +
                     std::to_string(dataSize) + "): D must divide both." +
                     validValuesText(std::gcd(kernelRows, biasLength), "data size", "data sizes")});
    }
    // Sequence parallelism splits each data row's batch rows over the model axis. D and tp_size
    // are any int64 a user types: their product is not formed unless it fits.
    if (sequence && !mlp && dataOk && tpOk && batch > 0 &&
        (batch % dataSize != 0 || (batch / dataSize) % tpSize != 0)) {
        std::int64_t devices = 0;
        const std::string product = __builtin_mul_overflow(dataSize, tpSize, &devices)
                                        ? std::to_string(dataSize) + " x " + std::to_string(tpSize)
                                        : std::to_string(devices);
        problems.push_back({ConfigField::Layout,
                            "batch N (" + std::to_string(batch) +
                                ") is not divisible by data x tp_size (" + product +
                                "): the sequence layout splits each data row's batch rows over "
                                "the model axis, the same number on every device"});
    }
    if (sequence && !mlp && output == OutputLayout::Replicated)
        problems.push_back({ConfigField::Output,
                            "the sequence layout keeps the output sharded over \"model\" (column "
                            "mode: by its columns; row mode: by its batch rows); a replicated "
                            "output is the tensor layout's"});

    // Row mode with a sharded output reduce-scatters the partial sums over features: each device
    // on the model axis keeps features / tp_size output columns (the sequence layout's
    // reduce-scatter goes along the batch rows instead).
    if (!mlp && !column && !sequence && outputLayout() == OutputLayout::Sharded && tpOk &&
        featuresOk && inOk && features % tpSize != 0) {
        std::string message = "features (" + std::to_string(features) +
                              ") is not divisible by tp_size (" + std::to_string(tpSize) +
                              "): a sharded row-parallel output is a reduce-scatter over "
                              "features, and each device keeps the same number of output columns.";
        message += validValuesText(std::gcd(inDim, features), "tp_size",
                                   "tp sizes (dividing both in_dim and features)");
        message += " Or use the replicated output (an all-reduce).";
        problems.push_back({ConfigField::Output, message});
    }

    if (bias.kind == BiasInit::Kind::Normal && !(std::isfinite(bias.stddev) && bias.stddev > 0))
        problems.push_back({ConfigField::Bias, biasStddevProblem(formatFloat(bias.stddev))});

    if (batch > 0 && inDim > 0 && features > 0 && tpSize > 0 && (!mlp || hidden > 0)) {
        const std::int64_t need = bytesNeeded(*this);
        if (need > memoryBudgetBytes)
            problems.push_back(
                {ConfigField::Memory,
                 "this scene needs " + formatBytesExactly(need) +
                     ", more than the memory budget of " + formatBytes(memoryBudgetBytes) +
                     "; choose smaller sizes" +
                     (!mlp && mode == ParallelMode::Row ? " or a smaller tp_size" : "")});
    }
    return problems;
}

std::int64_t bytesNeeded(const LayerConfig& c) {
    if (c.block == Block::Mlp)
        return mlpBytesNeeded(c);
    const std::int64_t output = mulSat(c.batch, c.features);  // one (N, features) array
    std::int64_t floats = mulSat(c.inDim, c.features);        // kernel
    floats = addSat(floats, mulSat(c.batch, c.inDim));        // x
    floats = addSat(floats, c.features);                      // bias
    floats = addSat(floats, mulSat(output, 2));               // reference and output
    // column: the partials tile one output, and from tp 4 on, where a thread's groups may run as
    // one product, making a run's partials again holds that product beside them, at most half the
    // columns (layer/forward.cpp); row: tpSize partial sums and the one running sum made on demand
    // (the step shown, the group a report writes).
    const std::int64_t intermediates = c.mode == ParallelMode::Column
                                           ? addSat(output, c.tpSize >= 4 ? output / 2 : 0)
                                           : mulSat(output, addSat(c.tpSize, 1));
    floats = addSat(floats, intermediates);
    return mulSat(floats, std::int64_t(sizeof(float)));
}

std::int64_t mlpBytesNeeded(const LayerConfig& c) {
    const std::int64_t nh = mulSat(c.batch, c.hidden);      // one (N, H) array
    const std::int64_t nf = mulSat(c.batch, c.features);    // one (N, F) array
    std::int64_t floats = mulSat(c.inDim, c.hidden);        // kernel1
    floats = addSat(floats, mulSat(c.hidden, c.features));  // kernel2
    floats = addSat(floats, addSat(c.hidden, c.features));  // the biases
    floats = addSat(floats, mulSat(c.batch, c.inDim));      // x
    // h and GeLU(h), split and reference: four (N, H) arrays; the tp partial sums of linear2,
    // the output and the reference's: tp + 2 (N, F) arrays; the check's magnitudes and bounds,
    // two (N, H) and two (N, F) more.
    floats = addSat(floats, mulSat(nh, 6));
    floats = addSat(floats, mulSat(nf, addSat(c.tpSize, 4)));
    return mulSat(floats, std::int64_t(sizeof(float)));
}

std::int64_t mlpBackwardBytesNeeded(const LayerConfig& c) {
    std::int64_t gradients = mulSat(c.batch, c.inDim);                    // dx
    gradients = addSat(gradients, mulSat(c.inDim, c.hidden));             // dkernel1
    gradients = addSat(gradients, mulSat(c.hidden, c.features));          // dkernel2
    gradients = addSat(gradients, mulSat(mulSat(c.batch, c.hidden), 2));  // da, dh
    gradients = addSat(gradients, addSat(c.hidden, c.features));          // the biases'
    std::int64_t floats = mulSat(gradients, 4);            // split, reference, magnitudes, bounds
    floats = addSat(floats, mulSat(c.batch, c.features));  // dy
    floats = addSat(floats, mulSat(mulSat(c.batch, c.inDim), c.tpSize));  // dx's partials
    return mulSat(floats, std::int64_t(sizeof(float)));
}

std::int64_t nearestDivisor(std::int64_t n, std::int64_t wanted) {
    if (n > kListable) {
        // Outward from `wanted`, the smaller side first, for at most as many steps as listing the
        // divisors of kListable takes (a default hidden width of 4 x in_dim near 2^63 took 11 s).
        wanted = std::clamp<std::int64_t>(wanted, 1, n);
        for (std::int64_t step = 0; step < 1'000'000 && step < wanted; ++step) {
            if (n % (wanted - step) == 0)
                return wanted - step;
            if (step <= n - wanted && n % (wanted + step) == 0)
                return wanted + step;
        }
        return 1;
    }
    std::int64_t best = 1;
    for (const std::int64_t d : divisors(n)) {
        // Ties go to the smaller divisor.
        if (std::llabs(d - wanted) < std::llabs(best - wanted))
            best = d;
    }
    return best;
}

std::string moveTpToDivisor(LayerConfig& config) {
    const std::int64_t split = config.splitDim();
    if (config.tpSize <= 0 || split <= 0 || split % config.tpSize == 0)
        return {};
    const std::int64_t wanted = config.tpSize;
    config.tpSize = nearestDivisor(split, wanted);
    return "tp_size " + std::to_string(wanted) + " does not divide " +
           (config.block == Block::Mlp         ? "hidden"
            : config.mode == ParallelMode::Row ? "in_dim"
                                               : "features") +
           " (" + std::to_string(split) + "): using " + std::to_string(config.tpSize) +
           ", the nearest divisor";
}

std::vector<std::int64_t> divisors(std::int64_t n) {
    std::vector<std::int64_t> low, high;
    for (std::int64_t d = 1; d <= n / d; ++d) {
        if (n % d != 0)
            continue;
        low.push_back(d);
        if (d != n / d)
            high.push_back(n / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

std::string_view toString(ParallelMode mode) {
    return mode == ParallelMode::Column ? "column" : "row";
}

std::string_view toString(PrngLayout layout) {
    return layout == PrngLayout::Partitionable ? "partitionable" : "legacy";
}

std::string toString(const BiasInit& bias) {
    return bias.kind == BiasInit::Kind::Zeros ? "zeros" : "normal:" + formatFloat(bias.stddev);
}

std::string_view toString(OutputLayout layout) {
    return layout == OutputLayout::Sharded ? "sharded" : "replicated";
}

std::string_view toString(Block block) {
    return block == Block::Linear ? "linear" : "mlp";
}

std::optional<Block> parseBlock(std::string_view text) {
    if (text == "linear")
        return Block::Linear;
    if (text == "mlp")
        return Block::Mlp;
    return std::nullopt;
}

std::string_view toString(ShardingLayout layout) {
    switch (layout) {
        case ShardingLayout::Tensor:
            return "tensor";
        case ShardingLayout::Fsdp:
            return "fsdp";
        case ShardingLayout::Sequence:
            return "sequence";
    }
    return "tensor";
}

std::optional<ShardingLayout> parseShardingLayout(std::string_view text) {
    for (ShardingLayout layout :
         {ShardingLayout::Tensor, ShardingLayout::Fsdp, ShardingLayout::Sequence})
        if (text == toString(layout))
            return layout;
    return std::nullopt;
}

std::optional<OutputLayout> parseOutputLayout(std::string_view text) {
    if (text == "sharded")
        return OutputLayout::Sharded;
    if (text == "replicated")
        return OutputLayout::Replicated;
    return std::nullopt;
}

std::optional<ParallelMode> parseParallelMode(std::string_view text) {
    if (text == "column")
        return ParallelMode::Column;
    if (text == "row")
        return ParallelMode::Row;
    return std::nullopt;
}

std::optional<PrngLayout> parsePrngLayout(std::string_view text) {
    if (text == "partitionable")
        return PrngLayout::Partitionable;
    if (text == "legacy")
        return PrngLayout::Legacy;
    return std::nullopt;
}

std::optional<BiasInit> parseBiasInit(std::string_view text) {
    if (text == "zeros")
        return BiasInit{};
    constexpr std::string_view prefix = "normal:";
    if (!text.starts_with(prefix))
        return std::nullopt;
    const std::string_view number = text.substr(prefix.size());
    float stddev = 0.0f;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), stddev);
    if (ec != std::errc() || end != number.data() + number.size())
        return std::nullopt;
    if (!std::isfinite(stddev) || stddev <= 0.0f)
        return std::nullopt;
    return BiasInit{BiasInit::Kind::Normal, stddev};
}

std::string biasStddevProblem(std::string_view stddev) {
    return "bias stddev (" + std::string(stddev) + ") must be a finite number above 0";
}

std::optional<std::int64_t> parseInt64(std::string_view text) {
    // from_chars rejects a leading '+'; accept it as users type it.
    if (text.starts_with('+') && text.size() > 1 && text[1] != '-')
        text.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::optional<double> parseTolerance(std::string_view text, std::string* why) {
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    if (text.starts_with('+') && text.size() > 1 && text[1] != '-')
        text.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool whole = !text.empty() && end == text.data() + text.size();
    if (whole && ec == std::errc::result_out_of_range) {
        if (why)
            *why = "is beyond a double's range (about 2e-308 to 2e308 in size)";
        return std::nullopt;
    }
    if (!whole || ec != std::errc() || !std::isfinite(value) || value < 0) {
        if (why)
            *why = "is not a number >= 0";
        return std::nullopt;
    }
    return value;
}

std::string formatBytes(std::int64_t bytes) {
    if (bytes == kInt64Max)
        return "over 8.0 EiB";
    static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        ++unit;
    }
    if (unit == 0)
        return countText(bytes, "byte");
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
    return buffer;
}

std::string formatBytesExactly(std::int64_t bytes) {
    if (bytes == kInt64Max || bytes < 1024)
        return formatBytes(bytes);
    return formatBytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

}  // namespace tp
