#pragma once

#include "filepreview.h"
#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <QSet>

class InspectorNote;
class QLabel;
class QPushButton;
class QStandardItem;
class QStandardItemModel;
class TextPageView;

// The inspector's Files: the workdir (and the gateway home, where it is elsewhere) as a tree read
// one folder at a time as it is opened, with a preview of the file picked (text page by page, with
// binary files noted; pictures scaled down; .mcp only in MCP Servers, masked) and Save As. Read
// only: nothing is written to the workspace.
class FilesPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FilesPanel)

public:
    // A folder shows at most this many entries (a venv holds thousands).
    static constexpr int MaxEntries = 2000;
    static constexpr int PathRole = InspectorItem::DataRole;
    static constexpr int KindRole = Qt::UserRole + 110;

    explicit FilesPanel(QWidget *parent = nullptr);
    ~FilesPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    InspectorNote *note() const { return m_note; }
    TextPageView *textPreview() const { return m_preview->text(); }
    QLabel *imageLabel() const { return m_preview->imageLabel(); }
    QLabel *previewInfo() const { return m_preview->info(); }
    QPushButton *saveButton() const { return m_preview->saveButton(); }
    // The item of a workspace path shown in the tree (nullptr until its folder was read).
    QStandardItem *itemOf(const QString &path) const;
    // Opens the folders down to `path` and picks it (once each folder has been read).
    void select(const QString &path);
    QString currentPath() const;
    bool isFolderRead(const QString &path) const { return m_read.contains(path); }

protected:
    void clearShown() override;
    void load() override;
    void redactChanged() override;
    void retranslate() override;

private:
    QCoro::Task<void> list(QString path);
    void expanded(const QModelIndex &index);
    void preview();
    void continueSelect();

    InspectorNote *m_note;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    FilePreview *m_preview = nullptr;
    ReadSlot m_slot;
    Paddock::Inspect::WorkspaceRef m_foldersRef;
    QSet<QString> m_read; // folders listed
    QSet<QString> m_listing; // folders being listed
    QString m_selecting; // select(): where it goes
};
