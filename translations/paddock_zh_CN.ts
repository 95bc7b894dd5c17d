<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ActivityTracker</name>
    <message>
        <source>the profile went away</source>
        <translation>配置文件已不存在</translation>
    </message>
</context>
<context>
    <name>AllProfiles</name>
    <message>
        <source>opening again…</source>
        <translation>正在重新打开…</translation>
    </message>
    <message>
        <source>cannot be opened</source>
        <translation>无法打开</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n profile(s) not up to date</source>
        <translation>
            <numerusform>%n 个配置文件中有 %1 个不是最新</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n profile(s), %1</source>
        <translation>
            <numerusform>%n 个配置文件，%1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>AppearanceMenu</name>
    <message>
        <source>&amp;Appearance</source>
        <translation>外观(&amp;A)</translation>
    </message>
    <message>
        <source>Follow &amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
</context>
<context>
    <name>CommandActions</name>
    <message>
        <source>This workspace has no terminal command: its backend cannot be reached from a terminal on this computer.</source>
        <translation>此工作区没有终端命令：无法从这台计算机上的终端访问其后端。</translation>
    </message>
    <message>
        <source>Open Terminal</source>
        <translation>打开终端</translation>
    </message>
    <message>
        <source>Workspace %1 is not in the profile the actions work on now (the profile shown changed): choose it again.</source>
        <translation>工作区 %1 不在当前操作所针对的配置文件中（显示的配置文件已更改）：请重新选择它。</translation>
    </message>
    <message>
        <source>This profile is read-only: it opens no terminal into its workspaces.</source>
        <translation>此配置文件为只读：不会为其工作区打开终端。</translation>
    </message>
</context>
<context>
    <name>ConfirmDialog</name>
    <message>
        <source>Workspaces this applies to</source>
        <translation>本操作涉及的工作区</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Sandbox ID</source>
        <translation>沙箱 ID</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
</context>
<context>
    <name>ConnectionTester</name>
    <message>
        <source>Test cancelled.</source>
        <translation>测试已取消。</translation>
    </message>
    <message>
        <source>Cancel Test</source>
        <translation>取消测试</translation>
    </message>
    <message>
        <source>T&amp;est Connection</source>
        <translation>测试连接(&amp;E)</translation>
    </message>
    <message>
        <source>List the workspaces once with the profile as the form shows it, without saving it</source>
        <translation>按表单当前内容使用此配置文件列出一次工作区，不保存</translation>
    </message>
    <message>
        <source>This kind of backend is not available in this build.</source>
        <translation>此版本不支持这种后端。</translation>
    </message>
    <message>
        <source>Not tested: %1</source>
        <translation>未测试：%1</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>The key could not be read: %1</source>
        <translation>无法读取密钥：%1</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>Connected: %n workspace(s)</source>
        <translation>
            <numerusform>已连接：%n 个工作区</numerusform>
        </translation>
    </message>
    <message>
        <source>Failed without a key (none is typed or stored for this profile): %1</source>
        <translation>未使用密钥时失败（此配置文件没有输入或存储的密钥）：%1</translation>
    </message>
</context>
<context>
    <name>ConsoleEvent</name>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Renew</source>
        <translation>续期</translation>
    </message>
    <message>
        <source>Kill</source>
        <translation>销毁</translation>
    </message>
    <message>
        <source>Opening</source>
        <translation>正在打开</translation>
    </message>
    <message>
        <source>Opened</source>
        <translation>已打开</translation>
    </message>
    <message>
        <source>Open failed</source>
        <translation>打开失败</translation>
    </message>
    <message>
        <source>Closed</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>Renewed</source>
        <translation>已续期</translation>
    </message>
    <message>
        <source>Killed</source>
        <translation>已销毁</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>已丢失</translation>
    </message>
    <message>
        <source>Action failed</source>
        <translation>操作失败</translation>
    </message>
    <message>
        <source>Appeared</source>
        <translation>新出现</translation>
    </message>
    <message>
        <source>State changed</source>
        <translation>状态改变</translation>
    </message>
    <message>
        <source>Deleted elsewhere</source>
        <translation>在别处被删除</translation>
    </message>
    <message>
        <source>Expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>Clock changed</source>
        <translation>时钟改变</translation>
    </message>
    <message>
        <source>%1 failed</source>
        <translation>%1失败</translation>
    </message>
    <message>
        <source>Now %1</source>
        <translation>变为%1</translation>
    </message>
    <message>
        <source>This console</source>
        <translation>本控制台</translation>
    </message>
    <message>
        <source>Idle sweeper</source>
        <translation>空闲扫描</translation>
    </message>
    <message>
        <source>Elsewhere</source>
        <translation>别处</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>was %1</source>
        <translation>原为%1</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1；%2</translation>
    </message>
</context>
<context>
    <name>ConsoleEvents</name>
    <message>
        <source>The system clock moved %1 ahead of the time that passed; times before and after this may not compare.</source>
        <translation>系统时钟比实际经过的时间快了 %1；此前与此后的时间可能无法比较。</translation>
    </message>
    <message>
        <source>The system clock moved %1 back; times before and after this may not compare.</source>
        <translation>系统时钟被回拨了 %1；此前与此后的时间可能无法比较。</translation>
    </message>
</context>
<context>
    <name>DataPanel</name>
    <message>
        <source>The session files could not all be read to find what refers to each data file: %1</source>
        <translation>未能读取全部会话文件来查找引用各数据文件的位置：%1</translation>
    </message>
    <message>
        <source>data/ could not be read: %1</source>
        <translation>无法读取 data/：%1</translation>
    </message>
    <message>
        <source>There is no data/ folder: nothing was offloaded from a context yet.</source>
        <translation>没有 data/ 文件夹：尚未从上下文中卸出任何内容。</translation>
    </message>
    <message>
        <source>data/ is empty.</source>
        <translation>data/ 为空。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s). Finding which session files refer to them…</source>
        <translation>
            <numerusform>%n 个文件。正在查找引用它们的会话文件…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s). References were found in %1 of session files; a file nothing refers to is normal (data/ is never cleaned when sessions are deleted).</source>
        <translation>
            <numerusform>%n 个文件。已在 %1 的会话文件中查找引用；没有被引用的文件是正常的（删除会话时不会清理 data/）。</numerusform>
        </translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>Not named as AgentScope names data files (the SHA-256 of their content and an extension): shown as it is.</source>
        <translation>其名称不符合 AgentScope 为数据文件命名的方式（内容的 SHA-256 加扩展名）：按原样显示。</translation>
    </message>
    <message>
        <source>Referred to from:</source>
        <translation>引用位置：</translation>
    </message>
    <message>
        <source>No session file refers to it (normal: data/ is never cleaned).</source>
        <translation>没有会话文件引用它（这是正常的：data/ 从不清理）。</translation>
    </message>
    <message>
        <source>%1: %2. There is no preview of this type here; Save As… writes it to a file of your choice.</source>
        <translation>%1：%2。此处无法预览这种类型；“另存为…”可将其写入您选择的文件。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Referred To From</source>
        <translation>引用位置</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
</context>
<context>
    <name>E2BKeyOffer</name>
    <message>
        <source>E2B</source>
        <translation>E2B</translation>
    </message>
    <message>
        <source>E2B (%1)</source>
        <translation>E2B（%1）</translation>
    </message>
    <message>
        <source> (team %1)</source>
        <translation>（团队 %1）</translation>
    </message>
    <message>
        <source>the environment variable E2B_API_KEY and in %1%2</source>
        <translation>环境变量 E2B_API_KEY 以及 %1%2</translation>
    </message>
    <message>
        <source>the environment variable E2B_API_KEY</source>
        <translation>环境变量 E2B_API_KEY</translation>
    </message>
    <message>
        <source>The plain-text copies in %1 and in the environment variable E2B_API_KEY are still there: E2B&apos;s CLI keeps its key in that file, and Paddock did not change it.</source>
        <translation>%1 和环境变量 E2B_API_KEY 中的明文副本仍然存在：E2B 的 CLI 把它的密钥保存在该文件中，Paddock 没有改动它。</translation>
    </message>
    <message>
        <source>The plain-text copy in the environment variable E2B_API_KEY is still there (wherever it is set, such as a shell&apos;s startup file); Paddock does not need it any more.</source>
        <translation>环境变量 E2B_API_KEY 中的明文副本仍然存在（在设置它的地方，例如 shell 的启动文件）；Paddock 已不再需要它。</translation>
    </message>
    <message>
        <source>The plain-text copy in %1 is still there: E2B&apos;s CLI keeps its key in that file, and Paddock did not change it.</source>
        <translation>%1 中的明文副本仍然存在：E2B 的 CLI 把它的密钥保存在该文件中，Paddock 没有改动它。</translation>
    </message>
    <message>
        <source>&amp;Add Profile</source>
        <translation>添加配置文件(&amp;A)</translation>
    </message>
    <message>
        <source>Make an E2B profile with this key, the key kept in the system keychain</source>
        <translation>用此密钥创建 E2B 配置文件，密钥保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>Not &amp;Now</source>
        <translation>暂不(&amp;N)</translation>
    </message>
    <message>
        <source>Ask again when Paddock starts next</source>
        <translation>下次启动 Paddock 时再询问</translation>
    </message>
    <message>
        <source>&amp;Don&apos;t Ask Again</source>
        <translation>不再询问(&amp;D)</translation>
    </message>
    <message>
        <source>Never offer an existing E2B API key again</source>
        <translation>不再提示使用已有的 E2B API 密钥</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Found an E2B API key in %1. Add an E2B profile?</source>
        <translation>在 %1 中找到一个 E2B API 密钥。要添加 E2B 配置文件吗？</translation>
    </message>
    <message>
        <source>⚠ It does not look like an E2B API key: %1</source>
        <translation>⚠ 它看起来不像 E2B API 密钥：%1</translation>
    </message>
    <message>
        <source>Storing the API key in the system keychain…</source>
        <translation>正在将 API 密钥存入系统钥匙串…</translation>
    </message>
    <message>
        <source>Added the E2B profile &quot;%1&quot;; its API key is in the system keychain.</source>
        <translation>已添加 E2B 配置文件“%1”；其 API 密钥保存在系统钥匙串中。</translation>
    </message>
    <message>
        <source>Added the E2B profile &quot;%1&quot;, but the system keychain is unavailable, so its API key is kept in memory only until Paddock quits.</source>
        <translation>已添加 E2B 配置文件“%1”，但系统钥匙串不可用，因此其 API 密钥只保存在内存中，直到 Paddock 退出。</translation>
    </message>
    <message>
        <source>No E2B profile was made: %1</source>
        <translation>未创建 E2B 配置文件：%1</translation>
    </message>
    <message>
        <source>E2B API key found</source>
        <translation>找到 E2B API 密钥</translation>
    </message>
</context>
<context>
    <name>EventHistory</name>
    <message>
        <source>Cannot read the event history %1: %2</source>
        <translation>无法读取事件历史 %1：%2</translation>
    </message>
    <message>
        <source>Cannot write the event history %1: %2</source>
        <translation>无法写入事件历史 %1：%2</translation>
    </message>
    <message>
        <source>Cannot rotate the event history %1</source>
        <translation>无法轮换事件历史 %1</translation>
    </message>
    <message>
        <source>Time (UTC)</source>
        <translation>时间（UTC）</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>By</source>
        <translation>执行者</translation>
    </message>
    <message>
        <source>From</source>
        <translation>原状态</translation>
    </message>
    <message>
        <source>To</source>
        <translation>新状态</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
</context>
<context>
    <name>EventHistoryDock</name>
    <message numerus="yes">
        <source>%n line(s) of the event history could not be read and were skipped.</source>
        <translation>
            <numerusform>事件历史中有 %n 行无法读取，已跳过。</numerusform>
        </translation>
    </message>
    <message>
        <source>Event History</source>
        <translation>事件历史</translation>
    </message>
    <message>
        <source>&amp;Event History</source>
        <translation>事件历史(&amp;E)</translation>
    </message>
    <message>
        <source>Show or hide every event the console saw or caused</source>
        <translation>显示或隐藏控制台看到或引起的所有事件</translation>
    </message>
    <message>
        <source>Filter events</source>
        <translation>筛选事件</translation>
    </message>
    <message>
        <source>All profiles</source>
        <translation>所有配置文件</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>All events</source>
        <translation>所有事件</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Anyone</source>
        <translation>任何执行者</translation>
    </message>
    <message>
        <source>Done by</source>
        <translation>执行者</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the events shown as a CSV file</source>
        <translation>将显示的事件保存为 CSV 文件</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export Events</source>
        <translation>导出事件</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n event(s) to %1</source>
        <translation>
            <numerusform>已将 %n 个事件导出到 %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EventHistoryModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>By</source>
        <translation>执行者</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>%1 (UTC: %2)</source>
        <translation>%1（UTC：%2）</translation>
    </message>
    <message>
        <source>%1 (sandbox %2)</source>
        <translation>%1（沙箱 %2）</translation>
    </message>
</context>
<context>
    <name>FilePreview</name>
    <message>
        <source>%1: %2 × %3 pixels</source>
        <translation>%1：%2 × %3 像素</translation>
    </message>
    <message>
        <source>(shown at %1 × %2)</source>
        <translation>（以 %1 × %2 显示）</translation>
    </message>
    <message>
        <source>%1 cannot be shown: %2</source>
        <translation>无法显示 %1：%2</translation>
    </message>
    <message>
        <source>%1: reading…</source>
        <translation>%1：正在读取…</translation>
    </message>
    <message>
        <source>&amp;Save As…</source>
        <translation>另存为(&amp;S)…</translation>
    </message>
    <message>
        <source>Save a copy of this file on this computer (the workspace is not changed)</source>
        <translation>在这台计算机上保存此文件的副本（不会改动工作区）</translation>
    </message>
</context>
<context>
    <name>FilesPanel</name>
    <message>
        <source>The profile was closed: there is nothing to read.</source>
        <translation>配置文件已关闭：没有可读取的内容。</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>workdir</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>gateway home</source>
        <translation>网关主目录</translation>
    </message>
    <message>
        <source>cannot be read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n more entry(ies) not shown</source>
        <translation>
            <numerusform>另有 %n 项未显示</numerusform>
        </translation>
    </message>
    <message>
        <source>folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>link to %1</source>
        <translation>指向 %1 的链接</translation>
    </message>
    <message>
        <source>device, socket or pipe</source>
        <translation>设备、套接字或管道</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>%1: a folder</source>
        <translation>%1：文件夹</translation>
    </message>
    <message>
        <source>%1: a device, socket or pipe; it is not read</source>
        <translation>%1：设备、套接字或管道；不会读取它</translation>
    </message>
    <message>
        <source>%1: the MCP servers of each session. Its values hold secrets, so its text is not shown here: MCP Servers shows it with every secret masked.</source>
        <translation>%1：各会话的 MCP 服务器。其中的值包含机密，因此这里不显示其文本：“MCP 服务器”页会遮盖所有机密后显示它。</translation>
    </message>
    <message>
        <source>%1: a link; what it points to is shown</source>
        <translation>%1：链接；显示的是它指向的内容</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>种类</translation>
    </message>
</context>
<context>
    <name>GatewayPanel</name>
    <message>
        <source>no temporary folder for the masked copy: %1</source>
        <translation>没有可存放遮盖后副本的临时文件夹：%1</translation>
    </message>
    <message>
        <source>The last %1 of gateway.log in %2, read now; likely secrets are masked. Show it again to read it again.</source>
        <translation>%2 中 gateway.log 的最后 %1，刚刚读取；疑似机密已遮盖。再次显示即可重新读取。</translation>
    </message>
    <message>
        <source>gateway.log: %1</source>
        <translation>gateway.log：%1</translation>
    </message>
    <message>
        <source>The gateway could not be read: %1</source>
        <translation>无法读取网关：%1</translation>
    </message>
    <message>
        <source>gateway.log could not be shown: %1</source>
        <translation>无法显示 gateway.log：%1</translation>
    </message>
    <message>
        <source>Asking the gateway for /health from inside the workspace…</source>
        <translation>正在从工作区内部向网关询问 /health…</translation>
    </message>
    <message>
        <source>Reading gateway.log…</source>
        <translation>正在读取 gateway.log…</translation>
    </message>
    <message>
        <source>Reading the gateway home…</source>
        <translation>正在读取网关主目录…</translation>
    </message>
    <message>
        <source>The gateway home could not be read: %1</source>
        <translation>无法读取网关主目录：%1</translation>
    </message>
    <message>
        <source>Gateway home</source>
        <translation>网关主目录</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>为空</translation>
    </message>
    <message>
        <source>present</source>
        <translation>存在</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>An empty gateway script is never valid (an older Paddock wrote it); Paddock removes it when it opens the workspace.</source>
        <translation>空的网关脚本永远无效（由旧版 Paddock 写入）；Paddock 打开工作区时会删除它。</translation>
    </message>
    <message>
        <source>AgentScope&apos;s MCP gateway, written last by its bootstrap.</source>
        <translation>AgentScope 的 MCP 网关，由其初始化最后写入。</translation>
    </message>
    <message>
        <source>absent</source>
        <translation>不存在</translation>
    </message>
    <message>
        <source>Paddock&apos;s marker: written last by a bootstrap that is not AgentScope&apos;s.</source>
        <translation>Paddock 的标记：由非 AgentScope 的初始化最后写入。</translation>
    </message>
    <message>
        <source>The bootstrap is complete: AgentScope&apos;s bootstrap wrote the gateway script last.</source>
        <translation>初始化已完成：AgentScope 的初始化最后写入了网关脚本。</translation>
    </message>
    <message>
        <source>The bootstrap is complete (Paddock&apos;s marker); that bootstrap installs no gateway.</source>
        <translation>初始化已完成（Paddock 的标记）；这种初始化不安装网关。</translation>
    </message>
    <message>
        <source>The bootstrap is not complete: there is no gateway script and no marker; opening the workspace bootstraps it again.</source>
        <translation>初始化未完成：既没有网关脚本也没有标记；打开工作区时会重新初始化。</translation>
    </message>
    <message>
        <source>Bootstrap</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>complete</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>not complete</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>%1, changed %2</source>
        <translation>%1，修改于 %2</translation>
    </message>
    <message>
        <source>Emptied each time the gateway starts.</source>
        <translation>每次网关启动时清空。</translation>
    </message>
    <message>
        <source>The gateway has not been started here.</source>
        <translation>网关尚未在此启动过。</translation>
    </message>
    <message>
        <source>port %1 (from its command line)</source>
        <translation>端口 %1（取自其命令行）</translation>
    </message>
    <message>
        <source>port %1 (the default)</source>
        <translation>端口 %1（默认值）</translation>
    </message>
    <message>
        <source>not asked</source>
        <translation>未询问</translation>
    </message>
    <message>
        <source>Check Health asks it from inside the workspace.</source>
        <translation>“检查健康状态”会从工作区内部询问它。</translation>
    </message>
    <message>
        <source>answers</source>
        <translation>有应答</translation>
    </message>
    <message>
        <source>The gateway answers on %1 (asked with %2).</source>
        <translation>网关在 %1 上有应答（使用 %2 询问）。</translation>
    </message>
    <message>
        <source>not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>The gateway is not running: nothing listens on %1 (the workspace was paused or made again since, or the gateway crashed: see gateway.log).</source>
        <translation>网关未运行：%1 上没有程序监听（之后工作区被暂停或重建，或网关已崩溃：请查看 gateway.log）。</translation>
    </message>
    <message>
        <source>unexpected answer</source>
        <translation>应答不符合预期</translation>
    </message>
    <message>
        <source>The gateway did not answer as expected on %1.</source>
        <translation>网关在 %1 上的应答不符合预期。</translation>
    </message>
    <message>
        <source>cannot be asked</source>
        <translation>无法询问</translation>
    </message>
    <message>
        <source>The gateway cannot be asked: the workspace has none of curl, wget, python3, bash or busybox.</source>
        <translation>无法询问网关：工作区中没有 curl、wget、python3、bash 或 busybox。</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>健康状态</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>应答</translation>
    </message>
    <message>
        <source>Check &amp;Health</source>
        <translation>检查健康状态(&amp;H)</translation>
    </message>
    <message>
        <source>Ask the gateway&apos;s /health from inside the workspace (one read-only command; it works without curl)</source>
        <translation>从工作区内部询问网关的 /health（一条只读命令；没有 curl 也可以）</translation>
    </message>
    <message>
        <source>Show &amp;gateway.log</source>
        <translation>显示 gateway.log(&amp;G)</translation>
    </message>
    <message>
        <source>Show the last part of gateway.log in the Logs dock, likely secrets masked</source>
        <translation>在日志停靠窗口中显示 gateway.log 的最后部分，疑似机密已遮盖</translation>
    </message>
</context>
<context>
    <name>Inspector</name>
    <message>
        <source>%1 is larger than the %2 an image preview reads</source>
        <translation>%1 超过了图片预览读取的上限 %2</translation>
    </message>
    <message>
        <source>not an image Qt can read (%1)</source>
        <translation>不是 Qt 能读取的图片（%1）</translation>
    </message>
    <message>
        <source>This backend cannot read a workspace&apos;s files or run commands in it: %1</source>
        <translation>此后端无法读取工作区的文件或在其中运行命令：%1</translation>
    </message>
    <message>
        <source>Not found: %1</source>
        <translation>未找到：%1</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
    <message>
        <source>The workspace could not be reached: %1</source>
        <translation>无法连接到工作区：%1</translation>
    </message>
    <message>
        <source>Not read: %1</source>
        <translation>未读取：%1</translation>
    </message>
    <message>
        <source>Save %1 As</source>
        <translation>将 %1 另存为</translation>
    </message>
    <message>
        <source>%1 was not saved: the workspace is no longer shown</source>
        <translation>%1 未保存：该工作区已不再显示</translation>
    </message>
    <message>
        <source>Saving %1…</source>
        <translation>正在保存 %1…</translation>
    </message>
    <message>
        <source>Saved %1 as %2</source>
        <translation>已将 %1 保存为 %2</translation>
    </message>
    <message>
        <source>%1 was not saved: %2</source>
        <translation>%1 未保存：%2</translation>
    </message>
</context>
<context>
    <name>InspectorDock</name>
    <message>
        <source>A group of workspaces is selected: select one workspace to see what is inside it.</source>
        <translation>选中的是一组工作区：请选择一个工作区以查看其中的内容。</translation>
    </message>
    <message>
        <source>This profile cannot be used now, so there is nothing to inspect.</source>
        <translation>此配置文件现在无法使用，因此没有可检查的内容。</translation>
    </message>
    <message>
        <source>Select a workspace in the list to see what is inside it.</source>
        <translation>在列表中选择一个工作区以查看其中的内容。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>&amp;Inspector</source>
        <translation>检查器(&amp;I)</translation>
    </message>
    <message>
        <source>Show or hide what is inside the current workspace</source>
        <translation>显示或隐藏当前工作区中的内容</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>MCP Servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Gateway</source>
        <translation>网关</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Redact</source>
        <translation>脱敏</translation>
    </message>
    <message>
        <source>Mask likely secrets (tokens, keys, passwords) in transcripts, tool results and file previews. MCP secrets are always masked.</source>
        <translation>遮盖对话记录、工具结果和文件预览中的疑似机密（令牌、密钥、密码）。MCP 机密始终会被遮盖。</translation>
    </message>
    <message>
        <source>Redact likely secrets</source>
        <translation>遮盖疑似机密</translation>
    </message>
    <message>
        <source>Read this tab again</source>
        <translation>重新读取此标签页</translation>
    </message>
    <message>
        <source>Read again</source>
        <translation>重新读取</translation>
    </message>
</context>
<context>
    <name>InspectorPanel</name>
    <message>
        <source>This workspace is %1: its files can be read only while it runs. Resume it to look inside.</source>
        <translation>此工作区%1：只有在它运行时才能读取其文件。请先恢复它再查看。</translation>
    </message>
</context>
<context>
    <name>InspectorTreeView</name>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the selected rows as they are shown (masked values stay masked)</source>
        <translation>按显示的样子复制选中的行（已遮盖的值保持遮盖）</translation>
    </message>
    <message>
        <source>Copy &amp;Value</source>
        <translation>复制值(&amp;V)</translation>
    </message>
    <message>
        <source>Copy the value of the current row as it is shown</source>
        <translation>按显示的样子复制当前行的值</translation>
    </message>
</context>
<context>
    <name>KeychainSecretStore</name>
    <message>
        <source>The keychain refused access while %1: %2</source>
        <translation>%1时，钥匙串拒绝访问：%2</translation>
    </message>
    <message>
        <source>No keychain could be reached while %1 (%2). API keys are only ever kept in the system keychain: start a Secret Service such as GNOME Keyring or KWallet, or use a key for this session only.</source>
        <translation>%1时无法访问任何钥匙串（%2）。API 密钥只会保存在系统钥匙串中：请启动 Secret Service（如 GNOME Keyring 或 KWallet），或使用仅限本次会话的密钥。</translation>
    </message>
    <message>
        <source>reading the key of %1</source>
        <translation>读取 %1 的密钥</translation>
    </message>
    <message>
        <source>storing the key of %1</source>
        <translation>存储 %1 的密钥</translation>
    </message>
    <message>
        <source>deleting the key of %1</source>
        <translation>删除 %1 的密钥</translation>
    </message>
</context>
<context>
    <name>LogDock</name>
    <message>
        <source>Polling the server for new lines.</source>
        <translation>正在定期从服务器获取新的行。</translation>
    </message>
    <message>
        <source>Polling failed; trying again: %1</source>
        <translation>轮询失败，正在重试：%1</translation>
    </message>
    <message>
        <source>No longer polled: the sandbox is not running. Show the container log again to poll it.</source>
        <translation>已停止获取：沙箱未在运行。再次打开容器日志即可重新获取。</translation>
    </message>
    <message>
        <source>There is no bootstrap log of this workspace on this computer: it was not opened here (its bootstrap ran where it was opened, by AgentScope or by Paddock elsewhere), or its log was deleted. Opening it here writes a log, shown as it is written.</source>
        <translation>这台计算机上没有此工作区的初始化日志：它没有在这里打开过（其初始化在打开它的地方运行，由 AgentScope 或其他地方的 Paddock 完成），或者其日志已被删除。在这里打开它会写入日志，并在写入时显示。</translation>
    </message>
    <message>
        <source>Container: %1</source>
        <translation>容器：%1</translation>
    </message>
    <message>
        <source>Log: %1</source>
        <translation>日志：%1</translation>
    </message>
    <message>
        <source>No log is open: Workspace &gt; Bootstrap Log (Ctrl+L) opens one.</source>
        <translation>没有打开的日志：“工作区 &gt; 初始化日志”（Ctrl+L）可打开一个。</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>L&amp;ogs</source>
        <translation>日志(&amp;O)</translation>
    </message>
    <message>
        <source>Following the container log as it is written.</source>
        <translation>正在实时跟随容器日志。</translation>
    </message>
    <message>
        <source>Following the container log failed; trying again: %1</source>
        <translation>跟随容器日志失败，正在重试：%1</translation>
    </message>
    <message>
        <source>No longer followed: the sandbox is not running. Show the container log again to follow it.</source>
        <translation>已停止跟随：沙箱未在运行。再次显示容器日志即可重新跟随。</translation>
    </message>
    <message>
        <source>No log is open. Select a workspace, then Workspace &gt; Bootstrap Log (Ctrl+L) or Container Log (Ctrl+Shift+L) shows its log here.</source>
        <translation>没有打开的日志。选择一个工作区，然后用“工作区 &gt; 初始化日志”（Ctrl+L）或“容器日志”（Ctrl+Shift+L）在此显示它的日志。</translation>
    </message>
</context>
<context>
    <name>LogModel</name>
    <message>
        <source>standard output</source>
        <translation>标准输出</translation>
    </message>
    <message>
        <source>standard error</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Paddock</source>
        <translation>Paddock</translation>
    </message>
    <message>
        <source>Some bytes of this line are not UTF-8; they are shown as �.</source>
        <translation>此行有些字节不是 UTF-8，显示为 �。</translation>
    </message>
    <message>
        <source>This line has NUL bytes; they are shown as ^@.</source>
        <translation>此行含有 NUL 字节，显示为 ^@。</translation>
    </message>
    <message>
        <source>This line is %1 long; the first %2 are shown. Copy or Export gives all of it.</source>
        <translation>此行长 %1，仅显示前 %2。复制或导出可得到完整内容。</translation>
    </message>
