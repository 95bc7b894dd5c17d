#pragma once

#include "inspect/workspaceinspector.h"
#include "result.h"

#include <QCoroFwd>

#include <QHash>
#include <QImage>
#include <QObject>
#include <QSize>
#include <QString>

// Images of a workspace (data/ files, pictures in its folders) for thumbnails and previews: read
// through the session (at most MaxFileBytes), decoded on a worker thread, scaled to fit `bound`
// as they are decoded (a huge picture never costs its full size), and kept (the last ones, up to
// MaxBytes of pixels). Answers for a workspace no longer shown are dropped.
class InspectorImages final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectorImages)

public:
    static constexpr qint64 MaxFileBytes = 16 * 1024 * 1024;
    static constexpr qint64 MaxBytes = 32 * 1024 * 1024;
    enum class State { None, Pending, Loaded, Failed };

    explicit InspectorImages(QSize bound, QObject *parent = nullptr);
    ~InspectorImages() override;

    State state(const QString &path, QString *why = nullptr) const;
    QImage image(const QString &path) const;
    // The picture's own size, before it was scaled (invalid when unknown).
    QSize originalSize(const QString &path) const;
    // Reads and decodes `path` unless it is known (ready() then, or failed()).
    void request(const Paddock::Inspect::WorkspaceRef &ref, const QString &path);
    // Another workspace: everything known goes, and answers still coming are dropped.
    void clear();

    // Decodes an image, scaled to fit `bound` (never larger than it was); an error says why not.
    // Any thread.
    static Paddock::Result<std::pair<QImage, QSize>> decode(const QByteArray &bytes, QSize bound);

Q_SIGNALS:
    // The image is known now (loaded or failed).
    void ready(const QString &path);

private:
    struct Entry
    {
        State state = State::None;
        QImage image;
        QSize original;
        QString why;
    };
    QCoro::Task<void> load(Paddock::Inspect::WorkspaceRef ref, QString path, quint64 generation);
    // Drops the oldest images past MaxBytes, never `keep` (the one just loaded).
    void trim(const QString &keep);

    QSize m_bound;
    QHash<QString, Entry> m_entries;
    QStringList m_order; // oldest first
    qint64 m_bytes = 0; // of the images kept
    quint64 m_generation = 0;
};
