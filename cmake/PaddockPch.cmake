# Precompiled headers (PADDOCK_PCH, on in the ci and asan presets): the standard library, Qt,
# QCoro and tl::expected headers most files include, compiled once per flavour instead of in each
# of the ~300 translation units. See README.md, "Building in CI", for what it saves.
#
# GCC uses a precompiled header only if every macro defined when it was made is defined the same
# way where it is used, and no macro it tests is defined differently: so each flavour is made by a
# small target of its own (paddock_pch_<flavour>, one empty source) that links exactly what its
# users have in common, and its users take it with REUSE_FROM. QtTest defines the test's source
# and build folders (QT_TESTCASE_SOURCEDIR, QT_TESTCASE_BUILDDIR), so a flavour with QtTest is
# made once per folder, where at least three targets use it. -Winvalid-pch (an error with
# PADDOCK_WERROR) says so if a header ever goes unused instead.

set(paddock_pch_std <algorithm> <chrono> <functional> <memory> <optional> <utility> <vector>)
set(paddock_pch_qtcore
    <QByteArray> <QDateTime> <QDir> <QFile> <QFileInfo> <QHash> <QJsonArray> <QJsonDocument>
    <QJsonObject> <QList> <QLoggingCategory> <QMap> <QObject> <QPointer> <QProcess>
    <QRegularExpression> <QScopeGuard> <QSet> <QString> <QStringList> <QTimer> <QUrl>)
set(paddock_pch_qtnetwork <QNetworkAccessManager> <QNetworkReply> <QTcpServer>)
set(paddock_pch_qcoro <QCoroFwd> <QCoroTask> <QCoroTimer> <QCoroNetworkReply> <QCoroProcess> <tl/expected.hpp>)
set(paddock_pch_widgets
    <QAction> <QApplication> <QCheckBox> <QComboBox> <QDialog> <QDialogButtonBox> <QDockWidget>
    <QHBoxLayout> <QHeaderView> <QLabel> <QLineEdit> <QMainWindow> <QMenu> <QMessageBox>
    <QPushButton> <QSettings> <QTabWidget> <QToolButton> <QTreeView> <QVBoxLayout> <QWidget>)
set(paddock_pch_qttest <QSignalSpy> <QTemporaryDir> <QTest>)

# The flavour of a target: core (paddockcore's interface), gui (+ QtWidgets) or fake (the fake
# servers: QtCore, QtNetwork, QtWebSockets), then _tc for test code (QT_RESTRICTED_CAST_FROM_ASCII)
# and _qttest for QtTest. Empty: no precompiled header (targets that fit no flavour).
function(paddock_pch_flavour target out)
    set(${out} "" PARENT_SCOPE)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY)$")
        return()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    if(NOT sources)
        return()
    endif()
    get_target_property(links ${target} LINK_LIBRARIES)
    if(NOT links)
        return()
    endif()
    get_target_property(test ${target} PADDOCK_TEST_CODE)
    if(paddockgui IN_LIST links OR Qt6::Widgets IN_LIST links)
        set(flavour gui)
    elseif(target STREQUAL "paddockcore" OR paddockcore IN_LIST links OR paddockconformance IN_LIST links)
        set(flavour core)
    elseif(test AND (target MATCHES "fake" OR links MATCHES "paddockfake"))
        set(flavour fake)
    else()
        return()
    endif()
    if(test)
        string(APPEND flavour _tc)
    endif()
    if(Qt6::Test IN_LIST links)
        string(APPEND flavour _qttest)
    endif()
    # Product code never uses QtTest; the fake servers' flavour is test code without QtTest.
    if(flavour MATCHES "^fake_tc$|_tc_qttest$|^(core|gui)$")
        set(${out} ${flavour} PARENT_SCOPE)
    endif()
endfunction()

function(paddock_pch_donor flavour donor)
    add_library(${donor} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
    set_target_properties(${donor} PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
    set(headers ${paddock_pch_std} ${paddock_pch_qtcore} ${paddock_pch_qtnetwork})
    if(flavour MATCHES "^fake")
        target_link_libraries(${donor} PRIVATE Qt6::Core Qt6::Network Qt6::WebSockets paddock_options)
    else()
        target_link_libraries(${donor} PRIVATE Qt6::Core Qt6::Network Qt6::Concurrent Qt6::WebSockets
            QCoro6::Core QCoro6::Network tl::expected paddock_options)
        list(APPEND headers ${paddock_pch_qcoro})
    endif()
    if(flavour MATCHES "^gui")
        target_link_libraries(${donor} PRIVATE Qt6::Widgets)
        list(APPEND headers ${paddock_pch_widgets})
    endif()
    if(flavour MATCHES "_tc")
        set_target_properties(${donor} PROPERTIES PADDOCK_TEST_CODE ON)
    endif()
    if(flavour MATCHES "_qttest")
        target_link_libraries(${donor} PRIVATE Qt6::Test)
        list(APPEND headers ${paddock_pch_qttest})
    endif()
    target_precompile_headers(${donor} PRIVATE ${headers})
endfunction()

# Called at the end of each CMakeLists.txt that makes targets: gives every target of this folder
# the precompiled header of its flavour.
function(paddock_precompile_directory)
    if(NOT PADDOCK_PCH)
        return()
    endif()
    get_property(targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
    list(FILTER targets EXCLUDE REGEX "^paddock_pch_")
    string(MAKE_C_IDENTIFIER "${CMAKE_CURRENT_SOURCE_DIR}" here)
    string(MD5 here "${here}")
    string(SUBSTRING "${here}" 0 8 here)
    set(users)
    foreach(target IN LISTS targets)
        paddock_pch_flavour(${target} flavour)
        if(flavour)
            list(APPEND users ${target})
            set(flavour_${target} ${flavour})
            list(APPEND count_${flavour} ${target})
        endif()
    endforeach()
    foreach(target IN LISTS users)
        set(flavour ${flavour_${target}})
        if(flavour MATCHES "_qttest$")
            list(LENGTH count_${flavour} n)
            if(n LESS 3)
                continue()
            endif()
            set(donor paddock_pch_${flavour}_${here})
        else()
            set(donor paddock_pch_${flavour})
        endif()
        if(NOT TARGET ${donor})
            paddock_pch_donor(${flavour} ${donor})
        endif()
        target_precompile_headers(${target} REUSE_FROM ${donor})
        # A test includes its own moc output, so its mocs_compilation.cpp is mostly empty: loading
        # the header there would cost half a second for nothing.
        if(flavour MATCHES "_qttest$")
            set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
        endif()
    endforeach()
endfunction()