</context>
<context>
    <name>LogViewer</name>
    <message>
        <source>Search the log</source>
        <translation>搜索日志</translation>
    </message>
    <message>
        <source>Matching text is highlighted. Enter goes to the next match, Shift+Enter to the previous.</source>
        <translation>匹配的文本会高亮显示。按 Enter 转到下一个匹配项，按 Shift+Enter 转到上一个。</translation>
    </message>
    <message>
        <source>Regular e&amp;xpression</source>
        <translation>正则表达式(&amp;X)</translation>
    </message>
    <message>
        <source>Match c&amp;ase</source>
        <translation>区分大小写(&amp;A)</translation>
    </message>
    <message>
        <source>Only matc&amp;hing lines</source>
        <translation>仅显示匹配行(&amp;H)</translation>
    </message>
    <message>
        <source>Show only the lines that match, with the lines of context around them.</source>
        <translation>仅显示匹配的行及其前后的上下文行。</translation>
    </message>
    <message>
        <source>Con&amp;text:</source>
        <translation>上下文(&amp;T)：</translation>
    </message>
    <message>
        <source>Context lines</source>
        <translation>上下文行数</translation>
    </message>
    <message>
        <source>Lines shown before and after each matching line.</source>
        <translation>每个匹配行前后显示的行数。</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>Previous Match</source>
        <translation>上一个匹配项</translation>
    </message>
    <message>
        <source>Previous match (Shift+F3)</source>
        <translation>上一个匹配项（Shift+F3）</translation>
    </message>
    <message>
        <source>Next Match</source>
        <translation>下一个匹配项</translation>
    </message>
    <message>
        <source>Next match (F3)</source>
        <translation>下一个匹配项（F3）</translation>
    </message>
    <message>
        <source>Keep the newest lines in view. Scrolling up stops following; scrolling to the end resumes it.</source>
        <translation>始终显示最新的行。向上滚动即停止跟随，滚动到末尾即恢复跟随。</translation>
    </message>
    <message>
        <source>Line &amp;Numbers</source>
        <translation>行号(&amp;N)</translation>
    </message>
    <message>
        <source>Show line numbers</source>
        <translation>显示行号</translation>
    </message>
    <message>
        <source>Ti&amp;mestamps</source>
        <translation>时间戳(&amp;M)</translation>
    </message>
    <message>
        <source>Show when each line was written (local time)</source>
        <translation>显示每行的写入时间（本地时间）</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the selected lines (Ctrl+C)</source>
        <translation>复制选中的行（Ctrl+C）</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>Save the whole log to a file (Ctrl+S)</source>
        <translation>将完整日志保存到文件（Ctrl+S）</translation>
    </message>
    <message>
        <source>Log lines</source>
        <translation>日志行</translation>
    </message>
    <message>
        <source>Cannot read the log: %1</source>
        <translation>无法读取日志：%1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Exported the whole log to %1.</source>
        <translation>已将完整日志导出到 %1。</translation>
    </message>
    <message>
        <source>Export Log</source>
        <translation>导出日志</translation>
    </message>
    <message>
        <source>Log files (*.log *.txt);;All files (*)</source>
        <translation>日志文件 (*.log *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The log file has been deleted or replaced. What was read is still shown, and Export saves it.</source>
        <translation>日志文件已被删除或替换。已读取的内容仍会显示，也可以导出。</translation>
    </message>
    <message>
        <source>Some lines are not valid UTF-8: the bytes that are not are shown as �.</source>
        <translation>有些行不是有效的 UTF-8：无效的字节显示为 �。</translation>
    </message>
    <message>
        <source>Some lines contain NUL bytes, shown as ^@.</source>
        <translation>有些行含有 NUL 字节，显示为 ^@。</translation>
    </message>
    <message>
        <source>Some lines are too long to show whole: the first %1 of each are shown. Copy and Export give all of it.</source>
        <translation>有些行太长，无法完整显示：每行仅显示前 %1。复制或导出可得到完整内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>reading… %1%</source>
        <translation>正在读取… %1%</translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) shown</source>
        <translation>
            <numerusform>显示 %n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>following</source>
        <translation>正在跟随</translation>
    </message>
    <message>
        <source>not following</source>
        <translation>未跟随</translation>
    </message>
    <message>
        <source>Invalid pattern</source>
        <translation>无效的模式</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n match(es)</source>
        <translation>
            <numerusform>第 %1 个，共 %n 个匹配项</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n 个匹配项</numerusform>
        </translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>没有匹配项</translation>
    </message>
    <message>
        <source>(searching… %1%)</source>
        <translation>（正在搜索… %1%）</translation>
    </message>
    <message>
        <source>Fo&amp;llow</source>
        <translation>跟随(&amp;L)</translation>
    </message>
    <message>
        <source>There is no log file %1 yet: it is shown as soon as it appears.</source>
        <translation>日志文件 %1 尚不存在：一旦出现即会显示。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Paddock</source>
        <translation>Paddock</translation>
    </message>
    <message>
        <source>&amp;Profile:</source>
        <translation>配置文件(&amp;P)：</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Which profile&apos;s workspaces are shown</source>
        <translation>显示哪个配置文件的工作区</translation>
    </message>
    <message>
        <source>Profile problem</source>
        <translation>配置文件问题</translation>
    </message>
    <message>
        <source>Filter by id, user, agent or image  (/)</source>
        <translation>按 ID、用户、智能体或镜像筛选  (/)</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Show only the workspaces whose id, name, user, agent, sandbox id or image contains this text</source>
        <translation>仅显示 ID、名称、用户、智能体、沙箱 ID 或镜像中包含此文本的工作区</translation>
    </message>
    <message>
        <source>State filter</source>
        <translation>状态筛选</translation>
    </message>
    <message>
        <source>Show only the workspaces in this state</source>
        <translation>仅显示处于此状态的工作区</translation>
    </message>
    <message>
        <source>Backend filter</source>
        <translation>后端筛选</translation>
    </message>
    <message>
        <source>Show only the workspaces of this backend</source>
        <translation>仅显示此后端的工作区</translation>
    </message>
    <message>
        <source>Re&amp;fresh every:</source>
        <translation>刷新间隔(&amp;F)：</translation>
    </message>
    <message>
        <source>Refresh interval</source>
        <translation>刷新间隔</translation>
    </message>
    <message>
        <source>How often the workspace list is reloaded while the window is visible</source>
        <translation>窗口可见时重新加载工作区列表的频率</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Workspace</source>
        <translation>工作区(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Profiles…</source>
        <translation>配置文件(&amp;P)…</translation>
    </message>
    <message>
        <source>Add, change or delete connection profiles</source>
        <translation>添加、修改或删除连接配置文件</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Close the workspaces this console opened and quit</source>
        <translation>关闭此控制台打开的工作区并退出</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a workspace (provisioning it if needed) and watch its bootstrap log</source>
        <translation>打开工作区（必要时进行置备）并查看其初始化日志</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Close the selected running workspaces: release them and pause their sandboxes</source>
        <translation>关闭选中的运行中工作区：释放这些工作区并暂停其沙箱</translation>
    </message>
    <message>
        <source>&amp;Filter</source>
        <translation>筛选(&amp;F)</translation>
    </message>
    <message>
        <source>Move to the filter field</source>
        <translation>转到筛选框</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Reload the workspace list</source>
        <translation>重新加载工作区列表</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>Pause the selected running workspaces</source>
        <translation>暂停选中的运行中工作区</translation>
    </message>
    <message>
        <source>Res&amp;ume</source>
        <translation>恢复(&amp;U)</translation>
    </message>
    <message>
        <source>Resume the selected paused workspaces</source>
        <translation>恢复选中的已暂停工作区</translation>
    </message>
    <message>
        <source>Re&amp;new…</source>
        <translation>续期(&amp;N)…</translation>
    </message>
    <message>
        <source>Move the expiry of the selected workspaces (shows old and new expiry first)</source>
        <translation>推迟选中工作区的过期时间（会先显示原过期时间和新过期时间）</translation>
    </message>
    <message>
        <source>&amp;Kill…</source>
        <translation>销毁(&amp;K)…</translation>
    </message>
    <message>
        <source>Delete the selected workspaces&apos; sandboxes (asks first)</source>
        <translation>删除选中工作区的沙箱（会先确认）</translation>
    </message>
    <message>
        <source>Select &amp;idle…</source>
        <translation>选择空闲工作区(&amp;I)…</translation>
    </message>
    <message>
        <source>Select the running workspaces idle longer than a time you choose</source>
        <translation>选择空闲时间超过指定时长的运行中工作区</translation>
    </message>
    <message>
        <source>Pause i&amp;dle…</source>
        <translation>暂停空闲工作区(&amp;D)…</translation>
    </message>
    <message>
        <source>Pause the running workspaces idle longer than a time you choose (asks first)</source>
        <translation>暂停空闲时间超过指定时长的运行中工作区（会先确认）</translation>
    </message>
    <message>
        <source>&amp;Group by user and agent</source>
        <translation>按用户和智能体分组(&amp;G)</translation>
    </message>
    <message>
        <source>Show the workspaces grouped by user and agent, or as a flat list</source>
        <translation>按用户和智能体分组显示工作区，或以平铺列表显示</translation>
    </message>
    <message>
        <source>Last refresh</source>
        <translation>上次刷新</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <source>All backends</source>
        <translation>所有后端</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>不刷新</translation>
    </message>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Cannot list the workspaces of %1: %2</source>
        <translation>无法列出 %1 的工作区：%2</translation>
    </message>
    <message>
        <source>not loaded yet</source>
        <translation>尚未加载</translation>
    </message>
    <message numerus="yes">
        <source>updated %n second(s) ago</source>
        <translation>
            <numerusform>%n 秒前更新</numerusform>
        </translation>
    </message>
    <message>
        <source>updated %1 ago</source>
        <translation>%1前更新</translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1（已过时）</translation>
    </message>
    <message>
        <source>Pause idle workspaces</source>
        <translation>暂停空闲工作区</translation>
    </message>
    <message>
        <source>Select idle workspaces</source>
        <translation>选择空闲工作区</translation>
    </message>
    <message>
        <source>Running workspaces idle longer than this many minutes:</source>
        <translation>空闲时间超过以下分钟数的运行中工作区：</translation>
    </message>
    <message numerus="yes">
        <source>Reading the activity of %n workspace(s)…</source>
        <translation>
            <numerusform>正在读取 %n 个工作区的活动…</numerusform>
        </translation>
    </message>
    <message>
        <source>Bootstrap &amp;Log</source>
        <translation>初始化日志(&amp;L)</translation>
    </message>
    <message>
        <source>Show the selected workspace&apos;s bootstrap log, following new lines</source>
        <translation>显示选中工作区的初始化日志，并跟随新的行</translation>
    </message>
    <message>
        <source>Con&amp;tainer Log</source>
        <translation>容器日志(&amp;T)</translation>
    </message>
    <message>
        <source>Show what the selected sandbox&apos;s container prints, polled from the server</source>
        <translation>显示选中沙箱的容器输出（定期从服务器获取）</translation>
    </message>
    <message>
        <source>Read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>This profile is read-only: nothing can be opened, paused, resumed, renewed or killed from here</source>
        <translation>此配置文件为只读：无法在此打开、暂停、恢复、续期或销毁任何工作区</translation>
    </message>
    <message>
        <source>Read-only profile</source>
        <translation>只读配置文件</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Retry &amp;Bootstrap…</source>
        <translation>重试初始化(&amp;B)…</translation>
    </message>
    <message>
        <source>Open the selected workspace whose bootstrap failed again, running its bootstrap again</source>
        <translation>再次打开所选的初始化失败的工作区，重新运行其初始化</translation>
    </message>
    <message>
        <source>Cop&amp;y ID</source>
        <translation>复制 ID(&amp;Y)</translation>
    </message>
    <message>
        <source>Copy the ids of the selected workspaces, one per line</source>
        <translation>复制所选工作区的 ID，每行一个</translation>
    </message>
    <message>
        <source>Switch to Log&amp;s</source>
        <translation>切换到日志(&amp;S)</translation>
    </message>
    <message>
        <source>Move between the workspace list and the Logs dock</source>
        <translation>在工作区列表与日志面板之间切换</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Every shortcut of the console</source>
        <translation>控制台的全部快捷键</translation>
    </message>
    <message>
        <source>&amp;About Paddock</source>
        <translation>关于 Paddock(&amp;A)</translation>
    </message>
    <message>
        <source>Paddock&apos;s version, and Qt&apos;s</source>
        <translation>Paddock 与 Qt 的版本</translation>
    </message>
    <message>
        <source>cannot reach the server</source>
        <translation>无法连接服务器</translation>
    </message>
    <message>
        <source>cannot reach the server; showing the list of %1 (stale)</source>
        <translation>无法连接服务器；显示的是 %1 时的列表（已过时）</translation>
    </message>
    <message numerus="yes">
        <source>Copied %n workspace id(s)</source>
        <translation>
            <numerusform>已复制 %n 个工作区 ID</numerusform>
        </translation>
    </message>
    <message>
        <source>About Paddock</source>
        <translation>关于 Paddock</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Paddock %1&lt;/h3&gt;&lt;p&gt;A console for the workspaces AI agents work in: local folders, OpenSandbox sandboxes and Docker containers, kept as AgentScope keeps them.&lt;/p&gt;&lt;p&gt;Built with Qt %2; running on Qt %3.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Paddock %1&lt;/h3&gt;&lt;p&gt;AI 智能体工作区的控制台：本地文件夹、OpenSandbox 沙箱和 Docker 容器，与 AgentScope 的管理方式一致。&lt;/p&gt;&lt;p&gt;构建于 Qt %2；运行于 Qt %3。&lt;/p&gt;</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n running workspace(s) idle longer than %2 min selected.</source>
        <translation>
            <numerusform>已选择 %n 个运行中工作区中空闲超过 %2 分钟的 %1 个。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>None of %n running workspace(s) has been idle longer than %1 min; the selection is unchanged.</source>
        <translation>
            <numerusform>%n 个运行中工作区均未空闲超过 %1 分钟；选择未改变。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n had no recorded activity and were judged by when they were created.</source>
        <translation>
            <numerusform>其中 %n 个没有活动记录，按创建时间判断。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n had no time at all to go by and were left out.</source>
        <translation>
            <numerusform>其中 %n 个没有任何时间可依据，已跳过。</numerusform>
        </translation>
    </message>
    <message>
        <source>the listing failed</source>
        <translation>列表获取失败</translation>
    </message>
    <message>
        <source>the last listing failed; showing the list of %1 (stale)</source>
        <translation>最近一次列表获取失败；显示的是 %1 时的列表（已过时）</translation>
    </message>
    <message>
        <source>Stop i&amp;dle…</source>
        <translation>停止空闲工作区(&amp;D)…</translation>
    </message>
    <message>
        <source>Stop the running workspaces idle longer than a time you choose (asks first)</source>
        <translation>停止空闲时间超过指定时长的运行中工作区（会先确认）</translation>
    </message>
    <message>
        <source>Run Co&amp;mmand…</source>
        <translation>运行命令(&amp;M)…</translation>
    </message>
    <message>
        <source>Run a shell command in the selected workspace and watch its output</source>
        <translation>在选中的工作区中运行 shell 命令并查看其输出</translation>
    </message>
    <message>
        <source>Open &amp;Terminal</source>
        <translation>打开终端(&amp;T)</translation>
    </message>
    <message>
        <source>Open a terminal with a shell in the selected workspace</source>
        <translation>打开一个终端，在选中的工作区中运行 shell</translation>
    </message>
    <message>
        <source>Nothing to renew: paused with the timer stopped. Resume starts the timer again.</source>
        <translation>无可续期：已暂停且计时器已停止。恢复后计时器会重新开始。</translation>
    </message>
    <message>
        <source>Select All &amp;Matching</source>
        <translation>全选匹配项(&amp;M)</translation>
    </message>
    <message>
        <source>Select every workspace the filter shows</source>
        <translation>选择筛选结果中显示的所有工作区</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) selected.</source>
        <translation>
            <numerusform>已选择 %n 个工作区。</numerusform>
        </translation>
    </message>
    <message>
        <source>The workspace %1 is hidden by the filter.</source>
        <translation>工作区 %1 被筛选条件隐藏。</translation>
    </message>
    <message>
        <source>The workspace %1 is not listed.</source>
        <translation>工作区 %1 不在列表中。</translation>
    </message>
    <message>
        <source>All profiles</source>
        <translation>所有配置文件</translation>
    </message>
    <message>
        <source>Every profile&apos;s workspaces, each profile a group of its own</source>
        <translation>所有配置文件的工作区，每个配置文件自成一组</translation>
    </message>
    <message>
        <source>Open a workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <source>Open it in which profile?</source>
        <translation>在哪个配置文件中打开？</translation>
    </message>
</context>
<context>
    <name>McpPanel</name>
    <message>
        <source>Copied the revealed value</source>
        <translation>已复制显示出的值</translation>
    </message>
    <message>
        <source>Reading .mcp…</source>
        <translation>正在读取 .mcp…</translation>
    </message>
    <message>
        <source>&amp;Hide Value</source>
        <translation>隐藏值(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Reveal Value</source>
        <translation>显示值(&amp;R)</translation>
    </message>
    <message>
        <source>.mcp could not be read: %1</source>
        <translation>无法读取 .mcp：%1</translation>
    </message>
    <message>
        <source>There is no .mcp: no session&apos;s MCP servers differ from the defaults the workspace manager was given (default_mcps, which the workspace does not record).</source>
        <translation>没有 .mcp：没有哪个会话的 MCP 服务器不同于工作区管理器的默认设置（default_mcps，工作区不记录它）。</translation>
    </message>
    <message>
        <source>.mcp is a bare list (AgentScope 2.0.6 and earlier): read as the legacy scope, for callers without agent or session ids.</source>
        <translation>.mcp 是一个简单列表（AgentScope 2.0.6 及更早版本）：按旧版作用域读取，供没有智能体或会话 ID 的调用方使用。</translation>
    </message>
    <message>
        <source>.mcp, version 2, %1.</source>
        <translation>.mcp，版本 2，%1。</translation>
    </message>
    <message>
        <source>A session not listed uses the defaults the workspace manager was given, which the workspace does not record; [] means no MCP servers at all.</source>
        <translation>未列出的会话使用工作区管理器的默认设置，工作区不记录这些设置；[] 表示完全没有 MCP 服务器。</translation>
    </message>
    <message>
        <source>(legacy scope)</source>
        <translation>（旧版作用域）</translation>
    </message>
    <message>
        <source>callers without agent or session ids</source>
        <translation>没有智能体或会话 ID 的调用方</translation>
    </message>
    <message>
        <source>agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>[]: no MCP servers (not the defaults)</source>
        <translation>[]：没有 MCP 服务器（不是默认设置）</translation>
    </message>
    <message numerus="yes">
        <source>%n MCP server(s)</source>
        <translation>
            <numerusform>%n 个 MCP 服务器</numerusform>
        </translation>
    </message>
    <message>
        <source>Revealed: Hide Value masks it again; Copy copies it masked</source>
        <translation>已显示：“隐藏值”会重新遮盖它；“复制”复制的仍是遮盖后的值</translation>
    </message>
    <message>
        <source>Masked: Reveal Value shows it</source>
        <translation>已遮盖：“显示值”可显示它</translation>
    </message>
    <message>
        <source>stdio</source>
        <translation>stdio</translation>
    </message>
    <message>
        <source>streamable HTTP</source>
        <translation>可流式 HTTP</translation>
    </message>
    <message>
        <source>SSE</source>
        <translation>SSE</translation>
    </message>
    <message>
        <source>unknown (%1)</source>
        <translation>未知（%1）</translation>
    </message>
    <message>
        <source>(no name)</source>
        <translation>（无名称）</translation>
    </message>
    <message>
        <source>%1; skipped by AgentScope</source>
        <translation>%1；AgentScope 会跳过它</translation>
    </message>
    <message>
        <source>Skipped because</source>
        <translation>跳过原因</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输方式</translation>
    </message>
    <message>
        <source>Stateful</source>
        <translation>有状态</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message numerus="yes">
        <source>%n variable(s), values masked</source>
        <translation>
            <numerusform>%n 个变量，值已遮盖</numerusform>
        </translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作文件夹</translation>
    </message>
    <message>
        <source>Encoding errors</source>
        <translation>编码错误处理</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>请求头</translation>
    </message>
    <message numerus="yes">
        <source>%n header(s), values masked</source>
        <translation>
            <numerusform>%n 个请求头，值已遮盖</numerusform>
        </translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Tool call timeout</source>
        <translation>工具调用超时</translation>
    </message>
    <message>
        <source>[] (none)</source>
        <translation>[]（无）</translation>
    </message>
    <message>
        <source>Enabled tools</source>
        <translation>启用的工具</translation>
    </message>
    <message>
        <source>all (not limited)</source>
        <translation>全部（不限制）</translation>
    </message>
    <message>
        <source>Disabled tools</source>
        <translation>禁用的工具</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Hide &amp;All</source>
        <translation>全部隐藏(&amp;A)</translation>
    </message>
    <message>
        <source>Mask every value revealed again</source>
        <translation>重新遮盖所有已显示的值</translation>
    </message>
    <message>
        <source>Show the current row&apos;s secret value (and hide it again). Copy still copies it masked.</source>
        <translation>显示当前行的机密值（再点一次则隐藏）。“复制”复制的仍是遮盖后的值。</translation>
    </message>
    <message>
        <source>Copy Re&amp;vealed Value</source>
        <translation>复制显示出的值(&amp;V)</translation>
    </message>
    <message>
        <source>Copy the value revealed, unmasked</source>
        <translation>复制显示出的值，不加遮盖</translation>
    </message>
</context>
<context>
    <name>MetricsChart</name>
    <message>
        <source>No CPU or memory figures yet</source>
        <translation>尚无 CPU 或内存数据</translation>
    </message>
    <message>
        <source>not reported</source>
        <translation>未报告</translation>
    </message>
    <message numerus="yes">
        <source>CPU %1, memory %2; %n sample(s) over the last %3</source>
        <translation>
            <numerusform>CPU %1，内存 %2；最近 %3 内共 %n 个样本</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU and memory of the last minutes</source>
        <translation>最近几分钟的 CPU 和内存</translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <source>Memory %1</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <source>Not running: no current CPU or memory figures</source>
        <translation>未在运行：没有当前的 CPU 或内存数据</translation>
    </message>
</context>
<context>
    <name>MetricsPoller</name>
    <message>
        <source>Not reported by this server</source>
        <translation>此服务器不报告</translation>
    </message>
    <message>
        <source>CPU and memory are not shown for this profile: %1</source>
        <translation>此配置文件不显示 CPU 和内存：%1</translation>
    </message>
</context>
<context>
    <name>NotificationPolicy</name>
    <message numerus="yes">
        <source>%n update(s) from Paddock</source>
        <translation>
            <numerusform>来自 Paddock 的 %n 条更新</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n hour(s)</source>
        <translation>
            <numerusform>%n 小时</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n minute(s)</source>
        <translation>
            <numerusform>%n 分钟</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n 秒</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 及另外 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Workspace %1 expires within %2</source>
        <translation>工作区 %1 将在 %2内过期</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) expire within %1</source>
        <translation>
            <numerusform>%n 个工作区将在 %1内过期</numerusform>
        </translation>
    </message>
    <message>
        <source>Bootstrap failed: %1</source>
        <translation>初始化失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>Bootstrap failed for %n workspace(s)</source>
        <translation>
            <numerusform>%n 个工作区初始化失败</numerusform>
        </translation>
    </message>
    <message>
        <source>Workspace %1 was lost</source>
        <translation>工作区 %1 已丢失</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were lost</source>
        <translation>
            <numerusform>%n 个工作区已丢失</numerusform>
        </translation>
    </message>
    <message>
        <source>Its sandbox is gone: deleted behind Paddock&apos;s back, or expired.</source>
        <translation>其沙箱已不存在：在 Paddock 之外被删除，或已过期。</translation>
    </message>
    <message>
        <source>Their sandboxes are gone: deleted behind Paddock&apos;s back, or expired.</source>
        <translation>它们的沙箱已不存在：在 Paddock 之外被删除，或已过期。</translation>
    </message>
    <message>
        <source>Workspace %1 expired</source>
        <translation>工作区 %1 已过期</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) expired</source>
        <translation>
            <numerusform>%n 个工作区已过期</numerusform>
        </translation>
    </message>
    <message>
        <source>Workspace %1 was deleted outside Paddock</source>
        <translation>工作区 %1 已在 Paddock 之外被删除</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were deleted outside Paddock</source>
        <translation>
            <numerusform>%n 个工作区已在 Paddock 之外被删除</numerusform>
        </translation>
    </message>
    <message>
        <source>Workspace %1 was closed for idleness</source>
        <translation>工作区 %1 因空闲已被关闭</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) were closed for idleness</source>
        <translation>
            <numerusform>%n 个工作区因空闲已被关闭</numerusform>
        </translation>
    </message>
    <message>
        <source>Profile: %1</source>
        <translation>配置文件：%1</translation>
    </message>
</context>
<context>
    <name>Notifier</name>
    <message>
        <source>No D-Bus session bus: notifications show at Paddock&apos;s tray icon instead.</source>
        <translation>没有 D-Bus 会话总线：通知改为显示在 Paddock 的托盘图标处。</translation>
    </message>
    <message>
        <source>No D-Bus session bus and no system tray: Paddock cannot show notifications.</source>
        <translation>没有 D-Bus 会话总线，也没有系统托盘：Paddock 无法显示通知。</translation>
    </message>
    <message>
        <source>No notification service on the session bus (org.freedesktop.Notifications): notifications show at Paddock&apos;s tray icon instead.</source>
        <translation>会话总线上没有通知服务（org.freedesktop.Notifications）：通知改为显示在 Paddock 的托盘图标处。</translation>
    </message>
    <message>
        <source>No notification service on the session bus (org.freedesktop.Notifications) and no system tray: Paddock cannot show notifications.</source>
        <translation>会话总线上没有通知服务（org.freedesktop.Notifications），也没有系统托盘：Paddock 无法显示通知。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
</context>
<context>
    <name>ObservedChanges</name>
    <message>
        <source>It expired at %1.</source>
        <translation>已于 %1 过期。</translation>
    </message>
    <message>
        <source>Deleted, or expired: the system clock changed, so which is not known.</source>
        <translation>已被删除或已过期：系统时钟发生了变化，无法判断是哪一种。</translation>
    </message>
