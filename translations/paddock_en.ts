<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>AllProfiles</name>
    <message numerus="yes">
        <source>%1 of %n profile(s) not up to date</source>
        <translation>
            <numerusform>%1 of %n profile not up to date</numerusform>
            <numerusform>%1 of %n profiles not up to date</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n profile(s), %1</source>
        <translation>
            <numerusform>%n profile, %1</numerusform>
            <numerusform>%n profiles, %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConnectionTester</name>
    <message numerus="yes">
        <source>Connected: %n workspace(s)</source>
        <translation>
            <numerusform>Connected: %n workspace</numerusform>
            <numerusform>Connected: %n workspaces</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DataPanel</name>
    <message numerus="yes">
        <source>%n file(s). Finding which session files refer to them…</source>
        <translation>
            <numerusform>%n file. Finding which session files refer to it…</numerusform>
            <numerusform>%n files. Finding which session files refer to them…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s). References were found in %1 of session files; a file nothing refers to is normal (data/ is never cleaned when sessions are deleted).</source>
        <translation>
            <numerusform>%n file. References were found in %1 of session files; a file nothing refers to is normal (data/ is never cleaned when sessions are deleted).</numerusform>
            <numerusform>%n files. References were found in %1 of session files; a file nothing refers to is normal (data/ is never cleaned when sessions are deleted).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EventHistoryDock</name>
    <message numerus="yes">
        <source>%n line(s) of the event history could not be read and were skipped.</source>
        <translation>
            <numerusform>%n line of the event history could not be read and was skipped.</numerusform>
            <numerusform>%n lines of the event history could not be read and were skipped.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n event(s) to %1</source>
        <translation>
            <numerusform>Exported %n event to %1</numerusform>
            <numerusform>Exported %n events to %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FilesPanel</name>
    <message numerus="yes">
        <source>%n more entry(ies) not shown</source>
        <translation>
            <numerusform>%n more entry not shown</numerusform>
            <numerusform>%n more entries not shown</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LogViewer</name>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n line</numerusform>
            <numerusform>%n lines</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) shown</source>
        <translation>
            <numerusform>%n line shown</numerusform>
            <numerusform>%n lines shown</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n match(es)</source>
        <translation>
            <numerusform>%1 of %n match</numerusform>
            <numerusform>%1 of %n matches</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n match</numerusform>
            <numerusform>%n matches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n second</numerusform>
            <numerusform>%n seconds</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>updated %n second(s) ago</source>
        <translation>
            <numerusform>updated %n second ago</numerusform>
            <numerusform>updated %n seconds ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reading the activity of %n workspace(s)…</source>
        <translation>
            <numerusform>Reading the activity of %n workspace…</numerusform>
            <numerusform>Reading the activity of %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Copied %n workspace id(s)</source>
        <translation>
            <numerusform>Copied %n workspace id</numerusform>
            <numerusform>Copied %n workspace ids</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n running workspace(s) idle longer than %2 min selected.</source>
        <translation>
            <numerusform>%1 of %n running workspace idle longer than %2 min selected.</numerusform>
            <numerusform>%1 of %n running workspaces idle longer than %2 min selected.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>None of %n running workspace(s) has been idle longer than %1 min; the selection is unchanged.</source>
        <translation>
            <numerusform>The %n running workspace has not been idle longer than %1 min; the selection is unchanged.</numerusform>
            <numerusform>None of %n running workspaces has been idle longer than %1 min; the selection is unchanged.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n had no recorded activity and were judged by when they were created.</source>
        <translation>
            <numerusform>%n had no recorded activity and was judged by when it was created.</numerusform>
            <numerusform>%n had no recorded activity and were judged by when they were created.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n had no time at all to go by and were left out.</source>
        <translation>
            <numerusform>%n had no time at all to go by and was left out.</numerusform>
            <numerusform>%n had no time at all to go by and were left out.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) selected.</source>
        <translation>
            <numerusform>%n workspace selected.</numerusform>
            <numerusform>%n workspaces selected.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>McpPanel</name>
    <message numerus="yes">
        <source>%n MCP server(s)</source>
        <translation>
            <numerusform>%n MCP server</numerusform>
            <numerusform>%n MCP servers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n variable(s), values masked</source>
        <translation>
            <numerusform>%n variable, its value masked</numerusform>
            <numerusform>%n variables, values masked</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n header(s), values masked</source>
        <translation>
            <numerusform>%n header, its value masked</numerusform>
            <numerusform>%n headers, values masked</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MetricsChart</name>
    <message numerus="yes">
        <source>CPU %1, memory %2; %n sample(s) over the last %3</source>
        <translation>
            <numerusform>CPU %1, memory %2; %n sample over the last %3</numerusform>
            <numerusform>CPU %1, memory %2; %n samples over the last %3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>NotificationPolicy</name>
    <message numerus="yes">
        <source>%n update(s) from Paddock</source>
        <translation>
            <numerusform>%n update from Paddock</numerusform>
            <numerusform>%n updates from Paddock</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n hour(s)</source>
        <translation>
            <numerusform>%n hour</numerusform>
            <numerusform>%n hours</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n minute(s)</source>
        <translation>
            <numerusform>%n minute</numerusform>
            <numerusform>%n minutes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n second</numerusform>
            <numerusform>%n seconds</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 and %n more</numerusform>
            <numerusform>%1 and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) expire within %1</source>
        <translation>
            <numerusform>%n workspace expires within %1</numerusform>
            <numerusform>%n workspaces expire within %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Bootstrap failed for %n workspace(s)</source>
        <translation>
            <numerusform>Bootstrap failed for %n workspace</numerusform>
            <numerusform>Bootstrap failed for %n workspaces</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were lost</source>
        <translation>
            <numerusform>%n workspace was lost</numerusform>
            <numerusform>%n workspaces were lost</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) expired</source>
        <translation>
            <numerusform>%n workspace expired</numerusform>
            <numerusform>%n workspaces expired</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were deleted outside Paddock</source>
        <translation>
            <numerusform>%n workspace was deleted outside Paddock</numerusform>
            <numerusform>%n workspaces were deleted outside Paddock</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were closed for idleness</source>
        <translation>
            <numerusform>%n workspace was closed for idleness</numerusform>
            <numerusform>%n workspaces were closed for idleness</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>OverviewPanel</name>
    <message numerus="yes">
        <source>%n entry(ies)</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Paddock</name>
    <message numerus="yes">
        <source>bootstrap: %n command(s)</source>
        <translation>
            <numerusform>bootstrap: %n command</numerusform>
            <numerusform>bootstrap: %n commands</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>container log lines may be missing here: %n or more new lines arrived between two polls</source>
        <translation>
            <numerusform>container log lines may be missing here: %n or more new lines arrived between two polls</numerusform>
            <numerusform>container log lines may be missing here: %n or more new lines arrived between two polls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>container log lines may be missing here: %n or more new lines arrived before the stream connected again</source>
        <translation>
            <numerusform>container log lines may be missing here: %n or more new line arrived before the stream connected again</numerusform>
            <numerusform>container log lines may be missing here: %n or more new lines arrived before the stream connected again</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The .mcp file (%n byte(s)) is not valid JSON: %1 at byte %2. AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</source>
        <translation>
            <numerusform>The .mcp file (%n byte) is not valid JSON: %1 at byte %2. AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</numerusform>
            <numerusform>The .mcp file (%n bytes) is not valid JSON: %1 at byte %2. AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The .mcp file (%n byte(s)) is JSON but neither a list (version 1) nor an object with an &quot;mcps&quot; object (version 2). AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</source>
        <translation>
            <numerusform>The .mcp file (%n byte) is JSON but neither a list (version 1) nor an object with an &quot;mcps&quot; object (version 2). AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</numerusform>
            <numerusform>The .mcp file (%n bytes) is JSON but neither a list (version 1) nor an object with an &quot;mcps&quot; object (version 2). AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The skill index (%n byte(s)) is not valid JSON; AgentScope treats it as empty and rewrites it.</source>
        <translation>
            <numerusform>The skill index (%n byte) is not valid JSON; AgentScope treats it as empty and rewrites it.</numerusform>
            <numerusform>The skill index (%n bytes) is not valid JSON; AgentScope treats it as empty and rewrites it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>only %1 of %n byte(s) came back</source>
        <translation>
            <numerusform>only %1 of %n byte came back</numerusform>
            <numerusform>only %1 of %n bytes came back</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>creating a sandbox for workspace %1 failed %n time(s), and no sandbox was made (looked up by its metadata after each): %2</source>
        <translation>
            <numerusform>creating a sandbox for workspace %1 failed %n time, and no sandbox was made (looked up by its metadata after it): %2</numerusform>
            <numerusform>creating a sandbox for workspace %1 failed %n times, and no sandbox was made (looked up by its metadata after each): %2</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProfilesDialog</name>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n second</numerusform>
            <numerusform>%n seconds</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuitController</name>
    <message numerus="yes">
        <source>This console opened %n workspace(s) that are still open. Close them before quitting?</source>
        <translation>
            <numerusform>This console opened %n workspace that is still open. Close it before quitting?</numerusform>
            <numerusform>This console opened %n workspaces that are still open. Close them before quitting?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Closing pauses them, as AgentScope does when it stops. Left running, they keep running (and costing) until they are paused; and nobody renews them once this console has quit, so a sandbox whose server gives it an expiry is deleted with its files when it expires.</source>
        <translation>
            <numerusform>Closing pauses it, as AgentScope does when it stops. Left running, it keeps running (and costing) until it is paused; and nobody renews it once this console has quit, so if its server gives it an expiry, it is deleted with its files when it expires.</numerusform>
            <numerusform>Closing pauses them, as AgentScope does when it stops. Left running, they keep running (and costing) until they are paused; and nobody renews them once this console has quit, so a sandbox whose server gives it an expiry is deleted with its files when it expires.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RenewDialog</name>
    <message numerus="yes">
        <source>%n selected workspace(s) never expire and are skipped.</source>
        <translation>
            <numerusform>%n selected workspace never expires and is skipped.</numerusform>
            <numerusform>%n selected workspaces never expire and are skipped.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Renew %n workspace(s)?</source>
        <translation>
            <numerusform>Renew %n workspace?</numerusform>
            <numerusform>Renew %n workspaces?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) would expire sooner than they do now. An expired sandbox is deleted with its files.</source>
        <translation>
            <numerusform>%n workspace would expire sooner than it does now. An expired sandbox is deleted with its files.</numerusform>
            <numerusform>%n workspaces would expire sooner than they do now. An expired sandbox is deleted with its files.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Shorten the lifetime of %n workspace(s)?</source>
        <translation>
            <numerusform>Shorten the lifetime of %n workspace?</numerusform>
            <numerusform>Shorten the lifetime of %n workspaces?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) are paused with their timer stopped and are skipped: resuming one starts a new timeout.</source>
        <translation>
            <numerusform>%n selected workspace is paused with its timer stopped and is skipped: resuming it starts a new timeout.</numerusform>
            <numerusform>%n selected workspaces are paused with their timer stopped and are skipped: resuming one starts a new timeout.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SessionsPanel</name>
    <message numerus="yes">
        <source>context.jsonl: reading, %1 of %2, %n message(s) so far</source>
        <translation>
            <numerusform>context.jsonl: reading, %1 of %2, %n message so far</numerusform>
            <numerusform>context.jsonl: reading, %1 of %2, %n messages so far</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>context.jsonl: %1, %2 lines, %n message(s)</source>
        <translation>
            <numerusform>context.jsonl: %1, %2 lines, %n message</numerusform>
            <numerusform>context.jsonl: %1, %2 lines, %n messages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TranscriptModel</name>
    <message numerus="yes">
        <source>%n tool call(s)</source>
        <translation>
            <numerusform>%n tool call</numerusform>
            <numerusform>%n tool calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n data file(s)</source>
        <translation>
            <numerusform>%n data file</numerusform>
            <numerusform>%n data files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n character</numerusform>
            <numerusform>%n characters</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TrayController</name>
    <message numerus="yes">
        <source>%n running</source>
        <translation>
            <numerusform>%n running</numerusform>
            <numerusform>%n running</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n expiring soon</source>
        <translation>
            <numerusform>%n expiring soon</numerusform>
            <numerusform>%n expiring soon</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkspaceActionController</name>
    <message numerus="yes">
        <source>Close %n workspace(s)? They are released and their sandboxes paused.</source>
        <translation>
            <numerusform>Close %n workspace? It is released and its sandbox paused.</numerusform>
            <numerusform>Close %n workspaces? They are released and their sandboxes paused.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Pause %n workspace(s)?</source>
        <translation>
            <numerusform>Pause %n workspace?</numerusform>
            <numerusform>Pause %n workspaces?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Resume %n workspace(s)?</source>
        <translation>
            <numerusform>Resume %n workspace?</numerusform>
            <numerusform>Resume %n workspaces?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their containers are removed. Their /workspace folders stay on this computer unless you delete them too. This cannot be undone.</source>
        <translation>
            <numerusform>Kill %n workspace? Its container is removed. Its /workspace folder stays on this computer unless you delete it too. This cannot be undone.</numerusform>
            <numerusform>Kill %n workspaces? Their containers are removed. Their /workspace folders stay on this computer unless you delete them too. This cannot be undone.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their sandboxes are deleted with everything in them that is not kept elsewhere. This cannot be undone.</source>
        <translation>
            <numerusform>Kill %n workspace? Its sandbox is deleted with everything in it that is not kept elsewhere. This cannot be undone.</numerusform>
            <numerusform>Kill %n workspaces? Their sandboxes are deleted with everything in them that is not kept elsewhere. This cannot be undone.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) do not fit this action and are skipped.</source>
        <translation>
            <numerusform>%n selected workspace does not fit this action and is skipped.</numerusform>
            <numerusform>%n selected workspaces do not fit this action and are skipped.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Closing %n workspace(s)…</source>
        <translation>
            <numerusform>Closing %n workspace…</numerusform>
            <numerusform>Closing %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Pausing %n workspace(s)…</source>
        <translation>
            <numerusform>Pausing %n workspace…</numerusform>
            <numerusform>Pausing %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Resuming %n workspace(s)…</source>
        <translation>
            <numerusform>Resuming %n workspace…</numerusform>
            <numerusform>Resuming %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Renewing %n workspace(s)…</source>
        <translation>
            <numerusform>Renewing %n workspace…</numerusform>
            <numerusform>Renewing %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Killing %n workspace(s)…</source>
        <translation>
            <numerusform>Killing %n workspace…</numerusform>
            <numerusform>Killing %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n workspace(s) done</source>
        <translation>
            <numerusform>%1 of %n workspace done</numerusform>
            <numerusform>%1 of %n workspaces done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cancelled</source>
        <translation>
            <numerusform>%n cancelled</numerusform>
            <numerusform>%n cancelled</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n failed</numerusform>
            <numerusform>%n failed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Close %n workspace(s)? They are released and their sandboxes stopped: their processes end, their files are kept.</source>
        <translation>
            <numerusform>Close %n workspace? It is released and its sandbox stopped: its processes end, its files are kept.</numerusform>
            <numerusform>Close %n workspaces? They are released and their sandboxes stopped: their processes end, their files are kept.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n workspace(s)? Their processes end; their files are kept, and Resume starts them again on the same files.</source>
        <translation>
            <numerusform>Stop %n workspace? Its processes end; its files are kept, and Resume starts it again on the same files.</numerusform>
            <numerusform>Stop %n workspaces? Their processes end; their files are kept, and Resume starts them again on the same files.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stopping %n workspace(s)…</source>
        <translation>
            <numerusform>Stopping %n workspace…</numerusform>
            <numerusform>Stopping %n workspaces…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) are in read-only profiles and are skipped.</source>
        <translation>
            <numerusform>%n selected workspace is in a read-only profile and is skipped.</numerusform>
            <numerusform>%n selected workspaces are in read-only profiles and are skipped.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skipped (read-only profile)</source>
        <translation>
            <numerusform>%n skipped (read-only profile)</numerusform>
            <numerusform>%n skipped (read-only profiles)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkspaceCountLabel</name>
    <message numerus="yes">
        <source>%n workspace(s)</source>
        <translation>
            <numerusform>%n workspace</numerusform>
            <numerusform>%n workspaces</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n workspace(s) shown</source>
        <translation>
            <numerusform>%1 of %n workspace shown</numerusform>
            <numerusform>%1 of %n workspaces shown</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkspaceTreeModel</name>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n min ago</numerusform>
            <numerusform>%n min ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n h ago</numerusform>
            <numerusform>%n h ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n days ago</source>
        <translation>
            <numerusform>%n day ago</numerusform>
            <numerusform>%n days ago</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>paddockctl</name>
    <message numerus="yes">
        <source>Sessions (%n)</source>
        <translation>
            <numerusform>Sessions (%n)</numerusform>
            <numerusform>Sessions (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Data (%n file(s))</source>
        <translation>
            <numerusform>Data (%n file)</numerusform>
            <numerusform>Data (%n files)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their sandboxes are deleted. [y/N] </source>
        <translation>
            <numerusform>Kill %n workspace? Its sandbox is deleted. [y/N] </numerusform>
            <numerusform>Kill %n workspaces? Their sandboxes are deleted. [y/N] </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>kill --all would kill %n workspace(s): give --yes to do it without being asked (stdin is not a terminal), or --dry-run to see which</source>
        <translation>
            <numerusform>kill --all would kill %n workspace: give --yes to do it without being asked (stdin is not a terminal), or --dry-run to see which</numerusform>
            <numerusform>kill --all would kill %n workspaces: give --yes to do it without being asked (stdin is not a terminal), or --dry-run to see which</numerusform>
        </translation>
    </message>
</context>
</TS>
