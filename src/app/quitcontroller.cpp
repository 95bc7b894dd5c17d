#include "quitcontroller.h"

#include <QCoroSignal>
#include <QCoroTask>

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QEvent>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

namespace {

constexpr auto PreferenceKey = "quit/openWorkspaces"; // "ask" (or absent), "close", "leave"

} // namespace

QuitController::QuitController(QSettings *settings, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_group(new QActionGroup(this))
    , m_ask(new QAction(m_group))
    , m_close(new QAction(m_group))
    , m_leave(new QAction(m_group))
{
    m_ask->setObjectName(QStringLiteral("quitAsk"));
    m_close->setObjectName(QStringLiteral("quitClose"));
    m_leave->setObjectName(QStringLiteral("quitLeave"));
    for (QAction *action : m_group->actions())
        action->setCheckable(true);
    connect(m_group, &QActionGroup::triggered, this, [this](QAction *action) {
        setPreference(action == m_close       ? Preference::Close
                          : action == m_leave ? Preference::LeaveRunning
                                              : Preference::Ask);
    });
    retranslate();
    setPreference(preference()); // checks the right action
}

QuitController::~QuitController() = default;

QuitController::Preference QuitController::preference() const
{
    const QString value = m_settings->value(QLatin1String(PreferenceKey)).toString();
    if (value == QLatin1String("close"))
        return Preference::Close;
    if (value == QLatin1String("leave"))
        return Preference::LeaveRunning;
    return Preference::Ask;
}

void QuitController::setPreference(Preference preference)
{
    switch (preference) {
    case Preference::Ask:
        m_settings->remove(QLatin1String(PreferenceKey));
        m_ask->setChecked(true);
        break;
    case Preference::Close:
        m_settings->setValue(QLatin1String(PreferenceKey), QStringLiteral("close"));
        m_close->setChecked(true);
        break;
    case Preference::LeaveRunning:
        m_settings->setValue(QLatin1String(PreferenceKey), QStringLiteral("leave"));
        m_leave->setChecked(true);
        break;
    }
}

QMenu *QuitController::menu(QWidget *parent)
{
    if (!m_menu) {
        m_menu = new QMenu(parent);
        m_menu->setObjectName(QStringLiteral("menuWhenQuitting"));
        m_menu->addActions(m_group->actions());
        m_menu->installEventFilter(this); // its LanguageChange retranslates the actions too
        retranslate();
    }
    return m_menu;
}

bool QuitController::eventFilter(QObject *watched, QEvent *event)
{
    // The type first: a menu being destroyed is no QMenu any more, and is not to be looked at.
    if (event->type() == QEvent::LanguageChange && watched == m_menu)
        retranslate();
    return QObject::eventFilter(watched, event);
}

void QuitController::retranslate()
{
    if (m_menu)
        m_menu->setTitle(tr("When &Quitting"));
    m_ask->setText(tr("&Ask What to Do with Open Workspaces"));
    m_ask->setToolTip(tr("Quitting asks whether to close the workspaces this console opened or leave them running"));
    m_close->setText(tr("&Close Open Workspaces"));
    m_close->setToolTip(tr("Quitting closes (pauses) the workspaces this console opened"));
    m_leave->setText(tr("&Leave Open Workspaces Running"));
    m_leave->setToolTip(tr("Quitting leaves the workspaces this console opened running"));
}

QCoro::Task<std::optional<QuitController::Choice>> QuitController::decide(QWidget *parent, int openCount)
{
    if (openCount <= 0)
        co_return Choice::Close; // nothing to close: the same either way
    switch (preference()) {
    case Preference::Close:
        co_return Choice::Close;
    case Preference::LeaveRunning:
        co_return Choice::LeaveRunning;
    case Preference::Ask:
        break;
    }
    if (m_question) {
        m_question->raise();
        m_question->activateWindow();
        co_return std::nullopt; // already asking: that answer decides
    }
    QPointer<QMessageBox> box = new QMessageBox(
        QMessageBox::Question, tr("Quit Paddock"),
        tr("This console opened %n workspace(s) that are still open. Close them before quitting?", nullptr, openCount),
        QMessageBox::NoButton, parent);
    box->setObjectName(QStringLiteral("quitQuestion"));
    box->setInformativeText(
        tr("Closing pauses them, as AgentScope does when it stops. Left running, they keep running (and costing) "
           "until they are paused; and nobody renews them once this console has quit, so a sandbox whose server "
           "gives it an expiry is deleted with its files when it expires.",
           nullptr, openCount));
    QPushButton *close = box->addButton(tr("&Close Them and Quit"), QMessageBox::AcceptRole);
    close->setObjectName(QStringLiteral("quitCloseButton"));
    QPushButton *leave = box->addButton(tr("&Leave Them Running and Quit"), QMessageBox::DestructiveRole);
    leave->setObjectName(QStringLiteral("quitLeaveButton"));
    QPushButton *cancel = box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(close);
    box->setEscapeButton(cancel);
    auto *remember = new QCheckBox(tr("&Remember my choice (File > When Quitting changes it)"));
    remember->setObjectName(QStringLiteral("quitRemember"));
    box->setCheckBox(remember);
    m_question = box;
    box->open();
    const QPointer<QuitController> self(this);
    co_await qCoro(box.data(), &QDialog::finished);
    if (!self || !box)
        co_return std::nullopt;
    QAbstractButton *clicked = box->clickedButton();
    const bool remembered = remember->isChecked();
    box->deleteLater();
    std::optional<Choice> choice;
    if (clicked == close)
        choice = Choice::Close;
    else if (clicked == leave)
        choice = Choice::LeaveRunning;
    if (choice && remembered)
        setPreference(*choice == Choice::Close ? Preference::Close : Preference::LeaveRunning);
    co_return choice;
}
