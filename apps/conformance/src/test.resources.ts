import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { McpArgs, McpResource, McpServer } from '@conduit-mcp/server';
import { TEST_PNG_BASE64 } from './test-media';

const WATCHED_URI = 'test://watched-resource';
const WATCHED_INTERVAL_MS = 3_000;

/** The resources the suite reads and subscribes to; the watched one changes every few seconds. */
@Injectable()
export class TestResources implements OnApplicationBootstrap, OnApplicationShutdown {
  private revision = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly server: McpServer) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.revision++;
      void this.server.notifyResourceUpdated(WATCHED_URI);
    }, WATCHED_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (a PNG image) for testing',
    mimeType: 'image/png',
  })
  staticBinary() {
    return { blob: TEST_PNG_BASE64 };
  }

  @McpResource({
    uri: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  })
  template(@McpArgs() { id }: { id: string }) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }

  @McpResource({
    uri: WATCHED_URI,
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource that changes every 3 seconds; subscribers are notified',
    mimeType: 'text/plain',
  })
  watched() {
    return `Watched resource content (revision ${this.revision})`;
  }
}