</context>
<context>
    <name>OpenDialog</name>
    <message>
        <source>Open workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <source>&amp;User:</source>
        <translation>用户(&amp;U)：</translation>
    </message>
    <message>
        <source>&amp;Session:</source>
        <translation>会话(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Bootstrap log (live):</source>
        <translation>初始化日志（实时）(&amp;B)：</translation>
    </message>
    <message>
        <source>Bootstrap log</source>
        <translation>初始化日志</translation>
    </message>
    <message>
        <source>Each step and every line the bootstrap commands print appears here as it happens.</source>
        <translation>初始化的每个步骤以及初始化命令输出的每一行都会实时显示在这里。</translation>
    </message>
    <message>
        <source>This profile cannot open workspaces.</source>
        <translation>此配置文件无法打开工作区。</translation>
    </message>
    <message>
        <source>Opening workspace %1…</source>
        <translation>正在打开工作区 %1…</translation>
    </message>
    <message>
        <source>Could not open workspace %1: %2</source>
        <translation>无法打开工作区 %1：%2</translation>
    </message>
    <message>
        <source>Workspace %1 is open.</source>
        <translation>工作区 %1 已打开。</translation>
    </message>
    <message>
        <source>&amp;Assign by the isolation policy</source>
        <translation>按隔离粒度分配(&amp;A)</translation>
    </message>
    <message>
        <source>A&amp;gent:</source>
        <translation>智能体(&amp;G)：</translation>
    </message>
    <message>
        <source>Not used for the id: PER_SESSION makes a new one for every open</source>
        <translation>不用于生成 ID：PER_SESSION 每次打开都会生成新的 ID</translation>
    </message>
    <message>
        <source>Reattach to &amp;workspace id:</source>
        <translation>按工作区 ID 重新连接(&amp;W)：</translation>
    </message>
    <message>
        <source>Workspace id</source>
        <translation>工作区 ID</translation>
    </message>
    <message>
        <source>A workspace id, e.g. from Copy ID</source>
        <translation>工作区 ID，例如通过“复制 ID”获得</translation>
    </message>
    <message>
        <source>What will be opened</source>
        <translation>将要打开的内容</translation>
    </message>
    <message>
        <source>Enter the id of the workspace to reattach to.</source>
        <translation>请输入要重新连接的工作区 ID。</translation>
    </message>
    <message>
        <source>Enter a user and an agent.</source>
        <translation>请输入用户和智能体。</translation>
    </message>
    <message>
        <source>Opens workspace %1, the id entered above.</source>
        <translation>打开工作区 %1，即上面输入的 ID。</translation>
    </message>
    <message>
        <source>Opens a new workspace %1 (%2 gives every open a new id).</source>
        <translation>打开新工作区 %1（%2 每次打开都会分配新的 ID）。</translation>
    </message>
    <message>
        <source>Opens workspace %1, the %2 workspace of user %3 and agent %4.</source>
        <translation>打开工作区 %1，即用户 %3 与智能体 %4 的 %2 工作区。</translation>
    </message>
    <message>
        <source>It exists (%1) and is reattached.</source>
        <translation>该工作区已存在（%1），将重新连接。</translation>
    </message>
    <message>
        <source>It belongs to user %1, not %2.</source>
        <translation>它属于用户 %1，而不是 %2。</translation>
    </message>
    <message>
        <source>It is not in the list: a new one is created and bootstrapped.</source>
        <translation>它不在列表中：将新建一个工作区并运行初始化。</translation>
    </message>
    <message>
        <source>The workspace %1 in the id field is another one: choose “Reattach to workspace id” to open it.</source>
        <translation>ID 框中的工作区 %1 是另一个工作区：如需打开它，请选择“按工作区 ID 重新连接”。</translation>
    </message>
    <message>
        <source>Open workspace in %1</source>
        <translation>在“%1”中打开工作区</translation>
    </message>
</context>
<context>
    <name>OverviewPanel</name>
    <message>
        <source>Copied the workspace id %1</source>
        <translation>已复制工作区 ID %1</translation>
    </message>
    <message>
        <source>Copied a paddockctl command that inspects this workspace</source>
        <translation>已复制检查此工作区的 paddockctl 命令</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Server&apos;s state</source>
        <translation>服务器的状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>the server gives none</source>
        <translation>服务器未给出</translation>
    </message>
    <message>
        <source>Image or template</source>
        <translation>镜像或模板</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Last activity</source>
        <translation>最后活动</translation>
    </message>
    <message>
        <source>Resources</source>
        <translation>资源</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Metadata</source>
        <translation>元数据</translation>
    </message>
    <message>
        <source>Workdir</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Gateway home</source>
        <translation>网关主目录</translation>
    </message>
    <message>
        <source>Folder on this computer</source>
        <translation>这台计算机上的文件夹</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>present</source>
        <translation>存在</translation>
    </message>
    <message>
        <source>absent: %1</source>
        <translation>不存在：%1</translation>
    </message>
    <message>
        <source>no session&apos;s MCP servers differ from the defaults</source>
        <translation>没有哪个会话的 MCP 服务器不同于默认设置</translation>
    </message>
    <message>
        <source>nothing was offloaded</source>
        <translation>尚未卸出任何内容</translation>
    </message>
    <message>
        <source>no skills</source>
        <translation>没有技能</translation>
    </message>
    <message>
        <source>no session&apos;s context was compressed yet</source>
        <translation>尚无会话的上下文被压缩</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>link to %1</source>
        <translation>指向 %1 的链接</translation>
    </message>
    <message>
        <source>Agent files</source>
        <translation>智能体的文件</translation>
    </message>
    <message numerus="yes">
        <source>%n entry(ies)</source>
        <translation>
            <numerusform>%n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>since %1: left over from a run that ended early?</source>
        <translation>自 %1 起：可能是某次提前结束的运行留下的？</translation>
    </message>
    <message>
        <source>since %1: AgentScope is at work</source>
        <translation>自 %1 起：AgentScope 正在处理</translation>
    </message>
    <message>
        <source>Transient entries</source>
        <translation>临时条目</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>The workspace could not be read: %1</source>
        <translation>无法读取工作区：%1</translation>
    </message>
    <message>
        <source>The server&apos;s details could not be read; what the list said is shown: %1</source>
        <translation>无法读取服务器的详情；显示的是列表中的信息：%1</translation>
    </message>
    <message>
        <source>The workspace&apos;s files could not be listed: %1</source>
        <translation>无法列出工作区的文件：%1</translation>
    </message>
    <message>
        <source>Copy &amp;ID</source>
        <translation>复制 ID(&amp;I)</translation>
    </message>
    <message>
        <source>Copy the workspace id</source>
        <translation>复制工作区 ID</translation>
    </message>
    <message>
        <source>Copy as &amp;paddockctl Command</source>
        <translation>复制为 paddockctl 命令(&amp;P)</translation>
    </message>
    <message>
        <source>Copy a paddockctl command line that inspects this workspace with this profile&apos;s backend options (never its API key, which paddockctl reads from its variable)</source>
        <translation>复制一条使用此配置文件的后端选项检查此工作区的 paddockctl 命令行（绝不含 API 密钥，paddockctl 从其环境变量读取密钥）</translation>
    </message>
    <message>
        <source>timer stopped (paused since %1)</source>
        <translation>计时器已停止（自 %1 起暂停）</translation>
    </message>
</context>
<context>
    <name>Paddock</name>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>the backend of workspace %1 is gone</source>
        <translation>工作区 %1 的后端已不存在</translation>
    </message>
    <message>
        <source>provisioning workspace %1 on the %2 backend</source>
        <translation>正在 %2 后端上置备工作区 %1</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>workspace %1 is ready</source>
        <translation>工作区 %1 已就绪</translation>
    </message>
    <message>
        <source>creating a new sandbox</source>
        <translation>正在创建新沙箱</translation>
    </message>
    <message>
        <source>resuming paused sandbox %1</source>
        <translation>正在恢复已暂停的沙箱 %1</translation>
    </message>
    <message>
        <source>connecting to running sandbox %1</source>
        <translation>正在连接运行中的沙箱 %1</translation>
    </message>
    <message>
        <source>sandbox %1 did not become ready within %2 s (workspace %3)</source>
        <translation>沙箱 %1 未在 %2 秒内就绪（工作区 %3）</translation>
    </message>
    <message>
        <source>cannot create the workspace layout (exit %1): %2</source>
        <translation>无法创建工作区目录结构（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>bootstrap already complete (%1 exists)</source>
        <translation>初始化已完成（%1 已存在）</translation>
    </message>
    <message numerus="yes">
        <source>bootstrap: %n command(s)</source>
        <translation>
            <numerusform>初始化：%n 条命令</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot write the bootstrap marker %1 (exit %2): %3</source>
        <translation>无法写入初始化标记 %1（退出码 %2）：%3</translation>
    </message>
    <message>
        <source>bootstrap complete</source>
        <translation>初始化完成</translation>
    </message>
    <message>
        <source>bootstrap command timed out after %1 s: &apos;%2&apos;</source>
        <translation>初始化命令在 %1 秒后超时：&apos;%2&apos;</translation>
    </message>
    <message>
        <source>bootstrap failed (exit %1) for: &apos;%2&apos;</source>
        <translation>初始化失败（退出码 %1），命令：&apos;%2&apos;</translation>
    </message>
    <message>
        <source>stderr: %1</source>
        <translation>stderr：%1</translation>
    </message>
    <message>
        <source>command finished (exit 0)</source>
        <translation>命令已完成（退出码 0）</translation>
    </message>
    <message>
        <source>Local</source>
        <translation>本地</translation>
    </message>
    <message>
        <source>Give the profile a name.</source>
        <translation>请为配置文件命名。</translation>
    </message>
    <message>
        <source>Another profile is already called &quot;%1&quot;.</source>
        <translation>已有名为“%1”的配置文件。</translation>
    </message>
    <message>
        <source>Enter the server as host or host:port.</source>
        <translation>请以“主机”或“主机:端口”的格式输入服务器。</translation>
    </message>
    <message>
        <source>Enter host or host:port only, without a scheme or a path.</source>
        <translation>只需输入主机或主机:端口，不要包含协议前缀或路径。</translation>
    </message>
    <message>
        <source>The port must be a number from 1 to 65535.</source>
        <translation>端口必须是 1 到 65535 之间的数字。</translation>
    </message>
    <message>
        <source>The protocol is http or https.</source>
        <translation>协议必须是 http 或 https。</translation>
    </message>
    <message>
        <source>A sandbox lives at least 60 seconds (or set 0: never expires).</source>
        <translation>沙箱存活时间至少为 60 秒（或设为 0：永不过期）。</translation>
    </message>
    <message>
        <source>The bootstrap file %1 cannot be read.</source>
        <translation>无法读取初始化文件 %1。</translation>
    </message>
    <message>
        <source>The idle time before pausing must be at least one second.</source>
        <translation>暂停前的空闲时间至少为 1 秒。</translation>
    </message>
    <message>
        <source>The sweep interval must be at least one second.</source>
        <translation>扫描间隔至少为 1 秒。</translation>
    </message>
    <message>
        <source>Refresh every 5, 15, 30 or 60 seconds, or never.</source>
        <translation>刷新间隔只能是 5、15、30 或 60 秒，或者不刷新。</translation>
    </message>
    <message>
        <source>A profile needs an id.</source>
        <translation>配置文件必须有 ID。</translation>
    </message>
    <message>
        <source>The Local profile stays on the local backend.</source>
        <translation>“本地”配置文件只能使用本地后端。</translation>
    </message>
    <message>
        <source>The Local profile cannot be deleted.</source>
        <translation>“本地”配置文件不能删除。</translation>
    </message>
    <message>
        <source>There is no profile %1.</source>
        <translation>不存在配置文件 %1。</translation>
    </message>
    <message>
        <source>OpenSandbox (%1)</source>
        <translation>OpenSandbox（%1）</translation>
    </message>
    <message>
        <source>unknown isolation policy &quot;%1&quot;; valid choices: %2</source>
        <translation>未知的隔离粒度“%1”；有效值：%2</translation>
    </message>
    <message>
        <source>the workspace id is empty</source>
        <translation>工作区 ID 为空</translation>
    </message>
    <message>
        <source>the workspace id contains a NUL character</source>
        <translation>工作区 ID 包含 NUL 字符</translation>
    </message>
    <message>
        <source>the workspace id &quot;%1&quot; contains a path separator (/ or \)</source>
        <translation>工作区 ID“%1”包含路径分隔符（/ 或 \）</translation>
    </message>
    <message>
        <source>the workspace id &quot;%1&quot; contains &quot;..&quot;</source>
        <translation>工作区 ID“%1”包含“..”</translation>
    </message>
    <message>
        <source>the workspace id is %1 bytes long; at most %2 are allowed</source>
        <translation>工作区 ID 长度为 %1 字节；最多允许 %2 字节</translation>
    </message>
    <message>
        <source>the user id contains a NUL character</source>
        <translation>用户 ID 包含 NUL 字符</translation>
    </message>
    <message>
        <source>the agent id contains a NUL character</source>
        <translation>智能体 ID 包含 NUL 字符</translation>
    </message>
    <message>
        <source>cannot create the bootstrap log folder %1</source>
        <translation>无法创建初始化日志文件夹 %1</translation>
    </message>
    <message>
        <source>cannot open the bootstrap log %1: %2</source>
        <translation>无法打开初始化日志 %1：%2</translation>
    </message>
    <message>
        <source>cannot append to the bootstrap log %1: %2</source>
        <translation>无法追加写入初始化日志 %1：%2</translation>
    </message>
    <message>
        <source>there is no bootstrap log for workspace %1</source>
        <translation>工作区 %1 没有初始化日志</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <source>(request %1)</source>
        <translation>（请求 %1）</translation>
    </message>
    <message>
        <source>sandbox %1 is not attachable (state %2)</source>
        <translation>无法连接沙箱 %1（状态为 %2）</translation>
    </message>
    <message>
        <source>no command to run</source>
        <translation>没有要运行的命令</translation>
    </message>
    <message>
        <source>the server&apos;s answer is not a JSON object (HTTP %1, %2)</source>
        <translation>服务器的响应不是 JSON 对象（HTTP %1，%2）</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>无内容类型</translation>
    </message>
    <message>
        <source>- is this an OpenSandbox server?</source>
        <translation>- 这是 OpenSandbox 服务器吗？</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>no answer within %1 s</source>
        <translation>%1 秒内无响应</translation>
    </message>
    <message>
        <source>the server closed the connection without answering</source>
        <translation>服务器未作响应即关闭了连接</translation>
    </message>
    <message>
        <source>%1 %2 failed: %3</source>
        <translation>%1 %2 失败：%3</translation>
    </message>
    <message>
        <source>execd&apos;s answer is not JSON (HTTP %1, request %2)</source>
        <translation>execd 的响应不是 JSON（HTTP %1，请求 %2）</translation>
    </message>
    <message>
        <source>execd started a background command but sent no id</source>
        <translation>execd 已启动后台命令，但未返回 ID</translation>
    </message>
    <message>
        <source>execd could not start the command (exit %1)</source>
        <translation>execd 无法启动命令（退出码 %1）</translation>
    </message>
    <message>
        <source>the command stream from %1 went silent (no ping for %2 s)</source>
        <translation>来自 %1 的命令流已无响应（%2 秒内未收到 ping）</translation>
    </message>
    <message>
        <source>cannot reach execd at %1: %2</source>
        <translation>无法连接位于 %1 的 execd：%2</translation>
    </message>
    <message>
        <source>it ended without the command&apos;s result</source>
        <translation>数据流已结束，但未返回命令结果</translation>
    </message>
    <message>
        <source>the command stream from %1 broke off: %2</source>
        <translation>来自 %1 的命令流中断：%2</translation>
    </message>
    <message>
        <source>invalid OpenSandbox domain &quot;%1&quot;: %2</source>
        <translation>无效的 OpenSandbox 域名“%1”：%2</translation>
    </message>
    <message>
        <source>invalid protocol &quot;%1&quot;: use http or https</source>
        <translation>无效的协议“%1”：请使用 http 或 https</translation>
    </message>
    <message>
        <source>it is empty</source>
        <translation>域名为空</translation>
    </message>
    <message>
        <source>give host[:port] only, without a path (the client adds /v1)</source>
        <translation>只需提供 host[:port]，不要包含路径（客户端会自动添加 /v1）</translation>
    </message>
    <message>
        <source>give host[:port] only</source>
        <translation>只需提供 host[:port]</translation>
    </message>
    <message>
        <source>the port must be a number from 1 to 65535</source>
        <translation>端口必须是 1 到 65535 之间的数字</translation>
    </message>
    <message>
        <source>not a host name or address</source>
        <translation>不是有效的主机名或地址</translation>
    </message>
    <message>
        <source>sandbox %1 is %2 and cannot become %3</source>
        <translation>沙箱 %1 处于 %2 状态，无法变为 %3</translation>
    </message>
    <message>
        <source>sandbox %1 is still %2 after %3 s</source>
        <translation>%3 秒后沙箱 %1 仍处于 %2 状态</translation>
    </message>
    <message>
        <source>workspace id &quot;%1&quot; would escape the base folder %2</source>
        <translation>工作区 ID“%1”会超出基础文件夹 %2 的范围</translation>
    </message>
    <message>
        <source>there is no local workspace %1 in %2</source>
        <translation>%2 中不存在本地工作区 %1</translation>
    </message>
    <message>
        <source>the metadata of workspace %1 (%2) is damaged: %3</source>
        <translation>工作区 %1（%2）的元数据已损坏：%3</translation>
    </message>
    <message>
        <source>the base folder %1 cannot be used: %2 is not a folder</source>
        <translation>无法使用基础文件夹 %1：%2 不是文件夹</translation>
    </message>
    <message>
        <source>the base folder %1 is not writable (%2: %3)</source>
        <translation>基础文件夹 %1 不可写（%2：%3）</translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>local workspace %1 already exists</source>
        <translation>本地工作区 %1 已存在</translation>
    </message>
    <message>
        <source>cannot create the workspace folder %1</source>
        <translation>无法创建工作区文件夹 %1</translation>
    </message>
    <message>
        <source>local workspace %1 is %2, not Running</source>
        <translation>本地工作区 %1 处于 %2 状态，而不是 Running 状态</translation>
    </message>
    <message>
        <source>could not delete all of %1</source>
        <translation>无法完全删除 %1</translation>
    </message>
    <message>
        <source>local workspace %1 does not expire, so it cannot be renewed</source>
        <translation>本地工作区 %1 不会过期，因此无法续期</translation>
    </message>
    <message>
        <source>cannot run %1: %2</source>
        <translation>无法运行 %1：%2</translation>
    </message>
    <message>
        <source>cannot open the log %1: %2</source>
        <translation>无法打开日志 %1：%2</translation>
    </message>
    <message>
        <source>cannot read the log %1: %2</source>
        <translation>无法读取日志 %1：%2</translation>
    </message>
    <message>
        <source>the %1 backend has no container logs</source>
        <translation>%1 后端没有容器日志</translation>
    </message>
    <message>
        <source>cannot create the folder %1 for the container log</source>
        <translation>无法为容器日志创建文件夹 %1</translation>
    </message>
    <message>
        <source>cannot open the container log file %1: %2</source>
        <translation>无法打开容器日志文件 %1：%2</translation>
    </message>
    <message>
        <source>cannot read the container log of sandbox %1: %2</source>
        <translation>无法读取沙箱 %1 的容器日志：%2</translation>
    </message>
    <message>
        <source>cannot read the state of sandbox %1: %2</source>
        <translation>无法读取沙箱 %1 的状态：%2</translation>
    </message>
    <message numerus="yes">
        <source>container log lines may be missing here: %n or more new lines arrived between two polls</source>
        <translation>
            <numerusform>此处可能缺少容器日志行：两次获取之间新增了 %n 行或更多</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot append to the container log file %1: %2</source>
        <translation>无法追加写入容器日志文件 %1：%2</translation>
    </message>
    <message>
        <source>The regular expression is not valid at character %1: %2</source>
        <translation>正则表达式在第 %1 个字符处无效：%2</translation>
    </message>
    <message>
        <source>Cannot search the log: %1</source>
        <translation>无法搜索日志：%1</translation>
    </message>
    <message>
        <source>invalid DOCKER_HOST &quot;%1&quot;: use unix:///path/to/docker.sock, tcp://host:port or http://host:port</source>
        <translation>无效的 DOCKER_HOST“%1”：请使用 unix:///path/to/docker.sock、tcp://host:port 或 http://host:port</translation>
    </message>
    <message>
        <source>%1 %2 to the Docker engine at %3 was cancelled</source>
        <translation>发往 %3 上 Docker 引擎的 %1 %2 已取消</translation>
    </message>
    <message>
        <source>the connection closed before the response headers ended</source>
        <translation>响应头尚未结束连接就已关闭</translation>
    </message>
    <message>
        <source>%1 %2: no answer from the Docker engine at %3 within %4 s</source>
        <translation>%1 %2：%3 上的 Docker 引擎在 %4 秒内无响应</translation>
    </message>
    <message>
        <source>permission denied on %1: add yourself to the docker group or set DOCKER_HOST</source>
        <translation>无权访问 %1：请将自己加入 docker 组，或设置 DOCKER_HOST</translation>
    </message>
    <message>
        <source>no Docker engine at %1: %2</source>
        <translation>%1 上没有 Docker 引擎：%2</translation>
    </message>
    <message>
        <source>%1 %2 to the Docker engine at %3 failed: %4</source>
        <translation>发往 %3 上 Docker 引擎的 %1 %2 失败：%4</translation>
    </message>
    <message>
        <source>cannot start a request to the Docker engine at %1: libcurl could not be initialised</source>
        <translation>无法向 %1 上的 Docker 引擎发起请求：libcurl 初始化失败</translation>
    </message>
    <message>
        <source>cannot start a request to the Docker engine at %1: %2</source>
        <translation>无法向 %1 上的 Docker 引擎发起请求：%2</translation>
    </message>
    <message>
        <source>No image is set for new Docker containers.</source>
        <translation>未设置新 Docker 容器使用的镜像。</translation>
    </message>
    <message>
        <source>The image %1 is not on the Docker engine at %2: pull, build or import it there first.</source>
        <translation>%2 上的 Docker 引擎中没有镜像 %1：请先在该引擎上拉取、构建或导入它。</translation>
    </message>
    <message>
        <source>container %1 is %2, not running</source>
        <translation>容器 %1 处于 %2 状态，未在运行</translation>
    </message>
    <message>
        <source>container %1 is %2 and cannot be resumed</source>
        <translation>容器 %1 处于 %2 状态，无法恢复</translation>
    </message>
    <message>
        <source>container %1 does not expire, so it cannot be renewed</source>
        <translation>容器 %1 不会过期，因此无法续期</translation>
    </message>
    <message>
        <source>Docker engine at %1: %2 failed: %3 (HTTP %4)</source>
        <translation>%1 上的 Docker 引擎：%2 失败：%3（HTTP %4）</translation>
    </message>
    <message>
        <source>The image of container %1 has no sh or no setsid, which time limits on commands need (busybox and util-linux have setsid).</source>
        <translation>容器 %1 的镜像中没有 sh 或 setsid，而命令时限需要它们（busybox 和 util-linux 都提供 setsid）。</translation>
    </message>
    <message>
        <source>An image name has no spaces, for example debian:bookworm-slim.</source>
        <translation>镜像名称不能包含空格，例如 debian:bookworm-slim。</translation>
    </message>
    <message>
        <source>could not delete all of %1: %2 is still there (files that a container wrote as root may need root to delete)</source>
        <translation>无法完全删除 %1：%2 仍然存在（容器以 root 身份写入的文件可能需要 root 权限才能删除）</translation>
    </message>
    <message>
        <source>cannot remove %1</source>
        <translation>无法删除 %1</translation>
    </message>
    <message>
        <source>removed the empty gateway script %1, which an older Paddock left as its bootstrap marker (AgentScope would start it as its MCP gateway); AgentScope&apos;s bootstrap runs again</source>
        <translation>已删除空的网关脚本 %1：它是旧版 Paddock 留下的初始化标记（AgentScope 会把它当作 MCP 网关启动）；将重新运行 AgentScope 的初始化</translation>
    </message>
    <message>
        <source>removed the empty gateway script %1, which an older Paddock left as its bootstrap marker (AgentScope would start it as its MCP gateway); %2 marks the bootstrap complete instead</source>
        <translation>已删除空的网关脚本 %1：它是旧版 Paddock 留下的初始化标记（AgentScope 会把它当作 MCP 网关启动）；改由 %2 标记初始化已完成</translation>
    </message>
    <message>
        <source>AgentScope&apos;s bootstrap did not put its gateway script %1 in place (it is missing or empty)</source>
        <translation>AgentScope 的初始化没有放置其网关脚本 %1（该文件不存在或为空）</translation>
    </message>
    <message>
        <source>its backend no longer exists</source>
        <translation>其后端已不存在</translation>
    </message>
    <message>
        <source>Docker</source>
        <translation>Docker</translation>
    </message>
    <message>
        <source>The image of new containers, which must be on the Docker engine already (pulled, built or imported); empty for the default</source>
        <translation>新容器使用的镜像，必须已在 Docker 引擎上（已拉取、构建或导入）；留空则使用默认镜像</translation>
    </message>
    <message>
        <source>The host folder that holds one folder per workspace, mounted at /workspace in its container; empty for the default</source>
        <translation>宿主机上存放工作区的文件夹，每个工作区在其中占一个子文件夹，并挂载到其容器的 /workspace；留空则使用默认位置</translation>
    </message>
    <message>
        <source>none (no commands are run)</source>
        <translation>无（不运行任何命令）</translation>
    </message>
    <message>
        <source>--image needs an image name</source>
        <translation>--image 需要指定镜像名称</translation>
    </message>
    <message>
        <source>--basedir needs a folder</source>
        <translation>--basedir 需要指定文件夹</translation>
    </message>
    <message>
        <source>The folder that holds one folder per workspace; empty for the default</source>
        <translation>存放工作区的文件夹，每个工作区在其中占一个子文件夹；留空则使用默认位置</translation>
    </message>
    <message>
        <source>OpenSandbox</source>
        <translation>OpenSandbox</translation>
    </message>
    <message>
        <source>The container image of new sandboxes; empty for the default</source>
        <translation>新沙箱使用的容器镜像；留空则使用默认镜像</translation>
    </message>
    <message>
        <source>AgentScope&apos;s bootstrap (installs AgentScope and its gateway)</source>
        <translation>AgentScope 的初始化（安装 AgentScope 及其网关）</translation>
    </message>
    <message>
        <source>OpenSandbox backend (API key from OPEN_SANDBOX_API_KEY):
  --domain HOST[:PORT]   the server (default: OPEN_SANDBOX_DOMAIN, else localhost:8080)
  --protocol http|https  (default: http)
  --use-server-proxy     reach execd through the server&apos;s proxy
  --image IMAGE          image of new sandboxes (default: python:3.11-slim)
  --sandbox-timeout N    seconds until a new sandbox expires; 0: never (default: 1800)
</source>
        <translation>OpenSandbox 后端（API 密钥取自 OPEN_SANDBOX_API_KEY）：
  --domain HOST[:PORT]   服务器（默认：OPEN_SANDBOX_DOMAIN，未设置时为 localhost:8080）
  --protocol http|https  （默认：http）
  --use-server-proxy     通过服务器的代理访问 execd
  --image IMAGE          新沙箱的镜像（默认：python:3.11-slim）
  --sandbox-timeout N    新沙箱的过期秒数；0 表示永不过期（默认：1800）
</translation>
    </message>
    <message>
        <source>--protocol takes http or https, not &quot;%1&quot;</source>
        <translation>--protocol 只接受 http 或 https，而不是“%1”</translation>
    </message>
    <message>
        <source>--sandbox-timeout takes 0 (never expire) or at least 60 seconds, not &quot;%1&quot;</source>
        <translation>--sandbox-timeout 只接受 0（永不过期）或至少 60 秒，而不是“%1”</translation>
    </message>
    <message>
        <source>Cannot read the bootstrap file %1: %2</source>
        <translation>无法读取初始化文件 %1：%2</translation>
    </message>
    <message>
        <source>not done: the profile %1 was closed</source>
        <translation>未执行：配置文件 %1 已关闭</translation>
    </message>
    <message>
        <source>no workspace %1</source>
        <translation>不存在工作区 %1</translation>
    </message>
    <message>
        <source>its profile was closed</source>
        <translation>其配置文件已关闭</translation>
    </message>
    <message>
        <source>a renewal needs a positive duration</source>
        <translation>续期时长必须为正数</translation>
    </message>
    <message>
        <source>not renewed: it would expire sooner (%1) than it does now (%2)</source>
        <translation>未续期：续期后的过期时间（%1）早于当前的过期时间（%2）</translation>
    </message>
    <message>
        <source>this workspace provider has no backend to kill sandboxes in</source>
        <translation>此工作区提供者没有可用于销毁沙箱的后端</translation>
    </message>
    <message>
        <source>cancelled: the local backend was closed</source>
        <translation>已取消：本地后端已关闭</translation>
    </message>
    <message>
        <source>cancelled: the local backend was closed, and the command was stopped</source>
        <translation>已取消：本地后端已关闭，命令已被终止</translation>
    </message>
    <message>
        <source>cancelled: the connection to the server was closed</source>
        <translation>已取消：与服务器的连接已关闭</translation>
    </message>
    <message>
        <source>its backend was closed</source>
        <translation>其后端已关闭</translation>
    </message>
    <message>
        <source>sandbox %1 is still running: it could not be paused after the failure: %2</source>
        <translation>沙箱 %1 仍在运行：失败后未能将其暂停：%2</translation>
    </message>
    <message>
        <source>%1; and sandbox %2 is still running: it could not be paused after the failure: %3</source>
        <translation>%1；而且沙箱 %2 仍在运行：失败后未能将其暂停：%3</translation>
    </message>
    <message>
        <source>cancelled: the backend of sandbox %1 was closed</source>
        <translation>已取消：沙箱 %1 的后端已关闭</translation>
    </message>
    <message>
        <source>not opened: the workspace manager is stopping</source>
        <translation>未打开：工作区管理器正在停止</translation>
    </message>
    <message>
        <source>HTTP %1: %2</source>
        <translation>HTTP %1：%2</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2, offering %3 and %4 and then %4 alone: the pod may not be running, or a proxy on the way does not pass websockets</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令（先提供 %3 和 %4，再只提供 %4）：该 Pod 可能未在运行，或途中的代理不转发 WebSocket</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2: the pod may not be running, or a proxy on the way does not pass websockets</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令：该 Pod 可能未在运行，或途中的代理不转发 WebSocket</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2: it did not accept the credentials; check the kubeconfig&apos;s user</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令：它不接受所用凭据；请检查 kubeconfig 中的用户</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2: your role may not exec into pods (it needs get and create on pods/exec)</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令：你的角色无权在 Pod 中执行命令（需要 pods/exec 的 get 和 create 权限）</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2: the pod or its namespace does not exist</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令：该 Pod 或其命名空间不存在</translation>
    </message>
    <message>
        <source>the API server refused the exec into pod %1 with HTTP %2</source>
        <translation>API 服务器以 HTTP %2 拒绝在 Pod %1 中执行命令</translation>
    </message>
    <message>
        <source>the API server chose the exec protocol &apos;%1&apos; for pod %2, which Paddock did not offer (it offers %3)</source>
        <translation>API 服务器为 Pod %2 选择了执行协议“%1”，而 Paddock 并未提供该协议（它提供 %3）</translation>
    </message>
    <message>
        <source>closed with code %1</source>
        <translation>以代码 %1 关闭</translation>
    </message>
    <message>
        <source>closed with code %1 (%2)</source>
        <translation>以代码 %1 关闭（%2）</translation>
    </message>
    <message>
        <source>the exec status from the API server is not a JSON object: %1</source>
        <translation>API 服务器返回的执行状态不是 JSON 对象：%1</translation>
    </message>
    <message>
        <source>the exec status from the API server is neither Success nor Failure: &apos;%1&apos;</source>
        <translation>API 服务器返回的执行状态既不是 Success 也不是 Failure：“%1”</translation>
    </message>
    <message>
        <source>the exec status from the API server gives an invalid exit code &apos;%1&apos;</source>
        <translation>API 服务器返回的执行状态给出了无效的退出码“%1”</translation>
    </message>
    <message>
        <source>the exec status from the API server reports a non-zero exit code without giving it</source>
        <translation>API 服务器返回的执行状态报告了非零退出码，但没有给出具体数值</translation>
    </message>
    <message>
        <source>the command could not run in the pod: %1</source>
        <translation>命令无法在 Pod 中运行：%1</translation>
    </message>
    <message>
        <source>cancelled: the command&apos;s connection to the pod was closed</source>
        <translation>已取消：命令与 Pod 的连接已关闭</translation>
    </message>
    <message>
        <source>cannot exec at %1: the URL must be http, https, ws or wss</source>
        <translation>无法在 %1 执行命令：URL 必须是 http、https、ws 或 wss</translation>
    </message>
    <message>
        <source>the API server at %1 did not open the exec connection to pod %2 within %3 s</source>
        <translation>%1 上的 API 服务器在 %3 秒内未打开到 Pod %2 的执行连接</translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation>服务器关闭了连接</translation>
    </message>
    <message>
        <source>cannot open the exec connection to pod %1 at %2: %3</source>
        <translation>无法在 %2 打开到 Pod %1 的执行连接：%3</translation>
    </message>
    <message>
        <source>the API server opened the exec connection to pod %1 without choosing a protocol; Paddock needs %2</source>
        <translation>API 服务器打开了到 Pod %1 的执行连接，但没有选择协议；Paddock 需要 %2</translation>
    </message>
    <message>
        <source>the API server sent a text message on the exec connection to pod %1, where %2 has binary messages only</source>
        <translation>API 服务器在到 Pod %1 的执行连接上发送了文本消息，而 %2 只有二进制消息</translation>
    </message>
    <message>
        <source>the exec connection to pod %1 went silent (%2 pings in a row unanswered); the command&apos;s outcome is unknown</source>
        <translation>到 Pod %1 的执行连接已无响应（连续 %2 次 ping 未获回应）；命令的结果未知</translation>
    </message>
    <message>
        <source>the exec connection to pod %1 ended before the command&apos;s exit status: %2</source>
        <translation>到 Pod %1 的执行连接在收到命令的退出状态前就已结束：%2</translation>
    </message>
    <message>
        <source>the kubeconfig %1 is not valid at line %2: %3 must be %4</source>
        <translation>kubeconfig %1 第 %2 行无效：%3 必须是%4</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>base64 text</source>
        <translation>base64 文本</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>a map</source>
        <translation>映射</translation>
    </message>
    <message>
        <source>a map with name and %1</source>
        <translation>包含 name 和 %1 的映射</translation>
    </message>
    <message>
        <source>the kubeconfig %1 defines %2 %3 twice (lines %4 and %5)</source>
        <translation>kubeconfig %1 在 %2 中两次定义了 %3（第 %4 行和第 %5 行）</translation>
    </message>
    <message>
        <source>the kubeconfig %1, line %2: the credential plugin&apos;s apiVersion %3 is not supported (use %4 or %5)</source>
        <translation>kubeconfig %1 第 %2 行：不支持凭据插件的 apiVersion %3（请使用 %4 或 %5）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>a command to run</source>
        <translation>要运行的命令</translation>
    </message>
    <message>
        <source>set for %1 (Never, IfAvailable or Always)</source>
        <translation>为 %1 设置的值（Never、IfAvailable 或 Always）</translation>
    </message>
    <message>
        <source>Never, IfAvailable or Always</source>
        <translation>Never、IfAvailable 或 Always</translation>
    </message>
    <message>
        <source>a map with name and value</source>
        <translation>包含 name 和 value 的映射</translation>
    </message>
    <message>
        <source>%1 is not a kubeconfig: it holds no map of clusters, users and contexts (line %2)</source>
        <translation>%1 不是 kubeconfig：其中没有由集群、用户和上下文组成的映射（第 %2 行）</translation>
    </message>
    <message>
        <source>%1 is not a kubeconfig: its kind is %2 (a kubeconfig has kind: Config)</source>
        <translation>%1 不是 kubeconfig：其 kind 为 %2（kubeconfig 的 kind 为 Config）</translation>
    </message>
    <message>
        <source>%1 is not a kubeconfig Paddock can read: its apiVersion is %2 (a kubeconfig has apiVersion: v1)</source>
        <translation>%1 不是 Paddock 能读取的 kubeconfig：其 apiVersion 为 %2（kubeconfig 的 apiVersion 为 v1）</translation>
    </message>
    <message>
        <source>the kubeconfig %1 does not parse: %2</source>
        <translation>无法解析 kubeconfig %1：%2</translation>
    </message>
    <message>
        <source>the kubeconfig %1 does not parse: line %2, column %3: %4</source>
        <translation>无法解析 kubeconfig %1：第 %2 行第 %3 列：%4</translation>
    </message>
    <message>
        <source>it is a folder</source>
        <translation>它是一个文件夹</translation>
    </message>
    <message>
        <source>cluster %1 in %2: its server %3 is not an https:// or http:// URL</source>
        <translation>%2 中的集群 %1：其服务器 %3 不是 https:// 或 http:// URL</translation>
    </message>
    <message>
        <source>cluster %1 in %2: its proxy-url is not a URL</source>
        <translation>%2 中的集群 %1：其 proxy-url 不是 URL</translation>
    </message>
    <message>
        <source>cluster %1 in %2: its proxy-url has the scheme %3; Paddock supports http:// and socks5:// proxies</source>
        <translation>%2 中的集群 %1：其 proxy-url 的协议为 %3；Paddock 只支持 http:// 和 socks5:// 代理</translation>
    </message>
    <message>
        <source>%1: the server %2 is http://, and Paddock sends no credentials without TLS (kubectl does not either): use the server&apos;s https:// address</source>
        <translation>%1：服务器 %2 使用 http://，而 Paddock 不会在没有 TLS 的连接上发送凭据（kubectl 也不会）：请使用该服务器的 https:// 地址</translation>
    </message>
    <message>
        <source>cancelled: the Kubernetes connection (%1) was closed</source>
        <translation>已取消：Kubernetes 连接（%1）已关闭</translation>
    </message>
    <message>
        <source>refusing to send credentials to %1: it is not https</source>
        <translation>拒绝向 %1 发送凭据：它不是 https</translation>
    </message>
    <message>
        <source>cannot read the token file %1 of %2: %3</source>
        <translation>无法读取 %2 的令牌文件 %1：%3</translation>
    </message>
    <message>
        <source>cannot run the credential plugin %1 of %2: %3</source>
        <translation>无法运行 %2 的凭据插件 %1：%3</translation>
    </message>
    <message>
        <source>the credential plugin %1 of %2 did not finish within %3 s</source>
        <translation>%2 的凭据插件 %1 未在 %3 秒内结束</translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>it crashed</source>
        <translation>它崩溃了</translation>
    </message>
    <message>
        <source>the credential plugin %1 of %2 failed (%3)</source>
        <translation>%2 的凭据插件 %1 失败（%3）</translation>
    </message>
    <message>
        <source>the credential plugin %1 of %2 printed no usable ExecCredential: %3</source>
        <translation>%2 的凭据插件 %1 没有输出可用的 ExecCredential：%3</translation>
    </message>
    <message>
        <source>its kind is not ExecCredential</source>
        <translation>其 kind 不是 ExecCredential</translation>
    </message>
    <message>
        <source>its apiVersion is %1, but the kubeconfig asks for %2</source>
        <translation>其 apiVersion 为 %1，但 kubeconfig 要求 %2</translation>
    </message>
    <message>
        <source>it has no status</source>
        <translation>其中没有 status</translation>
    </message>
    <message>
        <source>it gives neither a token nor a client certificate and key</source>
        <translation>它既没有给出令牌，也没有给出客户端证书和密钥</translation>
    </message>
    <message>
        <source>the credential plugin %1 of %2</source>
        <translation>%2 的凭据插件 %1</translation>
    </message>
    <message>
        <source>its expirationTimestamp %1 is not an RFC 3339 time</source>
        <translation>其 expirationTimestamp %1 不是 RFC 3339 时间</translation>
    </message>
    <message>
        <source>the kubeconfig %1 does not exist</source>
        <translation>kubeconfig %1 不存在</translation>
    </message>
    <message>
        <source>cannot read the kubeconfig %1: %2</source>
        <translation>无法读取 kubeconfig %1：%2</translation>
    </message>
    <message>
        <source>no kubeconfig found: none of %1 exists</source>
        <translation>找不到 kubeconfig：%1 均不存在</translation>
    </message>
    <message>
        <source>(no files)</source>
        <translation>（没有文件）</translation>
    </message>
    <message>
        <source>it has none</source>
        <translation>其中没有任何上下文</translation>
    </message>
    <message>
        <source>it has %1</source>
        <translation>其中有 %1</translation>
    </message>
    <message>
        <source>no context chosen, and %1 sets no current-context: choose one (%2)</source>
        <translation>未选择上下文，且 %1 未设置 current-context：请选择一个（%2）</translation>
    </message>
    <message>
        <source>there is no context %1 in %2; %3</source>
        <translation>%2 中没有上下文 %1；%3</translation>
    </message>
    <message>
        <source>context %1 in %2</source>
        <translation>%2 中的上下文 %1</translation>
    </message>
    <message>
        <source>%1 names no cluster</source>
        <translation>%1 没有指定集群</translation>
    </message>
    <message>
        <source>%1 names the cluster %2, which %3 does not define</source>
        <translation>%1 指定了集群 %2，但 %3 中没有定义它</translation>
    </message>
    <message>
        <source>%1 names the user %2, which %3 does not define</source>
        <translation>%1 指定了用户 %2，但 %3 中没有定义它</translation>
    </message>
    <message>
        <source>cluster %1 in %2 has no server</source>
        <translation>%2 中的集群 %1 没有服务器地址</translation>
    </message>
    <message>
        <source>cluster %1 in %2 sets both insecure-skip-tls-verify and a certificate authority; keep one of them (kubectl refuses this too)</source>
        <translation>%2 中的集群 %1 同时设置了 insecure-skip-tls-verify 和证书颁发机构；请只保留其中一个（kubectl 同样拒绝这种配置）</translation>
    </message>
    <message>
        <source>the certificate-authority-data of cluster %1 in %2</source>
        <translation>%2 中集群 %1 的 certificate-authority-data</translation>
    </message>
    <message>
        <source>cannot read the certificate authority %1 of cluster %2 in %3: %4</source>
        <translation>无法读取 %3 中集群 %2 的证书颁发机构 %1：%4</translation>
    </message>
    <message>
        <source>the certificate authority %1 of cluster %2 in %3</source>
        <translation>%3 中集群 %2 的证书颁发机构 %1</translation>
    </message>
    <message>
        <source>user %1 in %2</source>
        <translation>%2 中的用户 %1</translation>
    </message>
    <message>
        <source>%1 has a client certificate but no client key</source>
        <translation>%1 有客户端证书，但没有客户端密钥</translation>
    </message>
    <message>
        <source>%1 has a client key but no client certificate</source>
        <translation>%1 有客户端密钥，但没有客户端证书</translation>
    </message>
    <message>
        <source>cannot read the client certificate %1 of %2: %3</source>
        <translation>无法读取 %2 的客户端证书 %1：%3</translation>
    </message>
    <message>
        <source>cannot read the client key %1 of %2: %3</source>
        <translation>无法读取 %2 的客户端密钥 %1：%3</translation>
    </message>
    <message>
        <source>%1 impersonates another user (as, as-groups), which Paddock does not support: use a context whose user has the rights itself, or give the profile that user&apos;s token</source>
        <translation>%1 模拟了另一个用户（as、as-groups），Paddock 不支持这种做法：请使用其用户本身就有相应权限的上下文，或在配置文件中填写那个用户的令牌</translation>
    </message>
    <message>
        <source>the token file %1 of %2 is empty</source>
        <translation>%2 的令牌文件 %1 是空的</translation>
    </message>
    <message>
        <source>the credential plugin %1 of %2 has interactiveMode: Always, which cannot work in Paddock: it runs plugins without a terminal. Set interactiveMode: IfAvailable or Never (the plugin must then get its credentials without asking), or give the profile a token</source>
        <translation>%2 的凭据插件 %1 设置了 interactiveMode: Always，这在 Paddock 中无法工作：Paddock 运行插件时没有终端。请设置 interactiveMode: IfAvailable 或 Never（插件必须能在不询问的情况下获取凭据），或在配置文件中填写令牌</translation>
    </message>
    <message>
        <source>%1 signs in with the auth-provider %2, which Paddock does not support (kubectl dropped it too): use the provider&apos;s exec credential plugin (gke-gcloud-auth-plugin, kubelogin), or give the profile a token</source>
        <translation>%1 通过 auth-provider %2 登录，Paddock 不支持这种方式（kubectl 也已弃用）：请使用该提供方的 exec 凭据插件（gke-gcloud-auth-plugin、kubelogin），或在配置文件中填写令牌</translation>
    </message>
    <message>
        <source>%1 signs in with a username and password, which the Kubernetes API server no longer accepts: use a token or a client certificate</source>
        <translation>%1 使用用户名和密码登录，而 Kubernetes API 服务器已不再接受这种方式：请使用令牌或客户端证书</translation>
    </message>
    <message>
        <source>not running in a Kubernetes cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)</source>
        <translation>未在 Kubernetes 集群中运行（未设置 KUBERNETES_SERVICE_HOST 和 KUBERNETES_SERVICE_PORT）</translation>
    </message>
    <message>
        <source>KUBERNETES_SERVICE_HOST %1 and KUBERNETES_SERVICE_PORT %2 make no valid server address</source>
        <translation>KUBERNETES_SERVICE_HOST %1 和 KUBERNETES_SERVICE_PORT %2 组成的服务器地址无效</translation>
    </message>
    <message>
        <source>the in-cluster service account (%1)</source>
        <translation>集群内服务账号（%1）</translation>
    </message>
    <message>
        <source>cannot read the service account token %1: %2</source>
        <translation>无法读取服务账号令牌 %1：%2</translation>
    </message>
    <message>
        <source>the service account token %1 is empty</source>
        <translation>服务账号令牌 %1 是空的</translation>
    </message>
    <message>
        <source>cannot read the service account&apos;s certificate authority %1: %2</source>
        <translation>无法读取服务账号的证书颁发机构 %1：%2</translation>
    </message>
    <message>
        <source>the service account&apos;s certificate authority %1</source>
        <translation>服务账号的证书颁发机构 %1</translation>
    </message>
    <message>
        <source>not tried, since a context was named</source>
        <translation>未尝试，因为指定了上下文</translation>
    </message>
    <message>
        <source>none of the files in KUBECONFIG (%1) exists</source>
        <translation>KUBECONFIG（%1）中的文件均不存在</translation>
    </message>
    <message>
        <source>KUBECONFIG is not set and %1 does not exist</source>
        <translation>未设置 KUBECONFIG，且 %1 不存在</translation>
    </message>
    <message>
        <source>no Kubernetes configuration found: %1; in-cluster: %2. Choose a kubeconfig file, or set KUBECONFIG</source>
        <translation>找不到 Kubernetes 配置：%1；集群内配置：%2。请选择一个 kubeconfig 文件，或设置 KUBECONFIG</translation>
    </message>
    <message>
        <source>%1 is not a PEM certificate (a file of -----BEGIN CERTIFICATE----- blocks)</source>
        <translation>%1 不是 PEM 证书（由 -----BEGIN CERTIFICATE----- 块组成的文件）</translation>
    </message>
    <message>
        <source>the client certificate of %1</source>
        <translation>%1 的客户端证书</translation>
    </message>
    <message>
        <source>the client certificate of %1 cannot be read: %2</source>
        <translation>无法读取 %1 的客户端证书：%2</translation>
    </message>
    <message>
        <source>the client key of %1 is encrypted; Paddock cannot ask for its passphrase: give it an unencrypted key (openssl pkey -in KEY -out PLAIN-KEY)</source>
        <translation>%1 的客户端密钥已加密；Paddock 无法询问其密码：请改用未加密的密钥（openssl pkey -in KEY -out PLAIN-KEY）</translation>
    </message>
    <message>
        <source>the client key of %1 is not a PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)%2</source>
        <translation>%1 的客户端密钥不是 PEM 私钥（-----BEGIN PRIVATE KEY-----，RSA 或 EC）%2</translation>
    </message>
    <message>
        <source>the client key of %1 does not belong to its client certificate (they are not a pair)</source>
        <translation>%1 的客户端密钥与其客户端证书不匹配（二者不是一对）</translation>
    </message>
    <message>
        <source>the client key of %1 is of a kind Paddock cannot use (only RSA, EC and DSA keys)</source>
        <translation>%1 的客户端密钥类型 Paddock 无法使用（只支持 RSA、EC 和 DSA 密钥）</translation>
    </message>
    <message>
        <source>the client key of %1 cannot be read: %2</source>
        <translation>无法读取 %1 的客户端密钥：%2</translation>
    </message>
    <message>
        <source>the client key of %1 cannot be read</source>
        <translation>无法读取 %1 的客户端密钥</translation>
    </message>
    <message>
        <source>the %1 backend cannot follow container logs</source>
        <translation>%1 后端无法跟随容器日志</translation>
    </message>
    <message>
        <source>HTTP %1 %2: %3</source>
        <translation>HTTP %1 %2：%3</translation>
    </message>
    <message>
        <source>credentials are sent only over https, and %1 is not</source>
        <translation>凭据只通过 https 发送，而 %1 不是 https</translation>
    </message>
    <message>
        <source>the API server at %1 did not accept the credentials of %2 (%3)</source>
        <translation>%1 上的 API 服务器不接受 %2 的凭据（%3）</translation>
    </message>
    <message>
        <source>the cluster does not allow %1 to %2 %3 in the namespace %4; its role (RBAC) needs the verb &quot;%2&quot; on &quot;%3&quot; (%5)</source>
        <translation>集群不允许 %1 在命名空间 %4 中对 %3 执行 %2；其角色（RBAC）需要对“%3”的“%2”权限（%5）</translation>
    </message>
    <message>
        <source>the API server&apos;s answer is not a JSON %1 - is this a Kubernetes API server?</source>
        <translation>API 服务器的应答不是 JSON %1——这是 Kubernetes API 服务器吗？</translation>
    </message>
    <message>
        <source>a Kubernetes workspace needs an id</source>
        <translation>Kubernetes 工作区需要一个 ID</translation>
    </message>
    <message>
        <source>the workspace id &quot;%1&quot; cannot be kept on Kubernetes: AgentScope puts the id in the label %2, whose value must be at most 63 characters of letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;, beginning and ending with a letter or digit (AgentScope itself could not create this workspace either)</source>
        <translation>工作区 ID“%1”无法保存在 Kubernetes 上：AgentScope 把 ID 放在标签 %2 中，其值最多 63 个字符，只能包含字母、数字、“-”、“_”和“.”，并且必须以字母或数字开头和结尾（AgentScope 自己也无法创建这个工作区）</translation>
    </message>
    <message>
        <source>Deletes the Pod %1 and the PersistentVolumeClaim %1 in the namespace %2, with every file of the workspace: its data cannot be recovered.</source>
        <translation>将删除命名空间 %2 中的 Pod %1 和 PersistentVolumeClaim %1，以及工作区的所有文件：其数据无法恢复。</translation>
    </message>
    <message>
        <source>there is no workspace Pod or PVC %1 in the namespace %2</source>
        <translation>命名空间 %2 中没有工作区 Pod 或 PVC %1</translation>
    </message>
    <message>
        <source>%1 has no %2 label: it is not a workspace AgentScope made</source>
        <translation>%1 没有 %2 标签：它不是 AgentScope 创建的工作区</translation>
    </message>
    <message>
        <source>the Pod of workspace %1 is not running</source>
        <translation>工作区 %1 的 Pod 未在运行</translation>
    </message>
    <message>
        <source>the Pod of workspace %1 is %2, not running</source>
        <translation>工作区 %1 的 Pod 处于 %2 状态，未在运行</translation>
    </message>
    <message>
        <source>the namespace %1 does not exist and could not be created: %2</source>
        <translation>命名空间 %1 不存在，且无法创建：%2</translation>
    </message>
    <message>
        <source>the Pod %1 did not finish deleting within %2 s</source>
        <translation>Pod %1 未在 %2 秒内删除完毕</translation>
    </message>
    <message>
        <source>the PVC %1 did not finish deleting within %2 s</source>
        <translation>PVC %1 未在 %2 秒内删除完毕</translation>
    </message>
    <message>
        <source>the PVC %1 belongs to the workspace &quot;%2&quot;, whose name is the same as that of &quot;%3&quot; on Kubernetes: use another workspace id</source>
        <translation>PVC %1 属于工作区“%2”，它在 Kubernetes 上的名称与“%3”相同：请使用其他工作区 ID</translation>
    </message>
    <message>
        <source>the PVC %1 keeps changing; try again</source>
        <translation>PVC %1 一直在变化；请重试</translation>
    </message>
    <message>
        <source>the Pod %1 belongs to the workspace &quot;%2&quot;, whose name is the same as that of &quot;%3&quot; on Kubernetes: use another workspace id</source>
        <translation>Pod %1 属于工作区“%2”，它在 Kubernetes 上的名称与“%3”相同：请使用其他工作区 ID</translation>
    </message>
    <message>
        <source>the Pod %1 keeps changing; try again</source>
        <translation>Pod %1 一直在变化；请重试</translation>
    </message>
    <message>
        <source>the Pod %1 was deleted while it was starting</source>
        <translation>Pod %1 在启动过程中被删除</translation>
    </message>
    <message>
        <source>the Pod %1 entered the %2 state</source>
        <translation>Pod %1 进入了 %2 状态</translation>
    </message>
    <message>
        <source>the container of the Pod %1 is stuck: %2</source>
        <translation>Pod %1 的容器卡住了：%2</translation>
    </message>
    <message>
        <source>the Pod %1 cannot be scheduled: %2</source>
        <translation>Pod %1 无法调度：%2</translation>
    </message>
    <message>
        <source>the Pod %1 did not become Running within %2 s (it is %3)</source>
        <translation>Pod %1 未在 %2 秒内进入 Running 状态（当前为 %3）</translation>
    </message>
    <message>
        <source>The PVC %1 made for it could not be deleted: %2</source>
        <translation>为它创建的 PVC %1 无法删除：%2</translation>
    </message>
    <message>
        <source>The PVC %1 was kept: it holds the workspace&apos;s files.</source>
        <translation>已保留 PVC %1：其中有工作区的文件。</translation>
    </message>
    <message>
        <source>workspace %1 does not expire on Kubernetes, so it cannot be renewed</source>
        <translation>工作区 %1 在 Kubernetes 上不会过期，因此无法续期</translation>
    </message>
    <message>
        <source>cannot read when %1 last changed: %2</source>
        <translation>无法读取 %1 的最后修改时间：%2</translation>
    </message>
    <message>
        <source>A namespace is at most 63 lower-case letters, digits and &apos;-&apos;, beginning and ending with a letter or digit (&quot;%1&quot; is not).</source>
        <translation>命名空间最多 63 个字符，只能包含小写字母、数字和“-”，并以字母或数字开头和结尾（“%1”不符合）。</translation>
    </message>
    <message>
        <source>A storage size is a number with an optional unit, such as 1Gi, 500Mi or 10G (&quot;%1&quot; is not).</source>
        <translation>存储大小是一个数字，可带单位，例如 1Gi、500Mi 或 10G（“%1”不符合）。</translation>
    </message>
    <message>
        <source>A storage class name is lower-case letters, digits, &apos;-&apos; and &apos;.&apos; (&quot;%1&quot; is not).</source>
        <translation>存储类名称只能包含小写字母、数字、“-”和“.”（“%1”不符合）。</translation>
    </message>
    <message>
        <source>There is no kubeconfig file %1.</source>
        <translation>kubeconfig 文件 %1 不存在。</translation>
    </message>
    <message>
        <source>The kubeconfig has no context &quot;%1&quot; (it has: %2).</source>
        <translation>kubeconfig 中没有上下文“%1”（现有：%2）。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Kubernetes</source>
        <translation>Kubernetes</translation>
    </message>
    <message>
        <source>KUBECONFIG, else the cluster Paddock runs in, else ~/.kube/config</source>
        <translation>KUBECONFIG，否则为 Paddock 所在的集群，否则为 ~/.kube/config</translation>
    </message>
    <message>
        <source>The kubeconfig file to connect with; its credentials stay in it and are never copied</source>
        <translation>用于连接的 kubeconfig 文件；其中的凭据留在文件里，绝不会被复制</translation>
    </message>
    <message>
        <source>the kubeconfig&apos;s current context</source>
        <translation>kubeconfig 的当前上下文</translation>
    </message>
    <message>
        <source>the context&apos;s namespace, else %1</source>
        <translation>上下文的命名空间，否则为 %1</translation>
    </message>
    <message>
        <source>The namespace of the workspaces&apos; Pods and PVCs</source>
        <translation>工作区的 Pod 和 PVC 所在的命名空间</translation>
    </message>
    <message>
        <source>The container image of new workspaces&apos; Pods; empty for the default</source>
        <translation>新工作区 Pod 使用的容器镜像；留空则使用默认镜像</translation>
    </message>
    <message>
        <source>The size of a new workspace&apos;s PersistentVolumeClaim</source>
        <translation>新工作区 PersistentVolumeClaim 的大小</translation>
    </message>
    <message>
        <source>the cluster&apos;s default</source>
        <translation>集群的默认值</translation>
    </message>
    <message>
        <source>The storage class of new workspaces&apos; PVCs</source>
        <translation>新工作区 PVC 的存储类</translation>
    </message>
    <message>
        <source>Kubernetes backend (credentials from the kubeconfig):
  --kubeconfig FILE      the kubeconfig (default: KUBECONFIG, else in-cluster,
                         else ~/.kube/config)
  --context NAME         its context (default: its current context)
  --namespace NS         (default: the context&apos;s, else agentscope)
  --image IMAGE          image of new Pods (default: python:3.11-slim)
  --storage-size SIZE    size of new PVCs (default: 1Gi)
  --storage-class NAME   storage class of new PVCs (default: the cluster&apos;s)
  kill                   deletes the Pod and the PVC with the workspace&apos;s files
