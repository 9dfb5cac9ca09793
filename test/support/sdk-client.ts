import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { WireRecorder } from './wire-recorder';

/** What the test client answers to the server's questions, and what it saw. */
export interface AnsweringClient {
  client: Client;
  recorder: WireRecorder;
  elicitations: unknown[];
  samplings: unknown[];
  /** The next elicitation answer. */
  elicitAnswer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
}

/**
 * An official SDK 1.x client that advertises sampling, elicitation and roots and answers them from fields the
 * test sets; its transport is tapped so every server message is checked against the schema.
 */
export function answeringClient(): AnsweringClient {
  const client = new Client(
    { name: 'conduit-e2e', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  const state: AnsweringClient = {
    client,
    recorder: new WireRecorder(),
    elicitations: [],
    samplings: [],
    elicitAnswer: { action: 'accept', content: { confirm: true } },
  };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    state.elicitations.push(request.params);
    return state.elicitAnswer as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    state.samplings.push(request.params);
    return {
      role: 'assistant',
      content: { type: 'text', text: 'Mild and dry.' },
      model: 'test-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  return state;
}
