import { Injectable } from '@nestjs/common';
import { JsonSchemaObject } from '@conduit-mcp/core';
import { McpArgs, McpTool, McpToolError } from '@conduit-mcp/server';
import { TEST_PNG_BASE64, TEST_WAV_BASE64 } from './test-media';

/** The suite's own JSON Schema 2020-12 input schema (scenario `json-schema-2020-12`); it must be listed unchanged. */
const JSON_SCHEMA_2020_12_INPUT: JsonSchemaObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Tools whose results exercise each content type, tool errors, and schema preservation. */
@Injectable()
export class ContentTools {
  @McpTool({ name: 'test_simple_text', description: 'Returns one text block.' })
  simpleText() {
    return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
  }

  @McpTool({ name: 'test_image_content', description: 'Returns one PNG image block.' })
  imageContent() {
    return { content: [{ type: 'image', data: TEST_PNG_BASE64, mimeType: 'image/png' }] };
  }

  @McpTool({ name: 'test_audio_content', description: 'Returns one WAV audio block.' })
  audioContent() {
    return { content: [{ type: 'audio', data: TEST_WAV_BASE64, mimeType: 'audio/wav' }] };
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Returns one embedded text resource.' })
  embeddedResource() {
    return {
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    };
  }

  @McpTool({ name: 'test_multiple_content_types', description: 'Returns text, image and embedded resource blocks.' })
  multipleContentTypes() {
    return {
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    };
  }

  @McpTool({ name: 'test_error_handling', description: 'Always fails with a tool error (isError: true).' })
  errorHandling(): never {
    throw new McpToolError('This tool intentionally returns an error for testing');
  }

  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: JSON_SCHEMA_2020_12_INPUT,
  })
  jsonSchema202012(@McpArgs() args: Record<string, unknown>) {
    return `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`;
  }
}
