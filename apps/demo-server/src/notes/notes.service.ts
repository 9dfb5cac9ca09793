import { Injectable } from '@nestjs/common';

export interface Note {
  id: string;
  title: string;
  body: string;
}

/** An in-memory notebook, bounded so that a chatty client cannot grow it without end. */
@Injectable()
export class NotesService {
  static readonly MAX_NOTES = 1_000;
  private readonly notes = new Map<string, Note>([
    ['welcome', { id: 'welcome', title: 'Welcome', body: 'Notes live in memory.' }],
  ]);
  private nextId = 1;

  list(): Note[] {
    return [...this.notes.values()];
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  add(title: string, body: string): Note | undefined {
    if (this.notes.size >= NotesService.MAX_NOTES) return undefined;
    const note = { id: `n${this.nextId++}`, title, body };
    this.notes.set(note.id, note);
    return note;
  }

  delete(id: string): boolean {
    return this.notes.delete(id);
  }

  clear(): number {
    const count = this.notes.size;
    this.notes.clear();
    return count;
  }
}
