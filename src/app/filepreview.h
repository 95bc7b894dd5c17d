#pragma once

#include "inspect/workspaceinspector.h"

#include <QWidget>

class InspectorImages;
class QLabel;
class QPushButton;
class QScrollArea;
class QStackedWidget;
class TextPageView;

// The preview under the inspector's Data and Files lists: a line about the file picked with Save
// As beside it, and the file itself (a picture scaled down, or text page by page). One file at a
// time; what it reads is lazy and off the GUI thread (InspectorImages, TextPageView). Its parts
// are named `<prefix>PreviewInfo`, `<prefix>SaveButton` and `<prefix>Image`.
class FilePreview final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FilePreview)

public:
    FilePreview(const QString &prefix, QWidget *parent = nullptr);
    ~FilePreview() override;

    QLabel *info() const { return m_info; }
    QPushButton *saveButton() const { return m_save; }
    QLabel *imageLabel() const { return m_image; }
    TextPageView *text() const { return m_text; }

    // Starts on `path` (empty: none): what was shown goes. False when `path` is shown already.
    bool begin(const QString &path);
    // The file begun, as a picture (read once, kept in a small cache) or as text pages.
    void showImage(const Paddock::Inspect::WorkspaceRef &ref);
    void showText(const Paddock::Inspect::WorkspaceRef &ref, bool redact, const QString &info);
    // No preview of the file: `info` says why.
    void showInfo(const QString &info);
    void setRedact(bool redact);
    // Writes a copy of `path` on this computer, chosen in a dialog; statusMessage says how it went.
    void saveAs(const Paddock::Inspect::WorkspaceRef &ref, const QString &path);
    void clear();

Q_SIGNALS:
    void saveRequested();
    void statusMessage(const QString &message);

protected:
    void changeEvent(QEvent *event) override;

private:
    void showLoaded(const QString &path);
    void retranslate();

    QLabel *m_info;
    QPushButton *m_save;
    QStackedWidget *m_previews;
    QScrollArea *m_imageArea;
    QLabel *m_image;
    TextPageView *m_text;
    InspectorImages *m_images;
    QString m_previewed;
};
