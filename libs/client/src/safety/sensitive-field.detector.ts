import { isJsonObject } from '@conduit-mcp/core';

const SECRET_TERMS = [
  'passwords?',
  'passwd',
  'passphrases?',
  'secrets?',
  'tokens?',
  'api ?keys?',
  'private ?keys?',
  'ssn',
  'social security',
  'credit ?cards?',
  'card ?numbers?',
  'cvv',
  'cvc',
  'pins?',
  'otp',
  '2fa',
];
// Matched against words: camelCase, snake_case and kebab-case are split first, so `apiKey`, `api_key` and
// `API-Key` all read `api key`. A trailing number (`password2`, `cvv2`) still matches.
const SECRET_WORDS = new RegExp(`\\b(?:${SECRET_TERMS.join('|')})\\d*\\b`);

/**
 * Whether a form field looks like it asks for a secret: its name, title or description names one
 * (password, token, API key, card number, PIN, …), or it is declared `format: "password"` or `writeOnly`.
 * A hint for the person answering, not a guarantee either way.
 */
export function isSensitiveField(name: string, schema: unknown): boolean {
  if (isJsonObject(schema) && (schema.format === 'password' || schema.writeOnly === true)) return true;
  const texts = [name];
  if (isJsonObject(schema)) {
    for (const text of [schema.title, schema.description]) if (typeof text === 'string') texts.push(text);
  }
  return texts.some((text) => SECRET_WORDS.test(words(text)));
}

function words(text: string): string {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z0-9])([A-Z][a-z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .toLowerCase();
}
