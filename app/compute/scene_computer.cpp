#include "scene_computer.h"

#include "mistakes.h"
#include "panels/parameter_panel.h"

#include <QThread>

#include <algorithm>
#include <new>

namespace tp {

SceneRun runOf(const Scene& scene) {
    return {scene.mistake, {scene.verification.rule, scene.verification.tolerance}};
}

struct SceneComputer::Job {
    Progress progress;
    ScenePtr scene;       ///< written by the worker before its thread finishes
    std::string failure;  ///< likewise; set when the computation ran out of memory
    std::vector<std::string> arrayProblems;  ///< likewise; why the array files cannot be used
    QElapsedTimer clock;
};

namespace {

// Checks the config that the arrays' sizes make (tp_size, when it no longer divides the split
// dimension, moved to the nearest divisor); the problems, in words, are added to read.errors.
void checkSizes(LayerConfig& config, const SceneRun& run, LoadedArraysRead& read) {
    // New sizes keep tp_size when it divides the split dimension, else take its nearest divisor,
    // as a mode switch does.
    if (config.tpSize > 0 && config.splitDim() > 0 && config.splitDim() % config.tpSize != 0)
        config.tpSize = nearestDivisor(config.splitDim(), config.tpSize);
    std::vector<ConfigProblem> problems = config.validate();
    if (problems.empty())
        problems = mistakeProblems(config, run.mistake, false);
    const std::string shape = "with the files' shapes (batch " + std::to_string(config.batch) +
                              ", in_dim " + std::to_string(config.inDim) + ", features " +
                              std::to_string(config.features) + "): ";
    for (const ConfigProblem& problem : problems)
        read.errors.push_back(shape + problem.message);
}

/// Reads the array files into `config`'s sizes, or takes the arrays `loaded` holds (read
/// already), and checks the config they make; the problems are in words, a file's tagged with
/// its name ("kernel: ").
LoadedArraysRead loadAndCheck(const ArrayFiles& files, LayerConfig& config, const SceneRun& run,
                              std::shared_ptr<LoadedArrays> loaded) {
    LoadedArraysRead read;
    if (loaded) {
        read.arrays = std::move(*loaded);
        takeArrayShapes(read.arrays, config, FixedSizes{}, read.errors);
    } else {
        read = loadArrayFiles(files, config, FixedSizes{});
    }
    if (!read.errors.empty())
        return read;
    checkSizes(config, run, read);
    return read;
}

}  // namespace

SceneComputer::SceneComputer(QObject* parent)
    : QObject(parent),
      m_compute([](const LayerConfig& config, SceneSource source, Progress* progress,
                   const SceneRun& run) { return computeScene(config, source, progress, run); }) {
    qRegisterMetaType<tp::ScenePtr>();
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(150);
    connect(&m_debounce, &QTimer::timeout, this, &SceneComputer::startPending);
    m_poll.setInterval(50);
    connect(&m_poll, &QTimer::timeout, this, &SceneComputer::pollProgress);
}

SceneComputer::~SceneComputer() {
    if (m_current)
        m_current->progress.cancel();
    for (QThread* thread : m_threads) {
        thread->wait();
        delete thread;
    }
}

void SceneComputer::request(const LayerConfig& config, SceneSource source, const SceneRun& run,
                            const ArrayFiles& files) {
    m_pendingLoaded.reset();
    m_pendingConfig = config;
    m_pendingSource = source;
    m_pendingRun = run;
    m_pendingFiles = files;
    m_debounce.start();
}

void SceneComputer::computeNow(const LayerConfig& config, SceneSource source, const SceneRun& run,
                               const ArrayFiles& files, std::shared_ptr<LoadedArrays> loaded) {
    m_pendingLoaded = source == SceneSource::Files ? std::move(loaded) : nullptr;
    m_pendingConfig = config;
    m_pendingSource = source;
    m_pendingRun = run;
    m_pendingFiles = files;
    m_debounce.stop();
    startPending();
}

void SceneComputer::cancel() {
    m_debounce.stop();
    if (!m_current)
        return;
    m_current->progress.cancel();
    m_current.reset();
    m_poll.stop();
    emit busyChanged(false);
    emit cancelled();
}

void SceneComputer::startPending() {
    const bool wasBusy = isBusy();
    if (m_current)
        m_current->progress.cancel();  // its thread ends soon; its result is dropped

    auto job = std::make_shared<Job>();
    job->clock.start();
    m_current = job;
    const LayerConfig config = m_pendingConfig;
    const SceneSource source = m_pendingSource;
    const SceneRun run = m_pendingRun;
    const ArrayFiles files = m_pendingFiles;
    std::shared_ptr<LoadedArrays> loaded = std::move(m_pendingLoaded);  // one computation's
    QThread* thread =
        QThread::create([job, config, source, run, files, loaded, compute = m_compute] {
            try {
                std::optional<Scene> scene;
                if (source == SceneSource::Files) {
                    // Reading a big file takes a while: here, never on the UI thread.
                    LayerConfig sized = config;
                    LoadedArraysRead read = loadAndCheck(files, sized, run, loaded);
                    if (!read.errors.empty()) {
                        job->arrayProblems = std::move(read.errors);
                        return;
                    }
                    scene =
                        computeSceneFromArrays(sized, std::move(read.arrays), &job->progress, run);
                } else {
                    scene = compute(config, source, &job->progress, run);
                }
                if (scene && !job->progress.cancelled())
                    job->scene = std::make_shared<const Scene>(std::move(*scene));
            } catch (const std::bad_alloc&) {
                job->failure = allocationFailureMessage(config);  // an exception would end the app
            }
        });
    m_threads.push_back(thread);
    connect(thread, &QThread::finished, this, [this, thread, job] {
        m_threads.erase(std::remove(m_threads.begin(), m_threads.end(), thread), m_threads.end());
        thread->deleteLater();
        finishJob(job);
    });
    thread->start(QThread::LowPriority);
    if (!wasBusy) {
        m_poll.start();
        emit busyChanged(true);
    }
    emit progressChanged(0.0);
}

void SceneComputer::finishJob(const std::shared_ptr<Job>& job) {
    if (job != m_current)
        return;  // superseded or cancelled
    m_current.reset();
    m_poll.stop();
    const qint64 elapsed = job->clock.elapsed();
    emit progressChanged(1.0);
    emit busyChanged(false);
    if (job->scene) {
        emit sceneReady(job->scene, elapsed);
    } else if (!job->failure.empty()) {
        emit failed(QString::fromStdString(job->failure));
    } else if (!job->arrayProblems.empty()) {
        QStringList problems;
        for (const std::string& problem : job->arrayProblems)
            problems << QString::fromStdString(problem);
        emit arraysRefused(problems);
    }
}

void SceneComputer::pollProgress() {
    if (m_current)
        emit progressChanged(m_current->progress.fraction());
}

}  // namespace tp
