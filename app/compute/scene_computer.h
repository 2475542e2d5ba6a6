#pragma once

// Computes scenes off the UI thread: debounced requests, progress, cancel and restart.

#include "io/array_source.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QStringList>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace tp {

/// How a computed scene was run: its mistake, its check's rule and tolerances, and whether its
/// backward pass was computed.
SceneRun runOf(const Scene& scene);

/// Runs tp::computeScene on worker threads. request() restarts a short debounce timer; when it
/// fires, the running computation (if any) is cancelled and a new one starts. Only the newest
/// computation's result is delivered; a cancelled or superseded one is dropped. Progress is polled
/// from tp::Progress on a timer, so the worker never touches Qt. Once a scene is delivered, the
/// split's partials, which its pass does not store (layer/partials.h), are made on a worker in
/// group order, so that a step, the devices view or a trace seldom waits for one; the next
/// computation stops that.
class SceneComputer : public QObject {
    Q_OBJECT

public:
    explicit SceneComputer(QObject* parent = nullptr);
    /// Cancels every running computation and waits for the threads to stop.
    ~SceneComputer() override;

    /// What a worker runs: tp::computeScene's signature (nullopt when cancelled), for every source
    /// (with SceneSource::Files, once the arrays are read and the request they make is valid).
    using ComputeFunction = std::function<std::optional<Scene>(SceneRequest, Progress*)>;
    /// Replaces tp::computeScene for computations started from now on; tests use it to hold a
    /// computation open until they have cancelled it.
    void setComputeFunction(ComputeFunction compute) { m_compute = std::move(compute); }

    /// Computes after the debounce interval unless another request comes first; `run` is the
    /// mistake made and the check's rule (computeScene's SceneRun). With SceneSource::Files the
    /// worker first reads `files` (loadArrayFiles: the kernel sets in_dim and features, x the
    /// batch; tp_size moves to the nearest divisor when the sizes call for it), checks the request
    /// those sizes make (sceneProblems), and computes it; its problems come back through
    /// arraysRefused.
    void request(const LayerConfig& config, SceneSource source, const SceneRun& run = {},
                 const ArrayFiles& files = {});
    /// Computes now (cancelling the running computation), skipping the debounce. With
    /// SceneSource::Files and `loaded` (the arrays `files` names, read already, e.g. by the command
    /// line), the worker computes from those and does not read the files again; their shapes set
    /// the sizes.
    void computeNow(const LayerConfig& config, SceneSource source, const SceneRun& run = {},
                    const ArrayFiles& files = {}, std::shared_ptr<LoadedArrays> loaded = {});

    bool isBusy() const { return m_current != nullptr; }
    /// A request is waiting for its debounce interval.
    bool hasPendingRequest() const { return m_debounce.isActive(); }

public slots:
    /// Cancels the pending request and the running computation; the last scene stays valid.
    void cancel();

signals:
    void busyChanged(bool busy);
    void progressChanged(double fraction);
    /// A new scene, with the wall time of its computation.
    void sceneReady(tp::ScenePtr scene, qint64 elapsedMs);
    /// The running computation was cancelled by cancel() (not by a newer request).
    void cancelled();
    /// The newest computation could not allocate its arrays (std::bad_alloc); the last scene stays.
    /// `reason` is tp::allocationFailureMessage.
    void failed(const QString& reason);
    /// The newest computation's array files could not be used: each problem in words, tagged
    /// "kernel: ", "bias: " or "x: " when it belongs to one file. The last scene stays.
    void arraysRefused(const QStringList& problems);

private:
    struct Job;

    void startPending();
    void finishJob(const std::shared_ptr<Job>& job);
    void pollProgress();
    void startMakingPartials(const ScenePtr& scene);
    void stopMakingPartials();

    QTimer m_debounce;
    QTimer m_poll;
    ComputeFunction m_compute;
    SceneRequest m_pending;  ///< the next computation's request, its arrays not yet read
    std::shared_ptr<LoadedArrays> m_pendingLoaded;  ///< read already: computeNow's `loaded`
    std::shared_ptr<Job> m_current;
    std::vector<QThread*> m_threads;  ///< every thread not yet finished, current or cancelled
    /// Set to stop the worker that makes the delivered scene's partials.
    std::shared_ptr<std::atomic<bool>> m_stopMaking;
};

}  // namespace tp

Q_DECLARE_METATYPE(tp::ScenePtr)
