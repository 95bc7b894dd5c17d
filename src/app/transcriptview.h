#pragma once

#include "transcriptrender.h"

#include <QHash>
#include <QImage>
#include <QTextBrowser>
#include <QTimer>
#include <QWidget>

class InspectorImages;
class QListView;
class QSplitter;
class TranscriptModel;

// A QTextBrowser that loads nothing by itself: its images are the thumbnails handed to it.
class MessageBrowser final : public QTextBrowser
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MessageBrowser)

public:
    explicit MessageBrowser(QWidget *parent = nullptr);
    ~MessageBrowser() override;
    void setThumbnails(QHash<int, QImage> thumbnails) { m_thumbnails = std::move(thumbnails); }
    QVariant loadResource(int type, const QUrl &name) override;

private:
    QHash<int, QImage> m_thumbnails;
};

// A transcript as a conversation: the messages in a list (role, name, time, tokens, what each
// holds and the start of its text; light enough for tens of thousands of rows), and the current
// one whole below (TranscriptRender). A message no longer in the model's cache is asked for again
// (messageNeeded); links ask for a tool-result file, a data file, the raw line, or reading an
// incomplete last line again.
class TranscriptView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TranscriptView)

public:
    explicit TranscriptView(QWidget *parent = nullptr);
    ~TranscriptView() override;

    TranscriptModel *model() const { return m_model; }
    QListView *list() const { return m_list; }
    MessageBrowser *detail() const { return m_detail; }
    QSplitter *splitter() const { return m_splitter; }
    // Thumbnails of data files come from here (the view asks for those it shows: imageNeeded).
    void setImages(InspectorImages *images);

    int currentRow() const;
    void setCurrentRow(int row);
    // The message of `row` was read again: shown if it is the current one.
    void messageArrived(int row);
    // It could not be: `why` is shown in its place (and it is asked for again when picked again).
    void messageFailed(int row, const QString &why);
    void setRedact(bool redact);
    // Empties the list and the message shown.
    void clear();
    // Shows the current message again (after a language change, an image that came).
    void render();
    // An image is known now: the message shown again if it shows it.
    void imageArrived(const QString &path);
    // Follows a link of the message shown (as a click does).
    void followLink(const QString &link);

Q_SIGNALS:
    // `row`'s message is not in the cache (or, `whole`, its long texts are wanted uncut).
    void messageNeeded(int row, bool whole);
    void fileRequested(const QString &path);
    void dataRequested(const QString &path);
    void rawRequested(int row);
    void readAgainRequested();
    void imageNeeded(const QString &path);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void currentChanged();

    TranscriptModel *m_model;
    QSplitter *m_splitter;
    QListView *m_list;
    MessageBrowser *m_detail;
    InspectorImages *m_images = nullptr;
    TranscriptRenderState m_state;
    QStringList m_shownImages;
    QTimer m_renderLater;
    int m_shownRow = -1;
    int m_askedRow = -1; // messageNeeded sent for it, not answered yet
    bool m_askedWhole = false;
};
