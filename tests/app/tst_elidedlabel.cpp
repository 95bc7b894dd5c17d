// ElidedLabel, offscreen: it elides to its width, its minimum size does not depend on its text,
// and the whole text is its tooltip, accessible name and accessible description.

#include "elidedlabel.h"

#include <QAccessible>
#include <QHBoxLayout>
#include <QSignalSpy>
#include <QTest>

class TestElidedLabel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void elidesToItsWidth()
    {
        ElidedLabel label;
        const QSize emptyMinimum = label.minimumSizeHint();
        QSignalSpy changed(&label, &ElidedLabel::textChanged);
        const QString text = QStringLiteral("A message long enough not to fit in a hundred pixels, by far");
        label.setText(text);
        QCOMPARE(changed.count(), 1);
        label.setText(text);
        QCOMPARE(changed.count(), 1); // the same text: no change
        QCOMPARE(label.text(), text);
        // However long the text, the minimum stays; the size hint wants it whole.
        QCOMPARE(label.minimumSizeHint(), emptyMinimum);
        QVERIFY(label.minimumSizeHint().width() < label.fontMetrics().horizontalAdvance(QStringLiteral("A message")));
        QVERIFY(label.sizeHint().width() >= label.fontMetrics().horizontalAdvance(text));

        label.resize(100, label.sizeHint().height());
        QVERIFY(label.isElided());
        QVERIFY(label.shownText().endsWith(QChar(0x2026)));
        QVERIFY(label.fontMetrics().horizontalAdvance(label.shownText()) <= 100);
        label.setElideMode(Qt::ElideLeft);
        QVERIFY(label.shownText().startsWith(QChar(0x2026)));
        label.resize(label.sizeHint());
        QVERIFY(!label.isElided());
        QCOMPARE(label.shownText(), text);

        // One line: line breaks show as spaces.
        label.setText(QStringLiteral("two\nlines"));
        QCOMPARE(label.shownText(), QStringLiteral("two lines"));
    }

    void wholeTextForTooltipAndAssistiveTechnology()
    {
        QWidget window;
        auto *layout = new QHBoxLayout(&window);
        auto *label = new ElidedLabel(QStringLiteral("first"));
        layout->addWidget(label);
        QCOMPARE(label->toolTip(), QStringLiteral("first"));
        const QString text = QStringLiteral("Cannot reach the server: ") + QString(300, u'x');
        label->setText(text);
        window.resize(200, 50);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(label->isElided());
        QCOMPARE(label->toolTip(), text);
        QCOMPARE(label->accessibleDescription(), text);
        QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(label);
        QVERIFY(accessible);
        QCOMPARE(accessible->role(), QAccessible::StaticText);
        QCOMPARE(accessible->text(QAccessible::Name), text);
        QCOMPARE(accessible->text(QAccessible::Description), text);
        label->setAccessibleName(QStringLiteral("Status"));
        QCOMPARE(accessible->text(QAccessible::Name), QStringLiteral("Status"));
        // The window keeps its width.
        QCOMPARE(window.width(), 200);
        label->clear();
        QVERIFY(label->toolTip().isEmpty());
    }
};

QTEST_MAIN(TestElidedLabel)
#include "tst_elidedlabel.moc"
