import { createInterface } from 'node:readline/promises';
import { ElicitResult, JsonSchemaObject } from '@conduit-mcp/core';
import { terminalLine } from './terminal-text';

/** A field of an elicitation form: the spec's flat primitive subset. */
interface FormField {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
}

type Answer = string | number | boolean | string[];

/**
 * Asks a person for an elicitation's answer on the terminal (questions on stderr, answers from stdin): each field
 * of the form in turn, then whether to send, decline or cancel. An empty answer keeps the field's default, or leaves
 * an optional field out. Every text of the server's is shown through `terminalLine`.
 */
export async function askOnTerminal(
  message: string,
  schema: JsonSchemaObject,
  hints: { server: string; sensitive: Set<string>; signal: AbortSignal },
): Promise<ElicitResult> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const ask = (question: string) => terminal.question(question, { signal: hints.signal });
  try {
    process.stderr.write(`\nThe server "${terminalLine(hints.server, 128)}" asks: ${terminalLine(message, 4_096)}\n`);
    const required = new Set(schema.required ?? []);
    const content: Record<string, Answer> = {};
    for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, FormField>)) {
      if (hints.sensitive.has(name))
        process.stderr.write(`  (careful: "${terminalLine(name, 128)}" looks like it asks for a secret)\n`);
      const answer = await askField(ask, name, field, required.has(name));
      if (answer !== undefined) content[name] = answer;
    }
    for (;;) {
      const choice = (await ask('Send these answers? [y]es, [n]o (decline), [c]ancel: ')).trim().toLowerCase();
      if (choice === 'y' || choice === 'yes') return { action: 'accept', content };
      if (choice === 'n' || choice === 'no') return { action: 'decline' };
      if (choice === 'c' || choice === 'cancel') return { action: 'cancel' };
    }
  } finally {
    terminal.close();
  }
}

async function askField(
  ask: (question: string) => Promise<string>,
  name: string,
  field: FormField,
  required: boolean,
): Promise<Answer | undefined> {
  const choices = choicesOf(field);
  const shown = [
    field.type ?? 'string',
    choices && `one of ${choices.map((choice) => terminalLine(choice, 128)).join(' | ')}`,
    field.default !== undefined && `default ${terminalLine(JSON.stringify(field.default), 256)}`,
    required && 'required',
  ]
    .filter(Boolean)
    .join(', ');
  const description = field.description ? ` (${terminalLine(field.description)})` : '';
  const label = `  ${terminalLine(field.title ?? name, 128)}${description} [${terminalLine(shown)}]: `;
  for (;;) {
    const text = (await ask(label)).trim();
    if (text === '') {
      if (field.default !== undefined) return field.default as Answer;
      if (!required) return undefined;
      process.stderr.write('  an answer is required\n');
      continue;
    }
    const value = valueOf(text, field, choices);
    if (value !== undefined) return value;
    process.stderr.write(`  not a valid ${terminalLine(field.type ?? 'value', 32)}\n`);
  }
}

function choicesOf(field: FormField): string[] | undefined {
  const values =
    field.enum ??
    field.oneOf?.map((option) => option.const) ??
    field.items?.enum ??
    field.items?.anyOf?.map((option) => option.const);
  return values?.map(String);
}

function valueOf(text: string, field: FormField, choices: string[] | undefined): Answer | undefined {
  switch (field.type) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(text) ? true : /^(n|no|false)$/i.test(text) ? false : undefined;
    case 'integer':
    case 'number': {
      const number = Number(text);
      return Number.isFinite(number) && (field.type === 'number' || Number.isInteger(number)) ? number : undefined;
    }
    case 'array': {
      const picked = text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      return choices && picked.some((item) => !choices.includes(item)) ? undefined : picked;
    }
    default:
      return choices && !choices.includes(text) ? undefined : text;
  }
}