</source>
        <translation>Kubernetes 后端（凭据取自 kubeconfig）：
  --kubeconfig FILE      kubeconfig 文件（默认：KUBECONFIG，否则为集群内配置，
                         否则为 ~/.kube/config）
  --context NAME         其上下文（默认：当前上下文）
  --namespace NS         （默认：上下文的命名空间，否则为 agentscope）
  --image IMAGE          新 Pod 的镜像（默认：python:3.11-slim）
  --storage-size SIZE    新 PVC 的大小（默认：1Gi）
  --storage-class NAME   新 PVC 的存储类（默认：集群的默认存储类）
  kill                   删除 Pod 以及存有工作区文件的 PVC
</translation>
    </message>
    <message>
        <source>An image name has no spaces, for example python:3.11-slim.</source>
        <translation>镜像名称不能包含空格，例如 python:3.11-slim。</translation>
    </message>
    <message>
        <source>--kubeconfig needs a file</source>
        <translation>--kubeconfig 需要指定文件</translation>
    </message>
    <message>
        <source>--context needs a context name</source>
        <translation>--context 需要指定上下文名称</translation>
    </message>
    <message>
        <source>Its PVC %1 is still Pending (no volume is bound to it): check the cluster&apos;s default storage class.</source>
        <translation>其 PVC %1 仍处于 Pending 状态（没有绑定卷）：请检查集群的默认存储类。</translation>
    </message>
    <message>
        <source>Its PVC %1 is still Pending (no volume is bound to it): check the storage class %2.</source>
        <translation>其 PVC %1 仍处于 Pending 状态（没有绑定卷）：请检查存储类 %2。</translation>
    </message>
    <message>
        <source>workspace %1 is stopped (its Pod was deleted, its PVC kept): resume it</source>
        <translation>工作区 %1 已停止（其 Pod 已删除，PVC 保留）：请恢复它</translation>
    </message>
    <message>
        <source>there is no command to run</source>
        <translation>没有要运行的命令</translation>
    </message>
    <message>
        <source>the kubeconfig&apos;s credentials</source>
        <translation>kubeconfig 中的凭据</translation>
    </message>
    <message>
        <source>Optional. A bearer token sent instead of the credentials of the kubeconfig&apos;s user (its token, client certificate or credential plugin). Kept only in the system keychain, never in a file.</source>
        <translation>可选。代替 kubeconfig 用户凭据（其令牌、客户端证书或凭据插件）发送的持有者令牌。只保存在系统钥匙串中，从不写入文件。</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message numerus="yes">
        <source>container log lines may be missing here: %n or more new lines arrived before the stream connected again</source>
        <translation>
            <numerusform>此处可能缺少容器日志行：重新连接日志流之前新增了 %n 行或更多</numerusform>
        </translation>
    </message>
    <message>
        <source>the %1 backend cannot read a workspace&apos;s files</source>
        <translation>%1 后端无法读取工作区的文件</translation>
    </message>
    <message>
        <source>the entry is not a JSON object</source>
        <translation>该条目不是 JSON 对象</translation>
    </message>
    <message>
        <source>it has no name</source>
        <translation>它没有名称</translation>
    </message>
    <message>
        <source>its name &quot;%1&quot; does not match [a-zA-Z0-9_-]+</source>
        <translation>其名称“%1”不符合 [a-zA-Z0-9_-]+</translation>
    </message>
    <message>
        <source>it has no mcp_config object</source>
        <translation>它没有 mcp_config 对象</translation>
    </message>
    <message>
        <source>its mcp_config has no type</source>
        <translation>其 mcp_config 没有 type</translation>
    </message>
    <message>
        <source>its mcp_config type &quot;%1&quot; is unknown (stdio_mcp or http_mcp)</source>
        <translation>其 mcp_config 类型“%1”未知（应为 stdio_mcp 或 http_mcp）</translation>
    </message>
    <message>
        <source>a stdio MCP must be stateful (is_stateful is false)</source>
        <translation>stdio MCP 必须是有状态的（is_stateful 为 false）</translation>
    </message>
    <message>
        <source>enable_tools and disable_tools both name %1</source>
        <translation>enable_tools 和 disable_tools 都列出了 %1</translation>
    </message>
    <message>
        <source>its stdio command is missing</source>
        <translation>缺少其 stdio 命令</translation>
    </message>
    <message>
        <source>its HTTP URL is missing</source>
        <translation>缺少其 HTTP URL</translation>
    </message>
    <message numerus="yes">
        <source>The .mcp file (%n byte(s)) is not valid JSON: %1 at byte %2. AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</source>
        <translation>
            <numerusform>该 .mcp 文件（%n 字节）不是有效的 JSON：第 %2 字节处%1。AgentScope 会改用其默认 MCP，并在下次 MCP 变更时覆盖该文件。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The .mcp file (%n byte(s)) is JSON but neither a list (version 1) nor an object with an &quot;mcps&quot; object (version 2). AgentScope falls back to its default MCPs and overwrites the file on the next MCP change.</source>
        <translation>
            <numerusform>该 .mcp 文件（%n 字节）是 JSON，但既不是列表（版本 1），也不是含有“mcps”对象的对象（版本 2）。AgentScope 会改用其默认 MCP，并在下次 MCP 变更时覆盖该文件。</numerusform>
        </translation>
    </message>
    <message>
        <source>absent</source>
        <translation>不存在</translation>
    </message>
    <message>
        <source>not a number</source>
        <translation>不是数字</translation>
    </message>
    <message>
        <source>version is %1, not 2: read as version 2</source>
        <translation>版本为 %1 而不是 2：按版本 2 读取</translation>
    </message>
    <message>
        <source>agent &quot;%1&quot; is not an object: AgentScope skips it</source>
        <translation>智能体“%1”不是对象：AgentScope 会跳过它</translation>
    </message>
    <message>
        <source>session &quot;%1&quot; of agent &quot;%2&quot; is not a list: AgentScope skips it</source>
        <translation>智能体“%2”的会话“%1”不是列表：AgentScope 会跳过它</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: SKILL.md has no front matter (it must start with a &quot;---&quot; line)</source>
        <translation>AgentScope 会忽略此技能：SKILL.md 没有前置元数据（必须以“---”行开头）</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: the front matter is not closed by a &quot;---&quot; line</source>
        <translation>AgentScope 会忽略此技能：前置元数据没有以“---”行结束</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: its front matter is not valid YAML (%1)</source>
        <translation>AgentScope 会忽略此技能：其前置元数据不是有效的 YAML（%1）</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: its front matter is not a mapping of keys</source>
        <translation>AgentScope 会忽略此技能：其前置元数据不是键值映射</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: its front matter has no name</source>
        <translation>AgentScope 会忽略此技能：其前置元数据没有 name</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: its front matter has no description</source>
        <translation>AgentScope 会忽略此技能：其前置元数据没有 description</translation>
    </message>
    <message numerus="yes">
        <source>The skill index (%n byte(s)) is not valid JSON; AgentScope treats it as empty and rewrites it.</source>
        <translation>
            <numerusform>技能索引（%n 字节）不是有效的 JSON；AgentScope 会将其视为空并重写它。</numerusform>
        </translation>
    </message>
    <message>
        <source>The skill index has no &quot;skills&quot; object; AgentScope treats it as empty and rewrites it.</source>
        <translation>技能索引没有“skills”对象；AgentScope 会将其视为空并重写它。</translation>
    </message>
    <message>
        <source>nested deeper than %1 levels</source>
        <translation>嵌套超过 %1 层</translation>
    </message>
    <message>
        <source>%1 at byte %2</source>
        <translation>第 %2 字节处：%1</translation>
    </message>
    <message>
        <source>the line is JSON but not an object</source>
        <translation>该行是 JSON 但不是对象</translation>
    </message>
    <message>
        <source>the profile %1 is read-only: nothing is uploaded</source>
        <translation>配置文件 %1 为只读：不会上传任何内容</translation>
    </message>
    <message>
        <source>%1 does not exist in the workspace</source>
        <translation>工作区中不存在 %1</translation>
    </message>
    <message>
        <source>the path &quot;%1&quot; holds a NUL character</source>
        <translation>路径“%1”含有 NUL 字符</translation>
    </message>
    <message>
        <source>this workspace has no folder to read files from</source>
        <translation>此工作区没有可读取文件的文件夹</translation>
    </message>
    <message>
        <source>the path &quot;%1&quot; is outside the workspace (%2)</source>
        <translation>路径“%1”在工作区之外（%2）</translation>
    </message>
    <message>
        <source>%1 is a symbolic link to %2, outside the workspace: not followed</source>
        <translation>%1 是指向工作区之外 %2 的符号链接：不会跟随</translation>
    </message>
    <message>
        <source>%1 is not in the workspace&apos;s folder on this computer</source>
        <translation>%1 不在本机上该工作区的文件夹中</translation>
    </message>
    <message>
        <source>%1: too many levels of symbolic links</source>
        <translation>%1：符号链接层级过多</translation>
    </message>
    <message>
        <source>%1 is not a folder</source>
        <translation>%1 不是文件夹</translation>
    </message>
    <message>
        <source>a read needs an offset and a length of 0 or more</source>
        <translation>读取需要大于或等于 0 的偏移量和长度</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 不是文件</translation>
    </message>
    <message>
        <source>%1 vanished while it was read</source>
        <translation>%1 在读取时消失了</translation>
    </message>
    <message>
        <source>%1 is a folder</source>
        <translation>%1 是文件夹</translation>
    </message>
    <message>
        <source>%1 exists and is not a file</source>
        <translation>%1 已存在且不是文件</translation>
    </message>
    <message>
        <source>the folder of %1 does not exist in the workspace</source>
        <translation>工作区中不存在 %1 所在的文件夹</translation>
    </message>
    <message>
        <source>the download was stopped</source>
        <translation>下载已中止</translation>
    </message>
    <message>
        <source>%1 is larger than %2 MiB, the most one upload to this sandbox takes</source>
        <translation>%1 大于 %2 MiB，超出向此沙箱单次上传的上限</translation>
    </message>
    <message>
        <source>exit status %1</source>
        <translation>退出状态 %1</translation>
    </message>
    <message>
        <source>the inspector stopped reading this workspace</source>
        <translation>检查器已停止读取此工作区</translation>
    </message>
    <message>
        <source>nothing listens on 127.0.0.1:%1 in the workspace</source>
        <translation>工作区中没有程序监听 127.0.0.1:%1</translation>
    </message>
    <message>
        <source>%1 ended with status %2</source>
        <translation>%1 以状态 %2 结束</translation>
    </message>
    <message>
        <source>the workspace folder %1 does not exist</source>
        <translation>工作区文件夹 %1 不存在</translation>
    </message>
    <message>
        <source>the session folder %1 is gone</source>
        <translation>会话文件夹 %1 已不存在</translation>
    </message>
    <message>
        <source>a read needs an offset of 0 or more</source>
        <translation>读取需要 0 或更大的偏移量</translation>
    </message>
    <message>
        <source>.mcp is %1 bytes, more than the %2 MiB the inspector reads</source>
        <translation>.mcp 有 %1 字节，超过检查器读取的上限 %2 MiB</translation>
    </message>
    <message>
        <source>workspaces of this backend have no gateway home</source>
        <translation>此后端的工作区没有网关主目录</translation>
    </message>
    <message>
        <source>the gateway home %1 does not exist</source>
        <translation>网关主目录 %1 不存在</translation>
    </message>
    <message>
        <source>the %1 backend cannot run commands in a workspace</source>
        <translation>%1 后端无法在工作区中运行命令</translation>
    </message>
    <message>
        <source>the workspace is not running (%1): resume it to ask its gateway</source>
        <translation>工作区未在运行（%1）：请先恢复它，再询问其网关</translation>
    </message>
    <message>
        <source>the health check did not end in time</source>
        <translation>健康检查未能按时结束</translation>
    </message>
    <message>
        <source>none of curl, wget, python3, bash, nc or busybox is in the workspace to ask it</source>
        <translation>工作区中没有 curl、wget、python3、bash、nc 或 busybox，无法向其询问</translation>
    </message>
    <message>
        <source>no tool in the workspace could ask it (%1 did not run)</source>
        <translation>工作区中没有可用于询问的工具（%1 无法运行）</translation>
    </message>
    <message numerus="yes">
        <source>only %1 of %n byte(s) came back</source>
        <translation>
            <numerusform>%n 个字节中只读回了 %1 个</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 kept changing while it was resolved in the sandbox</source>
        <translation>在沙箱中解析 %1 时它一直在变化</translation>
    </message>
    <message>
        <source>cannot resolve %1 in the sandbox: %2</source>
        <translation>无法在沙箱中解析 %1：%2</translation>
    </message>
    <message>
        <source>the workspace is %1: its files can be read only while it runs</source>
        <translation>工作区处于“%1”状态：只有在运行时才能读取其文件</translation>
    </message>
    <message>
        <source>a user id is needed: the AgentScope layout keeps each workspace in &lt;base folder&gt;/&lt;user id&gt;/&lt;agent id&gt;</source>
        <translation>需要用户 ID：AgentScope 布局把每个工作区放在 &lt;基础文件夹&gt;/&lt;用户 ID&gt;/&lt;智能体 ID&gt; 中</translation>
    </message>
    <message>
        <source>an agent id is needed: the AgentScope layout keeps each workspace in a folder named after its agent</source>
        <translation>需要智能体 ID：AgentScope 布局把每个工作区放在以其智能体命名的文件夹中</translation>
    </message>
    <message>
        <source>the user id &quot;%1&quot; cannot name a folder of the AgentScope layout: it starts with a dot or holds / or \, and would leave the base folder</source>
        <translation>用户 ID“%1”不能作为 AgentScope 布局中的文件夹名：它以点开头或含有 / 或 \，会超出基础文件夹的范围</translation>
    </message>
    <message>
        <source>the agent id &quot;%1&quot; cannot name a folder of the AgentScope layout: AgentScope refuses agent ids that start with a dot or hold / or \</source>
        <translation>智能体 ID“%1”不能作为 AgentScope 布局中的文件夹名：AgentScope 拒绝以点开头或含有 / 或 \ 的智能体 ID</translation>
    </message>
    <message>
        <source>the user id &quot;%1&quot; is too long for a folder name (at most 255 bytes)</source>
        <translation>用户 ID“%1”太长，不能作为文件夹名（最多 255 字节）</translation>
    </message>
    <message>
        <source>the agent id &quot;%1&quot; is too long for a folder name (at most 255 bytes)</source>
        <translation>智能体 ID“%1”太长，不能作为文件夹名（最多 255 字节）</translation>
    </message>
    <message>
        <source>The AgentScope layout works with the per-agent isolation only: AgentScope keeps one folder per agent, and only that isolation gives each folder one workspace id.</source>
        <translation>AgentScope 布局只能与按智能体隔离（PER_AGENT）一起使用：AgentScope 为每个智能体保留一个文件夹，只有这种隔离粒度才让每个文件夹对应一个工作区 ID。</translation>
    </message>
    <message>
        <source>unknown layout &quot;%1&quot;; valid choices: paddock, agentscope</source>
        <translation>未知的布局“%1”；有效值：paddock、agentscope</translation>
    </message>
    <message>
        <source>--layout agentscope works with --isolation per_agent only: AgentScope keeps one folder per agent, and only per_agent gives each folder one workspace id</source>
        <translation>--layout agentscope 只能与 --isolation per_agent 一起使用：AgentScope 为每个智能体保留一个文件夹，只有 per_agent 才让每个文件夹对应一个工作区 ID</translation>
    </message>
    <message>
        <source>&quot;%1&quot; holds a colon, which a Docker bind mount of its folder cannot carry</source>
        <translation>“%1”含有冒号，Docker 无法绑定挂载这样的文件夹</translation>
    </message>
    <message>
        <source>workspace id &quot;%1&quot; cannot be part of the container name %2: Docker names take letters, digits and _ . - only</source>
        <translation>工作区 ID“%1”不能用在容器名 %2 中：Docker 容器名只能含有字母、数字和 _ . -</translation>
    </message>
    <message>
        <source>container %1 runs already, over another folder than %2</source>
        <translation>容器 %1 已在运行，但挂载的不是文件夹 %2</translation>
    </message>
    <message>
        <source>the /workspace of container %1 is not a folder &lt;user&gt;/&lt;agent&gt; of %2</source>
        <translation>容器 %1 的 /workspace 不是 %2 下的 &lt;用户&gt;/&lt;智能体&gt; 文件夹</translation>
    </message>
    <message>
        <source>Removes the container %1 and deletes its host folder %2 with every file of the workspace (closing keeps the folder): its data cannot be recovered.</source>
        <translation>将移除容器 %1，并删除其宿主机上的文件夹 %2 及工作区的所有文件（关闭会保留该文件夹）：其数据无法恢复。</translation>
    </message>
    <message>
        <source>Paddock: containers paddock-&lt;workspace id&gt; over &lt;folder&gt;/&lt;workspace id&gt;, labelled with the workspace, user and agent ids; closing freezes (or stops) them.
