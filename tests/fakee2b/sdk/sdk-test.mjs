// The official E2B JS SDK (e2b 2.51.0) against paddock-fake-e2b: the flows AgentScope's E2B
// workspace uses, and the errors after them. Run by run-sdk-test.sh, which installs the SDK and
// starts the fake; the environment gives E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY and
// E2B_SDK_PREFIX (where node_modules/e2b is).

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(`${process.env.E2B_SDK_PREFIX}/package.json`)
const {
  Sandbox,
  CommandExitError,
  SandboxNotFoundError,
  AuthenticationError,
  NotFoundError,
  FileNotFoundError,
} = require('e2b')

const apiUrl = process.env.E2B_API_URL
let passed = 0
let failed = 0

async function check(name, body) {
  try {
    await body()
    passed += 1
    console.log(`PASS ${name}`)
  } catch (error) {
    failed += 1
    console.log(`FAIL ${name}\n  ${error?.stack ?? error}`)
  }
}

async function expectError(promise, errorClass, pattern) {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof errorClass, `expected ${errorClass.name}, got ${error?.constructor?.name}: ${error?.message}`)
    if (pattern) assert.match(error.message, pattern)
    return error
  }
  assert.fail(`expected ${errorClass.name}, got success`)
}

// The fake's own test route: moves its clock forward.
async function advanceClock(seconds) {
  const response = await fetch(`${apiUrl}/_fake/clock`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ advanceSeconds: seconds }),
  })
  assert.equal(response.status, 200)
}

async function fakeStats() {
  return (await fetch(`${apiUrl}/_fake/stats`)).json()
}

const workspaceId = 'ws 1&x=y' // characters the three-layer metadata encoding must carry
const metadata = { 'agentscope.workspace.id': workspaceId, 'agentscope.user.id': '运维', plain: 'v' }
let sandbox
let other

await check('create with metadata (POST /v2/sandboxes)', async () => {
  sandbox = await Sandbox.create({ metadata, envs: { A: '1' }, timeoutMs: 1_800_000 })
  assert.match(sandbox.sandboxId, /^i[a-z0-9]{20}$/)
  other = await Sandbox.create({ metadata: { 'agentscope.workspace.id': 'another' } })
  const info = await Sandbox.getInfo(sandbox.sandboxId)
  assert.equal(info.state, 'running')
  assert.deepEqual(info.metadata, metadata)
  assert.equal(info.envdVersion, '0.6.13')
  assert.equal(info.name, 'base')
  const seconds = (info.endAt - info.startedAt) / 1000
  assert.ok(Math.abs(seconds - 1800) < 1, `timeout ${seconds}s`)
  // The default timeout of v2 create is 300 s.
  const defaults = await Sandbox.getInfo(other.sandboxId)
  assert.ok(Math.abs((defaults.endAt - defaults.startedAt) / 1000 - 300) < 1)
})

await check('list by metadata (GET /v2/sandboxes)', async () => {
  const paginator = Sandbox.list({ query: { metadata: { 'agentscope.workspace.id': workspaceId }, state: ['paused', 'running'] } })
  const items = await paginator.nextItems()
  assert.equal(paginator.hasNext, false)
  assert.deepEqual(items.map((s) => s.sandboxId), [sandbox.sandboxId])
  assert.deepEqual(items[0].metadata, metadata)
  assert.equal(items[0].state, 'running')
  const byUser = await Sandbox.list({ query: { metadata: { 'agentscope.user.id': '运维' } } }).nextItems()
  assert.deepEqual(byUser.map((s) => s.sandboxId), [sandbox.sandboxId])
  const none = await Sandbox.list({ query: { metadata: { 'agentscope.workspace.id': 'ws 1' } } }).nextItems()
  assert.deepEqual(none, [])
})

await check('list pages by X-Next-Token, newest first', async () => {
  const paginator = Sandbox.list({ limit: 1 })
  const seen = []
  while (paginator.hasNext) {
    const page = await paginator.nextItems()
    assert.ok(page.length <= 1)
    seen.push(...page.map((s) => s.sandboxId))
  }
  assert.deepEqual(seen, [other.sandboxId, sandbox.sandboxId])
})

await check('a command that writes to stdout and stderr and exits 3', async () => {
  const error = await expectError(sandbox.commands.run('echo out; echo 错误 >&2; exit 3'), CommandExitError)
  assert.equal(error.exitCode, 3)
  assert.equal(error.stdout, 'out\n')
  assert.equal(error.stderr, '错误\n')
  assert.equal(error.error, 'exit status 3')
})

await check('a command with envs, cwd and streamed output', async () => {
  const chunks = []
  const result = await sandbox.commands.run('echo "$A $B $HOME"; pwd; for i in 1 2 3; do echo line $i; done', {
    envs: { B: '2' },
    cwd: '/tmp',
    onStdout: (data) => chunks.push(data),
  })
  assert.equal(result.exitCode, 0)
  // Unconfined (--no-bwrap, only outside CI), HOME and /tmp are the sandbox's folders on this host.
  if (!process.env.FAKE_E2B_UNCONFINED) assert.equal(result.stdout, '1 2 /home/user\n/tmp\nline 1\nline 2\nline 3\n')
  assert.equal(result.stderr, '')
  assert.equal(chunks.join(''), result.stdout)
})

