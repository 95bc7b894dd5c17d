#pragma once

#include "filepreview.h"
#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <optional>

class InspectorNote;
class QLabel;
class QStandardItemModel;
class TextPageView;

// The inspector's Data: the files of data/ with their size, their type told by their content
// (never their name), whether AgentScope named them (the hash of their content), and which
// session files refer to them (found by reading every context.jsonl and tool-result file once,
// after the listing; unreferenced files are normal: data/ is never cleaned). The file picked is
// previewed: an image scaled down, text page by page; Save As downloads it.
class DataPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DataPanel)

public:
    explicit DataPanel(QWidget *parent = nullptr);
    ~DataPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    InspectorNote *note() const { return m_note; }
    QLabel *imageLabel() const { return m_preview->imageLabel(); }
    QLabel *previewInfo() const { return m_preview->info(); }
    TextPageView *textPreview() const { return m_preview->text(); }
    bool isListed() const { return m_data.has_value() || m_error.has_value(); }
    bool referencesScanned() const { return m_data && m_data->referencesScanned; }
    // Picks a file ("data/<name>"), now or once the listing comes.
    void selectFile(const QString &path);
    QString currentFile() const;

protected:
    void clearShown() override;
    void load() override;
    void redactChanged() override;
    void retranslate() override;

private:
    QCoro::Task<void> read();
    void render();
    void preview();

    InspectorNote *m_note;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    FilePreview *m_preview = nullptr;
    ReadSlot m_slot;
    std::optional<Paddock::Inspect::DataView> m_data;
    std::optional<Paddock::Error> m_error;
    bool m_scanning = false;
    QString m_pendingSelection;
};
