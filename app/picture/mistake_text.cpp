#include "mistake_text.h"

#include "core_words.h"
#include "layer/range_text.h"

#include <QCoreApplication>

namespace tp {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tp::MistakeText", text);
}

// "✘ Mistake NAME: " in red, opening the paragraph of a mistake's warning.
QString mistakeHead(Mistake mistake) {
    return QStringLiteral("<p style='color:#c62828'><b>✘ Mistake %1:</b> ")
        .arg(mistakeName(mistake));
}

}  // namespace

QString mistakeName(Mistake mistake) {
    const std::string_view name = toString(mistake);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

QString mistakeHeadline(const Scene& scene) {
    if (scene.mistake == Mistake::None)
        return {};
    // The description is "mode: the wrong computation"; the headline says the computation.
    const QString what = qs(mistakeDescription(scene.mistake)).section(QStringLiteral(": "), 1);
    return mistakeHead(scene.mistake) + what.toHtmlEscaped() + QStringLiteral(".</p>");
}

QString mistakeWarning(const Scene& scene) {
    const LayerConfig& c = scene.config;
    const ShardingPlan& plan = scene.result.plan;
    const QString head = mistakeHead(scene.mistake);
    switch (scene.mistake) {
        case Mistake::None:
            break;
        case Mistake::RowThenColumn:
            return head + tr("linear1 is split by its in_dim rows, so each device holds a "
                             "<b>partial sum</b> of h, and applies the GeLU to it.</p><p>"
                             "gelu(h_0) + gelu(h_1) + ... is not gelu(h_0 + h_1 + ...): the GeLU "
                             "needs whole sums. Split linear1 by its columns, linear2 by its "
                             "rows.</p>");
        case Mistake::GatherBetween:
            return head + tr("a is all-gathered between the layers, %1 on every device, and "
                             "linear2 split by its output columns: the output is right.</p><p>"
                             "But each device holds and sends all of a: Megatron's split needs "
                             "nothing between the layers (the Devices tab shows the bytes).</p>")
                              .arg(shape(c.batch, c.hidden));
        case Mistake::Bias2PerPartial:
            return head + tr("every device adds bias2 to its partial sum, so y has it %1: y = "
                             "correct + %2 &middot; bias2.</p><p>Add bias2 once, to the "
                             "all-reduced sum.</p>")
                              .arg(qs(countText(c.tpSize, "time")))
                              .arg(c.tpSize - 1);
        case Mistake::SumGroups:
            return head + tr("the groups' %1 outputs are <b>added</b> into one %1 block.</p>"
                             "<p>They are different output columns: y is their concatenation, "
                             "%2.</p>")
                              .arg(shape(c.batch, plan.chunk), shape(c.batch, c.features));
        case Mistake::ConcatPartials:
            return head +
                   tr("the %1 partial sums are <b>concatenated</b> into %2.</p>"
                      "<p>They are parts of the same output columns: y is their sum, "
                      "%1, with the bias added once.</p>")
                       .arg(shape(c.batch, c.features), shape(c.batch, c.tpSize * c.features));
        case Mistake::BiasPerPartial:
            return head + tr("every partial sum adds the bias, so y has it %1: y = correct "
                             "+ %2 &middot; bias.</p><p>Add the bias once, to the total.</p>")
                              .arg(qs(countText(c.tpSize, "time")))
                              .arg(c.tpSize - 1);
        case Mistake::InitPerGroup:
            return head + tr("each group builds its own nnx.Linear of its shard's shape with "
                             "nnx.Rngs(%1) and uses it instead of its slice of the one layer: "
                             "every group gets the same own kernel (drawn beside the kernel).</p>"
                             "<p>Build the layer once; give each group a slice of it.</p>")
                              .arg(c.seed);
        case Mistake::SliceX:
            return head + tr("each group multiplies only its own block of x's columns, %1 of "
                             "%2, as if column-parallel also split the input.</p><p>Column-"
                             "parallel gives every group all of x.</p>")
                              .arg(c.inDim / c.tpSize)
                              .arg(c.inDim);
    }
    return {};
}

QString mistakePartialTitle(const Scene& scene, int group) {
    const LayerConfig& c = scene.config;
    const ShardGroup& g = scene.result.plan.groups.at(std::size_t(group));
    switch (scene.mistake) {
        case Mistake::BiasPerPartial:
            return tr("partial of group %1 + bias  %2").arg(group).arg(shape(c.batch, c.features));
        case Mistake::InitPerGroup:
            if (c.mode == ParallelMode::Column)
                return tr("block %1 = x @ own_kernel + own_bias  %2, not %3")
                    .arg(group)
                    .arg(shape(c.batch, g.outputCols.size()), qs(columnSlice("y", g.outputCols)));
            return tr("partial sum of group %1 = x[:, %2] @ own_kernel  %3")
                .arg(group)
                .arg(qs(sliceText(g.inputCols)), shape(c.batch, c.features));
        case Mistake::SliceX: {
            const IndexRange block = sliceXInputBlock(scene.result.plan, group);
            return tr("block %1 = x[:, %2] @ kernel[%2, %3] + bias[%3]  %4")
                .arg(group)
                .arg(qs(sliceText(block)), qs(sliceText(g.kernelCols)),
                     shape(c.batch, g.outputCols.size()));
        }
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::ConcatPartials:
            break;
    }
    return {};
}

QString mistakeOutputTitle(const Scene& scene) {
    const LayerConfig& c = scene.config;
    switch (scene.mistake) {
        case Mistake::BiasPerPartial:
            return tr("y = sum  %1, bias %2")
                .arg(shape(c.batch, c.features), qs(countText(c.tpSize, "time")));
        case Mistake::ConcatPartials:
            if (c.tpSize == 1)
                break;
            return tr("y = concatenate  %1, no bias").arg(shape(c.batch, c.tpSize * c.features));
        case Mistake::InitPerGroup:
            return tr("y = sum + own_bias  %1").arg(shape(c.batch, c.features));
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::SliceX:
            break;
    }
    return {};
}

QString mistakeLayerNote(const Scene& scene) {
    const LayerConfig& c = scene.config;
    switch (scene.mistake) {
        case Mistake::BiasPerPartial:
            return tr("<b style='color:#c62828'>bias-per-partial:</b> every group adds the whole "
                      "bias to its partial sum (the strip takes the colour of the group adding "
                      "it), %1 in all instead of once.")
                .arg(qs(countText(c.tpSize, "time")));
        case Mistake::SliceX:
            return tr("<b style='color:#c62828'>slice-x:</b> group i reads only x[:, "
                      "i*%1:(i+1)*%1] (coloured in x) and the matching rows of its kernel "
                      "columns (the rest of the kernel is washed out), instead of all of x.")
                .arg(c.inDim / c.tpSize);
        case Mistake::InitPerGroup:
            return tr(
                "<b style='color:#c62828'>init-per-group:</b> the groups use the own "
                "kernel drawn on the right, not their slices of this one.");
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::ConcatPartials:
            break;
    }
    return {};
}

}  // namespace tp
