#include "scene_computer.h"

#include "scene/mlp_scene.h"
#include "scene/scene_request.h"

#include <QThread>

#include <algorithm>
#include <new>

namespace tp {

SceneRun runOf(const Scene& scene) {
    return {scene.mistake,
            {scene.verification.rule, scene.verification.tolerance},
            scene.backward != nullptr};
}

struct SceneComputer::Job {
    Progress progress;
    ScenePtr scene;       ///< written by the worker before its thread finishes
    std::string failure;  ///< likewise; set when the computation ran out of memory
    std::vector<std::string> arrayProblems;  ///< likewise; why the array files cannot be used
    QElapsedTimer clock;
};

namespace {

// Reads the array files into the request's sizes, or takes the arrays `loaded` holds (read
// already), and checks the request they make: new sizes keep tp_size when it divides the split
// dimension, else take its nearest divisor, as a mode switch does. The problems are in words, a
// file's tagged with its name ("kernel: "), the scene's saying the sizes the files made.
std::vector<std::string> readArrays(SceneRequest& request, std::shared_ptr<LoadedArrays> loaded) {
    LoadedArraysRead read;
    if (loaded) {
        read.arrays = std::move(*loaded);
        takeArrayShapes(read.arrays, request.config, FixedSizes{}, read.errors);
    } else {
        read = loadArrayFiles(request.files, request.config, FixedSizes{});
    }
    if (!read.errors.empty())
        return read.errors;
    request.arrays = std::move(read.arrays);
    moveTpToDivisor(request.config);
    const LayerConfig& c = request.config;
    const std::string shape = "with the files' shapes (batch " + std::to_string(c.batch) +
                              ", in_dim " + std::to_string(c.inDim) + ", features " +
                              std::to_string(c.features) + "): ";
    std::vector<std::string> problems;
    for (const ConfigProblem& problem : sceneProblems(request))
        problems.push_back(shape + problem.message);
    return problems;
}

}  // namespace

SceneComputer::SceneComputer(QObject* parent)
    : QObject(parent), m_compute([](SceneRequest request, Progress* progress) {
          return computeScene(std::move(request), progress);
      }) {
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
    stopMakingPartials();
    for (QThread* thread : m_threads) {
        thread->wait();
        delete thread;
    }
}

void SceneComputer::request(const LayerConfig& config, SceneSource source, const SceneRun& run,
                            const ArrayFiles& files) {
    m_pendingLoaded.reset();
    m_pending = {config, source, run, files};
    m_debounce.start();
}

void SceneComputer::computeNow(const LayerConfig& config, SceneSource source, const SceneRun& run,
                               const ArrayFiles& files, std::shared_ptr<LoadedArrays> loaded) {
    m_pendingLoaded = source == SceneSource::Files ? std::move(loaded) : nullptr;
    m_pending = {config, source, run, files};
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
    stopMakingPartials();              // the cores go to the new computation

    auto job = std::make_shared<Job>();
    job->clock.start();
    m_current = job;
    std::shared_ptr<LoadedArrays> loaded = std::move(m_pendingLoaded);  // one computation's
    QThread* thread = QThread::create([job, request = m_pending, loaded, compute = m_compute] {
        try {
            SceneRequest sized = request;
            if (sized.source == SceneSource::Files) {
                // Reading a big file takes a while: here, never on the UI thread.
                job->arrayProblems = readArrays(sized, loaded);
                if (!job->arrayProblems.empty())
                    return;
            }
            std::optional<Scene> scene = compute(std::move(sized), &job->progress);
            if (scene && !job->progress.cancelled())
                job->scene = std::make_shared<const Scene>(std::move(*scene));
        } catch (const std::bad_alloc&) {
            // An exception would end the app.
            job->failure = allocationFailureMessage(request.config, request.run.backward);
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
        startMakingPartials(job->scene);
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

void SceneComputer::startMakingPartials(const ScenePtr& scene) {
    stopMakingPartials();
    auto stop = std::make_shared<std::atomic<bool>>(false);
    m_stopMaking = stop;
    QThread* thread = QThread::create([scene, stop] {
        const Partials& partials = scene->mlp ? scene->mlp->split.partials : scene->result.partials;
        try {
            for (std::size_t g = 0; g < partials.size() && !stop->load(); ++g)
                (void)partials[g];
        } catch (const std::bad_alloc&) {
            // Not made here: whoever reads it first makes it.
        }
    });
    m_threads.push_back(thread);
    connect(thread, &QThread::finished, this, [this, thread] {
        m_threads.erase(std::remove(m_threads.begin(), m_threads.end(), thread), m_threads.end());
        thread->deleteLater();
    });
    thread->start(QThread::LowPriority);
}

void SceneComputer::stopMakingPartials() {
    if (m_stopMaking)
        m_stopMaking->store(true);
    m_stopMaking.reset();
}

}  // namespace tp
