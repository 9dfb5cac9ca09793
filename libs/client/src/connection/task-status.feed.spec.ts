import { McpTaskInfo } from './mcp-task.types';
import { TaskStatusFeed } from './task-status.feed';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const task = (status: McpTaskInfo['status'], second: number, statusMessage?: string): McpTaskInfo => ({
  taskId: 't',
  status,
  createdAt: at(0),
  lastUpdatedAt: at(second),
  ttlMs: 60_000,
  ...(statusMessage === undefined ? {} : { statusMessage }),
});

describe('TaskStatusFeed', () => {
  it('reports each change of status or status message once, in order', () => {
    const seen: string[] = [];
    const feed = new TaskStatusFeed((t) => seen.push(`${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ''}`));
    feed.see(task('working', 1));
    feed.see(task('working', 1)); // a poll and a notification of the same change
    feed.see(task('input_required', 2, 'Sure?'));
    feed.see(task('input_required', 3, 'Really sure?'));
    feed.see(task('working', 4));
    feed.see(task('completed', 5));
    expect(seen).toEqual(['working', 'input_required: Sure?', 'input_required: Really sure?', 'working', 'completed']);
  });

  it('ignores a view older than the latest (a poll answered after a notification) and anything after the end', () => {
    const seen: string[] = [];
    const feed = new TaskStatusFeed((t) => seen.push(t.status));
    feed.see(task('input_required', 2));
    expect(feed.see(task('working', 1))).toBe(false);
    feed.see(task('cancelled', 3));
    expect(feed.see(task('working', 4))).toBe(false);
    expect(seen).toEqual(['input_required', 'cancelled']);
    expect(feed.latest?.status).toBe('cancelled');
  });

  it('takes views whose timestamps do not parse as new, and survives an observer that throws', () => {
    const feed = new TaskStatusFeed(() => {
      throw new Error('observer bug');
    });
    expect(feed.see({ ...task('working', 1), lastUpdatedAt: 'soon' })).toBe(true);
    expect(feed.see({ ...task('completed', 0), lastUpdatedAt: 'later' })).toBe(true);
    expect(feed.latest?.status).toBe('completed');
  });
});
