import {
  Client,
  ClientCapabilities,
  StreamableHTTPClientTransport,
  VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { EraWireRecorder, MODERN_REVISION } from './era-wire-recorder';

/** How the 2.x client picks its era: `pinned` speaks 2026-07-28 only; `auto` probes `server/discover` and may fall back to `initialize`. */
export type Negotiation = 'pinned' | 'auto';

export type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

/** One embedded input request the client answered: its `inputRequests` key and its params. */
export interface AnsweredInput {
  key: string | number;
  params: Record<string, unknown>;
}

/** An official 2.x client, what it answers to the server's questions, and what it saw on the wire. */
export interface ModernPeer {
  client: Client;
  recorder: EraWireRecorder;
  elicitations: AnsweredInput[];
  samplings: AnsweredInput[];
  rootsRequests: AnsweredInput[];
  /** The next elicitation answer, or a function of the question. */
  elicitAnswer: ElicitAnswer | ((question: AnsweredInput) => ElicitAnswer);
  /** What the server wrote on stderr (stdio). */
  stderr: string;
  /** Closes the client (and its transport: the child process on stdio). */
  close(): Promise<void>;
}

export interface ModernPeerOptions {
  negotiation?: Negotiation;
  /** Capabilities to declare; default sampling, elicitation (form) and roots, each with a handler. */
  capabilities?: ClientCapabilities;
}

const ALL_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: {} };

function negotiationMode(negotiation: Negotiation): VersionNegotiationMode {
  return negotiation === 'pinned' ? { pin: MODERN_REVISION } : 'auto';
}

/**
 * Builds an official SDK 2.x client that declares sampling, elicitation and roots and answers them from fields the
 * test sets. In the modern era the SDK fulfils `input_required` results through these same `setRequestHandler`
 * handlers and retries the call; in the legacy era they answer the server's requests.
 */
export function modernPeer(options: ModernPeerOptions = {}): ModernPeer {
  const capabilities = options.capabilities ?? ALL_CAPABILITIES;
  const client = new Client(
    { name: 'conduit-e2e-modern', version: '2.0.0' },
    { capabilities, versionNegotiation: { mode: negotiationMode(options.negotiation ?? 'pinned') } },
  );
  const peer: ModernPeer = {
    client,
    recorder: new EraWireRecorder(),
    elicitations: [],
    samplings: [],
    rootsRequests: [],
    elicitAnswer: { action: 'accept', content: { confirm: true } },
    stderr: '',
    close: () => client.close(),
  };
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const question = { key: ctx.mcpReq.id, params: request.params as Record<string, unknown> };
      peer.elicitations.push(question);
      return typeof peer.elicitAnswer === 'function' ? peer.elicitAnswer(question) : peer.elicitAnswer;
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      peer.samplings.push({ key: ctx.mcpReq.id, params: request.params as Record<string, unknown> });
      return {
        role: 'assistant' as const,
        content: { type: 'text' as const, text: 'Mild and dry.' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', async (request, ctx) => {
      peer.rootsRequests.push({ key: ctx.mcpReq.id, params: (request.params ?? {}) as Record<string, unknown> });
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
  }
  return peer;
}

/** A 2.x client connected over Streamable HTTP; the transport is tapped before `connect`, so the probe is checked too. */
export async function connectModernHttp(
  url: string,
  options: ModernPeerOptions & { headers?: Record<string, string> } = {},
): Promise<ModernPeer> {
  const peer = modernPeer(options);
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    options.headers ? { requestInit: { headers: options.headers } } : undefined,
  );
  await peer.client.connect(peer.recorder.tap(transport));
  return peer;
}

/**
 * A 2.x client that spawns the server over stdio. The SDK runs the connect-time `server/discover` probe on a
 * short-lived sibling process it spawns and reaps itself (its traffic is not tapped); the tapped transport starts
 * once, after the era is known. `close()` ends stdin, then the SDK escalates to SIGTERM/SIGKILL.
 */
export async function connectModernStdio(
  server: StdioServerParameters,
  options: ModernPeerOptions = {},
): Promise<ModernPeer> {
  const peer = modernPeer(options);
  const transport = new StdioClientTransport({ ...server, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => (peer.stderr += chunk.toString('utf8')));
  await peer.client.connect(peer.recorder.tap(transport));
  return peer;
}
