#include "inspectorpanel.h"

#include "inspectorsupport.h"
#include "profilesession.h"
#include "workspacetreemodel.h"

#include <QEvent>

#include <algorithm>

using namespace Paddock;
using namespace Paddock::Inspect;

InspectorPanel::InspectorPanel(QWidget *parent)
    : QWidget(parent)
{
}

InspectorPanel::~InspectorPanel() = default;

void InspectorPanel::setWorkspace(const WorkspaceRef &ref)
{
    m_ref = ref;
    m_has = !ref.session.isNull();
    m_loaded = false;
    clearShown();
    ensureLoaded();
}

void InspectorPanel::updateWorkspace(const WorkspaceRef &ref)
{
    const bool stateChanged = m_ref.sandbox.state != ref.sandbox.state;
    m_ref = ref;
    rowUpdated();
    if (stateChanged && m_loaded) {
        m_loaded = false;
        ensureLoaded();
    }
}

bool InspectorPanel::filesReadable() const
{
    return m_ref.filesReadable(); // the core's rule, which its reads apply too
}

QString InspectorPanel::filesUnreadableText() const
{
    return tr("This workspace is %1: its files can be read only while it runs. Resume it to look inside.")
        .arg(WorkspaceTreeModel::stateText(m_ref.sandbox.state, m_ref.sandbox.rawState,
                                           m_ref.session ? m_ref.session->capabilities() : Capabilities{})
                 .toLower());
}

void InspectorPanel::ensureLoaded()
{
    if (m_loaded || !m_has || !isVisible())
        return;
    m_loaded = true;
    load();
}

void InspectorPanel::reload()
{
    if (!m_has)
        return;
    m_loaded = true;
    load();
}

void InspectorPanel::setRedact(bool redact)
{
    if (m_redact == redact)
        return;
    m_redact = redact;
    redactChanged();
}

void InspectorPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    ensureLoaded();
}

void InspectorPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() != QEvent::LanguageChange)
        return;
    retranslate();
    // What a note says of a read (an error, a broken file) holds the core's words too, made in the
    // language of the read: read again, now if the panel shows, else when it is shown.
    if (!m_loaded)
        return;
    const QList<InspectorNote *> notes = findChildren<InspectorNote *>();
    if (std::none_of(notes.cbegin(), notes.cend(), [](const InspectorNote *note) { return !note->text().isEmpty(); }))
        return;
    m_loaded = false;
    ensureLoaded();
}
