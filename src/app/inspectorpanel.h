#pragma once

#include "inspect/workspaceinspector.h"

#include <QCoroFwd>

#include <QWidget>

// One page of the inspector dock (Overview, Sessions, ...). It reads only while it is shown (the
// dock visible and its tab the current one) and only for the workspace of the moment: a new
// workspace drops what it showed at once, and it reads the new one when it is shown. Every read
// goes through the WorkspaceRef the dock gives (the profile's ProfileSession; its token is
// cancelled when the selection moves on), so a read in flight is stopped and its answer dropped.
class InspectorPanel : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectorPanel)

public:
    explicit InspectorPanel(QWidget *parent = nullptr);
    ~InspectorPanel() override;

    // Another workspace (or none: a ref without a session): what is shown goes.
    void setWorkspace(const Paddock::Inspect::WorkspaceRef &ref);
    // The same workspace's row changed (its state, its times): the panel shows the new row where
    // it shows it, and reads again only if its state changed (what could not be read may be now).
    void updateWorkspace(const Paddock::Inspect::WorkspaceRef &ref);
    bool hasWorkspace() const { return m_has; }
    const Paddock::Inspect::WorkspaceRef &workspace() const { return m_ref; }
    // Reads now if it is shown and has not read this workspace yet.
    void ensureLoaded();
    // Reads again: what is shown stays until the answers come and is updated in place.
    void reload();
    // The workspace was read (or is being read) since it was set.
    bool isLoaded() const { return m_loaded; }
    // Whether the workspace's files can be read now: its sandbox runs, or its workdir is a folder
    // on this computer (local, Docker's bind mount). A paused sandbox's files cannot be reached
    // (OpenSandbox's execd is frozen with it, a stopped Pod is gone), and asking would only wait.
    // The core's reads refuse them themselves (Conflict); a panel that calls the session's file
    // calls directly (Files) asks this first.
    bool filesReadable() const;
    // What a panel says in place of its files when they cannot be read.
    QString filesUnreadableText() const;
    // Free text (transcripts, tool results, file previews) shown with likely secrets masked.
    void setRedact(bool redact);
    bool redact() const { return m_redact; }

Q_SIGNALS:
    // Something to say in the window's status bar.
    void statusMessage(const QString &message);

protected:
    // Drop everything shown (a new workspace, or none).
    virtual void clearShown() = 0;
    // Start reading what the panel shows (its coroutines check their ReadSlot after each await).
    virtual void load() = 0;
    // The row of the same workspace changed (no read).
    virtual void rowUpdated() { }
    virtual void redactChanged() { }
    virtual void retranslate() { }
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    Paddock::Inspect::WorkspaceRef m_ref;
    bool m_has = false;
    bool m_loaded = false;
    bool m_redact = true;
};
