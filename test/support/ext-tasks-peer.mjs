// An independent task requester: the official @modelcontextprotocol/ext-tasks client over the official SDK 2.x
// Client, in the legacy era (2025-11-25, its "v1" task generation). ESM only, so tests run it as a child process:
//   node ext-tasks-peer.mjs <url> <scenario>
// It prints one JSON line with what it saw, and exits 0 (or prints { error } and exits 1).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
} from '@modelcontextprotocol/ext-tasks/client';

const [url, scenario] = process.argv.slice(2);

const client = new Client(
  { name: 'ext-tasks-peer', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
const declarations = new Map(tools.map((tool) => [tool.name, toolDeclarationFromMcpTool(tool)]));
const questions = [];
const session = createTaskSessionFromClient(client, {
  endpointId: 'conduit-e2e',
  tools: { currentTool: (name) => declarations.get(name) },
  onInputRequest: async (request) => {
    questions.push({ kind: request.kind, message: request.params.message });
    return { action: 'accept', content: { confirm: true } };
  },
});

const text = (result) => result.content?.[0]?.text;
const report = { scenario, capabilities: session.capabilities };
try {
  if (scenario === 'complete') {
    const execution = await session.callTool(
      'slow',
      { ms: 150 },
      { task: { preference: 'require', retentionMs: 30_000 } },
    );
    report.kind = execution.kind;
    const statuses = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => event.type === 'task' && statuses.push(event.task.status),
    });
    report.statuses = statuses;
    report.text = text(resultFromTaskOutcome(outcome));
    report.snapshot = (await session.task(execution.handle.taskId).snapshot()).status;
    report.listed = (await session.listTasks()).tasks.some((task) => task.taskId === execution.handle.taskId);
  } else if (scenario === 'input') {
    const execution = await session.callTool('asks', {}, { task: { preference: 'require' } });
    const { outcome } = await execution.settle();
    report.text = text(resultFromTaskOutcome(outcome));
    report.questions = questions;
  } else if (scenario === 'cancel') {
    const execution = await session.callTool('slow', { ms: 10_000 }, { task: { preference: 'require' } });
    await execution.cancel();
    const { outcome } = await execution.settle();
    report.outcome = outcome.status;
  } else if (scenario === 'failed') {
    const execution = await session.callTool('breaks', {}, { task: { preference: 'require' } });
    const { outcome } = await execution.settle();
    report.outcome = outcome.status;
    report.message = outcome.error?.message;
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  await session.close();
  await client.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ...report, error: String(error?.stack ?? error) })}\n`);
  process.exit(1);
}
