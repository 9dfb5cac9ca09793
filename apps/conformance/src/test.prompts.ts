import { Injectable } from '@nestjs/common';
import { McpArgs, McpCompletion, McpPrompt } from '@conduit-mcp/server';
import { TEST_PNG_BASE64 } from './test-media';

const ARG1_SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing'];

/** The prompts the suite gets, and completion of the first argument of the parameterized one. */
@Injectable()
export class TestPrompts {
  @McpPrompt({
    name: 'test_simple_prompt',
    title: 'Simple Test Prompt',
    description: 'A simple prompt without arguments',
  })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  })
  withArguments(@McpArgs() { arg1, arg2 }: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @McpCompletion({ prompt: 'test_prompt_with_arguments', argument: 'arg1' })
  completeArg1(@McpArgs() { value }: { value: string }) {
    return ARG1_SUGGESTIONS.filter((suggestion) => suggestion.startsWith(value));
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  withEmbeddedResource(@McpArgs() { resourceUri }: { resourceUri: string }) {
    return [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ];
  }

  @McpPrompt({
    name: 'test_prompt_with_image',
    title: 'Prompt With Image',
    description: 'A prompt that includes image content',
  })
  withImage() {
    return [
      { role: 'user', content: { type: 'image', data: TEST_PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ];
  }
}
