#pragma once

// Label and field selectors as the API server parses them (apimachinery pkg/labels/selector.go,
// pkg/fields/selector.go): `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
// `k>1`, `k<1`, ANDed by commas; fields `f=v`, `f==v`, `f!=v`.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace PaddockFake::Kube {

struct LabelRequirement
{
    enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
    QString key;
    Op op = Op::Exists;
    QStringList values;
};

class LabelSelector
{
public:
    // nullopt with the reason in *error when `text` does not parse.
    static std::optional<LabelSelector> parse(const QString &text, QString *error);
    bool isEmpty() const { return m_requirements.isEmpty(); }
    bool matches(const QJsonObject &labels) const;
    // Every requirement is `key=value` (or `==`): the set of labels the selector pins down.
    QList<QPair<QString, QString>> equalities() const;

private:
    QList<LabelRequirement> m_requirements;
};

class FieldSelector
{
public:
    struct Term
    {
        QString field;
        bool equals = true;
        QString value;
    };
    // `supported` lists the field labels this resource knows; any other → *error
    // ("field label not supported: x").
    static std::optional<FieldSelector> parse(const QString &text, const QStringList &supported, QString *error);
    bool isEmpty() const { return m_terms.isEmpty(); }
    bool matches(const std::function<QString(const QString &field)> &valueOf) const;
    const QList<Term> &terms() const { return m_terms; }

private:
    QList<Term> m_terms;
};

} // namespace PaddockFake::Kube
