// The translations are complete: the zh_CN file has no unfinished, obsolete or vanished entry and
// covers every string in the sources (lupdate run on them into a copy finds nothing new), every
// translation keeps its source's placeholders and mnemonic, only Simplified characters are used;
// the English file gives every plural its two forms. Switching languages at run time is tested
// with the window in tst_mainwindow.

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

namespace {

struct Message
{
    QString context;
    QString source;
    QString type; // unfinished, obsolete, vanished, or empty
    QStringList translations; // one, or one per plural form
    bool numerus = false;
};

QList<Message> readTs(const QString &path)
{
    QList<Message> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return messages;
    QXmlStreamReader xml(&file);
    QString context;
    Message current;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            if (xml.name() == QLatin1String("name")) {
                context = xml.readElementText();
            } else if (xml.name() == QLatin1String("message")) {
                current = Message{
                    context, {}, {}, {}, xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes")};
            } else if (xml.name() == QLatin1String("source")) {
                current.source = xml.readElementText();
            } else if (xml.name() == QLatin1String("translation")) {
                current.type = xml.attributes().value(QLatin1String("type")).toString();
                if (!current.numerus)
                    current.translations.append(xml.readElementText());
            } else if (xml.name() == QLatin1String("numerusform")) {
                current.translations.append(xml.readElementText());
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            messages.append(current);
        }
    }
    if (xml.hasError())
        qWarning("%s: %s", qPrintable(path), qPrintable(xml.errorString()));
    return messages;
}

QSet<QString> placeholders(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("%(n|[1-9])"));
    QSet<QString> found;
    for (auto it = pattern.globalMatch(text); it.hasNext();)
        found.insert(it.next().captured(0));
    return found;
}

QString mnemonic(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("(?<!&)&([A-Za-z0-9])"));
    const QRegularExpressionMatch match = pattern.match(QString(text).replace(QLatin1String("&&"), QString()));
    return match.hasMatch() ? match.captured(1).toLower() : QString();
}

} // namespace

class TestTranslations final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chineseIsComplete()
    {
        const QList<Message> messages = readTs(QStringLiteral(TRANSLATIONS_DIR "/paddock_zh_CN.ts"));
        QVERIFY(messages.size() > 300);
        // Characters only Traditional Chinese writes; Simplified only here.
        static const QString traditional = QStringLiteral(
            "個們這時間區數關開啟設檔鍵續儲暫復與為對會無當顯錯誤選擇請確認執務閒裡舊過進後從並應環連線點頁餘體將標簽"
            "態資訊產輸動載擬規說");
        for (const Message &message : messages) {
            const QString where = message.context + QStringLiteral(": ") + message.source;
            QVERIFY2(message.type.isEmpty(), qPrintable(message.type + QStringLiteral(" ") + where));
            QCOMPARE(message.translations.size(), 1); // Chinese has one plural form
            const QString &translation = message.translations.constFirst();
            QVERIFY2(!translation.isEmpty(), qPrintable(where));
            QCOMPARE(placeholders(translation), placeholders(message.source));
            if (const QString letter = mnemonic(message.source); !letter.isEmpty())
                QVERIFY2(mnemonic(translation) == letter, qPrintable(where + QStringLiteral(" -> ") + translation));
            for (const QChar c : translation)
                QVERIFY2(!traditional.contains(c), qPrintable(where + QStringLiteral(" -> ") + translation));
        }
    }

    void englishHasBothPluralForms()
    {
        const QList<Message> messages = readTs(QStringLiteral(TRANSLATIONS_DIR "/paddock_en.ts"));
        QVERIFY(!messages.isEmpty());
        for (const Message &message : messages) {
            QVERIFY2(message.numerus && message.type.isEmpty(), qPrintable(message.source));
            QCOMPARE(message.translations.size(), 2);
            QVERIFY(!message.translations.at(0).contains(QLatin1String("(s)")));
            QVERIFY(!message.translations.at(1).contains(QLatin1String("(s)")));
        }
    }

    void everySourceStringIsInTheFiles()
    {
        // lupdate over the sources, into copies of the committed files: nothing may be new.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList sources;
        for (const char *folder : {"src", "ui"}) {
            QDirIterator it(QStringLiteral(SOURCE_DIR "/") + QLatin1String(folder),
                            {QStringLiteral("*.cpp"), QStringLiteral("*.h"), QStringLiteral("*.ui")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext())
                sources.append(it.next());
        }
        for (const char *name : {"paddock_zh_CN.ts", "paddock_en.ts"}) {
            const QString copy = dir.filePath(QLatin1String(name));
            QVERIFY(QFile::copy(QStringLiteral(TRANSLATIONS_DIR "/") + QLatin1String(name), copy));
            QStringList arguments{QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none")};
            if (QLatin1String(name) == QLatin1String("paddock_en.ts"))
                arguments.append(QStringLiteral("-pluralonly"));
            arguments << sources << QStringLiteral("-ts") << copy;
            QProcess lupdate;
            lupdate.start(QStringLiteral(LUPDATE_PATH), arguments);
            QVERIFY2(lupdate.waitForFinished(120'000), "lupdate did not finish");
            QCOMPARE(lupdate.exitCode(), 0);
            const QString output = QString::fromLocal8Bit(lupdate.readAllStandardOutput());
            // A string lupdate found that the committed file lacks comes out unfinished (the
            // English file keeps only plurals, so its "new" count says nothing).
            for (const Message &message : readTs(copy)) {
                QVERIFY2(message.type != QLatin1String("unfinished"),
                         qPrintable(QStringLiteral("%1 misses \"%2\"; run `cmake --build <dir> --target "
                                                   "update_translations` and translate it.\n%3")
                                        .arg(QLatin1String(name), message.source, output)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