AgentScope: the containers of AgentScope&apos;s DockerWorkspaceManager, as_ws_&lt;workspace id&gt; over &lt;folder&gt;/&lt;user id&gt;/&lt;agent id&gt;, labelled only as AgentScope labels them (the user and agent are read from the folder); closing removes the container and keeps the folder, listed as Stopped; killing deletes the folder too. Works with the per-agent isolation only.</source>
        <translation>Paddock：容器名为 paddock-&lt;工作区 ID&gt;，挂载 &lt;文件夹&gt;/&lt;工作区 ID&gt;，带有工作区、用户和智能体 ID 标签；关闭时冻结（或停止）容器。
AgentScope：AgentScope 的 DockerWorkspaceManager 所用的容器，名为 as_ws_&lt;工作区 ID&gt;，挂载 &lt;文件夹&gt;/&lt;用户 ID&gt;/&lt;智能体 ID&gt;，只带 AgentScope 自己的标签（用户和智能体从文件夹读出）；关闭时移除容器并保留文件夹，列为已停止；销毁时也删除文件夹。只能与按智能体隔离（PER_AGENT）一起使用。</translation>
    </message>
    <message>
        <source>Docker backend:
  --docker-host URL      the engine: unix:///path or tcp://host:port
                         (default: DOCKER_HOST, else unix:///var/run/docker.sock)
  --image IMAGE          image of new containers; it must be on the engine
                         (default: debian:bookworm-slim)
  --basedir DIR          host folder for the workspaces&apos; /workspace (default: %1)
  --layout L             paddock (default): &lt;basedir&gt;/&lt;workspace id&gt;; agentscope:
                         AgentScope&apos;s as_ws_&lt;id&gt; containers over
                         &lt;basedir&gt;/&lt;user id&gt;/&lt;agent id&gt;, removed on close, the
                         folder deleted on kill (with --isolation per_agent only)
  kill --delete-files    also delete the workspace&apos;s host folder (paddock layout)
</source>
        <translation>Docker 后端：
  --docker-host URL      Docker 引擎：unix:///path 或 tcp://host:port
                         （默认：DOCKER_HOST，未设置时为 unix:///var/run/docker.sock）
  --image IMAGE          新容器的镜像，必须已在该引擎上
                         （默认：debian:bookworm-slim）
  --basedir DIR          工作区 /workspace 在主机上的文件夹（默认：%1）
  --layout L             paddock（默认）：&lt;basedir&gt;/&lt;工作区 ID&gt;；agentscope：
                         AgentScope 的 as_ws_&lt;ID&gt; 容器，挂载
                         &lt;basedir&gt;/&lt;用户 ID&gt;/&lt;智能体 ID&gt;，关闭时移除容器，
                         销毁时删除文件夹（只能与 --isolation per_agent 一起使用）
  kill --delete-files    同时删除工作区在主机上的文件夹（paddock 布局）
</translation>
    </message>
    <message>
        <source>agent id &quot;%1&quot; would lead out of the base folder %2</source>
        <translation>智能体 ID“%1”会超出基础文件夹 %2 的范围</translation>
    </message>
    <message>
        <source>in the AgentScope layout the workspace of agent %1 is %2, the id AgentScope&apos;s LocalWorkspaceManager gives its folder, not %3</source>
        <translation>在 AgentScope 布局中，智能体 %1 的工作区是 %2（AgentScope 的 LocalWorkspaceManager 给其文件夹的 ID），而不是 %3</translation>
    </message>
    <message>
        <source>Deletes the folder %1 with every file of the workspace, which AgentScope gives every user of agent %2: its data cannot be recovered.</source>
        <translation>将删除文件夹 %1 及工作区的所有文件，AgentScope 让智能体 %2 的所有用户共用它：其数据无法恢复。</translation>
    </message>
    <message>
        <source>Paddock: one folder per workspace, &lt;folder&gt;/&lt;workspace id&gt;, with Paddock&apos;s metadata inside it.
AgentScope: the folders AgentScope&apos;s LocalWorkspaceManager keeps, &lt;folder&gt;/&lt;agent id&gt;, one per agent whoever the user (no user is recorded), listed as soon as they hold .mcp, skills, sessions or data; Paddock keeps its metadata beside them in &lt;folder&gt;/.paddock. Works with the per-agent isolation only.</source>
        <translation>Paddock：每个工作区一个文件夹 &lt;文件夹&gt;/&lt;工作区 ID&gt;，Paddock 的元数据放在其中。
AgentScope：AgentScope 的 LocalWorkspaceManager 所用的文件夹 &lt;文件夹&gt;/&lt;智能体 ID&gt;，每个智能体一个，与用户无关（不记录用户），只要含有 .mcp、skills、sessions 或 data 就会列出；Paddock 把元数据放在它们旁边的 &lt;文件夹&gt;/.paddock 中。只能与按智能体隔离（PER_AGENT）一起使用。</translation>
    </message>
    <message>
        <source>Local backend:
  --basedir DIR          the base folder (default: %1)
  --layout L             paddock (default): &lt;basedir&gt;/&lt;workspace id&gt;;
                         agentscope: AgentScope&apos;s &lt;basedir&gt;/&lt;agent id&gt;, the user
                         not recorded (with --isolation per_agent only)
  --bubblewrap           run commands inside bubblewrap (bwrap)
</source>
        <translation>本地后端：
  --basedir DIR          基础文件夹（默认：%1）
  --layout L             paddock（默认）：&lt;basedir&gt;/&lt;工作区 ID&gt;；
                         agentscope：AgentScope 的 &lt;basedir&gt;/&lt;智能体 ID&gt;，不记录
                         用户（只能与 --isolation per_agent 一起使用）
  --bubblewrap           在 bubblewrap (bwrap) 中运行命令
</translation>
    </message>
    <message>
        <source>cancelled: the command was not started</source>
        <translation>已取消：命令未启动</translation>
    </message>
    <message>
        <source>the command in container %1 could not be stopped: %2</source>
        <translation>无法停止容器 %1 中的命令：%2</translation>
    </message>
    <message>
        <source>cancelled: the command was stopped</source>
        <translation>已取消：命令已停止</translation>
    </message>
    <message>
        <source>The image of container %1 has no sh, which a command that can be cancelled needs.</source>
        <translation>容器 %1 的镜像中没有 sh，而可取消的命令需要它。</translation>
    </message>
    <message>
        <source>the command in pod %1 could not be stopped: %2</source>
        <translation>无法停止 Pod %1 中的命令：%2</translation>
    </message>
    <message>
        <source>cancelled: the connection to the command was closed</source>
        <translation>已取消：与命令的连接已关闭</translation>
    </message>
    <message>
        <source>execd at %1 could not stop the command: %2</source>
        <translation>位于 %1 的 execd 无法停止命令：%2</translation>
    </message>
    <message>
        <source>the profile %1 is read-only: no command is run</source>
        <translation>配置文件 %1 为只读：不会运行任何命令</translation>
    </message>
    <message>
        <source>workspace %1 is stopped: resume it to run commands in it</source>
        <translation>工作区 %1 已停止：请先恢复它，才能在其中运行命令</translation>
    </message>
    <message>
        <source>workspace %1 is paused: resume it to run commands in it</source>
        <translation>工作区 %1 已暂停：请先恢复它，才能在其中运行命令</translation>
    </message>
    <message>
        <source>workspace %1 is not running (%2): commands run only in a running workspace</source>
        <translation>工作区 %1 未在运行（%2）：命令只能在运行中的工作区中运行</translation>
    </message>
    <message>
        <source>stopped: the profile %1 was closed while the command ran</source>
        <translation>已停止：命令运行期间配置文件 %1 已关闭</translation>
    </message>
    <message>
        <source>an upload outside the workspace folder takes at most %1 MiB</source>
        <translation>工作区文件夹之外的上传最多 %1 MiB</translation>
    </message>
    <message>
        <source>%1 is in container %2, which is not running: it can be read only while the workspace runs</source>
        <translation>%1 位于容器 %2 中，该容器未在运行：只有工作区运行时才能读取</translation>
    </message>
    <message>
        <source>the file command in the workspace did not end in time</source>
        <translation>工作区中的文件命令未在时限内结束</translation>
    </message>
    <message>
        <source>%1 did not arrive whole in the workspace: %2 was left as it was</source>
        <translation>%1 未完整到达工作区：%2 保持原样</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>Docker engine</source>
        <translation>Docker 引擎</translation>
    </message>
    <message>
        <source>Container</source>
        <translation>容器</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>启动时间</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>Restarts</source>
        <translation>重启次数</translation>
    </message>
    <message>
        <source>Host folder</source>
        <translation>主机文件夹</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>closed: its container was removed and its folder kept; Resume makes the container again</source>
        <translation>已关闭：其容器已被移除，文件夹保留；“恢复”会重新创建容器</translation>
    </message>
    <message>
        <source>%1, exit code %2</source>
        <translation>%1，退出码 %2</translation>
    </message>
    <message>
        <source>closed: the Pod was deleted and the PVC keeps the workspace&apos;s files; Resume makes the Pod again</source>
        <translation>已关闭：Pod 已被删除，PVC 保留着工作区的文件；“恢复”会重新创建 Pod</translation>
    </message>
    <message>
        <source>API server</source>
        <translation>API 服务器</translation>
    </message>
    <message>
        <source>port %1 (in the cluster)</source>
        <translation>端口 %1（集群内）</translation>
    </message>
    <message>
        <source>Namespace</source>
        <translation>命名空间</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Pod IP</source>
        <translation>Pod IP</translation>
    </message>
    <message>
        <source>QoS class</source>
        <translation>QoS 等级</translation>
    </message>
    <message>
        <source>Terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <source>Last termination</source>
        <translation>上次终止</translation>
    </message>
    <message>
        <source>Deletion requested</source>
        <translation>请求删除的时间</translation>
    </message>
    <message>
        <source>PVC</source>
        <translation>PVC</translation>
    </message>
    <message>
        <source>PVC phase</source>
        <translation>PVC 阶段</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>Storage class</source>
        <translation>存储类</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Metadata file</source>
        <translation>元数据文件</translation>
    </message>
    <message>
        <source>none yet: Paddock has not opened this folder</source>
        <translation>尚无：Paddock 尚未打开过此文件夹</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>AgentScope&apos;s (&lt;basedir&gt;/&lt;agent id&gt;)</source>
        <translation>AgentScope 的（&lt;basedir&gt;/&lt;智能体 ID&gt;）</translation>
    </message>
    <message>
        <source>Paddock&apos;s (&lt;basedir&gt;/&lt;workspace id&gt;)</source>
        <translation>Paddock 的（&lt;basedir&gt;/&lt;工作区 ID&gt;）</translation>
    </message>
    <message>
        <source>Bubblewrap</source>
        <translation>Bubblewrap</translation>
    </message>
    <message>
        <source>on: commands run with only the workspace writable</source>
        <translation>开启：命令运行时只有工作区可写</translation>
    </message>
    <message>
        <source>off: commands run as this user, unconfined</source>
        <translation>关闭：命令以当前用户身份运行，不受限制</translation>
    </message>
    <message>
        <source>Last transition</source>
        <translation>上次状态变化</translation>
    </message>
    <message>
        <source>Entrypoint</source>
        <translation>入口命令</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>Snapshot</source>
        <translation>快照</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>the E2B server&apos;s answer is not JSON (HTTP %1) - is this an E2B API?</source>
        <translation>E2B 服务器的应答不是 JSON（HTTP %1）——这是 E2B API 吗？</translation>
    </message>
    <message>
        <source>no E2B API key: give the profile one (it is kept in the keychain), or set E2B_API_KEY for paddockctl</source>
        <translation>没有 E2B API 密钥：请为配置文件设置一个（保存在钥匙串中），或为 paddockctl 设置 E2B_API_KEY</translation>
    </message>
    <message>
        <source>the E2B API key does not start with &quot;e2b_&quot;: it is not an E2B API key (an access token, which starts with &quot;sk_e2b_&quot;, is not one either); copy the key from the E2B dashboard</source>
        <translation>该 E2B API 密钥不以“e2b_”开头：它不是 E2B API 密钥（以“sk_e2b_”开头的访问令牌也不是）；请从 E2B 控制台复制密钥</translation>
    </message>
    <message>
        <source>the E2B API key is &quot;e2b_&quot; and hexadecimal digits; this one has other characters after &quot;e2b_&quot;</source>
        <translation>E2B API 密钥由“e2b_”和十六进制数字组成；此密钥在“e2b_”之后含有其他字符</translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot; is not an http:// or https:// URL with a host</source>
        <translation>%1“%2”不是带主机名的 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>%1 &quot;%2&quot; must not have a query, a fragment or a user</source>
        <translation>%1“%2”不能包含查询、片段或用户</translation>
    </message>
    <message>
        <source>the E2B domain &quot;%1&quot; is a host name such as e2b.app, without a scheme, a port or a path</source>
        <translation>E2B 域名“%1”应为 e2b.app 这样的主机名，不带协议、端口或路径</translation>
    </message>
    <message>
        <source>the E2B server&apos;s answer is not a JSON object</source>
        <translation>E2B 服务器的应答不是 JSON 对象</translation>
    </message>
    <message>
        <source>the E2B server refused the API key (HTTP 401): %1</source>
        <translation>E2B 服务器拒绝了该 API 密钥（HTTP 401）：%1</translation>
    </message>
    <message>
        <source>the E2B server refused access (HTTP 403): %1</source>
        <translation>E2B 服务器拒绝访问（HTTP 403）：%1</translation>
    </message>
    <message>
        <source>the E2B server asks to slow down (HTTP 429): %1</source>
        <translation>E2B 服务器要求放慢请求（HTTP 429）：%1</translation>
    </message>
    <message>
        <source>the E2B API URL</source>
        <translation>E2B API URL</translation>
    </message>
    <message>
        <source>the E2B sandbox URL</source>
        <translation>E2B 沙箱 URL</translation>
    </message>
    <message>
        <source>an E2B sandbox&apos;s timeout is at least 1 second</source>
        <translation>E2B 沙箱的超时至少为 1 秒</translation>
    </message>
    <message>
        <source>E2B sandbox %1 does not exist: it was killed, or it expired (%2)</source>
        <translation>E2B 沙箱 %1 不存在：它已被销毁或已过期（%2）</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <source>Ends</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>Paused since</source>
        <translation>暂停时间</translation>
    </message>
    <message>
        <source>%1 (its timer is stopped until it is resumed)</source>
        <translation>%1（其计时器已停止，直到恢复）</translation>
    </message>
    <message>
        <source>When the time is up</source>
        <translation>到期时</translation>
    </message>
    <message>
        <source>pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>kill</source>
        <translation>销毁</translation>
    </message>
    <message>
        <source>envd version</source>
        <translation>envd 版本</translation>
    </message>
    <message>
        <source>Domain</source>
        <translation>域名</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>E2B has no template &quot;%1&quot; that this key may use: %2</source>
        <translation>E2B 没有此密钥可用的模板“%1”：%2</translation>
    </message>
    <message>
        <source>E2B refused a sandbox timeout of %1 s, more than your team&apos;s longest run allows; lower the profile&apos;s sandbox timeout: %2</source>
        <translation>E2B 拒绝了 %1 秒的沙箱超时，它超过了您团队允许的最长运行时间；请调低配置文件的沙箱超时：%2</translation>
    </message>
    <message>
        <source>the E2B server created a sandbox but did not say its id</source>
        <translation>E2B 服务器创建了沙箱，但没有给出其 ID</translation>
    </message>
    <message>
        <source>E2B sandbox %1 is %2, not running: resume it to attach</source>
        <translation>E2B 沙箱 %1 处于 %2 状态，未在运行：请先恢复它再连接</translation>
    </message>
    <message>
        <source>E2B sandbox %1 is paused: its timer is stopped and cannot be renewed; resuming it gives it a new timeout</source>
        <translation>E2B 沙箱 %1 已暂停：其计时器已停止，无法续期；恢复它会给它一个新的超时</translation>
    </message>
    <message>
        <source>E2B sandbox %1 is %2, not running: resume it first</source>
        <translation>E2B 沙箱 %1 处于 %2 状态，未在运行：请先恢复它</translation>
    </message>
    <message>
        <source>E2B sandbox %1 no longer exists: it expired or was killed</source>
        <translation>E2B 沙箱 %1 已不存在：它已过期或已被销毁</translation>
    </message>
    <message>
        <source>E2B sandbox %1 is paused: resume it first</source>
        <translation>E2B 沙箱 %1 已暂停：请先恢复它</translation>
    </message>
    <message>
        <source>envd in E2B sandbox %1 cannot be reached (the sandbox proxy answered HTTP 502 while the sandbox runs): %2</source>
        <translation>无法访问 E2B 沙箱 %1 中的 envd（沙箱在运行，但沙箱代理应答了 HTTP 502）：%2</translation>
    </message>
    <message>
        <source>E2B</source>
        <translation>E2B</translation>
    </message>
    <message>
        <source>The E2B template of new sandboxes (a name or an ID); empty for base</source>
        <translation>新沙箱的 E2B 模板（名称或 ID）；留空则为 base</translation>
    </message>
    <message>
        <source>E2B&apos;s domain (E2B_DOMAIN): the API is https://api.&lt;domain&gt;</source>
        <translation>E2B 的域名（E2B_DOMAIN）：API 为 https://api.&lt;domain&gt;</translation>
    </message>
    <message>
        <source>https://api.&lt;domain&gt;</source>
        <translation>https://api.&lt;domain&gt;</translation>
    </message>
    <message>
        <source>The control plane&apos;s URL when it is not https://api.&lt;domain&gt; (E2B_API_URL): a self-hosted E2B</source>
        <translation>控制平面的 URL，当它不是 https://api.&lt;domain&gt; 时填写（E2B_API_URL）：自托管的 E2B</translation>
    </message>
    <message>
        <source>each sandbox&apos;s own</source>
        <translation>各沙箱自己的</translation>
    </message>
    <message>
        <source>One URL for every sandbox&apos;s envd (E2B_SANDBOX_URL), told apart by the E2b-Sandbox-Id header</source>
        <translation>所有沙箱的 envd 共用的一个 URL（E2B_SANDBOX_URL），按 E2b-Sandbox-Id 请求头区分</translation>
    </message>
    <message>
        <source>Seconds a new or resumed sandbox runs before E2B ends it (AgentScope: 300)</source>
        <translation>新建或恢复的沙箱在 E2B 结束它之前运行的秒数（AgentScope：300）</translation>
    </message>
    <message>
        <source>The E2B API key (e2b_…), kept in the keychain</source>
        <translation>E2B API 密钥（e2b_…），保存在钥匙串中</translation>
    </message>
    <message>
        <source>E2B backend (API key from E2B_API_KEY):
  --domain HOST          E2B&apos;s domain (default: E2B_DOMAIN, else e2b.app)
  --api-url URL          the control plane (default: E2B_API_URL, else https://api.&lt;domain&gt;)
  --sandbox-url URL      envd of every sandbox (default: E2B_SANDBOX_URL, else each sandbox&apos;s)
  --template NAME        template of new sandboxes (default: base)
  --sandbox-timeout N    seconds a new or resumed sandbox runs (default: 300)
</source>
        <translation>E2B 后端（API 密钥取自 E2B_API_KEY）：
  --domain HOST          E2B 的域名（默认：E2B_DOMAIN，否则为 e2b.app）
  --api-url URL          控制平面（默认：E2B_API_URL，否则为 https://api.&lt;domain&gt;）
  --sandbox-url URL      所有沙箱的 envd（默认：E2B_SANDBOX_URL，否则为各沙箱自己的）
  --template NAME        新沙箱的模板（默认：base）
  --sandbox-timeout N    新建或恢复的沙箱运行的秒数（默认：300）
</translation>
    </message>
    <message>
        <source>the API URL</source>
        <translation>API URL</translation>
    </message>
    <message>
        <source>the sandbox URL</source>
        <translation>沙箱 URL</translation>
    </message>
    <message>
        <source>An E2B sandbox runs at least 1 second; E2B has no sandboxes that never expire.</source>
        <translation>E2B 沙箱至少运行 1 秒；E2B 没有永不过期的沙箱。</translation>
    </message>
    <message>
        <source>--template needs a template name</source>
        <translation>--template 需要一个模板名称</translation>
    </message>
    <message>
        <source>--sandbox-timeout takes a number of seconds of at least 1, not &quot;%1&quot;</source>
        <translation>--sandbox-timeout 的取值为至少 1 的秒数，而不是“%1”</translation>
    </message>
    <message>
        <source>%1 leads through too many symbolic links</source>
        <translation>%1 经过的符号链接过多</translation>
    </message>
    <message>
        <source>envd did not say where the symbolic link %1 points</source>
        <translation>envd 没有给出符号链接 %1 指向何处</translation>
    </message>
    <message>
        <source>a read needs a position and a length of 0 or more</source>
        <translation>读取需要大于或等于 0 的位置和长度</translation>
    </message>
    <message>
        <source>%1 is larger than %2 MiB, the most one upload to E2B takes</source>
        <translation>%1 大于 %2 MiB，即一次上传到 E2B 的上限</translation>
    </message>
    <message>
        <source>the folder of %1 is not a folder</source>
        <translation>%1 的文件夹不是文件夹</translation>
    </message>
    <message>
        <source>envd&apos;s answer to %1 is not a JSON object</source>
        <translation>envd 对 %1 的应答不是 JSON 对象</translation>
    </message>
    <message>
        <source>envd&apos;s stream is not made of Connect envelopes</source>
        <translation>envd 的数据流不是由 Connect 信封组成的</translation>
    </message>
    <message>
        <source>a message of envd&apos;s stream is not a JSON object</source>
        <translation>envd 数据流中的一条消息不是 JSON 对象</translation>
    </message>
    <message>
        <source>envd&apos;s stream did not begin with the process&apos;s start</source>
        <translation>envd 的数据流没有以进程启动事件开头</translation>
    </message>
    <message>
        <source>envd of sandbox %1 could not stop the command: %2</source>
        <translation>沙箱 %1 的 envd 无法停止该命令：%2</translation>
    </message>
    <message>
        <source>envd of sandbox %1 broke the protocol: %2; the command&apos;s outcome is unknown</source>
        <translation>沙箱 %1 的 envd 违反了协议：%2；命令的结果未知</translation>
    </message>
    <message>
        <source>the command stream of sandbox %1 broke off (%2): the command&apos;s fate is unknown; it may still be running in the sandbox</source>
        <translation>沙箱 %1 的命令数据流中断（%2）：命令的结局未知；它可能仍在沙箱中运行</translation>
    </message>
    <message>
        <source>no keepalive from envd for %1 s</source>
        <translation>%1 秒内没有收到 envd 的保活消息</translation>
    </message>
    <message>
        <source>envd of sandbox %1 did not start the command: %2</source>
        <translation>沙箱 %1 的 envd 没有启动该命令：%2</translation>
    </message>
    <message>
        <source>it ended inside a message</source>
        <translation>它在一条消息中间结束</translation>
    </message>
    <message>
        <source>it ended without the command&apos;s end</source>
        <translation>它在命令结束之前就结束了</translation>
    </message>
    <message>
        <source>it is not JSON (at byte %1)</source>
        <translation>它不是 JSON（第 %1 字节处）</translation>
    </message>
    <message>
        <source>it is not a JSON object</source>
        <translation>它不是 JSON 对象</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is too large to be E2B&apos;s CLI configuration</source>
        <translation>%1 太大，不可能是 E2B CLI 的配置文件</translation>
    </message>
    <message>
        <source>sandbox %1 is gone</source>
        <translation>沙箱 %1 已不存在</translation>
    </message>
    <message>
        <source>creating a sandbox for workspace %1: %2; and looking it up by its metadata, to learn whether it was made, failed too: %3 (the next open of the workspace looks again, and uses it if it was made)</source>
        <translation>为工作区 %1 创建沙箱：%2；按元数据查找它以确认是否已创建也失败了：%3（下次打开该工作区时会再次查找，若已创建则使用它）</translation>
    </message>
    <message numerus="yes">
        <source>creating a sandbox for workspace %1 failed %n time(s), and no sandbox was made (looked up by its metadata after each): %2</source>
        <translation>
            <numerusform>为工作区 %1 创建沙箱失败 %n 次，且没有创建任何沙箱（每次之后都按元数据查找过）：%2</numerusform>
        </translation>
    </message>
    <message>
        <source>the connection ended without an answer</source>
        <translation>连接在收到应答前就结束了</translation>
    </message>
    <message>
        <source>Give whole minutes from 1 to 10080 (7 days), separated by commas, such as &quot;10, 1&quot;; or nothing, for no notice before expiry.</source>
        <translation>请填写 1 到 10080（7 天）之间的整数分钟，用逗号分隔，例如“10, 1”；或留空，不在过期前通知。</translation>
    </message>
    <message>
        <source>At most %1 times before expiry.</source>
        <translation>过期前最多通知 %1 次。</translation>
    </message>
    <message>
        <source>CPU and memory are not reported by this server</source>
        <translation>此服务器不报告 CPU 和内存</translation>
    </message>
    <message>
        <source>execd sent metrics that cannot be read</source>
        <translation>execd 发来的指标无法读取</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>pausing</source>
        <translation>正在暂停</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>resuming</source>
        <translation>正在恢复</translation>
    </message>
    <message>
        <source>stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>ProfilesDialog</name>
    <message>
        <source>Profiles[*]</source>
        <translation>配置文件[*]</translation>
    </message>
    <message>
        <source>&amp;Profiles:</source>
        <translation>配置文件(&amp;P)：</translation>
    </message>
    <message>
        <source>The profile shown in the form</source>
        <translation>表单中显示的配置文件</translation>
    </message>
    <message>
        <source>Add a new profile</source>
        <translation>添加新配置文件</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
    <message>
        <source>Remove the selected profile and its API key</source>
        <translation>移除选中的配置文件及其 API 密钥</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>移除(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>How the profile is called in the console</source>
        <translation>配置文件在控制台中显示的名称</translation>
    </message>
    <message>
        <source>&amp;Backend:</source>
        <translation>后端(&amp;B)：</translation>
    </message>
    <message>
        <source>Where the workspaces of this profile live</source>
        <translation>此配置文件的工作区所在位置</translation>
    </message>
    <message>
        <source>D&amp;omain:</source>
        <translation>域名(&amp;O)：</translation>
    </message>
    <message>
        <source>The OpenSandbox server as host or host:port, without a scheme</source>
        <translation>OpenSandbox 服务器，格式为“主机”或“主机:端口”，不含协议前缀</translation>
    </message>
    <message>
        <source>host or host:port</source>
        <translation>主机或主机:端口</translation>
    </message>
    <message>
        <source>Pro&amp;tocol:</source>
        <translation>协议(&amp;T)：</translation>
    </message>
    <message>
        <source>How the console talks to the server</source>
        <translation>控制台与服务器通信所用的协议</translation>
    </message>
    <message>
        <source>Reach the sandboxes through the server instead of directly</source>
        <translation>通过服务器访问沙箱，而不是直接访问</translation>
    </message>
    <message>
        <source>Use the se&amp;rver as a proxy</source>
        <translation>将服务器用作代理(&amp;R)</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <source>Stored in the system keychain, never in a file. Leave empty to keep the stored key.</source>
        <translation>保存在系统钥匙串中，绝不写入文件。留空则保留已存储的密钥。</translation>
    </message>
    <message>
        <source>Leave empty to keep the stored key</source>
        <translation>留空则保留已存储的密钥</translation>
    </message>
    <message>
        <source>Remove the stored API key of this profile</source>
        <translation>移除此配置文件已存储的 API 密钥</translation>
    </message>
    <message>
        <source>For&amp;get key</source>
        <translation>清除密钥(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Image:</source>
        <translation>镜像(&amp;I)：</translation>
    </message>
    <message>
        <source>The container image of new sandboxes; empty for the default</source>
        <translation>新沙箱使用的容器镜像；留空则使用默认镜像</translation>
    </message>
    <message>
        <source>Sandbox ti&amp;meout:</source>
        <translation>沙箱超时(&amp;M)：</translation>
    </message>
    <message>
        <source>How long a new sandbox lives unless renewed; 0: it never expires</source>
        <translation>新沙箱在不续期的情况下的存活时长；0：永不过期</translation>
    </message>
    <message>
        <source>F&amp;older:</source>
        <translation>文件夹(&amp;O)：</translation>
    </message>
    <message>
        <source>The folder that holds one folder per workspace; empty for the default</source>
        <translation>存放工作区的文件夹，每个工作区在其中占一个子文件夹；留空则使用默认位置</translation>
    </message>
    <message>
        <source>Choose the workspaces folder</source>
        <translation>选择工作区文件夹</translation>
    </message>
    <message>
        <source>Bootstrap comman&amp;ds:</source>
        <translation>初始化命令(&amp;D)：</translation>
    </message>
    <message>
        <source>A file with one shell command per line, run when a workspace is first made; empty for the backend&apos;s own</source>
        <translation>每行一条 shell 命令的文件，在首次创建工作区时运行；留空则使用后端自带的命令</translation>
    </message>
    <message>
        <source>Choose the bootstrap file</source>
        <translation>选择初始化文件</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Iso&amp;lation:</source>
        <translation>隔离粒度(&amp;L)：</translation>
    </message>
    <message>
        <source>Which users, agents and sessions share one workspace</source>
        <translation>哪些用户、智能体和会话共用一个工作区</translation>
    </message>
    <message>
        <source>Pause w&amp;hen idle for:</source>
        <translation>空闲多久后暂停(&amp;H)：</translation>
    </message>
    <message>
        <source>Open workspaces idle longer than this are closed (paused)</source>
        <translation>空闲超过此时长的已打开工作区将被关闭（暂停）</translation>
    </message>
    <message>
        <source>S&amp;weep every:</source>
        <translation>扫描间隔(&amp;W)：</translation>
    </message>
    <message>
        <source>How often idle workspaces are looked for</source>
        <translation>检查空闲工作区的频率</translation>
    </message>
    <message>
        <source>Re&amp;fresh every:</source>
        <translation>刷新间隔(&amp;F)：</translation>
    </message>
    <message>
        <source>How often the console reloads the workspace list while it is shown</source>
        <translation>控制台显示时重新加载工作区列表的频率</translation>
    </message>
    <message>
        <source>Hide every action that changes workspaces</source>
        <translation>隐藏所有会更改工作区的操作</translation>
    </message>
    <message>
        <source>Read-onl&amp;y</source>
        <translation>只读(&amp;Y)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save the profile (Enter)</source>
        <translation>保存配置文件（Enter）</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Never expires</source>
        <translation>永不过期</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>默认：%1</translation>
    </message>
    <message>
        <source>New profile</source>
        <translation>新配置文件</translation>
    </message>
    <message>
        <source>One workspace per agent (PER_AGENT)</source>
        <translation>每个智能体一个工作区（PER_AGENT）</translation>
    </message>
    <message>
        <source>A new workspace for every session (PER_SESSION)</source>
        <translation>每个会话一个新工作区（PER_SESSION）</translation>
    </message>
    <message>
        <source>One workspace per user (PER_USER)</source>
        <translation>每个用户一个工作区（PER_USER）</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>不刷新</translation>
    </message>
    <message numerus="yes">
        <source>%n second(s)</source>
        <translation>
            <numerusform>%n 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>The Local profile always uses the local backend.</source>
        <translation>“本地”配置文件始终使用本地后端。</translation>
    </message>
    <message>
        <source>Nothing was saved. Correct the fields that show a problem.</source>
        <translation>未保存任何内容。请更正标出问题的字段。</translation>
    </message>
    <message>
        <source>Save the new profile before going on?</source>
        <translation>继续之前是否保存新配置文件？</translation>
    </message>
    <message>
        <source>Save the changes to &quot;%1&quot; before going on?</source>
        <translation>继续之前是否保存对“%1”的更改？</translation>
    </message>
    <message>
        <source>Profiles</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Changes that are not saved are lost.</source>
        <translation>未保存的更改将会丢失。</translation>
    </message>
    <message>
        <source>The profile &quot;%1&quot; was saved.</source>
        <translation>配置文件“%1”已保存。</translation>
    </message>
    <message>
        <source>Nothing to save: the profile is unchanged.</source>
        <translation>无需保存：配置文件未更改。</translation>
    </message>
    <message>
        <source>Storing the API key in the system keychain…</source>
        <translation>正在将 API 密钥存入系统钥匙串…</translation>
    </message>
    <message>
        <source>The profile &quot;%1&quot; and its API key were saved.</source>
        <translation>配置文件“%1”及其 API 密钥已保存。</translation>
    </message>
    <message>
        <source>The system keychain is unavailable, so the API key of &quot;%1&quot; was not stored. Paddock keeps it in memory only until it quits; you will need to enter it again after that.</source>
        <translation>系统钥匙串不可用，因此未存储“%1”的 API 密钥。Paddock 仅在退出前将其保留在内存中，退出后需要重新输入。</translation>
    </message>
    <message>
        <source>The system keychain is unavailable, so the API key of &quot;%1&quot; was not saved.</source>
        <translation>系统钥匙串不可用，因此未保存“%1”的 API 密钥。</translation>
    </message>
    <message>
        <source>Fill in the new profile, then save it.</source>
        <translation>请填写新配置文件，然后保存。</translation>
    </message>
    <message>
        <source>Remove the profile &quot;%1&quot;?</source>
        <translation>移除配置文件“%1”？</translation>
    </message>
    <message>
        <source>Its settings and its API key are deleted. Its workspaces are not touched.</source>
        <translation>其设置和 API 密钥将被删除，其工作区不受影响。</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>The profile &quot;%1&quot; was removed.</source>
        <translation>配置文件“%1”已移除。</translation>
    </message>
    <message>
        <source>The profile &quot;%1&quot; was removed, but its API key could not be removed from the system keychain.</source>
        <translation>配置文件“%1”已移除，但无法从系统钥匙串中移除其 API 密钥。</translation>
    </message>
    <message>
        <source>The API key of &quot;%1&quot; was forgotten.</source>
        <translation>已清除“%1”的 API 密钥。</translation>
    </message>
    <message>
        <source>The API key of &quot;%1&quot; could not be removed from the system keychain.</source>
        <translation>无法从系统钥匙串中移除“%1”的 API 密钥。</translation>
    </message>
    <message>
        <source>No key stored.</source>
        <translation>未存储密钥。</translation>
    </message>
    <message>
        <source>Checking the system keychain…</source>
        <translation>正在检查系统钥匙串…</translation>
    </message>
    <message>
        <source>A key is kept for this session only, because the system keychain could not store it. It is forgotten when Paddock quits.</source>
        <translation>由于系统钥匙串无法存储密钥，密钥仅在本次会话中保留，Paddock 退出后即被清除。</translation>
    </message>
    <message>
        <source>A key is stored in the system keychain.</source>
        <translation>已在系统钥匙串中存储密钥。</translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation>浏览(&amp;R)…</translation>
    </message>
    <message>
        <source>Doc&amp;ker host:</source>
        <translation>Docker 主机(&amp;K)：</translation>
    </message>
    <message>
        <source>The Docker engine as unix:///path/to/docker.sock or tcp://host:port; empty for DOCKER_HOST, else the system&apos;s engine</source>
        <translation>Docker 引擎地址，格式为 unix:///path/to/docker.sock 或 tcp://host:port；留空则使用 DOCKER_HOST，未设置时使用系统的 Docker 引擎</translation>
    </message>
    <message>
        <source>Closing or pausing a workspace stops its container (its memory is freed) instead of freezing it; resuming starts it again</source>
        <translation>关闭或暂停工作区时停止其容器（释放内存），而不是冻结容器；恢复时重新启动容器</translation>
    </message>
    <message>
        <source>Stop containers instead of pausin&amp;g them</source>
        <translation>停止容器而不是暂停(&amp;G)</translation>
    </message>
    <message>
        <source>Paste the API key</source>
        <translation>粘贴 API 密钥</translation>
    </message>
    <message>
        <source>Stored in the system keychain, never in a file. No key: requests are sent without one.</source>
        <translation>保存在系统钥匙串中，绝不写入文件。没有密钥时，请求不带密钥发送。</translation>
    </message>
    <message>
        <source>&amp;Kubeconfig:</source>
        <translation>Kubeconfig(&amp;K)：</translation>
    </message>
    <message>
        <source>The kubeconfig file to connect with; empty for KUBECONFIG, else the cluster Paddock runs in, else ~/.kube/config</source>
        <translation>用于连接的 kubeconfig 文件；留空则使用 KUBECONFIG，否则使用 Paddock 所在的集群，再否则使用 ~/.kube/config</translation>
    </message>
    <message>
        <source>Choose the kubeconfig file</source>
        <translation>选择 kubeconfig 文件</translation>
    </message>
    <message>
        <source>C&amp;ontext:</source>
        <translation>上下文(&amp;O)：</translation>
    </message>
    <message>
        <source>The kubeconfig&apos;s context to connect with: one of its contexts, or a name typed; empty for its current context</source>
        <translation>用于连接的 kubeconfig 上下文：从其上下文中选择，或输入名称；留空则使用其当前上下文</translation>
    </message>
    <message>
        <source>Na&amp;mespace:</source>
        <translation>命名空间(&amp;M)：</translation>
    </message>
    <message>
        <source>The namespace of the workspaces&apos; Pods and PVCs; empty for the context&apos;s</source>
        <translation>工作区的 Pod 和 PVC 所在的命名空间；留空则使用上下文的命名空间</translation>
    </message>
    <message>
        <source>Storage si&amp;ze:</source>
        <translation>存储大小(&amp;Z)：</translation>
    </message>
    <message>
        <source>The size of a new workspace&apos;s PersistentVolumeClaim; empty for the default</source>
        <translation>新工作区的 PersistentVolumeClaim 大小；留空则使用默认值</translation>
    </message>
    <message>
        <source>Sto&amp;rage class:</source>
        <translation>存储类(&amp;R)：</translation>
    </message>
    <message>
        <source>The storage class of new workspaces&apos; PVCs; empty for the cluster&apos;s default</source>
        <translation>新工作区 PVC 的存储类；留空则使用集群的默认存储类</translation>
    </message>
    <message>
        <source>&amp;%1:</source>
        <comment>the key field&apos;s label as its backend names it (Token)</comment>
        <translation>%1(&amp;K)：</translation>
    </message>
    <message>
        <source>Leave empty to keep the stored key.</source>
        <translation>留空则保留已存储的密钥。</translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <source>Layou&amp;t:</source>
        <translation>布局(&amp;T)：</translation>
    </message>
    <message>
        <source>How the workspaces are laid out in the folder: Paddock&apos;s own way, or AgentScope&apos;s</source>
        <translation>工作区在文件夹中如何存放：Paddock 自己的方式，或 AgentScope 的方式</translation>
    </message>
    <message>
        <source>Paddock&apos;s</source>
        <translation>Paddock 的</translation>
    </message>
    <message>
        <source>AgentScope&apos;s</source>
        <translation>AgentScope 的</translation>
    </message>
    <message>
        <source>A folder per workspace id, with Paddock&apos;s metadata in it</source>
        <translation>每个工作区 ID 一个文件夹，Paddock 的元数据放在其中</translation>
    </message>
    <message>
        <source>The folders and containers of AgentScope&apos;s own workspace managers</source>
        <translation>AgentScope 自己的工作区管理器所用的文件夹和容器</translation>
    </message>
    <message>
        <source>AP&amp;I URL:</source>
        <translation>API URL(&amp;I)：</translation>
    </message>
    <message>
        <source>The control plane&apos;s URL</source>
        <translation>控制平面的 URL</translation>
    </message>
    <message>
        <source>https://…</source>
        <translation>https://…</translation>
    </message>
    <message>
        <source>Sandbox U&amp;RL:</source>
        <translation>沙箱 URL(&amp;R)：</translation>
    </message>
    <message>
        <source>The URL of the sandboxes&apos; own services</source>
        <translation>沙箱自身服务的 URL</translation>
    </message>
    <message>
        <source>&amp;%1:</source>
        <comment>a field&apos;s label as its backend names it (Template for an image)</comment>
        <translation>%1(&amp;T)：</translation>
    </message>
    <message>
        <source>Notify before e&amp;xpiry (minutes):</source>
        <translation>过期前通知（分钟）(&amp;X)：</translation>
    </message>
    <message>
        <source>Minutes before a workspace expires when the desktop is told, separated by commas (10, 1 by default); empty: no notice</source>
        <translation>在工作区过期前多少分钟通知桌面，用逗号分隔（默认 10, 1）；留空：不通知</translation>
    </message>
    <message>
        <source>minutes, such as 10, 1</source>
        <translation>分钟，例如 10, 1</translation>
    </message>
    <message>
        <source>No desktop notifications for this profile&apos;s workspaces (expiry, failed bootstraps, lost workspaces, the sweeper&apos;s closes)</source>
        <translation>不为此配置文件的工作区发送桌面通知（过期、初始化失败、丢失的工作区、扫描关闭的工作区）</translation>
    </message>
    <message>
        <source>M&amp;ute notifications</source>
        <translation>静音通知(&amp;U)</translation>
    </message>
</context>
<context>
    <name>QuitController</name>
    <message>
        <source>When &amp;Quitting</source>
        <translation>退出时(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Ask What to Do with Open Workspaces</source>
        <translation>询问如何处理打开的工作区(&amp;A)</translation>
    </message>
    <message>
        <source>Quitting asks whether to close the workspaces this console opened or leave them running</source>
        <translation>退出时询问是关闭本控制台打开的工作区，还是让它们继续运行</translation>
    </message>
    <message>
        <source>&amp;Close Open Workspaces</source>
        <translation>关闭打开的工作区(&amp;C)</translation>
    </message>
    <message>
        <source>Quitting closes (pauses) the workspaces this console opened</source>
        <translation>退出时关闭（暂停）本控制台打开的工作区</translation>
    </message>
    <message>
        <source>&amp;Leave Open Workspaces Running</source>
        <translation>让打开的工作区继续运行(&amp;L)</translation>
    </message>
    <message>
        <source>Quitting leaves the workspaces this console opened running</source>
        <translation>退出时让本控制台打开的工作区继续运行</translation>
    </message>
    <message>
        <source>Quit Paddock</source>
        <translation>退出 Paddock</translation>
    </message>
    <message numerus="yes">
        <source>This console opened %n workspace(s) that are still open. Close them before quitting?</source>
        <translation>
            <numerusform>本控制台打开的 %n 个工作区仍处于打开状态。退出前关闭它们吗？</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Close Them and Quit</source>
        <translation>关闭它们并退出(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Leave Them Running and Quit</source>
        <translation>让它们继续运行并退出(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Remember my choice (File &gt; When Quitting changes it)</source>
        <translation>记住我的选择（可在“文件 &gt; 退出时”中更改）(&amp;R)</translation>
    </message>
    <message numerus="yes">
        <source>Closing pauses them, as AgentScope does when it stops. Left running, they keep running (and costing) until they are paused; and nobody renews them once this console has quit, so a sandbox whose server gives it an expiry is deleted with its files when it expires.</source>
        <translation>
            <numerusform>关闭会暂停它们，与 AgentScope 停止时的做法相同。若继续运行，它们会一直运行（并产生费用），直到被暂停；而且本控制台退出后没有人再为它们续期，因此服务器为其设置了过期时间的沙箱会在过期时连同其文件一起被删除。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RenewDialog</name>
    <message>
        <source>Renew</source>
        <translation>续期</translation>
    </message>
    <message>
        <source>Expiry before and after renewal</source>
        <translation>续期前后的过期时间</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Expires now</source>
        <translation>当前过期时间</translation>
    </message>
    <message>
        <source>Expires after renewal</source>
        <translation>续期后过期时间</translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) never expire and are skipped.</source>
        <translation>
            <numerusform>选中的工作区中有 %n 个永不过期，将被跳过。</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Renew</source>
        <translation>续期(&amp;R)</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>E&amp;xtend by</source>
        <translation>延长(&amp;X)</translation>
    </message>
    <message>
        <source>Each workspace expires this much later than it does now</source>
        <translation>每个工作区的过期时间比现在推迟这么久</translation>
    </message>
    <message>
        <source>Expire this long from &amp;now</source>
        <translation>从现在起经过这段时长后过期(&amp;N)</translation>
    </message>
    <message>
        <source>Each workspace expires this long from now, which may be sooner than it does now</source>
        <translation>每个工作区在从现在起这么久之后过期，可能早于当前的过期时间</translation>
    </message>
    <message>
        <source>&amp;Duration:</source>
        <translation>时长(&amp;D)：</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message numerus="yes">
        <source>Renew %n workspace(s)?</source>
        <translation>
            <numerusform>续期 %n 个工作区？</numerusform>
        </translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>分钟</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>days</source>
        <translation>天</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>+1 h</source>
        <translation>+1 小时</translation>
    </message>
    <message>
        <source>One hour</source>
        <translation>一小时</translation>
    </message>
    <message>
        <source>+4 h</source>
        <translation>+4 小时</translation>
    </message>
    <message>
        <source>Four hours</source>
        <translation>四小时</translation>
    </message>
    <message>
        <source>+24 h</source>
        <translation>+24 小时</translation>
    </message>
    <message>
        <source>A day</source>
        <translation>一天</translation>
    </message>
    <message>
        <source>%1 sooner</source>
        <translation>提前 %1</translation>
    </message>
    <message>
        <source>%1 later</source>
        <translation>推迟 %1</translation>
    </message>
    <message>
        <source>Expires sooner than it does now</source>
        <translation>将比现在更早过期</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) would expire sooner than they do now. An expired sandbox is deleted with its files.</source>
        <translation>
            <numerusform>%n 个工作区将比现在更早过期。过期的沙箱会连同其文件一起被删除。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Shorten the lifetime of %n workspace(s)?</source>
        <translation>
            <numerusform>缩短 %n 个工作区的有效期？</numerusform>
        </translation>
    </message>
    <message>
        <source>They would expire sooner than they do now, and an expired sandbox is deleted with its files. The others are renewed as shown.</source>
        <translation>它们将比现在更早过期，而过期的沙箱会连同其文件一起被删除。其余工作区按所示续期。</translation>
    </message>
    <message>
        <source>&amp;Shorten</source>
        <translation>缩短(&amp;S)</translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) are paused with their timer stopped and are skipped: resuming one starts a new timeout.</source>
        <translation>
            <numerusform>选中的工作区中有 %n 个已暂停且计时器已停止，将被跳过：恢复后会开始新的超时。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunDialog</name>
    <message>
        <source>Run Command</source>
        <translation>运行命令</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <source>Co&amp;mmand:</source>
        <translation>命令(&amp;M)：</translation>
    </message>
    <message>
        <source>A shell command, run with sh -c in the workspace&apos;s folder. Up and Down go through the commands run before.</source>
        <translation>一条 shell 命令，在工作区的文件夹中以 sh -c 运行。按上、下方向键可浏览以前运行过的命令。</translation>
    </message>
    <message>
        <source>R&amp;un</source>
        <translation>运行(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stop the command (with everything it started) in the workspace</source>
        <translation>在工作区中停止该命令（连同它启动的一切）</translation>
    </message>
    <message>
        <source>&amp;Copy Output</source>
        <translation>复制输出(&amp;C)</translation>
    </message>
    <message>
        <source>Run Command in %1</source>
        <translation>在 %1 中运行命令</translation>
    </message>
    <message>
        <source>Runs a shell command (sh -c) in the working folder of workspace &lt;b&gt;%1&lt;/b&gt; of profile &lt;b&gt;%2&lt;/b&gt;.</source>
        <translation>在配置文件 &lt;b&gt;%2&lt;/b&gt; 的工作区 &lt;b&gt;%1&lt;/b&gt; 的工作文件夹中运行 shell 命令（sh -c）。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>What the command printed; lines on stderr are marked red</source>
        <translation>命令的输出；标准错误的行以红色标出</translation>
    </message>
    <message>
        <source>The output has bytes that are not UTF-8; they are shown as �.</source>
        <translation>输出中有些字节不是 UTF-8，显示为 �。</translation>
    </message>
    <message>
        <source>The output has NUL bytes; they are shown as ^@.</source>
        <translation>输出中含有 NUL 字节，显示为 ^@。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Running… %1 s</source>
        <translation>正在运行… %1 秒</translation>
    </message>
    <message>
        <source>Resuming the workspace…</source>
        <translation>正在恢复工作区…</translation>
    </message>
    <message>
        <source>This workspace is stopped. Commands run only in a running workspace: resume it first.</source>
        <translation>此工作区已停止。命令只能在运行中的工作区中运行：请先恢复它。</translation>
    </message>
    <message>
        <source>This workspace is paused. Commands run only in a running workspace: resume it first.</source>
        <translation>此工作区已暂停。命令只能在运行中的工作区中运行：请先恢复它。</translation>
    </message>
    <message>
        <source>This workspace is %1. Commands run only in a running workspace.</source>
        <translation>此工作区的状态为%1。命令只能在运行中的工作区中运行。</translation>
    </message>
    <message>
        <source>The workspace could not be resumed: %1</source>
        <translation>无法恢复工作区：%1</translation>
    </message>
    <message>
        <source>The workspace was resumed; commands can run.</source>
        <translation>工作区已恢复，可以运行命令了。</translation>
    </message>
    <message>
        <source>The profile was closed: open its workspaces again to run commands.</source>
        <translation>配置文件已关闭：请重新打开其工作区后再运行命令。</translation>
    </message>
    <message>
        <source>Exit code %1 after %2 s.</source>
        <translation>退出码 %1，用时 %2 秒。</translation>
    </message>
    <message>
        <source>Cancelled after %1 s: the command was stopped.</source>
        <translation>已在 %1 秒后取消：命令已停止。</translation>
    </message>
    <message>
        <source>The command could not be run: %1</source>
        <translation>无法运行命令：%1</translation>
    </message>
</context>
<context>
    <name>SavedFilters</name>
    <message>
        <source>&amp;Save Current Filter…</source>
        <translation>保存当前筛选(&amp;S)…</translation>
    </message>
    <message>
        <source>Filter &quot;%1&quot; shown.</source>
        <translation>已显示筛选“%1”。</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>Filter &quot;%1&quot; deleted.</source>
        <translation>已删除筛选“%1”。</translation>
    </message>
    <message>
        <source>Save Filter</source>
        <translation>保存筛选</translation>
    </message>
    <message>
        <source>Name of this filter (the text, the state and the backend shown now):</source>
        <translation>此筛选的名称（保存当前的文本、状态和后端）：</translation>
    </message>
    <message>
        <source>Filter &quot;%1&quot; saved.</source>
        <translation>已保存筛选“%1”。</translation>
    </message>
    <message>
        <source>Saved Filters</source>
        <translation>已保存的筛选</translation>
    </message>
    <message>
        <source>Save the current filter under a name, or show one saved before</source>
        <translation>以名称保存当前筛选，或显示之前保存的筛选</translation>
    </message>
    <message>
        <source>Saved filters</source>
        <translation>已保存的筛选</translation>
    </message>
</context>
<context>
    <name>SessionListModel</name>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>Tool Results</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>This session has no context.jsonl: only tool results were offloaded.</source>
        <translation>此会话没有 context.jsonl：只卸出了工具结果。</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>SessionsPanel</name>
    <message>
        <source>The sessions could not be listed: %1</source>
        <translation>无法列出会话：%1</translation>
    </message>
    <message>
        <source>No session has a folder in sessions/. AgentScope makes one only when it compresses a session&apos;s context or cuts a tool result, so most sessions have none.</source>
        <translation>sessions/ 中没有任何会话的文件夹。AgentScope 只在压缩会话的上下文或截断工具结果时才创建文件夹，因此大多数会话都没有。</translation>
    </message>
    <message>
        <source>This session has no context.jsonl: nothing of its context was compressed out yet (only tool results were offloaded).</source>
        <translation>此会话没有 context.jsonl：其上下文尚未有内容被压缩移出（只卸出了工具结果）。</translation>
    </message>
    <message>
        <source>context.jsonl could not be read: %1</source>
        <translation>无法读取 context.jsonl：%1</translation>
    </message>
    <message>
        <source>The last line has no end yet: AgentScope may be writing it. &lt;a href=&quot;inspect:again&quot;&gt;Read it again&lt;/a&gt;</source>
        <translation>最后一行尚未结束：AgentScope 可能正在写入。&lt;a href=&quot;inspect:again&quot;&gt;重新读取&lt;/a&gt;</translation>
    </message>
    <message>
        <source>context.jsonl is empty.</source>
        <translation>context.jsonl 为空。</translation>
    </message>
    <message>
        <source>the line is no longer where it was (the file changed)</source>
        <translation>这一行已不在原来的位置（文件已改变）</translation>
    </message>
    <message>
        <source>Line %1 could not be read again: %2</source>
        <translation>无法重新读取第 %1 行：%2</translation>
    </message>
    <message>
        <source>Line %1 of %2</source>
        <translation>%2 的第 %1 行</translation>
    </message>
    <message>
        <source>Tool result: %1</source>
        <translation>工具结果：%1</translation>
    </message>
    <message>
        <source>Tool Results</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>Session %1</source>
        <translation>会话 %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Tool Results (%1)</source>
        <translation>工具结果（%1）</translation>
    </message>
    <message>
        <source>Open a tool-result file: what AgentScope cut from a tool result to fit the context</source>
        <translation>打开一个工具结果文件：AgentScope 为适应上下文而从工具结果中截去的内容</translation>
    </message>
    <message numerus="yes">
        <source>context.jsonl: reading, %1 of %2, %n message(s) so far</source>
        <translation>
            <numerusform>context.jsonl：正在读取，已读 %1 / %2，目前 %n 条消息</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>context.jsonl: %1, %2 lines, %n message(s)</source>
        <translation>
            <numerusform>context.jsonl：%1，%2 行，%n 条消息</numerusform>
        </translation>
    </message>
    <message>
        <source>context.jsonl: reading…</source>
        <translation>context.jsonl：正在读取…</translation>
    </message>
    <message>
        <source>context.jsonl: not read</source>
        <translation>context.jsonl：未读取</translation>
    </message>
    <message>
        <source>Filter sessions by id</source>
        <translation>按 ID 筛选会话</translation>
    </message>
    <message>
        <source>Filter sessions</source>
        <translation>筛选会话</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Mark or unmark the current row and move down</source>
        <translation>标记或取消标记当前行并下移</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>空格</translation>
    </message>
    <message>
        <source>Open the row&apos;s menu</source>
        <translation>打开该行的菜单</translation>
    </message>
    <message>
        <source>Menu key, Shift+F10</source>
        <translation>菜单键、Shift+F10</translation>
    </message>
    <message>
        <source>Clear the filter</source>
        <translation>清除筛选</translation>
    </message>
    <message>
        <source>Esc (in the filter)</source>
        <translation>Esc（在筛选框中）</translation>
    </message>
    <message>
        <source>Search the log shown</source>
        <translation>搜索所显示的日志</translation>
    </message>
    <message>
        <source>Next or previous match in a log</source>
        <translation>日志中的下一个或上一个匹配项</translation>
    </message>
    <message>
        <source>F3, Shift+F3 (Enter, Shift+Enter in its search)</source>
        <translation>F3、Shift+F3（在其搜索框中为 Enter、Shift+Enter）</translation>
    </message>
    <message>
        <source>Copy the selected log lines</source>
        <translation>复制所选的日志行</translation>
    </message>
    <message>
        <source>Export the whole log</source>
        <translation>导出整个日志</translation>
    </message>
    <message>
        <source>In the list and the logs</source>
        <translation>在列表和日志中</translation>
    </message>
</context>
<context>
    <name>SkillsPanel</name>
    <message>
        <source>Reading skills/…</source>
        <translation>正在读取 skills/…</translation>
    </message>
    <message>
        <source>skills/ could not be read: %1</source>
        <translation>无法读取 skills/：%1</translation>
    </message>
    <message>
        <source>There is no skills/ folder: this workspace has no skills.</source>
        <translation>没有 skills/ 文件夹：此工作区没有技能。</translation>
    </message>
    <message>
        <source>Skills are kept per agent: the seed (.seed), copied into an agent&apos;s partition on its first skill call, and one partition per agent.</source>
        <translation>技能按智能体存放：种子（.seed）会在智能体第一次调用技能时复制到它的分区中，每个智能体一个分区。</translation>
    </message>
    <message>
        <source>The layout of AgentScope 2.0.6 and earlier: one flat skills/ folder shared by every agent. Newer versions move it into .seed when they open the workspace.</source>
        <translation>AgentScope 2.0.6 及更早版本的布局：所有智能体共用一个扁平的 skills/ 文件夹。较新的版本打开工作区时会把它移入 .seed。</translation>
    </message>
    <message>
        <source>Both layouts at once: the flat one of AgentScope 2.0.6 and the partitions of later versions. The move into .seed has not run, or was interrupted.</source>
        <translation>两种布局同时存在：AgentScope 2.0.6 的扁平布局和之后版本的分区。移入 .seed 的步骤尚未运行，或被中断了。</translation>
    </message>
    <message>
        <source>skills/ is empty.</source>
        <translation>skills/ 为空。</translation>
    </message>
    <message>
        <source>skills/ holds more entries than the inspector reads; the rest are not listed.</source>
        <translation>skills/ 中的条目超过了检查器读取的数量；其余的未列出。</translation>
    </message>
    <message>
        <source>skills/</source>
        <translation>skills/</translation>
    </message>
    <message>
        <source>the seed: copied into each agent&apos;s partition</source>
        <translation>种子：会复制到每个智能体的分区中</translation>
    </message>
    <message>
        <source>a partition being copied from the seed (left over if old)</source>
        <translation>正在从种子复制的分区（若已久远则是残留）</translation>
    </message>
    <message>
        <source>the partition of agent %1</source>
        <translation>智能体 %1 的分区</translation>
    </message>
    <message>
        <source>shared by every agent (2.0.6 and earlier)</source>
        <translation>所有智能体共用（2.0.6 及更早版本）</translation>
    </message>
    <message>
        <source>SKILL.md could not be read: %1</source>
        <translation>无法读取 SKILL.md：%1</translation>
    </message>
    <message>
        <source>ignored by AgentScope: %1</source>
        <translation>AgentScope 会忽略：%1</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>%1 (AgentScope ignores this key)</source>
        <translation>%1（AgentScope 会忽略此键）</translation>
    </message>
    <message>
        <source>a SKILL.md inside a skill: not a skill of its own</source>
        <translation>技能内部的 SKILL.md：不算独立的技能</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>no SKILL.md: AgentScope ignores this folder</source>
        <translation>没有 SKILL.md：AgentScope 会忽略此文件夹</translation>
    </message>
    <message>
        <source>a file outside any skill</source>
        <translation>不属于任何技能的文件</translation>
    </message>
    <message>
        <source>unreadable (%1): AgentScope treats it as empty and writes it again</source>
        <translation>无法读取（%1）：AgentScope 会把它当作空的并重新写入</translation>
    </message>
    <message>
        <source>the index matches the folder</source>
        <translation>索引与文件夹一致</translation>
    </message>
    <message>
        <source>the index differs from the folder; AgentScope brings it up to date when the folder&apos;s time changes</source>
        <translation>索引与文件夹不一致；文件夹的时间改变时 AgentScope 会更新索引</translation>
    </message>
    <message>
        <source>Only in the index</source>
        <translation>仅在索引中</translation>
    </message>
    <message>
        <source>Only in the folder</source>
        <translation>仅在文件夹中</translation>
    </message>
    <message>
        <source>Changed since indexed</source>
        <translation>编入索引后已改变</translation>
    </message>
    <message>
        <source>(no skills)</source>
        <translation>（没有技能）</translation>
    </message>
    <message>
        <source>equipped: AgentScope copies the seed only once</source>
        <translation>已配备：AgentScope 只复制一次种子</translation>
    </message>
    <message>
        <source>AgentScope ignores this skill: %1</source>
        <translation>AgentScope 会忽略此技能：%1</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
</context>
<context>
    <name>StorageProblem</name>
    <message>
        <source>Settings cannot be saved: %1 cannot be written (%2). Changes last until Paddock quits.</source>
        <translation>无法保存设置：无法写入 %1（%2）。更改只在 Paddock 退出前有效。</translation>
    </message>
    <message>
        <source>Workspaces cannot be opened: their bootstrap logs go to %1, which cannot be written (%2).</source>
        <translation>无法打开工作区：其初始化日志应写入 %1，但该位置无法写入（%2）。</translation>
    </message>
</context>
<context>
    <name>TerminalLauncher</name>
    <message>
        <source>%1 and %2</source>
        <translation>%1 和 %2</translation>
    </message>
    <message>
        <source>$TERMINAL (not set)</source>
        <translation>$TERMINAL（未设置）</translation>
    </message>
    <message>
        <source>No terminal emulator was found. Paddock looked for %1. Set TERMINAL to your terminal&apos;s program, or install one of these.</source>
        <translation>未找到终端模拟器。Paddock 查找了 %1。请将 TERMINAL 设为你的终端程序，或安装其中之一。</translation>
    </message>
    <message>
        <source>%1 is not installed on this computer, and the workspace&apos;s terminal needs it.</source>
        <translation>这台计算机上没有安装 %1，而工作区的终端需要它。</translation>
    </message>
    <message>
        <source>The terminal %1 could not be started.</source>
        <translation>无法启动终端 %1。</translation>
    </message>
</context>
<context>
    <name>TextPageView</name>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>This file holds binary data (%1), not text: it is not shown as text. Save it to look at it with another program.</source>
        <translation>此文件包含二进制数据（%1），不是文本：不会以文本显示。可将其保存后用其他程序查看。</translation>
    </message>
    <message>
        <source>Likely secrets on this page are masked (Redact, in the inspector&apos;s header, shows them).</source>
        <translation>本页中的疑似机密已遮盖（检查器顶部的“脱敏”可显示它们）。</translation>
    </message>
    <message>
        <source>%1: reading…</source>
        <translation>%1：正在读取…</translation>
    </message>
    <message>
        <source>%1: bytes %2–%3 of %4</source>
        <translation>%1：第 %2–%3 字节，共 %4</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
</context>
<context>
    <name>TranscriptModel</name>
    <message>
        <source>line %1</source>
        <translation>第 %1 行</translation>
    </message>
    <message>
        <source>lines %1–%2</source>
        <translation>第 %1–%2 行</translation>
    </message>
    <message>
        <source>%1 in · %2 out</source>
        <translation>输入 %1 · 输出 %2</translation>
    </message>
    <message>
        <source>not JSON</source>
        <translation>不是 JSON</translation>
    </message>
    <message>
        <source>too long: %1</source>
        <translation>过长：%1</translation>
    </message>
    <message>
        <source>incomplete</source>
        <translation>不完整</translation>
    </message>
    <message>
        <source>thinking</source>
        <translation>思考</translation>
    </message>
    <message numerus="yes">
        <source>%n tool call(s)</source>
        <translation>
            <numerusform>%n 次工具调用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n data file(s)</source>
        <translation>
            <numerusform>%n 个数据文件</numerusform>
        </translation>
    </message>
    <message>
        <source>truncated result</source>
        <translation>结果被截断</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>AgentScope 1.x</source>
        <translation>AgentScope 1.x</translation>
    </message>
    <message>
        <source>Line %1 is not JSON (%2)</source>
        <translation>第 %1 行不是 JSON（%2）</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <source>Show more (%1 more characters)</source>
        <translation>显示更多（还有 %1 个字符）</translation>
    </message>
    <message>
        <source>Read the rest (%1 more)</source>
        <translation>读取其余部分（还有 %1）</translation>
    </message>
    <message>
        <source>The image cannot be shown: %1</source>
        <translation>无法显示图片：%1</translation>
    </message>
    <message>
        <source>Loading the image…</source>
        <translation>正在加载图片…</translation>
    </message>
    <message>
        <source>redacted by the provider</source>
        <translation>已被模型提供方隐去</translation>
    </message>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n 个字符</numerusform>
        </translation>
    </message>
    <message>
        <source>provider fields not shown: %1</source>
        <translation>未显示的提供方字段：%1</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>No result in this message.</source>
        <translation>此消息中没有结果。</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>of %1 %2 (its call is not in this message)</source>
        <translation>属于 %1 %2（其调用不在此消息中）</translation>
    </message>
    <message>
        <source>AgentScope cut this result to fit the context; the rest is in %1.</source>
        <translation>AgentScope 为适应上下文截断了此结果；其余部分在 %1 中。</translation>
    </message>
    <message>
        <source>AgentScope cut this result to fit the context; the file with the rest is not named (%1).</source>
        <translation>AgentScope 为适应上下文截断了此结果；未指明存放其余部分的文件（%1）。</translation>
    </message>
    <message>
        <source>Metadata</source>
        <translation>元数据</translation>
    </message>
    <message>
        <source>Hint</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>from %1</source>
        <translation>来自 %1</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Inline data, %1 of base64: not offloaded to data/.</source>
        <translation>内嵌数据，%1 的 base64：未卸出到 data/。</translation>
    </message>
    <message>
        <source>%1: not a file of this workspace&apos;s data/.</source>
        <translation>%1：不是此工作区 data/ 中的文件。</translation>
    </message>
    <message>
        <source>(no type)</source>
        <translation>（无类型）</translation>
    </message>
    <message>
        <source>Block of an unknown type “%1”</source>
        <translation>未知类型“%1”的块</translation>
    </message>
    <message>
        <source>shown as JSON</source>
        <translation>以 JSON 显示</translation>
    </message>
    <message>
        <source>line %1</source>
        <translation>第 %1 行</translation>
    </message>
    <message>
        <source>lines %1–%2 (one message written in %3 parts)</source>
        <translation>第 %1–%2 行（一条消息分 %3 次写入）</translation>
    </message>
    <message>
        <source>Line %1 is not JSON</source>
        <translation>第 %1 行不是 JSON</translation>
    </message>
    <message>
        <source>%1; the parser says: %2. AgentScope never reads this file back, so nothing else depends on this line.</source>
        <translation>%1；解析器报告：%2。AgentScope 从不读回此文件，因此没有其他内容依赖这一行。</translation>
    </message>
    <message>
        <source>Show the line as text</source>
        <translation>以文本显示这一行</translation>
    </message>
    <message>
        <source>Line %1 is %2: too long to read whole; its start is shown.</source>
        <translation>第 %1 行有 %2：太长，无法整行读取；显示的是其开头。</translation>
    </message>
    <message>
        <source>Show the whole line as text, page by page</source>
        <translation>逐页以文本显示整行</translation>
    </message>
    <message>
        <source>Line %1 has no end yet: it may be being written.</source>
        <translation>第 %1 行尚未结束：可能正在写入。</translation>
    </message>
    <message>
        <source>Read it again</source>
        <translation>重新读取</translation>
    </message>
    <message>
        <source>(no role)</source>
        <translation>（无角色）</translation>
    </message>
    <message>
        <source>finished %1</source>
        <translation>完成于 %1</translation>
    </message>
    <message>
        <source>ended: %1</source>
        <translation>结束原因：%1</translation>
    </message>
    <message>
        <source>%1 input and %2 output tokens</source>
        <translation>输入 %1 个、输出 %2 个令牌</translation>
    </message>
    <message>
        <source>(%1 read from the cache, %2 written to it)</source>
        <translation>（从缓存读取 %1 个，写入缓存 %2 个）</translation>
    </message>
    <message>
        <source>id %1</source>
        <translation>ID %1</translation>
    </message>
    <message>
        <source>Error (%1):</source>
        <translation>错误（%1）：</translation>
    </message>
    <message>
        <source>It carries structured output (not shown).</source>
        <translation>它带有结构化输出（未显示）。</translation>
    </message>
    <message>
        <source>This line has the shape of AgentScope 1.x, which keeps no workspace: its content is shown as written.</source>
        <translation>这一行是 AgentScope 1.x 的格式，该版本没有工作区：其内容按原样显示。</translation>
    </message>
    <message>
        <source>(no content)</source>
        <translation>（无内容）</translation>
    </message>
    <message>
        <source>Reading line %1 again…</source>
        <translation>正在重新读取第 %1 行…</translation>
    </message>
    <message>
        <source>context.jsonl holds the messages AgentScope compressed out of the agent&apos;s context, not the whole conversation: the rest is in the agent service&apos;s own storage.</source>
        <translation>context.jsonl 保存的是 AgentScope 从智能体上下文中压缩移出的消息，而不是完整的对话：其余内容在智能体服务自己的存储中。</translation>
    </message>
</context>
<context>
    <name>TrayController</name>
    <message>
        <source>Paddock: %1, %2</source>
        <translation>Paddock：%1，%2</translation>
    </message>
    <message numerus="yes">
        <source>%n running</source>
        <translation>
            <numerusform>%n 个运行中</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n expiring soon</source>
        <translation>
            <numerusform>%n 个即将过期</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Hide Paddock</source>
        <translation>隐藏 Paddock(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Show Paddock</source>
        <translation>显示 Paddock(&amp;S)</translation>
    </message>
    <message>
        <source>Show in System &amp;Tray</source>
        <translation>在系统托盘中显示(&amp;T)</translation>
    </message>
    <message>
        <source>Show Paddock&apos;s icon in the system tray, with the counts of running and soon-expiring workspaces</source>
        <translation>在系统托盘中显示 Paddock 的图标，以及运行中和即将过期的工作区数量</translation>
    </message>
    <message>
        <source>No system tray is available on this desktop.</source>
        <translation>此桌面没有可用的系统托盘。</translation>
    </message>
    <message>
        <source>Close Window &amp;Hides to Tray</source>
        <translation>关闭窗口时隐藏到托盘(&amp;H)</translation>
    </message>
    <message>
        <source>Closing the window leaves Paddock running in the system tray; Quit ends it</source>
        <translation>关闭窗口后 Paddock 继续在系统托盘中运行；退出才会结束它</translation>
    </message>
    <message>
        <source>Available while Paddock shows in the system tray</source>
        <translation>仅在 Paddock 显示于系统托盘时可用</translation>
    </message>
    <message>
        <source>&amp;Pause Idle…</source>
        <translation>暂停空闲工作区(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
</context>
<context>
    <name>WindowState</name>
    <message>
        <source>&amp;Fit Columns to Contents</source>
        <translation>列宽适应内容(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Show All Columns in Their Order</source>
        <translation>按原顺序显示所有列(&amp;S)</translation>
    </message>
</context>
<context>
    <name>WorkspaceActionController</name>
    <message numerus="yes">
        <source>Close %n workspace(s)? They are released and their sandboxes paused.</source>
        <translation>
            <numerusform>关闭 %n 个工作区？这些工作区将被释放，其沙箱将被暂停。</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message numerus="yes">
        <source>Pause %n workspace(s)?</source>
        <translation>
            <numerusform>暂停 %n 个工作区？</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message numerus="yes">
        <source>Resume %n workspace(s)?</source>
        <translation>
            <numerusform>恢复 %n 个工作区？</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their containers are removed. Their /workspace folders stay on this computer unless you delete them too. This cannot be undone.</source>
        <translation>
            <numerusform>销毁 %n 个工作区？其容器将被删除。除非你同时删除，它们的 /workspace 文件夹会保留在这台计算机上。此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their sandboxes are deleted with everything in them that is not kept elsewhere. This cannot be undone.</source>
        <translation>
            <numerusform>销毁 %n 个工作区？其沙箱将被删除，沙箱中未在别处保存的所有内容都会一并删除。此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation>销毁(&amp;K)</translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) do not fit this action and are skipped.</source>
        <translation>
            <numerusform>选中的工作区中有 %n 个不适用此操作，将被跳过。</numerusform>
        </translation>
    </message>
    <message>
        <source>Also &amp;delete their folders on this computer</source>
        <translation>同时删除它们在这台计算机上的文件夹(&amp;D)</translation>
    </message>
    <message numerus="yes">
        <source>Closing %n workspace(s)…</source>
        <translation>
            <numerusform>正在关闭 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Pausing %n workspace(s)…</source>
        <translation>
            <numerusform>正在暂停 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Resuming %n workspace(s)…</source>
        <translation>
            <numerusform>正在恢复 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Renewing %n workspace(s)…</source>
        <translation>
            <numerusform>正在续期 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Killing %n workspace(s)…</source>
        <translation>
            <numerusform>正在销毁 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n workspace(s) done</source>
        <translation>
            <numerusform>%n 个工作区中已完成 %1 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cancelled</source>
        <translation>
            <numerusform>%n 个已取消</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n 个失败</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stop the selected running workspaces: their processes end, their files are kept</source>
        <translation>停止选中的运行中工作区：其进程结束，其文件保留</translation>
    </message>
    <message>
        <source>Pause the selected running workspaces</source>
        <translation>暂停选中的运行中工作区</translation>
    </message>
    <message numerus="yes">
        <source>Close %n workspace(s)? They are released and their sandboxes stopped: their processes end, their files are kept.</source>
        <translation>
            <numerusform>关闭 %n 个工作区？它们将被释放，其沙箱将停止：进程结束，文件保留。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n workspace(s)? Their processes end; their files are kept, and Resume starts them again on the same files.</source>
        <translation>
            <numerusform>停止 %n 个工作区？其进程结束；文件保留，“恢复”会在相同的文件上重新启动它们。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stopping %n workspace(s)…</source>
        <translation>
            <numerusform>正在停止 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message>
        <source>Its profile was closed meanwhile</source>
        <translation>其配置文件已在此期间关闭</translation>
    </message>
    <message numerus="yes">
        <source>%n selected workspace(s) are in read-only profiles and are skipped.</source>
        <translation>
            <numerusform>选中的工作区中有 %n 个属于只读配置文件，将被跳过。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skipped (read-only profile)</source>
        <translation>
            <numerusform>%n 个已跳过（只读配置文件）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkspaceCountLabel</name>
    <message numerus="yes">
        <source>%n workspace(s)</source>
        <translation>
            <numerusform>%n 个工作区</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n workspace(s) shown</source>
        <translation>
            <numerusform>显示 %1 个，共 %n 个工作区</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkspaceTreeModel</name>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Pausing</source>
        <translation>正在暂停</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>正在恢复</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>Terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>User %1</source>
        <translation>用户 %1</translation>
    </message>
    <message>
        <source>Agent %1</source>
        <translation>智能体 %1</translation>
    </message>
    <message>
        <source>Paused for idleness at %1</source>
        <translation>将于 %1 因空闲而暂停</translation>
    </message>
    <message>
        <source>Expires at %1</source>
        <translation>将于 %1 过期</translation>
    </message>
    <message>
        <source>due, waiting for the backend</source>
        <translation>已到期，等待后端处理</translation>
    </message>
    <message>
        <source>%1 (profile %2)</source>
        <translation>%1（配置文件 %2）</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Time until the workspace is paused for being idle</source>
        <translation>距工作区因空闲而暂停还有多久</translation>
    </message>
    <message>
        <source>Idle pause in</source>
        <translation>空闲暂停倒计时</translation>
    </message>
    <message>
        <source>Time until the server&apos;s expiry</source>
        <translation>距服务器端过期还有多久</translation>
    </message>
    <message>
        <source>Expires in</source>
        <translation>过期倒计时</translation>
    </message>
    <message>
        <source>Last activity</source>
        <translation>最后活动</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>Sandbox ID</source>
        <translation>沙箱 ID</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>none of %1</source>
        <translation>%1 个中的 0 个</translation>
    </message>
    <message>
        <source>%1 (of %2)</source>
        <translation>%1（共 %2 个）</translation>
    </message>
    <message>
        <source>%1, bootstrap failed</source>
        <translation>%1，初始化失败</translation>
    </message>
    <message>
        <source>%1 (last seen %2)</source>
        <translation>%1（截至 %2）</translation>
    </message>
    <message>
        <source>Its last bootstrap failed, so it was paused: %1
Workspace &gt; Retry Bootstrap runs it again.</source>
        <translation>它上次的初始化失败，因此已被暂停：%1
“工作区 &gt; 重试初始化”会再次运行它。</translation>
    </message>
    <message>
        <source>The server&apos;s last listing failed: this is the workspace as it was listed at %1.</source>
        <translation>服务器最近一次列表获取失败：这是该工作区在 %1 列出时的状态。</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>No agent is recorded for these workspaces: they were made outside Paddock (AgentScope, for one, records no agent on the cluster)</source>
        <translation>这些工作区没有记录智能体：它们是在 Paddock 之外创建的（例如 AgentScope 不在集群上记录智能体）</translation>
    </message>
    <message>
        <source>No user is recorded for these workspaces: they were made outside Paddock (AgentScope, for one, records no user on the cluster)</source>
        <translation>这些工作区没有记录用户：它们是在 Paddock 之外创建的（例如 AgentScope 不在集群上记录用户）</translation>
    </message>
    <message>
        <source>Its last bootstrap failed, so it was stopped: %1
Workspace &gt; Retry Bootstrap runs it again.</source>
        <translation>它上次的初始化失败，因此已被停止：%1
“工作区 &gt; 重试初始化”会再次运行它。</translation>
    </message>
    <message>
        <source>timer stopped</source>
        <translation>计时器已停止</translation>
    </message>
    <message>
        <source>Paused since %1: its timer is stopped until it is resumed, which starts a new timeout.</source>
        <translation>自 %1 起暂停：其计时器在恢复前处于停止状态，恢复后会开始新的超时。</translation>
    </message>
    <message>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n 分钟前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n 小时前</numerusform>
        </translation>
    </message>
    <message>
        <source>yesterday</source>
        <translation>昨天</translation>
    </message>
    <message numerus="yes">
        <source>%n days ago</source>
        <translation>
            <numerusform>%n 天前</numerusform>
        </translation>
    </message>
    <message>
        <source>Not reported by this backend</source>
        <translation>此后端不报告</translation>
    </message>
    <message>
        <source>Not reported for this workspace</source>
        <translation>未报告此工作区的数据</translation>
    </message>
    <message>
        <source>Not measured while the workspace is not running</source>
        <translation>工作区未运行时不测量</translation>
    </message>
    <message>
        <source>Not measured yet: figures are read for the running workspaces in view</source>
        <translation>尚未测量：只读取视图中运行中的工作区的数据</translation>
    </message>
    <message>
        <source>%1 of one CPU core, measured at %2</source>
        <translation>单个 CPU 核心的 %1，测量于 %2</translation>
    </message>
    <message>
        <source>%1, measured at %2</source>
        <translation>%1，测量于 %2</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>CPU the workspace uses now (100% is one core), where its backend reports it</source>
        <translation>工作区当前使用的 CPU（100% 为一个核心），由其后端报告</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory the workspace uses now, and its limit where it has one, where its backend reports it</source>
        <translation>工作区当前使用的内存及其上限（如有），由其后端报告</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Profile %1</source>
        <translation>配置文件 %1</translation>
    </message>
    <message>
        <source>Backend: %1</source>
        <translation>后端：%1</translation>
    </message>
</context>
<context>
    <name>WorkspaceView</name>
    <message>
        <source>No workspace matches the filter.</source>
        <translation>没有与筛选条件匹配的工作区。</translation>
    </message>
    <message>
        <source>No workspaces here yet. Workspace &gt; Open… (Ctrl+O) opens one.</source>
        <translation>这里还没有工作区。“工作区 &gt; 打开…”（Ctrl+O）可打开一个。</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>paddock: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a graphical session, or use paddockctl on the command line.</source>
        <translation>paddock：未找到显示器（DISPLAY 和 WAYLAND_DISPLAY 均未设置）。请在图形会话中运行，或在命令行中使用 paddockctl。</translation>
    </message>
    <message>
        <source>paddock: the graphical interface could not start (Qt&apos;s message is above). Run it in a graphical session, or use paddockctl on the command line.</source>
        <translation>paddock：无法启动图形界面（Qt 的消息见上方）。请在图形会话中运行，或在命令行中使用 paddockctl。</translation>
    </message>
</context>
<context>
    <name>paddockctl</name>
    <message>
        <source>Usage: paddockctl [global options] &lt;command&gt; [options]

Manage agent workspaces from the command line.

Commands:
</source>
        <translation>用法：paddockctl [全局选项] &lt;命令&gt; [选项]

从命令行管理智能体工作区。

命令：
</translation>
    </message>
    <message>
        <source>usage: paddockctl %1 %2
</source>
        <translation>用法：paddockctl %1 %2
</translation>
    </message>
    <message>
        <source>Run &apos;paddockctl --help&apos; for the commands.
</source>
        <translation>运行 &apos;paddockctl --help&apos; 查看可用命令。
</translation>
    </message>
    <message>
        <source>assign-id needs --user and --agent</source>
        <translation>assign-id 需要 --user 和 --agent</translation>
    </message>
    <message>
        <source>open needs --user and --agent</source>
        <translation>open 需要 --user 和 --agent</translation>
    </message>
    <message>
        <source>cannot open workspace %1</source>
        <translation>无法打开工作区 %1</translation>
    </message>
    <message>
        <source>WORKSPACE</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>STATE</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>USER</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>AGENT</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>%1 resumed</source>
        <translation>%1 已恢复</translation>
    </message>
    <message>
        <source>%1 killed; deleted %2</source>
        <translation>%1 已销毁；已删除 %2</translation>
    </message>
    <message>
        <source>%1 killed; deleted sandbox %2</source>
        <translation>%1 已销毁；已删除沙箱 %2</translation>
    </message>
    <message>
        <source>%1 closed</source>
        <translation>%1 已关闭</translation>
    </message>
    <message>
        <source>%1 paused</source>
        <translation>%1 已暂停</translation>
    </message>
    <message>
        <source>%1 expires at %2</source>
        <translation>%1 过期时间：%2</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>there is no bootstrap log for workspace %1</source>
        <translation>工作区 %1 没有初始化日志</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>no command given; commands: %1</source>
        <translation>未指定命令；可用命令：%1</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;; commands: %2</source>
        <translation>未知命令“%1”；可用命令：%2</translation>
    </message>
    <message>
        <source>wrong number of arguments for %1</source>
        <translation>%1 的参数数量不正确</translation>
    </message>
    <message>
        <source>option --%1 does not apply to %2</source>
        <translation>选项 --%1 不适用于 %2</translation>
    </message>
    <message>
        <source>unknown backend &quot;%1&quot;; valid choices: %2</source>
        <translation>未知后端“%1”；有效值：%2</translation>
    </message>
    <message>
        <source>cannot read the bootstrap file %1: %2</source>
        <translation>无法读取初始化文件 %1：%2</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1m %2s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 killed; deleted container %2 and %3</source>
        <translation>%1 已销毁；已删除容器 %2 和 %3</translation>
    </message>
    <message>
        <source>%1 killed; deleted container %2, kept %3</source>
        <translation>%1 已销毁；已删除容器 %2，保留了 %3</translation>
    </message>
    <message>
        <source>option --%1 applies to the %2 backend only</source>
        <translation>选项 --%1 仅适用于 %2 后端</translation>
    </message>
    <message>
        <source>
renew sets the expiry to now + N seconds. When that is earlier than the current
expiry, it changes nothing and fails, unless --allow-shorter is given.
</source>
        <translation>
renew 将过期时间设为当前时间加 N 秒。若该时间早于当前的过期时间，
则不做任何更改并失败，除非指定了 --allow-shorter。
</translation>
    </message>
    <message>
        <source>judged by its last activity</source>
        <translation>按最后活动时间判断</translation>
    </message>
    <message>
        <source>judged by its sessions/ folder</source>
        <translation>按 sessions/ 文件夹判断</translation>
    </message>
    <message>
        <source>judged by its creation time</source>
        <translation>按创建时间判断</translation>
    </message>
    <message>
        <source>cannot read the sessions/ activity of %1 (%2); it is judged without it</source>
        <translation>无法读取 %1 的 sessions/ 活动（%2），判断时不计入</translation>
    </message>
    <message>
        <source>%1 not judged: no activity or creation time to go by</source>
        <translation>%1 未作判断：既无活动时间也无创建时间可依据</translation>
    </message>
    <message>
        <source>%1 not idle for long enough (idle %2 of %3, %4)</source>
        <translation>%1 空闲时间不够长（已空闲 %2，须超过 %3；%4）</translation>
    </message>
    <message>
        <source>option --%1 applies to the %2 and %3 backends only</source>
        <translation>选项 --%1 仅适用于 %2 和 %3 后端</translation>
    </message>
    <message>
        <source>
Global options:
  --backend %1  where workspaces live (default: local)
  --bootstrap FILE       bootstrap commands, one shell command per line
                         (an empty file means none; default: none on local,
                         AgentScope&apos;s bootstrap on OpenSandbox)
</source>
        <translation>
全局选项：
  --backend %1  工作区所在的后端（默认：local）
  --bootstrap FILE       初始化命令文件，每行一条 shell 命令
                         （空文件表示不执行任何命令；默认：local 后端不执行，
                         OpenSandbox 后端执行 AgentScope 的初始化命令）
</translation>
    </message>
    <message>
        <source>
inspect shows what is inside a workspace (all sections, or --section&apos;s), every
secret masked; it writes nothing to the workspace.
</source>
        <translation>
inspect 显示工作区里有什么（全部部分，或 --section 指定的部分），所有机密均已遮盖；
它不会向工作区写入任何内容。
</translation>
    </message>
    <message>
        <source>inspect: %1: %2</source>
        <translation>inspect：%1：%2</translation>
    </message>
    <message>
        <source>Workspace %1</source>
        <translation>工作区 %1</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>%1 (profile %2)</source>
        <translation>%1（配置文件 %2）</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Last activity</source>
        <translation>最后活动</translation>
    </message>
    <message>
        <source>Resource %1</source>
        <translation>资源 %1</translation>
    </message>
    <message>
        <source>Endpoint %1</source>
        <translation>端点 %1</translation>
    </message>
    <message>
        <source>Workdir</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Gateway home</source>
        <translation>网关主目录</translation>
    </message>
    <message>
        <source>Host folder</source>
        <translation>主机文件夹</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>not read: %1</source>
        <translation>未读取：%1</translation>
    </message>
    <message>
        <source>  Metadata</source>
        <translation>  元数据</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>AgentScope&apos;s</source>
        <translation>AgentScope 的</translation>
    </message>
    <message>
        <source>Agent files</source>
        <translation>智能体文件</translation>
    </message>
    <message>
        <source>In progress</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>%1 (since %2)</source>
        <translation>%1（始于 %2）</translation>
    </message>
    <message numerus="yes">
        <source>Sessions (%n)</source>
        <translation>
            <numerusform>会话（%n 个）</numerusform>
        </translation>
    </message>
    <message>
        <source>  sessions/&lt;id&gt;/context.jsonl holds the history compressed out of the agents&apos; context, not all of it; sessions that never compressed have no folder.</source>
        <translation>  sessions/&lt;id&gt;/context.jsonl 保存的是从智能体上下文中压缩移出的历史，而不是全部历史；从未压缩过的会话没有文件夹。</translation>
    </message>
    <message>
        <source>SESSION</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>MODIFIED</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>SIZE</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>LINES</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>TOOL RESULTS</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>  no skills/ folder</source>
        <translation>  没有 skills/ 文件夹</translation>
    </message>
    <message>
        <source>ignored by AgentScope: %1</source>
        <translation>AgentScope 会忽略：%1</translation>
    </message>
    <message>
        <source>  %1: unreadable (AgentScope treats it as empty): %2</source>
        <translation>  %1：无法读取（AgentScope 将其视为空）：%2</translation>
    </message>
    <message>
        <source>  %1: matches the skills on disk</source>
        <translation>  %1：与磁盘上的技能一致</translation>
    </message>
    <message>
        <source>  %1: differs from the disk (only listed: %2; only on disk: %3; changed: %4)</source>
        <translation>  %1：与磁盘不一致（仅在索引中：%2；仅在磁盘上：%3；已更改：%4）</translation>
    </message>
    <message>
        <source>  (not every entry of skills/ was listed)</source>
        <translation>  （skills/ 中并非所有条目都已列出）</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>  no .mcp: every session uses the manager&apos;s default MCP servers</source>
        <translation>  没有 .mcp：每个会话都使用管理器的默认 MCP 服务器</translation>
    </message>
    <message>
        <source>  .mcp version %1, %2</source>
        <translation>  .mcp 版本 %1，%2</translation>
    </message>
    <message>
        <source>  warning: %1</source>
        <translation>  警告：%1</translation>
    </message>
    <message>
        <source>  legacy scope (no agent, no session)</source>
        <translation>  旧版作用域（无智能体，无会话）</translation>
    </message>
    <message>
        <source>  agent %1, session %2</source>
        <translation>  智能体 %1，会话 %2</translation>
    </message>
    <message>
        <source>    none (explicitly: not the defaults)</source>
        <translation>    无（明确设置为无，而非默认值）</translation>
    </message>
    <message>
        <source>      env: %1</source>
        <translation>      环境变量：%1</translation>
    </message>
    <message>
        <source>      headers: %1</source>
        <translation>      请求头：%1</translation>
    </message>
    <message>
        <source>      skipped by AgentScope: %1</source>
        <translation>      AgentScope 会跳过：%1</translation>
    </message>
    <message numerus="yes">
        <source>Data (%n file(s))</source>
        <translation>
            <numerusform>数据（%n 个文件）</numerusform>
        </translation>
    </message>
    <message>
        <source>  no data/ folder</source>
        <translation>  没有 data/ 文件夹</translation>
    </message>
    <message>
        <source>unreferenced</source>
        <translation>未被引用</translation>
    </message>
    <message>
        <source>  (references: not every session file was read)</source>
        <translation>  （引用：并非所有会话文件都已读取）</translation>
    </message>
    <message>
        <source>not asked</source>
        <translation>未询问</translation>
    </message>
    <message>
        <source>not asked: %1</source>
        <translation>未询问：%1</translation>
    </message>
    <message>
        <source>up on port %1 (asked with %2)</source>
        <translation>在端口 %1 上运行（使用 %2 询问）</translation>
    </message>
    <message>
        <source>down: %1</source>
        <translation>未运行：%1</translation>
    </message>
    <message>
        <source>unknown: %1</source>
        <translation>未知：%1</translation>
    </message>
    <message>
        <source>Gateway</source>
        <translation>网关</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>主目录</translation>
    </message>
    <message>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <source>empty (never valid)</source>
        <translation>为空（永远无效）</translation>
    </message>
    <message>
        <source>present</source>
        <translation>存在</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>Bootstrap</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>complete</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>not complete</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>健康状态</translation>
    </message>
    <message>
        <source>--section takes %1, not &quot;%2&quot;</source>
        <translation>--section 的取值为 %1，而不是“%2”</translation>
    </message>
    <message>
        <source>--delete-files does not apply here: kill deletes the workspaces&apos; files in this layout</source>
        <translation>--delete-files 在此不适用：在这种布局中，销毁本来就会删除工作区的文件</translation>
    </message>
    <message>
        <source>no command given: paddockctl exec ID -- COMMAND [ARGUMENT...]</source>
        <translation>未给出命令：paddockctl exec ID -- COMMAND [ARGUMENT...]</translation>
    </message>
    <message>
        <source>resume it first: paddockctl resume %1</source>
        <translation>请先恢复它：paddockctl resume %1</translation>
    </message>
    <message>
        <source>there is no file %1 here</source>
        <translation>本机上没有文件 %1</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 不是文件</translation>
    </message>
    <message>
        <source>cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>files needs one of ls, cat, get, put after the workspace id</source>
        <translation>files 在工作区 ID 之后需要 ls、cat、get、put 之一</translation>
    </message>
    <message>
        <source>wrong number of arguments for files %1</source>
        <translation>files %1 的参数个数不对</translation>
    </message>
    <message>
        <source>--json applies to files ls only</source>
        <translation>--json 仅适用于 files ls</translation>
    </message>
    <message>
        <source>the %1 backend cannot read a workspace&apos;s files</source>
        <translation>%1 后端无法读取工作区的文件</translation>
    </message>
    <message>
        <source>
exec runs COMMAND in a running workspace (no shell between, stdin not passed):
its stdout and stderr as they come, byte for byte, and its exit status; 125
when it could not be run (no such workspace, not running, the backend failed).
Ctrl+C or SIGTERM stop it in the workspace (exit 130 or 143).
</source>
        <translation>
exec 在运行中的工作区里运行 COMMAND（中间没有 shell，不传递标准输入）：
其标准输出和标准错误随到随出、逐字节不变，并返回其退出码；无法运行时
（没有该工作区、未在运行、后端失败）返回 125。
Ctrl+C 或 SIGTERM 会在工作区中停止它（退出码 130 或 143）。
</translation>
    </message>
    <message>
        <source>
files reaches a workspace&apos;s files: PATH is relative to its working folder, or
absolute inside it; nothing outside. ls lists a folder (--json: name, kind,
size, modified, target); cat prints a file; get and put copy one file, whole or
not at all (into a folder: under its own name).
</source>
        <translation>
files 访问工作区的文件：PATH 相对于其工作文件夹，或是其中的绝对路径；不能在其外。
ls 列出文件夹（--json：name、kind、size、modified、target）；cat 输出文件；
get 和 put 复制单个文件，要么完整复制，要么什么也不写（复制到文件夹时沿用原文件名）。
</translation>
    </message>
    <message>
        <source>
  --help, --version

Exit codes: 0 success, 1 the operation failed, 2 usage error; exec: the
command&apos;s own, or 125 when it could not be run.
</source>
        <translation>
  --help, --version

退出码：0 表示成功，1 表示操作失败，2 表示用法错误；exec：命令自身的退出码，
无法运行时为 125。
</translation>
    </message>
    <message>
        <source>timer stopped (paused since %1)</source>
        <translation>计时器已停止（自 %1 起暂停）</translation>
    </message>
    <message>
        <source>%1d %2h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>
list prints a table fitted to the terminal&apos;s width (else $COLUMNS&apos;s); --output
json (or --json) prints JSON, --output ids one workspace id per line. info
prints one workspace as the listing knows it (--json: list --json&apos;s object).
</source>
        <translation>
list 打印一张适应终端宽度（否则按 $COLUMNS）的表格；--output json（或 --json）
打印 JSON，--output ids 每行打印一个工作区 ID。info 按列表所知打印单个工作区
（--json：即 list --json 中该工作区的对象）。
</translation>
    </message>
    <message>
        <source>timer stopped</source>
        <translation>计时器已停止</translation>
    </message>
    <message>
        <source>%1 (expired)</source>
        <translation>%1（已过期）</translation>
    </message>
    <message>
        <source>%1 (in %2)</source>
        <translation>%1（%2 后）</translation>
    </message>
    <message>
        <source>%1 (since its last activity)</source>
        <translation>%1（自最后活动起）</translation>
    </message>
    <message>
        <source>%1 (since it was created)</source>
        <translation>%1（自创建起）</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>工作区：</translation>
    </message>
    <message>
        <source>Sandbox:</source>
        <translation>沙箱：</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>User:</source>
        <translation>用户：</translation>
    </message>
    <message>
        <source>Agent:</source>
        <translation>智能体：</translation>
    </message>
    <message>
        <source>Backend:</source>
        <translation>后端：</translation>
    </message>
    <message>
        <source>Image:</source>
        <translation>镜像：</translation>
    </message>
    <message>
        <source>Created:</source>
        <translation>创建时间：</translation>
    </message>
    <message>
        <source>Expires:</source>
        <translation>过期时间：</translation>
    </message>
    <message>
        <source>Paused since:</source>
        <translation>暂停时间：</translation>
    </message>
    <message>
        <source>Last activity:</source>
        <translation>最后活动：</translation>
    </message>
    <message>
        <source>Idle:</source>
        <translation>空闲：</translation>
    </message>
    <message>
        <source>Metadata:</source>
        <translation>元数据：</translation>
    </message>
    <message>
        <source>--output takes one of %1, not &quot;%2&quot;</source>
        <translation>--output 只接受 %1 之一，而不是“%2”</translation>
    </message>
    <message>
        <source>--json means --output json, not --output %1</source>
        <translation>--json 即 --output json，与 --output %1 矛盾</translation>
    </message>
    <message>
        <source>IDLE</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>EXPIRES IN</source>
        <translation>距过期</translation>
    </message>
    <message>
        <source>BACKEND</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>stopped</source>
        <comment>the expiry timer of a paused sandbox</comment>
        <translation>计时已停</translation>
    </message>
    <message>
        <source>
pause, resume, close, kill and renew act on the workspaces given, or with --all
on every workspace that FILTERS keep, found by one listing. FILTERS, each one
more condition (list takes them too):
  --state S[,S...]          running, paused, pending, failed, ...
  --user U, --agent A       repeatable: any of them
  --label KEY=VALUE         metadata; repeatable: all of them
  --idle-longer-than D      idle by the listing&apos;s times (last activity, else
                            creation)
  --expires-within D        expires within D (or expired)
BULK: --concurrency N (1-64, default 8) at once; --dry-run prints what would be
done; --json prints the results as JSON at the end; --fail-empty exits 1 when
nothing matches; --yes kills several workspaces chosen by --all without asking
(needed when stdin is not a terminal). Results come in the order given; one
failure does not stop the rest (exit 1). Ctrl+C starts nothing more, waits for
what is under way and says what was done. Durations: 90s, 30m, 2h, 1d.
</source>
        <translation>
pause、resume、close、kill 和 renew 作用于给出的工作区；用 --all 时作用于
FILTERS 保留的每个工作区（只列出一次）。FILTERS 每个都是一个附加条件
（list 也接受）：
  --state S[,S...]          running、paused、pending、failed 等
  --user U, --agent A       可重复：满足其一即可
  --label KEY=VALUE         元数据；可重复：须全部满足
  --idle-longer-than D      按列表中的时间判断空闲（最近活动，否则为创建时间）
  --expires-within D        在 D 内到期（或已到期）
BULK：--concurrency N（1-64，默认 8）同时进行的数量；--dry-run 只打印将要做的事；
--json 在结束时以 JSON 打印结果；--fail-empty 在没有匹配时以 1 退出；
--yes 在销毁 --all 选中的多个工作区时不再询问（标准输入不是终端时必须给出）。
结果按给出的顺序输出；一个失败不会中止其余的（退出码 1）。Ctrl+C 不再开始新的
操作，等待进行中的完成，并说明哪些已完成。时长：90s、30m、2h、1d。
</translation>
    </message>
    <message>
        <source>no workspace matches</source>
        <translation>没有匹配的工作区</translation>
    </message>
    <message>
        <source>--%1 takes a duration such as %2, not &quot;%3&quot;</source>
        <translation>--%1 需要一个时长，例如 %2，而不是“%3”</translation>
    </message>
    <message>
        <source>would pause %1</source>
        <translation>将暂停 %1</translation>
    </message>
    <message>
        <source>would resume %1</source>
        <translation>将恢复 %1</translation>
    </message>
    <message>
        <source>would close %1</source>
        <translation>将关闭 %1</translation>
    </message>
    <message>
        <source>would kill %1</source>
        <translation>将销毁 %1</translation>
    </message>
    <message>
        <source>would renew %1</source>
        <translation>将续期 %1</translation>
    </message>
    <message numerus="yes">
        <source>Kill %n workspace(s)? Their sandboxes are deleted. [y/N] </source>
        <translation>
            <numerusform>销毁 %n 个工作区？其沙箱将被删除。[y/N] </numerusform>
        </translation>
    </message>
    <message>
        <source>y</source>
        <translation>是</translation>
    </message>
    <message>
        <source>--state takes %1 (several with commas), not &quot;%2&quot;</source>
        <translation>--state 接受 %1（多个用逗号分隔），而不是“%2”</translation>
    </message>
    <message>
        <source>--label takes key=value, not &quot;%1&quot;</source>
        <translation>--label 需要 key=value，而不是“%1”</translation>
    </message>
    <message>
        <source>--concurrency takes a whole number from 1 to %1, not &quot;%2&quot;</source>
        <translation>--concurrency 需要 1 到 %1 之间的整数，而不是“%2”</translation>
    </message>
    <message>
        <source>no workspace %1</source>
        <translation>没有工作区 %1</translation>
    </message>
    <message>
        <source>give workspace ids or --all, not both</source>
        <translation>请给出工作区 ID 或 --all，不能同时给出</translation>
    </message>
    <message>
        <source>give workspace ids, or --all (narrowed by --state, --user, --agent, --label, --idle-longer-than, --expires-within) for every workspace that matches</source>
        <translation>请给出工作区 ID，或用 --all（可用 --state、--user、--agent、--label、--idle-longer-than、--expires-within 缩小范围）作用于所有匹配的工作区</translation>
    </message>
    <message>
        <source>the filters choose among all workspaces: give them with --all, not with ids</source>
        <translation>筛选条件是在所有工作区中挑选：请与 --all 一起使用，而不是与 ID 一起使用</translation>
    </message>
    <message>
        <source>renew needs --seconds N (or a duration: %1)</source>
        <translation>renew 需要 --seconds N（或一个时长：%1）</translation>
    </message>
    <message>
        <source>--seconds takes a positive whole number of seconds or a duration such as %1, not &quot;%2&quot;</source>
        <translation>--seconds 需要正整数秒数或时长（例如 %1），而不是“%2”</translation>
    </message>
    <message>
        <source>no workspace matches; nothing to %1</source>
        <translation>没有匹配的工作区；无需 %1</translation>
    </message>
    <message>
        <source>not confirmed; nothing was killed</source>
        <translation>未确认；没有销毁任何工作区</translation>
    </message>
    <message numerus="yes">
        <source>kill --all would kill %n workspace(s): give --yes to do it without being asked (stdin is not a terminal), or --dry-run to see which</source>
        <translation>
            <numerusform>kill --all 将销毁 %n 个工作区：给出 --yes 以不经询问执行（标准输入不是终端），或用 --dry-run 查看是哪些</numerusform>
        </translation>
    </message>
    <message>
        <source>interrupted: %1 done, %2 failed, %3 not started</source>
        <translation>已中断：%1 个完成，%2 个失败，%3 个未开始</translation>
    </message>
    <message>
        <source>not started: %1</source>
        <translation>未开始：%1</translation>
    </message>
    <message>
        <source>sweep needs --idle DURATION (such as %1)</source>
        <translation>sweep 需要 --idle DURATION（例如 %1）</translation>
    </message>
    <message>
        <source>--idle takes a duration such as %1 (or whole seconds), not &quot;%2&quot;</source>
        <translation>--idle 需要一个时长，例如 %1（或整数秒），而不是“%2”</translation>
    </message>
    <message>
        <source>idle %1, %2</source>
        <translation>空闲 %1，%2</translation>
    </message>
    <message>
        <source>%1 would be paused (%2)</source>
        <translation>%1 将被暂停（%2）</translation>
    </message>
    <message>
        <source>%1 paused (%2)</source>
        <translation>%1 已暂停（%2）</translation>
    </message>
    <message>
        <source>now + %1 is %2, earlier than its current expiry %3; nothing was changed (give --allow-shorter to shorten it)</source>
        <translation>当前时间 + %1 为 %2，早于其当前到期时间 %3；未做任何更改（如要缩短，请给出 --allow-shorter）</translation>
    </message>
</context>
</TS>
