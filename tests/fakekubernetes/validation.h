#pragma once

// What the API server validates that matters to clients: names (RFC 1123 labels and
// subdomains), label keys and values, annotation keys, a few Pod and PVC spec rules, and
// unknown or mistyped fields found against the core/v1 OpenAPI schema (fieldValidation). The
// messages are apimachinery's (pkg/util/validation, pkg/util/validation/field).

#include "kubejson.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace PaddockFake::Kube {

// Each returns apimachinery's messages for `value` (empty when it is valid).
QStringList dns1123LabelErrors(const QString &value);
QStringList dns1123SubdomainErrors(const QString &value);
QStringList qualifiedNameErrors(const QString &value); // label and annotation keys
QStringList labelValueErrors(const QString &value);

// field.Error texts (the body that follows "<field>: ").
QString invalidValue(const QString &value, const QString &detail);
QString requiredValue(const QString &detail = {});
QString unsupportedValue(const QString &value, const QStringList &supported);
QString notFoundValue(const QString &value);
QString duplicateValue(const QString &value);

StatusCause invalidCause(const QString &field, const QString &value, const QString &detail);
StatusCause requiredCause(const QString &field, const QString &detail = {});

// ObjectMeta: name (by `nameErrors`) or generateName, labels, annotations.
QList<StatusCause> validateMetadata(const QJsonObject &metadata, QStringList (*nameErrors)(const QString &));
QList<StatusCause> validatePodSpec(const QJsonObject &spec);
QList<StatusCause> validatePvcSpec(const QJsonObject &spec);

// A Kubernetes quantity ("1Gi", "500m", "2e3") in its base unit; nullopt when it is not one.
std::optional<double> parseQuantity(const QString &text);
inline constexpr QLatin1StringView QuantityPattern{"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"};

// The components.schemas of an OpenAPI v3 document, to find the fields of an object its
// schema does not know (they are dropped, as the API server's decoder drops them) and values
// of the wrong JSON type.
class SchemaIndex
{
public:
    bool load(const QJsonObject &document);
    bool isLoaded() const { return !m_schemas.isEmpty(); }

    struct Result
    {
        QStringList unknownFields; // "spec.foo", "spec.containers[0].bar"
        QString typeError; // Go's json message for the first mistyped value; empty if none
    };
    // Checks `object` as an instance of the schema `name` (e.g. io.k8s.api.core.v1.Pod), removing
    // unknown fields from it.
    Result prune(QJsonObject &object, const QString &name) const;

private:
    QJsonObject resolve(const QJsonObject &schema, QString *name) const;
    void walk(QJsonValue &value, const QJsonObject &schema, const QString &typeName, const QString &path,
              Result &result) const;

    QHash<QString, QJsonObject> m_schemas;
};

} // namespace PaddockFake::Kube
