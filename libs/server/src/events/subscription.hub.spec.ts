import { JsonRpcMessage, META_SUBSCRIPTION_ID } from '@conduit-mcp/core';
import { MessageSink } from '../session/message-sink.interface';
import { McpSubscriptionHub } from './subscription.hub';

function sink(): MessageSink & { sent: Array<{ message: JsonRpcMessage; json?: string }> } {
  const sent: Array<{ message: JsonRpcMessage; json?: string }> = [];
  return { sent, closed: false, send: (message, json) => (sent.push({ message, json }), true) };
}

describe('McpSubscriptionHub', () => {
  it('tags each stream with its subscription id, the shared JSON equal to the message it stands for', () => {
    const hub = new McpSubscriptionHub();
    const [byString, byNumber, quotes, other] = [sink(), sink(), sink(), sink()];
    hub.add('sub-1', { toolsListChanged: true, resourceSubscriptions: ['memo://a'] }, 'o', byString, () => undefined);
    hub.add(7, { toolsListChanged: true, resourceSubscriptions: ['memo://a'] }, 'o', byNumber, () => undefined);
    hub.add('a"}\\', { resourceSubscriptions: ['memo://"odd"'] }, 'o', quotes, () => undefined);
    hub.add('x', { promptsListChanged: true }, 'o', other, () => undefined);
    hub.listChanged('tools');
    hub.resourceUpdated('memo://a');
    hub.resourceUpdated('memo://"odd"');
    for (const out of [byString, byNumber, quotes])
      for (const { message, json } of out.sent) expect(json).toBe(JSON.stringify(message));
    expect(byNumber.sent.map(({ message }) => message)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION_ID]: 7 } } },
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'memo://a', _meta: { [META_SUBSCRIPTION_ID]: 7 } },
      },
    ]);
    expect(JSON.parse(quotes.sent[0].json!)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'memo://"odd"', _meta: { [META_SUBSCRIPTION_ID]: 'a"}\\' } },
    });
    expect(other.sent).toEqual([]);
  });
});
