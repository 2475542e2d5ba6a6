// From an edit to the complete picture of a big scene: (batch 2, in_dim 4096, features 16384),
// tp 8, column mode, nnx source, as `tpviz --screenshot` shows it at its last step. Each iteration
// runs every stage the app runs, back to back, and times each one by wall clock:
//
//   generation         initLayer                                          (worker thread)
//   forward_reference  forwardWithReference: the split pass and the reference (one full
//                      product with sums of its own) from one read of the kernel, and the
//                      kernel's largest |value| found in the same pass (Scene::kernelMaxAbs)
//                      (worker thread)
//   check              verify with the rounding bound                     (worker thread)
//   scales             what setScene reads before drawing: the largest |value| of x, the bias
//                      and the output views (MatrixView::setMatrix; the kernel's comes with the
//                      scene)                                             (UI thread)
//   kernel_image       renderBlock of the kernel at its on-screen size, group 7 highlighted
//                                                                         (pool thread)
//   other_images       renderBlock of x, the bias, the partial, y and the reference (UI thread)
//   legend             renderLegend of the layer panel's legend           (UI thread)
//
// The worker thread's three stages run on one thread of their own, as SceneComputer runs
// computeScene; the kernel image renders on a thread of Qt's global pool, as CellImageCache
// renders a large image; the rest runs on the benchmark's own (UI) thread.
//
// Counters: each stage in milliseconds (per iteration), total, and total/generation, the ratio
// the first picture's speed target is stated in (at most 2). Run with --benchmark_repetitions=5
// and read the medians: every ratio comes from the same iteration.

#include "cell_renderer.h"
#include "heatmap_image.h"
#include "layer/verification.h"
#include "matrix_data.h"
#include "nnx/nnx_init.h"
#include "scene/fused_forward.h"
#include "scene/scene.h"

#include <QGuiApplication>
#include <QtConcurrent/QtConcurrentRun>

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <thread>

using namespace tp;

namespace {

using Clock = std::chrono::steady_clock;

LayerConfig sceneConfig() {
    LayerConfig config;
    config.batch = 2;
    config.inDim = 4096;
    config.features = 16384;
    config.tpSize = 8;
    config.mode = ParallelMode::Column;
    return config;
}

// The on-screen sizes at the screenshot's 1600 x 1000 window, in device pixels (dpr 1), read from
// a screenshot of this scene.
constexpr QSize kKernelSize{1000, 490};
constexpr QSize kXSize{240, 48};
constexpr QSize kBiasSize{1000, 16};
constexpr QSize kPartialSize{400, 48};
constexpr QSize kOutputSize{600, 48};

class Stopwatch {
public:
    double lap() {
        const Clock::time_point now = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - m_last).count();
        m_last = now;
        return ms;
    }

private:
    Clock::time_point m_last = Clock::now();
};

HeatmapStyle groupStyle(const ShardingPlan& plan, float scale, int highlighted) {
    HeatmapStyle style;
    for (const ShardGroup& g : plan.groups)
        style.groups.push_back(g.kernelCols);
    style.scale = scale;
    style.highlightedGroup = highlighted;
    return style;
}

QImage render(const MatrixData& m, const HeatmapStyle& style, QSize size) {
    return renderBlock(m, styleForBlock(style, 0, 0, m.rows(), m.cols()), size, CellDecoration{});
}

void BM_FirstPicture(benchmark::State& state) {
    const LayerConfig config = sceneConfig();
    const ShardingPlan plan = ShardingPlan::make(config);
    const int lastGroup = int(config.tpSize) - 1;
    double sums[7] = {};
    for (auto _ : state) {
        Stopwatch watch;
        auto scene = std::make_shared<Scene>();
        double generation = 0, forwardAndReference = 0, check = 0;
        // On a thread of its own, as SceneComputer runs computeScene.
        std::thread worker([&] {
            scene->config = config;
            scene->params = initLayer(config);
            generation = watch.lap();
            const LayerParams& p = scene->params;
            // The split, the reference and Scene::kernelMaxAbs, as computeScene finds them
            ForwardAndReference both = forwardWithReference(p.x, p.kernel, p.bias, plan);
            scene->result = std::move(both.split);
            scene->reference = std::move(both.reference);
            scene->kernelMaxAbs = both.kernelMaxAbs;
            forwardAndReference = watch.lap();
            scene->verification =
                verify(scene->result.output, scene->reference, p.x, p.kernel, p.bias);
            check = watch.lap();
        });
        worker.join();
        const LayerParams& p = scene->params;
        benchmark::DoNotOptimize(scene->verification.passed());

        const MatrixData kernel = MatrixData::of(scene, p.kernel);
        const MatrixData x = MatrixData::of(scene, p.x);
        const MatrixData bias = MatrixData::ofRow(scene, p.bias);
        const MatrixData referenceView = MatrixData::of(scene, scene->reference);
        const MatrixData output = MatrixData::of(scene, scene->result.output);
        const MatrixData partial = MatrixData::of(scene, scene->result.partials.back());
        const float kernelScale = scene->kernelMaxAbs.value();  // LayerPanel passes it on
        const float xScale = maxAbs(x);
        const float biasScale = maxAbs(bias);
        const float outputScale = maxAbs(referenceView);
        benchmark::DoNotOptimize(maxAbs(output) + maxAbs(partial));
        const double scales = watch.lap();

        // On a thread of the global pool, as CellImageCache renders a large image.
        const QImage kernelImage =
            QtConcurrent::run([&] {
                return render(kernel, groupStyle(plan, kernelScale, lastGroup), kKernelSize);
            }).result();
        benchmark::DoNotOptimize(kernelImage.constBits());
        const double kernelImageMs = watch.lap();

        HeatmapStyle neutral;
        neutral.scale = xScale;
        benchmark::DoNotOptimize(render(x, neutral, kXSize).constBits());
        benchmark::DoNotOptimize(
            render(bias, groupStyle(plan, biasScale > 0 ? biasScale : 1.0f, lastGroup), kBiasSize)
                .constBits());
        HeatmapStyle partialStyle;
        partialStyle.groups = {IndexRange{0, plan.chunk}};
        partialStyle.groupIds = {lastGroup};
        partialStyle.scale = outputScale;
        benchmark::DoNotOptimize(render(partial, partialStyle, kPartialSize).constBits());
        benchmark::DoNotOptimize(
            render(output, groupStyle(plan, outputScale, -1), kOutputSize).constBits());
        neutral.scale = outputScale;
        benchmark::DoNotOptimize(render(referenceView, neutral, kOutputSize).constBits());
        const double otherImages = watch.lap();

        LegendStyle legendStyle;
        legendStyle.scale = kernelScale;
        legendStyle.groups = {lastGroup};
        benchmark::DoNotOptimize(renderLegend(legendStyle, QSize(220, 60)).constBits());
        const double legend = watch.lap();

        const double stages[7] = {generation,    forwardAndReference, check, scales,
                                  kernelImageMs, otherImages,         legend};
        for (int i = 0; i < 7; ++i)
            sums[i] += stages[i];
    }
    const char* names[7] = {"generation",   "forward_reference", "check", "scales",
                            "kernel_image", "other_images",      "legend"};
    const double n = double(state.iterations());
    double total = 0.0;
    for (int i = 0; i < 7; ++i) {
        state.counters[names[i]] = sums[i] / n;
        total += sums[i] / n;
    }
    state.counters["total"] = total;
    state.counters["total/generation"] = total / (sums[0] / n);
}
BENCHMARK(BM_FirstPicture)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
    // Fonts and images need a QGuiApplication; no display is needed.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