await check('a background command, listed and killed', async () => {
  const handle = await sandbox.commands.run('sleep 600', { background: true })
  const listed = await sandbox.commands.list()
  assert.ok(listed.some((p) => p.pid === handle.pid && p.args.includes('sleep 600')))
  assert.equal(await sandbox.commands.kill(handle.pid), true)
  const error = await expectError(handle.wait(), CommandExitError)
  assert.equal(error.exitCode, -1)
  assert.equal(await sandbox.commands.kill(handle.pid), false)
})

const chinese = '你好，世界！\n第二行：中文与 English 混排。\n'
const filePath = '/home/user/workspace/笔记/说明.txt'

await check('write and read a file with Chinese text', async () => {
  const written = await sandbox.files.write(filePath, chinese)
  assert.equal(written.path, filePath)
  assert.equal(written.name, '说明.txt')
  assert.equal(await sandbox.files.read(filePath), chinese)
  const bytes = await sandbox.files.read(filePath, { format: 'bytes' })
  assert.deepEqual(Buffer.from(bytes), Buffer.from(chinese, 'utf8'))
  assert.equal(await sandbox.files.exists(filePath), true)
  const entries = await sandbox.files.list('/home/user/workspace/笔记')
  assert.deepEqual(entries.map((e) => [e.name, e.type, e.size]), [['说明.txt', 'file', Buffer.byteLength(chinese)]])
  // The command sees the same file.
  const cat = await sandbox.commands.run(`cat '${filePath}'`)
  assert.equal(cat.stdout, chinese)
  await expectError(sandbox.files.read('/home/user/missing.txt'), FileNotFoundError)
  assert.equal(await sandbox.files.exists('/home/user/missing.txt'), false)
})

await check('make, rename and remove', async () => {
  assert.equal(await sandbox.files.makeDir('/home/user/a/b'), true)
  assert.equal(await sandbox.files.makeDir('/home/user/a/b'), false)
  const moved = await sandbox.files.rename(filePath, '/home/user/a/b/moved.txt')
  assert.equal(moved.path, '/home/user/a/b/moved.txt')
  await sandbox.files.remove('/home/user/a')
  assert.equal(await sandbox.files.exists('/home/user/a'), false)
  await sandbox.files.write(filePath, chinese)
})

await check('pause', async () => {
  assert.equal(await sandbox.isRunning(), true)
  assert.equal(await sandbox.pause(), true)
  assert.equal((await Sandbox.getInfo(sandbox.sandboxId)).state, 'paused')
  assert.equal(await Sandbox.pause(sandbox.sandboxId), false) // already paused: 409
  assert.equal(await sandbox.isRunning(), false) // envd behind the proxy: 502
  await assert.rejects(sandbox.commands.run('true'))
  const paused = await Sandbox.list({ query: { state: ['paused'] } }).nextItems()
  assert.deepEqual(paused.map((s) => s.sandboxId), [sandbox.sandboxId])
})

await check('connect resumes it (POST /v2/sandboxes/{id}/connect)', async () => {
  const connected = await Sandbox.connect(sandbox.sandboxId, { timeoutMs: 600_000 })
  assert.equal(connected.sandboxId, sandbox.sandboxId)
  const info = await Sandbox.getInfo(sandbox.sandboxId)
  assert.equal(info.state, 'running')
  assert.ok(Math.abs((info.endAt - info.startedAt) / 1000 - 600) < 1)
  assert.equal(await connected.isRunning(), true)
  assert.equal(await connected.files.read(filePath), chinese) // the files outlived the pause
  sandbox = connected
})

await check('set timeout', async () => {
  await sandbox.setTimeout(120_000)
  const info = await Sandbox.getInfo(sandbox.sandboxId)
  const left = (info.endAt - Date.now()) / 1000
  assert.ok(left > 100 && left <= 121, `${left}s left`)
  // Connecting to a running sandbox only extends its deadline.
  await Sandbox.connect(sandbox.sandboxId, { timeoutMs: 60_000 })
  assert.equal((await Sandbox.getInfo(sandbox.sandboxId)).endAt.getTime(), info.endAt.getTime())
})

await check('kill, and the not-found errors after it', async () => {
  assert.equal(await sandbox.kill(), true)
  assert.equal(await Sandbox.kill(sandbox.sandboxId), false)
  await expectError(Sandbox.getInfo(sandbox.sandboxId), SandboxNotFoundError, /not found/)
  await expectError(Sandbox.connect(sandbox.sandboxId), SandboxNotFoundError, /not found/)
  await expectError(Sandbox.setTimeout(sandbox.sandboxId, 60_000), SandboxNotFoundError)
  await expectError(Sandbox.pause(sandbox.sandboxId), SandboxNotFoundError)
  assert.equal(await sandbox.isRunning(), false)
})

await check('a sandbox expires on the fake clock', async () => {
  await other.setTimeout(60_000)
  await advanceClock(61)
  await expectError(Sandbox.getInfo(other.sandboxId), SandboxNotFoundError)
  assert.equal(await other.isRunning(), false)
})

await check('a wrong API key is refused', async () => {
  await expectError(Sandbox.list({ apiKey: 'e2b_00' }).nextItems(), AuthenticationError, /Unauthorized/)
  await expectError(Sandbox.getInfo('iabc', { apiKey: 'not-an-e2b-key' }), AuthenticationError)
})

await check('everything went to the fake, and no API key to envd', async () => {
  const stats = await fakeStats()
  assert.ok(stats.requests > 10, JSON.stringify(stats))
  assert.ok(stats.envdRequests > 10, JSON.stringify(stats))
  assert.equal(stats.envdRequestsWithApiKey, 0)
  assert.equal(stats.sandboxes, 0)
})

void NotFoundError
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
