#pragma once

// The cached image of a MatrixView's visible cells, and its render: on the UI thread when small,
// on a worker thread when large. A newer request tells a running render to stop, drops its result
// and renders the newer one.

#include "cell_renderer.h"

#include <QFutureWatcher>
#include <QImage>
#include <QObject>

#include <atomic>
#include <memory>
#include <optional>

namespace tp {

/// What an image shows: which inputs (generation, bumped on every change of matrix or style),
/// which cells, at which device size and with which decoration.
struct CellImageKey {
    quint64 generation = 0;
    IndexRange rows;
    IndexRange cols;
    QSize deviceSize;
    qreal devicePixelRatio = 1;
    bool numbers = false;
    bool grid = false;
    bool operator==(const CellImageKey&) const = default;
};

/// One render: the block of cells `key` names (a view sharing the matrix's owner), its style and
/// decoration.
struct CellImageRequest {
    CellImageKey key;
    MatrixData block;
    HeatmapStyle style;
    CellDecoration decoration;
};

/// Holds the last rendered image and renders the requested one. Renders of up to
/// kSyncRenderLimit (elements + device pixels) run inside request() (well under a millisecond);
/// larger ones run on a worker thread while image() stays the previous one. A request with a new
/// key while a worker runs tells that worker to stop, drops whatever it returns and starts the
/// newest request when it ends; image() only ever changes to the latest requested key.
class CellImageCache : public QObject {
    Q_OBJECT

public:
    static constexpr double kSyncRenderLimit = 1 << 20;

    explicit CellImageCache(QObject* parent = nullptr);
    ~CellImageCache() override;

    /// Makes `request.key` the wanted image: nothing when it is already image() or being rendered,
    /// else renders it (now or on a worker).
    void request(CellImageRequest request);

    /// The last image of a wanted key (null before the first) and its key.
    const QImage& image() const { return m_image; }
    const CellImageKey& key() const { return m_key; }

    /// A worker is rendering, or a request waits for one to stop.
    bool isRendering() const { return m_running.has_value(); }
    /// How many images became image() (renders dropped as stale are not counted).
    int renderCount() const { return m_renderCount; }
    /// How many worker renders were told to stop because a newer request came.
    int stoppedCount() const { return m_stoppedCount; }

signals:
    /// image() changed outside request(): a worker render finished (or the request that waited
    /// for a stopped one was small and rendered at once).
    void imageReady();

private:
    struct Rendered {
        QImage image;
        CellImageKey key;
    };

    void start(CellImageRequest request);
    void onFinished();

    QImage m_image;
    CellImageKey m_key;
    int m_renderCount = 0;
    int m_stoppedCount = 0;

    QFutureWatcher<Rendered> m_watcher;
    std::optional<CellImageKey> m_running;     ///< the key the worker renders
    std::shared_ptr<std::atomic_bool> m_stop;  ///< tells the worker to stop
    std::optional<CellImageRequest> m_next;    ///< to start when the stopped worker ends
};

}  // namespace tp
